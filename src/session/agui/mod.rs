//! The AG-UI round: a turn's runs, each a `POST` of `RunAgentInput` answered by an event stream,
//! restarted with the tool results until the agent answers (docs/architecture.md, "The loop as a
//! state machine").
//! - [`round`]: the round's state ([`AguiRound`]), as data, below the turn that holds it;
//! - this file: starting a turn ([`start_run`]);
//! - [`request`]: each run's request ([`request::send_round`]);
//! - [`stream`]: the response, folded into the thread as it streams, and resuming a cut stream;
//! - [`interrupts`]: the open interrupts and the answers a run resumes them with.

pub(super) mod interrupts;
pub(super) mod request;
pub(super) mod round;
pub(super) mod stream;

use super::advance::maybe_advance;
use super::call_table::CallTable;
use super::calls::dispatch;
use super::config::{Pending, RunRequest};
use super::error::SessionError;
use super::shared::Shared;
use super::thread::{record_result, ThreadState};
use super::tool_set::{CallKind, ToolSet};
use super::turn::{message_ids, unanswered_calls, Round, Turn};
use interrupts::{answer_interrupts, held_calls};
use request::send_round;
use round::{AguiRound, Outgoing, Phase, RunEnd};

use crate::protocol::event::Message;
use crate::tools::outcome::{Interruption, ToolFailure, ToolOutcome};

/// What refuses a run before its thread is looked at: a thread id that cannot be one segment of
/// the run URL, and `newChat` (a Coder chat's).
pub(in crate::session) fn check_run(request: &RunRequest) -> Result<(), SessionError> {
    crate::thread_id::check(&request.thread_id).map_err(SessionError::BadThreadId)?;
    if request.new_chat {
        return Err(SessionError::NotForBackend {
            member: "newChat",
            backend: "agui",
        });
    }
    Ok(())
}

/// Starts a turn in the thread (`state`, of the request's id, once [`check_run`] passed):
/// adds the request's messages and sends the first run (the session's `start_run`).
pub(in crate::session) fn start_run(
    sh: &mut Shared,
    state: &mut ThreadState,
    request: RunRequest,
    tools: ToolSet,
) -> Result<(), SessionError> {
    let thread_id = request.thread_id.clone();
    if state.turn.is_some() {
        return Err(SessionError::Busy { thread_id });
    }
    let resume = answer_interrupts(
        &thread_id,
        &state.interrupts,
        request.resume,
        request.now_ms,
        sh.patterns.as_ref(),
    )?;
    // A history whose calls never got an answer (a reload mid-tool, a crash) is rejected by
    // providers that demand a result for every call: settle those first, or run those of
    // the last assistant message that are the browser's (`pending: "run"`). A call an open
    // interrupt names is the server's until it is resumed: it is neither settled nor run here.
    let held = held_calls(&state.interrupts);
    let mut dangling = unanswered_calls(state.thread.messages());
    dangling.retain(|id| !held.contains(id));
    let mut to_run = Vec::new();
    if request.pending == Pending::Run {
        // Calls answered in the loaded history are in `handled` (`set_messages`).
        for call in state.calls_to_run(&held) {
            let backend = matches!(
                tools.calls.get(&call.function.name),
                Some(CallKind::Backend)
            );
            if !backend {
                dangling.retain(|id| *id != call.id);
                to_run.extend(state.thread.pending_call(&call.id));
            }
        }
    }
    for tool_call_id in dangling {
        let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
            Interruption::Abandoned,
            "this call was never answered (the page was closed or reloaded while it ran)",
        ));
        record_result(sh, state, &tool_call_id, &outcome);
    }
    state.run = sh.next_number();
    let before = message_ids(state.thread.messages());
    for message in request.messages {
        if before.contains(message.id()) {
            continue;
        }
        // Added at the end: new to the next take (`Changes::seen`).
        state.unsent.push(message.id().to_owned());
        if let Message::Tool(tool) = &message {
            state.handled.insert(tool.tool_call_id.clone());
        }
        state.thread.push_message(message);
    }
    if let Some(initial) = request.state {
        state.thread.set_state(initial);
        state.changes.state = true;
    }
    state.turn = Some(Turn {
        tools,
        before,
        held_before: held,
        round: 0,
        run_id: String::new(),
        running: CallTable::default(),
        reconnect: None,
        backend: Round::Agui(AguiRound {
            context: request.context,
            forwarded_props: request.forwarded_props,
            resume,
            // No request yet: `send_round` starts the stream, or a loaded history's calls
            // are answered first.
            phase: Phase::Answering {
                end: RunEnd::Completed,
                answers: Vec::new(),
            },
            reconnects: 0,
            resumed_from: None,
            outgoing: Outgoing::NotYet,
        }),
    });
    if to_run.is_empty() {
        send_round(sh, &thread_id, state);
        return Ok(());
    }
    // The calls run first, under the run id of the request that will carry their results;
    // that request goes out once they are all answered (`maybe_advance`).
    let run_id = sh.next_id("run");
    if let Some(turn) = state.turn.as_mut() {
        turn.run_id = run_id;
    }
    for call in to_run {
        dispatch(sh, &thread_id, state, call, true);
    }
    maybe_advance(sh, &thread_id, state);
    Ok(())
}
