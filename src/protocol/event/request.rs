//! The body of a run request (`RunAgentInput`) and what it carries besides messages: the tools
//! offered, context, answers to interrupts.

use crate::json::Value;
use crate::{wire_literals, wire_struct};

use super::fields::JsonObject;
use super::message::Message;

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
