//! AG-UI 1.0 events and messages, in wire form.
//!
//! Wire conventions (see `docs/protocol.md`): field names are camelCase, optional fields are *omitted*
//! (never serialized as `null`), and the TS client's legacy `null`s on input are read as "absent".
//! Parsing is liberal on the unknown and strict on the known: an unknown `type` becomes
//! [`Event::Unknown`] (kept with its JSON), unknown fields of a known event are ignored, and a
//! malformed known field is an [`EventError::Field`] naming the event index, type and field.
//!
//! Every type here is read and written by hand through [`super::wire`] (one JSON parser, no
//! per-type deserializer code); each struct declares its JSON names once.

use crate::json::patch::PatchOp;
use crate::json::{parse_tagged_object, Map, Value};
use crate::{wire_literals, wire_struct};

use super::wire::{FieldError, Fields, FromJson, ObjWriter, ToJson};

/// A JSON object (`metadata`, activity `content`, ...).
pub type JsonObject = Map;

/// An RFC 6902 JSON Patch (`STATE_DELTA.delta`, `ACTIVITY_DELTA.patch`).
pub type JsonPatch = Vec<PatchOp>;

/// Declares an event payload struct: the event's own fields plus the base fields every event has
/// (`timestamp`, `rawEvent`, `metadata`) and, where the spec allows it, `subagentRunId`.
macro_rules! event_struct {
    (
        $(#[$doc:meta])* $name:ident $(+ $subagent:ident)? {
            $( $(#[$fdoc:meta])* $field:ident $wire:literal : $ty:ty ),* $(,)?
        }
    ) => {
        wire_struct! {
            $(#[$doc])*
            pub struct $name {
                $( $(#[$fdoc])* $field $wire: $ty, )*
                /// Milliseconds since the epoch, by convention.
                timestamp "timestamp": Option<i64>,
                /// The upstream event this one was translated from, if any.
                raw_event "rawEvent": Option<Value>,
                /// Free-form metadata; the key `"ag-ui"` is reserved.
                metadata "metadata": Option<JsonObject>,
                $(
                    /// The sub-agent run that emitted this event, if any.
                    $subagent "subagentRunId": Option<String>,
                )?
            }
        }
    };
}

event_struct! {
    /// `RUN_STARTED`: a run began.
    RunStarted {
        /// The thread the run belongs to.
        thread_id "threadId": String,
        /// The run's id.
        run_id "runId": String,
        /// The producer's protocol version, `"MAJOR.MINOR"`.
        protocol_version "protocolVersion": Option<String>,
        /// The run that spawned this one.
        parent_run_id "parentRunId": Option<String>,
        /// An echo of the input the run was started with.
        input "input": Option<Box<RunAgentInput>>,
    }
}

event_struct! {
    /// `RUN_FINISHED`: the run ended normally.
    RunFinished {
        /// The thread the run belongs to.
        thread_id "threadId": String,
        /// The run's id.
        run_id "runId": String,
        /// The run's result, any JSON.
        result "result": Option<Value>,
        /// How the run ended; absent means success.
        outcome "outcome": Option<RunFinishedOutcome>,
        /// Token usage per model call.
        usage "usage": Option<Vec<TokenUsage>>,
    }
}

event_struct! {
    /// `RUN_ERROR`: the run failed.
    RunError {
        /// What went wrong.
        message "message": String,
        /// A machine-readable code.
        code "code": Option<String>,
        /// Token usage per model call.
        usage "usage": Option<Vec<TokenUsage>>,
    }
}

event_struct! {
    /// `STEP_STARTED`: a named step of the agent began.
    StepStarted + subagent_run_id {
        /// The step's name.
        step_name "stepName": String,
    }
}

event_struct! {
    /// `STEP_FINISHED`: a named step ended.
    StepFinished + subagent_run_id {
        /// The step's name.
        step_name "stepName": String,
    }
}

event_struct! {
    /// `TEXT_MESSAGE_START`: a text message opens.
    TextMessageStart + subagent_run_id {
        /// The message's id.
        message_id "messageId": String,
        /// The author; absent means assistant.
        role "role": Option<TextMessageRole>,
        /// The author's name.
        name "name": Option<String>,
    }
}

event_struct! {
    /// `TEXT_MESSAGE_CONTENT`: a piece of an open text message.
    TextMessageContent + subagent_run_id {
        /// The message's id.
        message_id "messageId": String,
        /// The text to append (may be empty).
        delta "delta": String,
    }
}

event_struct! {
    /// `TEXT_MESSAGE_END`: a text message closes.
    TextMessageEnd + subagent_run_id {
        /// The message's id.
        message_id "messageId": String,
    }
}

event_struct! {
    /// `TEXT_MESSAGE_CHUNK`: shorthand for start/content/end, expanded by [`crate::protocol::chunks`].
    TextMessageChunk + subagent_run_id {
        /// The message's id (required on the first chunk).
        message_id "messageId": Option<String>,
        /// The author.
        role "role": Option<TextMessageRole>,
        /// The text to append.
        delta "delta": Option<String>,
        /// The author's name.
        name "name": Option<String>,
    }
}

event_struct! {
    /// `TOOL_CALL_START`: the model begins a tool call.
    ToolCallStart + subagent_run_id {
        /// The call's id.
        tool_call_id "toolCallId": String,
        /// The tool's name.
        tool_call_name "toolCallName": String,
        /// The assistant message holding the call.
        parent_message_id "parentMessageId": Option<String>,
    }
}

event_struct! {
    /// `TOOL_CALL_ARGS`: a fragment of the call's JSON arguments.
    ToolCallArgs + subagent_run_id {
        /// The call's id.
        tool_call_id "toolCallId": String,
        /// A fragment of JSON text (may be empty).
        delta "delta": String,
    }
}

event_struct! {
    /// `TOOL_CALL_END`: the call's arguments are complete.
    ToolCallEnd + subagent_run_id {
        /// The call's id.
        tool_call_id "toolCallId": String,
    }
}

event_struct! {
    /// `TOOL_CALL_CHUNK`: shorthand for start/args/end, expanded by [`crate::protocol::chunks`].
    ToolCallChunk + subagent_run_id {
        /// The call's id (required on the first chunk).
        tool_call_id "toolCallId": Option<String>,
        /// The tool's name (required on the first chunk).
        tool_call_name "toolCallName": Option<String>,
        /// The assistant message holding the call.
        parent_message_id "parentMessageId": Option<String>,
        /// A fragment of JSON text.
        delta "delta": Option<String>,
    }
}

event_struct! {
    /// `TOOL_CALL_RESULT`: the server answered a tool call (a backend tool).
    ToolCallResult + subagent_run_id {
        /// The id of the tool message this creates.
        message_id "messageId": String,
        /// The call answered.
        tool_call_id "toolCallId": String,
        /// The result.
        content "content": Content,
        /// Always `"tool"` when present.
        role "role": Option<ToolRole>,
    }
}

event_struct! {
    /// `STATE_SNAPSHOT`: the whole agent state.
    StateSnapshot + subagent_run_id {
        /// The new state.
        snapshot "snapshot": Value,
    }
}

event_struct! {
    /// `STATE_DELTA`: an RFC 6902 patch to the agent state.
    StateDelta + subagent_run_id {
        /// The patch.
        delta "delta": JsonPatch,
    }
}

event_struct! {
    /// `MESSAGES_SNAPSHOT`: the whole message list.
    MessagesSnapshot {
        /// The messages.
        messages "messages": Vec<Message>,
    }
}

event_struct! {
    /// `ACTIVITY_SNAPSHOT`: the content of an activity message.
    ActivitySnapshot + subagent_run_id {
        /// The activity message's id.
        message_id "messageId": String,
        /// The kind of activity.
        activity_type "activityType": String,
        /// The activity's content.
        content "content": JsonObject,
        /// Replace an existing message with this id (default true).
        replace "replace": Option<bool>,
    }
}

event_struct! {
    /// `ACTIVITY_DELTA`: an RFC 6902 patch to an activity message's content.
    ActivityDelta + subagent_run_id {
        /// The activity message's id.
        message_id "messageId": String,
        /// The kind of activity.
        activity_type "activityType": String,
        /// The patch.
        patch "patch": JsonPatch,
    }
}

event_struct! {
    /// `RAW`: an upstream event passed through.
    Raw + subagent_run_id {
        /// The upstream event.
        event "event": Value,
        /// Where it came from.
        source "source": Option<String>,
    }
}

event_struct! {
    /// `CUSTOM`: an application-defined event.
    Custom + subagent_run_id {
        /// The event's name.
        name "name": String,
        /// Its value.
        value "value": Value,
    }
}

event_struct! {
    /// `REASONING_START`: a reasoning span opens.
    ReasoningStart + subagent_run_id {
        /// The span's id.
        message_id "messageId": String,
    }
}

event_struct! {
    /// `REASONING_MESSAGE_START`: a reasoning message opens.
    ReasoningMessageStart + subagent_run_id {
        /// The message's id.
        message_id "messageId": String,
        /// Always `"reasoning"`.
        role "role": ReasoningRole,
    }
}

event_struct! {
    /// `REASONING_MESSAGE_CONTENT`: a piece of an open reasoning message.
    ReasoningMessageContent + subagent_run_id {
        /// The message's id.
        message_id "messageId": String,
        /// The text to append.
        delta "delta": String,
    }
}

event_struct! {
    /// `REASONING_MESSAGE_END`: a reasoning message closes.
    ReasoningMessageEnd + subagent_run_id {
        /// The message's id.
        message_id "messageId": String,
    }
}

event_struct! {
    /// `REASONING_MESSAGE_CHUNK`: shorthand for reasoning start/content/end.
    ReasoningMessageChunk + subagent_run_id {
        /// The message's id (required on the first chunk).
        message_id "messageId": Option<String>,
        /// The text to append.
        delta "delta": Option<String>,
    }
}

event_struct! {
    /// `REASONING_END`: a reasoning span closes.
    ReasoningEnd + subagent_run_id {
        /// The span's id.
        message_id "messageId": String,
    }
}

event_struct! {
    /// `REASONING_ENCRYPTED_VALUE`: an opaque value for a tool call or message.
    ReasoningEncryptedValue + subagent_run_id {
        /// What the value belongs to.
        subtype "subtype": EncryptedValueSubtype,
        /// The id of the tool call or message.
        entity_id "entityId": String,
        /// The opaque value.
        encrypted_value "encryptedValue": String,
    }
}

event_struct! {
    /// `SUBAGENT_STARTED`: a sub-agent run began.
    SubagentStarted {
        /// The sub-agent run's id.
        subagent_run_id "subagentRunId": String,
        /// The sub-agent's name.
        name "name": String,
        /// What it does.
        description "description": Option<String>,
        /// The sub-agent run that spawned it.
        parent_subagent_run_id "parentSubagentRunId": Option<String>,
        /// The tool call that spawned it.
        parent_tool_call_id "parentToolCallId": Option<String>,
        /// The message that spawned it.
        parent_message_id "parentMessageId": Option<String>,
    }
}

event_struct! {
    /// `SUBAGENT_FINISHED`: a sub-agent run ended.
    SubagentFinished {
        /// The sub-agent run's id.
        subagent_run_id "subagentRunId": String,
        /// Its result.
        result "result": Option<Value>,
        /// How it ended.
        outcome "outcome": Option<SubagentOutcome>,
    }
}

event_struct! {
    /// `SUBAGENT_ERROR`: a sub-agent run failed.
    SubagentError {
        /// The sub-agent run's id.
        subagent_run_id "subagentRunId": String,
        /// What went wrong.
        message "message": String,
        /// A machine-readable code.
        code "code": Option<String>,
    }
}

/// An event whose `type` this crate does not know: kept whole, reported, never dropped silently.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq)]
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

    /// The wire JSON of this event (`type` first).
    pub fn to_json(&self) -> String {
        self.to_json_string()
    }

    /// Parses one event from the `data` of an SSE frame. `index` is the event's position in the
    /// stream, carried into errors.
    pub fn parse(data: &str, index: usize) -> Result<Parsed, EventError> {
        let object = match parse_tagged_object(data, "type") {
            Ok(Some(object)) => object,
            Ok(None) => return Err(EventError::NoType { index }),
            Err(e) => {
                return Err(EventError::Json {
                    index,
                    message: e.to_string(),
                })
            }
        };
        let (at, ty) = match object.tag {
            Some((at, ty)) if !ty.is_empty() => (at, ty),
            _ => return Err(EventError::NoType { index }),
        };
        let mut fields = Fields::borrowed(object.members);
        let field_error = |e: FieldError| EventError::Field {
            index,
            event_type: ty.to_string(),
            field: e.path,
            message: e.message,
        };
        macro_rules! known {
            ($variant:ident) => {
                $variant::read(&mut fields).map(Event::$variant)
            };
        }
        let event = match &*ty {
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
            | "THINKING_TEXT_MESSAGE_END" => {
                return parse_legacy(&mut fields, &ty).map_err(field_error)
            }
            _ => {
                fields.insert(at, "type", Value::String(ty.into_owned()));
                return Ok(Parsed::Event(Event::Unknown(UnknownEvent {
                    json: fields.into_map(),
                })));
            }
        };
        event.map(Parsed::Event).map_err(field_error)
    }
}

impl ToJson for Event {
    fn write_json(&self, out: &mut String) {
        if let Event::Unknown(e) = self {
            return e.json.write_json(out);
        }
        let mut w = ObjWriter::new(out);
        w.field("type", self.type_name());
        macro_rules! fields {
            ($($variant:ident),*) => {
                match self {
                    $( Event::$variant(e) => e.write_fields(&mut w), )*
                    Event::Unknown(_) => {}
                }
            };
        }
        fields!(
            RunStarted,
            RunFinished,
            RunError,
            StepStarted,
            StepFinished,
            TextMessageStart,
            TextMessageContent,
            TextMessageEnd,
            TextMessageChunk,
            ToolCallStart,
            ToolCallArgs,
            ToolCallEnd,
            ToolCallChunk,
            ToolCallResult,
            StateSnapshot,
            StateDelta,
            MessagesSnapshot,
            ActivitySnapshot,
            ActivityDelta,
            Raw,
            Custom,
            ReasoningStart,
            ReasoningMessageStart,
            ReasoningMessageContent,
            ReasoningMessageEnd,
            ReasoningMessageChunk,
            ReasoningEnd,
            ReasoningEncryptedValue,
            SubagentStarted,
            SubagentFinished,
            SubagentError
        );
        w.end();
    }
}

fn parse_legacy(fields: &mut Fields<'_>, ty: &str) -> Result<Parsed, FieldError> {
    let timestamp = fields.take("timestamp")?;
    let event = match ty {
        "THINKING_START" => LegacyThinking::Start {
            title: fields.take("title")?,
        },
        "THINKING_END" => LegacyThinking::End,
        "THINKING_TEXT_MESSAGE_START" => LegacyThinking::TextMessageStart,
        "THINKING_TEXT_MESSAGE_CONTENT" => LegacyThinking::TextMessageContent {
            delta: fields.take("delta")?,
        },
        _ => LegacyThinking::TextMessageEnd,
    };
    Ok(Parsed::Legacy { event, timestamp })
}

wire_literals! {
    /// The author of a text message.
    #[allow(missing_docs)]
    pub enum TextMessageRole {
        Developer = "developer",
        System = "system",
        Assistant = "assistant",
        User = "user",
    }
}

wire_literals! {
    /// The `"tool"` role literal.
    pub enum ToolRole {
        /// `"tool"`.
        Tool = "tool",
    }
}

wire_literals! {
    /// The `"reasoning"` role literal.
    pub enum ReasoningRole {
        /// `"reasoning"`.
        Reasoning = "reasoning",
    }
}

wire_literals! {
    /// What a `REASONING_ENCRYPTED_VALUE` belongs to.
    pub enum EncryptedValueSubtype {
        /// A tool call (`entityId` is its `toolCallId`).
        ToolCall = "tool-call",
        /// A message (`entityId` is its `messageId`).
        Message = "message",
    }
}

/// `RUN_FINISHED.outcome`.
#[derive(Debug, Clone, PartialEq)]
pub enum RunFinishedOutcome {
    /// The run succeeded. `pendingToolCallIds` hands frontend tool calls to the client.
    Success {
        /// Tool calls this run started and did not answer, in call order.
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

impl FromJson for RunFinishedOutcome {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        let mut f = Fields::of(value)?;
        let kind: String = f.take("type")?;
        Ok(match kind.as_str() {
            "success" => RunFinishedOutcome::Success {
                pending_tool_call_ids: f.take("pendingToolCallIds")?,
            },
            "interrupt" => RunFinishedOutcome::Interrupt {
                interrupts: f.take("interrupts")?,
            },
            "cancelled" => RunFinishedOutcome::Cancelled {},
            other => {
                return Err(unknown_outcome(
                    other,
                    &["success", "interrupt", "cancelled"],
                ))
            }
        })
    }

    fn placeholder() -> Self {
        RunFinishedOutcome::Cancelled {}
    }
}

impl ToJson for RunFinishedOutcome {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        match self {
            RunFinishedOutcome::Success {
                pending_tool_call_ids,
            } => {
                w.field("type", "success");
                w.field("pendingToolCallIds", pending_tool_call_ids);
            }
            RunFinishedOutcome::Interrupt { interrupts } => {
                w.field("type", "interrupt");
                w.field("interrupts", interrupts);
            }
            RunFinishedOutcome::Cancelled {} => w.field("type", "cancelled"),
        }
        w.end();
    }
}

fn unknown_outcome(kind: &str, expected: &[&str]) -> FieldError {
    FieldError::new(format!(
        "unknown outcome type `{kind}`, expected {}",
        super::wire::one_of(expected)
    ))
    .in_member("type")
}

/// `SUBAGENT_FINISHED.outcome`.
#[derive(Debug, Clone, PartialEq)]
pub enum SubagentOutcome {
    /// The sub-agent succeeded.
    Success {},
    /// The sub-agent is waiting on interrupts.
    Suspended {
        /// The interrupts it waits on.
        interrupt_ids: Option<Vec<String>>,
    },
}

impl FromJson for SubagentOutcome {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        let mut f = Fields::of(value)?;
        let kind: String = f.take("type")?;
        Ok(match kind.as_str() {
            "success" => SubagentOutcome::Success {},
            "suspended" => SubagentOutcome::Suspended {
                interrupt_ids: f.take("interruptIds")?,
            },
            other => return Err(unknown_outcome(other, &["success", "suspended"])),
        })
    }

    fn placeholder() -> Self {
        SubagentOutcome::Success {}
    }
}

impl ToJson for SubagentOutcome {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        match self {
            SubagentOutcome::Success {} => w.field("type", "success"),
            SubagentOutcome::Suspended { interrupt_ids } => {
                w.field("type", "suspended");
                w.field("interruptIds", interrupt_ids);
            }
        }
        w.end();
    }
}

wire_struct! {
    /// One open interrupt of a run.
    pub struct Interrupt {
        /// The interrupt's id.
        id "id": String,
        /// Why the run stopped.
        reason "reason": String,
        /// A message for the user.
        message "message": Option<String>,
        /// The tool call it concerns.
        tool_call_id "toolCallId": Option<String>,
        /// The JSON Schema of the expected answer.
        response_schema "responseSchema": Option<JsonObject>,
        /// When it expires (ISO 8601).
        expires_at "expiresAt": Option<String>,
        /// Free-form metadata.
        metadata "metadata": Option<JsonObject>,
        /// The sub-agent run it belongs to.
        subagent_run_id "subagentRunId": Option<String>,
    }
}

wire_struct! {
    /// Token usage of one model call.
    #[derive(Default, Eq)]
    #[allow(missing_docs)]
    pub struct TokenUsage {
        provider "provider": Option<String>,
        model "model": Option<String>,
        input_tokens "inputTokens": Option<u64>,
        output_tokens "outputTokens": Option<u64>,
        total_tokens "totalTokens": Option<u64>,
        reasoning_tokens "reasoningTokens": Option<u64>,
        cached_input_tokens "cachedInputTokens": Option<u64>,
        cache_write_input_tokens "cacheWriteInputTokens": Option<u64>,
    }
}

/// Message content: a string, or an array of content parts (`{ type: "text" | "image" | ... }`).
#[derive(Debug, Clone, PartialEq)]
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

impl FromJson for Content {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        match value {
            Value::String(text) => Ok(Content::Text(text)),
            parts @ Value::Array(_) => Vec::from_json(parts).map(Content::Parts),
            other => Err(FieldError::expected(
                "a string or an array of content parts",
                &other,
            )),
        }
    }

    fn placeholder() -> Self {
        Content::default()
    }
}

impl ToJson for Content {
    fn write_json(&self, out: &mut String) {
        match self {
            Content::Text(text) => text.write_json(out),
            Content::Parts(parts) => parts.write_json(out),
        }
    }
}

wire_struct! {
    /// A tool call inside an assistant message.
    pub struct ToolCall {
        /// The call's id.
        id "id": String,
        /// Always `"function"`.
        kind "type": FunctionKind,
        /// The function called.
        function "function": FunctionCall,
        /// An opaque value from the provider.
        encrypted_value "encryptedValue": Option<String>,
        /// Free-form metadata.
        metadata "metadata": Option<JsonObject>,
    }
}

wire_literals! {
    /// The `"function"` literal of [`ToolCall::kind`].
    #[derive(Default)]
    pub enum FunctionKind {
        /// `"function"`.
        #[default]
        Function = "function",
    }
}

wire_struct! {
    /// The function of a [`ToolCall`].
    pub struct FunctionCall {
        /// The tool's name.
        name "name": String,
        /// The arguments, as JSON text.
        arguments "arguments": String,
    }
}

/// An AG-UI message, discriminated by `role`.
#[derive(Debug, Clone, PartialEq)]
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

    /// The wire JSON of this message (`role` first).
    pub fn to_json(&self) -> String {
        self.to_json_string()
    }
}

impl FromJson for Message {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        let mut f = Fields::of(value)?;
        let role: String = f.take("role")?;
        Ok(match role.as_str() {
            "developer" => Message::Developer(TextMessage::read(&mut f)?),
            "system" => Message::System(TextMessage::read(&mut f)?),
            "user" => Message::User(UserMessage::read(&mut f)?),
            "assistant" => Message::Assistant(AssistantMessage::read(&mut f)?),
            "tool" => Message::Tool(ToolMessage::read(&mut f)?),
            "activity" => Message::Activity(ActivityMessage::read(&mut f)?),
            "reasoning" => Message::Reasoning(ReasoningMessage::read(&mut f)?),
            other => {
                return Err(FieldError::new(format!(
                    "unknown role `{other}`, expected {}",
                    super::wire::one_of(&[
                        "developer",
                        "system",
                        "user",
                        "assistant",
                        "tool",
                        "activity",
                        "reasoning"
                    ])
                ))
                .in_member("role"))
            }
        })
    }

    fn placeholder() -> Self {
        Message::Developer(TextMessage::placeholder())
    }
}

impl ToJson for Message {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("role", self.role());
        match self {
            Message::Developer(m) | Message::System(m) => m.write_fields(&mut w),
            Message::User(m) => m.write_fields(&mut w),
            Message::Assistant(m) => m.write_fields(&mut w),
            Message::Tool(m) => m.write_fields(&mut w),
            Message::Activity(m) => m.write_fields(&mut w),
            Message::Reasoning(m) => m.write_fields(&mut w),
        }
        w.end();
    }
}

wire_struct! {
    /// A `developer` or `system` message.
    #[allow(missing_docs)]
    pub struct TextMessage {
        id "id": String,
        content "content": String,
        name "name": Option<String>,
        encrypted_value "encryptedValue": Option<String>,
        metadata "metadata": Option<JsonObject>,
        subagent_run_id "subagentRunId": Option<String>,
    }
}

wire_struct! {
    /// A `user` message.
    #[allow(missing_docs)]
    pub struct UserMessage {
        id "id": String,
        content "content": Content,
        name "name": Option<String>,
        encrypted_value "encryptedValue": Option<String>,
        metadata "metadata": Option<JsonObject>,
        subagent_run_id "subagentRunId": Option<String>,
    }
}

wire_struct! {
    /// An `assistant` message: text, tool calls, or both.
    #[derive(Default)]
    #[allow(missing_docs)]
    pub struct AssistantMessage {
        id "id": String,
        content "content": Option<String>,
        tool_calls "toolCalls": Option<Vec<ToolCall>>,
        name "name": Option<String>,
        encrypted_value "encryptedValue": Option<String>,
        metadata "metadata": Option<JsonObject>,
        subagent_run_id "subagentRunId": Option<String>,
    }
}

wire_struct! {
    /// A `tool` message: the answer to one tool call.
    #[allow(missing_docs)]
    pub struct ToolMessage {
        id "id": String,
        content "content": Content,
        tool_call_id "toolCallId": String,
        /// Set when the tool failed; `content` still says what happened.
        error "error": Option<String>,
        encrypted_value "encryptedValue": Option<String>,
        metadata "metadata": Option<JsonObject>,
        subagent_run_id "subagentRunId": Option<String>,
    }
}

wire_struct! {
    /// An `activity` message: structured progress shown to the user, never sent to the agent.
    #[allow(missing_docs)]
    pub struct ActivityMessage {
        id "id": String,
        activity_type "activityType": String,
        content "content": JsonObject,
        metadata "metadata": Option<JsonObject>,
        subagent_run_id "subagentRunId": Option<String>,
    }
}

wire_struct! {
    /// A `reasoning` message.
    #[allow(missing_docs)]
    pub struct ReasoningMessage {
        id "id": String,
        content "content": String,
        encrypted_value "encryptedValue": Option<String>,
        metadata "metadata": Option<JsonObject>,
        subagent_run_id "subagentRunId": Option<String>,
    }
}

wire_struct! {
    /// A tool offered to the agent in [`RunAgentInput::tools`].
    pub struct Tool {
        /// The tool's name.
        name "name": String,
        /// What it does, for the model.
        description "description": String,
        /// The JSON Schema of its arguments.
        parameters "parameters": Option<Value>,
        /// Free-form metadata.
        metadata "metadata": Option<JsonObject>,
    }
}

wire_struct! {
    /// A piece of context for the agent.
    #[derive(Eq)]
    pub struct Context {
        /// What the value is.
        description "description": String,
        /// The value.
        value "value": String,
    }
}

wire_struct! {
    /// The answer to an open interrupt, sent in [`RunAgentInput::resume`].
    pub struct ResumeEntry {
        /// The interrupt answered.
        interrupt_id "interruptId": String,
        /// `"resolved"` or `"cancelled"`.
        status "status": ResumeStatus,
        /// The answer.
        payload "payload": Option<Value>,
        /// Free-form metadata.
        metadata "metadata": Option<JsonObject>,
    }
}

wire_literals! {
    /// How an interrupt was answered.
    #[allow(missing_docs)]
    pub enum ResumeStatus {
        Resolved = "resolved",
        Cancelled = "cancelled",
    }
}

wire_struct! {
    /// The body of a run request (`POST runUrl`).
    #[derive(Default)]
    pub struct RunAgentInput {
        /// The thread.
        thread_id "threadId": String,
        /// A fresh id for this run.
        run_id "runId": String,
        /// The consumer's protocol version (`"1.0"`).
        protocol_version "protocolVersion": Option<String>,
        /// The run that this one continues.
        parent_run_id "parentRunId": Option<String>,
        /// The agent state.
        state "state": Option<Value>,
        /// The messages (the whole thread or only the new ones).
        messages "messages": Vec<Message>,
        /// The frontend tools offered.
        tools "tools" default: Vec<Tool>,
        /// Context for the agent.
        context "context" default: Vec<Context>,
        /// Properties passed through to the agent.
        forwarded_props "forwardedProps": Option<Value>,
        /// Answers to open interrupts.
        resume "resume": Option<Vec<ResumeEntry>>,
    }
}
