//! A WHATWG [`UrlParser`] for the tests, on top of the `url` crate (which implements the URL
//! Standard, as the browser's `URL` does in the runtime). One known difference: `url` 2.5 refuses
//! `///host/x` against an http(s) base ("empty host"), which browsers read as `//host/x`.

use chat_runtime::tools::url::{ParsedUrl, UrlParser};

/// `new URL(input, base)`, by the `url` crate.
#[derive(Debug, Clone, Copy, Default)]
pub struct Whatwg;

impl UrlParser for Whatwg {
    fn parse(&self, input: &str, base: Option<&str>) -> Result<ParsedUrl, String> {
        let url = match base {
            Some(base) => url::Url::parse(base)
                .and_then(|base| base.join(input))
                .map_err(|e| e.to_string())?,
            None => url::Url::parse(input).map_err(|e| e.to_string())?,
        };
        Ok(ParsedUrl {
            href: url.as_str().to_string(),
            protocol: format!("{}:", url.scheme()),
            username: url.username().to_string(),
            password: url.password().unwrap_or("").to_string(),
            origin: url.origin().ascii_serialization(),
        })
    }
}
