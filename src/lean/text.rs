//! `&str` slicing and searching without `core`'s slicing panic.
//!
//! `&s[a..b]` on a `str`, and the `&str`-pattern searches of `core` (`find("..")`, `split_once`,
//! `replace`, `contains` of a non-ASCII char), all keep `core::str::slice_error_fail` in the
//! wasm: its message prints the offending char with `{:?}`, which brings `<char as Debug>::fmt`
//! and the Unicode printable tables (about 4 KB before gzip). The crate slices only at indices
//! it knows to be char boundaries, so these helpers keep the same check (`str::get`) and, should
//! that knowledge ever be wrong, panic with a fixed message instead.

use std::slice::SliceIndex;

/// `&s[range]`, for a range whose ends are known to be char boundaries (same check as indexing;
/// panics, with a fixed message, if they are not).
#[inline(always)]
pub(crate) fn sub<R: SliceIndex<str, Output = str>>(s: &str, range: R) -> &str {
    match s.get(range) {
        Some(part) => part,
        None => not_a_boundary(),
    }
}

#[cold]
#[inline(never)]
fn not_a_boundary() -> ! {
    panic!("str index is not a char boundary")
}

/// The byte offset of the first `needle` in `hay` (`hay.find(needle)` for a `&str` needle). A
/// match of valid UTF-8 in valid UTF-8 starts and ends on char boundaries.
pub(crate) fn find(hay: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.as_bytes()
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
}

/// `hay.split_once(needle)`.
pub(crate) fn split_once<'a>(hay: &'a str, needle: &str) -> Option<(&'a str, &'a str)> {
    let at = find(hay, needle)?;
    Some((sub(hay, ..at), sub(hay, at + needle.len()..)))
}

/// The pieces, joined: a message or an id put together without `format!` (each `format!` site
/// builds its `fmt::Arguments` inline; one shared copy of this is smaller).
#[inline(never)]
#[cfg_attr(not(feature = "coder"), allow(dead_code))]
pub(crate) fn concat(pieces: &[&str]) -> String {
    let mut out = String::new();
    for piece in pieces {
        out.push_str(piece);
    }
    out
}

/// The decimal digits of `n` (no `core::fmt`).
#[inline(never)]
#[cfg_attr(not(feature = "coder"), allow(dead_code))]
pub(crate) fn decimal(n: i64) -> String {
    let mut out = String::new();
    push_i64(&mut out, n);
    out
}

/// Appends the decimal digits of `n` (no `core::fmt`).
pub(crate) fn push_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(d as char);
    }
}

/// `s.replace(from, to)` for a non-empty `from`.
pub(crate) fn replace(s: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = find(rest, from) {
        out.push_str(sub(rest, ..at));
        out.push_str(to);
        rest = sub(rest, at + from.len()..);
    }
    out.push_str(rest);
    out
}

/// Whether `s` holds the char `c` (`s.contains(c)`, which searches as a `&str` for a non-ASCII
/// char).
pub(crate) fn has_char(s: &str, c: char) -> bool {
    find(s, c.encode_utf8(&mut [0; 4])).is_some()
}

/// `s.trim()`: `s` without the Unicode whitespace at either end (one loop each way instead of
/// `core`'s double-ended char searcher, `str::trim_matches`).
pub(crate) fn trim(s: &str) -> &str {
    let start = s
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map_or(s.len(), |(at, _)| at);
    let rest = sub(s, start..);
    let end = rest
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_whitespace())
        .map_or(0, |(at, c)| at + c.len_utf8());
    sub(rest, ..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_core() {
        for (hay, needle) in [
            ("a, found b", ", found "),
            ("", "x"),
            ("x", "x"),
            ("ééé", "é"),
            ("~01~1", "~1"),
        ] {
            assert_eq!(find(hay, needle), hay.find(needle));
            assert_eq!(split_once(hay, needle), hay.split_once(needle));
            assert_eq!(replace(hay, needle, "/"), hay.replace(needle, "/"));
        }
        for text in [
            "",
            " ",
            "a",
            " a ",
            "\u{3000}é b\u{a0}\n",
            "\t\r\n",
            "é",
            " \u{85}x\u{2029}",
            "a  b",
        ] {
            assert_eq!(trim(text), text.trim());
        }
        assert!(has_char("a\u{10FFFF}", '\u{10FFFF}'));
        assert!(!has_char("a\u{10FFFE}", '\u{10FFFF}'));
        assert_eq!(sub("héllo", 1..3), "é");
    }

    #[test]
    #[should_panic(expected = "str index is not a char boundary")]
    fn off_boundary_panics() {
        let _ = sub("é", 1..);
    }

    #[test]
    fn integers_print_without_fmt() {
        for n in [0, 7, -7, 1234567890, i64::MAX, i64::MIN] {
            let mut out = String::new();
            push_i64(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }
}
