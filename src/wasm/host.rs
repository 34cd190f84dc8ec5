//! Running browser tools: import the module once per URL, call the export with
//! `(args, { toolCallId, toolName, threadId, runId, signal })`, bound by the tool's timeout, and
//! turn whatever happens into a [`ToolOutcome`]. Also the `RegExp`-backed schema `pattern`s.

use crate::hash::HashMap;
use std::cell::RefCell;

use js_sys::{Function, Object, Promise, Reflect, RegExp, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};

use super::js::{self, AbortController, AbortSignal};
use super::runtime::{drive, mark_dirty, Shared};
use super::storage::describe;
use crate::session::ToolCallJob;
use crate::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};
use crate::tools::schema::PatternMatcher;
use crate::tools::ToolHandler;

/// Starts a tool call; its outcome goes back into the session when it settles.
pub(crate) fn start(rc: &Shared, job: ToolCallJob) {
    let controller = AbortController::new();
    if let Some(running) = rc.borrow_mut().running.get_mut(&job.thread_id) {
        running.tools.push(controller.clone());
    }
    let rc = rc.clone();
    spawn_local(async move {
        let outcome = call(&rc, &job, &controller).await;
        rc.borrow_mut()
            .session
            .handle_tool_result(&job.thread_id, &job.tool_call_id, outcome);
        mark_dirty(&rc, &job.thread_id);
        drive(&rc);
    });
}

fn failure(code: FailureCode, message: String) -> ToolOutcome {
    ToolOutcome::Failed(ToolFailure::new(code, message))
}

/// The tool's function: a registered handler, or the module's export.
async fn resolve_handler(rc: &Shared, job: &ToolCallJob) -> Result<Function, ToolOutcome> {
    let name = &job.tool.name;
    match &job.tool.handler {
        ToolHandler::Registered => rc.borrow().handlers.get(name).cloned().ok_or_else(|| {
            failure(
                FailureCode::ToolLoadFailed,
                format!("{name} has no registered handler"),
            )
        }),
        ToolHandler::Module { url, entrypoint } => {
            let module = import(rc, url).await.map_err(|e| {
                failure(
                    FailureCode::ToolLoadFailed,
                    format!("could not import {url}: {e}"),
                )
            })?;
            Reflect::get(&module, &entrypoint.into())
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok())
                .ok_or_else(|| {
                    failure(
                        FailureCode::ToolLoadFailed,
                        format!("{url} has no exported function named {entrypoint}"),
                    )
                })
        }
    }
}

/// Imports a module once per URL (`importModule` or dynamic `import()`); a failed import is
/// forgotten so a later call can try again.
async fn import(rc: &Shared, url: &str) -> Result<JsValue, String> {
    let cached = rc.borrow().modules.get(url).cloned();
    let promise = match cached {
        Some(promise) => promise,
        None => {
            let custom = rc.borrow().options.import_module.clone();
            let promise = match custom {
                Some(import) => import
                    .call1(&JsValue::UNDEFINED, &url.into())
                    .map(|p| Promise::resolve(&p))
                    .map_err(|e| describe(&e))?,
                None => js::dynamic_import(url),
            };
            rc.borrow_mut()
                .modules
                .insert(url.to_owned(), promise.clone());
            promise
        }
    };
    match JsFuture::from(promise).await {
        Ok(module) if module.is_object() => Ok(module),
        Ok(_) => {
            rc.borrow_mut().modules.remove(url);
            Err("importModule did not give a module object".to_owned())
        }
        Err(error) => {
            rc.borrow_mut().modules.remove(url);
            Err(describe(&error))
        }
    }
}

async fn call(rc: &Shared, job: &ToolCallJob, controller: &AbortController) -> ToolOutcome {
    let handler = match resolve_handler(rc, job).await {
        Ok(handler) => handler,
        Err(outcome) => return outcome,
    };
    let args = JSON::parse(&job.args.to_string()).unwrap_or(JsValue::NULL);
    let ctx = Object::new();
    for (key, value) in [
        ("toolCallId", JsValue::from(&job.tool_call_id)),
        ("toolName", JsValue::from(&job.tool.name)),
        ("threadId", JsValue::from(&job.thread_id)),
        ("runId", JsValue::from(&job.run_id)),
        ("signal", controller.signal().into()),
    ] {
        let _ = Reflect::set(&ctx, &key.into(), &value);
    }
    let returned = match handler.call2(&JsValue::UNDEFINED, &args, &ctx) {
        Ok(value) => value,
        Err(error) => {
            return failure(FailureCode::ToolExecutionFailed, describe(&error));
        }
    };
    // Race the handler against its time limit.
    let timed_out = Object::new();
    let marker = timed_out.clone();
    let mut timer = JsValue::UNDEFINED;
    let limit = Promise::new(&mut |resolve, _| {
        let marker = marker.clone();
        let fire = Closure::once_into_js(move || {
            let _ = resolve.call1(&JsValue::UNDEFINED, &marker);
        });
        timer = js::set_timeout(fire.unchecked_ref(), f64::from(job.timeout_ms));
    });
    let race = Promise::race(&js_sys::Array::of2(&Promise::resolve(&returned), &limit));
    let settled = JsFuture::from(race).await;
    js::clear_timeout(&timer);
    match settled {
        Ok(value) if value == JsValue::from(timed_out) => {
            let signal: AbortSignal = controller.signal();
            if !signal.aborted() {
                controller.abort(&super::error::chat_runtime_error(
                    "tool/timeout",
                    "the tool ran out of time",
                    &[],
                ));
            }
            failure(
                FailureCode::Timeout,
                format!("{} took longer than {} ms", job.tool.name, job.timeout_ms),
            )
        }
        Ok(value) => to_outcome(&value),
        Err(error) => failure(FailureCode::ToolExecutionFailed, describe(&error)),
    }
}

/// A handler's value as JSON: strings stay strings, `undefined` is `null`, values JSON cannot
/// encode (a BigInt, a cycle, a function) are a failure rather than a silent `{}`.
fn to_outcome(value: &JsValue) -> ToolOutcome {
    if let Some(text) = value.as_string() {
        return ToolOutcome::Value(crate::json::Value::String(text));
    }
    match js::json_or_throw(value) {
        Ok(text) => match crate::json::Value::parse(&text) {
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

/// JSON Schema `pattern` with the browser's own `RegExp` (`u` flag), compiled once per pattern.
#[derive(Default)]
pub(crate) struct RegExpMatcher {
    cache: RefCell<HashMap<String, Result<RegExp, String>>>,
}

impl PatternMatcher for RegExpMatcher {
    fn is_match(&self, pattern: &str, text: &str) -> Result<bool, String> {
        let mut cache = self.cache.borrow_mut();
        let compiled = cache.entry(pattern.to_owned()).or_insert_with(|| {
            new_regexp(pattern, "u")
                .map_err(|e| format!("invalid pattern {pattern:?}: {}", describe(&e)))
        });
        match compiled {
            Ok(regexp) => {
                regexp.set_last_index(0);
                Ok(regexp.test(text))
            }
            Err(message) => Err(message.clone()),
        }
    }
}

#[wasm_bindgen]
extern "C" {
    /// `new RegExp(pattern, flags)`, catching the `SyntaxError` of an invalid pattern.
    #[wasm_bindgen(catch, js_name = RegExp)]
    fn new_regexp(pattern: &str, flags: &str) -> Result<RegExp, JsValue>;
}
