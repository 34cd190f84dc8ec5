//! Tool calls: each `Execute` becomes a task that finds the tool's function (a registered
//! handler, or a module's export through the module cache: one `import()` per URL, a failed or
//! abandoned one forgotten), calls it with its `ctx` and `signal` (an `AbortController` per call,
//! kept in the turn's [`Running`](super::Running)) and hands the outcome back to the session.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use web_sys::{AbortController, AbortSignal};

use super::{take_call, Driver};
use crate::protocol::wire::ObjWriter;
use crate::session::ToolCallJob;
use crate::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};
use crate::tools::ToolHandler;
use crate::wasm::io::tools;
use crate::wasm::script;
use crate::wasm::{browser, convert};

impl Driver {
    /// Starts a tool call; its outcome goes back into the session when it settles. The session's
    /// deadline (an [`Action::CancelCall`]) or Stop fires the call's signal, which ends whichever
    /// wait is going on: then nothing is reported (the session has settled the call already).
    pub(super) fn spawn_call(&self, job: ToolCallJob) {
        let controller = AbortController::new();
        let signal = controller.as_ref().ok().and_then(browser::signal);
        let (Ok(controller), Some(signal)) = (controller, signal) else {
            // No signal for `ctx.signal` (a page whose `AbortController` throws): the call is
            // answered, never left waiting.
            let outcome = failure(
                FailureCode::ToolExecutionFailed,
                "the browser could not make the call's AbortSignal (AbortController threw)"
                    .to_owned(),
            );
            // Called from `drive`, whose loop takes the actions this queues.
            self.borrow_mut().session.handle_tool_result(
                &job.thread_id,
                &job.tool_call_id,
                outcome,
            );
            self.mark_dirty(&job.thread_id);
            return;
        };
        {
            let mut state = self.borrow_mut();
            if let Some(running) = state.running_mut(&job.thread_id) {
                running
                    .calls
                    .push((job.tool_call_id.clone(), controller.clone()));
            }
        }
        spawn_local(self.clone().call(job, signal));
    }

    /// Runs the call and reports its outcome to the session; nothing when its signal fired
    /// first. The whole task is this one `async fn` (one state machine, not one awaiting another).
    async fn call(self, job: ToolCallJob, signal: AbortSignal) {
        let signal = &signal;
        let job = &job;
        let outcome: Option<ToolOutcome> = 'outcome: {
            // The handler at once, or after its module loads: plain functions around the await.
            let handler = match self.handler(job) {
                Err(Ok(handler)) => Ok(handler),
                Err(Err(message)) => Err(message),
                Ok(promise) => {
                    let settled = match tools::race_abort(&promise, signal) {
                        Some(race) => tools::unless_aborted(race.await, signal),
                        None => None,
                    };
                    match self.module_loaded(job, &promise, settled) {
                        Some(handler) => handler,
                        None => break 'outcome None,
                    }
                }
            };
            let handler = match handler {
                Ok(handler) => handler,
                // A registered tool without its handler was unregistered after its call came
                // (a view tool that left between TOOL_CALL_START and END): gone, not broken.
                Err(message) if matches!(job.tool.handler, ToolHandler::Registered) => {
                    break 'outcome Some(failure(FailureCode::ToolNotAvailable, message))
                }
                Err(message) => break 'outcome Some(failure(FailureCode::ToolLoadFailed, message)),
            };
            let mut ctx = String::new();
            let mut w = ObjWriter::new(&mut ctx);
            w.field("toolCallId", &job.tool_call_id);
            w.field("toolName", &job.tool.name);
            w.field("threadId", &job.thread_id);
            w.field("runId", &job.run_id);
            w.end();
            // Nothing awaits between this check and the call: a stopped or timed-out call never
            // reaches its handler, however late its module arrived.
            let wanted = self
                .borrow_mut()
                .session
                .begin_call(&job.thread_id, &job.tool_call_id);
            if browser::is_aborted(signal) || !wanted {
                break 'outcome None;
            }
            let promise = match tools::call(&handler, &job.args.to_string(), &ctx, signal) {
                Ok(promise) => promise,
                Err(error) => {
                    let message = convert::io_message(&error);
                    break 'outcome Some(failure(FailureCode::ToolExecutionFailed, message));
                }
            };
            let limit = self.borrow().session.config().max_tool_result_bytes;
            let Some(race) = tools::race_abort(&promise, signal) else {
                break 'outcome None;
            };
            match tools::unless_aborted(race.await, signal) {
                Some(Ok(value)) => Some(tools::to_outcome(&value, &job.tool.name, limit)),
                Some(Err(error)) => Some(failure(
                    FailureCode::ToolExecutionFailed,
                    script::describe(&error),
                )),
                None => None,
            }
        };
        let Some(outcome) = outcome else { return };
        {
            let mut state = self.borrow_mut();
            if let Some(running) = state.running_mut(&job.thread_id) {
                take_call(&mut running.calls, &job.tool_call_id);
            }
            state
                .session
                .handle_tool_result(&job.thread_id, &job.tool_call_id, outcome);
        }
        self.mark_dirty(&job.thread_id);
        self.drive();
    }

    /// The tool's function: `Err(Ok)`, a registered handler or a module's export already had;
    /// `Err(Err)`: it cannot be had; `Ok`: the module's import (started once per URL) to wait
    /// for, then [`Driver::module_loaded`].
    fn handler(&self, job: &ToolCallJob) -> Result<Promise, Result<Function, String>> {
        let name = &job.tool.name;
        let url = match &job.tool.handler {
            ToolHandler::Registered => {
                let handler = self.borrow().handlers.get(name).cloned();
                return Err(handler.ok_or_else(|| format!("{name} was removed from the page")));
            }
            ToolHandler::Module { url, .. } => url,
        };
        let cached = self.borrow().modules.get(url).cloned();
        if let Some(promise) = cached {
            return Ok(promise);
        }
        let custom = self.host().import_module.clone();
        let promise = tools::import(custom.as_ref(), url)
            .map_err(|e| Err(import_failed(url, &convert::io_message(&e))))?;
        self.borrow_mut()
            .modules
            .insert(url.clone(), promise.clone());
        Ok(promise)
    }

    /// The tool's function from what its module's import settled to. `None`: the signal fired
    /// while the module loaded; `Some(Err)`: it cannot be had.
    fn module_loaded(
        &self,
        job: &ToolCallJob,
        promise: &Promise,
        settled: Option<Result<JsValue, JsValue>>,
    ) -> Option<Result<Function, String>> {
        let ToolHandler::Module { url, entrypoint } = &job.tool.handler else {
            return None;
        };
        let Some(settled) = settled else {
            // A load that was stopped (or timed out) is not kept: the next call imports again.
            self.forget_module(url, promise);
            return None;
        };
        let module = match settled {
            Ok(module) if module.is_object() => module,
            Ok(_) => {
                self.forget_module(url, promise);
                return Some(Err(import_failed(
                    url,
                    "importModule did not give a module object",
                )));
            }
            Err(error) => {
                self.forget_module(url, promise);
                return Some(Err(import_failed(url, &script::describe(&error))));
            }
        };
        Some(
            tools::export(&module, entrypoint)
                .ok_or_else(|| format!("{url} has no exported function named {entrypoint}")),
        )
    }

    /// Drops a failed or abandoned import from the cache, unless a newer one replaced it.
    fn forget_module(&self, url: &str, promise: &Promise) {
        let mut state = self.borrow_mut();
        if state
            .modules
            .get(url)
            .is_some_and(|p| JsValue::from(p) == JsValue::from(promise))
        {
            state.modules.remove(url);
        }
    }
}

/// `could not import {url}: {detail}` (one copy of the message for every way an import fails).
#[inline(never)]
fn import_failed(url: &str, detail: &str) -> String {
    format!("could not import {url}: {detail}")
}

fn failure(code: FailureCode, message: String) -> ToolOutcome {
    ToolOutcome::Failed(ToolFailure::new(code, message))
}
