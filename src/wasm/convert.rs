//! All conversion between `JsValue` and Rust values, in one place.
//!
//! Events cross the boundary as one JSON text parsed by the engine's `JSON.parse`: one crossing for
//! the whole array instead of one per field, and the result is exactly the wire JSON.

use js_sys::{Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};

use super::error::chat_runtime_error;
use crate::protocol::decode::{DecodeOptions, Decoded};
use crate::protocol::event::Event;

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

/// `Event[]` as plain wire-shaped JS objects.
pub(crate) fn events_to_js(events: &[Event]) -> Result<JsValue, JsValue> {
    parse_json(&serde_json::to_string(events).map_err(internal)?)
}

/// `{ events, warnings, lastEventId }`.
pub(crate) fn report_to_js(decoded: &Decoded) -> Result<JsValue, JsValue> {
    parse_json(&serde_json::to_string(decoded).map_err(internal)?)
}

fn parse_json(text: &str) -> Result<JsValue, JsValue> {
    JSON::parse(text)
}

fn internal(error: serde_json::Error) -> JsValue {
    chat_runtime_error("internal", &error.to_string(), &[])
}
