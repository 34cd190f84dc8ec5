//! All conversion between `JsValue` and Rust values, in one place.
//!
//! Values cross the boundary as JSON text parsed by the engine's own `JSON.parse` /
//! `JSON.stringify`: one crossing per value instead of one per field, and the result is exactly
//! the wire JSON.

use js_sys::{Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};

use super::error::chat_runtime_error;
use crate::json::Value;
use crate::protocol::decode::DecodeOptions;
use crate::protocol::wire::{FromJson, ToJson};

/// The bytes of a `string | Uint8Array` argument.
pub(crate) fn stream_input_bytes(input: &JsValue) -> Result<Vec<u8>, JsValue> {
    if let Some(text) = input.as_string() {
        return Ok(text.into_bytes());
    }
    if let Some(bytes) = input.dyn_ref::<Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    Err(chat_runtime_error(
        "decode/input",
        "expected a string or a Uint8Array",
        &[],
    ))
}

/// Reads `{ verify?: boolean, maxEventBytes?: number }`.
pub(crate) fn options_from_js(value: Option<JsValue>) -> Result<DecodeOptions, JsValue> {
    let mut options = DecodeOptions::default();
    let Some(value) = value.filter(|v| !v.is_undefined() && !v.is_null()) else {
        return Ok(options);
    };
    let get = |key: &str| js_sys::Reflect::get(&value, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let verify = get("verify");
    if !verify.is_undefined() {
        options.verify = verify.as_bool().ok_or_else(|| {
            chat_runtime_error("decode/options", "`verify` must be a boolean", &[])
        })?;
    }
    let max = get("maxEventBytes");
    if !max.is_undefined() {
        match max.as_f64() {
            Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= usize::MAX as f64 => {
                options.max_event_bytes = n as usize
            }
            _ => {
                return Err(chat_runtime_error(
                    "decode/options",
                    "`maxEventBytes` must be a positive integer",
                    &[],
                ))
            }
        }
    }
    Ok(options)
}

/// A Rust value as a plain JS value (through JSON).
pub(crate) fn to_js<T: ToJson + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    JSON::parse(&value.to_json_string())
}

/// A JS value as a Rust value (through `JSON.stringify`); a value of the wrong shape is a
/// `ChatRuntimeError` `input/invalid` naming what is wrong and where (`[0].id: missing field`).
pub(crate) fn from_js<T: FromJson>(value: &JsValue) -> Result<T, JsValue> {
    let text: String = JSON::stringify(value)
        .map_err(|e| chat_runtime_error("input/invalid", &super::js::describe(&e), &[]))?
        .into();
    let json = Value::parse(&text)
        .map_err(|e| chat_runtime_error("input/invalid", &e.to_string(), &[]))?;
    T::from_json(json).map_err(|e| {
        let message = if e.path.is_empty() {
            e.message
        } else {
            format!("{}: {}", e.path, e.message)
        };
        chat_runtime_error("input/invalid", &message, &[])
    })
}
