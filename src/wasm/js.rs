//! Typed handles on the few Web APIs the runtime uses. Declared here rather than through
//! `web-sys` so that only what is called is bound, and so every call that can throw is `catch`.

use js_sys::{Function, Object, Promise, Uint8Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
export function dynamicImport(url) {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ url);
}
export function scheduleFrame(callback) {
  if (typeof requestAnimationFrame === "function" && typeof document !== "undefined" && document.visibilityState !== "hidden") {
    requestAnimationFrame(() => callback());
  } else {
    setTimeout(callback, 16);
  }
}
export function jsonOrThrow(value) {
  if (value === undefined) return "null";
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError("the value has no JSON form (a function or a symbol)");
  return text;
}
export function pageHref() {
  return typeof location !== "undefined" && typeof location.href === "string" ? location.href : undefined;
}
"#)]
extern "C" {
    /// `import(url)`, hidden from bundlers so tools load at run time.
    #[wasm_bindgen(js_name = dynamicImport)]
    pub fn dynamic_import(url: &str) -> Promise;
    /// Calls `callback` at the next animation frame (or in 16 ms where there are no frames).
    #[wasm_bindgen(js_name = scheduleFrame)]
    pub fn schedule_frame(callback: &Function);
    /// `JSON.stringify(value)`, `"null"` for `undefined`, throwing for values with no JSON form.
    #[wasm_bindgen(catch, js_name = jsonOrThrow)]
    pub fn json_or_throw(value: &JsValue) -> Result<String, JsValue>;
    /// `location.href`, when there is a page.
    #[wasm_bindgen(js_name = pageHref)]
    pub fn page_href() -> Option<String>;
}

#[wasm_bindgen]
extern "C" {
    /// `globalThis.setTimeout`.
    #[wasm_bindgen(js_name = setTimeout)]
    pub fn set_timeout(callback: &Function, ms: f64) -> JsValue;
    /// `globalThis.clearTimeout`.
    #[wasm_bindgen(js_name = clearTimeout)]
    pub fn clear_timeout(handle: &JsValue);
    /// `console.error`.
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    pub fn console_error(message: &str, detail: &JsValue);

    /// A `URL`.
    #[wasm_bindgen(js_name = URL)]
    pub type Url;
    /// `new URL(input, base)`.
    #[wasm_bindgen(constructor, catch, js_class = "URL")]
    pub fn new_with_base(input: &str, base: &str) -> Result<Url, JsValue>;
    /// `new URL(input)`.
    #[wasm_bindgen(constructor, catch, js_class = "URL")]
    pub fn new(input: &str) -> Result<Url, JsValue>;
    /// `url.href`.
    #[wasm_bindgen(method, getter)]
    pub fn href(this: &Url) -> String;
    /// `url.origin`.
    #[wasm_bindgen(method, getter)]
    pub fn origin(this: &Url) -> String;

    /// An `AbortController`.
    #[derive(Clone)]
    pub type AbortController;
    /// `new AbortController()`.
    #[wasm_bindgen(constructor)]
    pub fn new() -> AbortController;
    /// `controller.signal`.
    #[wasm_bindgen(method, getter)]
    pub fn signal(this: &AbortController) -> AbortSignal;
    /// `controller.abort(reason)`.
    #[wasm_bindgen(method)]
    pub fn abort(this: &AbortController, reason: &JsValue);

    /// An `AbortSignal`.
    #[derive(Clone)]
    pub type AbortSignal;
    /// `signal.aborted`.
    #[wasm_bindgen(method, getter)]
    pub fn aborted(this: &AbortSignal) -> bool;
    /// `signal.addEventListener("abort", listener, { once: true })`.
    #[wasm_bindgen(method, js_name = addEventListener)]
    pub fn add_event_listener(
        this: &AbortSignal,
        kind: &str,
        listener: &Function,
        options: &Object,
    );

    /// A `Response`.
    pub type Response;
    /// `response.status`.
    #[wasm_bindgen(method, getter)]
    pub fn status(this: &Response) -> u16;
    /// `response.headers`.
    #[wasm_bindgen(method, getter)]
    pub fn headers(this: &Response) -> Headers;
    /// `response.body`.
    #[wasm_bindgen(method, getter)]
    pub fn body(this: &Response) -> Option<ReadableStream>;
    /// `response.text()`.
    #[wasm_bindgen(method, catch)]
    pub fn text(this: &Response) -> Result<Promise, JsValue>;

    /// `Headers`.
    pub type Headers;
    /// `headers.get(name)`.
    #[wasm_bindgen(method)]
    pub fn get(this: &Headers, name: &str) -> Option<String>;

    /// A `ReadableStream` of bytes.
    pub type ReadableStream;
    /// `stream.getReader()`.
    #[wasm_bindgen(method, catch, js_name = getReader)]
    pub fn get_reader(this: &ReadableStream) -> Result<Reader, JsValue>;

    /// A `ReadableStreamDefaultReader`.
    #[derive(Clone)]
    pub type Reader;
    /// `reader.read()`.
    #[wasm_bindgen(method, catch)]
    pub fn read(this: &Reader) -> Result<Promise, JsValue>;
    /// `reader.cancel()`.
    #[wasm_bindgen(method, catch)]
    pub fn cancel(this: &Reader) -> Result<Promise, JsValue>;

    /// `{ done, value }` from `reader.read()`.
    pub type ReadResult;
    /// `result.done`.
    #[wasm_bindgen(method, getter)]
    pub fn done(this: &ReadResult) -> bool;
    /// `result.value`.
    #[wasm_bindgen(method, getter)]
    pub fn value(this: &ReadResult) -> Option<Uint8Array>;

    /// A `StorageEvent`.
    pub type StorageEvent;
    /// `event.key` (`null` when the storage was cleared).
    #[wasm_bindgen(method, getter)]
    pub fn key(this: &StorageEvent) -> Option<String>;
    /// `event.newValue`.
    #[wasm_bindgen(method, getter, js_name = newValue)]
    pub fn new_value(this: &StorageEvent) -> Option<String>;
}
