//! Thread ids: which ids the runtime accepts, and how an id becomes one segment of the run URL.
//!
//! An app names its threads with any string it likes (a server's UUID, a slug, a title). The id
//! goes into three places, and each must keep distinct ids distinct:
//!
//! - the run URL, through the `{threadId}` placeholder of `runUrl`: it must arrive as exactly one
//!   path segment, so a hostile or odd id can never reach another endpoint;
//! - the `localStorage` key of the thread's toggles (see [`crate::tools::toggles::storage_key`]);
//! - the session's per-thread state, and the `threadId` of the events and results.
//!
//! # The rule
//!
//! A thread id is accepted ([`check`]) when it is
//!
//! - not empty;
//! - not `.` or `..`: the browser's URL parser removes dot segments (and `%2E`, `%2e` are dot
//!   segments too), so no encoding can keep them in their place: `/api/threads/../runs` is
//!   `/api/runs`;
//! - well-formed UTF-16 (no lone surrogate): checked at the JavaScript boundary, because a Rust
//!   string cannot hold a lone surrogate and two ids cut inside the same emoji would otherwise
//!   both become `"x\u{FFFD}"`, one thread;
//! - free of U+10FFFF, a Unicode noncharacter the crate's JSON layer reserves for its own
//!   bookkeeping (noncharacters are meant for exactly that, and never appear in text).
//!
//! Everything else is accepted, and [`path_segment`] percent-encodes it as `encodeURIComponent`
//! does (UTF-8, every byte outside `A-Z a-z 0-9 - _ . ! ~ * ' ( )` as `%XX`): `/`, `?`, `#`, `%`
//! and `\` never survive unencoded, so the id is exactly one segment, and the encoding is
//! injective, so distinct ids give distinct URLs.

use std::fmt;

/// The placeholder of the run URL template that [`run_url`] fills in.
pub const PLACEHOLDER: &str = "{threadId}";

/// The character the crate's JSON layer reserves (see the module docs).
const RESERVED: char = '\u{10FFFF}';

/// Why a thread id was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadIdError {
    /// The id is the empty string.
    Empty,
    /// The id is `.` or `..`, which cannot be one path segment.
    DotSegment,
    /// The id holds a lone UTF-16 surrogate (found by the JavaScript boundary).
    NotWellFormed,
    /// The id holds U+10FFFF.
    Reserved,
}

impl fmt::Display for ThreadIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ThreadIdError::Empty => "a thread id must not be empty",
            ThreadIdError::DotSegment => {
                "a thread id must not be \".\" or \"..\": it could not be one segment of the run URL"
            }
            ThreadIdError::NotWellFormed => {
                "a thread id must be well-formed UTF-16 (it holds a lone surrogate, e.g. a title cut inside an emoji)"
            }
            ThreadIdError::Reserved => {
                "a thread id must not hold U+10FFFF (a noncharacter the runtime reserves)"
            }
        })
    }
}

impl std::error::Error for ThreadIdError {}

/// Checks a thread id against the rule of the module docs (all but well-formedness, which only the
/// JavaScript side can see).
pub fn check(id: &str) -> Result<(), ThreadIdError> {
    match id {
        "" => Err(ThreadIdError::Empty),
        "." | ".." => Err(ThreadIdError::DotSegment),
        _ if crate::lean::text::has_char(id, RESERVED) => Err(ThreadIdError::Reserved),
        _ => Ok(()),
    }
}

/// Whether `encodeURIComponent` leaves the byte as it is.
fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')'
        )
}

/// The id as one URL path segment, percent-encoded exactly as `encodeURIComponent` encodes it.
pub fn path_segment(id: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(id.len());
    for &b in id.as_bytes() {
        if unreserved(b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
    out
}

/// The run URL of a thread: every `{threadId}` in `template` replaced by the id's
/// [`path_segment`], after the id passed [`check`].
pub fn run_url(template: &str, id: &str) -> Result<String, ThreadIdError> {
    check(id)?;
    Ok(fill(template, id))
}

/// [`run_url`] for an id that already passed [`check`].
pub fn fill(template: &str, id: &str) -> String {
    crate::lean::text::replace(template, PLACEHOLDER, &path_segment(id))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn dot_segments_and_empty_ids_are_refused() {
        assert_eq!(check(""), Err(ThreadIdError::Empty));
        assert_eq!(check("."), Err(ThreadIdError::DotSegment));
        assert_eq!(check(".."), Err(ThreadIdError::DotSegment));
        assert_eq!(check("a\u{10FFFF}"), Err(ThreadIdError::Reserved));
        for ok in [
            "...", ".a", "a.", "%2e%2e", "%2E", " ", "default", "../admin",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok:?}");
        }
    }

    #[test]
    fn segments_are_encoded_as_encode_uri_component_encodes() {
        let cases = [
            ("abc-_.!~*'()", "abc-_.!~*'()"),
            ("../admin", "..%2Fadmin"),
            ("a/b", "a%2Fb"),
            ("a?x=1", "a%3Fx%3D1"),
            ("a#f", "a%23f"),
            ("%2e%2e", "%252e%252e"),
            ("a b", "a%20b"),
            ("a\\b", "a%5Cb"),
            ("é", "%C3%A9"),
            ("😀", "%F0%9F%98%80"),
        ];
        for (id, segment) in cases {
            assert_eq!(path_segment(id), segment, "{id:?}");
        }
        assert_eq!(
            run_url("/api/threads/{threadId}/runs?t={threadId}", "a/b").unwrap(),
            "/api/threads/a%2Fb/runs?t=a%2Fb"
        );
        assert_eq!(
            run_url("/x/{threadId}", ".."),
            Err(ThreadIdError::DotSegment)
        );
    }
}
