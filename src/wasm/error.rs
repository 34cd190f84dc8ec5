//! Turns core errors into JavaScript `Error`s named `ChatRuntimeError` with a stable `code`.

use js_sys::{Error, Reflect};
use wasm_bindgen::JsValue;

use crate::protocol::decode::DecodeError;

/// Builds `Error { name: "ChatRuntimeError", code, message, ...extra }`.
pub(crate) fn chat_runtime_error(code: &str, message: &str, extra: &[(&str, JsValue)]) -> JsValue {
    let error = Error::new(message);
    error.set_name("ChatRuntimeError");
    let object: &JsValue = error.as_ref();
    // Setting a property on a fresh, non-frozen Error cannot fail.
    let _ = Reflect::set(object, &"code".into(), &code.into());
    for (key, value) in extra {
        let _ = Reflect::set(object, &(*key).into(), value);
    }
    error.into()
}

/// A decoding failure: `code` from [`DecodeError::code`], `index` of the event when known.
pub(crate) fn decode_error(error: &DecodeError) -> JsValue {
    let mut extra = Vec::new();
    if let Some(index) = error.index() {
        extra.push(("index", JsValue::from(index as f64)));
    }
    if let Some(event_type) = error.event_type() {
        extra.push(("eventType", JsValue::from(event_type)));
    }
    if let Some(field) = error.field() {
        extra.push(("field", JsValue::from(field)));
    }
    chat_runtime_error(error.code(), &error.to_string(), &extra)
}
