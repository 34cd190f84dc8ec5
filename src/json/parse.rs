//! The JSON parser (RFC 8259, as strict as `JSON.parse`), with strings in the internal form of
//! the module docs (lone surrogates as `E X`, a literal U+10FFFF as `E E`).

use std::borrow::Cow;
use std::fmt;

use super::js_string::{escaped_at, push_pair, push_surrogate, Escaped, ESCAPE, ESCAPE_UTF8};
use super::patch::{Patch, PatchOp};
use super::scan::{first_special_byte, word_at};
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

/// Parses one JSON value of *wire text* (bytes from the network, `JSON.stringify` output, what
/// [`write_str`](super::write_str) wrote); only whitespace may surround it. Strings come out in
/// the internal form: a lone surrogate escape is `E X`, a literal U+10FFFF `E E` (module docs).
pub fn parse(text: &str) -> Result<Value, JsonError> {
    Parser::new(text).whole()
}

/// Parses one JSON value of text assembled from internal strings without the writer (the
/// concatenated `arguments` of a tool call): like [`parse`], but the raw `E X` and `E E` of the
/// text are the lone surrogates and U+10FFFFs they stand for, copied as they are (not escaped
/// again). A raw `E` followed by neither is a literal U+10FFFF.
pub fn parse_internal(text: &str) -> Result<Value, JsonError> {
    let mut p = Parser::new(text);
    p.internal = true;
    p.whole()
}

impl Value {
    /// Parses wire JSON text (see [`parse`]).
    pub fn parse(text: &str) -> Result<Value, JsonError> {
        parse(text)
    }

    /// Parses JSON text assembled from internal strings (see [`parse_internal`]).
    pub fn parse_internal(text: &str) -> Result<Value, JsonError> {
        parse_internal(text)
    }
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
    /// The patch member asked for ([`parse_tagged_object`]'s `patch`), read straight into patch
    /// operations; its place in `members` holds an empty array. `None` when it was not asked for,
    /// absent, or not a well-formed patch (then it is an ordinary member, read as any other).
    pub patch: Option<Patch>,
}

/// Parses a JSON object whose keys stay borrowed from `text` where they have no escapes, with its
/// string member `tag` (an event's `type`) read without an allocation: the top level of an
/// event, read once per event. `None` when the text is JSON but not an object. Repeated keys keep
/// the last value, as everywhere.
///
/// `patch: Some((tag value, key))`: when the tag (read before it) has that value, the member `key`
/// is read straight into [`TaggedObject::patch`] (a `STATE_DELTA`'s `delta`: no `Value` tree, no
/// map or key strings per operation). An array that is not a well-formed patch is read again as
/// a value, so errors stay the general path's.
pub fn parse_tagged_object<'a>(
    text: &'a str,
    tag: &str,
    patch: Option<(&str, &str)>,
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
        patch: None,
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
                let value = match patch {
                    Some((ty, name)) if key == name => {
                        object.patch = None;
                        let (pos, depth) = (p.pos, p.depth);
                        let tagged = matches!(&object.tag, Some((_, t)) if t == ty);
                        match p.patch_ops(tagged) {
                            Some(ops) => {
                                object.patch = Some(ops);
                                Value::Array(Vec::new())
                            }
                            None => {
                                (p.pos, p.depth) = (pos, depth);
                                p.value()?
                            }
                        }
                    }
                    _ => p.value()?,
                };
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
    if let (Some(_), Some((ty, _))) = (&object.patch, patch) {
        // A later tag changed the type: read it all as values.
        if !matches!(&object.tag, Some((_, t)) if t == ty) {
            return parse_tagged_object(text, tag, None);
        }
    }
    Ok(Some(object))
}

/// Reads a top-level object whose members are all strings named in `slots`, each at most once,
/// into `slots` (values borrowed where they have no escapes). `None` for anything else: another
/// member, a value that is not a string, a repeated member, text that is not JSON. The caller
/// reads such text the general way ([`parse_tagged_object`]), which names what is wrong.
pub fn parse_string_members<'a>(
    text: &'a str,
    slots: &mut [(&str, Option<Cow<'a, str>>)],
) -> Option<()> {
    let mut p = Parser::new(text);
    p.skip_ws();
    if p.peek() != Some(b'{') {
        return None;
    }
    p.pos += 1;
    loop {
        p.skip_ws();
        let key = p.key().ok()?;
        if p.peek() != Some(b'"') {
            return None;
        }
        let (_, slot) = slots.iter_mut().find(|(name, _)| *name == key)?;
        if slot.is_some() {
            return None;
        }
        *slot = Some(p.string().ok()?);
        if p.after_member(b'}').ok()? {
            return p.end().ok();
        }
    }
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: u32,
    /// The text is in the internal form ([`parse_internal`]), not wire text.
    internal: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
            internal: false,
        }
    }

    /// One value and nothing but whitespace around it.
    fn whole(&mut self) -> Result<Value, JsonError> {
        self.skip_ws();
        let value = self.value()?;
        self.end()?;
        Ok(value)
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

    /// A patch (at `[` when `go`): its operations, or `None` at the first thing
    /// [`super::patch::from_json`] would not read the same way (an error, an unknown operation, a
    /// member not a string), the position then left anywhere.
    #[inline(never)]
    fn patch_ops(&mut self, go: bool) -> Option<Patch> {
        if !go || self.peek() != Some(b'[') {
            return None;
        }
        self.enter().ok()?;
        let mut ops = Vec::with_capacity(1);
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            loop {
                self.skip_ws();
                ops.push(self.patch_op()?);
                if self.after_member(b']').ok()? {
                    break;
                }
            }
        }
        self.depth -= 1;
        Some(ops)
    }

    /// One operation object of [`Parser::patch_ops`]; repeated members keep the last value.
    fn patch_op(&mut self) -> Option<PatchOp> {
        if self.peek() != Some(b'{') {
            return None;
        }
        self.enter().ok()?;
        let (mut op, mut path, mut from, mut value) = (None, None, None, None);
        if self.peek() == Some(b'}') {
            return None;
        }
        loop {
            self.skip_ws();
            let key = self.key().ok()?;
            match &*key {
                "value" => value = Some(self.value().ok()?),
                "op" | "path" | "from" => {
                    if self.peek() != Some(b'"') {
                        return None;
                    }
                    let text = Some(self.string().ok()?);
                    match &*key {
                        "op" => op = text,
                        "path" => path = text,
                        _ => from = text,
                    }
                }
                _ => {
                    self.value().ok()?;
                }
            }
            if self.after_member(b'}').ok()? {
                break;
            }
        }
        self.depth -= 1;
        let path = path?.into_owned();
        let from = from.map(Cow::into_owned);
        Some(match &*op? {
            "add" => PatchOp::Add {
                path,
                value: value?,
            },
            "replace" => PatchOp::Replace {
                path,
                value: value?,
            },
            "test" => PatchOp::Test {
                path,
                value: value?,
            },
            "remove" => PatchOp::Remove { path },
            "move" => PatchOp::Move { from: from?, path },
            "copy" => PatchOp::Copy { from: from?, path },
            _ => return None,
        })
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
            crate::lean::text::sub(self.text, start..self.pos),
        )))
    }

    /// Whether a raw [`ESCAPE`](super::ESCAPE) char starts at the current position.
    #[inline]
    fn at_escape_char(&self) -> bool {
        self.bytes[self.pos..].starts_with(&ESCAPE_UTF8)
    }

    /// Skips plain string bytes, 8 at a time where it can, up to the first byte that ends a run:
    /// `"`, `\\`, a control character, the start of a raw [`ESCAPE`](super::ESCAPE), or the end.
    #[inline(always)]
    fn skip_plain(&mut self) {
        loop {
            while let Some(word) = word_at(self.bytes, self.pos) {
                match first_special_byte(word) {
                    Some(at) => {
                        self.pos += at;
                        break;
                    }
                    None => self.pos += 8,
                }
            }
            // At a special byte, or within 8 bytes of the end of the text.
            match self.peek() {
                None | Some(b'"' | b'\\' | 0..=0x1f) => return,
                Some(0xF4) if self.at_escape_char() => return,
                // Another plane-16 char, or a plain byte of the last few.
                Some(_) => self.pos += 1,
            }
        }
    }

    /// A string literal (at its opening quote): borrowed when it has no escapes (and no raw
    /// U+10FFFF, which the internal form escapes).
    fn string(&mut self) -> Result<Cow<'a, str>, JsonError> {
        self.pos += 1;
        let start = self.pos;
        // Plain runs (most of a text delta) are skipped 8 bytes at a time.
        self.skip_plain();
        if self.peek() == Some(b'"') {
            let s = crate::lean::text::sub(self.text, start..self.pos);
            self.pos += 1;
            return Ok(Cow::Borrowed(s));
        }
        let mut out = String::with_capacity(self.pos - start + 16);
        out.push_str(crate::lean::text::sub(self.text, start..self.pos));
        loop {
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => self.escape(&mut out)?,
                Some(0xF4) => self.raw_escape_char(&mut out),
                Some(_) => return self.fail("control character in a string"),
                None => return self.fail("unexpected end of JSON"),
            }
            let run = self.pos;
            self.skip_plain();
            out.push_str(crate::lean::text::sub(self.text, run..self.pos));
        }
    }

    /// A raw U+10FFFF in the text (at its first byte). In wire text it is a literal U+10FFFF:
    /// `E E`. In internal text it starts `E E` or `E X`, copied as they are (a lone low surrogate
    /// right after a lone high one makes the pair's char, as JS joins them).
    fn raw_escape_char(&mut self, out: &mut String) {
        self.pos += 4;
        if self.internal {
            match escaped_at(&self.bytes[self.pos..]) {
                Some(Escaped::Surrogate(unit)) => {
                    self.pos += 4;
                    push_surrogate(out, unit);
                    return;
                }
                Some(Escaped::Escape) => self.pos += 4,
                None => {}
            }
        }
        out.push(ESCAPE);
        out.push(ESCAPE);
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
                match unit {
                    0xD800..=0xDBFF if self.bytes[self.pos..].starts_with(b"\\u") => {
                        let save = self.pos;
                        self.pos += 2;
                        let low = self.hex4()?;
                        if (0xDC00..=0xDFFF).contains(&low) {
                            push_pair(out, unit as u16, low as u16);
                        } else {
                            // A lone high surrogate followed by another escape: read that one next.
                            self.pos = save;
                            push_surrogate(out, unit as u16);
                        }
                    }
                    0xD800..=0xDFFF => push_surrogate(out, unit as u16),
                    _ => out.push(char::from_u32(unit).unwrap_or('\u{FFFD}')),
                }
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
        crate::lean::sort::sort_by(&mut order, &mut |&a, &b| {
            (&entries[a as usize].0, a) < (&entries[b as usize].0, b)
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
    // Later values win: applied in order of the later index (a table by that index rather than
    // a sort of `repeats`).
    let mut first_of = vec![usize::MAX; n];
    for &(first, later) in &repeats {
        first_of[later] = first;
    }
    for (later, &first) in first_of.iter().enumerate() {
        if first != usize::MAX {
            let value = entries[later].1.take();
            entries[first].1 = value;
        }
    }
    let mut i = 0;
    entries.retain(|_| {
        i += 1;
        first_of[i - 1] == usize::MAX
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

    /// `E X` for the lone surrogate `unit` (module docs).
    fn lone(unit: u32) -> String {
        let x = char::from_u32(0x10_0000 + unit - 0xD800).unwrap();
        format!("{}{x}", super::super::ESCAPE)
    }

    #[test]
    fn lone_surrogates_are_kept_and_written_back_as_json_stringify_writes_them() {
        let e = super::super::ESCAPE;
        for (wire, internal, written) in [
            (
                r#""a\ud800b""#,
                format!("a{}b", lone(0xD800)),
                r#""a\ud800b""#,
            ),
            (r#""\udc00""#, lone(0xDC00), r#""\udc00""#),
            (r#""\uDBFF""#, lone(0xDBFF), r#""\udbff""#),
            (r#""\udfff""#, lone(0xDFFF), r#""\udfff""#),
            (
                r#""\ud800\u0041""#,
                format!("{}A", lone(0xD800)),
                r#""\ud800A""#,
            ),
            // Low then high are two lone units, not a pair.
            (
                r#""\ude00\ud83d""#,
                format!("{}{}", lone(0xDE00), lone(0xD83D)),
                r#""\ude00\ud83d""#,
            ),
            (
                r#""\ud83d\ud83d\ude00x""#,
                format!("{}\u{1F600}x", lone(0xD83D)),
                "\"\\ud83d\u{1F600}x\"",
            ),
            // A pair is the real char, as always.
            (r#""\ud83d\ude00""#, "\u{1F600}".to_owned(), "\"\u{1F600}\""),
        ] {
            let v = parse(wire).unwrap();
            assert_eq!(v.as_str(), Some(internal.as_str()), "{wire}");
            assert_eq!(v.to_json(), written, "{wire}");
            assert_eq!(parse(&v.to_json()).unwrap(), v, "{wire}");
        }
        // A literal U+10FFFF, raw or escaped, is `E E` and is written back as the char.
        for wire in ["\"\u{10FFFF}\"", r#""\udbff\udfff""#, r#""\uDBFF\uDFFF""#] {
            let v = parse(wire).unwrap();
            assert_eq!(v.as_str(), Some(format!("{e}{e}").as_str()), "{wire}");
            assert_eq!(v.to_json(), "\"\u{10FFFF}\"");
        }
        // Raw U+10FFFF and U+100000 in the text are two chars, not a lone surrogate.
        let raw = "\"\u{10FFFF}\u{100000}\u{10FFFF}\u{10FFFF}\"";
        let v = parse(raw).unwrap();
        assert_eq!(
            v.as_str(),
            Some(format!("{e}{e}\u{100000}{e}{e}{e}{e}").as_str())
        );
        assert_eq!(v.to_json(), raw);
        // Other plane-16 chars are plain text.
        let v = parse("\"\u{10FFFD}\u{100000}x\"").unwrap();
        assert!(matches!(
            Parser::new("\"\u{10FFFD}\u{100000}x\"").string(),
            Ok(Cow::Borrowed(_))
        ));
        assert_eq!(v.to_json(), "\"\u{10FFFD}\u{100000}x\"");
    }

    #[test]
    fn a_raw_u10ffff_leaves_the_borrowed_path() {
        let text = "\"abcdefgh\u{10FFFF}ijklmnop\"";
        let mut p = Parser::new(text);
        let s = p.string().unwrap();
        assert!(matches!(&s, Cow::Owned(_)));
        assert_eq!(s, "abcdefgh\u{10FFFF}\u{10FFFF}ijklmnop");
        let object =
            parse_tagged_object("{\"type\":\"T\u{10FFFF}\",\"\u{10FFFF}\":1}", "type", None)
                .unwrap()
                .unwrap();
        assert!(matches!(&object.tag, Some((0, Cow::Owned(t))) if t == "T\u{10FFFF}\u{10FFFF}"));
        assert_eq!(object.members[0].0, "\u{10FFFF}\u{10FFFF}");
    }

    #[test]
    fn internal_text_is_copied_as_it_is() {
        let e = super::super::ESCAPE;
        let json = |s: &str| format!("{{\"a\":\"{s}\"}}");
        // `E X` and `E E` stay what they are: not escaped again.
        for s in [
            format!("x{}y", lone(0xD800)),
            format!("{e}{e}"),
            format!("{e}{e}\u{100000}"),
            format!("{}{e}{e}{}", lone(0xDC00), lone(0xDBFF)),
        ] {
            let v = parse_internal(&json(&s)).unwrap();
            assert_eq!(v["a"].as_str(), Some(s.as_str()), "{s:?}");
            // What the writer makes of it reads back as wire text to the same value.
            assert_eq!(parse(&v.to_json()).unwrap(), v, "{s:?}");
        }
        // A stray `E` is a literal U+10FFFF.
        let v = parse_internal(&json(&format!("{e}z"))).unwrap();
        assert_eq!(v["a"].as_str(), Some(format!("{e}{e}z").as_str()));
        // The halves of a pair next to each other (raw or escaped) are the char, as in JS.
        for s in [
            format!("{}{}", lone(0xD83D), lone(0xDE00)),
            format!("{}\\ude00", lone(0xD83D)),
            format!("\\ud83d{}", lone(0xDE00)),
        ] {
            let v = parse_internal(&json(&s)).unwrap();
            assert_eq!(v["a"].as_str(), Some("\u{1F600}"), "{s:?}");
        }
        // Escapes mean what they mean in wire text.
        let v = parse_internal(r#"["\ud800","\udbff\udfff","\u00e9"]"#).unwrap();
        assert_eq!(v[0].as_str(), Some(lone(0xD800).as_str()));
        assert_eq!(v[1].as_str(), Some(format!("{e}{e}").as_str()));
        assert_eq!(v[2].as_str(), Some("\u{e9}"));
        // Wire text reads the same raw chars as literal U+10FFFF and U+100000.
        let v = parse(&json(&lone(0xD800))).unwrap();
        assert_eq!(v["a"].as_str(), Some(format!("{e}{e}\u{100000}").as_str()));
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
        let object =
            parse_tagged_object(r#"{"a\u0041":1,"type":"X","b":2,"type":"Y"}"#, "type", None)
                .unwrap()
                .unwrap();
        assert_eq!(object.members.len(), 2);
        assert_eq!(object.members[0].0, "aA");
        assert!(matches!(object.members[1].0, Cow::Borrowed("b")));
        assert!(matches!(object.tag, Some((1, Cow::Borrowed("Y")))));
        // A tag that is not a string stays a member, in its place; a later string tag wins.
        let object = parse_tagged_object(r#"{"type":5,"a":1}"#, "type", None)
            .unwrap()
            .unwrap();
        assert!(object.tag.is_none());
        assert_eq!(object.members[0].0, "type");
        let object = parse_tagged_object(r#"{"a":1,"type":5,"type":"T\n"}"#, "type", None)
            .unwrap()
            .unwrap();
        assert_eq!(object.members.len(), 1);
        assert!(matches!(&object.tag, Some((1, Cow::Owned(t))) if t == "T\n"));
        let object = parse_tagged_object(r#"{"type":"T","type":[1]}"#, "type", None)
            .unwrap()
            .unwrap();
        assert!(object.tag.is_none());
        assert_eq!(object.members[0].1, parse("[1]").unwrap());
        assert!(parse_tagged_object("[1]", "type", None).unwrap().is_none());
        assert!(parse_tagged_object("{\"a\":1", "type", None).is_err());
    }

    #[test]
    fn a_patch_member_is_read_straight_as_the_general_path_reads_it() {
        let ask = Some(("STATE_DELTA", "delta"));
        fn read(text: &str) -> TaggedObject<'_> {
            parse_tagged_object(text, "type", Some(("STATE_DELTA", "delta")))
                .unwrap()
                .unwrap()
        }
        for ops in [
            r#"[{"op":"add","path":"/a~1b","value":{"x":[1,"y"]}},{"op":"remove","path":"/c"}]"#,
            r#"[ { "path" : "/p" , "value" : 1.5e3 , "op" : "replace" , "extra" : {"k":[]} } ]"#,
            r#"[{"op":"move","from":"/a","path":"/b"},{"op":"copy","from":"/b","path":"/c"},{"op":"test","path":"","value":null}]"#,
            r#"[{"op":"add","op":"replace","path":"/q","path":"/r","value":1,"value":2}]"#,
            r#"[{"op":"r\u0065place","p\u0061th":"/\u00e9","value":"\ud800"}]"#,
            "[]",
        ] {
            let text = format!(r#"{{"type":"STATE_DELTA","delta":{ops},"threadId":"t"}}"#);
            let object = read(&text);
            let expected = super::super::patch::from_json(parse(ops).unwrap()).unwrap();
            assert_eq!(object.patch.as_ref(), Some(&expected), "{ops}");
            assert_eq!(object.members.len(), 2);
            assert_eq!(object.members[0].0, "delta");
            assert_eq!(object.members[0].1, Value::Array(Vec::new()));
        }
        // What the general path reads otherwise (an error it names, another type, the tag after
        // the member or changed after it, a later member that is not a patch) stays a member.
        for text in [
            r#"{"type":"STATE_DELTA","delta":[{"op":"nope","path":"/a"}]}"#,
            r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":1,"value":1}]}"#,
            r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a"}]}"#,
            r#"{"type":"STATE_DELTA","delta":[{"op":"move","path":"/a"}]}"#,
            r#"{"type":"STATE_DELTA","delta":[{}]}"#,
            r#"{"type":"STATE_DELTA","delta":[1]}"#,
            r#"{"type":"STATE_DELTA","delta":{"op":"remove","path":"/a"}}"#,
            r#"{"type":"ACTIVITY_DELTA","delta":[{"op":"remove","path":"/a"}]}"#,
            r#"{"delta":[{"op":"remove","path":"/a"}],"type":"STATE_DELTA"}"#,
            r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a"}],"type":"X"}"#,
            r#"{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a"}],"delta":[2]}"#,
        ] {
            let object = read(text);
            assert!(object.patch.is_none(), "{text}");
            let general = parse_tagged_object(text, "type", None).unwrap().unwrap();
            assert_eq!(object.members, general.members, "{text}");
            assert_eq!(object.tag, general.tag, "{text}");
        }
        // A later member that is a patch wins over an earlier one that is not.
        let object =
            read(r#"{"type":"STATE_DELTA","delta":[2],"delta":[{"op":"remove","path":"/a"}]}"#);
        assert_eq!(object.patch.map(|p| p.len()), Some(1));
        assert_eq!(object.members.len(), 1);
        // Text that is not JSON fails as it does on the general path, at the same place.
        let deep = format!(
            r#"{{"type":"STATE_DELTA","delta":[{{"op":"add","path":"","value":{}1{}}}]}}"#,
            "[".repeat(600),
            "]".repeat(600)
        );
        for text in [
            r#"{"type":"STATE_DELTA","delta":[{"op":"add",]}"#,
            r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1}"#,
            r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":01}]}"#,
            &deep,
        ] {
            assert_eq!(
                parse_tagged_object(text, "type", ask).unwrap_err(),
                parse_tagged_object(text, "type", None).unwrap_err(),
                "{text}"
            );
        }
    }
}
