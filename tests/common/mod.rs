//! Test helpers shared by the integration tests: a bridge between `serde_json` (whose `json!`
//! literals the tests are written with) and the crate's own JSON (`chat_runtime::json`).
//! The crate itself has no serde: values cross through their JSON text, so the bridge checks the
//! writer and the parser too. `whatwg::Whatwg` is the WHATWG URL parser the tests hand the core;
//! `session_host::Harness` drives a `Session` for the loop's tests.
#![allow(dead_code, unused_macros, unused_imports)]

pub mod js_json;
pub mod session_host;
pub mod whatwg;

use chat_runtime::json::Value;
use chat_runtime::protocol::event::Message;
use chat_runtime::protocol::wire::{FromJson, ToJson};

/// Anything the crate writes as JSON, as a `serde_json::Value`.
pub fn to_serde(value: impl ToJson) -> serde_json::Value {
    let text = value.to_json_string();
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the crate wrote invalid JSON ({e}): {text}"))
}

/// A `serde_json::Value` read as a crate type (panics with the field error).
pub fn from_serde<T: FromJson>(value: serde_json::Value) -> T {
    T::from_json(ours(value)).unwrap_or_else(|e| panic!("{}: {}", e.path, e.message))
}

/// A `serde_json::Value` as the crate's `Value`.
pub fn ours(value: serde_json::Value) -> Value {
    Value::parse(&value.to_string()).expect("serde_json writes valid JSON")
}

/// JSON text read as a crate type; the error is `path: message`.
pub fn parse_as<T: FromJson>(text: &str) -> Result<T, String> {
    let value = Value::parse(text).map_err(|e| e.to_string())?;
    T::from_json(value).map_err(|e| format!("{}: {}", e.path, e.message))
}

/// The `role: "tool"` messages among `messages`, as JSON.
pub fn tool_messages(messages: &[Message]) -> Vec<serde_json::Value> {
    messages
        .iter()
        .filter(|m| m.role() == "tool")
        .map(to_serde)
        .collect()
}

/// `serde_json::json!`, as a crate `Value`.
macro_rules! value {
    ($($json:tt)+) => {
        $crate::common::ours(serde_json::json!($($json)+))
    };
}
pub(crate) use value;
