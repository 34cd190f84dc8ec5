//! Browser tool calls, over the shared context and the one thread a round borrows: handing them
//! out, their results, and what the server's `pendingToolCallIds` says about them. (Deadlines and
//! removals look across threads: the router's, `inputs.rs`.)

use super::action::{Action, ToolCallJob};
use super::advance::{finish, maybe_advance};
use super::call_table::RunningCall;
use super::error::quoted_list;
use super::events::RuntimeEvent;
use super::result::{RunError, RunStatus};
use super::shared::Shared;
use super::thread::{record_result, ThreadState};
use super::tool_set::CallKind;

use crate::json::{quoted, Value};

use crate::protocol::thread::PendingCall;
use crate::tools::outcome::{FailureCode, Interruption, ToolFailure, ToolOutcome};
use crate::tools::schema::validate;
use crate::tools::TimeLimit;

/// A browser tool finished. Results for calls that are not running (late, after an abort,
/// or unknown) are ignored.
pub(super) fn tool_result(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    tool_call_id: &str,
    outcome: ToolOutcome,
) {
    let limit = sh.config.max_tool_result_bytes;
    let Some(turn) = state.turn.as_mut() else {
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
        record_result(sh, state, tool_call_id, &outcome);
    }
    sh.emit_tool_finished(thread_id, &run_id, tool_call_id, &tool_name, &outcome);
    maybe_advance(sh, thread_id, state);
}

/// After `RUN_FINISHED` and the end of the body: decides what the browser must answer.
///
/// A non-empty `outcome.pendingToolCallIds` is the server's word on which calls are the
/// client's: the calls it names run, an id that names no call is reported (a `diagnostic`,
/// `run/unknown-pending-call`) and skipped, and a call of this run it leaves out is not run
/// (running a tool the server did not hand over could act for no one) but answered at once,
/// with a tool message that says so (providers want an answer for every call).
pub(super) fn collect_pending(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    check_named_pending(sh, thread_id, state);
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
    if restarts >= sh.config.max_rounds {
        // The model keeps calling tools: stop without running them (their results would
        // never reach it), and settle the calls so the next turn is valid.
        let limit = sh.config.max_rounds;
        for call in calls {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::RunEnded,
                format!("the turn stopped after maxRounds ({limit}) restarts"),
            ));
            record_result(sh, state, &call.tool_call_id, &outcome);
        }
        let error = RunError {
            code: "run/max-rounds".to_owned(),
            message: format!("the agent still called tools after {limit} restarts"),
            status: None,
            details: None,
        };
        finish(sh, thread_id, state, RunStatus::MaxRounds, Some(error));
        return;
    }
    for call in calls {
        dispatch(sh, thread_id, state, call, true);
    }
}

/// Reports the ids of `outcome.pendingToolCallIds` that name no call, and answers the calls
/// of this run it leaves out (see [`collect_pending`]).
pub(super) fn check_named_pending(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
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
        record_result(sh, state, &call.tool_call_id, &outcome);
        sh.emit_tool_finished(
            thread_id,
            &run_id,
            &call.tool_call_id,
            &call.tool_name,
            &outcome,
        );
    }
    for id in unknown {
        sh.actions
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
pub(super) fn dispatch(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    call: PendingCall,
    follow_up: bool,
) {
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
        validate(&tool.parameters, &args, sh.patterns.as_ref()).map_err(|violation| {
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
                TimeLimit::Default => Some(sh.config.tool_timeout_ms),
                TimeLimit::Never => None,
                TimeLimit::Ms(ms) => Some(ms),
            };
            turn.running.start(
                call.tool_call_id.clone(),
                tool_name.clone(),
                follow_up,
                timeout_ms,
            );
            sh.actions
                .push_back(Action::Emit(RuntimeEvent::ToolStarted {
                    thread_id: thread_id.to_owned(),
                    run_id: run_id.clone(),
                    tool_call_id: call.tool_call_id.clone(),
                    tool_name,
                    args: args.clone(),
                }));
            sh.actions.push_back(Action::Execute(ToolCallJob {
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
                record_result(sh, state, &call.tool_call_id, &outcome);
            }
            sh.emit_tool_finished(thread_id, &run_id, &call.tool_call_id, &tool_name, &outcome);
        }
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
