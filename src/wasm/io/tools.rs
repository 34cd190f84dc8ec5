//! Tool modules and handlers: importing a module, finding its export, calling a handler with
//! `(args, ctx)`, waiting for its value or its call's signal, and turning the value into a
//! [`ToolOutcome`].

use js_sys::{Array, Function, JsString, Promise, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use super::IoError;
use crate::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};
use crate::wasm::script::{describe, dynamic_import};
use crate::wasm::string::js_string;
use crate::wasm::string::parse_str;

/// Starts importing a module: the app's `importModule(url)`, or `import(url)`. `url` is the `href`
/// the browser's `URL` made of the `importPath` (ASCII, percent-encoded), handed over through
/// [`js_string`] all the same.
pub(crate) fn import(custom: Option<&Function>, url: &str) -> Result<Promise, IoError> {
    let url = js_string(url);
    match custom {
        Some(import) => import
            .call1(&JsValue::UNDEFINED, &url)
            .map(|p| Promise::resolve(&p))
            .map_err(IoError::Thrown),
        None => Ok(dynamic_import(&url)),
    }
}

/// The module's export named `entrypoint`, when it is a function (the property name through
/// [`js_string`]).
pub(crate) fn export(module: &JsValue, entrypoint: &str) -> Option<Function> {
    Reflect::get(module, &js_string(entrypoint))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
}

/// Waits for `promise` or for `signal` to fire, whichever comes first: the race to await, for
/// [`unless_aborted`]; `None` when the signal has fired already. Two plain functions around the
/// caller's await, not an `async fn` (one more state machine).
pub(crate) fn race_abort(promise: &Promise, signal: &AbortSignal) -> Option<JsFuture> {
    if crate::wasm::browser::is_aborted(signal) {
        return None;
    }
    // The one promise executor (`browser::new_promise`); the signal's `abort` resolves it.
    let (aborted, resolve, _) = crate::wasm::browser::new_promise();
    let _ = signal.add_event_listener_with_callback("abort", &resolve);
    let racers = Array::new();
    racers.push(promise);
    racers.push(&aborted);
    // A `Promise.race` that throws (a page replaced it): the promise alone; the session still
    // settles the call on Stop or at its deadline.
    let race = crate::wasm::browser::race(&racers).unwrap_or_else(|_| promise.clone());
    Some(JsFuture::from(race))
}

/// What [`race_abort`]'s race settled to; `None` when the signal fired (even if the promise
/// settled in the same turn: a stopped call goes no further).
pub(crate) fn unless_aborted(
    settled: Result<JsValue, JsValue>,
    signal: &AbortSignal,
) -> Option<Result<JsValue, JsValue>> {
    (!crate::wasm::browser::is_aborted(signal)).then_some(settled)
}

/// Calls `handler(args, ctx)`: `args` and `ctx` come as JSON text (the ids in `ctx` may hold lone
/// surrogates from the wire, which a plain string crossing would turn into U+FFFD), and
/// `ctx.signal` is the call's signal. The value, as a promise; `Err`: the handler threw.
pub(crate) fn call(
    handler: &Function,
    args: &str,
    ctx: &str,
    signal: &AbortSignal,
) -> Result<Promise, IoError> {
    // A `JSON.parse` that throws (a page replaced it) fails the call: the handler never gets
    // arguments other than the ones validated.
    let args = parse_str(args).map_err(IoError::Failed)?;
    let ctx = parse_str(ctx).map_err(IoError::Failed)?;
    let _ = Reflect::set(&ctx, &"signal".into(), signal);
    handler
        .call2(&JsValue::UNDEFINED, &args, &ctx)
        .map(|value| Promise::resolve(&value))
        .map_err(IoError::Thrown)
}

fn failure(code: FailureCode, message: String) -> ToolOutcome {
    ToolOutcome::Failed(ToolFailure::new(code, message))
}

/// A handler's value as JSON: strings stay strings, `undefined` is `null`, values JSON cannot
/// encode (a BigInt, a cycle, a function) are a failure rather than a silent `{}`. A result that
/// is certainly over `limit` bytes is refused before it is copied into wasm memory (the session
/// measures the exact size of the rest).
pub(crate) fn to_outcome(value: &JsValue, tool_name: &str, limit: usize) -> ToolOutcome {
    let too_large = |units: u32| {
        failure(
            FailureCode::ToolResultTooLarge,
            format!(
                "{tool_name} returned at least {units} bytes; the limit is {limit} (maxToolResultBytes)"
            ),
        )
    };
    // A UTF-16 code unit is at least one byte of UTF-8: a string longer than the limit in code
    // units is over it in bytes.
    if let Some(text) = value.dyn_ref::<JsString>() {
        if text.length() as usize > limit {
            return too_large(text.length());
        }
    }
    let text = if value.is_undefined() {
        Ok(JsString::from("null"))
    } else {
        JSON::stringify(value)
    };
    match text {
        // `JSON.stringify` of a function or a symbol is `undefined`, not a string.
        Ok(text) if text.is_undefined() => failure(
            FailureCode::ToolExecutionFailed,
            "the tool returned a value JSON cannot encode: a function or a symbol".to_owned(),
        ),
        // A string's JSON text is longer than its UTF-8 (quotes, escapes): strings were measured
        // above, the session measures them exactly.
        Ok(text) if !value.is_string() && text.length() as usize > limit => {
            too_large(text.length())
        }
        Ok(text) => match crate::json::Value::parse(&String::from(text)) {
            Ok(json) => ToolOutcome::Value(json),
            Err(e) => failure(
                FailureCode::ToolExecutionFailed,
                format!("the tool returned a value that is not valid JSON: {e}"),
            ),
        },
        Err(error) => failure(
            FailureCode::ToolExecutionFailed,
            format!(
                "the tool returned a value JSON cannot encode: {}",
                describe(&error)
            ),
        ),
    }
}
