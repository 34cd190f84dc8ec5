//! The one error type of the boundary: every error thrown to JS (or rejecting a promise) is an
//! [`Error`] turned into a `ChatRuntimeError` with a stable `code`.

use js_sys::Reflect;
use wasm_bindgen::JsValue;

use crate::protocol::decode::DecodeError;
use crate::session::SessionError;
use crate::tools::catalog::CatalogError;

/// An error thrown to JS (or a rejected promise): becomes a `ChatRuntimeError`. Rust code that
/// drives [`crate::ChatRuntime`] directly sees it as it is ([`Error::code`], [`Error::message`]).
#[derive(Debug)]
pub struct Error {
    code: String,
    message: String,
    fields: Vec<(&'static str, JsValue)>,
}

impl Error {
    /// An error with a stable `code` (`options/invalid`, `run/busy`, ...) and a message.
    pub(crate) fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
            fields: Vec::new(),
        }
    }

    /// The stable code (`options/invalid`, `run/busy`, ...).
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Adds a field (`status`, `index`, `field`, ...).
    pub(crate) fn with(mut self, key: &'static str, value: impl Into<JsValue>) -> Self {
        self.fields.push((key, value.into()));
        self
    }
}

impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        let object = js_sys::Error::new(&error.message);
        object.set_name("ChatRuntimeError");
        let _ = Reflect::set(&object, &"code".into(), &error.code.into());
        for (key, value) in error.fields {
            let _ = Reflect::set(&object, &key.into(), &value);
        }
        object.into()
    }
}

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

impl From<CatalogError> for Error {
    fn from(error: CatalogError) -> Self {
        let status = error.status();
        let out = Error::new(error.code(), error.to_string());
        match status {
            Some(status) => out.with("status", status),
            None => out,
        }
    }
}

impl From<SessionError> for Error {
    fn from(error: SessionError) -> Self {
        Error::new(error.code(), error.to_string())
    }
}
