//! Resolving a tool's `importPath` against the URL of `tools.json`, and the origin policy.
//!
//! This is a small RFC 3986 reference resolver (section 5.2) for `http` and `https` only, not a
//! general URL parser: the `url` crate costs too much WebAssembly for the one thing we need.
//!
//! **Security first.** Browsers parse URLs with the WHATWG URL Standard, which differs from
//! RFC 3986 in ways an attacker can use to make a path look same-origin to us and foreign to the
//! browser (`/\evil.example/x.js` is `//evil.example/x.js` to a browser; tabs and newlines are
//! silently removed; `https:///evil.example` skips the extra slash). So [`resolve`] refuses, instead
//! of interpreting, every reference where the two parsers could disagree about the origin:
//!
//! - a backslash, an ASCII (or other) control character, or whitespace anywhere;
//! - a user name or password (`user@host`);
//! - a scheme other than `http` or `https`, compared case-insensitively (`javascript:`, `data:`,
//!   `blob:`, `file:`, ...);
//! - an absolute URL without `//host` (`https:/x`, `https:x`), or an empty host (`https:///x`, `///x`);
//! - a host that is not plain ASCII letters, digits, `-`, `.`, `_`, `~` (or a bracketed IPv6
//!   address): no percent-encoding, no Unicode (browsers would map it to a different ASCII host).
//!
//! What remains is normalized the way browsers do it: scheme and host lower-cased, the default port
//! (80 for `http`, 443 for `https`) dropped, an empty path becomes `/`, and `.`/`..` segments are
//! removed (RFC 3986 section 5.2.4; like browsers, `%2e` counts as `.` there). Percent-encoded
//! octets are otherwise kept as they are. IPv6 addresses and numeric IPv4 forms are not
//! canonicalized, so an unusual spelling of an allowed host is refused as foreign: the policy fails
//! closed.

use thiserror::Error;

/// The largest number of characters of a user-supplied string quoted in an error message.
const QUOTE_LIMIT: usize = 100;

/// An absolute `http(s)` URL produced by [`resolve`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResolvedUrl {
    /// The whole URL, normalized (lower-case scheme and host, no default port, dot segments removed).
    pub href: String,
    /// Its origin, `scheme://host[:port]`, normalized the same way.
    pub origin: String,
}

/// Why a URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum UrlError {
    /// The reference is the empty string.
    #[error("the url is empty")]
    Empty,
    /// A backslash: browsers read it as `/` in http(s) URLs, so it could change the host.
    #[error("the url contains a backslash, which browsers read as a slash")]
    Backslash,
    /// A control character (browsers silently drop tabs and newlines, which could change the host).
    #[error("the url contains a control character at byte {position}")]
    ControlCharacter {
        /// Its byte offset in the reference.
        position: usize,
    },
    /// Whitespace (a URL is never written with a raw space).
    #[error("the url contains whitespace at byte {position}")]
    Whitespace {
        /// Its byte offset in the reference.
        position: usize,
    },
    /// A scheme other than `http` or `https`.
    #[error("the url scheme `{scheme}:` is not allowed (only http and https)")]
    UnsupportedScheme {
        /// The scheme, lower-cased.
        scheme: String,
    },
    /// A user name or password (`user:pass@host`).
    #[error("the url contains a user name or password (`user@host`)")]
    Userinfo,
    /// No host: an absolute URL without `//host`, or `//` followed by nothing.
    #[error("the url has no host")]
    EmptyHost,
    /// A host that is not a plain ASCII host name or bracketed IPv6 address.
    #[error("the url host `{host}` is not a plain ascii host name or ip address")]
    BadHost {
        /// The host as written (shortened if long).
        host: String,
    },
    /// A port that is not a number from 0 to 65535.
    #[error("the url port `{port}` is not a number from 0 to 65535")]
    BadPort {
        /// The port as written (shortened if long).
        port: String,
    },
    /// The base URL (of `tools.json`) is not an absolute http(s) URL.
    #[error("the base url `{base}` is not an absolute http(s) url: {reason}")]
    BadBase {
        /// The base URL (shortened if long).
        base: String,
        /// Why.
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

/// Resolves `reference` (a tool's `importPath`) against `base` (the absolute URL of `tools.json`).
///
/// Handles absolute URLs, scheme-relative `//host/x`, absolute paths, relative paths with `.` and
/// `..` segments, queries and fragments (RFC 3986 section 5.2). Refuses everything listed in the
/// [module docs](self). Never panics.
///
/// ```
/// use chat_runtime::tools::url::resolve;
/// let url = resolve("../lib/weather.js?v=2", "https://App.example:443/tools/tools.json").unwrap();
/// assert_eq!(url.href, "https://app.example/lib/weather.js?v=2");
/// assert_eq!(url.origin, "https://app.example");
/// ```
pub fn resolve(reference: &str, base: &str) -> Result<ResolvedUrl, UrlError> {
    let base = parse_absolute(base).map_err(|reason| UrlError::BadBase {
        base: quote(base),
        reason: reason.to_string(),
    })?;
    let r = parse(reference)?;

    // RFC 3986 section 5.2.2, "strict" (a same scheme is not treated as relative).
    let (scheme, authority, path, query) = if let Some(scheme) = r.scheme {
        let authority = r.authority.ok_or(UrlError::EmptyHost)?;
        (scheme, authority, remove_dot_segments(r.path), r.query)
    } else if let Some(authority) = r.authority {
        (base.scheme, authority, remove_dot_segments(r.path), r.query)
    } else if r.path.is_empty() {
        let query = r.query.or(base.query);
        (base.scheme, base.authority, base.path.to_string(), query)
    } else if r.path.starts_with('/') {
        (
            base.scheme,
            base.authority,
            remove_dot_segments(r.path),
            r.query,
        )
    } else {
        let merged = merge(base.path, r.path);
        (
            base.scheme,
            base.authority,
            remove_dot_segments(&merged),
            r.query,
        )
    };

    let origin = authority.origin(scheme);
    let mut href = origin.clone();
    // WHATWG serializes the empty path of an http(s) URL as `/`.
    if path.is_empty() {
        href.push('/');
    } else {
        href.push_str(&path);
    }
    if let Some(query) = query {
        href.push('?');
        href.push_str(query);
    }
    if let Some(fragment) = r.fragment {
        href.push('#');
        href.push_str(fragment);
    }
    Ok(ResolvedUrl { href, origin })
}

/// Normalizes an origin string (`https://App.example:443` → `https://app.example`).
///
/// Accepts `scheme://host[:port]` with an optional trailing `/`; anything with a path, query,
/// fragment or user name is not an origin ([`UrlError::NotAnOrigin`]), nor is a non-http(s) one.
pub fn normalize_origin(value: &str) -> Result<String, UrlError> {
    let not_an_origin = || UrlError::NotAnOrigin {
        value: quote(value),
    };
    let parts = parse_absolute(value).map_err(|_| not_an_origin())?;
    if !(parts.path.is_empty() || parts.path == "/")
        || parts.query.is_some()
        || parts.fragment.is_some()
    {
        return Err(not_an_origin());
    }
    Ok(parts.authority.origin(parts.scheme))
}

/// Checks that `url` may be imported by a page of origin `page_origin`: it must be of the same
/// origin, or its origin must be in `allowed` (`allowedImportOrigins`). Origins are compared
/// normalized; an entry of `allowed` (or a `page_origin`, such as `"null"`) that is not an origin
/// matches nothing.
pub fn check_origin(
    url: &ResolvedUrl,
    page_origin: &str,
    allowed: &[String],
) -> Result<(), UrlError> {
    let matches = |candidate: &str| normalize_origin(candidate).is_ok_and(|o| o == url.origin);
    if matches(page_origin) || allowed.iter().any(|a| matches(a)) {
        Ok(())
    } else {
        Err(UrlError::ForeignOrigin {
            origin: url.origin.clone(),
        })
    }
}

/// `http` or `https`, the only schemes accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scheme {
    Http,
    Https,
}

impl Scheme {
    fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }

    fn default_port(self) -> u16 {
        match self {
            Scheme::Http => 80,
            Scheme::Https => 443,
        }
    }
}

/// A checked authority: a lower-cased host and an optional port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

impl Authority {
    /// `scheme://host[:port]`, without the scheme's default port.
    fn origin(&self, scheme: Scheme) -> String {
        match self.port {
            Some(port) if port != scheme.default_port() => {
                format!("{}://{}:{}", scheme.as_str(), self.host, port)
            }
            _ => format!("{}://{}", scheme.as_str(), self.host),
        }
    }
}

/// A URI reference split into its five components (RFC 3986 appendix B), with the scheme and
/// authority already checked.
#[derive(Debug)]
struct Parts<'a> {
    scheme: Option<Scheme>,
    authority: Option<Authority>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

/// A parsed absolute base URL.
struct Base<'a> {
    scheme: Scheme,
    authority: Authority,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

/// Parses an absolute `http(s)://host...` URL.
fn parse_absolute(value: &str) -> Result<Base<'_>, UrlError> {
    let parts = parse(value)?;
    let scheme = parts.scheme.ok_or(UrlError::EmptyHost)?;
    let authority = parts.authority.ok_or(UrlError::EmptyHost)?;
    Ok(Base {
        scheme,
        authority,
        path: parts.path,
        query: parts.query,
        fragment: parts.fragment,
    })
}

/// Splits and checks a reference: characters first, then scheme, then authority.
fn parse(reference: &str) -> Result<Parts<'_>, UrlError> {
    if reference.is_empty() {
        return Err(UrlError::Empty);
    }
    for (position, c) in reference.char_indices() {
        if c == '\\' {
            return Err(UrlError::Backslash);
        }
        if c.is_control() {
            return Err(UrlError::ControlCharacter { position });
        }
        if c.is_whitespace() {
            return Err(UrlError::Whitespace { position });
        }
    }

    let mut rest = reference;
    // The fragment and query are split off first: `#` and `?` end every earlier component.
    let fragment = match rest.split_once('#') {
        Some((before, fragment)) => {
            rest = before;
            Some(fragment)
        }
        None => None,
    };
    let query = match rest.split_once('?') {
        Some((before, query)) => {
            rest = before;
            Some(query)
        }
        None => None,
    };

    // A scheme is `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` before a `:` that comes before any
    // `/`. Anything else before the colon (`1x:`, `a_b:`) is not a scheme, for browsers as well:
    // the reference is then a relative path.
    let mut scheme = None;
    if let Some(colon) = rest.find(':') {
        let candidate = &rest[..colon];
        if !candidate.contains('/') && is_scheme(candidate) {
            let lower = candidate.to_ascii_lowercase();
            scheme = Some(match lower.as_str() {
                "http" => Scheme::Http,
                "https" => Scheme::Https,
                _ => {
                    return Err(UrlError::UnsupportedScheme {
                        scheme: quote(&lower),
                    })
                }
            });
            rest = &rest[colon + 1..];
        }
    }

    let mut authority = None;
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find('/').unwrap_or(after.len());
        authority = Some(parse_authority(&after[..end])?);
        rest = &after[end..];
    }

    Ok(Parts {
        scheme,
        authority,
        path: rest,
        query,
        fragment,
    })
}

fn is_scheme(candidate: &str) -> bool {
    let mut chars = candidate.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Checks `host[:port]`: no userinfo, a non-empty plain host, a numeric port.
fn parse_authority(authority: &str) -> Result<Authority, UrlError> {
    if authority.contains('@') {
        return Err(UrlError::Userinfo);
    }
    let (host, port) = if authority.starts_with('[') {
        // A bracketed IPv6 address: `[` hex digits, `:` and `.` `]`.
        let close = authority.find(']').ok_or_else(|| UrlError::BadHost {
            host: quote(authority),
        })?;
        let host = &authority[..=close];
        let inner = &host[1..host.len() - 1];
        if inner.is_empty()
            || !inner
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
        {
            return Err(UrlError::BadHost { host: quote(host) });
        }
        let after = &authority[close + 1..];
        let port = match after.strip_prefix(':') {
            Some(port) => Some(port),
            None if after.is_empty() => None,
            None => {
                return Err(UrlError::BadHost {
                    host: quote(authority),
                })
            }
        };
        (host, port)
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(UrlError::EmptyHost);
    }
    if !host.starts_with('[')
        && !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
    {
        return Err(UrlError::BadHost { host: quote(host) });
    }
    let port = match port {
        // `host:` is the default port, for RFC 3986 and for browsers.
        None | Some("") => None,
        Some(port) => {
            let bad = || UrlError::BadPort { port: quote(port) };
            if !port.chars().all(|c| c.is_ascii_digit()) {
                return Err(bad());
            }
            // Leading zeros are allowed (`0443` is 443, as in browsers); strip them so a long
            // run of zeros does not overflow.
            let digits = port.trim_start_matches('0');
            if digits.is_empty() {
                Some(0)
            } else if digits.len() > 5 {
                return Err(bad());
            } else {
                Some(digits.parse::<u16>().map_err(|_| bad())?)
            }
        }
    };
    Ok(Authority {
        host: host.to_ascii_lowercase(),
        port,
    })
}

/// RFC 3986 section 5.2.3: the base path up to its last `/`, then the reference path.
fn merge(base_path: &str, reference_path: &str) -> String {
    match base_path.rfind('/') {
        Some(slash) => format!("{}{}", &base_path[..=slash], reference_path),
        // A base with an authority and an empty path.
        None => format!("/{reference_path}"),
    }
}

/// RFC 3986 section 5.2.4 for the absolute paths produced here (an empty path stays empty).
/// Like browsers, `%2e` (any case) counts as `.` in a dot segment.
fn remove_dot_segments(path: &str) -> String {
    let Some(rest) = path.strip_prefix('/') else {
        // Only the empty path reaches here: every path after an authority starts with `/`, and
        // relative paths are merged first.
        return path.to_string();
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let last = segments.len() - 1;
    let mut out: Vec<&str> = Vec::with_capacity(segments.len());
    for (i, segment) in segments.into_iter().enumerate() {
        if is_single_dot(segment) {
            if i == last {
                out.push("");
            }
        } else if is_double_dot(segment) {
            out.pop();
            if i == last {
                out.push("");
            }
        } else {
            out.push(segment);
        }
    }
    let mut result = String::with_capacity(path.len());
    for segment in out {
        result.push('/');
        result.push_str(segment);
    }
    if result.is_empty() {
        result.push('/');
    }
    result
}

fn is_single_dot(segment: &str) -> bool {
    segment == "." || segment.eq_ignore_ascii_case("%2e")
}

fn is_double_dot(segment: &str) -> bool {
    segment == ".."
        || segment.eq_ignore_ascii_case(".%2e")
        || segment.eq_ignore_ascii_case("%2e.")
        || segment.eq_ignore_ascii_case("%2e%2e")
}

/// A user-supplied string for an error message, shortened to [`QUOTE_LIMIT`] characters.
fn quote(value: &str) -> String {
    match value.char_indices().nth(QUOTE_LIMIT) {
        Some((end, _)) => format!("{}…", &value[..end]),
        None => value.to_string(),
    }
}
