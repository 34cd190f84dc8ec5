//! Browser tool calls: handing them out, their results, deadlines and removals, and what the
//! server's `pendingToolCallIds` says about them.

use super::action::{Action, ToolCallJob};
use super::call_table::RunningCall;
use super::error::quoted_list;
use super::events::RuntimeEvent;
use super::result::{RunError, RunStatus, ToolErrorInfo};
use super::tool_set::CallKind;
use super::Session;

use crate::json::{quoted, Value};

use crate::protocol::event::{Content, ToolMessage};
use crate::protocol::thread::PendingCall;
use crate::tools::outcome::{FailureCode, Interruption, ToolFailure, ToolOutcome};
use crate::tools::schema::validate;
use crate::tools::TimeLimit;

impl Session {
    /// The host's clock reached `now`: a cut stream whose wait has passed is resumed
    /// ([`Action::Reconnect`]); every running call whose deadline has passed is answered with a
    /// `TIMEOUT` result and gets an [`Action::CancelCall`] (its signal fires); from then on
    /// [`may_call`](Self::may_call) is `false` for it and its late result is ignored.
    pub fn handle_timeout(&mut self, now: u64) {
        self.resume_waited(now);
        #[cfg(feature = "coder")]
        self.submissions_due(now);
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
            self.actions.push_back(Action::CancelCall {
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

    /// A browser tool finished. Results for calls that are not running (late, after an abort,
    /// or unknown) are ignored.
    pub fn handle_tool_result(
        &mut self,
        thread_id: &str,
        tool_call_id: &str,
        outcome: ToolOutcome,
    ) {
        let limit = self.config.max_tool_result_bytes;
        let Some(turn) = self.turn_mut(thread_id) else {
            return;
        };
        let Some(RunningCall {
            tool_name,
            follow_up,
            ..
        }) = turn.running.take(tool_call_id)
        else {
            return;
        };
        let run_id = turn.run_id.clone();
        let outcome = bounded(outcome, &tool_name, limit);
        if follow_up {
            if let Some(slot) = turn
                .answers_mut()
                .into_iter()
                .flatten()
                .find(|(call, _)| call.tool_call_id == tool_call_id)
            {
                slot.1 = Some(outcome.clone());
            }
        } else {
            self.record_result(thread_id, tool_call_id, &outcome);
        }
        self.emit_tool_finished(thread_id, &run_id, tool_call_id, &tool_name, &outcome);
        self.maybe_advance(thread_id);
    }

    /// After `RUN_FINISHED` and the end of the body: decides what the browser must answer.
    ///
    /// A non-empty `outcome.pendingToolCallIds` is the server's word on which calls are the
    /// client's: the calls it names run, an id that names no call is reported (a `diagnostic`,
    /// `run/unknown-pending-call`) and skipped, and a call of this run it leaves out is not run
    /// (running a tool the server did not hand over could act for no one) but answered at once,
    /// with a tool message that says so (providers want an answer for every call).
    pub(super) fn collect_pending(&mut self, thread_id: &str) {
        self.check_named_pending(thread_id);
        let Some(state) = self.threads.get(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_ref() else {
            return;
        };
        let mut calls = Vec::new();
        for call in state.thread.pending_tool_calls() {
            if state.handled.contains(&call.tool_call_id) {
                continue;
            }
            match turn.tools.calls.get(&call.tool_name) {
                Some(CallKind::Backend) => {}
                Some(CallKind::Enabled(tool)) if !tool.follow_up => {}
                _ => calls.push(call),
            }
        }
        if calls.is_empty() {
            return;
        }
        let restarts = turn.round.saturating_sub(1);
        if restarts >= self.config.max_rounds {
            // The model keeps calling tools: stop without running them (their results would
            // never reach it), and settle the calls so the next turn is valid.
            let limit = self.config.max_rounds;
            for call in calls {
                let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                    Interruption::RunEnded,
                    format!("the turn stopped after maxRounds ({limit}) restarts"),
                ));
                self.record_result(thread_id, &call.tool_call_id, &outcome);
            }
            let error = RunError {
                code: "run/max-rounds".to_owned(),
                message: format!("the agent still called tools after {limit} restarts"),
                status: None,
                details: None,
            };
            self.finish(thread_id, RunStatus::MaxRounds, Some(error));
            return;
        }
        for call in calls {
            self.dispatch(thread_id, call, true);
        }
    }

    /// Reports the ids of `outcome.pendingToolCallIds` that name no call, and answers the calls
    /// of this run it leaves out (see [`Session::collect_pending`]).
    pub(super) fn check_named_pending(&mut self, thread_id: &str) {
        let Some(state) = self.threads.get(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_ref() else {
            return;
        };
        let Some(named) = state.thread.named_pending_ids() else {
            return;
        };
        let run_id = turn.run_id.clone();
        // Calls the server answers itself (backend tools) are its business, listed or not.
        let unlisted: Vec<PendingCall> = state
            .thread
            .unanswered_ended_calls()
            .into_iter()
            .filter(|call| {
                !named.contains(&call.tool_call_id)
                    && !state.handled.contains(&call.tool_call_id)
                    && !matches!(
                        turn.tools.calls.get(&call.tool_name),
                        Some(CallKind::Backend)
                    )
            })
            .collect();
        let mut unknown: Vec<String> = Vec::new();
        for id in named {
            if !state.thread.has_tool_call(id) {
                unknown.push(id.clone());
            }
        }
        let listed = quoted_list(named);
        for call in unlisted {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::RunEnded,
                format!(
                    "the server did not hand this call to the client (RUN_FINISHED.outcome.pendingToolCallIds named only {listed}), so it did not run"
                ),
            ));
            self.record_result(thread_id, &call.tool_call_id, &outcome);
            self.emit_tool_finished(
                thread_id,
                &run_id,
                &call.tool_call_id,
                &call.tool_name,
                &outcome,
            );
        }
        for id in unknown {
            self.actions
                .push_back(Action::Emit(RuntimeEvent::Diagnostic {
                    diagnostic: crate::tools::Diagnostic {
                        index: None,
                        name: None,
                        code: "run/unknown-pending-call",
                        message: format!(
                            "RUN_FINISHED.outcome.pendingToolCallIds names {}, which is no tool call of thread {}; it is skipped", quoted(&id), quoted(thread_id)
                        ),
                    },
                }));
        }
    }

    /// Answers one call: runs it (validated), or answers it with an error at once.
    pub(super) fn dispatch(&mut self, thread_id: &str, call: PendingCall, follow_up: bool) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_mut() else {
            return;
        };
        state.handled.insert(call.tool_call_id.clone());
        let run_id = turn.run_id.clone();
        let tool = match turn.tools.calls.get(&call.tool_name) {
            Some(CallKind::Enabled(tool)) => Ok(tool.clone()),
            Some(CallKind::Disabled) => Err(ToolFailure::new(
                FailureCode::ToolNotAvailable,
                format!("the tool {} is disabled in this chat", call.tool_name),
            )),
            _ => Err(ToolFailure::new(
                FailureCode::ToolNotAvailable,
                format!("there is no tool named {}", call.tool_name),
            )),
        };
        let prepared = tool.and_then(|tool| {
            let args = parse_arguments(&call.arguments)?;
            validate(&tool.parameters, &args, self.patterns.as_ref()).map_err(|violation| {
                ToolFailure::new(FailureCode::InvalidToolArguments, violation.to_text())
            })?;
            Ok((tool, args))
        });
        let tool_name = match &prepared {
            Ok((tool, _)) => tool.name.clone(),
            Err(_) => call.tool_name.clone(),
        };
        // Follow-up calls are dispatched once the round's stream has ended (`Answering`).
        if let Some(answers) = turn.answers_mut().filter(|_| follow_up) {
            answers.push((call.clone(), None));
        }
        match prepared {
            Ok((tool, args)) => {
                let timeout_ms = match tool.time_limit {
                    TimeLimit::Default => Some(self.config.tool_timeout_ms),
                    TimeLimit::Never => None,
                    TimeLimit::Ms(ms) => Some(ms),
                };
                turn.running.start(
                    call.tool_call_id.clone(),
                    tool_name.clone(),
                    follow_up,
                    timeout_ms,
                );
                self.actions
                    .push_back(Action::Emit(RuntimeEvent::ToolStarted {
                        thread_id: thread_id.to_owned(),
                        run_id: run_id.clone(),
                        tool_call_id: call.tool_call_id.clone(),
                        tool_name,
                        args: args.clone(),
                    }));
                self.actions.push_back(Action::Execute(ToolCallJob {
                    thread_id: thread_id.to_owned(),
                    run_id,
                    tool_call_id: call.tool_call_id,
                    tool,
                    args,
                    timeout_ms,
                }));
            }
            Err(failure) => {
                let outcome = ToolOutcome::Failed(failure);
                if follow_up {
                    if let Some(slot) = turn.answers_mut().and_then(|a| a.last_mut()) {
                        slot.1 = Some(outcome.clone());
                    }
                } else {
                    self.record_result(thread_id, &call.tool_call_id, &outcome);
                }
                self.emit_tool_finished(
                    thread_id,
                    &run_id,
                    &call.tool_call_id,
                    &tool_name,
                    &outcome,
                );
            }
        }
    }

    /// Puts a tool message for the call into the thread, where the agent expects it.
    pub(super) fn record_result(
        &mut self,
        thread_id: &str,
        tool_call_id: &str,
        outcome: &ToolOutcome,
    ) {
        let id = self.next_id("tool");
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        state.handled.insert(tool_call_id.to_owned());
        state.unsent.push(id.clone());
        state.changes.ids.push(id.clone());
        let at = state.thread.insert_tool_result(ToolMessage {
            id,
            content: Content::Text(outcome.content()),
            tool_call_id: tool_call_id.to_owned(),
            error: outcome.error(),
            encrypted_value: None,
            metadata: None,
            subagent_run_id: None,
        });
        if at + 1 != state.thread.messages().len() {
            // Placed before later messages (right after its assistant message).
            state.changes.all = true;
        }
    }

    pub(super) fn emit_tool_finished(
        &mut self,
        thread_id: &str,
        run_id: &str,
        tool_call_id: &str,
        tool_name: &str,
        outcome: &ToolOutcome,
    ) {
        let (result, error) = match outcome {
            ToolOutcome::Value(value) => (Some(value.clone()), None),
            ToolOutcome::Failed(failure) => (
                None,
                Some(ToolErrorInfo {
                    code: failure.code.as_str(),
                    message: failure.message.clone(),
                }),
            ),
        };
        self.actions
            .push_back(Action::Emit(RuntimeEvent::ToolFinished {
                thread_id: thread_id.to_owned(),
                run_id: run_id.to_owned(),
                tool_call_id: tool_call_id.to_owned(),
                tool_name: tool_name.to_owned(),
                result,
                error,
            }));
    }
}

/// A result larger than `limit` bytes (a string's UTF-8, any other value's JSON text) becomes a
/// `TOOL_RESULT_TOO_LARGE` failure.
pub(super) fn bounded(outcome: ToolOutcome, tool_name: &str, limit: usize) -> ToolOutcome {
    let size = match &outcome {
        ToolOutcome::Value(Value::String(text)) => text.len(),
        ToolOutcome::Value(value) => value.to_json().len(),
        ToolOutcome::Failed(_) => return outcome,
    };
    if size <= limit {
        return outcome;
    }
    ToolOutcome::Failed(ToolFailure::new(
        FailureCode::ToolResultTooLarge,
        format!("{tool_name} returned {size} bytes; the limit is {limit} (maxToolResultBytes)"),
    ))
}

/// Parses a call's JSON arguments: `""` is `{}`.
pub(super) fn parse_arguments(text: &str) -> Result<Value, ToolFailure> {
    if crate::lean::text::trim(text).is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    // The arguments text was assembled from parsed deltas: it is in the internal string form.
    Value::parse_internal(text).map_err(|e| {
        ToolFailure::new(
            FailureCode::InvalidToolArguments,
            format!("the arguments are not valid JSON: {e}"),
        )
    })
}
