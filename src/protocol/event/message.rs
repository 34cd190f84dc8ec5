//! The one table of the AG-UI messages (`messages!`) and their payload structs.

use crate::json::Value;
use crate::protocol::wire::{FieldError, Fields, FromJson, ObjWriter, ToJson};
use crate::wire_struct;

use super::fields::{Content, JsonObject, RareFields, ToolCall};

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

            /// The message's rare fields (`name`, `error`, `encryptedValue`, `metadata`,
            /// `subagentRunId`, those of its kind), `None` when it has none.
            pub fn rare(&self) -> Option<&RareFields> {
                match self {
                    $( Message::$variant(m) => m.rare.as_deref(), )*
                }
            }

            /// The message's rare fields, to set: boxed now if it had none. Set only the fields
            /// of its kind: the others are never written.
            pub fn rare_mut(&mut self) -> &mut RareFields {
                RareFields::make(self.rare_slot())
            }

            /// The message's `rare` field itself (`None` when it has no rare fields).
            pub fn rare_slot(&mut self) -> &mut Option<Box<RareFields>> {
                match self {
                    $( Message::$variant(m) => &mut m.rare, )*
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
                // A table of readers, one loop and one string comparison, rather than a `match`
                // on the string, which compiled each role's comparison inline (as `Event`'s);
                // behind `black_box`, whose length LLVM cannot see, so the loop is not unrolled.
                // Each reader takes its fields unchecked; the one check is here (as `Event`'s).
                type Reader = fn(&mut Fields<'_>) -> Message;
                const READERS: &[(&str, Reader)] = &[
                    $( ($role, |f| Message::$variant($payload::read_unchecked(f))), )*
                ];
                match core::hint::black_box(READERS).iter().find(|(name, _)| *name == role) {
                    Some((_, read)) => {
                        let message = read(&mut f);
                        f.check().map(|()| message)
                    }
                    None => Err(FieldError::new(format!(
                        "unknown role `{role}`, expected {}",
                        crate::protocol::wire::one_of(&[$($role),*])
                    ))
                    .in_member("role")),
                }
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
        pub(super) const MESSAGE_TABLE: &[(&str, &[(&str, &str)])] = &[
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
    }
    rare RareFields {
        /// The author's name.
        name "name": String,
        /// An opaque value from the provider (`REASONING_ENCRYPTED_VALUE`).
        encrypted_value "encryptedValue": String,
        /// Free-form metadata.
        metadata "metadata": JsonObject,
        /// The sub-agent run it belongs to.
        subagent_run_id "subagentRunId": String,
    }
}

wire_struct! {
    /// A `user` message.
    #[allow(missing_docs)]
    pub struct UserMessage {
        id "id": String,
        content "content": Content,
    }
    rare RareFields {
        /// The author's name.
        name "name": String,
        /// An opaque value from the provider (`REASONING_ENCRYPTED_VALUE`).
        encrypted_value "encryptedValue": String,
        /// Free-form metadata.
        metadata "metadata": JsonObject,
        /// The sub-agent run it belongs to.
        subagent_run_id "subagentRunId": String,
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
    }
    rare RareFields {
        /// The author's name.
        name "name": String,
        /// An opaque value from the provider (`REASONING_ENCRYPTED_VALUE`).
        encrypted_value "encryptedValue": String,
        /// Free-form metadata.
        metadata "metadata": JsonObject,
        /// The sub-agent run it belongs to.
        subagent_run_id "subagentRunId": String,
    }
}

wire_struct! {
    /// A `tool` message: the answer to one tool call.
    #[allow(missing_docs)]
    pub struct ToolMessage {
        id "id": String,
        content "content": Content,
        tool_call_id "toolCallId": String,
    }
    rare RareFields {
        /// Set when the tool failed; `content` still says what happened.
        error "error": String,
        /// An opaque value from the provider (`REASONING_ENCRYPTED_VALUE`).
        encrypted_value "encryptedValue": String,
        /// Free-form metadata.
        metadata "metadata": JsonObject,
        /// The sub-agent run it belongs to.
        subagent_run_id "subagentRunId": String,
    }
}

wire_struct! {
    /// An `activity` message: structured progress shown to the user, never sent to the agent.
    #[allow(missing_docs)]
    pub struct ActivityMessage {
        id "id": String,
        activity_type "activityType": String,
        content "content": JsonObject,
    }
    rare RareFields {
        /// Free-form metadata.
        metadata "metadata": JsonObject,
        /// The sub-agent run it belongs to.
        subagent_run_id "subagentRunId": String,
    }
}

wire_struct! {
    /// A `reasoning` message.
    #[allow(missing_docs)]
    pub struct ReasoningMessage {
        id "id": String,
        content "content": String,
    }
    rare RareFields {
        /// An opaque value from the provider (`REASONING_ENCRYPTED_VALUE`).
        encrypted_value "encryptedValue": String,
        /// Free-form metadata.
        metadata "metadata": JsonObject,
        /// The sub-agent run it belongs to.
        subagent_run_id "subagentRunId": String,
    }
}

/// A message is 11 words: 44 bytes in wasm32 (88 before its rare fields were boxed), the slot
/// of the thread's `Vec<Message>`. Its largest kinds are `tool` (`id`, `content`, `toolCallId`)
/// and `assistant` (`id`, `content`, `toolCalls`), each with the box of its rare fields; an
/// optional field moved out of the box adds a word or three to every message.
const _: () = assert!(
    core::mem::size_of::<Message>() <= 11 * core::mem::size_of::<usize>(),
    "a Message grew past 11 words (44 bytes in wasm32): keep rare fields in `rare`"
);
