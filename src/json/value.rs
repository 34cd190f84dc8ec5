//! The JSON value: [`Value`], its [`Number`]s (kept as written) and its [`Map`]s (ordered
//! objects), and how they are read and built. Written by `write.rs`, parsed by `parse.rs`.

use crate::lean::text::push_i64;
use std::fmt;

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
    pub(super) fn write(&self, out: &mut String) {
        match &self.0 {
            Num::Int(n) => push_i64(out, *n),
            Num::Text(text) => out.push_str(text),
        }
    }

    /// Reads a number from text already checked against the JSON number grammar.
    pub(super) fn from_valid_text(text: &str) -> Number {
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
/// messages, tool arguments); [`parse`](super::parse) removes repeated keys of large objects in O(n log n).
#[derive(Clone, Debug, Default)]
pub struct Map {
    pub(super) entries: Vec<(String, Value)>,
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

    pub(super) fn index_of(&self, key: &str) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use crate::json::parse;

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
    fn objects_keep_order_and_compare_without_it() {
        let a = parse(r#"{"b":1,"a":[true,null],"c":{"x":"y"}}"#).unwrap();
        assert_eq!(a.to_json(), r#"{"b":1,"a":[true,null],"c":{"x":"y"}}"#);
        let b = parse(r#"{"c":{"x":"y"},"a":[true,null],"b":1}"#).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, parse(r#"{"c":{"x":"y"},"a":[true,null]}"#).unwrap());
    }
}
