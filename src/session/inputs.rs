//! The session's inputs, as a router: each finds its thread once and hands the round the shared
//! context and that thread ([`Shared`], [`ThreadState`]); the inputs that look across threads
//! (deadlines, a removed tool, the reconnect waits) go through them here.

use super::action::RoundRequest;
use super::advance::{abort, resume_if_due};
use super::agui;
use super::agui::stream;
use super::body::RequestBody;
use super::calls::tool_result;
use super::config::RunRequest;
use super::error::SessionError;
use super::thread::ThreadState;
use super::tool_set::ToolSet;
use super::{Action, Session};

use crate::tools::outcome::{FailureCode, Interruption, ToolFailure, ToolOutcome};

impl Session {
    /// Starts a turn: adds the request's messages and sends the first run.
    /// Refused, with nothing sent and nothing changed, while a turn is going on in the thread
    /// ([`SessionError::Busy`]), when the thread id cannot be one segment of the run URL
    /// ([`SessionError::BadThreadId`]), when a `resume` payload breaks its interrupt's
    /// `responseSchema` ([`SessionError::BadResume`]), or when an open interrupt that has not
    /// expired gets no answer ([`SessionError::UnansweredInterrupts`]).
    pub fn start_run(&mut self, request: RunRequest, tools: ToolSet) -> Result<(), SessionError> {
        agui::check_run(&request)?;
        let state = self
            .threads
            .get_or_insert_with(&request.thread_id, ThreadState::default);
        agui::start_run(&mut self.shared, state, request, tools)
    }

    /// The host is about to send this round's request with `body`: the [`Action::Send`]'s, or
    /// what the app's `prepareRequest` made of it (reported before any answer, once per round).
    /// `false`: the round is over (stopped, the turn ended or moved on) or its request already
    /// went out, and the host sends nothing. A reconnect ([`Action::Reconnect`]) sends the body
    /// reported here; a host that reports nothing sends the `Send`'s body, and so does its
    /// reconnect.
    pub fn handle_request_prepared(
        &mut self,
        thread_id: &str,
        run_id: &str,
        body: impl Into<RequestBody>,
    ) -> bool {
        self.threads
            .get_mut(thread_id)
            .is_some_and(|state| stream::request_prepared(state, run_id, body.into()))
    }

    /// The current round's request as it went out (after [`handle_request_prepared`](
    /// Self::handle_request_prepared)): what the host sends, sharing the session's body.
    pub fn sent_request(&mut self, thread_id: &str, run_id: &str) -> Option<RoundRequest> {
        stream::sent_request(self.threads.get_mut(thread_id)?, run_id)
    }

    /// The response to the current round arrived: anything but a 2xx `text/event-stream` ends
    /// the turn in error ([`crate::http`]). `error_body` is the body of a non-2xx answer, as far
    /// as the host read it (the error quotes its start, so it can say what the server said).
    pub fn handle_response(
        &mut self,
        thread_id: &str,
        run_id: &str,
        status: u16,
        content_type: Option<&str>,
        error_body: Option<&str>,
    ) {
        if let Some(state) = self.threads.get_mut(thread_id) {
            stream::response(
                &mut self.shared,
                thread_id,
                state,
                run_id,
                status,
                content_type,
                error_body,
            );
        }
    }

    /// The next bytes of the current round's body.
    pub fn handle_bytes(&mut self, thread_id: &str, run_id: &str, bytes: &[u8]) {
        if let Some(state) = self.threads.get_mut(thread_id) {
            stream::bytes(&mut self.shared, thread_id, state, run_id, bytes);
        }
    }

    /// The current round's body ended. Without `RUN_FINISHED` after events with SSE ids, the
    /// stream is resumed ([`Action::Reconnect`]) while attempts are left.
    pub fn handle_body_end(&mut self, thread_id: &str, run_id: &str) {
        if let Some(state) = self.threads.get_mut(thread_id) {
            stream::body_end(&mut self.shared, thread_id, state, run_id);
        }
    }

    /// The fetch failed (network error, or the body could not be read): the stream is resumed as
    /// at [`handle_body_end`](Self::handle_body_end) if it can be, else `run/network`. With a
    /// `status` (the app's `fetch` threw a value carrying one, an auth wrapper's 401), `run/http`
    /// with that status.
    pub fn handle_transport_error(
        &mut self,
        thread_id: &str,
        run_id: &str,
        message: &str,
        status: Option<u16>,
    ) {
        if let Some(state) = self.threads.get_mut(thread_id) {
            stream::transport_error(&mut self.shared, thread_id, state, run_id, message, status);
        }
    }

    /// The host could not send this round's request (`code`: `run/network`, `run/http`, or
    /// `run/prepare-request` when the app's `prepareRequest` threw): the turn ends in error.
    pub fn handle_request_error(
        &mut self,
        thread_id: &str,
        run_id: &str,
        code: &str,
        message: &str,
        status: Option<u16>,
    ) {
        if let Some(state) = self.threads.get_mut(thread_id) {
            stream::request_error(
                &mut self.shared,
                thread_id,
                state,
                run_id,
                code,
                message,
                status,
            );
        }
    }

    /// A browser tool finished. Results for calls that are not running (late, after an abort,
    /// or unknown) are ignored.
    pub fn handle_tool_result(
        &mut self,
        thread_id: &str,
        tool_call_id: &str,
        outcome: ToolOutcome,
    ) {
        if let Some(state) = self.threads.get_mut(thread_id) {
            tool_result(&mut self.shared, thread_id, state, tool_call_id, outcome);
        }
    }

    /// Aborts the thread's turn: the fetch and the handlers are cancelled, no restart happens,
    /// and every call of the turn that got no result is settled with an `INTERRUPTED` result.
    pub fn abort(&mut self, thread_id: &str) {
        if let Some(state) = self.threads.get_mut(thread_id) {
            abort(&mut self.shared, thread_id, state);
        }
    }

    /// The host's clock reached `now`: a cut stream whose wait has passed is resumed
    /// ([`Action::Reconnect`]); every running call whose deadline has passed is answered with a
    /// `TIMEOUT` result and gets an [`Action::CancelCall`] (its signal fires); from then on
    /// [`may_call`](Self::may_call) is `false` for it and its late result is ignored.
    pub fn handle_timeout(&mut self, now: u64) {
        for (thread_id, state) in self.threads.iter_mut() {
            resume_if_due(&mut self.shared, thread_id, state, now);
        }
        #[cfg(feature = "coder")]
        super::coder::requests::chat_requests_due(&mut self.shared, &mut self.threads, now);
        let mut expired: Vec<(String, String, String, u32, bool)> = Vec::new();
        for (thread_id, state) in &self.threads {
            let Some(turn) = state.turn.as_ref() else {
                continue;
            };
            for (id, call) in turn.running.iter() {
                if call.deadline.is_some_and(|d| d <= now) {
                    expired.push((
                        thread_id.clone(),
                        id.clone(),
                        call.tool_name.clone(),
                        call.timeout_ms.unwrap_or_default(),
                        call.called,
                    ));
                }
            }
        }
        // By thread, then by call id: both maps iterate in name order.
        for (thread_id, tool_call_id, tool_name, timeout_ms, called) in expired {
            self.shared.actions.push_back(Action::CancelCall {
                thread_id: thread_id.clone(),
                tool_call_id: tool_call_id.clone(),
            });
            let outcome = ToolOutcome::Failed(ToolFailure::new(
                FailureCode::Timeout,
                format!(
                    "{tool_name} took longer than {timeout_ms} ms {}",
                    if called { "to answer" } else { "to load" }
                ),
            ));
            self.handle_tool_result(&thread_id, &tool_call_id, outcome);
        }
    }

    /// The page removed the tool `tool_name` (`unregisterTool`): every call of it that is
    /// running, in any thread, is answered `INTERRUPTED` (the tool was removed) and never reaches
    /// its handler if it has not yet; its late result is ignored. Returns those calls as
    /// `(thread_id, tool_call_id)`, for the host to fire their signals.
    pub fn remove_tool(&mut self, tool_name: &str) -> Vec<(String, String)> {
        let mut removed = Vec::new();
        for (thread_id, state) in &self.threads {
            let Some(turn) = state.turn.as_ref() else {
                continue;
            };
            for (id, call) in turn.running.iter() {
                if call.tool_name == tool_name {
                    removed.push((thread_id.clone(), id.clone()));
                }
            }
        }
        for (thread_id, tool_call_id) in &removed {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::Removed,
                format!("{tool_name} was removed from the page while it ran"),
            ));
            self.handle_tool_result(thread_id, tool_call_id, outcome);
        }
        removed
    }

    /// The host cannot keep a timer (its `setTimeout` threw): every cut stream waiting to be
    /// resumed is due at once, so the next [`handle_timeout`](Self::handle_timeout) resumes it
    /// rather than leave its turn unsettled. Returns whether one was waiting.
    pub fn skip_reconnect_waits(&mut self) -> bool {
        let mut skipped = false;
        let turns = self.threads.values_mut().filter_map(|t| t.turn.as_mut());
        for wait in turns.filter_map(|turn| turn.reconnect.as_mut()) {
            skipped |= wait.deadline != Some(0);
            wait.deadline = Some(0);
        }
        skipped
    }
}
