//! The ordering rules of an AG-UI 1.0 event stream, as the TS client's `verifyEvents`
//! (`@ag-ui/client@1.0.0`, `src/verify/verify.ts`) enforces them on the expanded stream
//! (after [`crate::protocol::chunks`]). See `docs/protocol.md`, "Ordering rules".
//!
//! ```
//! use chat_runtime::protocol::{event::{Event, Parsed}, verify::{OrderError, Verifier}};
//!
//! let parse = |json: &str, i| match Event::parse(json, i).unwrap() {
//!     Parsed::Event(e) => e,
//!     Parsed::Legacy { .. } => unreachable!(),
//! };
//! let mut verifier = Verifier::new();
//! verifier.check(&parse(r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#, 0), 0).unwrap();
//! let err = verifier.check(&parse(r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#, 1), 1);
//! assert!(matches!(err, Err(OrderError::TextMessageNotOpen { index: 1, .. })));
//! assert!(verifier.is_run_active());
//! ```
//!
//! Not checked here because the parser already makes them impossible: `subagentRunId: null`
//! and other optional `null`s (the parser reads `null` as absent), a `SUBAGENT_*` without its
//! required fields, and an unknown `SUBAGENT_FINISHED.outcome.type` (both are parse errors).

use crate::lean::hash::{HashMap, HashSet};

use super::event::{EncryptedValueSubtype, Event, Message};

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

/// Where the stream is in the run lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum RunState {
    /// No event yet.
    #[default]
    NotStarted,
    /// `RUN_STARTED` seen, no terminal yet.
    Active,
    /// `RUN_FINISHED` seen: only `RUN_ERROR` or a new `RUN_STARTED` may follow.
    Finished,
    /// `RUN_ERROR` seen: only a new `RUN_STARTED` may follow.
    Errored,
}

/// The owner of an entity: `None` is the parent agent, `Some` a sub-agent run.
type OwnerId = Option<String>;

/// An owner as the owner maps hold it: 0 is the parent agent, `n` the sub-agent run
/// `owner_names[n - 1]`. Ids to `usize` is a hash map layout the reducer has already; ids to
/// `Option<String>` was one more in the `.wasm`, and a string copy per opener.
type OwnerIx = usize;

/// The sub-agent run id of owner `owner` (`None`: the parent agent).
fn owner_name(names: &[String], owner: OwnerIx) -> Option<&str> {
    owner.checked_sub(1).map(|at| names[at].as_str())
}

/// Checks an expanded event stream against the AG-UI 1.0 ordering rules, exactly as the TS
/// client's `verifyEvents` does.
///
/// Call [`Verifier::check`] on every event, in order, after chunk expansion. Unknown events pass
/// untouched (the TS client drops them before verification). An error is fatal for the run: stop
/// feeding the verifier (its state after an error is left as it was before the event, but the TS
/// client gives no meaning to events after one).
///
/// The TS client does not flag a stream that ends in the middle of a run (rule 8); callers that
/// want to should look at [`Verifier::is_run_active`] when the stream ends.
///
/// Cost per event: O(1) hash look-ups on ids, except `MESSAGES_SNAPSHOT` and `RUN_STARTED.input`
/// (O(messages), to learn message owners), `STEP_*` (O(active steps)) and `RUN_FINISHED`
/// (O(open ids)). Only ids are copied, never payloads.
#[derive(Debug, Default)]
pub struct Verifier {
    /// Where the run lifecycle is (rules 1 and 2).
    state: RunState,
    /// Open text messages (rule 3).
    text_messages: HashSet<String>,
    /// Open tool calls (rule 3).
    tool_calls: HashSet<String>,
    /// Open reasoning spans, `REASONING_START` ids (rule 3).
    reasoning_spans: HashSet<String>,
    /// Open reasoning messages, `REASONING_MESSAGE_START` ids (rule 3).
    reasoning_messages: HashSet<String>,
    /// Active steps, as (owner, name), in the order they started (rule 4: keyed by owner +
    /// name). A handful at a time: a vector, not one more hash map layout in the `.wasm`.
    steps: Vec<(OwnerId, String)>,
    /// Sub-agent runs started and not yet ended in this run (rule 7).
    subagents_active: HashSet<String>,
    /// Sub-agent runs that ended in this run: their ids may not be reused (rule 7).
    subagents_closed: HashSet<String>,
    /// Who opened each message (text, or tool message from `TOOL_CALL_RESULT`), kept after it
    /// closes, so continuations and re-opens can be checked against it (rule 7).
    message_owners: HashMap<String, OwnerIx>,
    /// Who opened each tool call (rule 7).
    tool_call_owners: HashMap<String, OwnerIx>,
    /// Who wrote each activity message (rule 7, `ACTIVITY_DELTA`).
    activity_owners: HashMap<String, OwnerIx>,
    /// Who opened each reasoning span or message; spans and messages share it, as in TS (rule 7).
    reasoning_owners: HashMap<String, OwnerIx>,
    /// The sub-agent run ids the owner maps name, in the order first seen (see [`OwnerIx`]).
    owner_names: Vec<String>,
}

impl Verifier {
    /// A verifier expecting the first event of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Where the stream is in the run lifecycle.
    pub fn state(&self) -> RunState {
        self.state
    }

    /// Whether a run is in progress: `RUN_STARTED` seen and no `RUN_FINISHED` / `RUN_ERROR` since.
    /// True when the stream ends means it ended mid-run.
    pub fn is_run_active(&self) -> bool {
        self.state == RunState::Active
    }

    /// Whether the last run ended, normally or with `RUN_ERROR`.
    pub fn finished(&self) -> bool {
        matches!(self.state, RunState::Finished | RunState::Errored)
    }

    /// Checks event `index` of the stream against the ordering rules and records its effect.
    pub fn check(&mut self, event: &Event, index: usize) -> Result<(), OrderError> {
        if let Event::Unknown(_) = event {
            return Ok(());
        }
        let event_type = || event.known_type_name().unwrap_or_default();
        let is_run_started = matches!(event, Event::RunStarted(_));

        // Rules 1 and 2: the run lifecycle.
        match self.state {
            RunState::Errored if !is_run_started => {
                return Err(OrderError::EventAfterRunError {
                    index,
                    event_type: event_type(),
                })
            }
            RunState::Finished if !is_run_started && !matches!(event, Event::RunError(_)) => {
                return Err(OrderError::EventAfterRunFinished {
                    index,
                    event_type: event_type(),
                })
            }
            RunState::NotStarted if !is_run_started && !matches!(event, Event::RunError(_)) => {
                return Err(OrderError::FirstEventNotRunStarted {
                    index,
                    event_type: event_type(),
                })
            }
            RunState::Active if is_run_started => {
                return Err(OrderError::RunAlreadyStarted {
                    index,
                    event_type: event_type(),
                })
            }
            _ => {}
        }

        let tag = event.subagent_run_id();
        match event {
            Event::RunStarted(e) => {
                if matches!(self.state, RunState::Finished | RunState::Errored) {
                    self.reset();
                }
                self.state = RunState::Active;
                if let Some(input) = &e.input {
                    self.seed_owners(&input.messages, false);
                }
            }
            Event::RunFinished(_) => {
                self.check_nothing_open(index)?;
                self.state = RunState::Finished;
            }
            Event::RunError(_) => self.state = RunState::Errored,

            Event::TextMessageStart(e) => {
                let id = &e.message_id;
                if self.text_messages.contains(id) {
                    return Err(OrderError::TextMessageAlreadyOpen {
                        index,
                        event_type: event_type(),
                        message_id: id.clone(),
                    });
                }
                let owner = self.message_owners.get(id.as_str()).copied();
                self.tag_error(index, event, tag, owner, EntityKind::Message, id)?;
                if owner.is_none() {
                    let owner = self.owner(tag);
                    self.message_owners.insert(id.clone(), owner);
                }
                self.text_messages.insert(id.clone());
            }
            Event::TextMessageContent(e) => {
                self.continue_text(index, event, &e.message_id, false)?
            }
            Event::TextMessageEnd(e) => self.continue_text(index, event, &e.message_id, true)?,

            Event::ToolCallStart(e) => {
                let id = &e.tool_call_id;
                if self.tool_calls.contains(id) {
                    return Err(OrderError::ToolCallAlreadyOpen {
                        index,
                        event_type: event_type(),
                        tool_call_id: id.clone(),
                    });
                }
                // A tool call belongs to the message that carries it.
                let mut inherited = None;
                if let Some(parent) = &e.parent_message_id {
                    if let Some(&parent_owner) = self.message_owners.get(parent.as_str()) {
                        let parent_name = owner_name(&self.owner_names, parent_owner);
                        if let Some(tag) = tag {
                            if parent_name != Some(tag) {
                                return Err(OrderError::ToolCallParentMismatch {
                                    index,
                                    event_type: event_type(),
                                    parent_message_id: parent.clone(),
                                    subagent_run_id: tag.to_owned(),
                                    owner: parent_name.map(str::to_owned),
                                });
                            }
                        }
                        inherited = Some(parent_owner);
                    }
                }
                let existing = self.tool_call_owners.get(id.as_str()).copied();
                if let Some(existing) = existing {
                    self.tag_error(index, event, tag, Some(existing), EntityKind::ToolCall, id)?;
                    if let (None, Some(inherited)) = (tag, inherited) {
                        if inherited != existing {
                            let name =
                                |owner| owner_name(&self.owner_names, owner).map(str::to_owned);
                            return Err(OrderError::ToolCallOwnerConflict {
                                index,
                                event_type: event_type(),
                                tool_call_id: id.clone(),
                                owner: name(existing),
                                parent_owner: name(inherited),
                            });
                        }
                    }
                } else {
                    let owner = match tag {
                        Some(_) => self.owner(tag),
                        None => inherited.unwrap_or(0),
                    };
                    self.tool_call_owners.insert(id.clone(), owner);
                }
                self.tool_calls.insert(id.clone());
            }
            Event::ToolCallArgs(e) => self.continue_tool(index, event, &e.tool_call_id, false)?,
            Event::ToolCallEnd(e) => self.continue_tool(index, event, &e.tool_call_id, true)?,
            // Rule 6: results are not checked against tool calls; the tool message they create
            // gets an owner.
            Event::ToolCallResult(e) => {
                let owner = self.owner(tag);
                self.message_owners.insert(e.message_id.clone(), owner);
            }

            Event::StepStarted(e) => {
                let active = self
                    .steps
                    .iter()
                    .any(|(o, name)| o.as_deref() == tag && *name == e.step_name);
                if active {
                    return Err(OrderError::StepAlreadyActive {
                        index,
                        event_type: event_type(),
                        step_name: e.step_name.clone(),
                        subagent_run_id: tag.map(str::to_owned),
                    });
                }
                self.steps
                    .push((tag.map(str::to_owned), e.step_name.clone()));
            }
            Event::StepFinished(e) => {
                let at = self
                    .steps
                    .iter()
                    .position(|(o, name)| o.as_deref() == tag && *name == e.step_name);
                if let Some(at) = at {
                    self.steps.remove(at);
                } else {
                    // Not open under this owner: under another one, if any (the first to start it).
                    let owner = tag.map(str::to_owned);
                    let other = self.steps.iter().find(|(_, name)| *name == e.step_name);
                    return Err(match other {
                        Some((open_under, _)) => OrderError::StepOwnedByOther {
                            index,
                            event_type: event_type(),
                            step_name: e.step_name.clone(),
                            subagent_run_id: owner,
                            open_under: open_under.clone(),
                        },
                        None => OrderError::StepNotStarted {
                            index,
                            event_type: event_type(),
                            step_name: e.step_name.clone(),
                            subagent_run_id: owner,
                        },
                    });
                }
            }

            Event::ActivitySnapshot(e)
                if e.replace != Some(false)
                    || !self.activity_owners.contains_key(e.message_id.as_str()) =>
            {
                let owner = self.owner(tag);
                self.activity_owners.insert(e.message_id.clone(), owner);
            }
            Event::ActivityDelta(e) => {
                let owner = self.activity_owners.get(e.message_id.as_str()).copied();
                self.tag_error(
                    index,
                    event,
                    tag,
                    owner,
                    EntityKind::Activity,
                    &e.message_id,
                )?;
            }

            Event::ReasoningStart(e) => self.open_reasoning(index, event, &e.message_id, true)?,
            Event::ReasoningMessageStart(e) => {
                self.open_reasoning(index, event, &e.message_id, false)?
            }
            Event::ReasoningMessageContent(e) => {
                self.continue_reasoning(index, event, &e.message_id, false, false)?
            }
            Event::ReasoningMessageEnd(e) => {
                self.continue_reasoning(index, event, &e.message_id, false, true)?
            }
            Event::ReasoningEnd(e) => {
                self.continue_reasoning(index, event, &e.message_id, true, true)?
            }
            Event::ReasoningEncryptedValue(e) => {
                let id = &e.entity_id;
                let id = id.as_str();
                let (owner, kind) = match e.subtype {
                    EncryptedValueSubtype::ToolCall => {
                        (self.tool_call_owners.get(id), EntityKind::ToolCall)
                    }
                    EncryptedValueSubtype::Message => (
                        self.message_owners
                            .get(id)
                            .or_else(|| self.reasoning_owners.get(id)),
                        EntityKind::Message,
                    ),
                };
                self.tag_error(index, event, tag, owner.copied(), kind, id)?;
            }

            Event::SubagentStarted(e) => {
                let id = &e.subagent_run_id;
                if self.subagents_active.contains(id) {
                    return Err(OrderError::SubagentAlreadyActive {
                        index,
                        event_type: event_type(),
                        subagent_run_id: id.clone(),
                    });
                }
                if self.subagents_closed.contains(id) {
                    return Err(OrderError::SubagentIdReused {
                        index,
                        event_type: event_type(),
                        subagent_run_id: id.clone(),
                    });
                }
                if let Some(parent) = &e.parent_subagent_run_id {
                    if !self.subagents_active.contains(parent)
                        && !self.subagents_closed.contains(parent)
                    {
                        return Err(OrderError::SubagentParentNotStarted {
                            index,
                            event_type: event_type(),
                            subagent_run_id: id.clone(),
                            parent_subagent_run_id: parent.clone(),
                        });
                    }
                }
                self.subagents_active.insert(id.clone());
            }
            Event::SubagentFinished(_) | Event::SubagentError(_) => {
                let id = tag.unwrap_or_default();
                if !self.subagents_active.remove(id) {
                    return Err(OrderError::SubagentNotActive {
                        index,
                        event_type: event_type(),
                        subagent_run_id: id.to_owned(),
                    });
                }
                self.subagents_closed.insert(id.to_owned());
            }

            Event::MessagesSnapshot(e) => self.seed_owners(&e.messages, true),

            // STATE_*, RAW, CUSTOM, chunks (expanded before this stage), unknown: no rule.
            _ => {}
        }
        Ok(())
    }

    /// A new run after a terminal: forget everything the previous run opened.
    fn reset(&mut self) {
        self.text_messages.clear();
        self.tool_calls.clear();
        self.reasoning_spans.clear();
        self.reasoning_messages.clear();
        self.steps.clear();
        self.subagents_active.clear();
        self.subagents_closed.clear();
        self.message_owners.clear();
        self.tool_call_owners.clear();
        self.activity_owners.clear();
        self.reasoning_owners.clear();
        self.owner_names.clear();
    }

    /// Owner `tag` as the owner maps hold it; a sub-agent seen for the first time is added.
    fn owner(&mut self, tag: Option<&str>) -> OwnerIx {
        let Some(tag) = tag else {
            return 0;
        };
        match self.owner_names.iter().position(|name| name == tag) {
            Some(at) => at + 1,
            None => {
                self.owner_names.push(tag.to_owned());
                self.owner_names.len()
            }
        }
    }

    /// Learns message and tool-call owners from a message list: a snapshot is authoritative
    /// (overwrites), a `RUN_STARTED.input` echo only fills gaps.
    fn seed_owners(&mut self, messages: &[Message], authoritative: bool) {
        for message in messages {
            let (owner, tool_calls) = match message {
                Message::Developer(m) | Message::System(m) => (&m.subagent_run_id, None),
                Message::User(m) => (&m.subagent_run_id, None),
                Message::Assistant(m) => (&m.subagent_run_id, m.tool_calls.as_deref()),
                Message::Tool(m) => (&m.subagent_run_id, None),
                Message::Activity(m) => (&m.subagent_run_id, None),
                Message::Reasoning(m) => (&m.subagent_run_id, None),
            };
            let owner = self.owner(owner.as_deref());
            let bucket = match message {
                Message::Reasoning(_) => &mut self.reasoning_owners,
                Message::Activity(_) => &mut self.activity_owners,
                _ => &mut self.message_owners,
            };
            if authoritative || !bucket.contains_key(message.id()) {
                bucket.insert(message.id().to_owned(), owner);
            }
            for call in tool_calls.unwrap_or_default() {
                if authoritative || !self.tool_call_owners.contains_key(call.id.as_str()) {
                    self.tool_call_owners.insert(call.id.clone(), owner);
                }
            }
        }
    }

    fn continue_text(
        &mut self,
        index: usize,
        event: &Event,
        id: &str,
        end: bool,
    ) -> Result<(), OrderError> {
        if !self.text_messages.contains(id) {
            return Err(OrderError::TextMessageNotOpen {
                index,
                event_type: event.known_type_name().unwrap_or_default(),
                message_id: id.to_owned(),
            });
        }
        self.continuation_tag_error(index, event, &self.message_owners, EntityKind::Message, id)?;
        if end {
            self.text_messages.remove(id);
        }
        Ok(())
    }

    fn continue_tool(
        &mut self,
        index: usize,
        event: &Event,
        id: &str,
        end: bool,
    ) -> Result<(), OrderError> {
        if !self.tool_calls.contains(id) {
            return Err(OrderError::ToolCallNotOpen {
                index,
                event_type: event.known_type_name().unwrap_or_default(),
                tool_call_id: id.to_owned(),
            });
        }
        self.continuation_tag_error(
            index,
            event,
            &self.tool_call_owners,
            EntityKind::ToolCall,
            id,
        )?;
        if end {
            self.tool_calls.remove(id);
        }
        Ok(())
    }

    fn open_reasoning(
        &mut self,
        index: usize,
        event: &Event,
        id: &str,
        span: bool,
    ) -> Result<(), OrderError> {
        let open = if span {
            &self.reasoning_spans
        } else {
            &self.reasoning_messages
        };
        if open.contains(id) {
            let (event_type, message_id) =
                (event.known_type_name().unwrap_or_default(), id.to_owned());
            return Err(if span {
                OrderError::ReasoningSpanAlreadyOpen {
                    index,
                    event_type,
                    message_id,
                }
            } else {
                OrderError::ReasoningMessageAlreadyOpen {
                    index,
                    event_type,
                    message_id,
                }
            });
        }
        let tag = event.subagent_run_id();
        let owner = self.reasoning_owners.get(id).copied();
        self.tag_error(index, event, tag, owner, EntityKind::ReasoningMessage, id)?;
        if owner.is_none() {
            let owner = self.owner(tag);
            self.reasoning_owners.insert(id.to_owned(), owner);
        }
        if span {
            self.reasoning_spans.insert(id.to_owned());
        } else {
            self.reasoning_messages.insert(id.to_owned());
        }
        Ok(())
    }

    fn continue_reasoning(
        &mut self,
        index: usize,
        event: &Event,
        id: &str,
        span: bool,
        end: bool,
    ) -> Result<(), OrderError> {
        let open = if span {
            &self.reasoning_spans
        } else {
            &self.reasoning_messages
        };
        if !open.contains(id) {
            let (event_type, message_id) =
                (event.known_type_name().unwrap_or_default(), id.to_owned());
            return Err(if span {
                OrderError::ReasoningSpanNotOpen {
                    index,
                    event_type,
                    message_id,
                }
            } else {
                OrderError::ReasoningMessageNotOpen {
                    index,
                    event_type,
                    message_id,
                }
            });
        }
        let owner = self.reasoning_owners.get(id).copied();
        self.tag_error(
            index,
            event,
            event.subagent_run_id(),
            owner,
            EntityKind::ReasoningMessage,
            id,
        )?;
        if end {
            if span {
                self.reasoning_spans.remove(id);
            } else {
                self.reasoning_messages.remove(id);
            }
        }
        Ok(())
    }

    /// Rule 5, in the TS order: steps, text messages, reasoning messages, reasoning spans,
    /// tool calls, sub-agents.
    fn check_nothing_open(&self, index: usize) -> Result<(), OrderError> {
        let fail = |what, mut ids: Vec<String>| {
            crate::lean::sort::sort(&mut ids);
            Err(OrderError::RunFinishedWithOpen {
                index,
                event_type: "RUN_FINISHED",
                what,
                ids,
            })
        };
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|(owner, name)| match owner {
                Some(owner) => format!("{name} (subagent '{owner}')"),
                None => name.clone(),
            })
            .collect();
        if !steps.is_empty() {
            return fail(OpenKind::Step, steps);
        }
        for (what, set) in [
            (OpenKind::TextMessage, &self.text_messages),
            (OpenKind::ReasoningMessage, &self.reasoning_messages),
            (OpenKind::ReasoningSpan, &self.reasoning_spans),
            (OpenKind::ToolCall, &self.tool_calls),
            (OpenKind::Subagent, &self.subagents_active),
        ] {
            if !set.is_empty() {
                return fail(what, set.iter().cloned().collect());
            }
        }
        Ok(())
    }
}

impl Verifier {
    /// Rule 7 for a text or tool-call continuation. Only a sub-agent's event can contradict the
    /// owner, so an untagged one skips the look-up in `owners`, which holds every id of the run
    /// (a cache miss per delta on long runs).
    fn continuation_tag_error(
        &self,
        index: usize,
        event: &Event,
        owners: &HashMap<String, OwnerIx>,
        entity: EntityKind,
        id: &str,
    ) -> Result<(), OrderError> {
        match event.subagent_run_id() {
            Some(tag) => {
                self.tag_error(index, event, Some(tag), owners.get(id).copied(), entity, id)
            }
            None => Ok(()),
        }
    }

    /// Rule 7 for one event: an untagged event always passes; a tagged one must match the owner
    /// recorded for its entity, if any.
    fn tag_error(
        &self,
        index: usize,
        event: &Event,
        tag: Option<&str>,
        owner: Option<OwnerIx>,
        entity: EntityKind,
        entity_id: &str,
    ) -> Result<(), OrderError> {
        let (Some(tag), Some(owner)) = (tag, owner) else {
            return Ok(());
        };
        let owner = owner_name(&self.owner_names, owner);
        if owner == Some(tag) {
            return Ok(());
        }
        Err(OrderError::SubagentMismatch {
            index,
            event_type: event.known_type_name().unwrap_or_default(),
            entity,
            entity_id: entity_id.to_owned(),
            subagent_run_id: tag.to_owned(),
            owner: owner.map(str::to_owned),
        })
    }
}
