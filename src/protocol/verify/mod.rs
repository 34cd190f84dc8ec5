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
//!
//! # Rooms
//! - here: the [`Verifier`], its state, and [`Verifier::check`], which takes each event to its
//!   rules; the run lifecycle (rules 1 and 2), steps (rule 4), the starts of text messages and
//!   tool calls, and sub-agent runs' starts and ends are checked there, inline.
//! - `spans.rs`: rules 3 and 5, what continues and closes (and reasoning opens) only while open,
//!   and nothing left open at `RUN_FINISHED`.
//! - `scope.rs`: rule 7's owner checks, an event of a sub-agent run continues only what that run
//!   opened.
//! - `error.rs`: [`OrderError`] and the kinds it names.

mod error;
mod scope;
mod spans;

use crate::lean::hash::HashSet;
use crate::lean::ids::IdMap;

use super::event::{EncryptedValueSubtype, Event, Message};

pub use error::{EntityKind, OpenKind, OrderError};

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
    message_owners: IdMap,
    /// Who opened each tool call (rule 7).
    tool_call_owners: IdMap,
    /// Who wrote each activity message (rule 7, `ACTIVITY_DELTA`).
    activity_owners: IdMap,
    /// Who opened each reasoning span or message; spans and messages share it, as in TS (rule 7).
    reasoning_owners: IdMap,
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
                let owner = self.message_owners.get(id);
                self.tag_error(index, event, tag, owner, EntityKind::Message, id)?;
                if owner.is_none() {
                    let owner = self.owner(tag);
                    self.message_owners.insert(id, owner);
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
                    if let Some(parent_owner) = self.message_owners.get(parent) {
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
                let existing = self.tool_call_owners.get(id);
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
                    self.tool_call_owners.insert(id, owner);
                }
                self.tool_calls.insert(id.clone());
            }
            Event::ToolCallArgs(e) => self.continue_tool(index, event, &e.tool_call_id, false)?,
            Event::ToolCallEnd(e) => self.continue_tool(index, event, &e.tool_call_id, true)?,
            // Rule 6: results are not checked against tool calls; the tool message they create
            // gets an owner.
            Event::ToolCallResult(e) => {
                let owner = self.owner(tag);
                self.message_owners.insert(&e.message_id, owner);
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
                    || !self.activity_owners.contains_key(&e.message_id) =>
            {
                let owner = self.owner(tag);
                self.activity_owners.insert(&e.message_id, owner);
            }
            Event::ActivityDelta(e) => {
                let owner = self.activity_owners.get(&e.message_id);
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
                self.tag_error(index, event, tag, owner, kind, id)?;
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
            let tool_calls = match message {
                Message::Assistant(m) => m.tool_calls.as_deref(),
                _ => None,
            };
            let tag = message.rare().and_then(|r| r.subagent_run_id.as_deref());
            let owner = self.owner(tag);
            let bucket = match message {
                Message::Reasoning(_) => &mut self.reasoning_owners,
                Message::Activity(_) => &mut self.activity_owners,
                _ => &mut self.message_owners,
            };
            if authoritative || !bucket.contains_key(message.id()) {
                bucket.insert(message.id(), owner);
            }
            for call in tool_calls.unwrap_or_default() {
                if authoritative || !self.tool_call_owners.contains_key(&call.id) {
                    self.tool_call_owners.insert(&call.id, owner);
                }
            }
        }
    }
}
