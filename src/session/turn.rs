//! What every backend's turn has ([`Turn`], [`Round`], one reconnect wait and one backoff), and how
//! a turn goes on or ends: the next round once the calls are answered, Stop, the end (completed,
//! aborted, failed).

use super::action::Action;
use super::agui::interrupts::held_calls;
use super::agui::round::{AguiRound, Outgoing, Phase, RunEnd};
use super::call_table::CallTable;
#[cfg(feature = "coder")]
use super::coder::round::ChatRound;
use super::events::RuntimeEvent;
use super::result::{RunError, RunResult, RunStatus};
use super::tool_set::ToolSet;
use super::Session;

use crate::lean::sorted::{IdSet, StrSet};

use crate::protocol::decode::EventDecoder;
use crate::protocol::event::Message;
use crate::protocol::thread::PendingCall;
use crate::tools::outcome::{FailureCode, Interruption, ToolFailure, ToolOutcome};

/// A `run` call in progress: what every backend's turn has, and its round ([`Round`]).
pub(super) struct Turn {
    /// What the agent may call, resolved when the turn started.
    pub(super) tools: ToolSet,
    /// Ids of the messages that were in the thread before the turn (for `newMessages`).
    pub(super) before: IdSet,
    /// The calls open interrupts named when the turn started: the server's, so the end of the
    /// turn does not settle them even when its run closed those interrupts.
    pub(super) held_before: Vec<String>,
    /// Rounds so far (AG-UI: runs sent; Coder: the message and each submission).
    pub(super) round: u32,
    /// The current round's run id.
    pub(super) run_id: String,
    /// The call table: calls the host is running, by id, with their deadlines.
    pub(super) running: CallTable,
    /// A cut stream waiting to be resumed (either backend's): its deadline is the session's.
    pub(super) reconnect: Option<ReconnectWait>,
    /// What the backend keeps of the turn.
    pub(super) backend: Round,
}

/// What differs between the backends in a turn: each backend's round, in its own room
/// (`agui/`, and `coder/` with the `coder` feature). The AG-UI round is held inline, as before
/// the Coder one existed (a turn is one per running thread; boxing it would cost an allocation per
/// turn on the path every AG-UI app takes), the Coder one boxed.
#[allow(clippy::large_enum_variant)]
pub(super) enum Round {
    /// Runs of an AG-UI agent, restarted with the tool results.
    Agui(AguiRound),
    /// A Coder chat's turn: one stream, read until the chat is idle again, and one submission
    /// per batch of calls.
    #[cfg(feature = "coder")]
    Coder(Box<ChatRound>),
}

/// The wait before a cut stream is resumed ([`Session::poll_timeout`] and
/// [`Session::handle_timeout`], the same clock as the calls' deadlines): one wait for both
/// backends.
pub(super) struct ReconnectWait {
    /// The id of the last complete event received (AG-UI's `Last-Event-ID`; empty for Coder,
    /// whose stream resumes after the last committed message).
    pub(super) last_event_id: String,
    /// How long to wait, in milliseconds.
    pub(super) delay_ms: u64,
    /// When to resume in the host's clock: set by the first [`Session::poll_action`] after the
    /// cut (its `now`), as a call's deadline is.
    pub(super) deadline: Option<u64>,
}

/// The one backoff of both backends: `base`, doubled for each attempt in a row.
pub(super) fn backoff(base: u64, attempt: u32) -> u64 {
    base.saturating_mul(1 << attempt.min(16))
}

impl Turn {
    /// The AG-UI round, for an AG-UI turn.
    pub(super) fn agui(&mut self) -> Option<&mut AguiRound> {
        match &mut self.backend {
            Round::Agui(round) => Some(round),
            #[cfg(feature = "coder")]
            Round::Coder(_) => None,
        }
    }

    /// The current round's response decoder, while an AG-UI run's body streams in.
    pub(super) fn decoder(&mut self) -> Option<&mut EventDecoder> {
        self.agui()?.decoder()
    }

    /// The current round's follow-up calls and their outcomes, once its stream has ended.
    pub(super) fn answers_mut(&mut self) -> Option<&mut Vec<(PendingCall, Option<ToolOutcome>)>> {
        match &mut self.backend {
            Round::Agui(AguiRound {
                phase: Phase::Answering { answers, .. },
                ..
            }) => Some(answers),
            Round::Agui(_) => None,
            #[cfg(feature = "coder")]
            Round::Coder(round) => Some(&mut round.answers),
        }
    }

    /// A cut stream waits `delay_ms` before it is resumed; the session stamps its deadline at the
    /// host's next `poll_action` (`Session::unstamped_waits`).
    pub(super) fn wait_to_reconnect(&mut self, last_event_id: String, delay_ms: u64) {
        self.reconnect = Some(ReconnectWait {
            last_event_id,
            delay_ms,
            deadline: None,
        });
    }
}

impl Session {
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

    /// Sends [`Action::Reconnect`] for every cut stream whose wait ended by `now`.
    pub(super) fn resume_waited(&mut self, now: u64) {
        #[cfg(feature = "coder")]
        let mut streams = Vec::new();
        for (thread_id, state) in self.threads.iter_mut() {
            let Some(turn) = state.turn.as_mut() else {
                continue;
            };
            let due = turn.reconnect.as_ref().and_then(|w| w.deadline);
            if due.is_none_or(|d| d > now) {
                continue;
            }
            let wait = turn.reconnect.take();
            let request = match &turn.backend {
                Round::Agui(AguiRound {
                    outgoing: Outgoing::Sent(request),
                    ..
                }) => request,
                Round::Agui(_) => continue,
                // A chat's stream reopens after the last committed message.
                #[cfg(feature = "coder")]
                Round::Coder(_) => {
                    streams.push(thread_id.clone());
                    continue;
                }
            };
            let Some(wait) = wait else {
                continue;
            };
            self.actions.push_back(Action::Reconnect {
                thread_id: thread_id.clone(),
                run_id: turn.run_id.clone(),
                request: request.clone(),
                last_event_id: wait.last_event_id,
            });
        }
        #[cfg(feature = "coder")]
        for thread_id in streams {
            self.open_stream(&thread_id);
        }
    }

    /// Aborts the thread's turn: the fetch and the handlers are cancelled, no restart happens,
    /// and every call of the turn that got no result is settled with an `INTERRUPTED` result.
    pub fn abort(&mut self, thread_id: &str) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_mut() else {
            return;
        };
        let run_id = turn.run_id.clone();
        let running = turn.running.drain();
        self.actions.push_back(Action::Cancel {
            thread_id: thread_id.to_owned(),
        });
        #[cfg(feature = "coder")]
        self.stop_chat(thread_id);
        for (id, name) in running {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::Stopped,
                format!("the run was stopped before {name} finished"),
            ));
            self.emit_tool_finished(thread_id, &run_id, &id, &name, &outcome);
        }
        self.finish(thread_id, RunStatus::Aborted, None);
    }

    /// Restarts when every follow-up call of the round is answered, or ends the turn.
    pub(super) fn maybe_advance(&mut self, thread_id: &str) {
        let Some(turn) = self.turn_mut(thread_id) else {
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
                    self.submit_batch(thread_id);
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
                self.finish(thread_id, status, None);
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
            self.record_result(thread_id, &call.tool_call_id, &outcome);
        }
        self.send_round(thread_id);
    }

    pub(super) fn fail(
        &mut self,
        thread_id: &str,
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
        self.finish(thread_id, RunStatus::Error, Some(error));
    }

    /// Ends the turn: settles every call of the turn still without a result, then reports.
    pub(super) fn finish(&mut self, thread_id: &str, status: RunStatus, error: Option<RunError>) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
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
            let outcome = outcome
                .unwrap_or_else(|| ToolOutcome::Failed(ToolFailure::interrupted(why, reason)));
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
            self.record_result(thread_id, tool_call_id, outcome);
        }
        #[cfg(feature = "coder")]
        if chat {
            self.end_chat_turn(thread_id);
        }
        let Some(state) = self.threads.get(thread_id) else {
            return;
        };
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
        self.actions
            .push_back(Action::Emit(RuntimeEvent::RunFinished {
                thread_id: thread_id.to_owned(),
                status,
                rounds: turn.round,
                error,
                interrupts,
            }));
        self.actions.push_back(Action::Finished(Box::new(result)));
    }
}

/// The ids of tool calls that no tool message answers, in thread order.
pub(super) fn unanswered_calls(messages: &[Message]) -> Vec<String> {
    let mut answered = Vec::new();
    for message in messages {
        if let Message::Tool(t) = message {
            answered.push(t.tool_call_id.as_str());
        }
    }
    let answered = StrSet::new(answered);
    let mut ids = Vec::new();
    for message in messages {
        let Message::Assistant(a) = message else {
            continue;
        };
        for call in a.tool_calls.iter().flatten() {
            if !answered.contains(call.id.as_str()) {
                ids.push(call.id.clone());
            }
        }
    }
    ids
}

/// The ids of the thread's messages: what a turn's `before` holds (for `newMessages`). In one
/// buffer ([`IdSet`]): the whole thread's ids as a hash set of `String`s, built at every turn,
/// were a long chat's largest passing cost in the heap.
pub(super) fn message_ids(messages: &[Message]) -> IdSet {
    IdSet::new(messages.iter().map(Message::id).collect())
}
