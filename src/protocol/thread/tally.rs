//! The tool calls of the current run: what was started, ended and answered, how the run
//! ended, and from that the calls the client has to answer ([`Thread::pending_tool_calls`]).

use crate::lean::ids::IdMap;
use crate::lean::sorted::StrSet;
use crate::protocol::event::{Content, Message};

use super::Thread;

/// The `content` of the `TOOL_CALL_RESULT` that some servers (the ag-ui server starter) send for a
/// call they forward to the client. It is not an answer: the call stays pending.
pub const FORWARDED_PLACEHOLDER: &str = "Forwarded to client";

/// A tool call the client has to answer (see [`Thread::pending_tool_calls`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingCall {
    /// The call's id (`toolCallId`).
    pub tool_call_id: String,
    /// The tool called.
    pub tool_name: String,
    /// The arguments as received: JSON text, possibly `""`.
    pub arguments: String,
    /// The id of the assistant message holding the call.
    pub parent_message_id: String,
}

/// How the current run ended, for [`Thread::pending_tool_calls`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Finished {
    /// `outcome.pendingToolCallIds` was a non-empty list: trusted over the tally.
    Named(Vec<String>),
    /// A success without a list: derive it from the tally.
    Derived,
    /// `interrupt` or `cancelled`: nothing for the client to answer with tool results.
    Nothing,
}

/// A call of [`RunTally::calls`] was started in this run (`TOOL_CALL_START`).
const STARTED: usize = 1;
/// Its `TOOL_CALL_END` arrived (after its start): only complete arguments are executable.
const ENDED: usize = 2;
/// It was answered by a real `TOOL_CALL_RESULT` (not the forwarding placeholder).
const ANSWERED: usize = 4;

/// The tool calls of the current run (reset by `RUN_STARTED` and [`Thread::begin_run`]).
#[derive(Debug, Clone, Default)]
pub(super) struct RunTally {
    /// Calls started in this run, in start order (entries of `calls`): the order pending calls
    /// are reported in.
    started: Vec<u32>,
    /// What happened to each call this run named: [`STARTED`], [`ENDED`], [`ANSWERED`]. One map
    /// where three sets held three more copies of every id and two more tables (a run of 13,884
    /// calls held 2.1 MB more natively), its ids written end to end ([`IdMap`]).
    calls: IdMap,
    /// Set by `RUN_FINISHED`; `None` while the run is going.
    pub(super) finished: Option<Finished>,
}

impl RunTally {
    /// `TOOL_CALL_START`: a call new to this run joins [`started`](Self::started).
    pub(super) fn start(&mut self, id: &str) {
        let entry = self.calls.entry(id);
        let bits = self.calls.value(entry);
        if bits & STARTED == 0 {
            self.calls.set(entry, bits | STARTED);
            self.started.push(entry as u32);
        }
    }

    /// `TOOL_CALL_END`: counted for a call started in this run.
    pub(super) fn end(&mut self, id: &str) {
        if let Some(entry) = self.calls.find(id) {
            let bits = self.calls.value(entry);
            if bits & STARTED != 0 {
                self.calls.set(entry, bits | ENDED);
            }
        }
    }

    /// A real `TOOL_CALL_RESULT`.
    pub(super) fn answer(&mut self, id: &str) {
        let entry = self.calls.entry(id);
        self.calls.set(entry, self.calls.value(entry) | ANSWERED);
    }

    /// The ids of the calls started in this run that have all of `bits` and none of `not`, in
    /// start order.
    fn started_with(&self, bits: usize, not: usize) -> impl Iterator<Item = &str> {
        self.started.iter().filter_map(move |&entry| {
            let b = self.calls.value(entry as usize);
            (b & bits == bits && b & not == 0).then(|| self.calls.id(entry as usize))
        })
    }
}

impl Thread {
    /// Starts a new run's tally of tool calls. `RUN_STARTED` does the same; call this when the
    /// request goes out, so a stream that fails before `RUN_STARTED` leaves no stale tally.
    pub fn begin_run(&mut self) {
        self.run = RunTally::default();
    }

    /// Whether the current run has seen `RUN_FINISHED`.
    pub fn run_finished(&self) -> bool {
        self.run.finished.is_some()
    }

    /// The tool calls the client has to answer, in order (docs/protocol.md, "Which calls the client answers"):
    ///
    /// - when `RUN_FINISHED` carried a non-empty `outcome.pendingToolCallIds`: those calls
    ///   (duplicates dropped; ids the thread does not hold are skipped, there is nothing to run);
    /// - when it carried `interrupt` or `cancelled`: none;
    /// - otherwise (success without a list, or the run is still going): the calls started in
    ///   this run whose `TOOL_CALL_END` arrived and that got no `TOOL_CALL_RESULT` (a result
    ///   whose content is exactly [`FORWARDED_PLACEHOLDER`] is no result), in start order.
    ///
    /// The TS client derives the list the same way but without the `TOOL_CALL_END` condition.
    /// This list covers every tool; keeping only the *frontend* tools is the caller's job, it
    /// holds the catalog.
    pub fn pending_tool_calls(&self) -> Vec<PendingCall> {
        match &self.run.finished {
            Some(Finished::Named(ids)) => {
                let mut seen = StrSet::new(Vec::new());
                ids.iter()
                    .filter(|id| seen.insert(id.as_str()))
                    .filter_map(|id| self.pending_call(id))
                    .collect()
            }
            Some(Finished::Nothing) => Vec::new(),
            Some(Finished::Derived) | None => self.unanswered_ended_calls(),
        }
    }

    /// The calls started in this run whose `TOOL_CALL_END` arrived and that got no
    /// `TOOL_CALL_RESULT`, in start order, whatever `outcome.pendingToolCallIds` says.
    pub fn unanswered_ended_calls(&self) -> Vec<PendingCall> {
        self.run
            .started_with(ENDED, ANSWERED)
            .filter_map(|id| self.pending_call(id))
            .collect()
    }

    /// The non-empty `outcome.pendingToolCallIds` of this run's `RUN_FINISHED`, as the server
    /// sent it; `None` when there was none (the list is then derived).
    pub fn named_pending_ids(&self) -> Option<&[String]> {
        match &self.run.finished {
            Some(Finished::Named(ids)) => Some(ids),
            _ => None,
        }
    }

    /// Whether the thread holds a tool call with this id.
    pub fn has_tool_call(&self, tool_call_id: &str) -> bool {
        self.call_position(tool_call_id).is_some()
    }

    /// The ids of the calls started in this run whose `TOOL_CALL_END` arrived, in start order,
    /// answered or not.
    pub fn ended_tool_calls_this_run(&self) -> Vec<&str> {
        self.run.started_with(ENDED, 0).collect()
    }

    /// The call with this id, as a [`PendingCall`].
    pub fn pending_call(&self, tool_call_id: &str) -> Option<PendingCall> {
        let (m, c) = self.call_position(tool_call_id)?;
        let Message::Assistant(a) = &self.messages[m] else {
            return None;
        };
        let call = a.tool_calls.as_ref()?.get(c)?;
        Some(PendingCall {
            tool_call_id: call.id.clone(),
            tool_name: call.function.name.clone(),
            arguments: call.function.arguments.clone(),
            parent_message_id: a.id.clone(),
        })
    }
}

/// Whether a tool message's content is the forwarding placeholder ([`FORWARDED_PLACEHOLDER`]):
/// no answer.
pub(super) fn is_placeholder(content: &Content) -> bool {
    matches!(content, Content::Text(text) if text == FORWARDED_PLACEHOLDER)
}
