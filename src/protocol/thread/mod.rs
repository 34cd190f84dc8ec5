//! The thread reducer: folds verified AG-UI 1.0 events into messages and state.
//!
//! [`Thread::apply`] does what `defaultApplyEvents` of `@ag-ui/client@1.0.0`
//! (`src/apply/default.ts`) does with each event, minus the subscriber hooks. The places where the
//! TS reducer makes a choice are cited in comments as `default.ts: ...`.
//!
//! Two things are added on top:
//! - **Indexes.** Message id → position and tool call id → (message, call) maps make every
//!   streaming event (`*_CONTENT`, `TOOL_CALL_ARGS`) O(1) plus the length of its delta, where the TS
//!   reducer scans the whole thread per token.
//! - **Per-run tool call tracking** for the execute-and-restart loop: [`Thread::pending_tool_calls`]
//!   lists the calls the browser has to answer after `RUN_FINISHED` (docs/protocol.md, "Which calls the client answers").
//!
//! Input contract: events are *expanded* (no `*_CHUNK`; those are ignored here) and *verified*
//! (ordering rules of `verifyEvents`). Where the TS reducer logs a warning and skips an event, [`Thread::apply`]
//! returns a [`ReduceError`] instead and leaves the thread unchanged (one documented exception:
//! [`ReduceError::ActivityPatch`]); the caller reports it and keeps going, like the TS client.
//!
//! # Rooms
//! - here: the [`Thread`], its messages and state and their indexes.
//! - `fold.rs`: the reducer, [`Thread::apply`].
//! - `tally.rs`: the current run's tool calls and [`Thread::pending_tool_calls`].
//! - `error.rs`: [`ReduceError`].

mod error;
mod fold;
mod tally;

use crate::json::{Map, Value};
use crate::lean::ids::{hash_id, Chains};
use crate::protocol::event::{AssistantMessage, Message, ToolCall, ToolMessage};

pub(crate) use error::Fault;
pub use error::ReduceError;
use tally::{is_placeholder, RunTally};
pub use tally::{PendingCall, FORWARDED_PLACEHOLDER};

/// What one [`Thread::apply`] changed, so a UI can re-render only that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Applied {
    /// Nothing visible changed.
    None,
    /// The message at this index changed in place.
    Message(usize),
    /// A new message is at this index. Messages after it (if any) moved up by one.
    Added(usize),
    /// The message list changed wholesale (`MESSAGES_SNAPSHOT`, `RUN_STARTED.input`).
    Messages,
    /// The state changed (`STATE_SNAPSHOT`, `STATE_DELTA`).
    State,
}

/// One AG-UI thread: its messages and state, and the tool calls of the current run.
///
/// Call order: [`Thread::begin_run`] (optional; `RUN_STARTED` does the same), then
/// [`Thread::apply`] for each expanded, verified event, then, after `RUN_FINISHED`,
/// [`Thread::pending_tool_calls`]; add the results with [`Thread::push_message`].
#[derive(Debug, Clone)]
pub struct Thread {
    /// The AG-UI messages, in thread order: what is rendered and sent back to the agent.
    messages: Vec<Message>,
    /// The agent state (`STATE_SNAPSHOT` / `STATE_DELTA`); sent back as `RunAgentInput.state`.
    state: Value,
    /// Message id → index of the *first* message with that id (the TS reducer's `find`), so
    /// streaming deltas find their message in O(1): entry `n` is message `n`, and a later
    /// message with an id already there is not linked. Holds no copy of the ids
    /// ([`Chains`]). Rebuilt whenever messages move.
    message_index: Chains,
    /// Tool call id → (message, call) of its first occurrence, so `TOOL_CALL_ARGS` finds its
    /// call in O(1): entry `n` is the call at `call_positions[n]`. Rebuilt whenever messages
    /// move.
    tool_call_index: Chains,
    /// The (message, call) position of each entry of `tool_call_index`.
    call_positions: Vec<(u32, u32)>,
    /// The current run's tool calls, for [`Thread::pending_tool_calls`].
    run: RunTally,
    /// The message the last text/reasoning delta went to, and the tool call the last arguments
    /// delta went to: a stream sends many deltas in a row to one target, and these skip the
    /// index look-up for all but the first (on a long thread the index outgrows the CPU cache
    /// and every look-up is a miss: 35x the reducer time for 20x the stream before). Positions
    /// only move in [`Thread::reindex`], which clears both.
    last_text: Option<(String, usize)>,
    last_call: Option<(String, (usize, usize))>,
}

impl Default for Thread {
    fn default() -> Self {
        Self::new()
    }
}

impl Thread {
    /// An empty thread with state `{}` (the TS agent's default state).
    pub fn new() -> Self {
        Self::with_messages(Vec::new())
    }

    /// A thread seeded with a loaded history, state `{}`.
    pub fn with_messages(messages: Vec<Message>) -> Self {
        let mut thread = Thread {
            messages,
            state: Value::Object(Map::new()),
            message_index: Chains::default(),
            tool_call_index: Chains::default(),
            call_positions: Vec::new(),
            run: RunTally::default(),
            last_text: None,
            last_call: None,
        };
        thread.reindex();
        thread
    }

    /// The messages, in thread order.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The agent state.
    pub fn state(&self) -> &Value {
        &self.state
    }

    /// Replaces the messages (e.g. a thread loaded from storage). The run tally is kept.
    pub fn set_messages(&mut self, messages: Vec<Message>) {
        self.messages = messages;
        self.reindex();
    }

    /// Replaces the agent state.
    pub fn set_state(&mut self, state: Value) {
        self.state = state;
    }

    /// The messages and the state, consuming the thread.
    pub fn into_parts(self) -> (Vec<Message>, Value) {
        (self.messages, self.state)
    }

    /// The index of the first message with this id.
    pub fn position(&self, message_id: &str) -> Option<usize> {
        message_position(&self.messages, &self.message_index, message_id)
    }

    /// The first tool call with this id, in any assistant message.
    pub fn tool_call(&self, tool_call_id: &str) -> Option<&ToolCall> {
        let (m, c) = self.call_position(tool_call_id)?;
        match &self.messages[m] {
            Message::Assistant(a) => a.tool_calls.as_ref()?.get(c),
            _ => None,
        }
    }

    /// Adds a message of the caller's own (the user's message, a tool result) and returns its
    /// index.
    ///
    /// A `tool` message replaces, in place, a [`FORWARDED_PLACEHOLDER`] result for the same call
    /// if the thread has one: the placeholder was never an answer, and a history with two
    /// results for one call is rejected by model providers. Otherwise the message is appended.
    pub fn push_message(&mut self, message: Message) -> usize {
        if let Message::Tool(tool) = &message {
            let placeholder = self.messages.iter().position(|m| {
                matches!(m, Message::Tool(t) if t.tool_call_id == tool.tool_call_id
                    && is_placeholder(&t.content))
            });
            if let Some(at) = placeholder {
                self.messages[at] = message;
                self.reindex();
                return at;
            }
        }
        self.messages.push(message);
        let at = self.messages.len() - 1;
        self.index_message(at);
        at
    }

    /// Records the answer to a tool call where the agent expects it: in place of a
    /// [`FORWARDED_PLACEHOLDER`] result for the call if there is one, else right after the
    /// assistant message that made the call (after the results already there), else at the end.
    /// Returns its index; messages after it moved down by one.
    pub fn insert_tool_result(&mut self, message: ToolMessage) -> usize {
        let placeholder = self.messages.iter().position(|m| {
            matches!(m, Message::Tool(t) if t.tool_call_id == message.tool_call_id
                && is_placeholder(&t.content))
        });
        if let Some(at) = placeholder {
            self.messages[at] = Message::Tool(message);
            self.reindex();
            return at;
        }
        self.place_tool_message(message)
    }

    /// Places a tool message like the TS reducer places `TOOL_CALL_RESULT` (default.ts: "Place
    /// the tool result immediately after the assistant message that issued the matching tool
    /// call — not at the end. [...] Skip past any tool results already recorded for the same
    /// assistant so parallel results keep their order. Fall back to append when no owner is
    /// found.")
    pub(super) fn place_tool_message(&mut self, message: ToolMessage) -> usize {
        let owner = self.call_position(&message.tool_call_id);
        let message = Message::Tool(message);
        let Some((owner, _)) = owner else {
            return self.append(message);
        };
        let mut at = owner + 1;
        while matches!(self.messages.get(at), Some(Message::Tool(_))) {
            at += 1;
        }
        if at == self.messages.len() {
            return self.append(message);
        }
        self.messages.insert(at, message);
        self.reindex();
        at
    }

    /// Appends a message and indexes it; returns its index.
    pub(super) fn append(&mut self, message: Message) -> usize {
        self.messages.push(message);
        let at = self.messages.len() - 1;
        self.index_message(at);
        at
    }

    /// Adds the message at `at`, the last one indexed plus one, (and its tool calls) to the
    /// indexes, first occurrence winning.
    pub(super) fn index_message(&mut self, at: usize) {
        debug_assert_eq!(self.message_index.len(), at);
        let messages = &self.messages;
        let id = messages[at].id();
        let first = message_position(messages, &self.message_index, id).is_none();
        self.message_index
            .push(first.then(|| hash_id(id)), |e| hash_id(messages[e].id()));
        if let Message::Assistant(AssistantMessage {
            tool_calls: Some(calls),
            ..
        }) = &messages[at]
        {
            for c in 0..calls.len() {
                self.index_call(at, c);
            }
        }
    }

    /// Adds the call at (`m`, `c`) to the tool call index, first occurrence winning.
    pub(super) fn index_call(&mut self, m: usize, c: usize) {
        let Thread {
            messages,
            tool_call_index: index,
            call_positions: positions,
            ..
        } = self;
        let id = &call_at(messages, (m as u32, c as u32)).id;
        let first = call_position(messages, positions, index, id).is_none();
        positions.push((m as u32, c as u32));
        index.push(first.then(|| hash_id(id)), |e| {
            hash_id(&call_at(messages, positions[e]).id)
        });
    }

    /// Rebuilds both indexes from scratch (after messages moved).
    pub(super) fn reindex(&mut self) {
        self.message_index.clear();
        self.tool_call_index.clear();
        self.call_positions.clear();
        self.last_text = None;
        self.last_call = None;
        for at in 0..self.messages.len() {
            self.index_message(at);
        }
    }

    /// The message a text/reasoning `CONTENT`/`END` event targets: it must exist and not be an
    /// activity message.
    pub(super) fn text_target<'a>(&mut self, message_id: &'a str) -> Result<usize, Fault<'a>> {
        let (messages, index) = (&self.messages, &self.message_index);
        let at = cached(&mut self.last_text, message_id, || {
            message_position(messages, index, message_id)
        })
        .ok_or(Fault::UnknownMessage(message_id))?;
        if matches!(self.messages[at], Message::Activity(_)) {
            return Err(Fault::ActivityIdReused(message_id));
        }
        Ok(at)
    }

    /// The (message, call) position a `TOOL_CALL_ARGS` / `TOOL_CALL_END` targets.
    pub(super) fn call_target<'a>(
        &mut self,
        tool_call_id: &'a str,
    ) -> Result<(usize, usize), Fault<'a>> {
        let (messages, positions, index) =
            (&self.messages, &self.call_positions, &self.tool_call_index);
        cached(&mut self.last_call, tool_call_id, || {
            call_position(messages, positions, index, tool_call_id)
        })
        .ok_or(Fault::UnknownToolCall(tool_call_id))
    }

    /// The (message, call) position of the first tool call with this id.
    pub(super) fn call_position(&self, tool_call_id: &str) -> Option<(usize, usize)> {
        call_position(
            &self.messages,
            &self.call_positions,
            &self.tool_call_index,
            tool_call_id,
        )
    }

    /// The tool call at an indexed position.
    pub(super) fn call_mut(&mut self, m: usize, c: usize) -> &mut ToolCall {
        match &mut self.messages[m] {
            Message::Assistant(AssistantMessage {
                tool_calls: Some(calls),
                ..
            }) => &mut calls[c],
            // The tool call index only points into assistant messages.
            _ => unreachable!(),
        }
    }
}

/// [`Thread::position`] over the thread's parts.
fn message_position(messages: &[Message], index: &Chains, message_id: &str) -> Option<usize> {
    index.find(hash_id(message_id), |at| messages[at].id() == message_id)
}

/// [`Thread::call_position`] over the thread's parts (for a caller that holds its cache mutably).
fn call_position(
    messages: &[Message],
    positions: &[(u32, u32)],
    index: &Chains,
    tool_call_id: &str,
) -> Option<(usize, usize)> {
    let entry = index.find(hash_id(tool_call_id), |e| {
        call_at(messages, positions[e]).id == tool_call_id
    })?;
    let (m, c) = positions[entry];
    Some((m as usize, c as usize))
}

/// The tool call at an indexed (message, call) position.
fn call_at(messages: &[Message], (m, c): (u32, u32)) -> &ToolCall {
    match &messages[m as usize] {
        Message::Assistant(AssistantMessage {
            tool_calls: Some(calls),
            ..
        }) => &calls[c as usize],
        // The tool call index only points into assistant messages.
        _ => unreachable!(),
    }
}

/// A look-up through a one-entry cache: `slot` answers for its own id, else `find` does and a
/// hit replaces the entry (reusing its string's buffer). Misses are not kept: the id may appear.
fn cached<T: Copy>(
    slot: &mut Option<(String, T)>,
    id: &str,
    find: impl FnOnce() -> Option<T>,
) -> Option<T> {
    if let Some((last, at)) = slot {
        if last == id {
            return Some(*at);
        }
    }
    let at = find()?;
    match slot {
        Some((last, pos)) => {
            last.clear();
            last.push_str(id);
            *pos = at;
        }
        None => *slot = Some((id.to_owned(), at)),
    }
    Some(at)
}
