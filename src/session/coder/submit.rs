//! A batch of calls: run (or settled), then answered in one `POST .../tool-results`, and that
//! POST's answer.

use super::fail::{fail_api, fail_request, recover_invalid};
use super::round::Step;
use super::send::{open_stream, send_results, submit_batch};
use super::CoderAction;
use crate::session::action::Action;
use crate::session::calls::dispatch;
use crate::session::config::Pending;
use crate::session::shared::Shared;
use crate::session::thread::ThreadState;
use crate::session::turn::{Round, Turn};

use crate::coder::{SubmitReply, SubmitStep};
use crate::lean::sorted::SortedMap;
use crate::protocol::thread::PendingCall;
use crate::tools::outcome::{Interruption, ToolFailure, ToolOutcome};

/// Submissions of one turn that may fail twice each before the turn ends in error.
pub(super) const MAX_RECONCILES: u8 = 2;

/// How long a `tool-results` POST may go unanswered before it counts as failed (no answer: sent
/// once more, then the chat's state read again), so a POST that never answers still settles
/// the run.
pub(super) const SUBMIT_ANSWER_MS: u64 = 10_000;

/// How long Stop's interrupt POST may go unanswered before it counts as failed (as a network
/// failure: no second interrupt; the next message no longer waits for it): the same bound.
pub(super) const INTERRUPT_ANSWER_MS: u64 = SUBMIT_ANSWER_MS;

/// An `action_required` batch handed out these calls: each runs (or is answered at once, as
/// a disabled or unknown tool's call is); a turn that found them owed before posting its
/// message follows its `pending` option.
pub(super) fn calls_required(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    calls: Vec<PendingCall>,
) {
    let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) else {
        return;
    };
    if calls.is_empty() {
        // The batch again, every call of it handed out before: answers kept for them (a
        // refused submission's) are owed now, unless a batch is being answered or sent. So are
        // the calls a Stop cut short whose interrupt never reached the chat: answered as
        // stopped, never run, whatever the turn's `pending` says (the user stopped them).
        let idle = round.answers.is_empty() && round.submission.is_none();
        if idle && (!round.outcomes.is_empty() || stopped_asked(state)) {
            submit_batch(sh, thread_id, state);
        }
        return;
    }
    let settle = matches!(round.step, Step::Waiting(_)) && round.pending == Pending::Settle;
    for call in calls {
        if settle {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::Abandoned,
                "this call was never answered (the page was closed or reloaded while it ran)",
            ));
            if let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) {
                round.answers.push((call, Some(outcome)));
            }
        } else {
            dispatch(sh, thread_id, state, call, true);
        }
    }
}

/// Whether the chat's batch names a call a Stop cut short that no result answers yet.
fn stopped_asked(state: &ThreadState) -> bool {
    let Some(chat) = state.chat.as_ref() else {
        return false;
    };
    let stopped = |id: &String| chat.stopped.contains(id) && !chat.coder.is_answered(id);
    chat.coder.batch().iter().any(|c| stopped(&c.tool_call_id))
}

/// The chat's state is read again: its stream, opened anew, starts with the snapshot.
fn reread(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    let stream_id = state
        .chat
        .as_deref_mut()
        .and_then(|chat| chat.stream.take());
    sh.actions
        .push_back(Action::Coder(CoderAction::CloseStream {
            thread_id: thread_id.to_owned(),
            stream_id,
        }));
    open_stream(sh, thread_id, state);
}

/// The answer to a `tool-results` POST.
pub(super) fn results_answered(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    request_id: u64,
    reply: SubmitReply,
) {
    let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) else {
        // The turn is over (stopped): whatever the answer, nothing more is sent.
        return;
    };
    let Some((id, _)) = round.submission.as_mut() else {
        return;
    };
    if *id != request_id {
        return;
    }
    if recover_invalid(sh, thread_id, state, &reply) {
        // Its pending calls are closed by the recovery: nothing is owed any more.
        if let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) {
            round.submission = None;
            round.outcomes.clear();
        }
        return;
    }
    let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) else {
        return;
    };
    let Some((_, submission)) = round.submission.as_mut() else {
        return;
    };
    match submission.handle_reply(reply) {
        // Taken, or answered first by someone else (the server's deadline, another tab, an
        // interrupt): the stream tells how the turn goes on.
        SubmitStep::Done | SubmitStep::Superseded(_) => {
            round.submission = None;
            // Delivered (or answered by someone else): never owed again.
            round.outcomes.clear();
        }
        // Sent twice and failed twice: whether it landed is in the chat's state, read again
        // (a new stream's snapshot): its history shows the results, or its batch comes
        // again and the kept answers go once more. A bounded number of times.
        SubmitStep::Reconcile(error) => {
            round.submission = None;
            round.reconciles += 1;
            if round.reconciles > MAX_RECONCILES {
                let what = "submitting the tool results";
                return match error {
                    Some(error) => fail_api(sh, thread_id, state, what, error),
                    None => fail_request(sh, thread_id, state, what, SubmitReply::Network),
                };
            }
            reread(sh, thread_id, state);
        }
        SubmitStep::Resend => {
            let body = submission.body().to_owned();
            let request_id = sh.next_number();
            if let Some((id, _)) = state
                .turn
                .as_mut()
                .and_then(Turn::chat_mut)
                .and_then(|r| r.submission.as_mut())
            {
                *id = request_id;
            }
            send_results(sh, thread_id, state, request_id, body);
        }
        // The pending set is not the one answered: the next `action_required` (sent on
        // every reconnect) says what is; the calls already answered are not run again.
        SubmitStep::Refresh(_) => {
            round.submission = None;
            reread(sh, thread_id, state);
        }
        SubmitStep::Failed(error) => {
            round.submission = None;
            fail_api(sh, thread_id, state, "submitting the tool results", error);
        }
    }
}
/// Stamps the deadline of each submission out and of each chat's interrupts out that has none
/// (`now`: the host's clock).
pub(in crate::session) fn stamp_chat_requests(threads: &mut SortedMap<ThreadState>, now: u64) {
    for state in threads.values_mut() {
        if let Some(chat) = state.chat.as_deref_mut().filter(|chat| chat.stopping()) {
            chat.stop_by.get_or_insert(now + INTERRUPT_ANSWER_MS);
        }
        let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) else {
            continue;
        };
        if round.submission.is_some() {
            round.answer_by.get_or_insert(now + SUBMIT_ANSWER_MS);
        }
    }
}

impl ThreadState {
    /// When the interrupts Stop owes on this thread's chat count as unanswered, if one is out
    /// and stamped (whether the thread has a turn or not).
    pub(in crate::session) fn stop_deadline(&self) -> Option<u64> {
        let chat = self.chat.as_deref()?;
        chat.stop_by.filter(|_| chat.stopping())
    }
}

impl Turn {
    /// When the submission out counts as unanswered, if one is out and stamped.
    pub(in crate::session) fn submission_deadline(&self) -> Option<u64> {
        match &self.backend {
            Round::Coder(round) if round.submission.is_some() => round.answer_by,
            _ => None,
        }
    }
}
