//! The browser's `localStorage`, or the app's own `storage` option (anything with `getItem` and
//! `setItem`).
//!
//! The app's storage is JavaScript that may call back into the runtime, so the driver calls it
//! only with no borrow held: the toggles work over a [`crate::tools::toggles::DeferredStore`]
//! (values supplied beforehand, writes queued) and the driver reads and writes a [`Store`] around
//! that. Every call is caught: private mode, a quota error or a sandboxed frame become a
//! [`StoreError`] that the toggles turn into a diagnostic, never an exception.
//!
//! Keys are internal strings (`crate::json`) handed over through [`js_string`] (a key is made of
//! a thread id, which can hold neither a lone surrogate nor U+10FFFF, so it never holds the
//! private form); values are JSON text the crate wrote, which never does either.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::tools::toggles::StoreError;
use crate::wasm::script::describe;
use crate::wasm::string::js_string;

#[wasm_bindgen]
extern "C" {
    /// A `Storage`, or the app's look-alike, called by method name with JS string arguments.
    type Storage;
    /// `getItem(key)`.
    #[wasm_bindgen(method, catch, js_name = getItem)]
    fn get_item(this: &Storage, key: &JsValue) -> Result<Option<String>, JsValue>;
    /// `setItem(key, value)`.
    #[wasm_bindgen(method, catch, js_name = setItem)]
    fn set_item(this: &Storage, key: &JsValue, value: &str) -> Result<(), JsValue>;
}

/// A `Storage` (or look-alike), or none (memory only).
pub(crate) struct Store {
    target: Option<Storage>,
}

impl Store {
    /// The app's `storage` option: `undefined` means `globalThis.localStorage` (reading that
    /// property itself throws in some sandboxed frames), `null` means memory only. An app's
    /// object is called by method name, like `localStorage`.
    pub(crate) fn from_option(option: &JsValue) -> Self {
        let target = if option.is_undefined() {
            Reflect::get(&js_sys::global(), &"localStorage".into())
                .ok()
                .filter(JsValue::is_object)
        } else if option.is_null() {
            None
        } else {
            Some(option.clone())
        };
        Self {
            target: target.map(JsCast::unchecked_into),
        }
    }

    /// `getItem(key)`; no storage at all holds nothing.
    pub(crate) fn get_item(&self, key: &str) -> Result<Option<String>, StoreError> {
        match &self.target {
            None => Ok(None),
            Some(storage) => storage
                .get_item(&js_string(key))
                .map_err(|e| StoreError(describe(&e))),
        }
    }

    /// `setItem(key, value)`. With no storage at all (`storage: null`), the toggles' own cache is
    /// the memory store.
    pub(crate) fn set_item(&self, key: &str, value: &str) -> Result<(), StoreError> {
        match &self.target {
            None => Ok(()),
            Some(storage) => storage
                .set_item(&js_string(key), value)
                .map_err(|e| StoreError(describe(&e))),
        }
    }
}
