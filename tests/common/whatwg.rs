//! A WHATWG [`UrlParser`] for the tests, on top of the `url` crate (which implements the URL
//! Standard, as the browser's `URL` does in the runtime). One known difference: `url` 2.5 refuses
//! `///host/x` against an http(s) base ("empty host"), which browsers read as `//host/x`.
//!
//! Like the browser's, it reads its arguments as the JS strings the crate's internal strings stand
//! for (`chat_runtime::json`), converted as `new URL` converts its `USVString` arguments: a lone
//! surrogate becomes U+FFFD.

use chat_runtime::tools::url::{ParsedUrl, UrlParser};

/// The scalar value string `new URL` makes of the JS string the internal string `s` stands for.
pub fn usv(s: &str) -> String {
    String::from_utf16_lossy(&chat_runtime::json::to_utf16(s))
}

/// `new URL(input, base)`, by the `url` crate.
#[derive(Debug, Clone, Copy, Default)]
pub struct Whatwg;

impl UrlParser for Whatwg {
    fn parse(&self, input: &str, base: Option<&str>) -> Result<ParsedUrl, String> {
        let input = &usv(input);
        let base = base.map(usv);
        let base = base.as_deref();
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
