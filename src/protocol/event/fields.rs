//! The types of the events' and messages' fields: role and kind literals, the outcomes of
//! `RUN_FINISHED` and `SUBAGENT_FINISHED`, interrupts, token usage, content, tool calls.

use crate::json::patch::PatchOp;
use crate::json::{Map, Value};
use crate::protocol::wire::{FieldError, Fields, FromJson, ObjWriter, ToJson};
use crate::{wire_literals, wire_struct};

/// A JSON object (`metadata`, activity `content`, ...).
pub type JsonObject = Map;

/// An RFC 6902 JSON Patch (`STATE_DELTA.delta`, `ACTIVITY_DELTA.patch`).
pub type JsonPatch = Vec<PatchOp>;

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
        Ok(
            match outcome_index(&kind, &["success", "interrupt", "cancelled"])? {
                0 => RunFinishedOutcome::Success {
                    pending_tool_call_ids: f.take("pendingToolCallIds")?,
                },
                1 => {
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
                _ => RunFinishedOutcome::Cancelled {},
            },
        )
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

/// Where the outcome's `type` is in `names`, or the error naming them. Out of line, one loop for
/// both outcomes (a `match` on the strings compiled each comparison inline).
#[inline(never)]
fn outcome_index(kind: &str, names: &[&str]) -> Result<usize, FieldError> {
    names.iter().position(|name| *name == kind).ok_or_else(|| {
        FieldError::new(format!(
            "unknown outcome type `{kind}`, expected {}",
            crate::protocol::wire::one_of(names)
        ))
        .in_member("type")
    })
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
        Ok(match outcome_index(&kind, &["success", "suspended"])? {
            0 => SubagentOutcome::Success {},
            _ => SubagentOutcome::Suspended {
                interrupt_ids: f.take("interruptIds")?,
            },
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

/// The optional fields most messages (and tool calls) lack, boxed together as their `rare`
/// field (`wire_struct!`'s `rare` group) and only when one is present: an absent one costs no
/// 12-byte slot in every message. One struct for every message kind: a kind reads and writes
/// only the fields it lists (a `tool` message has no `name`, an `activity` message no
/// `encryptedValue`), and the others stay `None`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RareFields {
    /// The author's name (`developer`, `system`, `user`, `assistant`).
    pub name: Option<String>,
    /// Why the tool failed (`tool`; its `content` still says what happened).
    pub error: Option<String>,
    /// An opaque value from the provider (`REASONING_ENCRYPTED_VALUE`; not on `activity`).
    pub encrypted_value: Option<String>,
    /// Free-form metadata.
    pub metadata: Option<JsonObject>,
    /// The sub-agent run it belongs to (messages).
    pub subagent_run_id: Option<String>,
}

impl RareFields {
    /// Whether every field is absent.
    pub fn is_empty(&self) -> bool {
        self.name.is_none()
            && self.error.is_none()
            && self.encrypted_value.is_none()
            && self.metadata.is_none()
            && self.subagent_run_id.is_none()
    }

    /// The value of a `rare` field: `None` when every field is absent.
    #[inline(never)]
    pub fn boxed(self) -> Option<Box<RareFields>> {
        if self.is_empty() {
            None
        } else {
            Some(Box::new(self))
        }
    }

    /// The fields of a `rare` slot, to set: boxed (all absent) if the slot was empty.
    #[inline(never)]
    pub fn make(slot: &mut Option<Box<RareFields>>) -> &mut RareFields {
        slot.get_or_insert_with(Default::default)
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
    }
    rare RareFields {
        /// An opaque value from the provider (`REASONING_ENCRYPTED_VALUE`).
        encrypted_value "encryptedValue": String,
        /// Free-form metadata.
        metadata "metadata": JsonObject,
    }
}

/// A tool call is 10 words: 40 bytes in wasm32 (60 before its rare fields were boxed), the
/// item of an assistant message's `toolCalls`.
const _: () = assert!(
    core::mem::size_of::<ToolCall>() <= 10 * core::mem::size_of::<usize>(),
    "a ToolCall grew past 10 words (40 bytes in wasm32): keep rare fields in `rare`"
);

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
