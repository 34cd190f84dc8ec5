//! The errors of the ordering rules: [`OrderError`], one variant per broken rule, each with the
//! event's position and type, and what it names (an [`OpenKind`], an [`EntityKind`]).

/// What was still open when `RUN_FINISHED` arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpenKind {
    /// Steps (`STEP_STARTED` without `STEP_FINISHED`).
    Step,
    /// Text messages.
    TextMessage,
    /// Reasoning messages (`REASONING_MESSAGE_START`).
    ReasoningMessage,
    /// Reasoning spans (`REASONING_START`).
    ReasoningSpan,
    /// Tool calls.
    ToolCall,
    /// Sub-agent runs.
    Subagent,
}

impl std::fmt::Display for OpenKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OpenKind::Step => "steps",
            OpenKind::TextMessage => "text messages",
            OpenKind::ReasoningMessage => "reasoning messages",
            OpenKind::ReasoningSpan => "reasoning spans",
            OpenKind::ToolCall => "tool calls",
            OpenKind::Subagent => "subagents",
        })
    }
}

/// The kind of entity a `subagentRunId` was checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntityKind {
    /// A text message (or a tool message made by `TOOL_CALL_RESULT`).
    Message,
    /// A tool call.
    ToolCall,
    /// A reasoning span or message (they share one id space for ownership).
    ReasoningMessage,
    /// An activity message.
    Activity,
}

impl std::fmt::Display for EntityKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EntityKind::Message => "message",
            EntityKind::ToolCall => "tool call",
            EntityKind::ReasoningMessage => "reasoning message",
            EntityKind::Activity => "activity",
        })
    }
}

/// Shows an owner: a sub-agent run id, or the parent agent.
struct Owner<'a>(&'a Option<String>);

impl std::fmt::Display for Owner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(id) => write!(f, "subagent '{id}'"),
            None => f.write_str("the parent agent"),
        }
    }
}

/// An event out of order. Every variant carries the event's position in the stream (`index`)
/// and its wire `type` (`event_type`). All are fatal for the run, as in the TS client.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OrderError {
    /// Rule 1: the first event is neither `RUN_STARTED` nor `RUN_ERROR`.
    FirstEventNotRunStarted {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
    },
    /// Rule 2: `RUN_STARTED` while a run is active.
    RunAlreadyStarted {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
    },
    /// Rule 2: after `RUN_FINISHED` only `RUN_ERROR` or `RUN_STARTED` may follow.
    EventAfterRunFinished {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
    },
    /// Rule 2: after `RUN_ERROR` only `RUN_STARTED` may follow.
    EventAfterRunError {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
    },
    /// Rule 3: `TEXT_MESSAGE_START` for a message already open.
    TextMessageAlreadyOpen {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The message.
        message_id: String,
    },
    /// Rule 3: `TEXT_MESSAGE_CONTENT` / `_END` for a message not open.
    TextMessageNotOpen {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The message.
        message_id: String,
    },
    /// Rule 3: `TOOL_CALL_START` for a call already open.
    ToolCallAlreadyOpen {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The tool call.
        tool_call_id: String,
    },
    /// Rule 3: `TOOL_CALL_ARGS` / `_END` for a call not open.
    ToolCallNotOpen {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The tool call.
        tool_call_id: String,
    },
    /// Rule 3: `REASONING_START` for a span already open.
    ReasoningSpanAlreadyOpen {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The span.
        message_id: String,
    },
    /// Rule 3: `REASONING_END` for a span not open.
    ReasoningSpanNotOpen {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The span.
        message_id: String,
    },
    /// Rule 3: `REASONING_MESSAGE_START` for a reasoning message already open.
    ReasoningMessageAlreadyOpen {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The reasoning message.
        message_id: String,
    },
    /// Rule 3: `REASONING_MESSAGE_CONTENT` / `_END` for a reasoning message not open.
    ReasoningMessageNotOpen {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The reasoning message.
        message_id: String,
    },
    /// Rule 4: `STEP_STARTED` for a step already active under the same owner.
    StepAlreadyActive {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The step.
        step_name: String,
        /// The step's owner (`None`: the parent agent).
        subagent_run_id: Option<String>,
    },
    /// Rule 4: `STEP_FINISHED` for a step not started (under any owner).
    StepNotStarted {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The step.
        step_name: String,
        /// The owner the event is attributed to (`None`: the parent agent).
        subagent_run_id: Option<String>,
    },
    /// Rule 4: `STEP_FINISHED` for a step that is open under another owner.
    StepOwnedByOther {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The step.
        step_name: String,
        /// The owner the event is attributed to.
        subagent_run_id: Option<String>,
        /// The owner that started the step.
        open_under: Option<String>,
    },
    /// Rule 5: `RUN_FINISHED` while something is still open. Checked in the TS order: steps,
    /// text messages, reasoning messages, reasoning spans, tool calls, sub-agents.
    RunFinishedWithOpen {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// What is open.
        what: OpenKind,
        /// The open ids, sorted (steps: `name` or `name (subagent 'id')`).
        ids: Vec<String>,
    },
    /// Rule 7: a continuation event's `subagentRunId` differs from its entity opener's owner.
    SubagentMismatch {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// What kind of entity the event continues.
        entity: EntityKind,
        /// The entity's id.
        entity_id: String,
        /// The event's `subagentRunId`.
        subagent_run_id: String,
        /// The opener's owner (`None`: the parent agent).
        owner: Option<String>,
    },
    /// Rule 7: `TOOL_CALL_START`'s `subagentRunId` differs from the owner of its parent message.
    ToolCallParentMismatch {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// Its parent message (the tool call is the event's `toolCallId`).
        parent_message_id: String,
        /// The event's `subagentRunId`.
        subagent_run_id: String,
        /// The parent message's owner.
        owner: Option<String>,
    },
    /// Rule 7: an untagged `TOOL_CALL_START` re-opens a tool call whose recorded owner differs
    /// from the owner of the parent message it names (the event's `parentMessageId`).
    ToolCallOwnerConflict {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The tool call.
        tool_call_id: String,
        /// Its recorded owner.
        owner: Option<String>,
        /// The parent message's owner.
        parent_owner: Option<String>,
    },
    /// Rule 7: `SUBAGENT_STARTED` for a sub-agent run already active.
    SubagentAlreadyActive {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The sub-agent run.
        subagent_run_id: String,
    },
    /// Rule 7: `SUBAGENT_STARTED` reuses the id of a sub-agent run that already ended in this run.
    SubagentIdReused {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The sub-agent run.
        subagent_run_id: String,
    },
    /// Rule 7: `SUBAGENT_STARTED.parentSubagentRunId` names a sub-agent not started in this run.
    SubagentParentNotStarted {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The sub-agent run being started.
        subagent_run_id: String,
        /// The parent it names.
        parent_subagent_run_id: String,
    },
    /// Rule 7: `SUBAGENT_FINISHED` / `SUBAGENT_ERROR` for a sub-agent run not active.
    SubagentNotActive {
        /// The event's position in the stream.
        index: usize,
        /// The event's type.
        event_type: &'static str,
        /// The sub-agent run.
        subagent_run_id: String,
    },
}

/// Written by hand: the `event N (TYPE): ` head once, then the variant's own text (one format
/// with one or two arguments each, where a derive repeats the head and its two arguments in
/// every variant's format).
impl std::fmt::Display for OrderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use OrderError::*;
        let (index, event_type) = self.parts();
        write!(f, "event {index} ({event_type}): ")?;
        // "<what> '<id>' is already in progress" / "no active <what> with id '<id>'".
        let (what, id, open) = match self {
            FirstEventNotRunStarted { .. } => {
                return f.write_str("the first event must be RUN_STARTED")
            }
            RunAlreadyStarted { .. } => {
                return f.write_str(
                    "a run is still active; finish it with RUN_FINISHED before starting another",
                )
            }
            EventAfterRunFinished { .. } => {
                return f
                    .write_str("the run has already finished; start a new run with RUN_STARTED")
            }
            EventAfterRunError { .. } => {
                return f.write_str("the run has already errored; no further events can be sent")
            }
            TextMessageAlreadyOpen { message_id, .. } => ("text message", message_id, true),
            TextMessageNotOpen { message_id, .. } => ("text message", message_id, false),
            ToolCallAlreadyOpen { tool_call_id, .. } => ("tool call", tool_call_id, true),
            ToolCallNotOpen { tool_call_id, .. } => ("tool call", tool_call_id, false),
            ReasoningSpanAlreadyOpen { message_id, .. } => ("reasoning span", message_id, true),
            ReasoningSpanNotOpen { message_id, .. } => ("reasoning span", message_id, false),
            ReasoningMessageAlreadyOpen { message_id, .. } => {
                ("reasoning message", message_id, true)
            }
            ReasoningMessageNotOpen { message_id, .. } => ("reasoning message", message_id, false),
            SubagentNotActive {
                subagent_run_id, ..
            } => ("subagent", subagent_run_id, false),
            StepAlreadyActive {
                step_name,
                subagent_run_id,
                ..
            } => {
                let owner = Owner(subagent_run_id);
                return write!(f, "step '{step_name}' is already active for {owner}");
            }
            StepNotStarted { step_name, .. } => {
                return write!(f, "step '{step_name}' was not started")
            }
            StepOwnedByOther {
                step_name,
                subagent_run_id,
                open_under,
                ..
            } => {
                let (by, under) = (Owner(subagent_run_id), Owner(open_under));
                return write!(
                    f,
                    "step '{step_name}' attributed to {by} is open under {under}; a step must be finished by whoever started it"
                );
            }
            RunFinishedWithOpen { what, ids, .. } => {
                write!(f, "cannot finish the run while {what} are still active: ")?;
                // The ids joined with ", " (no `String` built for it).
                for (i, id) in ids.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(id)?;
                }
                return Ok(());
            }
            SubagentMismatch {
                entity,
                entity_id,
                subagent_run_id,
                owner,
                ..
            } => {
                let owner = Owner(owner);
                return write!(
                    f,
                    "subagentRunId '{subagent_run_id}' does not match the {entity} '{entity_id}' opener's owner, {owner}"
                );
            }
            ToolCallParentMismatch {
                parent_message_id,
                subagent_run_id,
                owner,
                ..
            } => {
                let owner = Owner(owner);
                return write!(
                    f,
                    "subagentRunId '{subagent_run_id}' does not match its parent message '{parent_message_id}' owner, {owner}; a tool call belongs to the message that carries it"
                );
            }
            ToolCallOwnerConflict {
                tool_call_id,
                owner,
                parent_owner,
                ..
            } => {
                let (owner, parent_owner) = (Owner(owner), Owner(parent_owner));
                return write!(
                    f,
                    "tool call '{tool_call_id}' is owned by {owner} but its parent message is owned by {parent_owner}"
                );
            }
            SubagentAlreadyActive {
                subagent_run_id, ..
            } => return write!(f, "subagent '{subagent_run_id}' is already active"),
            SubagentIdReused {
                subagent_run_id, ..
            } => {
                return write!(
                    f,
                    "subagent '{subagent_run_id}' has already finished in this run; subagent ids cannot be reused"
                )
            }
            SubagentParentNotStarted {
                parent_subagent_run_id,
                ..
            } => {
                return write!(
                    f,
                    "parentSubagentRunId '{parent_subagent_run_id}' has not been started in this run"
                )
            }
        };
        if open {
            write!(f, "{what} '{id}' is already in progress")
        } else {
            write!(f, "no active {what} with id '{id}'")
        }
    }
}

impl std::error::Error for OrderError {}

impl OrderError {
    /// The position in the stream of the offending event.
    pub fn index(&self) -> usize {
        self.parts().0
    }

    /// The wire `type` of the offending event.
    pub fn event_type(&self) -> &'static str {
        self.parts().1
    }

    fn parts(&self) -> (usize, &'static str) {
        use OrderError::*;
        match self {
            FirstEventNotRunStarted { index, event_type }
            | RunAlreadyStarted { index, event_type }
            | EventAfterRunFinished { index, event_type }
            | EventAfterRunError { index, event_type }
            | TextMessageAlreadyOpen {
                index, event_type, ..
            }
            | TextMessageNotOpen {
                index, event_type, ..
            }
            | ToolCallAlreadyOpen {
                index, event_type, ..
            }
            | ToolCallNotOpen {
                index, event_type, ..
            }
            | ReasoningSpanAlreadyOpen {
                index, event_type, ..
            }
            | ReasoningSpanNotOpen {
                index, event_type, ..
            }
            | ReasoningMessageAlreadyOpen {
                index, event_type, ..
            }
            | ReasoningMessageNotOpen {
                index, event_type, ..
            }
            | StepAlreadyActive {
                index, event_type, ..
            }
            | StepNotStarted {
                index, event_type, ..
            }
            | StepOwnedByOther {
                index, event_type, ..
            }
            | RunFinishedWithOpen {
                index, event_type, ..
            }
            | SubagentMismatch {
                index, event_type, ..
            }
            | ToolCallParentMismatch {
                index, event_type, ..
            }
            | ToolCallOwnerConflict {
                index, event_type, ..
            }
            | SubagentAlreadyActive {
                index, event_type, ..
            }
            | SubagentIdReused {
                index, event_type, ..
            }
            | SubagentParentNotStarted {
                index, event_type, ..
            }
            | SubagentNotActive {
                index, event_type, ..
            } => (*index, *event_type),
        }
    }
}
