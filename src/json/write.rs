//! The writer: a [`Value`] as the JSON text `JSON.stringify` writes (no spaces), and a string
//! escaped as it escapes the JS string the internal form stands for.

use std::cell::Cell;
use std::fmt;

use super::js_string::{escaped_at, Escaped, ESCAPE_UTF8};
use super::scan::{first_special_byte, word_at};
use super::Value;

impl Value {
    /// The value's JSON text, as `JSON.stringify` writes it (no spaces).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    /// Appends the value's JSON text to `out`.
    pub fn write_json(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(true) => out.push_str("true"),
            Value::Bool(false) => out.push_str("false"),
            Value::Number(n) => n.write(out),
            Value::String(s) => write_value_str(out, s),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out);
                }
                out.push(']');
            }
            Value::Object(map) => {
                out.push('{');
                for (i, (k, v)) in map.entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, k);
                    out.push(':');
                    v.write_json(out);
                }
                out.push('}');
            }
        }
    }
}

/// The value's JSON text (as [`Value::to_json`]).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

/// The last bytes of a string (1 to 7) as a little-endian word padded with a plain byte,
/// and how many of them are real: a short string or the tail of a long one is one word test too,
/// not a loop over its bytes (the writer's strings are mostly short: keys, ids, type names).
#[inline(always)]
fn tail_word(rest: &[u8]) -> (u64, usize) {
    const PAD: u64 = 0x0101_0101_0101_0101 * b'a' as u64;
    let n = rest.len();
    let word = if n >= 4 {
        // Two overlapping loads: bytes 0..4 and n-4..n.
        let lo = u64::from(u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]));
        let hi = u64::from(u32::from_le_bytes([
            rest[n - 4],
            rest[n - 3],
            rest[n - 2],
            rest[n - 1],
        ]));
        lo | (hi << (8 * (n - 4)))
    } else {
        // Bytes 0, n/2 and n-1 cover 1 to 3 bytes.
        u64::from(rest[0])
            | (u64::from(rest[n / 2]) << (8 * (n / 2)))
            | (u64::from(rest[n - 1]) << (8 * (n - 1)))
    };
    (word | (PAD << (8 * n)), n)
}

/// `s` as a JSON string literal, quotes included: how error texts quote a name or a value
/// (`{s:?}` would pull Rust's `Debug` escaping and its Unicode tables into the `.wasm`).
pub fn quoted(s: &str) -> String {
    let mut out = String::new();
    write_str(&mut out, s);
    out
}

/// How long (in bytes) a string value is before [`write_value_str`] hands it to the sink, while
/// one is set ([`long_strings`]): a tool call's arguments or a long answer's text, which the
/// engine would otherwise read twice (the text decoded, then `JSON.parse` scanning and copying it
/// again) after the writer escaped it.
pub const LONG_STRING: usize = 8 * 1024;

/// Where long string values go instead of the text ([`long_strings`]).
pub type Sink = fn(&str);

thread_local! {
    /// The sink, and how many strings went to it since it was set.
    static SINK: Cell<(Option<Sink>, usize)> = const { Cell::new((None, 0)) };
}

/// Sets, or with `None` clears, where [`write_value_str`] hands long string values, and starts
/// their count again. Only the JS boundary sets one, around text it reads back itself.
pub fn long_strings(sink: Option<Sink>) {
    SINK.set((sink, 0));
}

/// How many strings went to the sink since [`long_strings`] set it.
pub fn long_strings_handed() -> usize {
    SINK.get().1
}

/// A string value (not a key): [`write_str`], unless a sink is set ([`long_strings`]) and the
/// string is [`LONG_STRING`] bytes or more, or starts with U+0000. Then it goes to the sink and is
/// written as the string `"\u0000N"`, N its number among those handed (0, 1, ...): whoever reads
/// the text puts each one back where its number is, and reads any string value starting with
/// U+0000 as such a number (a real one was handed too, so none is mistaken). Out of line: one
/// copy for every value writer.
#[inline(never)]
pub fn write_value_str(out: &mut String, s: &str) {
    if s.len() >= LONG_STRING || s.starts_with('\0') {
        if let (Some(sink), n) = SINK.get() {
            SINK.set((Some(sink), n + 1));
            sink(s);
            out.push_str("\"\\u0000");
            crate::lean::text::push_i64(out, n as i64);
            out.push('"');
            return;
        }
    }
    write_str(out, s);
}

/// Appends `s` (internal form) as a JSON string literal, escaped as `JSON.stringify` escapes the
/// JS string it stands for: `E X` is written `\udXXX`, `E E` the char U+10FFFF (module docs). Runs
/// without anything to escape are skipped 8 bytes at a time.
pub fn write_str(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    'scan: while i < bytes.len() {
        // Plain words are skipped in a tight loop; the last few bytes are one padded word.
        let at = loop {
            match word_at(bytes, i) {
                Some(word) => match first_special_byte(word) {
                    None => i += 8,
                    Some(at) => break at,
                },
                None if i == bytes.len() => break 'scan,
                None => {
                    let (word, n) = tail_word(&bytes[i..]);
                    match first_special_byte(word) {
                        None => {
                            i += n;
                            continue 'scan;
                        }
                        Some(at) => break at,
                    }
                }
            }
        };
        i += at;
        let b = bytes[i];
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            0xF4 if bytes[i..].starts_with(&ESCAPE_UTF8) => {
                match escaped_at(&bytes[i + 4..]) {
                    Some(Escaped::Escape) => {
                        // `E E`: one literal U+10FFFF.
                        out.push_str(crate::lean::text::sub(s, start..i + 4));
                        i += 8;
                        start = i;
                    }
                    Some(Escaped::Surrogate(unit)) => {
                        out.push_str(crate::lean::text::sub(s, start..i));
                        out.push_str("\\u");
                        for shift in [12, 8, 4, 0] {
                            out.push(HEX[usize::from((unit >> shift) & 15)] as char);
                        }
                        i += 8;
                        start = i;
                    }
                    // A stray `E` (not made by this crate): written as it is.
                    None => i += 4,
                }
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(crate::lean::text::sub(s, start..i));
        if escape.is_empty() {
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        } else {
            out.push_str(escape);
        }
        i += 1;
        start = i;
    }
    out.push_str(crate::lean::text::sub(s, start..));
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::js_string::{lone, stand_in, surrogate_at};
    use crate::json::{parse, Map, ESCAPE};

    thread_local! {
        static HANDED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    fn keep(s: &str) {
        HANDED.with_borrow_mut(|h| h.push(s.to_owned()));
    }

    #[test]
    fn long_string_values_and_those_starting_with_nul_go_to_the_sink_with_their_number() {
        let long = "x\"".repeat(LONG_STRING / 2);
        let short = "y".repeat(LONG_STRING - 1);
        let mut object = Map::new();
        object.insert(long.clone(), Value::String(long.clone()));
        object.insert("a", Value::String(short.clone()));
        object.insert("b", Value::String("\0z".into()));
        let value = Value::Array(vec![Value::Object(object), Value::String(long.clone())]);
        let without = value.to_json();
        long_strings(Some(keep));
        let with = value.to_json();
        let handed = long_strings_handed();
        long_strings(None);
        // A key is never handed; the short string is written; the rest are numbered in order.
        let mut expected = String::from("[{");
        write_str(&mut expected, &long);
        expected.push_str(":\"\\u00000\",\"a\":");
        write_str(&mut expected, &short);
        expected.push_str(",\"b\":\"\\u00001\"},\"\\u00002\"]");
        assert_eq!(with, expected);
        assert_eq!(handed, 3);
        assert_eq!(HANDED.take(), [long.clone(), "\0z".into(), long]);
        // Without a sink, and after it is cleared, nothing is handed.
        assert_eq!(value.to_json(), without);
        assert!(!without.contains("\\u0000\""));
        assert_eq!(long_strings_handed(), 0);
        assert!(HANDED.take().is_empty());
    }

    #[test]
    fn every_length_and_position_is_escaped() {
        // A byte-at-a-time writer to compare with.
        let naive = |s: &str| {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    c if c < ' ' => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        };
        for len in 0..40 {
            for special in ["", "\"", "\\", "\n", "\u{1}", "\u{10FFFD}", "é"] {
                for at in 0..=len {
                    let s = format!("{}{special}{}", "x".repeat(at), "y".repeat(len - at));
                    let mut out = String::new();
                    write_str(&mut out, &s);
                    assert_eq!(out, naive(&s), "{s:?}");
                    assert_eq!(parse(&out).unwrap().as_str(), Some(s.as_str()));
                }
            }
        }
    }

    #[test]
    fn strings_are_escaped_as_json_stringify_does() {
        let mut out = String::new();
        write_str(&mut out, "a\"b\\c\n\u{1}\u{7f}\u{2028}é");
        assert_eq!(out, "\"a\\\"b\\\\c\\n\\u0001\u{7f}\u{2028}é\"");
    }

    #[test]
    fn a_long_string_is_scanned_a_word_at_a_time() {
        let long = "0123456789abcdef\u{e9}\"x\n0123456789";
        let mut out = String::new();
        write_str(&mut out, long);
        assert_eq!(out, "\"0123456789abcdef\u{e9}\\\"x\\n0123456789\"");
    }

    #[test]
    fn the_internal_form_is_written_as_json_stringify_writes_the_js_string() {
        let write = |s: &str| {
            let mut out = String::new();
            write_str(&mut out, s);
            out
        };
        // Every lone surrogate, in lower-case hex, in and after a word-scanned run.
        for unit in 0xD800..=0xDFFF {
            let expected = format!("\"0123456789\\u{unit:04x}x\"");
            assert_eq!(write(&format!("0123456789{}x", lone(unit))), expected);
            assert_eq!(
                surrogate_at(stand_in(unit).to_string().as_bytes()),
                Some(unit)
            );
        }
        assert_eq!(write(&format!("{ESCAPE}{ESCAPE}")), "\"\u{10FFFF}\"");
        assert_eq!(
            write(&format!("{ESCAPE}{ESCAPE}{ESCAPE}{ESCAPE}\u{100000}")),
            "\"\u{10FFFF}\u{10FFFF}\u{100000}\""
        );
        // A stray `E` and the other plane-16 chars are written as they are.
        assert_eq!(write("\u{10FFFF}a\u{10FFFE}"), "\"\u{10FFFF}a\u{10FFFE}\"");
        assert_eq!(write("\u{100000}\u{1007FF}"), "\"\u{100000}\u{1007FF}\"");
        assert_eq!(surrogate_at("\u{100800}".as_bytes()), None);
    }
}
