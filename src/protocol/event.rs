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

/// The one table of the AG-UI events: each entry is `Variant "WIRE_TYPE" scope { fields }`, and
/// from it come the payload structs (their own fields plus the base fields every event has:
/// `timestamp`, `rawEvent`, `metadata`), the [`Event`] enum, the `type` dispatch of
/// [`Event::parse`], the writer, [`Event::known_type_name`], [`Event::subagent_run_id`] and, in
/// the tests, the `AgUiEvent` declaration of `src/wasm/types.d.ts` (a test fails when the file
/// drifts from this table).
///
/// `scope` says where the event's sub-agent is: `run` (none: `RUN_*`, `MESSAGES_SNAPSHOT`),
/// `scoped` (an optional `subagentRunId` base field) or `subagent` (`SUBAGENT_*`, whose own
/// required `subagentRunId` field is declared in the entry).
macro_rules! events {
    (
        $(
            $(#[$doc:meta])* $variant:ident $type:literal $scope:ident {
                $( $(#[$fdoc:meta])* $field:ident $wire:literal : $ty:ty ),* $(,)?
            }
        )*
    ) => {
        $(
            events!(@struct $scope [$(#[$doc])*] $variant { $( [$(#[$fdoc])*] $field $wire: $ty, )* });
        )*

        /// An AG-UI 1.0 event. Serializes to its wire JSON, with `type` first.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        #[allow(missing_docs)] // each variant is documented on its payload struct
        pub enum Event {
            $( $variant($variant), )*
            /// An event of a type this crate does not know.
            Unknown(UnknownEvent),
        }

        impl Event {
            /// The wire `type` string of a known event, as a `&'static str`; `None` for
            /// [`Event::Unknown`].
            pub fn known_type_name(&self) -> Option<&'static str> {
                Some(match self {
                    $( Event::$variant(_) => $type, )*
                    Event::Unknown(_) => return None,
                })
            }

            /// The sub-agent run this event is attributed to: its `subagentRunId` (required on
            /// `SUBAGENT_*`, optional on most events, absent on `RUN_*` and `MESSAGES_SNAPSHOT`).
            /// `None` means the parent agent. For [`Event::Unknown`] it reads the field from the
            /// JSON.
            pub fn subagent_run_id(&self) -> Option<&str> {
                match self {
                    $( Event::$variant(_e) => events!(@subagent $scope _e), )*
                    Event::Unknown(e) => e.json.get("subagentRunId").and_then(Value::as_str),
                }
            }

            /// Reads the fields of a known `type`; `None` for a type not in the table.
            #[inline]
            fn read_known(
                ty: &str,
                fields: &mut Fields<'_>,
            ) -> Option<Result<Event, FieldError>> {
                Some(match ty {
                    $( $type => $variant::read(fields).map(Event::$variant), )*
                    _ => return None,
                })
            }

            /// Writes the fields after `type`.
            fn write_known_fields(&self, w: &mut ObjWriter<'_>) {
                match self {
                    $( Event::$variant(e) => e.write_fields(w), )*
                    Event::Unknown(_) => {}
                }
            }
        }

        /// The table as data, for the TypeScript declarations: `(type, scope, fields)`.
        #[cfg(test)]
        const EVENT_TABLE: &[(&str, &str, &[(&str, &str)])] = &[
            $( ($type, stringify!($scope), $variant::WIRE_FIELDS), )*
        ];
    };
    (@subagent run $e:ident) => { None };
    (@subagent scoped $e:ident) => { $e.subagent_run_id.as_deref() };
    (@subagent subagent $e:ident) => { Some(&$e.subagent_run_id) };
    (@struct scoped [$(#[$doc:meta])*] $name:ident {
        $( [$(#[$fdoc:meta])*] $field:ident $wire:literal : $ty:ty, )*
    }) => {
        events!(@struct run [$(#[$doc])*] $name {
            $( [$(#[$fdoc])*] $field $wire: $ty, )*
        } [
            /// The sub-agent run that emitted this event, if any.
        ] subagent_run_id "subagentRunId": Option<String>,);
    };
    (@struct $scope:ident [$(#[$doc:meta])*] $name:ident {
        $( [$(#[$fdoc:meta])*] $field:ident $wire:literal : $ty:ty, )*
    } $( [$(#[$xdoc:meta])*] $xfield:ident $xwire:literal : $xty:ty, )?) => {
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
                $( $(#[$xdoc])* $xfield $xwire: $xty, )?
            }
        }
    };
}

events! {
    /// `RUN_STARTED`: a run began.
    RunStarted "RUN_STARTED" run {
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

    /// `RUN_FINISHED`: the run ended normally.
    RunFinished "RUN_FINISHED" run {
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

    /// `RUN_ERROR`: the run failed.
    RunError "RUN_ERROR" run {
        /// What went wrong.
        message "message": String,
        /// A machine-readable code.
        code "code": Option<String>,
        /// Token usage per model call.
        usage "usage": Option<Vec<TokenUsage>>,
    }

    /// `STEP_STARTED`: a named step of the agent began.
    StepStarted "STEP_STARTED" scoped {
        /// The step's name.
        step_name "stepName": String,
    }

    /// `STEP_FINISHED`: a named step ended.
    StepFinished "STEP_FINISHED" scoped {
        /// The step's name.
        step_name "stepName": String,
    }

    /// `TEXT_MESSAGE_START`: a text message opens.
    TextMessageStart "TEXT_MESSAGE_START" scoped {
        /// The message's id.
        message_id "messageId": String,
        /// The author; absent means assistant.
        role "role": Option<TextMessageRole>,
        /// The author's name.
        name "name": Option<String>,
    }

    /// `TEXT_MESSAGE_CONTENT`: a piece of an open text message.
    TextMessageContent "TEXT_MESSAGE_CONTENT" scoped {
        /// The message's id.
        message_id "messageId": String,
        /// The text to append (may be empty).
        delta "delta": String,
    }

    /// `TEXT_MESSAGE_END`: a text message closes.
    TextMessageEnd "TEXT_MESSAGE_END" scoped {
        /// The message's id.
        message_id "messageId": String,
    }

    /// `TEXT_MESSAGE_CHUNK`: shorthand for start/content/end, expanded by [`crate::protocol::chunks`].
    TextMessageChunk "TEXT_MESSAGE_CHUNK" scoped {
        /// The message's id (required on the first chunk).
        message_id "messageId": Option<String>,
        /// The author.
        role "role": Option<TextMessageRole>,
        /// The text to append.
        delta "delta": Option<String>,
        /// The author's name.
        name "name": Option<String>,
    }

    /// `TOOL_CALL_START`: the model begins a tool call.
    ToolCallStart "TOOL_CALL_START" scoped {
        /// The call's id.
        tool_call_id "toolCallId": String,
        /// The tool's name.
        tool_call_name "toolCallName": String,
        /// The assistant message holding the call.
        parent_message_id "parentMessageId": Option<String>,
    }

    /// `TOOL_CALL_ARGS`: a fragment of the call's JSON arguments.
    ToolCallArgs "TOOL_CALL_ARGS" scoped {
        /// The call's id.
        tool_call_id "toolCallId": String,
        /// A fragment of JSON text (may be empty).
        delta "delta": String,
    }

    /// `TOOL_CALL_END`: the call's arguments are complete.
    ToolCallEnd "TOOL_CALL_END" scoped {
        /// The call's id.
        tool_call_id "toolCallId": String,
    }

    /// `TOOL_CALL_CHUNK`: shorthand for start/args/end, expanded by [`crate::protocol::chunks`].
    ToolCallChunk "TOOL_CALL_CHUNK" scoped {
        /// The call's id (required on the first chunk).
        tool_call_id "toolCallId": Option<String>,
        /// The tool's name (required on the first chunk).
        tool_call_name "toolCallName": Option<String>,
        /// The assistant message holding the call.
        parent_message_id "parentMessageId": Option<String>,
        /// A fragment of JSON text.
        delta "delta": Option<String>,
    }

    /// `TOOL_CALL_RESULT`: the server answered a tool call (a backend tool).
    ToolCallResult "TOOL_CALL_RESULT" scoped {
        /// The id of the tool message this creates.
        message_id "messageId": String,
        /// The call answered.
        tool_call_id "toolCallId": String,
        /// The result.
        content "content": Content,
        /// Always `"tool"` when present.
        role "role": Option<ToolRole>,
    }

    /// `STATE_SNAPSHOT`: the whole agent state.
    StateSnapshot "STATE_SNAPSHOT" scoped {
        /// The new state.
        snapshot "snapshot": Value,
    }

    /// `STATE_DELTA`: an RFC 6902 patch to the agent state.
    StateDelta "STATE_DELTA" scoped {
        /// The patch.
        delta "delta": JsonPatch,
    }

    /// `MESSAGES_SNAPSHOT`: the whole message list.
    MessagesSnapshot "MESSAGES_SNAPSHOT" run {
        /// The messages.
        messages "messages": Vec<Message>,
    }

    /// `ACTIVITY_SNAPSHOT`: the content of an activity message.
    ActivitySnapshot "ACTIVITY_SNAPSHOT" scoped {
        /// The activity message's id.
        message_id "messageId": String,
        /// The kind of activity.
        activity_type "activityType": String,
        /// The activity's content.
        content "content": JsonObject,
        /// Replace an existing message with this id (default true).
        replace "replace": Option<bool>,
    }

    /// `ACTIVITY_DELTA`: an RFC 6902 patch to an activity message's content.
    ActivityDelta "ACTIVITY_DELTA" scoped {
        /// The activity message's id.
        message_id "messageId": String,
        /// The kind of activity.
        activity_type "activityType": String,
        /// The patch.
        patch "patch": JsonPatch,
    }

    /// `RAW`: an upstream event passed through.
    Raw "RAW" scoped {
        /// The upstream event.
        event "event": Value,
        /// Where it came from.
        source "source": Option<String>,
    }

    /// `CUSTOM`: an application-defined event.
    Custom "CUSTOM" scoped {
        /// The event's name.
        name "name": String,
        /// Its value.
        value "value": Value,
    }

    /// `REASONING_START`: a reasoning span opens.
    ReasoningStart "REASONING_START" scoped {
        /// The span's id.
        message_id "messageId": String,
    }

    /// `REASONING_MESSAGE_START`: a reasoning message opens.
    ReasoningMessageStart "REASONING_MESSAGE_START" scoped {
        /// The message's id.
        message_id "messageId": String,
        /// Always `"reasoning"`.
        role "role": ReasoningRole,
    }

    /// `REASONING_MESSAGE_CONTENT`: a piece of an open reasoning message.
    ReasoningMessageContent "REASONING_MESSAGE_CONTENT" scoped {
        /// The message's id.
        message_id "messageId": String,
        /// The text to append.
        delta "delta": String,
    }

    /// `REASONING_MESSAGE_END`: a reasoning message closes.
    ReasoningMessageEnd "REASONING_MESSAGE_END" scoped {
        /// The message's id.
        message_id "messageId": String,
    }

    /// `REASONING_MESSAGE_CHUNK`: shorthand for reasoning start/content/end.
    ReasoningMessageChunk "REASONING_MESSAGE_CHUNK" scoped {
        /// The message's id (required on the first chunk).
        message_id "messageId": Option<String>,
        /// The text to append.
        delta "delta": Option<String>,
    }

    /// `REASONING_END`: a reasoning span closes.
    ReasoningEnd "REASONING_END" scoped {
        /// The span's id.
        message_id "messageId": String,
    }

    /// `REASONING_ENCRYPTED_VALUE`: an opaque value for a tool call or message.
    ReasoningEncryptedValue "REASONING_ENCRYPTED_VALUE" scoped {
        /// What the value belongs to.
        subtype "subtype": EncryptedValueSubtype,
        /// The id of the tool call or message.
        entity_id "entityId": String,
        /// The opaque value.
        encrypted_value "encryptedValue": String,
    }

    /// `SUBAGENT_STARTED`: a sub-agent run began.
    SubagentStarted "SUBAGENT_STARTED" subagent {
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

    /// `SUBAGENT_FINISHED`: a sub-agent run ended.
    SubagentFinished "SUBAGENT_FINISHED" subagent {
        /// The sub-agent run's id.
        subagent_run_id "subagentRunId": String,
        /// Its result.
        result "result": Option<Value>,
        /// How it ended.
        outcome "outcome": Option<SubagentOutcome>,
    }

    /// `SUBAGENT_ERROR`: a sub-agent run failed.
    SubagentError "SUBAGENT_ERROR" subagent {
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
        if let Some(event) = Event::read_known(&ty, &mut fields) {
            return event.map(Parsed::Event).map_err(field_error);
        }
        if LEGACY_TYPES.contains(&&*ty) {
            return parse_legacy(&mut fields, &ty).map_err(field_error);
        }
        fields.insert(at, "type", Value::String(ty.into_owned()));
        Ok(Parsed::Event(Event::Unknown(UnknownEvent {
            json: fields.into_map(),
        })))
    }
}

/// The pre-1.0 `THINKING_*` types [`parse_legacy`] reads.
const LEGACY_TYPES: &[&str] = &[
    "THINKING_START",
    "THINKING_END",
    "THINKING_TEXT_MESSAGE_START",
    "THINKING_TEXT_MESSAGE_CONTENT",
    "THINKING_TEXT_MESSAGE_END",
];

impl ToJson for Event {
    fn write_json(&self, out: &mut String) {
        if let Event::Unknown(e) = self {
            return e.json.write_json(out);
        }
        let mut w = ObjWriter::new(out);
        w.field("type", self.type_name());
        self.write_known_fields(&mut w);
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
            "interrupt" => {
                let interrupts: Vec<Interrupt> = f.take("interrupts")?;
                // One answer per id (`RunAgentInput.resume`): two interrupts with one id could
                // not both be answered, nor each answer checked against its own schema.
                for (at, interrupt) in interrupts.iter().enumerate() {
                    if interrupts[..at].iter().any(|i| i.id == interrupt.id) {
                        return Err(FieldError::new(format!(
                            "duplicate interrupt id {}",
                            crate::json::quoted(&interrupt.id)
                        ))
                        .in_member("id")
                        .in_item(at)
                        .in_member("interrupts"));
                    }
                }
                RunFinishedOutcome::Interrupt { interrupts }
            }
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

/// The one table of the AG-UI messages: `Variant(Payload) "role"`, from which come the
/// [`Message`] enum, [`Message::id`], [`Message::role`], the reader's `role` dispatch, the writer
/// and, in the tests, the `MessageOf` declaration of `src/wasm/types.d.ts`.
macro_rules! messages {
    ($( $variant:ident($payload:ident) $role:literal ),* $(,)?) => {
        /// An AG-UI message, discriminated by `role`.
        #[derive(Debug, Clone, PartialEq)]
        #[allow(missing_docs)] // documented on the payload structs
        pub enum Message {
            $( $variant($payload), )*
        }

        impl Message {
            /// The message's id.
            pub fn id(&self) -> &str {
                match self {
                    $( Message::$variant(m) => &m.id, )*
                }
            }

            /// The wire `role` string.
            pub fn role(&self) -> &'static str {
                match self {
                    $( Message::$variant(_) => $role, )*
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
                    $( $role => Message::$variant($payload::read(&mut f)?), )*
                    other => {
                        return Err(FieldError::new(format!(
                            "unknown role `{other}`, expected {}",
                            super::wire::one_of(&[$($role),*])
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
                    $( Message::$variant(m) => m.write_fields(&mut w), )*
                }
                w.end();
            }
        }

        /// The table as data, for the TypeScript declarations: `(role, fields)`.
        #[cfg(test)]
        const MESSAGE_TABLE: &[(&str, &[(&str, &str)])] = &[
            $( ($role, $payload::WIRE_FIELDS), )*
        ];
    };
}

messages! {
    Developer(TextMessage) "developer",
    System(TextMessage) "system",
    User(UserMessage) "user",
    Assistant(AssistantMessage) "assistant",
    Tool(ToolMessage) "tool",
    Activity(ActivityMessage) "activity",
    Reasoning(ReasoningMessage) "reasoning",
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

/// The TypeScript declarations of `src/wasm/types.d.ts` that come from the tables above: the
/// `AgUiEvent` union (from [`events!`]), `MessageOf` (from [`messages!`]) and the interfaces of
/// plain wire structs. A test compares
/// them with the file; `UPDATE_TYPES=1 cargo test --lib types_d_ts` rewrites the file's blocks.
#[cfg(test)]
mod typescript {
    use super::*;

    /// The TypeScript type of a field's Rust type (as `stringify!` spells it).
    fn ts_type(rust: &str, part: &str) -> String {
        let rust: String = rust.chars().filter(|c| !c.is_whitespace()).collect();
        let literals = |names: &[&str]| {
            names
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(" | ")
        };
        if let Some(inner) = rust.strip_prefix("Vec<").and_then(|r| r.strip_suffix('>')) {
            let item = ts_type(inner, part);
            return if item.contains(' ') {
                format!("({item})[]")
            } else {
                format!("{item}[]")
            };
        }
        if let Some(inner) = rust.strip_prefix("Box<").and_then(|r| r.strip_suffix('>')) {
            return ts_type(inner, part);
        }
        match rust.as_str() {
            "String" => "string".into(),
            "bool" => "boolean".into(),
            "i64" | "u64" => "number".into(),
            "Value" => "JsonValue".into(),
            "JsonObject" => "JsonObject".into(),
            "JsonPatch" => "JsonPatchOperation[]".into(),
            "Content" => format!("string | {part}[]"),
            "FunctionCall" => format!("{{ {} }}", members(FunctionCall::WIRE_FIELDS, part)),
            "FunctionKind" => literals(FunctionKind::WIRE_NAMES),
            "SubagentOutcome" => {
                "{ type: \"success\" } | { type: \"suspended\"; interruptIds?: string[] }".into()
            }
            "TextMessageRole" => literals(TextMessageRole::WIRE_NAMES),
            "ToolRole" => literals(ToolRole::WIRE_NAMES),
            "ReasoningRole" => literals(ReasoningRole::WIRE_NAMES),
            "EncryptedValueSubtype" => literals(EncryptedValueSubtype::WIRE_NAMES),
            "RunFinishedOutcome" | "TokenUsage" | "Message" | "RunAgentInput" | "Interrupt"
            | "ToolCall" => rust,
            other => panic!("no TypeScript type for `{other}`: add it to ts_type"),
        }
    }

    /// `name: type` or `name?: type` (for an `Option`).
    fn ts_member(wire: &str, rust: &str, part: &str) -> String {
        let rust: String = rust.chars().filter(|c| !c.is_whitespace()).collect();
        match rust
            .strip_prefix("Option<")
            .and_then(|r| r.strip_suffix('>'))
        {
            Some(inner) => format!("{wire}?: {}", ts_type(inner, part)),
            None => format!("{wire}: {}", ts_type(&rust, part)),
        }
    }

    /// `a: T; b?: U`.
    fn members(fields: &[(&str, &str)], part: &str) -> String {
        let members: Vec<String> = fields
            .iter()
            .map(|(wire, rust)| ts_member(wire, rust, part))
            .collect();
        members.join("; ")
    }

    /// `MessageOf<Part>`: a message with the base fields (`MessageBase`) is written on it; one
    /// without (`activity` has no `encryptedValue`) spells out all its fields.
    fn message_union() -> String {
        const BASE: [&str; 4] = ["id", "encryptedValue", "metadata", "subagentRunId"];
        let mut out = String::from("type MessageOf<Part> =\n");
        for (role, fields) in MESSAGE_TABLE {
            let role = format!("role: \"{role}\"");
            let has_base = BASE.iter().all(|b| fields.iter().any(|(w, _)| w == b));
            let line = if has_base {
                let own: Vec<_> = fields
                    .iter()
                    .filter(|(w, _)| !BASE.contains(w))
                    .copied()
                    .collect();
                format!("(MessageBase & {{ {role}; {} }})", members(&own, "Part"))
            } else {
                let (id, rest) = fields.split_first().unwrap();
                let id = ts_member(id.0, id.1, "Part");
                format!("{{ {id}; {role}; {} }}", members(rest, "Part"))
            };
            out.push_str(&format!("  | {line}\n"));
        }
        out.pop();
        out.push_str(";\n");
        out
    }

    fn event_union() -> String {
        let mut out = String::from("export type AgUiEvent =\n");
        for (ty, scope, fields) in EVENT_TABLE {
            let base = if *scope == "scoped" {
                "SubagentScoped"
            } else {
                "EventBase"
            };
            let mut members = vec![format!("type: \"{ty}\"")];
            for (wire, rust) in fields.iter() {
                let in_base = matches!(*wire, "timestamp" | "rawEvent" | "metadata")
                    || (*scope == "scoped" && *wire == "subagentRunId");
                if !in_base {
                    members.push(ts_member(wire, rust, "ContentPart"));
                }
            }
            out.push_str(&format!("  | ({base} & {{ {} }})\n", members.join("; ")));
        }
        out.pop();
        out.push_str(";\n");
        out
    }

    fn interface(name: &str, fields: &[(&str, &str)]) -> String {
        let mut out = format!("export interface {name} {{\n");
        for (wire, rust) in fields {
            out.push_str(&format!("  {};\n", ts_member(wire, rust, "ContentPart")));
        }
        out.push_str("}\n");
        out
    }

    #[test]
    fn types_d_ts() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/wasm/types.d.ts");
        let mut file = std::fs::read_to_string(path).unwrap();
        let blocks = [
            event_union(),
            message_union(),
            interface("ToolCall", ToolCall::WIRE_FIELDS),
            interface("TokenUsage", TokenUsage::WIRE_FIELDS),
            interface("Interrupt", Interrupt::WIRE_FIELDS),
            interface("Context", Context::WIRE_FIELDS),
        ];
        let update = std::env::var_os("UPDATE_TYPES").is_some();
        for block in &blocks {
            let head = block.lines().next().unwrap();
            let at = file
                .find(&format!("{head}\n"))
                .unwrap_or_else(|| panic!("src/wasm/types.d.ts has no `{head}`"));
            let end = if head.ends_with('=') { ");\n" } else { "\n}\n" };
            let len = file[at..].find(end).unwrap() + end.len();
            if update {
                file.replace_range(at..at + len, block);
            } else {
                assert_eq!(
                    &file[at..at + len],
                    block.as_str(),
                    "src/wasm/types.d.ts drifted from the wire tables (src/protocol/event.rs): run \
                     `UPDATE_TYPES=1 cargo test --lib types_d_ts`"
                );
            }
        }
        if update {
            std::fs::write(path, file).unwrap();
        }
    }
}
