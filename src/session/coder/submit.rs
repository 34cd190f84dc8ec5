//! A batch of calls: run (or settled), then answered in one `POST .../tool-results`, and that
//! POST's answer.

use super::round::{Request, Step};
use super::CoderAction;
use super::{biggest, routes};
use crate::session::action::Action;
use crate::session::config::Pending;
use crate::session::events::RuntimeEvent;
use crate::session::turn::Turn;
use crate::session::Session;

use crate::coder::submit::results_body;
use crate::coder::{Submission, SubmitReply, SubmitStep};
use crate::lean::text::{concat, decimal};
use crate::protocol::thread::PendingCall;
use crate::tools::outcome::{FailureCode, Interruption, ToolFailure, ToolOutcome};

/// Submissions of one turn that may fail twice each before the turn ends in error.
pub(super) const MAX_RECONCILES: u8 = 2;

/// How long a `tool-results` POST may go unanswered before it counts as failed (no answer: sent
/// once more, then the chat's state read again), so a POST that never answers still settles
/// the run.
pub(super) const SUBMIT_ANSWER_MS: u64 = 10_000;

impl Session {
    /// An `action_required` batch handed out these calls: each runs (or is answered at once, as
    /// a disabled or unknown tool's call is); a turn that found them owed before posting its
    /// message follows its `pending` option.
    pub(super) fn calls_required(&mut self, thread_id: &str, calls: Vec<PendingCall>) {
        let Some(round) = self.turn_mut(thread_id).and_then(Turn::chat_mut) else {
            return;
        };
        if calls.is_empty() {
            // The batch again, every call of it handed out before: answers kept for them (a
            // refused submission's) are owed now, unless a batch is being answered or sent.
            if round.answers.is_empty() && round.submission.is_none() && !round.outcomes.is_empty()
            {
                self.submit_batch(thread_id);
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
                if let Some(round) = self.turn_mut(thread_id).and_then(Turn::chat_mut) {
                    round.answers.push((call, Some(outcome)));
                }
            } else {
                self.dispatch(thread_id, call, true);
            }
        }
    }

    /// Every call of the batch is answered: its one submission goes out.
    pub(in crate::session) fn submit_batch(&mut self, thread_id: &str) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let (Some(turn), Some(chat)) = (state.turn.as_mut(), state.chat.as_ref()) else {
            return;
        };
        let round_number = turn.round;
        let Some(round) = turn.chat_mut() else {
            return;
        };
        for (call, outcome) in std::mem::take(&mut round.answers) {
            let outcome = outcome.unwrap_or_else(|| {
                ToolOutcome::Failed(ToolFailure::new(
                    crate::tools::outcome::FailureCode::ToolExecutionFailed,
                    "the tool produced no result",
                ))
            });
            round.outcomes.push((call.tool_call_id, outcome));
        }
        // The server's pending set: the batch (each id once), less what the history answers
        // already. A call handed out to this page before and answered by no one since is not
        // run twice: its result is lost.
        let mut too_large: Vec<ToolOutcome> = Vec::new();
        let lost = ToolOutcome::Failed(ToolFailure::interrupted(
            Interruption::RunEnded,
            "this call was handed out before and its result was lost",
        ));
        let mut results: Vec<(&str, &ToolOutcome)> = Vec::new();
        for call in chat.coder.batch() {
            let id = call.tool_call_id.as_str();
            if chat.coder.is_answered(id) || results.iter().any(|&(have, _)| have == id) {
                continue;
            }
            let outcome = round.outcomes.iter().find(|(done, _)| done == id);
            results.push((id, outcome.map_or(&lost, |(_, outcome)| outcome)));
        }
        if results.is_empty() {
            return;
        }
        let mut body = results_body(&results);
        if body.len() > super::MAX_BODY_BYTES {
            // coderd takes at most 256 KiB per batch (413 over it): the biggest results are
            // answered as errors that name the limit, until the rest fits.
            // Each result's size; the biggest left is taken by a plain search (a sort's code
            // costs kilobytes of wasm).
            let mut sizes: Vec<usize> = results
                .iter()
                .map(|result| results_body(std::slice::from_ref(result)).len())
                .collect();
            let mut size = body.len();
            let mut cut = Vec::new();
            while size > super::MAX_BODY_BYTES {
                let at = biggest(&sizes);
                let bytes = std::mem::take(&mut sizes[at]);
                if bytes == 0 {
                    break;
                }
                size = size - bytes + 400;
                cut.push(at);
                too_large.push(ToolOutcome::Failed(ToolFailure::new(
                    FailureCode::ToolResultTooLarge,
                    concat(&[
                        "the result is ",
                        &decimal(bytes as i64),
                        " bytes of JSON: a Coder chat takes at most 262144 bytes (256 KiB) of tool results per batch",
                    ]),
                )));
            }
            for (at, outcome) in cut.into_iter().zip(&too_large) {
                results[at].1 = outcome;
            }
            body = results_body(&results);
        }
        let submission = Submission::new(body.clone());
        let request_id = self.next_number();
        let run_id = self.next_id("run");
        let Some(turn) = self.turn_mut(thread_id) else {
            return;
        };
        turn.round = round_number + 1;
        turn.run_id = run_id.clone();
        if let Some(round) = turn.chat_mut() {
            round.submission = Some((request_id, submission));
        }
        self.actions
            .push_back(Action::Emit(RuntimeEvent::RoundStarted {
                thread_id: thread_id.to_owned(),
                run_id,
                round: round_number + 1,
            }));
        self.send_results(thread_id, request_id, body);
    }

    /// The chat's state is read again: its stream, opened anew, starts with the snapshot.
    fn reread(&mut self, thread_id: &str) {
        let stream_id = self.chat_mut(thread_id).and_then(|chat| chat.stream.take());
        self.actions
            .push_back(Action::Coder(CoderAction::CloseStream {
                thread_id: thread_id.to_owned(),
                stream_id,
            }));
        self.open_stream(thread_id);
    }

    pub(super) fn send_results(&mut self, thread_id: &str, request_id: u64, body: String) {
        if let Some(round) = self.turn_mut(thread_id).and_then(Turn::chat_mut) {
            // Its deadline is stamped at the host's next `poll_action`.
            round.answer_by = None;
            self.unstamped_waits = true;
        }
        let url = routes(self.coder_config()).tool_results(thread_id);
        self.post(thread_id, request_id, Request::Results, url, Some(body));
    }

    /// The answer to a `tool-results` POST.
    pub(super) fn results_answered(
        &mut self,
        thread_id: &str,
        request_id: u64,
        reply: SubmitReply,
    ) {
        let Some(round) = self.turn_mut(thread_id).and_then(Turn::chat_mut) else {
            // The turn is over (stopped): whatever the answer, nothing more is sent.
            return;
        };
        let Some((id, _)) = round.submission.as_mut() else {
            return;
        };
        if *id != request_id {
            return;
        }
        if self.recover_invalid(thread_id, &reply) {
            // Its pending calls are closed by the recovery: nothing is owed any more.
            if let Some(round) = self.turn_mut(thread_id).and_then(Turn::chat_mut) {
                round.submission = None;
                round.outcomes.clear();
            }
            return;
        }
        let Some(round) = self.turn_mut(thread_id).and_then(Turn::chat_mut) else {
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
                        Some(error) => self.fail_api(thread_id, what, error),
                        None => self.fail_request(thread_id, what, SubmitReply::Network),
                    };
                }
                self.reread(thread_id);
            }
            SubmitStep::Resend => {
                let body = submission.body().to_owned();
                let request_id = self.next_number();
                if let Some((id, _)) = self
                    .turn_mut(thread_id)
                    .and_then(Turn::chat_mut)
                    .and_then(|r| r.submission.as_mut())
                {
                    *id = request_id;
                }
                self.send_results(thread_id, request_id, body);
            }
            // The pending set is not the one answered: the next `action_required` (sent on
            // every reconnect) says what is; the calls already answered are not run again.
            SubmitStep::Refresh(_) => {
                round.submission = None;
                self.reread(thread_id);
            }
            SubmitStep::Failed(error) => {
                round.submission = None;
                self.fail_api(thread_id, "submitting the tool results", error);
            }
        }
    }
}

impl Session {
    /// Stamps the deadline of each submission out that has none (`now`: the host's clock).
    pub(in crate::session) fn stamp_submissions(&mut self, now: u64) {
        let turns = self.threads.values_mut().filter_map(|t| t.turn.as_mut());
        for round in turns.filter_map(Turn::chat_mut) {
            if round.submission.is_some() {
                round.answer_by.get_or_insert(now + SUBMIT_ANSWER_MS);
            }
        }
    }

    /// A submission out whose deadline passed by `now` counts as unanswered (a network
    /// failure): sent once more, or the chat's state read again; its late answer is ignored.
    pub(in crate::session) fn submissions_due(&mut self, now: u64) {
        // One at a time (its deadline cleared: never due twice), without a list of them.
        loop {
            let due = self.threads.iter_mut().find_map(|(id, state)| {
                let round = state.turn.as_mut()?.chat_mut()?;
                let (request_id, _) = round.submission.as_ref()?;
                round.answer_by.filter(|at| *at <= now)?;
                round.answer_by = None;
                Some((id.clone(), *request_id))
            });
            let Some((thread_id, request_id)) = due else {
                return;
            };
            self.handle_chat_reply(&thread_id, request_id, SubmitReply::Network);
        }
    }
}

impl Turn {
    /// When the submission out counts as unanswered, if one is out and stamped.
    pub(in crate::session) fn submission_deadline(&self) -> Option<u64> {
        match &self.backend {
            crate::session::turn::Round::Coder(round) if round.submission.is_some() => {
                round.answer_by
            }
            _ => None,
        }
    }
}
