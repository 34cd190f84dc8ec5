//! The JSON parser (RFC 8259, as strict as `JSON.parse`).

use std::borrow::Cow;
use std::fmt;

use super::{Map, Number, Value};

/// Nesting deeper than this is refused (the parser and the writer recurse).
const MAX_DEPTH: u32 = 512;

/// Why text is not JSON: what was wrong and the byte offset where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// What is wrong.
    pub message: &'static str,
    /// The byte offset in the text.
    pub offset: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for JsonError {}

/// Parses one JSON value; only whitespace may surround it.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut p = Parser::new(text);
    p.skip_ws();
    let value = p.value()?;
    p.end()?;
    Ok(value)
}

/// The members of an object, keys borrowed from the text where possible.
pub type BorrowedMembers<'a> = Vec<(Cow<'a, str>, Value)>;

/// A top-level object read by [`parse_tagged_object`].
#[derive(Debug)]
pub struct TaggedObject<'a> {
    /// The tag member's string value, borrowed when it has no escapes, and its position among the
    /// members (where it goes back if the object is kept whole). `None` when the tag is absent or
    /// not a string (a non-string tag stays in `members`).
    pub tag: Option<(usize, Cow<'a, str>)>,
    /// The other members, keys borrowed where possible.
    pub members: BorrowedMembers<'a>,
}

/// Parses a JSON object whose keys stay borrowed from `text` where they have no escapes, with its
/// string member `tag` (an event's `type`) read without an allocation: the top level of an
/// event, read once per event. `None` when the text is JSON but not an object. Repeated keys keep
/// the last value, as everywhere.
pub fn parse_tagged_object<'a>(
    text: &'a str,
    tag: &str,
) -> Result<Option<TaggedObject<'a>>, JsonError> {
    let mut p = Parser::new(text);
    p.skip_ws();
    if p.peek() != Some(b'{') {
        p.value()?;
        p.end()?;
        return Ok(None);
    }
    p.pos += 1;
    let mut object = TaggedObject {
        tag: None,
        members: Vec::with_capacity(4),
    };
    p.skip_ws();
    if p.peek() == Some(b'}') {
        p.pos += 1;
    } else {
        loop {
            p.skip_ws();
            let key = p.key()?;
            p.depth = 1;
            if key == tag {
                // The tag's place is kept by its first occurrence, like any repeated key.
                let at = match &object.tag {
                    Some((at, _)) => *at,
                    None => match object.members.iter().position(|(k, _)| *k == key) {
                        Some(at) => {
                            object.members.remove(at);
                            at
                        }
                        None => object.members.len(),
                    },
                };
                if p.peek() == Some(b'"') {
                    object.tag = Some((at, p.string()?));
                } else {
                    object.tag = None;
                    let value = p.value()?;
                    object.members.insert(at, (key, value));
                }
            } else {
                let value = p.value()?;
                match object.members.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = value,
                    None => object.members.push((key, value)),
                }
            }
            if p.after_member(b'}')? {
                break;
            }
        }
    }
    p.end()?;
    Ok(Some(object))
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: u32,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
        }
    }

    fn fail<T>(&self, message: &'static str) -> Result<T, JsonError> {
        Err(JsonError {
            message,
            offset: self.pos,
        })
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.pos += 1;
        }
    }

    fn end(&mut self) -> Result<(), JsonError> {
        self.skip_ws();
        match self.peek() {
            None => Ok(()),
            Some(_) => self.fail("unexpected text after the value"),
        }
    }

    /// After an array item or object member: `,` (more follow: false) or the closing byte (true).
    fn after_member(&mut self, close: u8) -> Result<bool, JsonError> {
        self.skip_ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b) if b == close => {
                self.pos += 1;
                Ok(true)
            }
            None => self.fail("unexpected end of JSON"),
            Some(_) if close == b'}' => self.fail("expected `,` or `}`"),
            Some(_) => self.fail("expected `,` or `]`"),
        }
    }

    /// An object key and the `:` after it.
    fn key(&mut self) -> Result<Cow<'a, str>, JsonError> {
        if self.peek() != Some(b'"') {
            return match self.peek() {
                None => self.fail("unexpected end of JSON"),
                Some(_) => self.fail("expected a string key"),
            };
        }
        let key = self.string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return self.fail("expected `:`");
        }
        self.pos += 1;
        self.skip_ws();
        Ok(key)
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        match self.peek() {
            Some(b'"') => Ok(Value::String(self.string()?.into_owned())),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            None => self.fail("unexpected end of JSON"),
            Some(_) => self.fail("expected a JSON value"),
        }
    }

    fn literal(&mut self, word: &'static str, value: Value) -> Result<Value, JsonError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            self.fail("expected a JSON value")
        }
    }

    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.fail("nested too deeply");
        }
        self.pos += 1;
        self.skip_ws();
        Ok(())
    }

    fn array(&mut self) -> Result<Value, JsonError> {
        self.enter()?;
        let mut items = Vec::new();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            loop {
                self.skip_ws();
                items.push(self.value()?);
                if self.after_member(b']')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Ok(Value::Array(items))
    }

    fn object(&mut self) -> Result<Value, JsonError> {
        self.enter()?;
        let mut entries: Vec<(String, Value)> = Vec::new();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                self.skip_ws();
                let key = self.key()?.into_owned();
                let value = self.value()?;
                entries.push((key, value));
                if self.after_member(b'}')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        dedupe(&mut entries);
        Ok(Value::Object(Map::from_unique(entries)))
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.pos;
        let digits = |p: &mut Parser<'_>| {
            let from = p.pos;
            while let Some(b'0'..=b'9') = p.peek() {
                p.pos += 1;
            }
            p.pos - from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return self.fail("expected a digit"),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return self.fail("expected a digit after `.`");
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return self.fail("expected a digit in the exponent");
            }
        }
        Ok(Value::Number(Number::from_valid_text(
            &self.text[start..self.pos],
        )))
    }

    /// A string literal (at its opening quote): borrowed when it has no escapes.
    fn string(&mut self) -> Result<Cow<'a, str>, JsonError> {
        self.pos += 1;
        let start = self.pos;
        loop {
            // Plain runs (most of a text delta) are skipped 8 bytes at a time.
            while let Some(word) = super::word_at(self.bytes, self.pos) {
                if super::has_special_byte(word) {
                    break;
                }
                self.pos += 8;
            }
            match self.peek() {
                Some(b'"') => {
                    let s = &self.text[start..self.pos];
                    self.pos += 1;
                    return Ok(Cow::Borrowed(s));
                }
                Some(b'\\') => break,
                Some(0..=0x1f) => return self.fail("control character in a string"),
                Some(_) => self.pos += 1,
                None => return self.fail("unexpected end of JSON"),
            }
        }
        let mut out = String::with_capacity(self.pos - start + 16);
        out.push_str(&self.text[start..self.pos]);
        loop {
            let run = self.pos;
            while let Some(word) = super::word_at(self.bytes, self.pos) {
                if super::has_special_byte(word) {
                    break;
                }
                self.pos += 8;
            }
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&self.text[run..self.pos]);
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => self.escape(&mut out)?,
                Some(_) => return self.fail("control character in a string"),
                None => return self.fail("unexpected end of JSON"),
            }
        }
    }

    /// One escape sequence (at its backslash).
    fn escape(&mut self, out: &mut String) -> Result<(), JsonError> {
        self.pos += 1;
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let unit = self.hex4()?;
                let c = match unit {
                    0xD800..=0xDBFF if self.bytes[self.pos..].starts_with(b"\\u") => {
                        let save = self.pos;
                        self.pos += 2;
                        let low = self.hex4()?;
                        if (0xDC00..=0xDFFF).contains(&low) {
                            let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        } else {
                            // A lone high surrogate followed by another escape: read that one next.
                            self.pos = save;
                            '\u{FFFD}'
                        }
                    }
                    _ => char::from_u32(unit).unwrap_or('\u{FFFD}'),
                };
                out.push(c);
                return Ok(());
            }
            None => return self.fail("unexpected end of JSON"),
            Some(_) => return self.fail("invalid escape"),
        };
        self.pos += 1;
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut unit = 0;
        for _ in 0..4 {
            let digit = match self.peek() {
                Some(b @ b'0'..=b'9') => b - b'0',
                Some(b @ b'a'..=b'f') => b - b'a' + 10,
                Some(b @ b'A'..=b'F') => b - b'A' + 10,
                None => return self.fail("unexpected end of JSON"),
                Some(_) => return self.fail("invalid \\u escape"),
            };
            unit = unit * 16 + u32::from(digit);
            self.pos += 1;
        }
        Ok(unit)
    }
}

/// Repeated keys: the first position keeps the last value (as `JSON.parse`). Small objects are
/// checked pairwise; large ones through a sorted index, so a 100k-member object stays O(n log n).
fn dedupe(entries: &mut Vec<(String, Value)>) {
    let n = entries.len();
    if n < 2 {
        return;
    }
    // (first index, later index) of every repeat.
    let mut repeats: Vec<(usize, usize)> = Vec::new();
    if n <= 16 {
        for later in 1..n {
            // The earliest equal key is the first occurrence.
            if let Some(first) = (0..later).find(|&i| entries[i].0 == entries[later].0) {
                repeats.push((first, later));
            }
        }
    } else {
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by(|&a, &b| {
            entries[a as usize]
                .0
                .cmp(&entries[b as usize].0)
                .then(a.cmp(&b))
        });
        let mut first = order[0] as usize;
        for w in order.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            if entries[a].0 == entries[b].0 {
                repeats.push((first, b));
            } else {
                first = b;
            }
        }
    }
    if repeats.is_empty() {
        return;
    }
    // Later values win: apply in order of the later index.
    repeats.sort_by_key(|&(_, later)| later);
    let mut drop = vec![false; n];
    for &(first, later) in &repeats {
        let value = entries[later].1.take();
        entries[first].1 = value;
        drop[later] = true;
    }
    let mut i = 0;
    entries.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_json_parse_accepts() {
        let v = parse(
            " {\"a\" : [1, -2.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\"], \"b\":{}} ",
        )
        .unwrap();
        assert_eq!(v["a"][5].as_str(), Some("xé😀\n"));
        assert_eq!(v["a"][1].as_f64(), Some(-2500.0));
        assert_eq!(v["b"], Value::Object(Map::new()));
    }

    #[test]
    fn refuses_what_json_parse_refuses() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "1.",
            "-",
            "+1",
            ".5",
            "1e",
            "tru",
            "nul",
            "\"a\nb\"",
            "\"\\x\"",
            "{a:1}",
            "[1 2]",
            "1 2",
            "'a'",
            "\"\\u12\"",
            "NaN",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(parse(r#""a\ud800b""#).unwrap().as_str(), Some("a\u{FFFD}b"));
        assert_eq!(parse(r#""\udc00""#).unwrap().as_str(), Some("\u{FFFD}"));
        assert_eq!(
            parse(r#""\ud800\u0041""#).unwrap().as_str(),
            Some("\u{FFFD}A")
        );
    }

    #[test]
    fn repeated_keys_keep_the_first_place_and_the_last_value() {
        let v = parse(r#"{"a":1,"b":2,"a":3,"a":4}"#).unwrap();
        assert_eq!(v.to_json(), r#"{"a":4,"b":2}"#);
        let mut big: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        big.push("\"k3\":\"last\"".into());
        big.push("\"k3\":\"really last\"".into());
        let v = parse(&format!("{{{}}}", big.join(","))).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 40);
        assert_eq!(v.as_object().unwrap().keys().nth(3).unwrap(), "k3");
        assert_eq!(v["k3"].as_str(), Some("really last"));
    }

    #[test]
    fn depth_is_limited() {
        let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
        assert_eq!(parse(&deep).unwrap_err().message, "nested too deeply");
        let ok = format!("{}{}", "[".repeat(500), "]".repeat(500));
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn tagged_objects() {
        let object = parse_tagged_object(r#"{"a\u0041":1,"type":"X","b":2,"type":"Y"}"#, "type")
            .unwrap()
            .unwrap();
        assert_eq!(object.members.len(), 2);
        assert_eq!(object.members[0].0, "aA");
        assert!(matches!(object.members[1].0, Cow::Borrowed("b")));
        assert!(matches!(object.tag, Some((1, Cow::Borrowed("Y")))));
        // A tag that is not a string stays a member, in its place; a later string tag wins.
        let object = parse_tagged_object(r#"{"type":5,"a":1}"#, "type")
            .unwrap()
            .unwrap();
        assert!(object.tag.is_none());
        assert_eq!(object.members[0].0, "type");
        let object = parse_tagged_object(r#"{"a":1,"type":5,"type":"T\n"}"#, "type")
            .unwrap()
            .unwrap();
        assert_eq!(object.members.len(), 1);
        assert!(matches!(&object.tag, Some((1, Cow::Owned(t))) if t == "T\n"));
        let object = parse_tagged_object(r#"{"type":"T","type":[1]}"#, "type")
            .unwrap()
            .unwrap();
        assert!(object.tag.is_none());
        assert_eq!(object.members[0].1, parse("[1]").unwrap());
        assert!(parse_tagged_object("[1]", "type").unwrap().is_none());
        assert!(parse_tagged_object("{\"a\":1", "type").is_err());
    }
}
