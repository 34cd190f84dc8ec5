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
function quietly(read, fallback) {
  try { return read(); } catch { return fallback; }
}
export function describe(value) {
  switch (typeof value) {
    case "string": return value;
    case "undefined": return "undefined";
    case "symbol": return quietly(() => value.toString(), "Symbol()");
    case "bigint": return `${value}n`;
    case "number": case "boolean": return String(value);
  }
  if (value === null) return "null";
  const message = quietly(() => value.message, undefined);
  if (typeof message === "string") {
    const name = quietly(() => value.name, undefined);
    return typeof name === "string" && name !== "" ? `${name}: ${message}` : message;
  }
  const text = quietly(() => String(value), undefined);
  if (typeof text === "string" && !text.startsWith("[object ")) return text;
  const json = quietly(() => JSON.stringify(value), undefined);
  if (typeof json === "string") return json;
  return typeof text === "string" ? text : "a value that cannot be described";
}
export function isWellFormed(text) {
  return typeof text.isWellFormed === "function" ? text.isWellFormed() : !/\p{Cs}/u.test(text);
}
export class Deadline {
  constructor(controller, ms) {
    this.timedOut = false;
    const signal = controller.signal;
    this.stopped = new Promise((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    this.timer = setTimeout(() => {
      this.timedOut = !signal.aborted;
      controller.abort(new DOMException("the tool ran out of time", "TimeoutError"));
    }, ms);
  }
  clear() { clearTimeout(this.timer); }
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
    /// A JS string, so its length can be checked before it is copied into wasm memory.
    #[wasm_bindgen(catch, js_name = jsonOrThrow)]
    pub fn json_or_throw(value: &JsValue) -> Result<js_sys::JsString, JsValue>;
    /// A thrown value as text, never throwing itself (a `Proxy` whose traps throw, an `Error`
    /// whose `name` getter throws): an error's `name: message`, a string as it is, `null`,
    /// `undefined`, `Symbol(x)`, `12n`, else its string form or JSON.
    #[wasm_bindgen(js_name = describe)]
    pub fn describe(value: &JsValue) -> String;
    /// Whether a string holds no lone surrogate (`String.prototype.isWellFormed`).
    #[wasm_bindgen(js_name = isWellFormed)]
    pub fn is_well_formed(text: &js_sys::JsString) -> bool;

    /// A tool call's time limit: aborts the controller (a `TimeoutError`) when `ms` pass.
    pub type Deadline;
    /// Starts the timer.
    #[wasm_bindgen(constructor)]
    pub fn new(controller: &AbortController, ms: f64) -> Deadline;
    /// Whether the timer fired before anything else aborted the controller.
    #[wasm_bindgen(method, getter, js_name = timedOut)]
    pub fn timed_out(this: &Deadline) -> bool;
    /// Resolves when the controller's signal aborts (the deadline, or Stop).
    #[wasm_bindgen(method, getter)]
    pub fn stopped(this: &Deadline) -> Promise;
    /// Stops the timer.
    #[wasm_bindgen(method)]
    pub fn clear(this: &Deadline);
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
    /// `response.url` (empty for a `Response` built by hand, absent on a look-alike).
    #[wasm_bindgen(method, getter)]
    pub fn url(this: &Response) -> Option<String>;
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
