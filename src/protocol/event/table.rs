//! The one table of the AG-UI events (`events!`): from it come the payload structs, the
//! [`Event`] enum, the `type` dispatch of the reader and the writer's fields. Reading and writing
//! a whole event is `read.rs`'s job.

use crate::json::Value;
use crate::protocol::wire::{FieldError, Fields, ObjWriter};
use crate::wire_struct;

use super::fields::{
    Content, EncryptedValueSubtype, JsonObject, JsonPatch, ReasoningRole, RunFinishedOutcome,
    SubagentOutcome, TextMessageRole, TokenUsage, ToolRole,
};
use super::message::Message;
use super::request::RunAgentInput;

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

            impl $variant {
                /// Writes the fields after `type`: its own, then the base fields through
                /// [`write_base`], in the order of the struct (the order `wire_struct!` writes).
                fn write_event_fields(&self, w: &mut ObjWriter<'_>) {
                    let e = self;
                    $( w.field($wire, &e.$field); )*
                    write_base(w, &e.timestamp, &e.raw_event, &e.metadata, events!(@tag $scope e));
                }
            }
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

            /// Reads the fields of a known `type`; `None` for a type not in the table. The type
            /// is looked up in a table of readers, one loop and one string comparison, rather
            /// than through a `match` on the string, which compiled each type's comparison inline.
            #[inline]
            pub(super) fn read_known(
                ty: &str,
                fields: &mut Fields<'_>,
            ) -> Option<Result<Event, FieldError>> {
                // Each reader takes its fields without checking them (placeholders where one
                // failed); the one check is here, for all of them.
                type Reader = fn(&mut Fields<'_>) -> Event;
                const READERS: &[(&str, Reader)] = &[
                    $( ($type, |fields| Event::$variant($variant::read_unchecked(fields))), )*
                ];
                // Behind `black_box`, as the short tables: the search stays one loop.
                let (_, read) = core::hint::black_box(READERS)
                    .iter()
                    .find(|(name, _)| *name == ty)?;
                let event = read(fields);
                Some(fields.check().map(|()| event))
            }

            /// Writes the fields after `type`.
            pub(super) fn write_known_fields(&self, w: &mut ObjWriter<'_>) {
                match self {
                    $( Event::$variant(e) => e.write_event_fields(w), )*
                    Event::Unknown(_) => {}
                }
            }
        }

        /// The table as data, for the TypeScript declarations: `(type, scope, fields)`.
        #[cfg(test)]
        pub(super) const EVENT_TABLE: &[(&str, &str, &[(&str, &str)])] = &[
            $( ($type, stringify!($scope), $variant::WIRE_FIELDS), )*
        ];
    };
    (@tag scoped $e:ident) => { Some(&$e.subagent_run_id) };
    (@tag $scope:ident $e:ident) => { None };
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

/// The base fields every event has (`timestamp`, `rawEvent`, `metadata`) and, for a `scoped`
/// event, its optional `subagentRunId`, written after the event's own fields. Out of line: one
/// call per event type instead of three or four, each with its key.
#[inline(never)]
fn write_base(
    w: &mut ObjWriter<'_>,
    timestamp: &Option<i64>,
    raw_event: &Option<Value>,
    metadata: &Option<JsonObject>,
    subagent_run_id: Option<&Option<String>>,
) {
    w.field("timestamp", timestamp);
    w.field("rawEvent", raw_event);
    w.field("metadata", metadata);
    if let Some(id) = subagent_run_id {
        w.field("subagentRunId", id);
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
