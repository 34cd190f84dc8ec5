//! Resolving a tool's `importPath` against the URL of `tools.json`, and the origin policy.
//!
//! **The browser parses, this module decides.** A tool module is loaded with `import(href)`, and
//! the browser parses that URL with the WHATWG URL Standard. If the policy read URLs with a parser
//! of its own, an attacker could write an `importPath` that the two read differently: one that
//! looks same-origin here and is foreign to the browser (`/\evil.example/x.js` is
//! `//evil.example/x.js` to a browser; tabs and newlines are dropped anywhere; `https:///host`
//! skips the extra slash; hosts are IDNA-mapped, percent-decoded, and numeric IPv4 forms such as
//! `0x7f.1` are rewritten). So the core has no URL parser: the host injects one, a [`UrlParser`],
//! which in the browser is `new URL(input, base)` itself (in native tests, the `url` crate, which
//! implements the same standard).
//!
//! What the parser decides, and the policy takes as it is: how a reference resolves against the
//! base (relative paths, `.` and `..`, `%2e`, scheme-relative `//host`), which characters are
//! dropped or percent-encoded, what the host is (lower case, IDNA, IPv4 and IPv6 forms), the port
//! (default ports dropped), and above all the [origin](ParsedUrl::origin): it is the parser's
//! `origin` that [`check_origin`] compares, never one derived here. The URL handed to `import()` is
//! the parser's `href`, an absolute URL that parses again to itself, so the module loaded is of
//! the origin that was checked.
//!
//! What the policy decides, over the parsed parts ([`resolve`]):
//!
//! - the reference must not be empty (or only spaces and control characters, which the parser
//!   strips): the parser would resolve it to `tools.json` itself, which is never a module an author
//!   meant;
//! - the base (the URL of `tools.json`) must be an http(s) URL without a user name or password;
//! - the result must be `http:` or `https:` (no `javascript:`, `data:`, `blob:`, `file:`, ...);
//! - it must carry no user name or password (`user:pass@host`);
//! - its origin must be the page's or one of `allowedImportOrigins` ([`check_origin`]); those
//!   strings are read by the same parser and count only if they are exactly an origin
//!   ([`normalize_origin`]).
//!
//! There are no character rules before parsing (no refusing backslashes, whitespace or control
//! characters): they existed only because a second parser could disagree with the browser's, and
//! with the browser's own parser whatever such a character does to the URL is what the origin check
//! sees. A reference the parser rejects is refused ([`UrlError::NotAUrl`]).

use thiserror::Error;

/// The largest number of characters of a user-supplied string quoted in an error message.
const QUOTE_LIMIT: usize = 100;

/// A WHATWG URL parser: the browser's `URL` in the runtime, the `url` crate in native tests.
///
/// The policy is only as good as the parser's agreement with the one `import()` uses: in the
/// browser, implement it with `new URL(input, base)` and nothing else.
///
/// `input` and `base` are in the JSON layer's internal form ([`crate::json`]: an `importPath`
/// read from `tools.json` may hold a lone surrogate as two private chars). A parser reads them as
/// the JS strings they stand for: the browser's hands those very strings to `new URL` (which, like
/// `import()`, makes a lone surrogate U+FFFD, `%EF%BF%BD` in the URL); a native one parses
/// `String::from_utf16_lossy(&json::to_utf16(input))`, the same scalar value string. Never the
/// private chars themselves: they would become `%F4%8F%BF%BF%F4%80...`, a URL the page's own
/// `import()` would never load. The parts it returns are ASCII (the URL serializers
/// percent-encode the rest), so they are internal strings as they are.
pub trait UrlParser {
    /// `new URL(input, base)`: the parsed URL's parts, or why it is not a URL (the parser's
    /// message; it may quote the input).
    fn parse(&self, input: &str, base: Option<&str>) -> Result<ParsedUrl, String>;
}

/// The parts of a parsed URL the policy looks at, as the WHATWG `URL` object names and serializes
/// them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedUrl {
    /// The whole URL, serialized (`URL.href`).
    pub href: String,
    /// The scheme followed by `:` (`URL.protocol`), lower case: `"https:"`.
    pub protocol: String,
    /// The user name (`URL.username`), empty when there is none.
    pub username: String,
    /// The password (`URL.password`), empty when there is none.
    pub password: String,
    /// The serialized origin (`URL.origin`): `scheme://host[:port]` for http(s), without the
    /// scheme's default port; `"null"` for an opaque origin.
    pub origin: String,
}

impl ParsedUrl {
    fn is_http(&self) -> bool {
        self.protocol == "http:" || self.protocol == "https:"
    }

    fn has_credentials(&self) -> bool {
        !self.username.is_empty() || !self.password.is_empty()
    }
}

/// An absolute `http(s)` URL produced by [`resolve`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResolvedUrl {
    /// The whole URL, as the parser serialized it.
    pub href: String,
    /// Its origin, `scheme://host[:port]`, as the parser serialized it.
    pub origin: String,
}

/// Why a URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum UrlError {
    /// The reference is empty, or only spaces and control characters (which the parser strips).
    #[error("the url is empty")]
    Empty,
    /// The parser did not accept the reference (resolved against the base) as a URL.
    #[error("the url is not valid: {reason}")]
    NotAUrl {
        /// The parser's message (shortened if long).
        reason: String,
    },
    /// A scheme other than `http` or `https`.
    #[error("the url scheme `{scheme}:` is not allowed (only http and https)")]
    UnsupportedScheme {
        /// The scheme, lower case, without the `:` (shortened if long).
        scheme: String,
    },
    /// A user name or password (`user:pass@host`).
    #[error("the url contains a user name or password (`user@host`)")]
    Userinfo,
    /// The base URL (of `tools.json`) is not an http(s) URL without a user name or password.
    #[error("the base url `{base}` is not an absolute http(s) url: {reason}")]
    BadBase {
        /// The base URL (shortened if long).
        base: String,
        /// Why (shortened if long).
        reason: String,
    },
    /// A string that should be an origin (`scheme://host[:port]`) is not one.
    #[error("`{value}` is not an origin (scheme://host[:port])")]
    NotAnOrigin {
        /// The string (shortened if long).
        value: String,
    },
    /// The URL's origin is neither the page's nor an allowed one.
    #[error("origin {origin} is neither the page's origin nor in allowedImportOrigins")]
    ForeignOrigin {
        /// The URL's origin.
        origin: String,
    },
}

/// Resolves `reference` (a tool's `importPath`) against `base` (the absolute URL of `tools.json`)
/// with `parser`, and applies the policy of the [module docs](self) to the result. The origin is
/// not checked here: that is [`check_origin`]. Never panics.
pub fn resolve(
    reference: &str,
    base: &str,
    parser: &dyn UrlParser,
) -> Result<ResolvedUrl, UrlError> {
    let bad_base = |reason: &str| UrlError::BadBase {
        base: quote(base),
        reason: quote(reason),
    };
    let parsed_base = parser.parse(base, None).map_err(|e| bad_base(&e))?;
    if !parsed_base.is_http() {
        return Err(bad_base(&format!(
            "its scheme is `{}`",
            parsed_base.protocol
        )));
    }
    if parsed_base.has_credentials() {
        return Err(bad_base("it contains a user name or password"));
    }

    // The parser strips leading and trailing C0 controls and spaces and removes tabs and newlines;
    // a reference made only of those is empty.
    if reference.chars().all(|c| c <= ' ') {
        return Err(UrlError::Empty);
    }
    let url = parser
        .parse(reference, Some(base))
        .map_err(|reason| UrlError::NotAUrl {
            reason: quote(&reason),
        })?;
    if !url.is_http() {
        let scheme = url.protocol.strip_suffix(':').unwrap_or(&url.protocol);
        return Err(UrlError::UnsupportedScheme {
            scheme: quote(scheme),
        });
    }
    if url.has_credentials() {
        return Err(UrlError::Userinfo);
    }
    Ok(ResolvedUrl {
        href: url.href,
        origin: url.origin,
    })
}

/// Reads an origin string with `parser` (`https://App.example:443` → `https://app.example`).
///
/// Accepts only a string that is exactly an http(s) origin, with an optional trailing `/`: the
/// parsed URL must serialize as its origin followed by `/`, so a path, a query or fragment (even
/// an empty `?` or `#`), or a user name makes it [`UrlError::NotAnOrigin`], as does another scheme
/// or anything the parser refuses (such as `"null"`).
pub fn normalize_origin(value: &str, parser: &dyn UrlParser) -> Result<String, UrlError> {
    let not_an_origin = || UrlError::NotAnOrigin {
        value: quote(value),
    };
    let url = parser.parse(value, None).map_err(|_| not_an_origin())?;
    let exactly_origin = url
        .href
        .strip_suffix('/')
        .is_some_and(|rest| rest == url.origin);
    if url.is_http() && !url.has_credentials() && exactly_origin {
        Ok(url.origin)
    } else {
        Err(not_an_origin())
    }
}

/// Checks that `url` may be imported by a page of origin `page_origin`: its origin (the parser's)
/// must be the page's, or one in `allowed` (`allowedImportOrigins`). The page origin and the
/// entries are read with [`normalize_origin`]; one that is not an origin (such as the opaque
/// `"null"`) matches nothing.
pub fn check_origin(
    url: &ResolvedUrl,
    page_origin: &str,
    allowed: &[String],
    parser: &dyn UrlParser,
) -> Result<(), UrlError> {
    let matches =
        |candidate: &str| normalize_origin(candidate, parser).is_ok_and(|o| o == url.origin);
    if matches(page_origin) || allowed.iter().any(|a| matches(a)) {
        Ok(())
    } else {
        Err(UrlError::ForeignOrigin {
            origin: url.origin.clone(),
        })
    }
}

/// A user-supplied string for an error message, shortened to [`QUOTE_LIMIT`] characters.
fn quote(value: &str) -> String {
    match value.char_indices().nth(QUOTE_LIMIT) {
        Some((end, _)) => format!("{}…", crate::lean::text::sub(value, ..end)),
        None => value.to_string(),
    }
}
