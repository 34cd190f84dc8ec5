//! Conversion between `JsValue` and Rust values, in one place.
//!
//! - Values cross as JSON text through the engine's own `JSON.parse` / `JSON.stringify` and the
//!   crate's JSON layer (`FromJson` / `ToJson`): one crossing per value instead of one per field,
//!   numbers kept as written, lone surrogates kept. Options objects are read member by member
//!   ([`member`]): each member as a typed value, a wrong one named in the error. Functions and
//!   host objects (`fetch`, `storage`, a handler, a signal) are taken as they are ([`host`]).
//! - `serde` + `serde-wasm-bindgen` were measured for the options and left out: +34.6 KB gzip
//!   (README, "Dependencies").
//! - Strings are in the JSON layer's internal form inside the crate (`crate::json`: a lone
//!   surrogate is two private chars). A string that crosses to JavaScript other than inside JSON
//!   text (a URL, a header, a storage key, an error's message or field, a property name) crosses
//!   through [`js_string`], which hands over the JS string it stands for, lone surrogates
//!   restored; a JS string comes in through [`string_from_js`], exactly. Both live in
//!   `string.rs`, the bottom of the boundary, and are re-exported here. docs/architecture.md
//!   ("Strings at the boundary") lists every exit.

use js_sys::{JsString, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};

use super::error::Error;
use super::io::IoError;
use super::script::{describe, is_well_formed};
pub(crate) use super::string::{js_string, string_from_js};
use crate::json::Value;
use crate::protocol::wire::{FieldError, FromJson, ToJson};
use crate::thread_id::ThreadIdError;

/// The member `key` of an options object as a `T`, read through JSON (`undefined` and `null`
/// are `None`); a value of the wrong type is a `code` error naming the field
/// (`` `maxRounds`: expected an integer ``).
pub(crate) fn member<T: FromJson>(
    object: &JsValue,
    key: &str,
    code: &'static str,
) -> Result<Option<T>, Error> {
    let Some(value) = member_value(object, key, code)? else {
        return Ok(None);
    };
    T::from_json(value)
        .map(Some)
        .map_err(|e| wrong_member(code, key, e))
}

/// [`member_error`] for a value of the wrong shape, taking the error whole (its drop in this one
/// copy, not in each `T`'s).
#[inline(never)]
fn wrong_member(code: &'static str, key: &str, error: FieldError) -> Error {
    member_error(code, key, &error.message)
}

/// [`member`] as JSON, for every type at once (one copy of the conversion).
#[inline(never)]
fn member_value(object: &JsValue, key: &str, code: &'static str) -> Result<Option<Value>, Error> {
    let value = host(object, key);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    json_of(&value)
        .map(Some)
        .map_err(|e| member_error(code, key, e.message()))
}

/// The members `keys` of an object that are not `undefined`, as JSON (`null` kept): options the
/// core checks itself (a value JSON cannot encode, a BigInt, is refused with `code`).
pub(crate) fn json_members(
    object: &JsValue,
    keys: &[&str],
    code: &'static str,
) -> Result<crate::json::Map, Error> {
    let mut out = crate::json::Map::new();
    for &key in keys {
        let value = host(object, key);
        if value.is_undefined() {
            continue;
        }
        let json = if value.is_null() {
            Value::Null
        } else {
            json_of(&value).map_err(|e| member_error(code, key, e.message()))?
        };
        out.insert(key.to_owned(), json);
    }
    Ok(out)
}

/// A member of the wrong type: `` `key`: message ``, with `field`.
#[inline(never)]
fn member_error(code: &'static str, key: &str, message: &str) -> Error {
    Error::new(code, format!("`{key}`: {message}")).with("field", key)
}

/// The member `key` of an object as it is (a function, a host object); `undefined` when it is
/// absent or its getter throws.
pub(crate) fn host(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// `object[name](...args)` through `Reflect.get` and `Function.prototype.call`, both bound with
/// `catch`: for the methods of objects the app can hand over (a `Response`, its body, a reader)
/// where a getter or the method itself may throw. `Err`: what was thrown, or a `TypeError`-like
/// message when the member is not a function.
pub(crate) fn call_method(
    object: &JsValue,
    name: &str,
    args: &[&JsValue],
) -> Result<JsValue, JsValue> {
    let function = js_sys::Reflect::get(object, &name.into())?
        .dyn_into::<js_sys::Function>()
        .map_err(|_| JsValue::from(format!("{name} is not a function")))?;
    match args {
        [] => function.call0(object),
        [a] => function.call1(object, a),
        [a, b, ..] => function.call2(object, a, b),
    }
}

/// The bytes of a `string | Uint8Array` argument.
pub(crate) fn stream_input_bytes(input: &JsValue) -> Result<Vec<u8>, Error> {
    if let Some(text) = input.as_string() {
        return Ok(text.into_bytes());
    }
    if let Some(bytes) = input.dyn_ref::<Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    Err(Error::new(
        "decode/input",
        "expected a string or a Uint8Array",
    ))
}

/// A Rust value as a plain JS value (through JSON).
pub(crate) fn to_js<T: ToJson + ?Sized>(value: &T) -> Result<JsValue, Error> {
    parse(&value.to_json_string())
}

/// `JSON.parse(text)` of JSON the crate wrote.
pub(crate) fn parse(text: &str) -> Result<JsValue, Error> {
    super::string::parse_str(text).map_err(|e| Error::new("internal", describe(&e)))
}

/// A JS value as a Rust value (through `JSON.stringify`); a value of the wrong shape is an
/// `input/invalid` error naming what is wrong and where (`[0].id: missing field`).
pub(crate) fn from_js<T: FromJson>(value: &JsValue) -> Result<T, Error> {
    T::from_json(json_of(value)?).map_err(shape_error)
}

/// A JS value as JSON (through `JSON.stringify`), for every type of [`from_js`] at once. A number
/// JSON cannot hold (`NaN`, `±Infinity`) is refused, not read as the `null` `JSON.stringify`
/// writes for it (an option's default, or `timeoutMs: null`, no deadline).
#[inline(never)]
fn json_of(value: &JsValue) -> Result<Value, Error> {
    if let Some(n) = value.as_f64().filter(|n| !n.is_finite()) {
        let found = match () {
            () if n.is_nan() => "NaN",
            () if n > 0.0 => "Infinity",
            () => "-Infinity",
        };
        return Err(Error::new(
            "input/invalid",
            format!("expected a finite number, found {found}"),
        ));
    }
    let text: String = JSON::stringify(value)
        .map_err(|e| Error::new("input/invalid", describe(&e)))?
        .into();
    Value::parse(&text).map_err(|e| Error::new("input/invalid", e.to_string()))
}

/// A value of the wrong shape: `input/invalid`, naming what is wrong and where.
#[inline(never)]
fn shape_error(e: FieldError) -> Error {
    let message = if e.path.is_empty() {
        e.message
    } else {
        format!("{}: {}", e.path, e.message)
    };
    Error::new("input/invalid", message)
}

/// A thread id argument that keeps the rule of [`crate::thread_id`]; `Err` says why not. A string
/// with a lone surrogate is refused here, before it becomes a Rust string (where it would turn
/// into U+FFFD and share a thread with every other id cut inside the same emoji).
pub(crate) fn thread_id(value: &JsValue) -> Result<String, String> {
    let Some(text) = value.dyn_ref::<JsString>() else {
        return Err("a thread id must be a string".to_owned());
    };
    if !is_well_formed(text) {
        return Err(ThreadIdError::NotWellFormed.to_string());
    }
    let id = String::from(text);
    crate::thread_id::check(&id).map_err(|e| e.to_string())?;
    Ok(id)
}

/// A thread id for a method that changes the thread: refused with `input/invalid`.
pub(crate) fn thread_id_for_write(value: &JsValue) -> Result<String, Error> {
    thread_id(value).map_err(|m| Error::new("input/invalid", m).with("field", "threadId"))
}

/// The `string | null` thread of a toggle method: `null` (or `undefined`) is the default state of
/// new chats; an id that breaks the rule is refused with `input/invalid`.
pub(crate) fn toggles_thread(value: Option<JsValue>) -> Result<Option<String>, Error> {
    match value {
        Some(value) if !value.is_null() && !value.is_undefined() => {
            thread_id_for_write(&value).map(Some)
        }
        _ => Ok(None),
    }
}

/// An [`IoError`] in words: what was thrown, described, or what the answer lacked. The one place
/// an I/O failure becomes text (for the session's error, a tool's failure, a `ChatRuntimeError`).
pub(crate) fn io_message(error: &IoError) -> String {
    let text = match error {
        IoError::Thrown(value) | IoError::Failed(value) => return describe(value),
        IoError::NoFetch => "there is no fetch in this environment; pass the `fetch` option",
        IoError::NotAResponse => "fetch did not return a Response",
        IoError::BodyUsed => "the response body was already read (by the app's fetch?)",
        IoError::ChunkNotBytes => "the response body gave a chunk that is not a Uint8Array",
        IoError::SubarrayNotBytes => {
            "the response body gave a chunk whose subarray is not a Uint8Array"
        }
        IoError::SubarrayLength => {
            "the response body gave a chunk whose subarray has the wrong length"
        }
        IoError::NotABody { what, .. } => {
            return format!("prepareRequest must return the request body, an object, not {what}");
        }
        IoError::NotJson => "prepareRequest returned a value JSON cannot encode",
    };
    text.to_owned()
}
