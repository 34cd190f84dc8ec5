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
//! - Strings are JS strings: a lone UTF-16 surrogate survives the round trip (below).
//! - Strings are written escaped as `JSON.stringify` escapes them (`"`, `\`, control characters,
//!   and lone surrogates as `\udXXX`).
//!
//! # Lone surrogates: the internal form of strings
//!
//! A JS string is a sequence of UTF-16 code units, and `JSON.parse` keeps a lone surrogate escape
//! (`"\ud83d"`) as a lone code unit. AG-UI servers written in JS cut streamed deltas by code unit,
//! so a `TEXT_MESSAGE_CONTENT` or `TOOL_CALL_ARGS` delta may end between the two halves of an
//! emoji (`"\ud83d"`, then `"\ude00..."`), and `@ag-ui/client` joins the halves back when it
//! appends the deltas. A Rust `String` cannot hold a lone surrogate, so the strings of this crate's
//! [`Value`]s (and everything read from them: ids, deltas, message contents, tool-call arguments)
//! are in an *internal form* that can, built on a Unicode noncharacter (reserved by Unicode for
//! process-internal use, never meaningful in interchange):
//!
//! - [`ESCAPE`] `E` = U+10FFFF (UTF-8 `F4 8F BF BF`) starts a two-char escape.
//! - A lone surrogate `S` (0xD800..=0xDFFF) is `E` followed by `X` = U+100000 + (S - 0xD800)
//!   (U+100000..=U+1007FF, UTF-8 `F4 80 80 80`..=`F4 80 9F BF`).
//! - A literal U+10FFFF is `E E`.
//! - Every other char is itself. The mapping is injective: nothing is lost, and two internal
//!   strings are equal exactly when the JS strings are. An internal string never holds a high
//!   `E X` directly followed by a low `E X` (the halves of a pair are the real char), so it is
//!   canonical too.
//!
//! Where the form is made and undone:
//! - [`parse`] reads *wire text* (bytes from the network, `JSON.stringify` output, what [`write_str`]
//!   wrote): a lone surrogate escape becomes `E X`, a literal U+10FFFF (raw or as
//!   `\udbff\udfff`) becomes `E E`; `\ud83d\ude00` is the real char as always.
//! - [`parse_internal`] reads JSON text *assembled from internal strings* without the writer (the
//!   concatenated `arguments` of a tool call): there raw `E X` / `E E` are copied as they are.
//! - [`write_str`] (and so [`Value::to_json`]) writes `E X` as the escape `\udXXX` (lower-case, as
//!   `JSON.stringify` writes it) and `E E` as the literal char U+10FFFF, so `JSON.parse` in JS of
//!   what we write gives exactly the JS string `JSON.parse` gave for the wire text.
//! - [`push_str`] appends a streamed delta: a high `E X` at the end and a low `E X` at the start
//!   become the real astral char, as JS string concatenation joins them.
//! - [`to_js_string`] / [`from_js_string`]: for strings that cross the wasm boundary directly
//!   (through `wasm-bindgen`'s UTF-8 `String`, not as JSON text). A string holding a lone surrogate
//!   cannot cross that way (`wasm-bindgen` turns a lone surrogate into U+FFFD): it must cross as
//!   JSON text ([`to_js_string`] says so with `None`).
//! - [`find_lone_surrogate`] says whether and where an internal string holds a lone surrogate,
//!   and [`to_utf16`] gives the code units of the JS string it stands for: what every exit of the
//!   boundary must hand to JavaScript (or refuse), and what the tests compare exits with.
//!
//! **Nothing of the internal form leaves the crate.** Every string the wasm boundary hands to
//! JavaScript is either JSON text written by [`write_str`] (read back with `JSON.parse`) or goes
//! through one helper (`js_string` in `src/wasm/convert.rs`) that makes the JS string itself,
//! lone surrogates restored; docs/architecture.md lists the exits. Text that comes from
//! JavaScript other than as JSON (a thrown error's message, a storage event's key) is brought
//! into the internal form on the way in, so a literal U+10FFFF in it is never misread as a
//! private escape.
//!
//! Raw U+10FFFF is rare in text, so the cost is one more byte value (0xF4, the lead byte of
//! plane 16) in the 8-bytes-at-a-time scans of the parser and the writer.

mod parse;
pub mod patch;

use std::borrow::Cow;
use std::fmt;

pub use parse::{
    parse, parse_internal, parse_tagged_object, BorrowedMembers, JsonError, TaggedObject,
};

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
    /// A string, in the internal form (see the module docs: it may hold lone surrogates).
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
    /// Parses wire JSON text (see [`parse`]).
    pub fn parse(text: &str) -> Result<Value, JsonError> {
        parse(text)
    }

    /// Parses JSON text assembled from internal strings (see [`parse_internal`]).
    pub fn parse_internal(text: &str) -> Result<Value, JsonError> {
        parse_internal(text)
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

/// The first of the 8 bytes of `word` (little-endian) that is `"`, `\\`, a control character
/// (below 0x20) or 0xF4, if any: the bytes a JSON string must escape, the lead byte of [`ESCAPE`]
/// (and of the other chars of plane 16, U+100000 and up, rare in text); when parsing, the bytes
/// that end a plain run. A plain run is skipped 8 bytes at a time and the scan lands on the byte
/// that ends it (the lowest flag of these tests is always a true one: a borrow only carries a
/// false flag upwards, past a true one). Three tests for the four kinds: a byte is below 0x20 or
/// `"` (0x22) exactly when it XOR 0x02 is below 0x21.
#[inline(always)]
pub(crate) fn first_special_byte(word: u64) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The bytes of `x` below `n` (n <= 0x80), and the zero bytes of `x`.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x;
    let control_or_quote = below(word ^ (ONES * 0x02), 0x21);
    let flags = (control_or_quote
        | below(word ^ (ONES * b'\\' as u64), 1)
        | below(word ^ (ONES * 0xF4), 1))
        & HIGH;
    if flags == 0 {
        None
    } else {
        Some(flags.trailing_zeros() as usize / 8)
    }
}

/// The 8 bytes at `at` as a little-endian word, if there are 8. (A plain load: `copy_from_slice`
/// became a call per word at `opt-level = "s"`.)
#[inline(always)]
pub(crate) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk: &[u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(*chunk))
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

/// The internal escape char `E`, U+10FFFF (a Unicode noncharacter): `E X` is a lone surrogate,
/// `E E` a literal U+10FFFF (module docs).
pub const ESCAPE: char = '\u{10FFFF}';

/// [`ESCAPE`] in UTF-8.
const ESCAPE_UTF8: [u8; 4] = [0xF4, 0x8F, 0xBF, 0xBF];

/// What follows an `E` in an internal string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Escaped {
    /// `E E`: a literal U+10FFFF.
    Escape,
    /// `E X`: this lone surrogate.
    Surrogate(u16),
}

/// What the 4 bytes at the start of `bytes` (just after an `E`) make of that `E`; `None` when they
/// are neither `E` nor an `X` (a stray `E`).
#[inline]
fn escaped_at(bytes: &[u8]) -> Option<Escaped> {
    if bytes.starts_with(&ESCAPE_UTF8) {
        return Some(Escaped::Escape);
    }
    surrogate_at(bytes).map(Escaped::Surrogate)
}

/// The lone surrogate whose `X` (U+100000 + (S - 0xD800)) starts `bytes`.
#[inline]
fn surrogate_at(bytes: &[u8]) -> Option<u16> {
    match *bytes {
        [0xF4, 0x80, b2 @ 0x80..=0x9F, b3 @ 0x80..=0xBF, ..] => {
            Some(0xD800 + (((u16::from(b2) & 0x3F) << 6) | (u16::from(b3) & 0x3F)))
        }
        _ => None,
    }
}

/// `X`, the char standing for the lone surrogate `unit` (0xD800..=0xDFFF) after an `E`.
fn stand_in(unit: u16) -> char {
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
pub(crate) fn push_pair(out: &mut String, high: u16, low: u16) {
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
pub(crate) fn push_surrogate(out: &mut String, unit: u16) {
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
/// (written with [`write_str`], read with the engine's `JSON.parse`).
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
/// surrogates), or any other text that was not read by [`parse`], in the internal form: each
/// U+10FFFF becomes `E E`. Borrowed when there is none (the usual case, one scan).
pub fn from_js_string(s: &str) -> Cow<'_, str> {
    if crate::lean::text::has_char(s, ESCAPE) {
        Cow::Owned(s.replace(ESCAPE, "\u{10FFFF}\u{10FFFF}"))
    } else {
        Cow::Borrowed(s)
    }
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
    fn the_word_scan_finds_the_first_special_byte() {
        let special = |b: u8| b < 0x20 || b == b'"' || b == b'\\' || b == 0xF4;
        for b in 0u8..=255 {
            for at in 0..8 {
                let mut word = *b"abcdefgh";
                word[at] = b;
                let expected = special(b).then_some(at);
                assert_eq!(
                    first_special_byte(u64::from_le_bytes(word)),
                    expected,
                    "{b} at {at}"
                );
            }
        }
        // Every mix of special and plain bytes (the ones a borrow could falsely flag included):
        // the first special one is found.
        let bytes: Vec<u8> = (0u8..=255).collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let word: [u8; 8] = std::array::from_fn(|i| {
                let r = (state >> (i * 8)) as u8;
                if r % 4 == 0 {
                    [
                        0x00, 0x01, 0x1f, 0x20, 0x21, b'"', b'#', b'[', b'\\', b']', 0xF3, 0xF4,
                        0xF5, 0x80, 0xFF, 0x7f,
                    ][usize::from(r >> 4)]
                } else {
                    bytes[usize::from(r)]
                }
            });
            let expected = word.iter().position(|&b| special(b));
            assert_eq!(
                first_special_byte(u64::from_le_bytes(word)),
                expected,
                "{word:?}"
            );
        }
        let long = "0123456789abcdef\u{e9}\"x\n0123456789";
        let mut out = String::new();
        write_str(&mut out, long);
        assert_eq!(out, "\"0123456789abcdef\u{e9}\\\"x\\n0123456789\"");
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

    /// `E X` for the lone surrogate `unit`.
    fn lone(unit: u16) -> String {
        format!("{ESCAPE}{}", stand_in(unit))
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
