//! The browser services the runtime uses that are not the app's code: the clock, timers and
//! frames, the page's URL, `URL` for the core's injected parser, the console, and
//! the window's `storage` events. All through `web-sys` / `js-sys`; none of this
//! can call back into the runtime while it runs.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortController, AbortSignal};

use super::script::describe;
use super::string::{js_string, string_from_js};
use crate::tools::url::{ParsedUrl, UrlParser};

/// The clock the session's deadlines run on, in milliseconds: `performance.now()`, which never
/// goes back (the wall clock may), or `Date.now()` where there is no `performance`.
pub(crate) fn now() -> u64 {
    performance_now().or_else(|_| date_now()).unwrap_or(0.0) as u64
}

/// `Date.now()`, the wall clock (interrupts' `expiresAt`, the id prefix); `None` when it threw.
pub(crate) fn wall_clock() -> Option<u64> {
    date_now().ok().map(|ms| ms as u64)
}

/// `Math.random()`, or `0` when it threw (a page that replaced it).
pub(crate) fn random() -> f64 {
    math_random().unwrap_or(0.0)
}

/// `controller.abort(reason)`; an `abort` a page replaced that throws changes nothing here (the
/// session has settled whatever the signal was for).
pub(crate) fn abort(controller: &AbortController, reason: &JsValue) {
    let _ = controller.unchecked_ref::<Controller>().abort_with(reason);
}

/// `controller.signal`.
pub(crate) fn signal(controller: &AbortController) -> Option<AbortSignal> {
    controller.unchecked_ref::<Controller>().signal_of().ok()
}

/// `signal.aborted`; a getter that throws reads as not aborted (the session is what decides
/// whether a call may still run).
pub(crate) fn is_aborted(signal: &AbortSignal) -> bool {
    signal
        .unchecked_ref::<Signal>()
        .aborted_of()
        .unwrap_or(false)
}

/// `Promise.race(values)`.
pub(crate) fn race(values: &js_sys::Array) -> Result<Promise, JsValue> {
    promise_race(values)
}

/// `Array.isArray(value)` (it throws for a revoked `Proxy`).
pub(crate) fn is_array(value: &JsValue) -> Result<bool, JsValue> {
    array_is_array(value)
}

/// `location.href`, when there is a page (or a worker's location). A serialized URL is ASCII, so
/// it is already in the JSON layer's internal form, like every part [`Url::get`] reads.
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
    /// A part of it: `href`, `origin`, `protocol`, ... (ASCII: the URL Standard's serializers
    /// percent-encode everything else).
    pub(crate) fn get(&self, part: &str) -> String {
        string_member(&self.0, part).unwrap_or_default()
    }
}

/// `new URL(input, base)`, over the JS strings the internal strings `input` and `base` stand for
/// ([`js_string`]): an `importPath` or `toolsUrl` holding a lone surrogate is read as the page's
/// own `new URL` or `import()` reads it (the `USVString` conversion makes it U+FFFD, percent-encoded
/// `%EF%BF%BD`), never as the private form (which would be `%F4%8F%BF%BF%F4%80...`).
pub(crate) fn parse_url(input: &str, base: Option<&str>) -> Result<Url, String> {
    let base = base.map_or(JsValue::UNDEFINED, js_string);
    NewUrl::new(&js_string(input), &base)
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
    /// `performance.now()`: one crossing (it throws where there is no `performance`).
    #[wasm_bindgen(catch, js_namespace = performance, js_name = now)]
    fn performance_now() -> Result<f64, JsValue>;

    /// `setTimeout(handler, ms)`: the timer's id.
    #[wasm_bindgen(catch, js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: i32) -> Result<JsValue, JsValue>;

    /// `clearTimeout(id)`.
    #[wasm_bindgen(catch, js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue) -> Result<(), JsValue>;

    /// `Date.now()`.
    #[wasm_bindgen(catch, js_namespace = Date, js_name = now)]
    fn date_now() -> Result<f64, JsValue>;

    /// `Math.random()`.
    #[wasm_bindgen(catch, js_namespace = Math, js_name = random)]
    fn math_random() -> Result<f64, JsValue>;

    /// `console.error(message, detail)`.
    #[wasm_bindgen(catch, js_namespace = console, js_name = error)]
    fn console_error_2(message: &str, detail: &JsValue) -> Result<(), JsValue>;

    /// `Promise.race(values)`.
    #[wasm_bindgen(catch, js_namespace = Promise, js_name = race)]
    fn promise_race(values: &js_sys::Array) -> Result<Promise, JsValue>;

    /// `Array.isArray(value)`.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn array_is_array(value: &JsValue) -> Result<bool, JsValue>;

    /// `AbortController`, for the bindings below that catch (web-sys's do not).
    #[wasm_bindgen(js_name = AbortController)]
    type Controller;
    /// `controller.abort(reason)`.
    #[wasm_bindgen(catch, method, js_class = AbortController, js_name = abort)]
    fn abort_with(this: &Controller, reason: &JsValue) -> Result<(), JsValue>;
    /// `controller.signal`.
    #[wasm_bindgen(catch, method, getter, js_class = AbortController, js_name = signal)]
    fn signal_of(this: &Controller) -> Result<AbortSignal, JsValue>;

    /// `AbortSignal`, for the binding below that catches.
    #[wasm_bindgen(js_name = AbortSignal)]
    type Signal;
    /// `signal.aborted`.
    #[wasm_bindgen(catch, method, getter, js_class = AbortSignal, js_name = aborted)]
    fn aborted_of(this: &Signal) -> Result<bool, JsValue>;

    /// `new URL(input, base)`; an `undefined` base is no base (one binding for both forms,
    /// where `web-sys` has two).
    #[wasm_bindgen(js_name = URL)]
    type NewUrl;
    #[wasm_bindgen(catch, constructor, js_class = URL)]
    fn new(input: &JsValue, base: &JsValue) -> Result<NewUrl, JsValue>;
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
    // A `Promise` the page replaced with one that never calls its executor: functions that do
    // nothing, never a panic (which would end the module for the page).
    let (resolve, reject) = slots.unwrap_or_else(|| {
        (
            once_function(Box::new(|| {})),
            once_function(Box::new(|| {})),
        )
    });
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
/// tab, a worker, Node). `false`: neither could be asked for (a page whose timers throw), the
/// callback will not run.
pub(crate) fn schedule_frame(callback: Callback) -> bool {
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
            return true;
        }
    }
    // No frames, or `requestAnimationFrame` threw: a timer that calls the same function.
    set_timeout(&function, 16).is_ok()
}

/// A one-shot timer: fires its callback after the delay; dropping it cancels it (and frees the
/// callback).
pub(crate) struct Timer {
    id: JsValue,
    _callback: JsCallback,
}

impl Drop for Timer {
    fn drop(&mut self) {
        let _ = clear_timeout(&self.id);
    }
}

/// The delay `setTimeout` takes: at most 2^31 - 1 ms.
fn delay(ms: u64) -> i32 {
    ms.min(i32::MAX as u64) as i32
}

/// Starts a [`Timer`]; `None` when `setTimeout` threw (the callback is dropped).
pub(crate) fn timer(ms: u64, callback: Callback) -> Option<Timer> {
    let callback = once_closure(callback);
    let id = set_timeout(callback.as_ref().unchecked_ref(), delay(ms)).ok()?;
    Some(Timer {
        id,
        _callback: callback,
    })
}

/// `console.error(message, detail)`; a `console.error` that throws (a test framework's) is
/// ignored.
pub(crate) fn console_error(message: &str, detail: &JsValue) {
    let _ = console_error_2(message, detail);
}

/// A `TimeoutError` `DOMException`: the reason a call's signal fires when its deadline passes.
pub(crate) fn timeout_reason() -> JsValue {
    web_sys::DomException::new_with_message_and_name("the tool ran out of time", "TimeoutError")
        .map_or(JsValue::UNDEFINED, JsValue::from)
}

/// The window's `storage` events (another tab changed `localStorage`), as `(key, newValue)`,
/// until dropped. `None` where there is no window (a worker, Node): only a window gets them. The
/// key is read exactly, into the internal form ([`string_from_js`]: another script's key may hold
/// a lone surrogate or U+10FFFF); the value is JSON text, read as it is.
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
            let read = |name: &str| Reflect::get(&event, &name.into()).unwrap_or_default();
            on_change(string_from_js(&read("key")), read("newValue").as_string());
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
