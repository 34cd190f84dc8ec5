//! Running browser tools: import the module once per URL, call the export with
//! `(args, { toolCallId, toolName, threadId, runId, signal })`, bound by the tool's timeout (the
//! load and the call together), and turn whatever happens into a [`ToolOutcome`]. A call whose
//! signal fired (Stop, or the deadline) never reaches its handler. Also the `RegExp`-backed
//! schema `pattern`s.

use crate::hash::HashMap;
use std::cell::RefCell;

use js_sys::{Array, Function, Object, Promise, Reflect, RegExp, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};

use super::js::{self, AbortController, AbortSignal};
use super::runtime::{drive, mark_dirty, Shared};
use crate::session::ToolCallJob;
use crate::tools::outcome::{FailureCode, Interruption, ToolFailure, ToolOutcome};
use crate::tools::schema::PatternMatcher;
use crate::tools::ToolHandler;

/// Starts a tool call; its outcome goes back into the session when it settles.
pub(crate) fn start(rc: &Shared, job: ToolCallJob) {
    let controller = AbortController::new();
    let limit = {
        let mut inner = rc.borrow_mut();
        if let Some(running) = inner.running.get_mut(&job.thread_id) {
            running.tools.push(controller.clone());
        }
        inner.session.config().max_tool_result_bytes
    };
    let rc = rc.clone();
    spawn_local(async move {
        // The deadline covers loading the module and the call: when it passes, the controller
        // aborts (a `TimeoutError`), which ends whichever wait is going on, exactly as Stop does.
        let deadline = js::Deadline::new(&controller, f64::from(job.timeout_ms));
        let outcome = call(&rc, &job, &controller.signal(), &deadline, limit).await;
        deadline.clear();
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

/// The outcome of a call whose signal fired: its deadline passed, or the user stopped the run (the
/// session has then settled the call already and ignores this).
fn stopped(job: &ToolCallJob, deadline: &js::Deadline, loading: bool) -> ToolOutcome {
    if !deadline.timed_out() {
        return ToolOutcome::Failed(ToolFailure::interrupted(
            Interruption::Stopped,
            format!("the run was stopped before {} finished", job.tool.name),
        ));
    }
    let what = if loading { "to load" } else { "to answer" };
    failure(
        FailureCode::Timeout,
        format!(
            "{} took longer than {} ms {what}",
            job.tool.name, job.timeout_ms
        ),
    )
}

/// Waits for `promise` or the call's stop, whichever comes first; `None` when the signal fired
/// (even if the promise settled in the same turn: a stopped call goes no further).
async fn until_stopped(
    promise: &Promise,
    signal: &AbortSignal,
    deadline: &js::Deadline,
) -> Option<Result<JsValue, JsValue>> {
    let race = Promise::race(&Array::of2(promise, &deadline.stopped()));
    let settled = JsFuture::from(race).await;
    if signal.aborted() {
        return None;
    }
    Some(settled)
}

/// The tool's function: a registered handler, or the module's export. `Err(None)`: the call was
/// stopped while the module loaded.
async fn resolve_handler(
    rc: &Shared,
    job: &ToolCallJob,
    signal: &AbortSignal,
    deadline: &js::Deadline,
) -> Result<Function, Option<ToolOutcome>> {
    let name = &job.tool.name;
    match &job.tool.handler {
        ToolHandler::Registered => rc.borrow().handlers.get(name).cloned().ok_or_else(|| {
            Some(failure(
                FailureCode::ToolLoadFailed,
                format!("{name} has no registered handler"),
            ))
        }),
        ToolHandler::Module { url, entrypoint } => {
            let load_failed = |e: String| {
                Some(failure(
                    FailureCode::ToolLoadFailed,
                    format!("could not import {url}: {e}"),
                ))
            };
            let promise = import(rc, url).map_err(load_failed)?;
            let Some(settled) = until_stopped(&promise, signal, deadline).await else {
                // A load that timed out (or was stopped) is not kept: the next call imports again.
                forget(rc, url, &promise);
                return Err(None);
            };
            let module = match settled {
                Ok(module) if module.is_object() => module,
                Ok(_) => {
                    forget(rc, url, &promise);
                    return Err(load_failed(
                        "importModule did not give a module object".to_owned(),
                    ));
                }
                Err(error) => {
                    forget(rc, url, &promise);
                    return Err(load_failed(js::describe(&error)));
                }
            };
            Reflect::get(&module, &entrypoint.into())
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok())
                .ok_or_else(|| {
                    Some(failure(
                        FailureCode::ToolLoadFailed,
                        format!("{url} has no exported function named {entrypoint}"),
                    ))
                })
        }
    }
}

/// The module's import, started once per URL (`importModule` or dynamic `import()`).
fn import(rc: &Shared, url: &str) -> Result<Promise, String> {
    if let Some(promise) = rc.borrow().modules.get(url).cloned() {
        return Ok(promise);
    }
    let custom = rc.borrow().options.import_module.clone();
    let promise = match custom {
        Some(import) => import
            .call1(&JsValue::UNDEFINED, &url.into())
            .map(|p| Promise::resolve(&p))
            .map_err(|e| js::describe(&e))?,
        None => js::dynamic_import(url),
    };
    rc.borrow_mut()
        .modules
        .insert(url.to_owned(), promise.clone());
    Ok(promise)
}

/// Drops a failed or abandoned import from the cache, unless a newer one replaced it.
fn forget(rc: &Shared, url: &str, promise: &Promise) {
    let mut inner = rc.borrow_mut();
    if inner
        .modules
        .get(url)
        .is_some_and(|p| JsValue::from(p) == JsValue::from(promise))
    {
        inner.modules.remove(url);
    }
}

async fn call(
    rc: &Shared,
    job: &ToolCallJob,
    signal: &AbortSignal,
    deadline: &js::Deadline,
    limit: usize,
) -> ToolOutcome {
    let handler = match resolve_handler(rc, job, signal, deadline).await {
        Ok(handler) => handler,
        Err(Some(outcome)) => return outcome,
        Err(None) => return stopped(job, deadline, true),
    };
    let args = JSON::parse(&job.args.to_string()).unwrap_or(JsValue::NULL);
    // The ids cross as JSON text: a call id from the wire may hold a lone surrogate, which a
    // plain string crossing would turn into U+FFFD.
    let mut text = String::new();
    let mut w = crate::protocol::wire::ObjWriter::new(&mut text);
    w.field("toolCallId", &job.tool_call_id);
    w.field("toolName", &job.tool.name);
    w.field("threadId", &job.thread_id);
    w.field("runId", &job.run_id);
    w.end();
    let ctx = JSON::parse(&text).unwrap_or_else(|_| Object::new().into());
    let _ = Reflect::set(&ctx, &"signal".into(), signal);
    // Nothing awaits between this check and the call: a stopped or timed-out call never reaches
    // its handler, however late its module arrived.
    let wanted = rc
        .borrow()
        .session
        .may_call(&job.thread_id, &job.tool_call_id);
    if signal.aborted() || !wanted {
        return stopped(job, deadline, false);
    }
    let returned = match handler.call2(&JsValue::UNDEFINED, &args, &ctx) {
        Ok(value) => value,
        Err(error) => return failure(FailureCode::ToolExecutionFailed, js::describe(&error)),
    };
    match until_stopped(&Promise::resolve(&returned), signal, deadline).await {
        None => stopped(job, deadline, false),
        Some(Ok(value)) => to_outcome(&value, &job.tool.name, limit),
        Some(Err(error)) => failure(FailureCode::ToolExecutionFailed, js::describe(&error)),
    }
}

/// A handler's value as JSON: strings stay strings, `undefined` is `null`, values JSON cannot
/// encode (a BigInt, a cycle, a function) are a failure rather than a silent `{}`. A result that
/// is certainly over `limit` bytes is refused before it is copied into wasm memory (the session
/// measures the exact size of the rest).
fn to_outcome(value: &JsValue, tool_name: &str, limit: usize) -> ToolOutcome {
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
    if let Some(text) = value.dyn_ref::<js_sys::JsString>() {
        if text.length() as usize > limit {
            return too_large(text.length());
        }
    }
    match js::json_or_throw(value) {
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
                js::describe(&error)
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
                .map_err(|e| format!("invalid pattern {pattern:?}: {}", js::describe(&e)))
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
