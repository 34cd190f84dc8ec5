//! Errors at the JS boundary: every error thrown to JavaScript (or a rejected promise) is an
//! [`Error`], which becomes a `ChatRuntimeError`, the class of `js/error.js` that the package's
//! entry also exports (so `e instanceof ChatRuntimeError` holds in apps).

use std::borrow::Cow;

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use super::string::js_string;
use crate::options::OptionsError;
use crate::protocol::decode::DecodeError;
use crate::session::SessionError;
use crate::tools::catalog::CatalogError;

#[wasm_bindgen(module = "/js/error.js")]
extern "C" {
    /// `class ChatRuntimeError extends Error` (js/error.js).
    #[wasm_bindgen(extends = js_sys::Error)]
    type ChatRuntimeError;

    /// `new ChatRuntimeError(code, message, details)`: `details` (an object or `undefined`) holds
    /// the extra fields. `message` is a JS string made by [`js_string`].
    #[wasm_bindgen(constructor)]
    fn new(code: &str, message: &JsValue, details: &JsValue) -> ChatRuntimeError;

    /// The same constructor over values already in JavaScript ([`promote`]).
    #[wasm_bindgen(constructor, js_class = ChatRuntimeError)]
    fn from_values(code: &JsValue, message: &JsValue, details: &JsValue) -> ChatRuntimeError;
}

/// A plain error object the core wrote (`{ code, message, status?, ... }`: `RunResult.error`, a
/// `run_finished` event's `error`) as a `ChatRuntimeError` with the same fields: the one error
/// shape apps classify with `instanceof`. Anything else is returned as it is.
fn promote(plain: &JsValue) -> JsValue {
    if !plain.is_object() {
        return plain.clone();
    }
    let get = |key: &str| Reflect::get(plain, &key.into()).unwrap_or_default();
    ChatRuntimeError::from_values(&get("code"), &get("message"), plain).into()
}

/// `value.error` made a `ChatRuntimeError` ([`promote`]) in place, with `cause` set first when
/// there is one (what the app's code threw): `RunResult.error` and a `run_finished` event's.
pub(crate) fn promote_member(value: &JsValue, cause: &JsValue) {
    let key = JsValue::from_str("error");
    let error = Reflect::get(value, &key).unwrap_or_default();
    if !cause.is_undefined() {
        let _ = Reflect::set(&error, &"cause".into(), cause);
    }
    let _ = Reflect::set(value, &key, &promote(&error));
}

/// An error thrown to JS (or a rejected promise): becomes a `ChatRuntimeError`. Rust code that
/// drives [`crate::ChatRuntime`] directly sees it as it is ([`Error::code`], [`Error::message`]).
#[derive(Debug)]
pub struct Error {
    code: &'static str,
    /// Most messages are constants: no copy of them is made.
    message: Cow<'static, str>,
    /// Extra fields, in the order they were added (`status`, `index`, `field`, `toolName`, ...).
    /// A string field is already the JS string it stands for ([`Field`]).
    fields: Vec<(&'static str, JsValue)>,
}

impl Error {
    /// An error with a stable `code` (`"run/busy"`, `"tools/fetch"`, ...) and a readable message.
    pub(crate) fn new(code: &'static str, message: impl Into<Cow<'static, str>>) -> Self {
        Self::make(code, message.into())
    }

    // `inline(never)` here and on `with_value`: one copy for the ~40 places errors are made.
    #[inline(never)]
    fn make(code: &'static str, message: Cow<'static, str>) -> Self {
        Error {
            code,
            message,
            fields: Vec::new(),
        }
    }

    /// The stable code (`options/invalid`, `run/busy`, ...).
    pub fn code(&self) -> &str {
        self.code
    }

    /// The message, in the JSON layer's internal form (`crate::json`: a lone surrogate it quotes
    /// is two private chars); the `ChatRuntimeError` gets the JS string it stands for.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Adds a field (`status`, `index`, `field`, ...).
    ///
    /// The keys every `Error` has (`name`, `message`, `stack`) and `code` cannot be fields: the
    /// class ignores them, and debug builds panic here. A tool's name is `toolName`. `cause`
    /// becomes the standard `Error` cause (what the app's code threw).
    pub(crate) fn with(self, key: &'static str, value: impl Field) -> Self {
        self.with_value(key, value.into_js())
    }

    #[inline(never)]
    fn with_value(mut self, key: &'static str, value: JsValue) -> Self {
        debug_assert!(
            !matches!(key, "name" | "code" | "message" | "stack"),
            "`{key}` is not a field a ChatRuntimeError can carry"
        );
        self.fields.push((key, value));
        self
    }
}

/// The value of an error's field. A string (in the JSON layer's internal form, as every string
/// of the crate) crosses through [`js_string`]: a lone surrogate in a tool's name, an interrupt's
/// id or a JSON pointer reaches the app as that code unit, never as the private form.
pub(crate) trait Field {
    /// The field as a JS value.
    fn into_js(self) -> JsValue;
}

impl Field for &str {
    fn into_js(self) -> JsValue {
        js_string(self)
    }
}

impl Field for String {
    fn into_js(self) -> JsValue {
        js_string(&self)
    }
}

impl Field for JsValue {
    fn into_js(self) -> JsValue {
        self
    }
}

impl Field for f64 {
    fn into_js(self) -> JsValue {
        self.into()
    }
}

impl Field for u16 {
    fn into_js(self) -> JsValue {
        self.into()
    }
}

impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        let details = if error.fields.is_empty() {
            JsValue::UNDEFINED
        } else {
            let details = Object::new();
            for (key, value) in &error.fields {
                // Setting a property on a fresh plain object cannot fail.
                let _ = Reflect::set(&details, &(*key).into(), value);
            }
            details.into()
        };
        ChatRuntimeError::new(error.code, &js_string(&error.message), &details).into()
    }
}

/// A decoding failure: `code` from [`DecodeError::code`]; `index`, `eventType` and `field` of
/// the offending event when known.
impl From<&DecodeError> for Error {
    fn from(error: &DecodeError) -> Self {
        let mut out = Error::new(error.code(), error.to_string());
        if let Some(index) = error.index() {
            out = out.with("index", index as f64);
        }
        if let Some(event_type) = error.event_type() {
            out = out.with("eventType", event_type);
        }
        if let Some(field) = error.field() {
            out = out.with("field", field);
        }
        out
    }
}

/// A catalog failure (`tools/fetch`, `tools/not-json`, ...), with the HTTP `status` when there is
/// one.
impl From<CatalogError> for Error {
    fn from(error: CatalogError) -> Self {
        let out = Error::new(error.code(), error.to_string());
        match error.status() {
            Some(status) => out.with("status", status),
            None => out,
        }
    }
}

/// A refused option: its code, message and `field`; a bad `toolNamePrefix` as the catalog says.
impl From<OptionsError> for Error {
    fn from(error: OptionsError) -> Self {
        match error {
            OptionsError::Field {
                code,
                field,
                message,
            } => Error::new(code, message).with("field", &*field),
            OptionsError::Prefix(error) => error.into(),
        }
    }
}

/// A session refusal (`run/busy`, `run/bad-request`, ...); a `resume` payload off its schema
/// (`input/invalid`) carries `interruptId` and `field`, the JSON pointer in the payload; an AG-UI
/// member given to a Coder chat's run carries `field`, its name.
impl From<SessionError> for Error {
    fn from(error: SessionError) -> Self {
        let out = Error::new(error.code(), error.to_string());
        match error {
            SessionError::BadResume {
                interrupt_id,
                violation,
                ..
            } => {
                let out = out.with("interruptId", interrupt_id);
                match violation {
                    Some(v) => out.with("field", v.pointer),
                    None => out,
                }
            }
            SessionError::NotForBackend { member, .. } => out.with("field", member),
            #[cfg(feature = "coder")]
            SessionError::NotForChat { .. } => out.with("field", "messages"),
            #[cfg(feature = "coder")]
            SessionError::CreateTooLarge(_) => out.with("field", "tools"),
            _ => out,
        }
    }
}
