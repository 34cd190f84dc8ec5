//! The browser's `localStorage` (or the app's own `storage` option).
//!
//! The app's storage is JavaScript that may call back into the runtime (a wrapper that logs the
//! tool list from its `getItem`), so it is never called while the runtime's state is borrowed:
//! the toggles work over a [`crate::tools::toggles::DeferredStore`] (values supplied beforehand,
//! writes queued) and the runtime reads and writes [`JsStore`] around that, with no borrow held.
//!
//! Every call is caught: private mode, a quota error or a sandboxed frame become a
//! [`StoreError`] that the toggles turn into a diagnostic, never an exception.

use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::tools::toggles::StoreError;

/// A `{ getItem, setItem, removeItem }` object, or none (memory only).
pub(crate) struct JsStore {
    /// The storage object; `None` when the app passed `storage: null` or there is none.
    target: Option<JsValue>,
}

impl JsStore {
    /// The app's `storage` option: `undefined` means `globalThis.localStorage` (reading that
    /// property itself throws in some sandboxed frames), `null` means memory only.
    pub(crate) fn from_option(option: &JsValue) -> Self {
        let target = if option.is_undefined() {
            Reflect::get(&js_sys::global(), &"localStorage".into())
                .ok()
                .filter(|v| v.is_object())
        } else if option.is_null() {
            None
        } else {
            Some(option.clone())
        };
        Self { target }
    }

    fn call(&self, method: &str, args: &[&JsValue]) -> Result<JsValue, StoreError> {
        let Some(target) = &self.target else {
            return Err(StoreError("no storage".to_owned()));
        };
        let function = Reflect::get(target, &method.into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
            .ok_or_else(|| StoreError(format!("storage has no {method} method")))?;
        let result = match args {
            [a] => function.call1(target, a),
            [a, b] => function.call2(target, a, b),
            _ => function.call0(target),
        };
        result.map_err(|e| StoreError(super::js::describe(&e)))
    }
}

impl JsStore {
    /// `getItem(key)`.
    pub(crate) fn get_item(&self, key: &str) -> Result<Option<String>, StoreError> {
        if self.target.is_none() {
            return Ok(None);
        }
        Ok(self.call("getItem", &[&key.into()])?.as_string())
    }

    /// `setItem(key, value)`. With no storage at all (`storage: null`), the toggles' own cache is
    /// the memory store.
    pub(crate) fn set_item(&self, key: &str, value: &str) -> Result<(), StoreError> {
        if self.target.is_none() {
            return Ok(());
        }
        self.call("setItem", &[&key.into(), &value.into()])
            .map(drop)
    }
}
