//! A small JSON value, parser and writer: the crate's only JSON layer.
//!
//! Why not serde: serde's per-type (de)serializers were most of the `.wasm` (about 370 KiB of
//! 890 KiB before `wasm-opt`, measured with `twiggy`), and every event type paid for them. This
//! module is one parser and one writer for one [`Value`] type; typed data is read from and written
//! to it by hand ([`crate::protocol::wire`]).
//!
//! Semantics follow the browser's `JSON.parse` / `JSON.stringify`, which are what an AG-UI client
//! compares against:
//! - Objects keep their keys in the order they were written ([`Map`] is an ordered list); a
//!   repeated key keeps its first position and its last value, as `JSON.parse` does.
//! - Numbers keep their text ([`Number`]): nothing is rounded through `f64` on the way through,
//!   so `JSON.parse` of what we write gives exactly what `JSON.parse` of the input gave.
//! - A lone UTF-16 surrogate escape (`"\ud800"`), which `JSON.parse` accepts but a Rust string
//!   cannot hold, becomes U+FFFD, as the web platform does when such a string is encoded as UTF-8.
//! - Strings are written escaped as `JSON.stringify` escapes them (`"`, `\`, and control
//!   characters only).

mod parse;
pub mod patch;

use std::fmt;

pub use parse::{parse, parse_tagged_object, BorrowedMembers, JsonError, TaggedObject};

/// A JSON value.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, kept as written.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object.
    Object(Map),
}

/// A JSON number: small integers as `i64`, every other number as its (validated) JSON text.
#[derive(Clone, Debug)]
pub struct Number(Num);

#[derive(Clone, Debug)]
enum Num {
    Int(i64),
    Text(Box<str>),
}

impl Number {
    /// The number as an `i64`, if it is an integer written without a fraction or exponent that
    /// fits.
    pub fn as_i64(&self) -> Option<i64> {
        match &self.0 {
            Num::Int(n) => Some(*n),
            Num::Text(_) => None,
        }
    }

    /// The number as a `u64`, if it is a non-negative integer written without a fraction or
    /// exponent that fits.
    pub fn as_u64(&self) -> Option<u64> {
        match &self.0 {
            Num::Int(n) => u64::try_from(*n).ok(),
            Num::Text(text) => text.parse().ok(),
        }
    }

    /// The number as an `f64` (the value `JSON.parse` gives).
    pub fn as_f64(&self) -> f64 {
        match &self.0 {
            Num::Int(n) => *n as f64,
            Num::Text(text) => parse_f64(text),
        }
    }

    /// Whether the value is a whole number (`1`, `1.0` and `1e2` are; JSON Schema's `integer`).
    pub fn is_whole(&self) -> bool {
        match &self.0 {
            Num::Int(_) => true,
            Num::Text(_) => {
                let f = self.as_f64();
                f.is_finite() && f.fract() == 0.0
            }
        }
    }

    /// Writes the number's JSON text.
    fn write(&self, out: &mut String) {
        match &self.0 {
            Num::Int(n) => push_i64(out, *n),
            Num::Text(text) => out.push_str(text),
        }
    }

    /// Reads a number from text already checked against the JSON number grammar.
    fn from_valid_text(text: &str) -> Number {
        let plain = !text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
        match text.parse::<i64>() {
            Ok(n) if plain && text != "-0" => Number(Num::Int(n)),
            _ => Number(Num::Text(text.into())),
        }
    }
}

/// `f64` from JSON number text. In the browser this is the engine's own `Number.parseFloat`
/// (for JSON number text, the exact value `JSON.parse` gives, and no float parser in the
/// `.wasm`); natively it is `str::parse`.
#[cfg(target_arch = "wasm32")]
fn parse_f64(text: &str) -> f64 {
    js_sys::Number::parse_float(text)
}

#[cfg(not(target_arch = "wasm32"))]
fn parse_f64(text: &str) -> f64 {
    text.parse().unwrap_or(f64::NAN)
}

/// Numbers are equal when their values are (`1`, `1.0` and `1e0` are one number), as JSON Schema's
/// `enum`/`const` and JSON Patch's `test` compare them.
impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        match (&self.0, &other.0) {
            (Num::Int(a), Num::Int(b)) => a == b,
            (Num::Text(a), Num::Text(b)) if a == b => true,
            _ => self.as_f64() == other.as_f64(),
        }
    }
}

impl From<i64> for Number {
    fn from(n: i64) -> Number {
        Number(Num::Int(n))
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Number {
        match i64::try_from(n) {
            Ok(n) => Number(Num::Int(n)),
            Err(_) => Number(Num::Text(n.to_string().into())),
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write(&mut out);
        f.write_str(&out)
    }
}

/// A JSON object: its members in the order they were written, keys unique.
///
/// Lookups are linear, which is the fast choice for the small objects of a protocol (events,
/// messages, tool arguments); [`parse`] removes repeated keys of large objects in O(n log n).
#[derive(Clone, Debug, Default)]
pub struct Map {
    entries: Vec<(String, Value)>,
}

impl Map {
    /// An empty object.
    pub fn new() -> Map {
        Map::default()
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn index_of(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k == key)
    }

    /// The member named `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The member named `key`, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// Whether there is a member named `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.index_of(key).is_some()
    }

    /// Sets the member `key` (in place when it exists, at the end otherwise); returns the old value.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        let key = key.into();
        match self.index_of(&key) {
            Some(at) => Some(std::mem::replace(&mut self.entries[at].1, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes the member `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let at = self.index_of(key)?;
        Some(self.entries.remove(at).1)
    }

    /// The member `key`, inserted as `null` first when absent.
    pub fn entry(&mut self, key: &str) -> &mut Value {
        let at = match self.index_of(key) {
            Some(at) => at,
            None => {
                self.entries.push((key.to_owned(), Value::Null));
                self.entries.len() - 1
            }
        };
        &mut self.entries[at].1
    }

    /// Keeps the members for which `keep` returns true.
    pub fn retain(&mut self, mut keep: impl FnMut(&str, &mut Value) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// The members, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&String, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The members, in order, values mutable.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (&String, &mut Value)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &String> {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values, in order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &Value> {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Builds a map from members already known to have unique keys.
    pub(crate) fn from_unique(entries: Vec<(String, Value)>) -> Map {
        Map { entries }
    }
}

/// Objects are equal when they have the same members, in any order (JSON's object semantics).
impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.len() == other.len()
            && self
                .entries
                .iter()
                .all(|(k, v)| other.get(k).is_some_and(|w| v == w))
    }
}

impl IntoIterator for Map {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a String, &'a Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Value)>,
        fn(&'a (String, Value)) -> (&'a String, &'a Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<K: Into<String>> FromIterator<(K, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Map {
        let mut map = Map::new();
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}

static NULL: Value = Value::Null;

impl Value {
    /// Parses JSON text (see [`parse`]).
    pub fn parse(text: &str) -> Result<Value, JsonError> {
        parse(text)
    }

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
            Value::String(s) => write_str(out, s),
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

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The number as an `i64` (see [`Number::as_i64`]).
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number()?.as_i64()
    }

    /// The number as a `u64` (see [`Number::as_u64`]).
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number()?.as_u64()
    }

    /// The number as an `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        Some(self.as_number()?.as_f64())
    }

    /// The items, if this is an array.
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The items, mutably, if this is an array.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// The members, mutably, if this is an object.
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Whether this is `true` or `false`.
    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    /// Whether this is a number.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    /// Whether this is a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// Whether this is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// Whether this is an array.
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// "a string", "an object", ...: the value's JSON kind, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// The value at an RFC 6901 JSON Pointer (`""` is this value, `/a/0` a member's item).
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        patch::resolve(self, &patch::pointer(pointer).ok()?)
    }

    /// Replaces the value with `null` and returns it.
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

/// `value["key"]`: the member, or `null` when absent or not an object.
impl std::ops::Index<&str> for Value {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

/// `value[i]`: the item, or `null` when absent or not an array.
impl std::ops::Index<usize> for Value {
    type Output = Value;

    fn index(&self, i: usize) -> &Value {
        self.as_array().and_then(|a| a.get(i)).unwrap_or(&NULL)
    }
}

/// The value's JSON text (as [`Value::to_json`]).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Number(n.into())
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Number(n.into())
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Value {
        Value::Number(i64::from(n).into())
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Value {
        Value::Number((n as u64).into())
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Value {
        Value::Array(items)
    }
}

impl From<Map> for Value {
    fn from(map: Map) -> Value {
        Value::Object(map)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// Whether any of the 8 bytes of `word` is `"`, `\\` or a control character (below 0x20): the
/// bytes a JSON string must escape, or, when parsing, the bytes that end a plain run.
#[inline(always)]
pub(crate) fn has_special_byte(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_in = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    (below_space | zero_in(word ^ (ONES * b'"' as u64)) | zero_in(word ^ (ONES * b'\\' as u64)))
        != 0
}

/// The 8 bytes at `at` as a little-endian word, if there are 8. (A plain load: `copy_from_slice`
/// became a call per word at `opt-level = "s"`.)
#[inline(always)]
pub(crate) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk: &[u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(*chunk))
}

/// Appends `s` as a JSON string literal, escaped as `JSON.stringify` escapes it. Runs without
/// anything to escape are skipped 8 bytes at a time.
pub fn write_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(word) = word_at(bytes, i) {
            if !has_special_byte(word) {
                i += 8;
                continue;
            }
        }
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
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        } else {
            out.push_str(escape);
        }
        i += 1;
        start = i;
    }
    out.push_str(&s[start..]);
    out.push('"');
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_text_and_compare_by_value() {
        let v = parse("[1,-0,1.50,1e2,12345678901234567890,-9223372036854775808]").unwrap();
        assert_eq!(
            v.to_json(),
            "[1,-0,1.50,1e2,12345678901234567890,-9223372036854775808]"
        );
        assert_eq!(v[0].as_i64(), Some(1));
        assert_eq!(v[1].as_i64(), None);
        assert_eq!(v[4].as_u64(), Some(12345678901234567890));
        assert_eq!(v[5].as_i64(), Some(i64::MIN));
        assert_eq!(parse("1.0").unwrap(), parse("1").unwrap());
        assert_eq!(parse("100").unwrap(), v[3]);
        assert_ne!(parse("1.5").unwrap(), parse("1").unwrap());
        assert!(v[3].as_number().unwrap().is_whole());
        assert!(!parse("1.5").unwrap().as_number().unwrap().is_whole());
    }

    #[test]
    fn the_word_scan_finds_every_special_byte() {
        for b in 0u8..=255 {
            let special = b < 0x20 || b == b'"' || b == b'\\';
            for at in 0..8 {
                let mut word = *b"abcdefgh";
                word[at] = b;
                assert_eq!(
                    has_special_byte(u64::from_le_bytes(word)),
                    special,
                    "{b} at {at}"
                );
            }
        }
        let long = "0123456789abcdef\u{e9}\"x\n0123456789";
        let mut out = String::new();
        write_str(&mut out, long);
        assert_eq!(out, "\"0123456789abcdef\u{e9}\\\"x\\n0123456789\"");
    }

    #[test]
    fn strings_are_escaped_as_json_stringify_does() {
        let mut out = String::new();
        write_str(&mut out, "a\"b\\c\n\u{1}\u{7f}\u{2028}é");
        assert_eq!(out, "\"a\\\"b\\\\c\\n\\u0001\u{7f}\u{2028}é\"");
    }

    #[test]
    fn objects_keep_order_and_compare_without_it() {
        let a = parse(r#"{"b":1,"a":[true,null],"c":{"x":"y"}}"#).unwrap();
        assert_eq!(a.to_json(), r#"{"b":1,"a":[true,null],"c":{"x":"y"}}"#);
        let b = parse(r#"{"c":{"x":"y"},"a":[true,null],"b":1}"#).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, parse(r#"{"c":{"x":"y"},"a":[true,null]}"#).unwrap());
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
