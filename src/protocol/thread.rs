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

use crate::lean::hash::{HashMap, HashSet};
use crate::lean::sorted::StrSet;

use crate::json::patch::PatchError;
use crate::json::{self, Map, Value};

use crate::protocol::event::{
    ActivityMessage, AssistantMessage, Content, EncryptedValueSubtype, Event, FunctionCall,
    FunctionKind, JsonObject, Message, MessagesSnapshot, ReasoningMessage, RunFinishedOutcome,
    TextMessage, TextMessageRole, ToolCall, ToolMessage, UserMessage,
};

/// The `content` of the `TOOL_CALL_RESULT` that some servers (the ag-ui server starter) send for a
/// call they forward to the client. It is not an answer: the call stays pending.
pub const FORWARDED_PLACEHOLDER: &str = "Forwarded to client";

/// The metadata key `@ag-ui/client` uses on `MESSAGES_SNAPSHOT` to say which activity types the
/// snapshot is authoritative for (`src/activity-history.ts`).
const ACTIVITY_HISTORY_METADATA: &str = "@ag-ui/client";

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

/// Why an event could not be applied. The thread is left as it was (except as noted on
/// [`ReduceError::ActivityPatch`]); the TS client logs these as warnings and continues.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReduceError {
    /// A `*_CONTENT` / `*_END` event names a message the thread does not have.
    #[error("{event_type}: no message with id `{message_id}`")]
    UnknownMessage {
        /// The event's `type`.
        event_type: String,
        /// The id it named.
        message_id: String,
    },
    /// `TOOL_CALL_ARGS` / `TOOL_CALL_END` names a tool call the thread does not have.
    #[error("{event_type}: no tool call with id `{tool_call_id}`")]
    UnknownToolCall {
        /// The event's `type`.
        event_type: String,
        /// The id it named.
        tool_call_id: String,
    },
    /// A text or reasoning event reuses the id of an activity message; it is dropped.
    #[error(
        "{event_type}: message `{message_id}` is an activity message; message ids must be unique"
    )]
    ActivityIdReused {
        /// The event's `type`.
        event_type: String,
        /// The reused id.
        message_id: String,
    },
    /// `ACTIVITY_DELTA` names a message that is not an activity message.
    #[error("ACTIVITY_DELTA: message `{message_id}` is not an activity message")]
    NotActivity {
        /// The id it named.
        message_id: String,
    },
    /// A `STATE_DELTA` patch failed; the state is unchanged.
    #[error("state patch failed, state unchanged: {message}")]
    StatePatch {
        /// What failed (operation index, path, reason).
        message: String,
    },
    /// An `ACTIVITY_DELTA` patch failed, or did not leave an object; the content is unchanged.
    /// The event's metadata *was* merged onto the message, as in the TS client (`default.ts`:
    /// "Metadata does not depend on the patch succeeding").
    #[error("activity patch for `{message_id}` failed, content unchanged: {message}")]
    ActivityPatch {
        /// The activity message's id.
        message_id: String,
        /// What failed.
        message: String,
    },
}

/// A [`ReduceError`] before its texts are written: the ids borrow the event.
#[derive(Debug)]
pub(crate) enum Fault<'a> {
    UnknownMessage(&'a str),
    UnknownToolCall(&'a str),
    ActivityIdReused(&'a str),
    NotActivity(&'a str),
    StatePatch(PatchError),
    /// `None`: the patch applied but did not leave an object.
    ActivityPatch(&'a str, Option<PatchError>),
}

impl Fault<'_> {
    fn into_error(self, event: &Event) -> ReduceError {
        let event_type = || event.type_name().to_owned();
        match self {
            Fault::UnknownMessage(id) => ReduceError::UnknownMessage {
                event_type: event_type(),
                message_id: id.to_owned(),
            },
            Fault::UnknownToolCall(id) => ReduceError::UnknownToolCall {
                event_type: event_type(),
                tool_call_id: id.to_owned(),
            },
            Fault::ActivityIdReused(id) => ReduceError::ActivityIdReused {
                event_type: event_type(),
                message_id: id.to_owned(),
            },
            Fault::NotActivity(id) => ReduceError::NotActivity {
                message_id: id.to_owned(),
            },
            Fault::StatePatch(error) => ReduceError::StatePatch {
                message: error.to_string(),
            },
            Fault::ActivityPatch(id, error) => ReduceError::ActivityPatch {
                message_id: id.to_owned(),
                message: match error {
                    Some(error) => error.to_string(),
                    None => "the patched content is not an object".to_owned(),
                },
            },
        }
    }
}

/// How the current run ended, for [`Thread::pending_tool_calls`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Finished {
    /// `outcome.pendingToolCallIds` was a non-empty list: trusted over the tally.
    Named(Vec<String>),
    /// A success without a list: derive it from the tally.
    Derived,
    /// `interrupt` or `cancelled`: nothing for the client to answer with tool results.
    Nothing,
}

/// The tool calls of the current run (reset by `RUN_STARTED` and [`Thread::begin_run`]).
#[derive(Debug, Clone, Default)]
struct RunTally {
    /// Calls started in this run, in start order: the order pending calls are reported in.
    started: Vec<String>,
    /// The same ids, so a repeated `TOOL_CALL_START` is not counted twice without a scan.
    started_set: HashSet<String>,
    /// Calls whose `TOOL_CALL_END` arrived: only complete arguments are executable.
    ended: HashSet<String>,
    /// Calls answered by a real `TOOL_CALL_RESULT` (not the forwarding placeholder).
    answered: HashSet<String>,
    /// Set by `RUN_FINISHED`; `None` while the run is going.
    finished: Option<Finished>,
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
    /// streaming deltas find their message in O(1). Rebuilt whenever messages move.
    message_index: HashMap<String, usize>,
    /// Tool call id → index of the message of its first occurrence (the call is the first with
    /// that id in the message's `toolCalls`), so `TOOL_CALL_ARGS` finds its call in O(1). Rebuilt
    /// whenever messages move. Ids to `usize`, the layout of `message_index`: one hash map
    /// instance in the `.wasm` for both.
    tool_call_index: HashMap<String, usize>,
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
            message_index: HashMap::default(),
            tool_call_index: HashMap::default(),
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
        self.message_index.get(message_id).copied()
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
        let tool_call_id = message.tool_call_id.clone();
        self.place_tool_message(Message::Tool(message), &tool_call_id)
    }

    /// Places a tool message like the TS reducer places `TOOL_CALL_RESULT` (default.ts: "Place
    /// the tool result immediately after the assistant message that issued the matching tool
    /// call — not at the end. [...] Skip past any tool results already recorded for the same
    /// assistant so parallel results keep their order. Fall back to append when no owner is
    /// found.")
    fn place_tool_message(&mut self, message: Message, tool_call_id: &str) -> usize {
        let Some(&owner) = self.tool_call_index.get(tool_call_id) else {
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
            .started
            .iter()
            .filter(|id| self.run.ended.contains(id) && !self.run.answered.contains(id))
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
        self.tool_call_index.contains_key(tool_call_id)
    }

    /// The ids of the calls started in this run whose `TOOL_CALL_END` arrived, in start order,
    /// answered or not.
    pub fn ended_tool_calls_this_run(&self) -> Vec<&str> {
        self.run
            .started
            .iter()
            .filter(|id| self.run.ended.contains(id))
            .map(String::as_str)
            .collect()
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

    /// Folds one expanded, verified event into the thread.
    ///
    /// `*_CHUNK` events are ignored (they must be expanded first; the TS reducer throws on
    /// them), as are events that change no message or state (`STEP_*`, `RAW`, `CUSTOM`,
    /// `REASONING_START`/`END`, `SUBAGENT_*`, `RUN_ERROR`, unknown types).
    pub fn apply(&mut self, event: &Event) -> Result<Applied, ReduceError> {
        self.fold(event).map_err(|fault| fault.into_error(event))
    }

    /// [`apply`](Self::apply) without building the error: what went wrong comes back as a
    /// [`Fault`] that borrows the event (the session, which drops these errors as the TS client
    /// does, then carries no code to write them).
    pub(crate) fn fold<'a>(&mut self, event: &'a Event) -> Result<Applied, Fault<'a>> {
        match event {
            Event::RunStarted(e) => {
                // default.ts RUN_STARTED: "A new run starts a new tally".
                self.begin_run();
                let Some(input) = &e.input else {
                    return Ok(Applied::None);
                };
                // default.ts: add echoed input messages that aren't already present (by id).
                for message in &input.messages {
                    if !self.message_index.contains_key(message.id()) {
                        self.messages.push(message.clone());
                        self.index_message(self.messages.len() - 1);
                    }
                }
                Ok(Applied::Messages)
            }
            Event::RunFinished(e) => {
                self.run.finished = Some(match &e.outcome {
                    None => Finished::Derived,
                    Some(RunFinishedOutcome::Success {
                        pending_tool_call_ids,
                    }) => match pending_tool_call_ids {
                        Some(ids) if !ids.is_empty() => Finished::Named(ids.clone()),
                        _ => Finished::Derived,
                    },
                    Some(_) => Finished::Nothing,
                });
                Ok(Applied::None)
            }
            Event::TextMessageStart(e) => {
                if let Some(at) = self.position(&e.message_id) {
                    // default.ts: a message with this id already exists (e.g. created by
                    // TOOL_CALL_START with the same parentMessageId): keep it, merge metadata.
                    let message = &mut self.messages[at];
                    if matches!(message, Message::Activity(_)) {
                        return Err(Fault::ActivityIdReused(&e.message_id));
                    }
                    return Ok(changed_if(
                        merge_metadata(metadata_mut(message), e.metadata.as_ref()),
                        at,
                    ));
                }
                let id = e.message_id.clone();
                let name = e.name.clone();
                let subagent_run_id = e.subagent_run_id.clone();
                let metadata = merged(None, e.metadata.as_ref());
                let message = match e.role.unwrap_or(TextMessageRole::Assistant) {
                    role @ (TextMessageRole::Developer | TextMessageRole::System) => {
                        let text = TextMessage {
                            id,
                            content: String::new(),
                            name,
                            encrypted_value: None,
                            metadata,
                            subagent_run_id,
                        };
                        if role == TextMessageRole::Developer {
                            Message::Developer(text)
                        } else {
                            Message::System(text)
                        }
                    }
                    TextMessageRole::User => Message::User(UserMessage {
                        id,
                        content: Content::Text(String::new()),
                        name,
                        encrypted_value: None,
                        metadata,
                        subagent_run_id,
                    }),
                    TextMessageRole::Assistant => Message::Assistant(AssistantMessage {
                        id,
                        content: Some(String::new()),
                        name,
                        metadata,
                        subagent_run_id,
                        ..AssistantMessage::default()
                    }),
                };
                Ok(Applied::Added(self.append(message)))
            }
            Event::TextMessageContent(e) => {
                let at = self.text_target(&e.message_id)?;
                let message = &mut self.messages[at];
                append_text(message, &e.delta);
                merge_metadata(metadata_mut(message), e.metadata.as_ref());
                Ok(Applied::Message(at))
            }
            Event::TextMessageEnd(e) => {
                let at = self.text_target(&e.message_id)?;
                shrink_text(&mut self.messages[at]);
                let changed =
                    merge_metadata(metadata_mut(&mut self.messages[at]), e.metadata.as_ref());
                Ok(changed_if(changed, at))
            }
            Event::ReasoningMessageStart(e) => {
                if let Some(at) = self.position(&e.message_id) {
                    let message = &mut self.messages[at];
                    if matches!(message, Message::Activity(_)) {
                        return Err(Fault::ActivityIdReused(&e.message_id));
                    }
                    return Ok(changed_if(
                        merge_metadata(metadata_mut(message), e.metadata.as_ref()),
                        at,
                    ));
                }
                let message = Message::Reasoning(ReasoningMessage {
                    id: e.message_id.clone(),
                    content: String::new(),
                    encrypted_value: None,
                    metadata: merged(None, e.metadata.as_ref()),
                    subagent_run_id: e.subagent_run_id.clone(),
                });
                Ok(Applied::Added(self.append(message)))
            }
            Event::ReasoningMessageContent(e) => {
                let at = self.text_target(&e.message_id)?;
                let message = &mut self.messages[at];
                append_text(message, &e.delta);
                merge_metadata(metadata_mut(message), e.metadata.as_ref());
                Ok(Applied::Message(at))
            }
            Event::ReasoningMessageEnd(e) => {
                let at = self.text_target(&e.message_id)?;
                let changed =
                    merge_metadata(metadata_mut(&mut self.messages[at]), e.metadata.as_ref());
                Ok(changed_if(changed, at))
            }
            Event::ToolCallStart(e) => {
                if self.run.started_set.insert(e.tool_call_id.clone()) {
                    self.run.started.push(e.tool_call_id.clone());
                }
                // default.ts TOOL_CALL_START: applying a start is idempotent; a known call is
                // renamed if needed and gets the metadata, `arguments` untouched.
                if let Some((m, c)) = self.call_position(&e.tool_call_id) {
                    let call = self.call_mut(m, c);
                    let renamed = call.function.name != e.tool_call_name;
                    if renamed {
                        call.function.name.clone_from(&e.tool_call_name);
                    }
                    let changed = merge_metadata(&mut call.metadata, e.metadata.as_ref());
                    return Ok(changed_if(renamed || changed, m));
                }
                let (m, created) = self
                    .resolve_or_create_assistant(e.parent_message_id.as_deref(), &e.tool_call_id);
                let Message::Assistant(assistant) = &mut self.messages[m] else {
                    // resolve_or_create_assistant returns an assistant message (no message text:
                    // it would be bytes in the `.wasm` for a panic that cannot happen).
                    unreachable!();
                };
                if created && assistant.subagent_run_id.is_none() {
                    assistant.subagent_run_id.clone_from(&e.subagent_run_id);
                }
                let calls = assistant.tool_calls.get_or_insert_with(Vec::new);
                calls.push(ToolCall {
                    id: e.tool_call_id.clone(),
                    kind: FunctionKind::Function,
                    function: FunctionCall {
                        name: e.tool_call_name.clone(),
                        arguments: String::new(),
                    },
                    encrypted_value: None,
                    metadata: merged(None, e.metadata.as_ref()),
                });
                self.tool_call_index
                    .entry(e.tool_call_id.clone())
                    .or_insert(m);
                Ok(if created {
                    Applied::Added(m)
                } else {
                    Applied::Message(m)
                })
            }
            Event::ToolCallArgs(e) => {
                let (m, c) = self.call_target(&e.tool_call_id)?;
                let call = self.call_mut(m, c);
                json::push_str(&mut call.function.arguments, &e.delta);
                merge_metadata(&mut call.metadata, e.metadata.as_ref());
                Ok(Applied::Message(m))
            }
            Event::ToolCallEnd(e) => {
                let (m, c) = self.call_target(&e.tool_call_id)?;
                if self.run.started_set.contains(&e.tool_call_id) {
                    self.run.ended.insert(e.tool_call_id.clone());
                }
                let call = self.call_mut(m, c);
                // Finished: held in its length (it grew by doubling while it streamed).
                call.function.arguments.shrink_to_fit();
                let changed = merge_metadata(&mut call.metadata, e.metadata.as_ref());
                Ok(changed_if(changed, m))
            }
            Event::ToolCallResult(e) => {
                if !is_placeholder(&e.content) {
                    self.run.answered.insert(e.tool_call_id.clone());
                }
                let message = Message::Tool(ToolMessage {
                    id: e.message_id.clone(),
                    content: e.content.clone(),
                    tool_call_id: e.tool_call_id.clone(),
                    error: None,
                    encrypted_value: None,
                    metadata: merged(None, e.metadata.as_ref()),
                    subagent_run_id: e.subagent_run_id.clone(),
                });
                Ok(Applied::Added(
                    self.place_tool_message(message, &e.tool_call_id),
                ))
            }
            Event::StateSnapshot(e) => {
                self.state = e.snapshot.clone();
                Ok(Applied::State)
            }
            Event::StateDelta(e) => {
                // json_patch::patch reverts every applied operation when one fails, so a failed
                // patch leaves the state as it was (the TS client patches a copy and warns).
                crate::json::patch::apply(&mut self.state, &e.delta).map_err(Fault::StatePatch)?;
                Ok(Applied::State)
            }
            Event::MessagesSnapshot(e) => {
                self.apply_messages_snapshot(e);
                Ok(Applied::Messages)
            }
            Event::ActivitySnapshot(e) => {
                let replace = e.replace.unwrap_or(true);
                let fresh = || {
                    Message::Activity(ActivityMessage {
                        id: e.message_id.clone(),
                        activity_type: e.activity_type.clone(),
                        content: e.content.clone(),
                        metadata: None,
                        subagent_run_id: e.subagent_run_id.clone(),
                    })
                };
                let Some(at) = self.position(&e.message_id) else {
                    let at = self.append(fresh());
                    merge_metadata(metadata_mut(&mut self.messages[at]), e.metadata.as_ref());
                    return Ok(Applied::Added(at));
                };
                match &mut self.messages[at] {
                    Message::Activity(existing) => {
                        if replace {
                            // default.ts: a replace keeps the accumulated metadata but takes
                            // the event's attribution (subagentRunId), present or not.
                            existing.activity_type.clone_from(&e.activity_type);
                            existing.content.clone_from(&e.content);
                            existing.subagent_run_id.clone_from(&e.subagent_run_id);
                        }
                        // default.ts: the metadata merges onto the existing activity message
                        // even when `replace` is false.
                        merge_metadata(&mut existing.metadata, e.metadata.as_ref());
                    }
                    _ if replace => {
                        // default.ts: a non-activity message under this id is replaced whole.
                        self.messages[at] = fresh();
                        merge_metadata(metadata_mut(&mut self.messages[at]), e.metadata.as_ref());
                        self.reindex();
                    }
                    _ => return Ok(Applied::None),
                }
                Ok(Applied::Message(at))
            }
            Event::ActivityDelta(e) => {
                // default.ts ACTIVITY_DELTA: an unknown id is silently ignored.
                let Some(at) = self.position(&e.message_id) else {
                    return Ok(Applied::None);
                };
                let Message::Activity(activity) = &mut self.messages[at] else {
                    return Err(Fault::NotActivity(&e.message_id));
                };
                // default.ts: "Metadata does not depend on the patch succeeding", merge first.
                merge_metadata(&mut activity.metadata, e.metadata.as_ref());
                let mut content = Value::Object(activity.content.clone());
                // `None`: the patch applied but did not leave an object.
                let patched = match crate::json::patch::apply(&mut content, &e.patch) {
                    Err(error) => Err(Some(error)),
                    Ok(()) => match content {
                        Value::Object(object) => Ok(object),
                        _ => Err(None),
                    },
                };
                match patched {
                    Ok(content) => {
                        activity.content = content;
                        activity.activity_type.clone_from(&e.activity_type);
                        Ok(Applied::Message(at))
                    }
                    Err(error) => Err(Fault::ActivityPatch(&e.message_id, error)),
                }
            }
            Event::ReasoningEncryptedValue(e) => {
                // default.ts: attaches the value only; the event's metadata stays on the event.
                let at = match e.subtype {
                    EncryptedValueSubtype::ToolCall => {
                        let Some((m, c)) = self.call_position(&e.entity_id) else {
                            return Ok(Applied::None);
                        };
                        self.call_mut(m, c).encrypted_value = Some(e.encrypted_value.clone());
                        m
                    }
                    EncryptedValueSubtype::Message => {
                        let Some(at) = self.position(&e.entity_id) else {
                            return Ok(Applied::None);
                        };
                        let slot = match &mut self.messages[at] {
                            Message::Developer(m) | Message::System(m) => &mut m.encrypted_value,
                            Message::User(m) => &mut m.encrypted_value,
                            Message::Assistant(m) => &mut m.encrypted_value,
                            Message::Tool(m) => &mut m.encrypted_value,
                            Message::Reasoning(m) => &mut m.encrypted_value,
                            // Activity messages have no encryptedValue.
                            Message::Activity(_) => return Ok(Applied::None),
                        };
                        *slot = Some(e.encrypted_value.clone());
                        at
                    }
                };
                Ok(Applied::Message(at))
            }
            _ => Ok(Applied::None),
        }
    }

    /// `default.ts` `resolveOrCreateAssistantMessage`, returning (index, created):
    /// 1. `parentMessageId` names an assistant message: that one;
    /// 2. it names another kind of message: a new assistant message with id = `toolCallId`;
    /// 3. it names no message: a new assistant message with id = `parentMessageId`;
    /// 4. no (or an empty) `parentMessageId`: a new assistant message with id = `toolCallId`.
    ///
    /// New messages are `{ id, role: "assistant", toolCalls: [] }`, appended.
    fn resolve_or_create_assistant(
        &mut self,
        parent_message_id: Option<&str>,
        tool_call_id: &str,
    ) -> (usize, bool) {
        let id = match parent_message_id.filter(|p| !p.is_empty()) {
            Some(parent) => match self.position(parent) {
                Some(at) if matches!(self.messages[at], Message::Assistant(_)) => {
                    return (at, false)
                }
                Some(_) => tool_call_id,
                None => parent,
            },
            None => tool_call_id,
        };
        let message = Message::Assistant(AssistantMessage {
            id: id.to_owned(),
            tool_calls: Some(Vec::new()),
            ..AssistantMessage::default()
        });
        (self.append(message), true)
    }

    /// `default.ts` `MESSAGES_SNAPSHOT`: not a plain replace. Messages the snapshot has are
    /// updated in place (keeping the local order), local messages it lacks are dropped unless
    /// they are client-only (activity messages of a type the snapshot does not own, reasoning
    /// messages when the snapshot has none), and the snapshot's new messages are appended in
    /// snapshot order.
    fn apply_messages_snapshot(&mut self, event: &MessagesSnapshot) {
        let incoming = &event.messages;
        let authority = activity_authority(event.metadata.as_ref());
        let has_activity = incoming.iter().any(|m| matches!(m, Message::Activity(_)));
        let has_reasoning = incoming.iter().any(|m| matches!(m, Message::Reasoning(_)));
        let preserved = |m: &Message| match m {
            Message::Activity(a) => match &authority {
                ActivityAuthority::Types(types) => !types.contains(&a.activity_type),
                ActivityAuthority::All => false,
                ActivityAuthority::Inferred => !has_activity,
            },
            Message::Reasoning(_) => !has_reasoning,
            _ => false,
        };
        // `new Map(...)`: for a repeated id, the last snapshot message wins. Keyed by `String`
        // with positions, the layout of `message_index`: no other hash map code in the `.wasm`.
        let mut by_id: HashMap<String, usize> = HashMap::default();
        for (at, message) in incoming.iter().enumerate() {
            by_id.insert(message.id().to_owned(), at);
        }
        let old = std::mem::take(&mut self.messages);
        let mut kept: HashSet<String> = HashSet::default();
        for message in old {
            if let Some(&update) = by_id.get(message.id()) {
                kept.insert(message.id().to_owned());
                self.messages.push(incoming[update].clone());
            } else if preserved(&message) {
                kept.insert(message.id().to_owned());
                self.messages.push(message);
            }
        }
        for message in incoming {
            if !kept.contains(message.id()) {
                self.messages.push(message.clone());
            }
        }
        self.reindex();
    }

    /// Appends a message and indexes it; returns its index.
    fn append(&mut self, message: Message) -> usize {
        self.messages.push(message);
        let at = self.messages.len() - 1;
        self.index_message(at);
        at
    }

    /// Adds the message at `at` (and its tool calls) to the indexes, first occurrence winning.
    fn index_message(&mut self, at: usize) {
        let message = &self.messages[at];
        self.message_index
            .entry(message.id().to_owned())
            .or_insert(at);
        if let Message::Assistant(AssistantMessage {
            tool_calls: Some(calls),
            ..
        }) = message
        {
            for call in calls {
                self.tool_call_index.entry(call.id.clone()).or_insert(at);
            }
        }
    }

    /// Rebuilds both indexes from scratch (after messages moved).
    fn reindex(&mut self) {
        self.message_index.clear();
        self.tool_call_index.clear();
        self.last_text = None;
        self.last_call = None;
        for at in 0..self.messages.len() {
            self.index_message(at);
        }
    }

    /// The message a text/reasoning `CONTENT`/`END` event targets: it must exist and not be an
    /// activity message.
    fn text_target<'a>(&mut self, message_id: &'a str) -> Result<usize, Fault<'a>> {
        let index = &self.message_index;
        let at = cached(&mut self.last_text, message_id, || {
            index.get(message_id).copied()
        })
        .ok_or(Fault::UnknownMessage(message_id))?;
        if matches!(self.messages[at], Message::Activity(_)) {
            return Err(Fault::ActivityIdReused(message_id));
        }
        Ok(at)
    }

    /// The (message, call) position a `TOOL_CALL_ARGS` / `TOOL_CALL_END` targets.
    fn call_target<'a>(&mut self, tool_call_id: &'a str) -> Result<(usize, usize), Fault<'a>> {
        let (messages, index) = (&self.messages, &self.tool_call_index);
        cached(&mut self.last_call, tool_call_id, || {
            call_position(messages, index, tool_call_id)
        })
        .ok_or(Fault::UnknownToolCall(tool_call_id))
    }

    /// The (message, call) position of the first tool call with this id.
    fn call_position(&self, tool_call_id: &str) -> Option<(usize, usize)> {
        call_position(&self.messages, &self.tool_call_index, tool_call_id)
    }

    /// The tool call at an indexed position.
    fn call_mut(&mut self, m: usize, c: usize) -> &mut ToolCall {
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

/// [`Thread::call_position`] over the thread's parts (for a caller that holds its cache mutably).
fn call_position(
    messages: &[Message],
    index: &HashMap<String, usize>,
    tool_call_id: &str,
) -> Option<(usize, usize)> {
    let &m = index.get(tool_call_id)?;
    let Message::Assistant(AssistantMessage {
        tool_calls: Some(calls),
        ..
    }) = &messages[m]
    else {
        return None;
    };
    let c = calls.iter().position(|call| call.id == tool_call_id)?;
    Some((m, c))
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

/// Which activity types a `MESSAGES_SNAPSHOT` is the source of truth for
/// (`activity-history.ts` `authoritativeActivityTypes`).
enum ActivityAuthority {
    /// No declaration: the snapshot owns all activity types iff it carries any activity.
    Inferred,
    /// `authoritativeActivityTypes: null`: it owns every activity type.
    All,
    /// A list (an invalid declaration reads as the empty list: it owns none).
    Types(Vec<String>),
}

fn activity_authority(metadata: Option<&JsonObject>) -> ActivityAuthority {
    let Some(value) = metadata.and_then(|m| m.get(ACTIVITY_HISTORY_METADATA)) else {
        return ActivityAuthority::Inferred;
    };
    let Value::Object(value) = value else {
        return ActivityAuthority::Types(Vec::new());
    };
    match value.get("authoritativeActivityTypes") {
        None => ActivityAuthority::Inferred,
        Some(Value::Null) => ActivityAuthority::All,
        Some(Value::Array(items)) => ActivityAuthority::Types(
            items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default(),
        ),
        Some(_) => ActivityAuthority::Types(Vec::new()),
    }
}

fn is_placeholder(content: &Content) -> bool {
    matches!(content, Content::Text(text) if text == FORWARDED_PLACEHOLDER)
}

fn changed_if(changed: bool, at: usize) -> Applied {
    if changed {
        Applied::Message(at)
    } else {
        Applied::None
    }
}

/// `default.ts` TEXT_MESSAGE_CONTENT: `content = (typeof content === "string" ? content : "") + delta`.
/// Appended as JS appends it: the halves of a surrogate pair cut between two deltas are joined
/// ([`json::push_str`]). Activity messages never get here.
fn append_text(message: &mut Message, delta: &str) {
    let append_content = |content: &mut Content| match content {
        Content::Text(text) => json::push_str(text, delta),
        Content::Parts(_) => *content = Content::Text(delta.to_owned()),
    };
    match message {
        Message::Developer(m) | Message::System(m) => json::push_str(&mut m.content, delta),
        Message::User(m) => append_content(&mut m.content),
        Message::Assistant(m) => json::push_str(m.content.get_or_insert_with(String::new), delta),
        Message::Tool(m) => append_content(&mut m.content),
        Message::Reasoning(m) => json::push_str(&mut m.content, delta),
        Message::Activity(_) => {}
    }
}

/// A finished message's text held in its length: it grew by doubling while it streamed, up to
/// twice its length (docs/numbers.md, "A long chat as users live it").
fn shrink_text(message: &mut Message) {
    match message {
        Message::Developer(m) | Message::System(m) => m.content.shrink_to_fit(),
        Message::Assistant(m) => {
            if let Some(text) = &mut m.content {
                text.shrink_to_fit();
            }
        }
        Message::Reasoning(m) => m.content.shrink_to_fit(),
        _ => {}
    }
}

fn metadata_mut(message: &mut Message) -> &mut Option<JsonObject> {
    match message {
        Message::Developer(m) | Message::System(m) => &mut m.metadata,
        Message::User(m) => &mut m.metadata,
        Message::Assistant(m) => &mut m.metadata,
        Message::Tool(m) => &mut m.metadata,
        Message::Activity(m) => &mut m.metadata,
        Message::Reasoning(m) => &mut m.metadata,
    }
}

/// `@ag-ui/core` `mergeMetadata`: `{ ...existing, ...incoming }`: key by key, last write wins,
/// not deep. Returns whether the event had metadata (the TS reducer's "changed").
fn merge_metadata(target: &mut Option<JsonObject>, incoming: Option<&JsonObject>) -> bool {
    let Some(incoming) = incoming else {
        return false;
    };
    let target = target.get_or_insert_with(Map::new);
    for (key, value) in incoming {
        target.insert(key.clone(), value.clone());
    }
    true
}

fn merged(existing: Option<JsonObject>, incoming: Option<&JsonObject>) -> Option<JsonObject> {
    let mut existing = existing;
    merge_metadata(&mut existing, incoming);
    existing
}
