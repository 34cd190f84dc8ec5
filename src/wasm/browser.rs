//! The browser services the runtime uses that are not the app's code: the clock, timers and
//! frames, the page's URL, `URL` for the core's injected parser, the console, and
//! the window's `storage` events. All through `web-sys` / `js-sys`; none of this
//! can call back into the runtime while it runs.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::script::describe;
use crate::tools::url::{ParsedUrl, UrlParser};

/// The clock the session's deadlines run on, in milliseconds: `performance.now()`, which never
/// goes back (the wall clock may), or `Date.now()` where there is no `performance`.
pub(crate) fn now() -> u64 {
    performance_now().unwrap_or_else(|_| js_sys::Date::now()) as u64
}

/// `location.href`, when there is a page (or a worker's location).
pub(crate) fn page_href() -> Option<String> {
    let location = Reflect::get(&js_sys::global(), &"location".into()).ok()?;
    string_member(&location, "href")
}

/// `object[name]` when it is a string. The runtime reads a `URL`'s parts with it too: one
/// `Reflect.get` binding for all of them, not one binding per getter.
fn string_member(object: &JsValue, name: &str) -> Option<String> {
    Reflect::get(object, &name.into()).ok()?.as_string()
}

/// A parsed `URL`.
pub(crate) struct Url(JsValue);

impl Url {
    /// A part of it: `href`, `origin`, `protocol`, ...
    pub(crate) fn get(&self, part: &str) -> String {
        string_member(&self.0, part).unwrap_or_default()
    }
}

/// `new URL(input, base)`.
pub(crate) fn parse_url(input: &str, base: Option<&str>) -> Result<Url, String> {
    NewUrl::new(input, base)
        .map(|url| Url(url.into()))
        .map_err(|e| describe(&e))
}

/// The browser's own WHATWG URL parser for the core's import-path policy: `import()` parses with
/// it, so the policy sees exactly what will be loaded.
pub(crate) struct BrowserUrl;

impl UrlParser for BrowserUrl {
    fn parse(&self, input: &str, base: Option<&str>) -> Result<ParsedUrl, String> {
        let url = parse_url(input, base)?;
        Ok(ParsedUrl {
            href: url.get("href"),
            protocol: url.get("protocol"),
            username: url.get("username"),
            password: url.get("password"),
            origin: url.get("origin"),
        })
    }
}

#[wasm_bindgen]
extern "C" {
    /// `new URL(input, base)`; `None` passes `undefined`, which the constructor takes as no base
    /// (one binding for both forms, where `web-sys` has two).
    /// `performance.now()`: one crossing (it throws where there is no `performance`).
    #[wasm_bindgen(catch, js_namespace = performance, js_name = now)]
    fn performance_now() -> Result<f64, JsValue>;

    /// `setTimeout(handler, ms)`: the timer's id.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: i32) -> JsValue;

    /// `clearTimeout(id)`.
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);

    #[wasm_bindgen(js_name = URL)]
    type NewUrl;
    #[wasm_bindgen(catch, constructor, js_class = URL)]
    fn new(input: &str, base: Option<&str>) -> Result<NewUrl, JsValue>;
}

/// A new promise and the functions that settle it (`resolve`, `reject`): one executor closure
/// for `run` and `loadTools`.
pub(crate) fn new_promise() -> (Promise, Function, Function) {
    let mut slots = None;
    // `new_typed`, the constructor binding the promise executor stack closures go through.
    let promise: Promise = Promise::new_typed::<JsValue>(&mut |resolve, reject| {
        slots = Some((resolve.unchecked_into(), reject.unchecked_into()))
    })
    .unchecked_into();
    let (resolve, reject) = slots.expect("the Promise executor runs at once");
    (promise, resolve, reject)
}

/// A callback for a frame, a timer or an event that fires once. Boxed: every one of them is the
/// same closure type, so wasm-bindgen generates its glue once, not per caller.
pub(crate) type Callback = Box<dyn FnOnce()>;

/// The one closure type the runtime hands to JavaScript (frames, timers, the abort and storage
/// listeners, the function `subscribe` returns): `JsFuture`'s own callback type, an `FnMut`
/// taking one value and returning `Result<(), JsError>`, so wasm-bindgen compiles one invoke shim
/// and the JS glue one closure maker for all of them (`Closure::once` and `gloo-timers` used
/// `FnMut()`, a second kind). JavaScript never calls one of them while the runtime runs (they
/// fire from the event loop), so none is called again while it runs.
pub(crate) type JsCallback = Closure<dyn FnMut(JsValue) -> Result<(), wasm_bindgen::JsError>>;

/// `callback` as a [`JsCallback`] that runs it the first time it is called (later calls do
/// nothing); what it captured is dropped as it runs.
fn once_closure(callback: Callback) -> JsCallback {
    let mut callback = Some(callback);
    JsCallback::new(move |_| {
        if let Some(callback) = callback.take() {
            callback();
        }
        Ok(())
    })
}

/// `callback` as a JS function that runs it once (owned by JavaScript from now on).
pub(crate) fn once_function(callback: Callback) -> Function {
    once_closure(callback).into_js_value().unchecked_into()
}

/// Calls `callback` at the next animation frame, or in 16 ms where there are no frames (a hidden
/// tab, a worker, Node).
pub(crate) fn schedule_frame(callback: Callback) {
    let window = web_sys::window();
    // `document.visibilityState` through `Reflect.get` (bindings the runtime has anyway).
    let visible = window
        .as_ref()
        .and_then(|w| Reflect::get(w, &"document".into()).ok())
        .filter(JsValue::is_object)
        .is_some_and(|d| {
            let state = Reflect::get(&d, &"visibilityState".into()).ok();
            state.and_then(|s| s.as_string()).as_deref() != Some("hidden")
        });
    let function = once_function(callback);
    if let (Some(window), true) = (window, visible) {
        if window.request_animation_frame(&function).is_ok() {
            return;
        }
    }
    // No frames, or `requestAnimationFrame` threw: a timer that calls the same function.
    set_timeout(&function, 16);
}

/// A one-shot timer: fires its callback after the delay; dropping it cancels it (and frees the
/// callback).
pub(crate) struct Timer {
    id: JsValue,
    _callback: JsCallback,
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.id);
    }
}

/// The delay `setTimeout` takes: at most 2^31 - 1 ms.
fn delay(ms: u64) -> i32 {
    ms.min(i32::MAX as u64) as i32
}

/// Starts a [`Timer`].
pub(crate) fn timer(ms: u64, callback: Callback) -> Timer {
    let callback = once_closure(callback);
    let id = set_timeout(callback.as_ref().unchecked_ref(), delay(ms));
    Timer {
        id,
        _callback: callback,
    }
}

/// A one-shot timer that is never cancelled (JavaScript owns the callback).
pub(crate) fn timer_detached(ms: u64, callback: Callback) {
    set_timeout(&once_function(callback), delay(ms));
}

/// `console.error(message, detail)`.
pub(crate) fn console_error(message: &str, detail: &JsValue) {
    web_sys::console::error_2(&message.into(), detail);
}

/// A `TimeoutError` `DOMException`: the reason a call's signal fires when its deadline passes.
pub(crate) fn timeout_reason() -> JsValue {
    web_sys::DomException::new_with_message_and_name("the tool ran out of time", "TimeoutError")
        .map_or(JsValue::UNDEFINED, JsValue::from)
}

/// The window's `storage` events (another tab changed `localStorage`), as `(key, newValue)`,
/// until dropped. `None` where there is no window (a worker, Node): only a window gets them.
pub(crate) struct StorageEvents {
    target: web_sys::Window,
    listener: JsCallback,
}

impl StorageEvents {
    /// Starts listening.
    pub(crate) fn listen(
        on_change: impl Fn(Option<String>, Option<String>) + 'static,
    ) -> Option<Self> {
        let target = web_sys::window()?;
        // `key` and `newValue` through `Reflect.get` (a binding the runtime has anyway).
        let listener = JsCallback::new(move |event: JsValue| {
            let read = |name: &str| {
                Reflect::get(&event, &name.into())
                    .ok()
                    .and_then(|v| v.as_string())
            };
            on_change(read("key"), read("newValue"));
            Ok(())
        });
        target
            .add_event_listener_with_callback("storage", listener.as_ref().unchecked_ref())
            .ok()?;
        Some(Self { target, listener })
    }
}

impl Drop for StorageEvents {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback("storage", self.listener.as_ref().unchecked_ref());
    }
}
