//! The internal form of strings (the module docs): lone surrogates kept as `E X`, a literal
//! U+10FFFF as `E E`; strings appended as JS concatenates them, and the JS string an internal
//! string stands for, for the boundary.

use std::borrow::Cow;

/// The internal escape char `E`, U+10FFFF (a Unicode noncharacter): `E X` is a lone surrogate,
/// `E E` a literal U+10FFFF (module docs).
pub const ESCAPE: char = '\u{10FFFF}';

/// [`ESCAPE`] in UTF-8.
pub(super) const ESCAPE_UTF8: [u8; 4] = [0xF4, 0x8F, 0xBF, 0xBF];

/// What follows an `E` in an internal string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Escaped {
    /// `E E`: a literal U+10FFFF.
    Escape,
    /// `E X`: this lone surrogate.
    Surrogate(u16),
}

/// What the 4 bytes at the start of `bytes` (just after an `E`) make of that `E`; `None` when they
/// are neither `E` nor an `X` (a stray `E`).
#[inline]
pub(super) fn escaped_at(bytes: &[u8]) -> Option<Escaped> {
    if bytes.starts_with(&ESCAPE_UTF8) {
        return Some(Escaped::Escape);
    }
    surrogate_at(bytes).map(Escaped::Surrogate)
}

/// The lone surrogate whose `X` (U+100000 + (S - 0xD800)) starts `bytes`.
#[inline]
pub(super) fn surrogate_at(bytes: &[u8]) -> Option<u16> {
    match *bytes {
        [0xF4, 0x80, b2 @ 0x80..=0x9F, b3 @ 0x80..=0xBF, ..] => {
            Some(0xD800 + (((u16::from(b2) & 0x3F) << 6) | (u16::from(b3) & 0x3F)))
        }
        _ => None,
    }
}

/// `X`, the char standing for the lone surrogate `unit` (0xD800..=0xDFFF) after an `E`.
pub(super) fn stand_in(unit: u16) -> char {
    debug_assert!((0xD800..=0xDFFF).contains(&unit));
    char::from_u32(0x10_0000 + u32::from(unit) - 0xD800).unwrap_or(ESCAPE)
}

/// The astral char of a surrogate pair.
fn pair(high: u16, low: u16) -> char {
    let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
    char::from_u32(code).unwrap_or(ESCAPE)
}

/// Appends the astral char of a surrogate pair in the internal form (U+10FFFF, the pair
/// `\udbff\udfff`, is `E E`).
pub(super) fn push_pair(out: &mut String, high: u16, low: u16) {
    let c = pair(high, low);
    out.push(c);
    if c == ESCAPE {
        out.push(c);
    }
}

/// The lone surrogate `s` ends with: an `E X` at its end whose `E` is not the second half of an
/// `E E` (the `E`s just before it pair up). Only the last bytes are read.
#[inline]
fn trailing_surrogate(s: &str) -> Option<u16> {
    let bytes = s.as_bytes();
    let n = bytes.len();
    if n < 8 {
        return None;
    }
    let unit = surrogate_at(&bytes[n - 4..])?;
    if !bytes[n - 8..].starts_with(&ESCAPE_UTF8) {
        return None;
    }
    let mut at = n - 8;
    let mut escapes_before = 0usize;
    while at >= 4 && bytes[at - 4..].starts_with(&ESCAPE_UTF8) {
        at -= 4;
        escapes_before += 1;
    }
    (escapes_before % 2 == 0).then_some(unit)
}

/// The lone surrogate `s` starts with (an `E X` at its start).
#[inline]
fn leading_surrogate(s: &str) -> Option<u16> {
    let bytes = s.as_bytes();
    if bytes.starts_with(&ESCAPE_UTF8) {
        surrogate_at(&bytes[4..])
    } else {
        None
    }
}

/// Appends the lone surrogate `unit` (0xD800..=0xDFFF) to the internal string `out` as `E X`;
/// a low surrogate right after a lone high one makes the pair's char instead.
pub(super) fn push_surrogate(out: &mut String, unit: u16) {
    if (0xDC00..=0xDFFF).contains(&unit) {
        if let Some(high @ 0xD800..=0xDBFF) = trailing_surrogate(out) {
            out.truncate(out.len() - 8);
            push_pair(out, high, unit);
            return;
        }
    }
    out.push(ESCAPE);
    out.push(stand_in(unit));
}

/// Appends the internal string `src` to the internal string `dst`, as JS concatenates strings:
/// when `dst` ends with a lone high surrogate and `src` starts with a lone low one (a delta cut
/// between the halves of an emoji), the two become the real char. Otherwise a plain `push_str`;
/// only the first and last bytes are looked at. Use it wherever streamed strings are appended.
#[inline]
pub fn push_str(dst: &mut String, src: &str) {
    if src.as_bytes().first() != Some(&0xF4) || !join_halves(dst, src) {
        dst.push_str(src);
    }
}

/// [`push_str`] when `src` starts with a 0xF4 byte: joins a lone high surrogate at the end of
/// `dst` and a lone low one at the start of `src` and appends the rest of `src`; false (nothing
/// done) when they are not that.
#[cold]
#[inline(never)]
fn join_halves(dst: &mut String, src: &str) -> bool {
    let Some(low @ 0xDC00..=0xDFFF) = leading_surrogate(src) else {
        return false;
    };
    let Some(high @ 0xD800..=0xDBFF) = trailing_surrogate(dst) else {
        return false;
    };
    dst.truncate(dst.len() - 8);
    push_pair(dst, high, low);
    dst.push_str(crate::lean::text::sub(src, 8..));
    true
}

/// An internal string as the JS string it stands for, for handing to JS directly through
/// `wasm-bindgen` (a `&str` / `String` argument or return value, which crosses as UTF-8):
/// `E E` becomes U+10FFFF. Borrowed when `s` holds no [`ESCAPE`] (the usual case, one scan).
///
/// `None` when `s` holds a lone surrogate (`E X`): no UTF-8 text is that JS string, and
/// `wasm-bindgen` would turn it into U+FFFD. Such a string must cross as JSON text instead
/// (written with [`write_str`](super::write_str), read with the engine's `JSON.parse`).
pub fn to_js_string(s: &str) -> Option<Cow<'_, str>> {
    let Some(first) = s.find(ESCAPE) else {
        return Some(Cow::Borrowed(s));
    };
    let mut out = String::with_capacity(s.len());
    out.push_str(crate::lean::text::sub(s, ..first));
    let mut rest = crate::lean::text::sub(s, first..);
    while let Some(at) = rest.find(ESCAPE) {
        out.push_str(crate::lean::text::sub(rest, ..at));
        out.push(ESCAPE);
        match escaped_at(&rest.as_bytes()[at + 4..]) {
            Some(Escaped::Escape) => rest = crate::lean::text::sub(rest, at + 8..),
            Some(Escaped::Surrogate(_)) => return None,
            None => rest = crate::lean::text::sub(rest, at + 4..),
        }
    }
    out.push_str(rest);
    Some(Cow::Owned(out))
}

/// The first lone surrogate of the internal string `s`: the byte offset of its `E` and the code
/// unit. `None` when `s` holds none, so that the JS string it stands for is also UTF-8 text
/// ([`to_js_string`]). Where a lone surrogate cannot be meaningful (an HTTP header), the boundary
/// refuses the value with this; elsewhere it restores the code unit.
pub fn find_lone_surrogate(s: &str) -> Option<(usize, u16)> {
    let mut at = 0;
    while let Some(found) = crate::lean::text::sub(s, at..).find(ESCAPE) {
        let e = at + found;
        match escaped_at(&s.as_bytes()[e + 4..]) {
            Some(Escaped::Escape) => at = e + 8,
            Some(Escaped::Surrogate(unit)) => return Some((e, unit)),
            None => at = e + 4,
        }
    }
    None
}

/// The UTF-16 code units of the JS string the internal string `s` stands for: `E X` is its lone
/// surrogate, `E E` the pair of U+10FFFF, a stray `E` U+10FFFF too. `String::from_utf16_lossy` of
/// it is what a Web API taking a `USVString` (`new URL`, `import()`'s specifier) makes of that JS
/// string: each lone surrogate becomes U+FFFD.
pub fn to_utf16(s: &str) -> Vec<u16> {
    let mut out = Vec::with_capacity(s.len());
    let mut chars = s.char_indices();
    while let Some((at, c)) = chars.next() {
        if c == ESCAPE {
            match escaped_at(&s.as_bytes()[at + 4..]) {
                Some(Escaped::Surrogate(unit)) => {
                    chars.next();
                    out.push(unit);
                    continue;
                }
                Some(Escaped::Escape) => {
                    chars.next();
                }
                None => {}
            }
        }
        let mut units = [0u16; 2];
        out.extend_from_slice(c.encode_utf16(&mut units));
    }
    out
}

/// A string received from JS directly through `wasm-bindgen` (UTF-8, so without lone
/// surrogates), or any other text that was not read by [`parse`](super::parse), in the internal form: each
/// U+10FFFF becomes `E E`. Borrowed when there is none (the usual case, one scan).
pub fn from_js_string(s: &str) -> Cow<'_, str> {
    if crate::lean::text::has_char(s, ESCAPE) {
        Cow::Owned(s.replace(ESCAPE, "\u{10FFFF}\u{10FFFF}"))
    } else {
        Cow::Borrowed(s)
    }
}

/// `E X` for the lone surrogate `unit` (tests).
#[cfg(test)]
pub(super) fn lone(unit: u16) -> String {
    format!("{ESCAPE}{}", stand_in(unit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn push_str_joins_the_halves_of_a_pair_as_js_concatenation_does() {
        let join = |a: &str, b: &str| {
            let mut out = a.to_owned();
            push_str(&mut out, b);
            out
        };
        let (high, low) = (lone(0xD83D), lone(0xDE00));
        assert_eq!(join(&format!("a{high}"), &format!("{low}b")), "a\u{1F600}b");
        assert_eq!(join(&high, &low), "\u{1F600}");
        assert_eq!(
            join(&format!("{}{high}", lone(0xDBFF)), &format!("{low}{low}")),
            format!("{}\u{1F600}{low}", lone(0xDBFF))
        );
        // The halves of U+10FFFF make the char, which is `E E`.
        assert_eq!(
            join(&lone(0xDBFF), &lone(0xDFFF)),
            format!("{ESCAPE}{ESCAPE}")
        );
        // Not a high then a low: concatenated as they are.
        assert_eq!(join(&low, &high), format!("{low}{high}"));
        assert_eq!(join(&high, &high), format!("{high}{high}"));
        assert_eq!(join(&high, "x"), format!("{high}x"));
        // `E E X`: a literal U+10FFFF then a literal U+1000xx, no lone surrogate to join; with
        // one more `E` before it, it is again `E E` then a lone high surrogate.
        let literal = format!("{ESCAPE}{ESCAPE}{}", stand_in(0xD83D));
        assert_eq!(join(&literal, &low), format!("{literal}{low}"));
        assert_eq!(
            join(&format!("{ESCAPE}{literal}"), &low),
            format!("{ESCAPE}{ESCAPE}\u{1F600}")
        );
        // And through the parser: the two deltas of a split emoji.
        let a = parse(r#""x\ud83d""#).unwrap();
        let b = parse(r#""\ude00y""#).unwrap();
        assert_eq!(
            join(a.as_str().unwrap(), b.as_str().unwrap()),
            "x\u{1F600}y"
        );
    }

    #[test]
    fn strings_cross_to_js_directly_only_without_lone_surrogates() {
        assert!(matches!(
            to_js_string("plain"),
            Some(Cow::Borrowed("plain"))
        ));
        assert_eq!(
            to_js_string(&format!("a{ESCAPE}{ESCAPE}b{ESCAPE}c")).as_deref(),
            Some("a\u{10FFFF}b\u{10FFFF}c")
        );
        assert_eq!(to_js_string(&format!("a{}", lone(0xD800))), None);
        assert!(matches!(from_js_string("plain"), Cow::Borrowed("plain")));
        let s = "a\u{10FFFF}\u{100000}";
        assert_eq!(from_js_string(s), format!("a{ESCAPE}{ESCAPE}\u{100000}"));
        assert_eq!(to_js_string(&from_js_string(s)).as_deref(), Some(s));
    }

    #[test]
    fn lone_surrogates_are_found_and_the_js_string_is_rebuilt() {
        assert_eq!(find_lone_surrogate("plain é 😀"), None);
        assert_eq!(
            find_lone_surrogate(&format!("{ESCAPE}{ESCAPE}\u{100000}")),
            None
        );
        assert_eq!(find_lone_surrogate(&format!("{ESCAPE}")), None);
        assert_eq!(
            find_lone_surrogate(&format!("ab{}", lone(0xDC00))),
            Some((2, 0xDC00))
        );
        let s = format!("{ESCAPE}{ESCAPE}x{}{}", lone(0xD83D), lone(0xDFFF));
        assert_eq!(find_lone_surrogate(&s), Some((9, 0xD83D)));
        assert_eq!(
            to_utf16(&s),
            [0xDBFF, 0xDFFF, u16::from(b'x'), 0xD83D, 0xDFFF]
        );
        // A stray `E` is a literal U+10FFFF, as the writer writes it.
        assert_eq!(to_utf16(&format!("a{ESCAPE}")), [0x61, 0xDBFF, 0xDFFF]);
        assert_eq!(to_utf16("é😀"), "é😀".encode_utf16().collect::<Vec<_>>());
        // Every lone surrogate, through the parser.
        for unit in (0xD800..=0xDFFF).step_by(7) {
            let value = parse(&format!("\"a\\u{unit:04x}\"")).unwrap();
            let s = value.as_str().unwrap();
            assert_eq!(find_lone_surrogate(s), Some((1, unit)));
            assert_eq!(to_utf16(s), [0x61, unit]);
            assert_eq!(to_js_string(s), None);
        }
    }
}
