//! The thread methods: a thread's messages, state and interrupts, and starting and stopping its
//! turn (`run`, `abort`, the caller's `signal`).

use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

#[cfg(feature = "coder")]
use super::chat::check_new_texts;
use super::{upgrade, Driver, Running, ThreadRead};
use crate::protocol::event::Message;
use crate::protocol::wire::ToJson;
use crate::session::{Forget, RunRequest, SessionError, ToolSet};
use crate::wasm::browser;
use crate::wasm::convert::parse;
use crate::wasm::error::Error;

impl Driver {
    /// `setMessages`.
    pub(crate) fn set_messages(
        &self,
        thread_id: &str,
        messages: Vec<Message>,
    ) -> Result<(), Error> {
        self.borrow_mut()
            .session
            .set_messages(thread_id, messages)?;
        // Its `messages` event goes out at the next frame, as a run's would (not with the next
        // run or action, whenever that is).
        self.mark_dirty(thread_id);
        self.schedule_flush();
        Ok(())
    }

    /// `messages`, `state` or `interrupts` of a thread; `None`: an id no thread can have, read
    /// as an unknown thread (no messages, no interrupts, `undefined` state).
    pub(crate) fn read(&self, thread_id: Option<&str>, what: ThreadRead) -> Result<JsValue, Error> {
        let Some(id) = thread_id else {
            // An id no thread can have: no state, no messages, interrupts or pending calls.
            return Ok(match what {
                ThreadRead::State => JsValue::UNDEFINED,
                _ => Array::new().into(),
            });
        };
        let text = {
            let session = &self.borrow().session;
            match what {
                ThreadRead::Messages => None,
                ThreadRead::Interrupts => Some(session.interrupts(id).to_json_string()),
                ThreadRead::PendingCalls => {
                    Some(session.pending_calls(id).as_slice().to_json_string())
                }
                ThreadRead::State => match session.state(id) {
                    Some(state) => Some(state.to_json_string()),
                    None => return Ok(JsValue::UNDEFINED),
                },
            }
        };
        if let Some(text) = text {
            return parse(&text);
        }
        // The messages in batches, their long strings apart, as a `messages` event's.
        let count = self.borrow().session.messages(id).len();
        Ok(self.messages_to_js(id, count, None)?.into())
    }

    /// `forgetThread`: the session drops the thread ([`Session::forget_thread`]), then the
    /// driver its mirror and its place in the next frame; its toggles stay. `Ok(false)`: the
    /// runtime held nothing for it. A running thread is refused with `run/busy`.
    ///
    /// [`Session::forget_thread`]: crate::session::Session::forget_thread
    pub(crate) fn forget_thread(&self, thread_id: &str) -> Result<bool, Error> {
        let state = &mut *self.borrow_mut();
        // The turn is over for the session but `run()` has not resolved yet (a listener of its
        // last events): its value is built from the thread, which is forgotten right after.
        let ending = !state.session.is_running(thread_id);
        if let (true, Some(running)) = (ending, state.running_mut(thread_id)) {
            running.forget = true;
            return Ok(true);
        }
        match state.session.forget_thread(thread_id) {
            Forget::Busy => Err(SessionError::Busy {
                thread_id: thread_id.to_owned(),
            }
            .into()),
            outcome => {
                state.render.forget(thread_id);
                Ok(outcome == Forget::Forgotten)
            }
        }
    }

    /// `isRunning`.
    pub(crate) fn is_running(&self, thread_id: &str) -> bool {
        self.borrow().session.is_running(thread_id)
    }

    /// Whether the runtime talks to a Coder deployment (the `backend` option).
    pub(crate) fn is_coder(&self) -> bool {
        #[cfg(feature = "coder")]
        return self.borrow().session.config().coder.is_some();
        #[cfg(not(feature = "coder"))]
        false
    }

    /// `run`: starts the turn; the promise settles when it ends. With the coder backend an empty
    /// thread id is a new chat: its turn runs under the id the session gives it until the chat is
    /// created ([`Driver::thread_created`]).
    pub(crate) fn run(
        &self,
        request: RunRequest,
        signal: Option<AbortSignal>,
    ) -> Result<Promise, Error> {
        let thread_id = request.thread_id.clone();
        // A new chat's tools are the defaults, those of no thread (or those the app set under
        // the id it runs under until it has one, `newChat`).
        let thread = (!thread_id.is_empty()).then_some(thread_id.as_str());
        self.load_toggles(thread);
        let (promise, resolve, reject) = browser::new_promise();
        let thread_id = {
            let state = &mut *self.borrow_mut();
            // A busy thread is refused by `start_run` (`run/busy`); it has run before, so
            // `begin_run` changes nothing for it.
            if let Some(thread) = thread.filter(|_| !request.new_chat) {
                state.toggles.begin_run(thread);
            }
            let tools = ToolSet::for_thread(&state.catalog, &mut state.toggles, thread);
            let thread_id = match () {
                #[cfg(feature = "coder")]
                () if state.session.config().coder.is_some() => {
                    check_new_texts(&state.session, &thread_id, &request.messages)?;
                    // A chat's tools are fixed when it is created: every frontend tool is
                    // declared, and a call of one switched off is answered as disabled.
                    let declared = state.catalog.wire_tools(|_| true);
                    state.session.start_chat(request, tools, declared)?
                }
                () => {
                    state.session.start_run(request, tools)?;
                    thread_id
                }
            };
            // The turn's JS side, by the handle the session just gave the turn.
            let run = state.session.run_handle(&thread_id).unwrap_or_default();
            state.running.push((
                run,
                Running {
                    resolve,
                    reject,
                    fetch: None,
                    body: None,
                    calls: Vec::new(),
                    signal: None,
                    cause: JsValue::UNDEFINED,
                    forget: false,
                },
            ));
            thread_id
        };
        self.save_toggles();
        if let Some(signal) = signal {
            self.follow_signal(&thread_id, signal);
        }
        self.emit_toggle_diagnostics();
        self.mark_dirty(&thread_id);
        self.drive();
        Ok(promise)
    }

    /// `abort`.
    pub(crate) fn abort(&self, thread_id: &str) {
        self.borrow_mut().session.abort(thread_id);
        self.mark_dirty(thread_id);
        self.drive();
    }

    /// Aborts the thread's turn when the caller's `signal` fires. With Coder the listener holds
    /// the turn's handle, not the thread's id, and asks the session which thread the turn is of
    /// when it fires: a new chat's turn is stopped under the chat's id once it has one. Without
    /// Coder a thread keeps its id, and the id is enough.
    pub(super) fn follow_signal(&self, thread_id: &str, signal: AbortSignal) {
        if browser::is_aborted(&signal) {
            self.abort(thread_id);
            return;
        }
        let weak = self.weak();
        #[cfg(feature = "coder")]
        let Some(run) = self.borrow().session.run_handle(thread_id) else {
            return;
        };
        #[cfg(not(feature = "coder"))]
        let thread = thread_id.to_owned();
        let listener = browser::once_function(Box::new(move || {
            if let Some(driver) = upgrade(&weak) {
                #[cfg(feature = "coder")]
                let Some(thread) = driver.borrow().session.run_thread(run).map(str::to_owned) else {
                    return;
                };
                driver.abort(&thread);
            }
        }));
        let _ = signal.add_event_listener_with_callback("abort", &listener);
        if let Some(running) = self.borrow_mut().running_mut(thread_id) {
            running.signal = Some((signal, listener));
        }
    }
}
