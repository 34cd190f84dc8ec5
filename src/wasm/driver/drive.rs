//! The loop: takes the session's actions one by one and hands each to its job (sends, tool calls,
//! cancels, listeners, the end of a turn), keeps one timer for the session's next deadline and
//! asks for the next frame's `messages` events.

use wasm_bindgen::prelude::*;

use super::{cancel_all, take_call, upgrade, Driver};
use crate::session::{Action, RunResult};
use crate::wasm::browser;
use crate::wasm::error;

impl Driver {
    /// Runs every action the session has queued, then sets the deadline timer and schedules the
    /// next frame's `messages` events.
    pub(super) fn drive(&self) {
        // Events go to listeners in batches: one look at the listener list per batch, not per
        // streamed token. A batch is flushed before any other action, so the order holds.
        let mut events = Vec::new();
        loop {
            let action = self.borrow_mut().session.poll_action(browser::now());
            let Some(action) = action else { break };
            if let Action::Emit(event) = action {
                events.push(event);
                continue;
            }
            if !events.is_empty() {
                self.emit(&std::mem::take(&mut events));
            }
            match action {
                // The URL and headers go out as the session keeps them for the round
                // (`Session::sent_request`, after `prepareRequest`).
                Action::Send {
                    thread_id,
                    run_id,
                    round,
                    body,
                    ..
                } => self.spawn_send(thread_id, run_id, round, body),
                Action::Reconnect {
                    thread_id,
                    run_id,
                    request,
                    last_event_id,
                } => self.spawn_reconnect(thread_id, run_id, request, last_event_id),
                Action::Execute(job) => self.spawn_call(job),
                Action::Cancel { thread_id } => {
                    let parts = self
                        .borrow_mut()
                        .running_mut(&thread_id)
                        .map(|r| (r.fetch.take(), r.body.take(), std::mem::take(&mut r.calls)));
                    if let Some((fetch, body, calls)) = parts {
                        cancel_all(fetch, body, calls);
                    }
                }
                Action::CancelCall {
                    thread_id,
                    tool_call_id,
                } => {
                    let controller = self
                        .borrow_mut()
                        .running_mut(&thread_id)
                        .and_then(|r| take_call(&mut r.calls, &tool_call_id));
                    if let Some(controller) = controller {
                        browser::abort(&controller, &browser::timeout_reason());
                    }
                }
                #[cfg(feature = "coder")]
                Action::Coder(action) => self.coder_action(action),
                Action::Finished(result) => self.finish(&result),
                _ => {}
            }
        }
        if !events.is_empty() {
            self.emit(&events);
        }
        self.arm_timer();
        self.schedule_flush();
    }

    /// Keeps one timer, for the session's earliest deadline.
    fn arm_timer(&self) {
        let (replaced, armed) = {
            let mut state = self.borrow_mut();
            let deadline = state.session.poll_timeout();
            if state.timer.as_ref().map(|(at, _)| *at) == deadline {
                return;
            }
            let timer = deadline.and_then(|at| {
                let weak = self.weak();
                let timer = browser::timer(
                    at.saturating_sub(browser::now()),
                    Box::new(move || {
                        if let Some(driver) = upgrade(&weak) {
                            let timer = driver.borrow_mut().timer.take();
                            drop(timer);
                            driver.borrow_mut().session.handle_timeout(browser::now());
                            #[cfg(feature = "coder")]
                            driver.abort_unawaited();
                            driver.drive();
                        }
                    }),
                )?;
                Some((at, timer))
            });
            let armed = deadline.is_none() || timer.is_some();
            (std::mem::replace(&mut state.timer, timer), armed)
        };
        drop(replaced);
        // A `setTimeout` that threw leaves no timer: a call's deadline waits for the next `drive`
        // to try again, but a cut stream is resumed at once rather than left waiting for ever.
        if !armed && self.borrow_mut().session.skip_reconnect_waits() {
            self.borrow_mut().session.handle_timeout(browser::now());
            #[cfg(feature = "coder")]
            self.abort_unawaited();
            self.drive();
        }
    }

    /// The turn is over: the final messages go out before the promise settles (the result's
    /// messages are then the objects the listeners already have).
    fn finish(&self, result: &RunResult) {
        self.flush_thread(&result.thread_id);
        let value = self.run_result_to_js(result);
        let running = self.borrow_mut().take_running(result.run);
        let Some(running) = running else { return };
        if running.forget {
            let state = &mut *self.borrow_mut();
            state.session.forget_thread(&result.thread_id);
            state.render.forget(&result.thread_id);
        }
        if let (Ok(value), true) = (&value, result.error.is_some()) {
            // One error shape: `result.error` is a `ChatRuntimeError`, like every rejection, with
            // what the app threw (its `fetch`, `prepareRequest`) as `cause`.
            error::promote_member(value, &running.cause);
        }
        cancel_all(running.fetch, running.body, running.calls);
        if let Some((signal, listener)) = running.signal {
            let _ = signal.remove_event_listener_with_callback("abort", &listener);
        }
        let _ = match value {
            Ok(value) => running.resolve.call1(&JsValue::UNDEFINED, &value),
            Err(error) => running
                .reject
                .call1(&JsValue::UNDEFINED, &JsValue::from(error)),
        };
    }
}
