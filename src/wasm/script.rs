//! The four things the boundary needs that are JavaScript the language, not a browser API, and
//! that neither `js-sys` nor `web-sys` can express: `import()` (a keyword, not a function), a
//! description of a thrown value that never throws itself, `String.prototype.isWellFormed`
//! (newer than the `js-sys` bindings; a loop of `charCodeAt` calls from Rust would cross the
//! boundary once per code unit), and putting the long strings of messages back into what
//! `JSON.parse` made of them (a walk from Rust would cross it once per member).

use js_sys::{Array, JsString, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
export function dynamicImport(url) {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ url);
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
export function fillLong(list, at, strings) {
  const fill = (o) => {
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (typeof v == "object") v && fill(v);
      else if (v[0] == "\0") o[k] = strings[+v.slice(1)];
    }
  };
  for (const i of at) fill(list[i]);
}
export function isWellFormed(text) {
  return typeof text.isWellFormed === "function" ? text.isWellFormed() : !/\p{Cs}/u.test(text);
}
"#)]
extern "C" {
    /// `import(url)`, hidden from bundlers so tools load at run time (`url` a JS string made by
    /// `string::js_string`).
    #[wasm_bindgen(js_name = dynamicImport)]
    pub fn dynamic_import(url: &JsValue) -> Promise;
    /// [`describe`], as the JS string.
    #[wasm_bindgen(js_name = describe)]
    fn describe_js(value: &JsValue) -> JsValue;
    /// Puts the long strings handed apart (`string::long_strings_apart`) back into the items
    /// of `list` at `at` (the items they were written in): each string value starting with
    /// U+0000 becomes `strings[N]`, N the number after it. With `catch`: it calls `Object.keys`
    /// and iterates, which a page can replace with something that throws.
    #[wasm_bindgen(catch, js_name = fillLong)]
    pub fn fill_long(list: &Array, at: &[u32], strings: &Array) -> Result<(), JsValue>;
    /// Whether a string holds no lone surrogate.
    #[wasm_bindgen(js_name = isWellFormed)]
    pub fn is_well_formed(text: &JsString) -> bool;
}

/// A thrown value as text, never throwing itself (a `Proxy` whose traps throw, an `Error` whose
/// `name` getter throws): an error's `name: message`, a string as it is, `null`, `undefined`,
/// `Symbol(x)`, `12n`, else its string form or JSON. In the JSON layer's internal form, read
/// exactly (`string::string_from_js`): a lone surrogate of a thrown message is kept, and a
/// literal U+10FFFF in it is never misread as the private form when the text is written out.
pub fn describe(value: &JsValue) -> String {
    super::string::string_from_js(&describe_js(value)).unwrap_or_default()
}
