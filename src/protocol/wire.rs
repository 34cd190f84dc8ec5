//! Typed data to and from JSON, by hand: [`FromJson`] / [`ToJson`] over [`crate::json::Value`].
//!
//! The wire structs declare their JSON names once ([`wire_struct!`](crate::wire_struct)); each
//! field is read with [`Fields::take`] and written with [`ObjWriter::field`]. Optional fields are
//! `Option`s: absent or `null` reads as `None`, and `None` is never written (AG-UI omits, never
//! nulls). An error names the JSON path of the value at fault (`outcome.interrupts[1].id`).

use std::borrow::Cow;

use crate::json::patch::PatchOp;
use crate::json::{write_str, write_value_str, Map, Value};
use crate::lean::text::push_i64;

/// Why a value could not be read: where (a JSON path relative to the value read) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// `messages[1].toolCallId`; empty for the value itself.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl FieldError {
    /// An error about the value itself.
    pub fn new(message: impl Into<String>) -> FieldError {
        FieldError {
            path: String::new(),
            message: message.into(),
        }
    }

    /// "expected a string, found a number".
    pub fn expected(what: &str, found: &Value) -> FieldError {
        FieldError::new(format!("expected {what}, found {}", found.kind()))
    }

    /// The same error, one object member further out.
    pub fn in_member(mut self, key: &str) -> FieldError {
        self.path = match self.path.as_bytes().first() {
            None => key.to_owned(),
            Some(b'[') => format!("{key}{}", self.path),
            Some(_) => format!("{key}.{}", self.path),
        };
        self
    }

    /// The same error, one array item further out.
    pub fn in_item(mut self, index: usize) -> FieldError {
        self.path = match self.path.as_bytes().first() {
            None | Some(b'[') => format!("[{index}]{}", self.path),
            Some(_) => format!("[{index}].{}", self.path),
        };
        self
    }
}

/// A type read from a JSON value.
pub trait FromJson: Sized {
    /// Reads the value.
    fn from_json(value: Value) -> Result<Self, FieldError>;

    /// The value of an absent member: `Some` for optional types, `None` when it is required.
    fn absent() -> Option<Self> {
        None
    }

    /// A value that stands in for one that could not be read, so that a reader can go on to the
    /// next field and report the first error once, at the end ([`Fields::get`], [`Fields::check`]).
    fn placeholder() -> Self;

    /// Reads the value as the next item of `out`, a vector being read (`read_items`). On an
    /// error `out` may hold a placeholder at the end: the vector is dropped with the error.
    fn push_into(value: Value, out: &mut Vec<Self>) -> Result<(), FieldError> {
        out.push(Self::from_json(value)?);
        Ok(())
    }
}

/// A type written as JSON.
pub trait ToJson {
    /// Appends the JSON text.
    fn write_json(&self, out: &mut String);

    /// Whether an object member holding this is left out (`None`).
    fn omitted(&self) -> bool {
        false
    }

    /// The JSON text.
    fn to_json_string(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }
}

/// The members of an object being read. Members are taken out as they are read, so nothing is
/// copied; unknown members are ignored.
///
/// A struct reader takes every field with [`Fields::get`], which keeps the first error and hands out
/// a placeholder, then asks [`Fields::check`] once: one error branch per struct instead of one per
/// field (each of which had to drop the fields read before it; 5.4 KB gzip less over the events and
/// messages, README "Numbers").
pub struct Fields<'a> {
    members: Vec<(Cow<'a, str>, Value)>,
    error: Option<FieldError>,
}

impl<'a> Fields<'a> {
    /// The members of a parsed top-level object (keys borrowed from the text).
    pub fn borrowed(members: Vec<(Cow<'a, str>, Value)>) -> Fields<'a> {
        Fields {
            members,
            error: None,
        }
    }

    /// The members of `value`, which must be an object.
    pub fn of(value: Value) -> Result<Fields<'static>, FieldError> {
        match value {
            Value::Object(map) => Ok(Fields {
                members: map.into_iter().map(|(k, v)| (Cow::Owned(k), v)).collect(),
                error: None,
            }),
            other => Err(FieldError::expected("an object", &other)),
        }
    }

    /// The member `key` as a `T`; absent reads as [`FromJson::absent`].
    // `inline(never)` here and on `take_or`, `take_value`, `ObjWriter::field`/`nullable`: one
    // copy per field type, shared by every struct's reader and writer (2.9 KB gzip less).
    #[inline(never)]
    pub fn take<T: FromJson>(&mut self, key: &str) -> Result<T, FieldError> {
        match self.take_value(key) {
            Some(value) => T::from_json(value).map_err(|e| e.in_member(key)),
            None => T::absent().ok_or_else(|| missing(key)),
        }
    }

    /// The member `key` as a `T`, like [`Fields::take`]; an error is kept for [`Fields::check`]
    /// (the first one wins) and a placeholder returned.
    #[inline(never)]
    pub fn get<T: FromJson>(&mut self, key: &str) -> T {
        let result = match self.take_value(key) {
            Some(value) => T::from_json(value),
            None => match T::absent() {
                Some(value) => return value,
                None => {
                    self.keep_missing(key);
                    return T::placeholder();
                }
            },
        };
        match result {
            Ok(value) => value,
            Err(e) => {
                self.keep_in(e, key);
                T::placeholder()
            }
        }
    }

    /// A required member is missing: the error is kept (as [`Fields::keep`]). Not generic, out
    /// of line: one copy for every field type's [`Fields::get`].
    #[inline(never)]
    fn keep_missing(&mut self, key: &str) {
        self.keep(missing(key));
    }

    /// `error`, met in the member `key`, is kept (as [`Fields::keep`]); one copy, as above.
    #[inline(never)]
    fn keep_in(&mut self, error: FieldError, key: &str) {
        self.keep(error.in_member(key));
    }

    /// The member `key` as a `T`, or `T::default()` when it is absent; errors as [`Fields::get`].
    #[inline(never)]
    pub fn get_or_default<T: FromJson + Default>(&mut self, key: &str) -> T {
        let result = self.take_or(key, T::default);
        self.settle(result)
    }

    fn settle<T: FromJson>(&mut self, result: Result<T, FieldError>) -> T {
        result.unwrap_or_else(|e| {
            self.keep(e);
            T::placeholder()
        })
    }

    /// Keeps `error` unless an earlier one is kept (one copy of the error's drop, not one per
    /// field type).
    #[inline(never)]
    fn keep(&mut self, error: FieldError) {
        self.error.get_or_insert(error);
    }

    /// The first error [`Fields::get`] met, if any.
    pub fn check(&mut self) -> Result<(), FieldError> {
        match self.error.take() {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    /// The member `key` as a `T`, or `default()` when it is absent.
    #[inline(never)]
    pub fn take_or<T: FromJson>(
        &mut self,
        key: &str,
        default: impl FnOnce() -> T,
    ) -> Result<T, FieldError> {
        match self.take_value(key) {
            Some(value) => T::from_json(value).map_err(|e| e.in_member(key)),
            None => Ok(default()),
        }
    }

    /// The raw member `key`, taken out.
    #[inline(never)]
    pub fn take_value(&mut self, key: &str) -> Option<Value> {
        self.members
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.take())
    }

    /// Puts the member `key: value` back at position `at` (clamped to the end).
    pub fn insert(&mut self, at: usize, key: &'static str, value: Value) {
        let at = at.min(self.members.len());
        self.members.insert(at, (Cow::Borrowed(key), value));
    }

    /// All members, as an owned object (for data kept whole).
    pub fn into_map(self) -> Map {
        Map::from_unique(
            self.members
                .into_iter()
                .map(|(k, v)| (k.into_owned(), v))
                .collect(),
        )
    }
}

fn missing(key: &str) -> FieldError {
    FieldError {
        path: key.to_owned(),
        message: format!("missing field `{key}`"),
    }
}

/// Writes an object member by member.
pub struct ObjWriter<'o> {
    out: &'o mut String,
    first: bool,
}

impl<'o> ObjWriter<'o> {
    /// Opens an object.
    pub fn new(out: &'o mut String) -> ObjWriter<'o> {
        out.push('{');
        ObjWriter { out, first: true }
    }

    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        write_str(self.out, key);
        self.out.push(':');
    }

    /// Writes `key: value` unless the value is omitted (`None`).
    #[inline(never)]
    pub fn field<T: ToJson + ?Sized>(&mut self, key: &str, value: &T) {
        if !value.omitted() {
            self.key(key);
            value.write_json(self.out);
        }
    }

    /// Writes `key: value`, or `key: null` for `None`.
    #[inline(never)]
    pub fn nullable<T: ToJson>(&mut self, key: &str, value: &Option<T>) {
        self.key(key);
        value.write_json(self.out);
    }

    /// Writes the members of `map` (after the ones written so far).
    pub fn members(&mut self, map: &Map) {
        for (k, v) in map.iter() {
            self.key(k);
            v.write_json(self.out);
        }
    }

    /// Closes the object.
    pub fn end(self) {
        self.out.push('}');
    }
}

impl FromJson for String {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        match value {
            Value::String(s) => Ok(s),
            other => Err(FieldError::expected("a string", &other)),
        }
    }

    fn placeholder() -> Self {
        String::new()
    }
}

impl ToJson for String {
    fn write_json(&self, out: &mut String) {
        write_value_str(out, self);
    }
}

impl ToJson for str {
    fn write_json(&self, out: &mut String) {
        write_value_str(out, self);
    }
}

impl FromJson for bool {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        value
            .as_bool()
            .ok_or_else(|| FieldError::expected("a boolean", &value))
    }

    fn placeholder() -> Self {
        false
    }
}

impl ToJson for bool {
    fn write_json(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

impl FromJson for i64 {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        value
            .as_i64()
            .ok_or_else(|| FieldError::expected("an integer", &value))
    }

    fn placeholder() -> Self {
        0
    }
}

impl ToJson for i64 {
    fn write_json(&self, out: &mut String) {
        push_i64(out, *self);
    }
}

macro_rules! small_unsigned {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn write_json(&self, out: &mut String) {
                push_i64(out, *self as i64);
            }
        }
    )*};
}
small_unsigned!(u16, u32, usize);

impl FromJson for u64 {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        value
            .as_u64()
            .ok_or_else(|| FieldError::expected("a non-negative integer", &value))
    }

    fn placeholder() -> Self {
        0
    }
}

impl ToJson for u64 {
    fn write_json(&self, out: &mut String) {
        Value::from(*self).write_json(out);
    }
}

impl FromJson for Value {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        Ok(value)
    }

    fn placeholder() -> Self {
        Value::Null
    }
}

impl ToJson for Value {
    fn write_json(&self, out: &mut String) {
        Value::write_json(self, out);
    }
}

impl FromJson for Map {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        match value {
            Value::Object(map) => Ok(map),
            other => Err(FieldError::expected("an object", &other)),
        }
    }

    fn placeholder() -> Self {
        Map::new()
    }
}

impl ToJson for Map {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.members(self);
        w.end();
    }
}

impl<T: FromJson> FromJson for Option<T> {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        match value {
            Value::Null => Ok(None),
            value => T::from_json(value).map(Some),
        }
    }

    fn absent() -> Option<Self> {
        Some(None)
    }

    fn placeholder() -> Self {
        None
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, out: &mut String) {
        match self {
            Some(value) => value.write_json(out),
            None => out.push_str("null"),
        }
    }

    fn omitted(&self) -> bool {
        self.is_none()
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }

    fn omitted(&self) -> bool {
        (**self).omitted()
    }
}

impl<T: FromJson> FromJson for Box<T> {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        T::from_json(value).map(Box::new)
    }

    fn placeholder() -> Self {
        Box::new(T::placeholder())
    }
}

impl<T: ToJson> ToJson for Box<T> {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        let mut out = Vec::new();
        read_items(value, &mut out)?;
        Ok(out)
    }

    fn placeholder() -> Self {
        Vec::new()
    }
}

/// A vector being read item by item: the per-type half of [`read_items`].
trait Items {
    fn reserve_items(&mut self, n: usize);
    fn push_json(&mut self, item: Value) -> Result<(), FieldError>;
}

impl<T: FromJson> Items for Vec<T> {
    fn reserve_items(&mut self, n: usize) {
        self.reserve_exact(n);
    }

    fn push_json(&mut self, item: Value) -> Result<(), FieldError> {
        T::push_into(item, self)
    }
}

/// Reads a JSON array into `out`, once for every item type: the loop, the item's place in the
/// error and the drop of the items left after an error are compiled once, and only
/// [`Items::push_json`] per type (a loop rather than `collect::<Result<_, _>>()`, whose adapter
/// was compiled per item type too).
#[inline(never)]
fn read_items(value: Value, out: &mut dyn Items) -> Result<(), FieldError> {
    match value {
        Value::Array(items) => {
            out.reserve_items(items.len());
            for (i, item) in items.into_iter().enumerate() {
                out.push_json(item).map_err(|e| e.in_item(i))?;
            }
            Ok(())
        }
        other => Err(FieldError::expected("an array", &other)),
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, out: &mut String) {
        write_items(self.len(), &SliceItems(self), out);
    }
}

/// The items of a slice, by position: the per-type half of [`write_items`].
trait WriteItem {
    fn write_item(&self, i: usize, out: &mut String);
}

struct SliceItems<'a, T>(&'a [T]);

impl<T: ToJson> WriteItem for SliceItems<'_, T> {
    fn write_item(&self, i: usize, out: &mut String) {
        self.0[i].write_json(out);
    }
}

/// Writes a JSON array of `len` items, once for every item type.
#[inline(never)]
fn write_items(len: usize, items: &dyn WriteItem, out: &mut String) {
    out.push('[');
    for i in 0..len {
        if i > 0 {
            out.push(',');
        }
        items.write_item(i, out);
    }
    out.push(']');
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
}

impl FromJson for PatchOp {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        PatchOp::from_json(value).map_err(|(key, message)| {
            let e = FieldError::new(message);
            if key.is_empty() {
                e
            } else {
                e.in_member(key)
            }
        })
    }

    fn placeholder() -> Self {
        PatchOp::Remove {
            path: String::new(),
        }
    }
}

impl ToJson for PatchOp {
    fn write_json(&self, out: &mut String) {
        PatchOp::write_json(self, out);
    }
}

/// Declares a struct read from and written as a JSON object, each field with its JSON name:
/// `field "jsonName": Type` (optional: `Option<_>`), or `field "jsonName" default: Type` for a
/// field always written that reads as `Default::default()` when absent. Derives `Debug`, `Clone` and
/// `PartialEq`; further attributes (docs, derives) pass through.
///
/// A trailing `rare Rare { field "jsonName": Type, ... }` names optional fields that most values
/// lack: they live in `Rare`, a struct of `Option`s declared apart (with `Default` and
/// `boxed(self) -> Option<Box<Rare>>`, `None` when all its fields are), held as one
/// `rare: Option<Box<Rare>>`: 4 bytes in wasm32 where each `Option<String>` or `Option<Map>` is
/// 12. Several structs share one `Rare`, each reading and writing only the fields it lists, after
/// its other fields, in the list's order; `value.field()` reads one (`Option<&Type>`) and
/// `value.rare_mut()` makes room to set them.
#[macro_export]
#[doc(hidden)]
macro_rules! wire_struct {
    (
        $(#[$attr:meta])* $vis:vis struct $name:ident {
            $( $(#[$fattr:meta])* $field:ident $wire:literal $($default:ident)? : $ty:ty ),* $(,)?
        }
        $(
            rare $rare:ident {
                $( $(#[$rattr:meta])* $rfield:ident $rwire:literal : $rty:ty ),* $(,)?
            }
        )?
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name {
            $( $(#[$fattr])* pub $field: $ty, )*
            $(
                /// The optional fields most values lack, boxed together; `None` when all of
                /// them are.
                pub rare: Option<Box<$rare>>,
            )?
        }

        $(
            impl $name {
                $(
                    $(#[$rattr])*
                    pub fn $rfield(&self) -> Option<&$rty> {
                        self.rare.as_ref().and_then(|rare| rare.$rfield.as_ref())
                    }
                )*

                /// The rare fields, to set: boxed now if they were all absent.
                pub fn rare_mut(&mut self) -> &mut $rare {
                    $rare::make(&mut self.rare)
                }
            }
        )?

        impl $name {
            /// The JSON name and the Rust type of each field, for the TypeScript declarations.
            #[cfg(test)]
            #[allow(dead_code)] // the TypeScript test reads the events' and a few structs'
            pub(crate) const WIRE_FIELDS: &[(&str, &str)] = &[
                $(($wire, stringify!($ty)),)*
                $($(($rwire, concat!("Option<", stringify!($rty), ">")),)*)?
            ];

            /// Reads the fields from an object's members.
            pub(crate) fn read(
                fields: &mut $crate::protocol::wire::Fields<'_>,
            ) -> Result<Self, $crate::protocol::wire::FieldError> {
                let value = $name::read_unchecked(fields);
                fields.check()?;
                Ok(value)
            }

            /// Reads the fields like [`Self::read`], without asking [`Fields::check`]: a
            /// placeholder stands where a field could not be read, and the caller checks. The
            /// table readers of the events and messages check once for all of them, so their 46
            /// readers have no error path of their own (each had one, with a copy of the value
            /// and a drop of its fields).
            ///
            /// [`Fields::check`]: $crate::protocol::wire::Fields::check
            #[allow(dead_code)] // used by the tables' payloads only
            pub(crate) fn read_unchecked(fields: &mut $crate::protocol::wire::Fields<'_>) -> Self {
                $name {
                    $( $field: $crate::wire_struct!(@take fields $wire $($default)?), )*
                    $(
                        rare: $rare {
                            $( $rfield: fields.get($rwire), )*
                            ..$rare::default()
                        }
                        .boxed(),
                    )?
                }
            }

            /// Writes the fields as members of an open object.
            pub(crate) fn write_fields(&self, w: &mut $crate::protocol::wire::ObjWriter<'_>) {
                $( w.field($wire, &self.$field); )*
                $(
                    if let Some(rare) = &self.rare {
                        let rare: &$rare = rare;
                        $( w.field($rwire, &rare.$rfield); )*
                    }
                )?
            }
        }

        impl $crate::protocol::wire::FromJson for $name {
            fn from_json(
                value: $crate::json::Value,
            ) -> Result<Self, $crate::protocol::wire::FieldError> {
                $name::read(&mut $crate::protocol::wire::Fields::of(value)?)
            }

            fn placeholder() -> Self {
                $name {
                    $( $field: $crate::protocol::wire::FromJson::placeholder(), )*
                    $( rare: None::<Box<$rare>>, )?
                }
            }

            /// Read in place, checked after: no error branch of its own, no copy of the value
            /// out of a `Result` (the vector and the item are dropped with the error).
            fn push_into(
                value: $crate::json::Value,
                out: &mut Vec<Self>,
            ) -> Result<(), $crate::protocol::wire::FieldError> {
                let mut fields = $crate::protocol::wire::Fields::of(value)?;
                out.push($name::read_unchecked(&mut fields));
                fields.check()
            }
        }

        impl $crate::protocol::wire::ToJson for $name {
            fn write_json(&self, out: &mut String) {
                let mut w = $crate::protocol::wire::ObjWriter::new(out);
                self.write_fields(&mut w);
                w.end();
            }
        }
    };
    (@take $fields:ident $wire:literal) => { $fields.get($wire) };
    (@take $fields:ident $wire:literal default) => { $fields.get_or_default($wire) };
}

/// Declares an enum of string literals (`Developer = "developer"`), read and written as the string.
#[macro_export]
#[doc(hidden)]
macro_rules! wire_literals {
    (
        $(#[$attr:meta])* $vis:vis enum $name:ident {
            $( $(#[$vattr:meta])* $variant:ident = $wire:literal ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $( $(#[$vattr])* $variant, )*
        }

        impl $name {
            /// The wire strings, for the TypeScript declarations.
            #[cfg(test)]
            #[allow(dead_code)]
            pub(crate) const WIRE_NAMES: &[&str] = &[$($wire),*];

            /// The wire string.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $wire, )*
                }
            }

            /// The literal named `text`, if one is (the reader's fast path; `FromJson` names
            /// the error).
            #[allow(dead_code)] // read by the fast path of the roles only
            pub(crate) fn from_name(text: &str) -> Option<Self> {
                const NAMES: &[&str] = &[$($wire),*];
                const ALL: &[$name] = &[$($name::$variant),*];
                $crate::protocol::wire::name_index(NAMES, text).map(|at| ALL[at])
            }
        }

        impl $crate::protocol::wire::FromJson for $name {
            fn from_json(
                value: $crate::json::Value,
            ) -> Result<Self, $crate::protocol::wire::FieldError> {
                const NAMES: &[&str] = &[$($wire),*];
                const ALL: &[$name] = &[$($name::$variant),*];
                $crate::protocol::wire::literal_index(&value, NAMES).map(|at| ALL[at])
            }

            fn placeholder() -> Self {
                const ALL: &[$name] = &[$($name::$variant),*];
                ALL[0]
            }
        }

        impl $crate::protocol::wire::ToJson for $name {
            fn write_json(&self, out: &mut String) {
                $crate::json::write_str(out, self.as_str());
            }
        }
    };
}

/// Where the string `value` is in `names`, for the `FromJson` of a [`wire_literals!`] enum: one
/// out-of-line search and its two errors for every enum, where a `match` per enum compiled to
/// inline comparisons and a `format!` each.
#[doc(hidden)]
#[inline(never)]
pub fn literal_index(value: &Value, names: &[&str]) -> Result<usize, FieldError> {
    let Some(text) = value.as_str() else {
        return Err(FieldError::expected("a string", value));
    };
    name_index(names, text).ok_or_else(|| {
        FieldError::new(format!(
            "unknown value `{text}`, expected {}",
            one_of(names)
        ))
    })
}

/// Where `text` is in `names`: the search of [`literal_index`] and of a literal's `from_name`.
#[doc(hidden)]
pub fn name_index(names: &[&str], text: &str) -> Option<usize> {
    names.iter().position(|name| *name == text)
}

/// "`a`, `b` or `c`".
pub fn one_of(names: &[&str]) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == names.len() { " or " } else { ", " });
        }
        out.push('`');
        out.push_str(name);
        out.push('`');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::event::{TextMessageRole, ToolRole};

    #[test]
    fn wire_literals_read_and_refuse() {
        let read = |v: Value| TextMessageRole::from_json(v);
        assert_eq!(
            read(Value::String("user".into())),
            Ok(TextMessageRole::User)
        );
        assert_eq!(
            read(Value::String("developer".into())),
            Ok(TextMessageRole::Developer)
        );
        let error = read(Value::String("robot".into())).unwrap_err();
        assert_eq!(
            error.message,
            "unknown value `robot`, expected `developer`, `system`, `assistant` or `user`"
        );
        assert_eq!(error.path, "");
        let error = read(Value::Bool(true)).unwrap_err();
        assert_eq!(error.message, "expected a string, found a boolean");
        let error = ToolRole::from_json(Value::String("Tool".into())).unwrap_err();
        assert_eq!(error.message, "unknown value `Tool`, expected `tool`");
    }

    #[test]
    fn paths_nest() {
        let e = FieldError::new("bad")
            .in_member("id")
            .in_item(2)
            .in_member("interrupts");
        assert_eq!(e.path, "interrupts[2].id");
        let e = FieldError::new("bad").in_item(0).in_item(1).in_member("a");
        assert_eq!(e.path, "a[1][0]");
        assert_eq!(one_of(&["x", "y", "z"]), "`x`, `y` or `z`");
    }
}
