//! Coder stream events in; the thread's changes, the chat's status, the calls to run and the end
//! of the turn out.
//!
//! # One reducer
//!
//! The thread stays the runtime's [`Thread`](crate::protocol::thread::Thread): this translation
//! does not build messages of its own beside it. A delta of the message being generated becomes
//! the AG-UI 1.0 event the reducer already folds in O(delta): `TEXT_MESSAGE_START`/`CONTENT`,
//! `REASONING_MESSAGE_START`/`CONTENT`, `TOOL_CALL_START`/`ARGS`/`END`, and `*_END` when the
//! generation is over. So `messages` events, `useThread` and `RunResult` see what an AG-UI run
//! gives them.
//!
//! Committed history is different: a `message` replaces the deltas it was streamed from, an
//! edit or a compaction rewrites history (`history_reset`), and a dropped generation attempt
//! (`preview_reset`) must vanish. AG-UI's `MESSAGES_SNAPSHOT` is not a replace: the reducer
//! keeps client-only messages the snapshot lacks, among them every reasoning message when the
//! snapshot has none, so a reset attempt's reasoning would stay on screen. The translation
//! therefore keeps the committed messages (already in AG-UI form, ordered by Coder id) and says
//! [`Update::Replace`]: the host sets them as the thread's messages
//! ([`Thread::set_messages`](crate::protocol::thread::Thread::set_messages) with
//! [`CoderThread::messages`]). That happens once per frame at most, and only for commits and
//! resets, never per token.
//!
//! # How Coder messages read as AG-UI messages
//!
//! - A committed message's id is its Coder id in decimal (`"44"`); its reasoning parts, joined,
//!   are a `reasoning` message `"44-reasoning"` before it; its text parts, joined as streamed
//!   (no separator), are the assistant's `content`; its `tool-call` parts are `toolCalls`
//!   (`arguments`: the JSON text of `args`).
//! - A `tool` message holds one `tool` message per `tool-result` part (`"45"`, then `"45-1"`...):
//!   a string result is the content as is, any other value its JSON text; `is_error` sets
//!   `error` too. A `tool-result` part inside an assistant message (a provider-executed call)
//!   becomes such a message after it.
//! - `user` and `system` messages keep their text parts. Other parts and roles are left out.
//! - The message being generated is `coder-<history_version>-<attempt>` (and
//!   `...-reasoning`): ids no committed message has.
//!
//! # The calls the browser runs
//!
//! `action_required` lists every pending dynamic call of the chat and is sent again on every
//! reconnect. [`Update::ActionRequired`] hands out only the calls never handed out before, that
//! the committed history does not answer, and that the provider did not execute; the batch's
//! whole id set is kept ([`CoderThread::batch`]) because the results go back in one submission.
//! Built-in calls never appear there: the server runs them before it pauses.
//!
//! # The end of a turn
//!
//! A turn ends when the chat is `waiting` (completed) or `error`, decided at the end of each
//! frame (the server sends `status` before its `error` in one frame): an `error` event ends it
//! with that error, kept whole; a status `error` without one ends it with the server's generic
//! error.

use crate::json::Value;
use crate::lean::hash::HashSet;
use crate::lean::text::{concat, decimal};
use crate::protocol::event::{
    AssistantMessage, Content, Event, FunctionCall, FunctionKind, Message, RareFields,
    ReasoningMessage, ReasoningMessageContent, ReasoningMessageEnd, ReasoningMessageStart,
    ReasoningRole, TextMessage, TextMessageContent, TextMessageEnd, TextMessageStart, ToolCall,
    ToolCallArgs, ToolCallEnd, ToolCallStart, ToolMessage, UserMessage,
};
use crate::protocol::thread::PendingCall;
use crate::protocol::wire::FromJson;

use super::wire::{
    ChatError, ChatMessage, ChatStatus, Frame, MessagePart, Part, Retry, Role, StreamEvent,
    ToolCallRequest,
};

/// What one frame changed, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// Fold this event into the thread ([`Thread::apply`](crate::protocol::thread::Thread::apply)).
    Event(Event),
    /// The committed history changed and the deltas are gone: the thread's messages are now
    /// exactly [`CoderThread::messages`].
    Replace,
    /// The chat's status changed.
    Status(ChatStatus),
    /// The server retries the model call (for the listeners).
    Retry(Retry),
    /// The queue of waiting messages, whole (as sent).
    Queue(Vec<Value>),
    /// The chat's error (for the listeners; the turn's end, if it ends one, follows).
    LastError(ChatError),
    /// Calls for the browser to run, each handed out once. The results of the whole batch
    /// ([`CoderThread::batch`]) go back in one submission. Empty: the batch came again and
    /// every call the history does not answer was handed out before (the answers kept for them
    /// are owed again, if none is out).
    ActionRequired(Vec<PendingCall>),
    /// The turn's answer was committed (an assistant message without calls, after the message
    /// the turn posted) and no `status` came with it: coderd publishes `status` only when a
    /// sync sees a change, so a whole turn may show none. The chat's status is to be read once.
    Quiet,
    /// The turn is over.
    TurnEnded(TurnEnd),
    /// A known event that could not be read, skipped (for diagnostics).
    Invalid {
        /// The event's `type`.
        event_type: String,
        /// What was wrong.
        message: String,
    },
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEnd {
    /// The chat is `waiting`: the model answered.
    Completed,
    /// The turn failed: the `error` event's fields, whole.
    Error(ChatError),
    /// The stream cannot be read (the envelope era's `{"type":"error"}` frame).
    StreamError(String),
}

/// The message being generated: what was opened in the thread for it.
#[derive(Debug, Clone, Default)]
struct Generation {
    /// `(history_version, generation_attempt)`: a delta of another generation ends this one.
    key: (i64, i64),
    /// The last `seq` taken, so a part sent again (a replay) is not appended twice.
    last_seq: i64,
    /// The assistant message's id, once a text part or a call made it.
    assistant: Option<String>,
    /// Whether `TEXT_MESSAGE_START` went out for it.
    text_open: bool,
    /// The reasoning message's id, once a reasoning part made it.
    reasoning: Option<String>,
    /// The calls started, each with where its arguments are.
    calls: Vec<(String, CallPhase)>,
}

/// Where a streamed call's arguments are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallPhase {
    /// `TOOL_CALL_START` went out, no arguments yet.
    Started,
    /// Deltas went out (`args_delta`): the complete arguments add nothing.
    Streaming,
    /// The complete arguments came and `TOOL_CALL_END` went out.
    Ended,
}

/// One chat's stream, translated. Sans-IO: frames in ([`CoderThread::handle_frame`]), updates
/// out.
///
/// Call order: [`CoderThread::begin_turn`] when a message is posted, then
/// [`CoderThread::handle_frame`] for every WebSocket frame, across reconnects (resume with
/// `?after_id=` [`CoderThread::last_message_id`]).
#[derive(Debug, Default)]
pub struct CoderThread {
    /// The committed messages, in AG-UI form, in Coder id order: what [`Update::Replace`] sets.
    messages: Vec<Message>,
    /// Per committed Coder message, in id order: its id and how many AG-UI messages it made
    /// (an upsert replaces that span).
    spans: Vec<(i64, usize)>,
    /// The message being generated, if any.
    generation: Option<Generation>,
    /// The newest `(history_version, generation_attempt)` seen: a part of an older one (an
    /// abandoned attempt, late) belongs to no generation shown and is dropped.
    newest: Option<(i64, i64)>,
    /// Calls the provider executed: never the browser's, even if a batch names them.
    provider_executed: HashSet<String>,
    /// Calls handed out in an [`Update::ActionRequired`]: a batch sent again hands them out
    /// never again.
    handed_out: HashSet<String>,
    /// The last `action_required` batch, whole.
    batch: Vec<ToolCallRequest>,
    /// The chat's status, as last reported.
    status: Option<ChatStatus>,
    /// Whether a turn is going on (a [`Update::TurnEnded`] is due).
    turn: bool,
    /// The last committed id when the turn began: the turn ends only once a user message after
    /// it (the one it posted) is committed, so a stale `waiting` cannot end it.
    turn_after: Option<i64>,
    /// The frame being read committed an assistant message without calls.
    answer_committed: bool,
    /// The highest committed message id seen: the `after_id` of a reconnect.
    last_id: Option<i64>,
    /// The error event of the frame being read.
    frame_error: Option<ChatError>,
    /// The committed history changed in the frame being read.
    replace: bool,
}

impl CoderThread {
    /// A chat with no history yet.
    pub fn new() -> CoderThread {
        CoderThread::default()
    }

    /// A turn starts (a message was posted): its end will be reported.
    pub fn begin_turn(&mut self) {
        self.turn = true;
        self.turn_after = self.last_id;
    }

    /// The turn ended here (Stop, a refused request, the chat's status read): no
    /// [`Update::TurnEnded`] is due any more, and the next turn starts clean.
    pub fn end_turn(&mut self) {
        self.turn = false;
    }

    /// Whether the committed history holds the message the turn posted.
    pub fn turn_posted(&self) -> bool {
        self.has_user_message_after(self.turn_after)
    }

    /// Whether a turn is going on.
    pub fn turn_active(&self) -> bool {
        self.turn
    }

    /// The committed messages, in AG-UI form: what the thread holds after [`Update::Replace`].
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Whether the committed history holds a user message whose Coder id is above `after` (any
    /// id, when `None`): the message a turn posted, once committed.
    pub fn has_user_message_after(&self, after: Option<i64>) -> bool {
        let mut messages = self.messages.iter();
        for &(id, len) in &self.spans {
            let user = (&mut messages)
                .take(len)
                .fold(false, |user, m| user | matches!(m, Message::User(_)));
            if user && after.is_none_or(|after| id > after) {
                return true;
            }
        }
        false
    }

    /// The highest committed message id seen: reconnect with `?after_id=` this.
    pub fn last_message_id(&self) -> Option<i64> {
        self.last_id
    }

    /// The chat's status, as last reported.
    pub fn status(&self) -> Option<&ChatStatus> {
        self.status.as_ref()
    }

    /// The last `action_required` batch, whole: every id its one submission must answer.
    pub fn batch(&self) -> &[ToolCallRequest] {
        &self.batch
    }

    /// Whether the committed history holds a result for this call (it was answered: by this
    /// client, another tab, the server's deadline or an interrupt).
    pub fn is_answered(&self, tool_call_id: &str) -> bool {
        self.messages
            .iter()
            .any(|m| matches!(m, Message::Tool(t) if t.tool_call_id == tool_call_id))
    }

    /// The pending calls as the server derives them, for when `action_required` does not come:
    /// the last assistant message's calls that the provider did not execute, that are dynamic
    /// (`is_dynamic(name)`) and that no later message answers.
    pub fn pending_from_history(&self, is_dynamic: impl Fn(&str) -> bool) -> Vec<PendingCall> {
        let Some(at) = self
            .messages
            .iter()
            .rposition(|m| matches!(m, Message::Assistant(_)))
        else {
            return Vec::new();
        };
        let Message::Assistant(assistant) = &self.messages[at] else {
            return Vec::new();
        };
        let answered = |id: &str| {
            self.messages[at + 1..]
                .iter()
                .any(|m| matches!(m, Message::Tool(t) if t.tool_call_id == id))
        };
        assistant
            .tool_calls
            .iter()
            .flatten()
            .filter(|c| !self.provider_executed.contains(&c.id))
            .filter(|c| is_dynamic(&c.function.name) && !answered(&c.id))
            .map(|c| PendingCall {
                tool_call_id: c.id.clone(),
                tool_name: c.function.name.clone(),
                arguments: c.function.arguments.clone(),
                parent_message_id: assistant.id.clone(),
            })
            .collect()
    }

    /// Marks calls as handed out (say, run from [`CoderThread::pending_from_history`]): a batch
    /// naming them will not hand them out again.
    pub fn mark_handed_out<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) {
        for id in ids {
            self.handed_out.insert(id.to_owned());
        }
    }

    /// Translates one decoded frame.
    pub fn handle_frame(&mut self, frame: Frame) -> Vec<Update> {
        let mut out = Vec::new();
        match frame {
            Frame::Ping => {}
            Frame::Error(message) => {
                self.end_generation(&mut out);
                self.flush(&mut out);
                if std::mem::take(&mut self.turn) {
                    out.push(Update::TurnEnded(TurnEnd::StreamError(message)));
                }
            }
            Frame::Events(events) => {
                let mut status_seen = false;
                for event in events {
                    status_seen |= matches!(event, StreamEvent::Status(_));
                    self.handle_event(event, &mut out);
                }
                self.flush(&mut out);
                self.settle_turn(status_seen, &mut out);
            }
        }
        out
    }

    /// Decides, at the end of a frame, whether the turn ended.
    fn settle_turn(&mut self, status_seen: bool, out: &mut Vec<Update>) {
        let error = self.frame_error.take();
        let answered = std::mem::take(&mut self.answer_committed);
        if !self.turn {
            return;
        }
        // A status of the chat before the turn's message was committed is stale (the message
        // POST's answer and the stream race): it ends nothing.
        let posted = self.turn_posted();
        let end = match (error, &self.status) {
            (Some(error), _) => TurnEnd::Error(error),
            (None, Some(ChatStatus::Error)) if status_seen => TurnEnd::Error(ChatError::generic()),
            (None, Some(ChatStatus::Waiting)) if status_seen && posted => TurnEnd::Completed,
            _ => {
                if answered && posted && !status_seen {
                    out.push(Update::Quiet);
                }
                return;
            }
        };
        self.turn = false;
        self.end_generation(out);
        self.flush(out);
        out.push(Update::TurnEnded(end));
    }

    fn handle_event(&mut self, event: StreamEvent, out: &mut Vec<Update>) {
        match event {
            StreamEvent::MessagePart(part) => {
                self.flush(out);
                self.handle_part(part, out);
            }
            StreamEvent::Message(message) => {
                self.end_generation(out);
                self.upsert(message);
            }
            StreamEvent::PreviewReset => self.end_generation(out),
            StreamEvent::HistoryReset => {
                self.end_generation(out);
                self.messages.clear();
                self.spans.clear();
                self.replace = true;
            }
            StreamEvent::Status(status) => {
                self.flush(out);
                self.status = Some(status.clone());
                out.push(Update::Status(status));
            }
            StreamEvent::Error(error) => {
                out.push(Update::LastError(error.clone()));
                self.frame_error = Some(error);
            }
            StreamEvent::Retry(retry) => {
                self.flush(out);
                out.push(Update::Retry(retry));
            }
            StreamEvent::QueueUpdate(queue) => {
                self.flush(out);
                out.push(Update::Queue(queue));
            }
            StreamEvent::ActionRequired(calls) => {
                self.flush(out);
                self.batch = calls;
                // Each call once, however often the batch lists it (a batch naming one id twice
                // would run it twice): the ids go into `handed_out` as they are taken.
                let mut fresh = Vec::new();
                let mut owed = false;
                for c in &self.batch {
                    let id = &c.tool_call_id;
                    if self.provider_executed.contains(id) || self.is_answered(id) {
                        continue;
                    }
                    owed = true;
                    if self.handed_out.insert(id.clone()) {
                        fresh.push(PendingCall {
                            tool_call_id: id.clone(),
                            tool_name: c.tool_name.clone(),
                            arguments: c.args.clone(),
                            parent_message_id: self.owner_of(id),
                        });
                    }
                }
                if owed {
                    out.push(Update::ActionRequired(fresh));
                }
            }
            StreamEvent::Unknown(_) => {}
            StreamEvent::Invalid { event_type, error } => out.push(Update::Invalid {
                event_type,
                message: if error.path.is_empty() {
                    error.message
                } else {
                    concat(&[&error.path, ": ", &error.message])
                },
            }),
        }
    }

    /// The id of the committed assistant message holding a call (`""` when none does).
    fn owner_of(&self, tool_call_id: &str) -> String {
        self.messages
            .iter()
            .rev()
            .find_map(|m| match m {
                Message::Assistant(a)
                    if a.tool_calls.iter().flatten().any(|c| c.id == tool_call_id) =>
                {
                    Some(a.id.clone())
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    /// Emits [`Update::Replace`] if the committed history changed since the last one.
    fn flush(&mut self, out: &mut Vec<Update>) {
        if std::mem::take(&mut self.replace) {
            out.push(Update::Replace);
        }
    }

    /// Closes what the message being generated opened, and drops it: a `Replace` follows.
    fn end_generation(&mut self, out: &mut Vec<Update>) {
        let Some(generation) = self.generation.take() else {
            return;
        };
        if let Some(id) = generation.reasoning {
            out.push(Update::Event(Event::ReasoningMessageEnd(
                ReasoningMessageEnd {
                    message_id: id,
                    ..FromJson::placeholder()
                },
            )));
        }
        if let (Some(id), true) = (&generation.assistant, generation.text_open) {
            out.push(Update::Event(Event::TextMessageEnd(TextMessageEnd {
                message_id: id.clone(),
                ..FromJson::placeholder()
            })));
        }
        for (id, phase) in generation.calls {
            if phase != CallPhase::Ended {
                out.push(Update::Event(Event::ToolCallEnd(ToolCallEnd {
                    tool_call_id: id,
                    ..FromJson::placeholder()
                })));
            }
        }
        self.replace = true;
    }

    fn handle_part(&mut self, part: MessagePart, out: &mut Vec<Update>) {
        if !matches!(part.role, None | Some(Role::Assistant)) {
            return;
        }
        let key = (part.history_version, part.generation_attempt);
        if self.newest.is_some_and(|newest| key < newest) {
            return;
        }
        self.newest = Some(key);
        if self.generation.as_ref().is_some_and(|g| g.key != key) {
            self.end_generation(out);
            self.flush(out);
        }
        let generation = self.generation.get_or_insert_with(|| Generation {
            key,
            ..Generation::default()
        });
        if part.seq > 0 {
            if part.seq <= generation.last_seq {
                return;
            }
            generation.last_seq = part.seq;
        }
        let base = concat(&["coder-", &decimal(key.0), "-", &decimal(key.1)]);
        match part.part {
            Part::Text(text) => {
                let id = generation.assistant.get_or_insert(base).clone();
                if !generation.text_open {
                    generation.text_open = true;
                    out.push(Update::Event(Event::TextMessageStart(TextMessageStart {
                        message_id: id.clone(),
                        role: None,
                        name: None,
                        ..FromJson::placeholder()
                    })));
                }
                if !text.is_empty() {
                    out.push(Update::Event(Event::TextMessageContent(
                        TextMessageContent {
                            message_id: id,
                            delta: text,
                            ..FromJson::placeholder()
                        },
                    )));
                }
            }
            Part::Reasoning(text) => {
                let id = match &generation.reasoning {
                    Some(id) => id.clone(),
                    None => {
                        let id = concat(&[&base, "-reasoning"]);
                        generation.reasoning = Some(id.clone());
                        out.push(Update::Event(Event::ReasoningMessageStart(
                            ReasoningMessageStart {
                                message_id: id.clone(),
                                role: ReasoningRole::Reasoning,
                                ..FromJson::placeholder()
                            },
                        )));
                        id
                    }
                };
                if !text.is_empty() {
                    out.push(Update::Event(Event::ReasoningMessageContent(
                        ReasoningMessageContent {
                            message_id: id,
                            delta: text,
                            ..FromJson::placeholder()
                        },
                    )));
                }
            }
            Part::ToolCall(call) => {
                if call.provider_executed {
                    self.provider_executed.insert(call.tool_call_id.clone());
                }
                let parent = generation.assistant.get_or_insert(base).clone();
                let at = match generation
                    .calls
                    .iter()
                    .position(|(id, _)| *id == call.tool_call_id)
                {
                    Some(at) => at,
                    None => {
                        out.push(Update::Event(Event::ToolCallStart(ToolCallStart {
                            tool_call_id: call.tool_call_id.clone(),
                            tool_call_name: call.tool_name.clone(),
                            parent_message_id: Some(parent),
                            ..FromJson::placeholder()
                        })));
                        generation
                            .calls
                            .push((call.tool_call_id.clone(), CallPhase::Started));
                        generation.calls.len() - 1
                    }
                };
                let (id, phase) = &mut generation.calls[at];
                let args = match (*phase, call.args_delta, &call.args) {
                    (CallPhase::Ended, _, _) => return,
                    (_, Some(delta), None) if !delta.is_empty() => {
                        *phase = CallPhase::Streaming;
                        Some(delta)
                    }
                    // The complete arguments: sent as one piece unless deltas already were
                    // (the committed message brings the exact text either way).
                    (before, _, Some(args)) => {
                        *phase = CallPhase::Ended;
                        (before == CallPhase::Started).then(|| args.to_json())
                    }
                    _ => None,
                };
                if let Some(delta) = args {
                    out.push(Update::Event(Event::ToolCallArgs(ToolCallArgs {
                        tool_call_id: id.clone(),
                        delta,
                        ..FromJson::placeholder()
                    })));
                }
                if *phase == CallPhase::Ended {
                    out.push(Update::Event(Event::ToolCallEnd(ToolCallEnd {
                        tool_call_id: id.clone(),
                        ..FromJson::placeholder()
                    })));
                }
            }
            // A streamed tool result (provider-executed, or an advisor's) shows when committed.
            Part::ToolResult(_) | Part::Other(_) => {}
        }
    }

    /// Upserts a committed message by id.
    fn upsert(&mut self, message: ChatMessage) {
        let id = message.id;
        self.last_id = Some(self.last_id.map_or(id, |last| last.max(id)));
        let converted = self.convert(message);
        let (mut start, mut found) = (0, None);
        let mut slot = self.spans.len();
        for (i, &(span_id, len)) in self.spans.iter().enumerate() {
            if span_id == id {
                found = Some(len);
                slot = i;
                break;
            }
            if span_id > id {
                slot = i;
                break;
            }
            start += len;
        }
        self.answer_committed |= converted
            .iter()
            .any(|m| matches!(m, Message::Assistant(a) if a.tool_calls.is_none()));
        let len = converted.len();
        // The span's messages give way to the new ones. Not `Vec::splice`: its drop, which does
        // the work, is a large function of its own; the tail moves once either way.
        let tail = self.messages.split_off(start + found.unwrap_or(0));
        self.messages.truncate(start);
        self.messages.extend(converted);
        self.messages.extend(tail);
        match found {
            Some(_) => self.spans[slot].1 = len,
            None => self.spans.insert(slot, (id, len)),
        }
        self.replace = true;
    }

    /// A committed Coder message as AG-UI messages (see the module docs).
    fn convert(&mut self, message: ChatMessage) -> Vec<Message> {
        let id = decimal(message.id);
        let mut text = String::new();
        let mut reasoning: Option<String> = None;
        let mut calls = Vec::new();
        let mut results = Vec::new();
        for part in message.content {
            match part {
                Part::Text(t) => crate::json::push_str(&mut text, &t),
                Part::Reasoning(t) => {
                    crate::json::push_str(reasoning.get_or_insert_with(String::new), &t)
                }
                Part::ToolCall(call) => {
                    if call.provider_executed {
                        self.provider_executed.insert(call.tool_call_id.clone());
                    }
                    calls.push(ToolCall {
                        id: call.tool_call_id,
                        kind: FunctionKind::Function,
                        function: FunctionCall {
                            name: call.tool_name,
                            arguments: call.args.map(|a| a.to_json()).unwrap_or_default(),
                        },
                        rare: None,
                    });
                }
                Part::ToolResult(result) => results.push(result),
                Part::Other(_) => {}
            }
        }
        let mut out = Vec::new();
        match message.role {
            Role::Assistant => {
                if let Some(content) = reasoning {
                    out.push(Message::Reasoning(ReasoningMessage {
                        id: concat(&[&id, "-reasoning"]),
                        content,
                        rare: None,
                    }));
                }
                if !text.is_empty() || !calls.is_empty() || results.is_empty() {
                    out.push(Message::Assistant(AssistantMessage {
                        id: id.clone(),
                        content: Some(text).filter(|t| !t.is_empty()),
                        tool_calls: Some(calls).filter(|c| !c.is_empty()),
                        ..AssistantMessage::default()
                    }));
                }
            }
            Role::User => out.push(Message::User(UserMessage {
                id: id.clone(),
                content: Content::Text(text),
                rare: None,
            })),
            Role::System => out.push(Message::System(TextMessage {
                id: id.clone(),
                content: text,
                rare: None,
            })),
            Role::Tool | Role::Other(_) => {}
        }
        if matches!(message.role, Role::Assistant | Role::Tool) {
            let first = out.is_empty();
            for (i, result) in results.into_iter().enumerate() {
                if result.provider_executed {
                    self.provider_executed.insert(result.tool_call_id.clone());
                }
                let content = match result.result {
                    Value::String(text) => text,
                    other => other.to_json(),
                };
                out.push(Message::Tool(ToolMessage {
                    id: if first && i == 0 {
                        id.clone()
                    } else {
                        concat(&[&id, "-", &decimal((i + usize::from(!first)) as i64)])
                    },
                    rare: RareFields {
                        error: result.is_error.then(|| content.clone()),
                        ..RareFields::default()
                    }
                    .boxed(),
                    content: Content::Text(content),
                    tool_call_id: result.tool_call_id,
                }));
            }
        }
        out
    }
}
