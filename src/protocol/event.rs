//! AG-UI 1.0 events and messages, with serde in wire form.
//!
//! Wire conventions (see `agui-1.0.md`): field names are camelCase, optional fields are *omitted*
//! (never serialized as `null`), and the TS client's legacy `null`s on input are read as "absent".
//! Parsing is liberal on the unknown and strict on the known: an unknown `type` becomes
//! [`Event::Unknown`] (kept with its JSON), unknown fields of a known event are ignored, and a
//! malformed known field is an [`EventError::Field`] naming the event index, type and field.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::locate::{offset_of, path_at};

/// A JSON object (`metadata`, activity `content`, ...).
pub type JsonObject = Map<String, Value>;

/// An RFC 6902 JSON Patch (`STATE_DELTA.delta`, `ACTIVITY_DELTA.patch`).
pub type JsonPatch = json_patch::Patch;

/// Declares an event payload struct: the event's own fields plus the base fields every event has
/// (`timestamp`, `rawEvent`, `metadata`) and, where the spec allows it, `subagentRunId`.
macro_rules! event_struct {
    (
        $(#[$doc:meta])* $name:ident $(+ $subagent:ident)? {
            $( $(#[$fdoc:meta])* $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $( $(#[$fdoc])* pub $field: $ty, )*
            /// Milliseconds since the epoch, by convention.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub timestamp: Option<i64>,
            /// The upstream event this one was translated from, if any.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub raw_event: Option<Value>,
            /// Free-form metadata; the key `"ag-ui"` is reserved.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub metadata: Option<JsonObject>,
            $(
                /// The sub-agent run that emitted this event, if any.
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $subagent: Option<String>,
            )?
        }
    };
}

event_struct! {
    /// `RUN_STARTED`: a run began.
    RunStarted {
        /// The thread the run belongs to.
        thread_id: String,
        /// The run's id.
        run_id: String,
        /// The producer's protocol version, `"MAJOR.MINOR"`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        protocol_version: Option<String>,
        /// The run that spawned this one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_run_id: Option<String>,
        /// An echo of the input the run was started with.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input: Option<Box<RunAgentInput>>,
    }
}

event_struct! {
    /// `RUN_FINISHED`: the run ended normally.
    RunFinished {
        /// The thread the run belongs to.
        thread_id: String,
        /// The run's id.
        run_id: String,
        /// The run's result, any JSON.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// How the run ended; absent means success.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<RunFinishedOutcome>,
        /// Token usage per model call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Vec<TokenUsage>>,
    }
}

event_struct! {
    /// `RUN_ERROR`: the run failed.
    RunError {
        /// What went wrong.
        message: String,
        /// A machine-readable code.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        /// Token usage per model call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Vec<TokenUsage>>,
    }
}

event_struct! {
    /// `STEP_STARTED`: a named step of the agent began.
    StepStarted + subagent_run_id {
        /// The step's name.
        step_name: String,
    }
}

event_struct! {
    /// `STEP_FINISHED`: a named step ended.
    StepFinished + subagent_run_id {
        /// The step's name.
        step_name: String,
    }
}

event_struct! {
    /// `TEXT_MESSAGE_START`: a text message opens.
    TextMessageStart + subagent_run_id {
        /// The message's id.
        message_id: String,
        /// The author; absent means assistant.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<TextMessageRole>,
        /// The author's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    }
}

event_struct! {
    /// `TEXT_MESSAGE_CONTENT`: a piece of an open text message.
    TextMessageContent + subagent_run_id {
        /// The message's id.
        message_id: String,
        /// The text to append (may be empty).
        delta: String,
    }
}

event_struct! {
    /// `TEXT_MESSAGE_END`: a text message closes.
    TextMessageEnd + subagent_run_id {
        /// The message's id.
        message_id: String,
    }
}

event_struct! {
    /// `TEXT_MESSAGE_CHUNK`: shorthand for start/content/end, expanded by [`crate::protocol::chunks`].
    TextMessageChunk + subagent_run_id {
        /// The message's id (required on the first chunk).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        /// The author.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<TextMessageRole>,
        /// The text to append.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<String>,
        /// The author's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    }
}

event_struct! {
    /// `TOOL_CALL_START`: the model begins a tool call.
    ToolCallStart + subagent_run_id {
        /// The call's id.
        tool_call_id: String,
        /// The tool's name.
        tool_call_name: String,
        /// The assistant message holding the call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
    }
}

event_struct! {
    /// `TOOL_CALL_ARGS`: a fragment of the call's JSON arguments.
    ToolCallArgs + subagent_run_id {
        /// The call's id.
        tool_call_id: String,
        /// A fragment of JSON text (may be empty).
        delta: String,
    }
}

event_struct! {
    /// `TOOL_CALL_END`: the call's arguments are complete.
    ToolCallEnd + subagent_run_id {
        /// The call's id.
        tool_call_id: String,
    }
}

event_struct! {
    /// `TOOL_CALL_CHUNK`: shorthand for start/args/end, expanded by [`crate::protocol::chunks`].
    ToolCallChunk + subagent_run_id {
        /// The call's id (required on the first chunk).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call_id: Option<String>,
        /// The tool's name (required on the first chunk).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call_name: Option<String>,
        /// The assistant message holding the call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
        /// A fragment of JSON text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<String>,
    }
}

event_struct! {
    /// `TOOL_CALL_RESULT`: the server answered a tool call (a backend tool).
    ToolCallResult + subagent_run_id {
        /// The id of the tool message this creates.
        message_id: String,
        /// The call answered.
        tool_call_id: String,
        /// The result.
        content: Content,
        /// Always `"tool"` when present.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<ToolRole>,
    }
}

event_struct! {
    /// `STATE_SNAPSHOT`: the whole agent state.
    StateSnapshot + subagent_run_id {
        /// The new state.
        snapshot: Value,
    }
}

event_struct! {
    /// `STATE_DELTA`: an RFC 6902 patch to the agent state.
    StateDelta + subagent_run_id {
        /// The patch.
        delta: JsonPatch,
    }
}

event_struct! {
    /// `MESSAGES_SNAPSHOT`: the whole message list.
    MessagesSnapshot {
        /// The messages.
        messages: Vec<Message>,
    }
}

event_struct! {
    /// `ACTIVITY_SNAPSHOT`: the content of an activity message.
    ActivitySnapshot + subagent_run_id {
        /// The activity message's id.
        message_id: String,
        /// The kind of activity.
        activity_type: String,
        /// The activity's content.
        content: JsonObject,
        /// Replace an existing message with this id (default true).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replace: Option<bool>,
    }
}

event_struct! {
    /// `ACTIVITY_DELTA`: an RFC 6902 patch to an activity message's content.
    ActivityDelta + subagent_run_id {
        /// The activity message's id.
        message_id: String,
        /// The kind of activity.
        activity_type: String,
        /// The patch.
        patch: JsonPatch,
    }
}

event_struct! {
    /// `RAW`: an upstream event passed through.
    Raw + subagent_run_id {
        /// The upstream event.
        event: Value,
        /// Where it came from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        source: Option<String>,
    }
}

event_struct! {
    /// `CUSTOM`: an application-defined event.
    Custom + subagent_run_id {
        /// The event's name.
        name: String,
        /// Its value.
        value: Value,
    }
}

event_struct! {
    /// `REASONING_START`: a reasoning span opens.
    ReasoningStart + subagent_run_id {
        /// The span's id.
        message_id: String,
    }
}

event_struct! {
    /// `REASONING_MESSAGE_START`: a reasoning message opens.
    ReasoningMessageStart + subagent_run_id {
        /// The message's id.
        message_id: String,
        /// Always `"reasoning"`.
        role: ReasoningRole,
    }
}

event_struct! {
    /// `REASONING_MESSAGE_CONTENT`: a piece of an open reasoning message.
    ReasoningMessageContent + subagent_run_id {
        /// The message's id.
        message_id: String,
        /// The text to append.
        delta: String,
    }
}

event_struct! {
    /// `REASONING_MESSAGE_END`: a reasoning message closes.
    ReasoningMessageEnd + subagent_run_id {
        /// The message's id.
        message_id: String,
    }
}

event_struct! {
    /// `REASONING_MESSAGE_CHUNK`: shorthand for reasoning start/content/end.
    ReasoningMessageChunk + subagent_run_id {
        /// The message's id (required on the first chunk).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        /// The text to append.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<String>,
    }
}

event_struct! {
    /// `REASONING_END`: a reasoning span closes.
    ReasoningEnd + subagent_run_id {
        /// The span's id.
        message_id: String,
    }
}

event_struct! {
    /// `REASONING_ENCRYPTED_VALUE`: an opaque value for a tool call or message.
    ReasoningEncryptedValue + subagent_run_id {
        /// What the value belongs to.
        subtype: EncryptedValueSubtype,
        /// The id of the tool call or message.
        entity_id: String,
        /// The opaque value.
        encrypted_value: String,
    }
}

event_struct! {
    /// `SUBAGENT_STARTED`: a sub-agent run began.
    SubagentStarted {
        /// The sub-agent run's id.
        subagent_run_id: String,
        /// The sub-agent's name.
        name: String,
        /// What it does.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// The sub-agent run that spawned it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_subagent_run_id: Option<String>,
        /// The tool call that spawned it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
        /// The message that spawned it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
    }
}

event_struct! {
    /// `SUBAGENT_FINISHED`: a sub-agent run ended.
    SubagentFinished {
        /// The sub-agent run's id.
        subagent_run_id: String,
        /// Its result.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// How it ended.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<SubagentOutcome>,
    }
}

event_struct! {
    /// `SUBAGENT_ERROR`: a sub-agent run failed.
    SubagentError {
        /// The sub-agent run's id.
        subagent_run_id: String,
        /// What went wrong.
        message: String,
        /// A machine-readable code.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    }
}

/// An event whose `type` this crate does not know: kept whole, reported, never dropped silently.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct UnknownEvent {
    /// The event object as it arrived (including its `type`).
    pub json: JsonObject,
}

impl UnknownEvent {
    /// The unknown `type` string.
    pub fn type_name(&self) -> &str {
        self.json.get("type").and_then(Value::as_str).unwrap_or("")
    }
}

/// An AG-UI 1.0 event. Serializes to its wire JSON, with `type` first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is documented on its payload struct
pub enum Event {
    RunStarted(RunStarted),
    RunFinished(RunFinished),
    RunError(RunError),
    StepStarted(StepStarted),
    StepFinished(StepFinished),
    TextMessageStart(TextMessageStart),
    TextMessageContent(TextMessageContent),
    TextMessageEnd(TextMessageEnd),
    TextMessageChunk(TextMessageChunk),
    ToolCallStart(ToolCallStart),
    ToolCallArgs(ToolCallArgs),
    ToolCallEnd(ToolCallEnd),
    ToolCallChunk(ToolCallChunk),
    ToolCallResult(ToolCallResult),
    StateSnapshot(StateSnapshot),
    StateDelta(StateDelta),
    MessagesSnapshot(MessagesSnapshot),
    ActivitySnapshot(ActivitySnapshot),
    ActivityDelta(ActivityDelta),
    Raw(Raw),
    Custom(Custom),
    ReasoningStart(ReasoningStart),
    ReasoningMessageStart(ReasoningMessageStart),
    ReasoningMessageContent(ReasoningMessageContent),
    ReasoningMessageEnd(ReasoningMessageEnd),
    ReasoningMessageChunk(ReasoningMessageChunk),
    ReasoningEnd(ReasoningEnd),
    ReasoningEncryptedValue(ReasoningEncryptedValue),
    SubagentStarted(SubagentStarted),
    SubagentFinished(SubagentFinished),
    SubagentError(SubagentError),
    /// An event of a type this crate does not know.
    #[serde(untagged)]
    Unknown(UnknownEvent),
}

/// A legacy (pre-1.0) `THINKING_*` event. [`crate::protocol::chunks`] maps these to `REASONING_*`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum LegacyThinking {
    /// `THINKING_START { title? }`.
    Start {
        /// The span's title.
        title: Option<String>,
    },
    /// `THINKING_END`.
    End,
    /// `THINKING_TEXT_MESSAGE_START`.
    TextMessageStart,
    /// `THINKING_TEXT_MESSAGE_CONTENT { delta }`.
    TextMessageContent {
        /// The text to append.
        delta: String,
    },
    /// `THINKING_TEXT_MESSAGE_END`.
    TextMessageEnd,
}

/// One parsed `data` payload: a 1.0 event, or a legacy event still to be translated.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// An AG-UI 1.0 event (or [`Event::Unknown`]).
    Event(Event),
    /// A legacy `THINKING_*` event, with the base fields it carried.
    Legacy {
        /// Which legacy event.
        event: LegacyThinking,
        /// Its `timestamp`, if any.
        timestamp: Option<i64>,
    },
}

/// Why one event's JSON could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EventError {
    /// The `data` is not JSON.
    #[error("event {index}: not valid JSON: {message}")]
    Json {
        /// The event's position in the stream (0-based).
        index: usize,
        /// The parser's message.
        message: String,
    },
    /// The JSON is not an object with a non-empty string `type`.
    #[error("event {index}: not an object with a non-empty string `type`")]
    NoType {
        /// The event's position in the stream (0-based).
        index: usize,
    },
    /// A known field of a known event is missing or malformed.
    #[error("event {index} ({event_type}): field `{field}`: {message}")]
    Field {
        /// The event's position in the stream (0-based).
        index: usize,
        /// The event's `type`.
        event_type: String,
        /// The JSON path of the field (`outcome.pendingToolCallIds[1]`), or `type` itself.
        field: String,
        /// What is wrong with it.
        message: String,
    },
}

impl EventError {
    /// The position in the stream of the event that failed.
    pub fn index(&self) -> usize {
        match self {
            EventError::Json { index, .. }
            | EventError::NoType { index }
            | EventError::Field { index, .. } => *index,
        }
    }
}

/// Reads only the `type` of an event, skipping everything else without building values.
#[derive(Deserialize)]
struct TypeOnly<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<std::borrow::Cow<'a, str>>,
}

impl Event {
    /// The wire `type` string of this event.
    pub fn type_name(&self) -> &str {
        match self {
            Event::Unknown(e) => e.type_name(),
            known => known.known_type_name().unwrap_or_default(),
        }
    }

    /// The wire `type` string of a known event, as a `&'static str`; `None` for
    /// [`Event::Unknown`].
    pub fn known_type_name(&self) -> Option<&'static str> {
        Some(match self {
            Event::RunStarted(_) => "RUN_STARTED",
            Event::RunFinished(_) => "RUN_FINISHED",
            Event::RunError(_) => "RUN_ERROR",
            Event::StepStarted(_) => "STEP_STARTED",
            Event::StepFinished(_) => "STEP_FINISHED",
            Event::TextMessageStart(_) => "TEXT_MESSAGE_START",
            Event::TextMessageContent(_) => "TEXT_MESSAGE_CONTENT",
            Event::TextMessageEnd(_) => "TEXT_MESSAGE_END",
            Event::TextMessageChunk(_) => "TEXT_MESSAGE_CHUNK",
            Event::ToolCallStart(_) => "TOOL_CALL_START",
            Event::ToolCallArgs(_) => "TOOL_CALL_ARGS",
            Event::ToolCallEnd(_) => "TOOL_CALL_END",
            Event::ToolCallChunk(_) => "TOOL_CALL_CHUNK",
            Event::ToolCallResult(_) => "TOOL_CALL_RESULT",
            Event::StateSnapshot(_) => "STATE_SNAPSHOT",
            Event::StateDelta(_) => "STATE_DELTA",
            Event::MessagesSnapshot(_) => "MESSAGES_SNAPSHOT",
            Event::ActivitySnapshot(_) => "ACTIVITY_SNAPSHOT",
            Event::ActivityDelta(_) => "ACTIVITY_DELTA",
            Event::Raw(_) => "RAW",
            Event::Custom(_) => "CUSTOM",
            Event::ReasoningStart(_) => "REASONING_START",
            Event::ReasoningMessageStart(_) => "REASONING_MESSAGE_START",
            Event::ReasoningMessageContent(_) => "REASONING_MESSAGE_CONTENT",
            Event::ReasoningMessageEnd(_) => "REASONING_MESSAGE_END",
            Event::ReasoningMessageChunk(_) => "REASONING_MESSAGE_CHUNK",
            Event::ReasoningEnd(_) => "REASONING_END",
            Event::ReasoningEncryptedValue(_) => "REASONING_ENCRYPTED_VALUE",
            Event::SubagentStarted(_) => "SUBAGENT_STARTED",
            Event::SubagentFinished(_) => "SUBAGENT_FINISHED",
            Event::SubagentError(_) => "SUBAGENT_ERROR",
            Event::Unknown(_) => return None,
        })
    }

    /// The sub-agent run this event is attributed to: its `subagentRunId` (required on
    /// `SUBAGENT_*`, optional on most events, absent on `RUN_*` and `MESSAGES_SNAPSHOT`).
    /// `None` means the parent agent. For [`Event::Unknown`] it reads the field from the JSON.
    pub fn subagent_run_id(&self) -> Option<&str> {
        let id = match self {
            Event::RunStarted(_)
            | Event::RunFinished(_)
            | Event::RunError(_)
            | Event::MessagesSnapshot(_) => return None,
            Event::SubagentStarted(e) => return Some(&e.subagent_run_id),
            Event::SubagentFinished(e) => return Some(&e.subagent_run_id),
            Event::SubagentError(e) => return Some(&e.subagent_run_id),
            Event::Unknown(e) => return e.json.get("subagentRunId").and_then(Value::as_str),
            Event::StepStarted(e) => &e.subagent_run_id,
            Event::StepFinished(e) => &e.subagent_run_id,
            Event::TextMessageStart(e) => &e.subagent_run_id,
            Event::TextMessageContent(e) => &e.subagent_run_id,
            Event::TextMessageEnd(e) => &e.subagent_run_id,
            Event::TextMessageChunk(e) => &e.subagent_run_id,
            Event::ToolCallStart(e) => &e.subagent_run_id,
            Event::ToolCallArgs(e) => &e.subagent_run_id,
            Event::ToolCallEnd(e) => &e.subagent_run_id,
            Event::ToolCallChunk(e) => &e.subagent_run_id,
            Event::ToolCallResult(e) => &e.subagent_run_id,
            Event::StateSnapshot(e) => &e.subagent_run_id,
            Event::StateDelta(e) => &e.subagent_run_id,
            Event::ActivitySnapshot(e) => &e.subagent_run_id,
            Event::ActivityDelta(e) => &e.subagent_run_id,
            Event::Raw(e) => &e.subagent_run_id,
            Event::Custom(e) => &e.subagent_run_id,
            Event::ReasoningStart(e) => &e.subagent_run_id,
            Event::ReasoningMessageStart(e) => &e.subagent_run_id,
            Event::ReasoningMessageContent(e) => &e.subagent_run_id,
            Event::ReasoningMessageEnd(e) => &e.subagent_run_id,
            Event::ReasoningMessageChunk(e) => &e.subagent_run_id,
            Event::ReasoningEnd(e) => &e.subagent_run_id,
            Event::ReasoningEncryptedValue(e) => &e.subagent_run_id,
        };
        id.as_deref()
    }

    /// The wire JSON of this event.
    pub fn to_json(&self) -> String {
        // Serializing plain data structures with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses one event from the `data` of an SSE frame. `index` is the event's position in the
    /// stream, carried into errors.
    pub fn parse(data: &str, index: usize) -> Result<Parsed, EventError> {
        let ty = match leading_type(data) {
            Some(ty) => std::borrow::Cow::Borrowed(ty),
            None => {
                let head: TypeOnly<'_> = match serde_json::from_str(data) {
                    Ok(head) => head,
                    Err(e) if e.is_data() => return Err(EventError::NoType { index }),
                    Err(e) => {
                        return Err(EventError::Json {
                            index,
                            message: e.to_string(),
                        })
                    }
                };
                match head.ty {
                    Some(ty) if !ty.is_empty() => ty,
                    _ => return Err(EventError::NoType { index }),
                }
            }
        };
        macro_rules! known {
            ($variant:ident) => {
                typed::<$variant>(data, index, &ty).map(|e| Parsed::Event(Event::$variant(e)))
            };
        }
        match &*ty {
            "RUN_STARTED" => known!(RunStarted),
            "RUN_FINISHED" => known!(RunFinished),
            "RUN_ERROR" => known!(RunError),
            "STEP_STARTED" => known!(StepStarted),
            "STEP_FINISHED" => known!(StepFinished),
            "TEXT_MESSAGE_START" => known!(TextMessageStart),
            "TEXT_MESSAGE_CONTENT" => known!(TextMessageContent),
            "TEXT_MESSAGE_END" => known!(TextMessageEnd),
            "TEXT_MESSAGE_CHUNK" => known!(TextMessageChunk),
            "TOOL_CALL_START" => known!(ToolCallStart),
            "TOOL_CALL_ARGS" => known!(ToolCallArgs),
            "TOOL_CALL_END" => known!(ToolCallEnd),
            "TOOL_CALL_CHUNK" => known!(ToolCallChunk),
            "TOOL_CALL_RESULT" => known!(ToolCallResult),
            "STATE_SNAPSHOT" => known!(StateSnapshot),
            "STATE_DELTA" => known!(StateDelta),
            "MESSAGES_SNAPSHOT" => known!(MessagesSnapshot),
            "ACTIVITY_SNAPSHOT" => known!(ActivitySnapshot),
            "ACTIVITY_DELTA" => known!(ActivityDelta),
            "RAW" => known!(Raw),
            "CUSTOM" => known!(Custom),
            "REASONING_START" => known!(ReasoningStart),
            "REASONING_MESSAGE_START" => known!(ReasoningMessageStart),
            "REASONING_MESSAGE_CONTENT" => known!(ReasoningMessageContent),
            "REASONING_MESSAGE_END" => known!(ReasoningMessageEnd),
            "REASONING_MESSAGE_CHUNK" => known!(ReasoningMessageChunk),
            "REASONING_END" => known!(ReasoningEnd),
            "REASONING_ENCRYPTED_VALUE" => known!(ReasoningEncryptedValue),
            "SUBAGENT_STARTED" => known!(SubagentStarted),
            "SUBAGENT_FINISHED" => known!(SubagentFinished),
            "SUBAGENT_ERROR" => known!(SubagentError),
            "THINKING_START"
            | "THINKING_END"
            | "THINKING_TEXT_MESSAGE_START"
            | "THINKING_TEXT_MESSAGE_CONTENT"
            | "THINKING_TEXT_MESSAGE_END" => parse_legacy(data, index, &ty),
            _ => match serde_json::from_str::<JsonObject>(data) {
                Ok(json) => Ok(Parsed::Event(Event::Unknown(UnknownEvent { json }))),
                Err(e) => Err(EventError::Json {
                    index,
                    message: e.to_string(),
                }),
            },
        }
    }
}

/// The `type` of an event whose JSON starts with it (`{"type":"TEXT_MESSAGE_CONTENT",...`), as
/// the TS and Python encoders write it: read without a parse, so each event is parsed once. Any
/// other layout (or an escape in the type) returns `None` and takes the full sniffing parse.
fn leading_type(data: &str) -> Option<&str> {
    let rest = data.strip_prefix("{\"type\":\"")?;
    let end = rest.find('"')?;
    let ty = &rest[..end];
    (!ty.is_empty() && !ty.contains('\\')).then_some(ty)
}

/// Deserializes a known event's payload; on failure, names the offending field.
fn typed<T: for<'de> Deserialize<'de>>(
    data: &str,
    index: usize,
    ty: &str,
) -> Result<T, EventError> {
    serde_json::from_str::<T>(data).map_err(|e| {
        // With the fast type read, this is the first full parse: broken JSON is still `Json`.
        if e.is_syntax() || e.is_eof() {
            return EventError::Json {
                index,
                message: e.to_string(),
            };
        }
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(at) => &message[..at],
            None => &message,
        };
        // serde_json stops just past the value it rejected (or the `}` of an object that lacks a
        // field); the scanner stops one byte earlier, inside it.
        let at = offset_of(data, e.line(), e.column()).saturating_sub(1);
        let field = match message
            .strip_prefix("missing field `")
            .and_then(|rest| rest.split('`').next())
        {
            Some(name) => {
                let parent = path_at(data, at, true);
                if parent.is_empty() {
                    name.to_owned()
                } else {
                    format!("{parent}.{name}")
                }
            }
            None => path_at(data, at, false),
        };
        EventError::Field {
            index,
            event_type: ty.to_owned(),
            field,
            message: message.to_owned(),
        }
    })
}

fn parse_legacy(data: &str, index: usize, ty: &str) -> Result<Parsed, EventError> {
    #[derive(Deserialize)]
    struct Legacy {
        #[serde(default)]
        title: Option<String>,
        #[serde(default)]
        delta: Option<String>,
        #[serde(default)]
        timestamp: Option<i64>,
    }
    let legacy: Legacy = typed(data, index, ty)?;
    let event = match ty {
        "THINKING_START" => LegacyThinking::Start {
            title: legacy.title,
        },
        "THINKING_END" => LegacyThinking::End,
        "THINKING_TEXT_MESSAGE_START" => LegacyThinking::TextMessageStart,
        "THINKING_TEXT_MESSAGE_CONTENT" => LegacyThinking::TextMessageContent {
            delta: legacy.delta.ok_or_else(|| EventError::Field {
                index,
                event_type: ty.to_owned(),
                field: "delta".to_owned(),
                message: "missing field `delta`".to_owned(),
            })?,
        },
        _ => LegacyThinking::TextMessageEnd,
    };
    Ok(Parsed::Legacy {
        event,
        timestamp: legacy.timestamp,
    })
}

/// The author of a text message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum TextMessageRole {
    Developer,
    System,
    Assistant,
    User,
}

/// The `"tool"` role literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolRole {
    /// `"tool"`.
    Tool,
}

/// The `"reasoning"` role literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningRole {
    /// `"reasoning"`.
    Reasoning,
}

/// What a `REASONING_ENCRYPTED_VALUE` belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EncryptedValueSubtype {
    /// A tool call (`entityId` is its `toolCallId`).
    ToolCall,
    /// A message (`entityId` is its `messageId`).
    Message,
}

/// `RUN_FINISHED.outcome`.
///
/// Read through a flat struct rather than serde's internally tagged enum, which buffers the object
/// first and then can only say "somewhere in `outcome`" when a field inside it is malformed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase",
    try_from = "FlatOutcome"
)]
pub enum RunFinishedOutcome {
    /// The run succeeded. `pendingToolCallIds` hands frontend tool calls to the client.
    Success {
        /// Tool calls this run started and did not answer, in call order.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pending_tool_call_ids: Option<Vec<String>>,
    },
    /// The run stopped for human input.
    Interrupt {
        /// The open interrupts.
        interrupts: Vec<Interrupt>,
    },
    /// The run was cancelled.
    Cancelled {},
}

/// The wire shape of both outcome types, read field by field.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FlatOutcome {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    pending_tool_call_ids: Option<Vec<String>>,
    #[serde(default)]
    interrupts: Option<Vec<Interrupt>>,
    #[serde(default)]
    interrupt_ids: Option<Vec<String>>,
}

impl TryFrom<FlatOutcome> for RunFinishedOutcome {
    type Error = String;

    fn try_from(flat: FlatOutcome) -> Result<Self, String> {
        match flat.kind.as_str() {
            "success" => Ok(RunFinishedOutcome::Success {
                pending_tool_call_ids: flat.pending_tool_call_ids,
            }),
            "interrupt" => flat
                .interrupts
                .map(|interrupts| RunFinishedOutcome::Interrupt { interrupts })
                .ok_or_else(|| "missing field `interrupts`".to_owned()),
            "cancelled" => Ok(RunFinishedOutcome::Cancelled {}),
            other => Err(format!(
                "unknown outcome type `{other}`, expected `success`, `interrupt` or `cancelled`"
            )),
        }
    }
}

impl TryFrom<FlatOutcome> for SubagentOutcome {
    type Error = String;

    fn try_from(flat: FlatOutcome) -> Result<Self, String> {
        match flat.kind.as_str() {
            "success" => Ok(SubagentOutcome::Success {}),
            "suspended" => Ok(SubagentOutcome::Suspended {
                interrupt_ids: flat.interrupt_ids,
            }),
            other => Err(format!(
                "unknown outcome type `{other}`, expected `success` or `suspended`"
            )),
        }
    }
}

/// One open interrupt of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Interrupt {
    /// The interrupt's id.
    pub id: String,
    /// Why the run stopped.
    pub reason: String,
    /// A message for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The tool call it concerns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The JSON Schema of the expected answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_schema: Option<JsonObject>,
    /// When it expires (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// The sub-agent run it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// `SUBAGENT_FINISHED.outcome`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase",
    try_from = "FlatOutcome"
)]
pub enum SubagentOutcome {
    /// The sub-agent succeeded.
    Success {},
    /// The sub-agent is waiting on interrupts.
    Suspended {
        /// The interrupts it waits on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        interrupt_ids: Option<Vec<String>>,
    },
}

/// Token usage of one model call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TokenUsage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_input_tokens: Option<u64>,
}

/// Message content: a string, or an array of content parts (`{ type: "text" | "image" | ... }`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Content parts, kept as JSON objects.
    Parts(Vec<JsonObject>),
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

/// A tool call inside an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The call's id.
    pub id: String,
    /// Always `"function"`.
    #[serde(rename = "type")]
    pub kind: FunctionKind,
    /// The function called.
    pub function: FunctionCall,
    /// An opaque value from the provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

/// The `"function"` literal of [`ToolCall::kind`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FunctionKind {
    /// `"function"`.
    #[default]
    Function,
}

/// The function of a [`ToolCall`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// The arguments, as JSON text.
    pub arguments: String,
}

/// An AG-UI message, discriminated by `role`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
#[allow(missing_docs)] // documented on the payload structs
pub enum Message {
    Developer(TextMessage),
    System(TextMessage),
    User(UserMessage),
    Assistant(AssistantMessage),
    Tool(ToolMessage),
    Activity(ActivityMessage),
    Reasoning(ReasoningMessage),
}

impl Message {
    /// The message's id.
    pub fn id(&self) -> &str {
        match self {
            Message::Developer(m) | Message::System(m) => &m.id,
            Message::User(m) => &m.id,
            Message::Assistant(m) => &m.id,
            Message::Tool(m) => &m.id,
            Message::Activity(m) => &m.id,
            Message::Reasoning(m) => &m.id,
        }
    }

    /// The wire `role` string.
    pub fn role(&self) -> &'static str {
        match self {
            Message::Developer(_) => "developer",
            Message::System(_) => "system",
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
            Message::Tool(_) => "tool",
            Message::Activity(_) => "activity",
            Message::Reasoning(_) => "reasoning",
        }
    }
}

/// A `developer` or `system` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct TextMessage {
    pub id: String,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// A `user` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct UserMessage {
    pub id: String,
    pub content: Content,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// An `assistant` message: text, tool calls, or both.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct AssistantMessage {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// A `tool` message: the answer to one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct ToolMessage {
    pub id: String,
    pub content: Content,
    pub tool_call_id: String,
    /// Set when the tool failed; `content` still says what happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// An `activity` message: structured progress shown to the user, never sent to the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct ActivityMessage {
    pub id: String,
    pub activity_type: String,
    pub content: JsonObject,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// A `reasoning` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct ReasoningMessage {
    pub id: String,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// A tool offered to the agent in [`RunAgentInput::tools`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The JSON Schema of its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

/// A piece of context for the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Context {
    /// What the value is.
    pub description: String,
    /// The value.
    pub value: String,
}

/// The answer to an open interrupt, sent in [`RunAgentInput::resume`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeEntry {
    /// The interrupt answered.
    pub interrupt_id: String,
    /// `"resolved"` or `"cancelled"`.
    pub status: ResumeStatus,
    /// The answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
}

/// How an interrupt was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum ResumeStatus {
    Resolved,
    Cancelled,
}

/// The body of a run request (`POST runUrl`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunAgentInput {
    /// The thread.
    pub thread_id: String,
    /// A fresh id for this run.
    pub run_id: String,
    /// The consumer's protocol version (`"1.0"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The run that this one continues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// The agent state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
    /// The messages (the whole thread or only the new ones).
    pub messages: Vec<Message>,
    /// The frontend tools offered.
    #[serde(default)]
    pub tools: Vec<Tool>,
    /// Context for the agent.
    #[serde(default)]
    pub context: Vec<Context>,
    /// Properties passed through to the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forwarded_props: Option<Value>,
    /// Answers to open interrupts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<Vec<ResumeEntry>>,
}
