//! How a turn goes on or ends, over the shared context and the one thread a round borrows: the
//! next round once the calls are answered ([`maybe_advance`]), the resume of a cut stream whose
//! wait ended ([`resume_if_due`]), Stop ([`abort`]) and the end ([`finish`], [`fail`]). Above
//! what each round sends (`agui/request.rs`, `coder/send.rs`), below the rounds' inputs.

use super::action::Action;
use super::agui::interrupts::held_calls;
use super::agui::request::send_round;
use super::agui::round::{AguiRound, Outgoing, Phase, RunEnd};
#[cfg(feature = "coder")]
use super::coder::send::{end_chat_turn, open_stream, stop_chat, submit_batch};
use super::events::RuntimeEvent;
use super::result::{RunError, RunResult, RunStatus};
use super::shared::Shared;
use super::thread::{record_result, ThreadState};
use super::turn::{unanswered_calls, Round};

use crate::tools::outcome::{FailureCode, Interruption, ToolFailure, ToolOutcome};

/// Sends [`Action::Reconnect`] (or reopens a chat's stream) when the thread's cut stream's wait
/// ended by `now`.
pub(super) fn resume_if_due(sh: &mut Shared, thread_id: &str, state: &mut ThreadState, now: u64) {
    let Some(turn) = state.turn.as_mut() else {
        return;
    };
    let due = turn.reconnect.as_ref().and_then(|w| w.deadline);
    if due.is_none_or(|d| d > now) {
        return;
    }
    let wait = turn.reconnect.take();
    let request = match &turn.backend {
        Round::Agui(AguiRound {
            outgoing: Outgoing::Sent(request),
            ..
        }) => request,
        Round::Agui(_) => return,
        // A chat's stream reopens after the last committed message.
        #[cfg(feature = "coder")]
        Round::Coder(_) => return open_stream(sh, thread_id, state),
    };
    let Some(wait) = wait else {
        return;
    };
    sh.actions.push_back(Action::Reconnect {
        thread_id: thread_id.to_owned(),
        run_id: turn.run_id.clone(),
        request: request.clone(),
        last_event_id: wait.last_event_id,
    });
}

/// Aborts the thread's turn: the fetch and the handlers are cancelled, no restart happens,
/// and every call of the turn that got no result is settled with an `INTERRUPTED` result.
pub(super) fn abort(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    let Some(turn) = state.turn.as_mut() else {
        return;
    };
    let run_id = turn.run_id.clone();
    let running = turn.running.drain();
    sh.actions.push_back(Action::Cancel {
        thread_id: thread_id.to_owned(),
    });
    #[cfg(feature = "coder")]
    stop_chat(sh, thread_id, state);
    for (id, name) in running {
        let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
            Interruption::Stopped,
            format!("the run was stopped before {name} finished"),
        ));
        sh.emit_tool_finished(thread_id, &run_id, &id, &name, &outcome);
    }
    finish(sh, thread_id, state, RunStatus::Aborted, None);
}

/// Restarts when every follow-up call of the round is answered, or ends the turn.
pub(super) fn maybe_advance(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    let Some(turn) = state.turn.as_mut() else {
        return;
    };
    if !turn.running.is_empty() {
        return;
    }
    let answers = match &mut turn.backend {
        Round::Agui(AguiRound {
            phase: Phase::Streaming { .. },
            ..
        }) => return,
        #[cfg(feature = "coder")]
        Round::Coder(round) => {
            if round.batch_ready() {
                submit_batch(sh, thread_id, state);
            }
            return;
        }
        Round::Agui(AguiRound {
            phase: Phase::Answering { end, answers },
            ..
        }) if answers.is_empty() => {
            let status = match end {
                RunEnd::Completed => RunStatus::Completed,
                RunEnd::Interrupted => RunStatus::Interrupted,
            };
            finish(sh, thread_id, state, status, None);
            return;
        }
        Round::Agui(AguiRound {
            phase: Phase::Answering { answers, .. },
            ..
        }) => std::mem::take(answers),
    };
    for (call, outcome) in answers {
        let outcome = outcome.unwrap_or_else(|| {
            ToolOutcome::Failed(ToolFailure::new(
                FailureCode::ToolExecutionFailed,
                "the tool produced no result",
            ))
        });
        record_result(sh, state, &call.tool_call_id, &outcome);
    }
    send_round(sh, thread_id, state);
}

/// Ends the turn in error.
pub(super) fn fail(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    code: &str,
    message: String,
    status: Option<u16>,
) {
    let error = RunError {
        code: code.to_owned(),
        message,
        status,
        details: None,
    };
    finish(sh, thread_id, state, RunStatus::Error, Some(error));
}

/// Ends the turn: settles every call of the turn still without a result, then reports.
pub(super) fn finish(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    status: RunStatus,
    error: Option<RunError>,
) {
    let Some(mut turn) = state.turn.take() else {
        return;
    };
    let (why, reason) = match status {
        RunStatus::Aborted => (
            Interruption::Stopped,
            "the run was stopped before this call was answered",
        ),
        _ => (
            Interruption::RunEnded,
            "the run ended before this call was answered",
        ),
    };
    // A call an open interrupt names, or named when the turn started, stays the server's: no
    // answer from here.
    let mut held = held_calls(&state.interrupts);
    held.append(&mut turn.held_before);
    // Results gathered for a restart that will not happen are real answers: keep them. A
    // call still without one (it may be a loaded history's, `Pending::Run`) gets one below.
    let mut settle: Vec<(String, ToolOutcome)> = Vec::new();
    #[cfg(feature = "coder")]
    let chat = matches!(turn.backend, Round::Coder(_));
    let answers = match turn.backend {
        Round::Agui(AguiRound {
            phase: Phase::Streaming { .. },
            ..
        }) => Vec::new(),
        Round::Agui(AguiRound {
            phase: Phase::Answering { answers, .. },
            ..
        }) => answers,
        // A chat's calls are the server's to settle (its interrupt, its deadline).
        #[cfg(feature = "coder")]
        Round::Coder(_) => {
            held.extend(unanswered_calls(state.thread.messages()));
            Vec::new()
        }
    };
    for (call, outcome) in answers {
        if outcome.is_none() && held.contains(&call.tool_call_id) {
            continue;
        }
        let outcome =
            outcome.unwrap_or_else(|| ToolOutcome::Failed(ToolFailure::interrupted(why, reason)));
        settle.push((call.tool_call_id, outcome));
    }
    // Every other call without an answer gets one, so the next turn is valid for providers
    // that demand a result for every call. The turn started with none but the held ones
    // (`start_run` settled or ran the others), so each is this turn's, whichever message it
    // joined: a call may name an earlier turn's message as its parent.
    for id in unanswered_calls(state.thread.messages()) {
        if !held.contains(&id) && !settle.iter().any(|(s, _)| *s == id) {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(why, reason));
            settle.push((id, outcome));
        }
    }
    for (tool_call_id, outcome) in &settle {
        record_result(sh, state, tool_call_id, outcome);
    }
    #[cfg(feature = "coder")]
    if chat {
        end_chat_turn(sh, thread_id, state);
    }
    let messages = state.thread.messages();
    let new_positions = (0..messages.len())
        .filter(|&at| !turn.before.contains(messages[at].id()))
        .collect();
    let interrupts = (status == RunStatus::Interrupted).then(|| state.interrupts.clone());
    let result = RunResult {
        thread_id: thread_id.to_owned(),
        run: state.run,
        status,
        rounds: turn.round,
        message_count: messages.len(),
        new_positions,
        state: state.thread.state().clone(),
        error: error.clone(),
        interrupts: interrupts.clone(),
    };
    sh.actions
        .push_back(Action::Emit(RuntimeEvent::RunFinished {
            thread_id: thread_id.to_owned(),
            status,
            rounds: turn.round,
            error,
            interrupts,
        }));
    sh.actions.push_back(Action::Finished(Box::new(result)));
}
