//! The two stream stages that run between parsing and verification, in the order the TS client
//! (`@ag-ui/client@1.0.0`) runs them:
//!
//! 1. [`LegacyUpgrader`] — the TS `CompatibilityBoundary` (`src/middleware/compatibility-boundary.ts`):
//!    pre-1.0 `THINKING_*` events become their `REASONING_*` equivalents, each translation
//!    reported as a [`LegacyNotice`] (the TS client `console.warn`s).
//! 2. [`ChunkExpander`] — the TS `transformChunks` (`src/chunks/transform.ts`): the
//!    `*_CHUNK` shorthand becomes explicit `START` / `CONTENT` (`ARGS`) / `END` events.
//!
//! Both are sans-IO: events in, events out, no clock. Typical use, per `data` payload `i`:
//!
//! ```
//! use chat_runtime::protocol::{chunks::{ChunkExpander, LegacyUpgrader}, event::Event};
//!
//! let mut upgrader = LegacyUpgrader::new();
//! let mut expander = ChunkExpander::new();
//! let mut out = Vec::new();
//! let lines = [
//!     r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
//!     r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"hi"}"#,
//!     r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
//! ];
//! for (i, line) in lines.iter().enumerate() {
//!     let event = upgrader.upgrade(Event::parse(line, i).unwrap());
//!     expander.push(event, i, &mut out).unwrap();
//! }
//! expander.finish(&mut out);
//! let types: Vec<_> = out.iter().map(Event::type_name).collect();
//! assert_eq!(types, [
//!     "RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED",
//! ]);
//! ```

use std::collections::VecDeque;

use super::event::{
    Event, JsonObject, LegacyThinking, Parsed, ReasoningEnd, ReasoningMessageContent,
    ReasoningMessageEnd, ReasoningMessageStart, ReasoningRole, ReasoningStart, TextMessageContent,
    TextMessageEnd, TextMessageRole, TextMessageStart, ToolCallArgs, ToolCallEnd, ToolCallStart,
};

// ---------------------------------------------------------------------------------------------
// Legacy THINKING_* upgrade
// ---------------------------------------------------------------------------------------------

/// Something the [`LegacyUpgrader`] did that the caller should hear about. The TS client prints
/// each of these with `console.warn` (`[ag-ui][compat] ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LegacyNotice {
    /// A retired `THINKING_*` event was translated to its `REASONING_*` equivalent.
    Translated {
        /// The legacy type, e.g. `"THINKING_START"`.
        from: &'static str,
        /// The 1.0 type it became, e.g. `"REASONING_START"`.
        to: &'static str,
    },
    /// `THINKING_START.title` was dropped: `REASONING_START` has no title field.
    TitleDropped {
        /// The title that was lost.
        title: String,
    },
    /// A continuation (`THINKING_TEXT_MESSAGE_CONTENT` / `_END`, `THINKING_END`) arrived with no
    /// opener before it, so there was no id to continue and one was made up. Verification will
    /// reject the translated event, since nothing opened that id.
    MintedId {
        /// The legacy type that needed an id.
        from: &'static str,
        /// The id made up for it.
        id: String,
    },
}

/// Translates legacy `THINKING_*` events to 1.0 `REASONING_*` events, as the TS client's
/// `CompatibilityBoundary` does, and passes 1.0 events through unchanged (moved, not cloned).
///
/// | legacy | 1.0 | `messageId` |
/// |---|---|---|
/// | `THINKING_START` | `REASONING_START` | a new span id (the `title` is dropped) |
/// | `THINKING_TEXT_MESSAGE_START` | `REASONING_MESSAGE_START` (`role: "reasoning"`) | a new message id |
/// | `THINKING_TEXT_MESSAGE_CONTENT` | `REASONING_MESSAGE_CONTENT` | the open message's id |
/// | `THINKING_TEXT_MESSAGE_END` | `REASONING_MESSAGE_END` | the open message's id, then none is open |
/// | `THINKING_END` | `REASONING_END` | the open span's id, then none is open |
///
/// **Ids.** The TS client mints random UUIDs (`randomUUID()`); a sans-IO core has no randomness,
/// so this one mints `thinking-1`, `thinking-2`, ... — one counter per upgrader (use one upgrader
/// per response stream, as the TS client resets its state per run), shared by spans and messages.
/// A continuation with no opener gets a fresh minted id each time, exactly like the TS client,
/// and a [`LegacyNotice::MintedId`] says so.
///
/// The legacy event's `timestamp` is kept. Every translation queues a [`LegacyNotice`]; drain them
/// with [`LegacyUpgrader::poll_notice`].
#[derive(Debug, Default)]
pub struct LegacyUpgrader {
    /// The id of the open `THINKING_START` span: `THINKING_END` names nothing, so it closes this.
    current_span: Option<String>,
    /// The id of the open `THINKING_TEXT_MESSAGE_START`: content and end name nothing either.
    current_message: Option<String>,
    /// How many ids were minted so far: the next id is `thinking-{minted + 1}`, so ids are
    /// deterministic and never repeat within one stream.
    minted: u64,
    /// How many legacy events were translated, for callers that only want a count.
    translated: u64,
    /// Warnings not yet taken by the caller, oldest first.
    notices: VecDeque<LegacyNotice>,
}

impl LegacyUpgrader {
    /// A fresh upgrader: no span or message open, the next id is `thinking-1`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Turns one parsed payload into a 1.0 event: a 1.0 event (or [`Event::Unknown`]) is returned
    /// as is; a legacy one is translated and a [`LegacyNotice`] is queued.
    pub fn upgrade(&mut self, parsed: Parsed) -> Event {
        let (legacy, timestamp) = match parsed {
            Parsed::Event(event) => return event,
            Parsed::Legacy { event, timestamp } => (event, timestamp),
        };
        self.translated += 1;
        match legacy {
            LegacyThinking::Start { title } => {
                let id = self.mint();
                self.current_span = Some(id.clone());
                self.notice("THINKING_START", "REASONING_START");
                if let Some(title) = title {
                    self.notices.push_back(LegacyNotice::TitleDropped { title });
                }
                Event::ReasoningStart(ReasoningStart {
                    message_id: id,
                    timestamp,
                    raw_event: None,
                    metadata: None,
                    subagent_run_id: None,
                })
            }
            LegacyThinking::TextMessageStart => {
                let id = self.mint();
                self.current_message = Some(id.clone());
                self.notice("THINKING_TEXT_MESSAGE_START", "REASONING_MESSAGE_START");
                Event::ReasoningMessageStart(ReasoningMessageStart {
                    message_id: id,
                    role: ReasoningRole::Reasoning,
                    timestamp,
                    raw_event: None,
                    metadata: None,
                    subagent_run_id: None,
                })
            }
            LegacyThinking::TextMessageContent { delta } => {
                self.notice("THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT");
                let id = match self.current_message.clone() {
                    Some(id) => id,
                    None => self.mint_continuation("THINKING_TEXT_MESSAGE_CONTENT"),
                };
                Event::ReasoningMessageContent(ReasoningMessageContent {
                    message_id: id,
                    delta,
                    timestamp,
                    raw_event: None,
                    metadata: None,
                    subagent_run_id: None,
                })
            }
            LegacyThinking::TextMessageEnd => {
                let id = match self.current_message.take() {
                    Some(id) => id,
                    None => self.mint_continuation("THINKING_TEXT_MESSAGE_END"),
                };
                self.notice("THINKING_TEXT_MESSAGE_END", "REASONING_MESSAGE_END");
                Event::ReasoningMessageEnd(ReasoningMessageEnd {
                    message_id: id,
                    timestamp,
                    raw_event: None,
                    metadata: None,
                    subagent_run_id: None,
                })
            }
            LegacyThinking::End => {
                let id = match self.current_span.take() {
                    Some(id) => id,
                    None => self.mint_continuation("THINKING_END"),
                };
                self.notice("THINKING_END", "REASONING_END");
                Event::ReasoningEnd(ReasoningEnd {
                    message_id: id,
                    timestamp,
                    raw_event: None,
                    metadata: None,
                    subagent_run_id: None,
                })
            }
        }
    }

    /// Takes the oldest warning not yet taken.
    pub fn poll_notice(&mut self) -> Option<LegacyNotice> {
        self.notices.pop_front()
    }

    /// How many legacy events this upgrader translated so far.
    pub fn translated(&self) -> u64 {
        self.translated
    }

    fn mint(&mut self) -> String {
        self.minted += 1;
        format!("thinking-{}", self.minted)
    }

    fn mint_continuation(&mut self, from: &'static str) -> String {
        let id = self.mint();
        self.notices.push_back(LegacyNotice::MintedId {
            from,
            id: id.clone(),
        });
        id
    }

    fn notice(&mut self, from: &'static str, to: &'static str) {
        self.notices
            .push_back(LegacyNotice::Translated { from, to });
    }
}

// ---------------------------------------------------------------------------------------------
// Chunk expansion
// ---------------------------------------------------------------------------------------------

/// Why a `*_CHUNK` event could not be expanded. All are fatal, as in the TS client.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChunkError {
    /// A `TEXT_MESSAGE_CHUNK` that does not continue an open stream has no `messageId`.
    TextChunkWithoutMessageId {
        /// The chunk's position in the stream.
        index: usize,
    },
    /// A `TOOL_CALL_CHUNK` that does not continue an open stream has no `toolCallId`.
    ToolChunkWithoutToolCallId {
        /// The chunk's position in the stream.
        index: usize,
    },
    /// A `TOOL_CALL_CHUNK` that opens tool call `tool_call_id` has no `toolCallName`.
    ToolChunkWithoutToolCallName {
        /// The chunk's position in the stream.
        index: usize,
        /// The tool call it would open.
        tool_call_id: String,
    },
    /// A `REASONING_MESSAGE_CHUNK` that does not continue an open stream has no `messageId`.
    ReasoningChunkWithoutMessageId {
        /// The chunk's position in the stream.
        index: usize,
    },
    /// A continuation chunk repeats a field its opener set, with a different value
    /// (`role` / `name` of a text message, `toolCallName` / `parentMessageId` of a tool call).
    ConflictingField {
        /// The chunk's position in the stream.
        index: usize,
        /// `"TEXT_MESSAGE_CHUNK"` or `"TOOL_CALL_CHUNK"`.
        chunk_type: &'static str,
        /// The open message or tool call.
        entity_id: String,
        /// The wire name of the field (`"role"`, `"name"`, `"toolCallName"`, `"parentMessageId"`).
        field: &'static str,
        /// The value the chunk carries.
        incoming: String,
        /// The value the opener set (`None`: the opener did not set it).
        established: Option<String>,
    },
    /// A chunk names an id that is open in another sub-agent's lane.
    SubagentConflict {
        /// The chunk's position in the stream.
        index: usize,
        /// The chunk's type.
        chunk_type: &'static str,
        /// The open message or tool call.
        entity_id: String,
        /// The chunk's `subagentRunId`.
        subagent_run_id: String,
        /// The lane the id is open in (`None`: the parent agent).
        owner: Option<String>,
    },
    /// A chunk with neither id nor `subagentRunId` could continue streams in several lanes.
    AmbiguousChunk {
        /// The chunk's position in the stream.
        index: usize,
        /// The chunk's type.
        chunk_type: &'static str,
        /// How many lanes could have been meant.
        open_lanes: usize,
    },
}

/// Written by hand: the `event N (TYPE): ` head once, then the variant's own text (a derive
/// repeats the head in every variant's format, and allocated the quoted `established` / `owner`).
impl std::fmt::Display for ChunkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use ChunkError::*;
        let (index, chunk_type) = match self {
            TextChunkWithoutMessageId { index } => (index, "TEXT_MESSAGE_CHUNK"),
            ToolChunkWithoutToolCallId { index } | ToolChunkWithoutToolCallName { index, .. } => {
                (index, "TOOL_CALL_CHUNK")
            }
            ReasoningChunkWithoutMessageId { index } => (index, "REASONING_MESSAGE_CHUNK"),
            ConflictingField {
                index, chunk_type, ..
            }
            | SubagentConflict {
                index, chunk_type, ..
            }
            | AmbiguousChunk {
                index, chunk_type, ..
            } => (index, *chunk_type),
        };
        write!(f, "event {index} ({chunk_type}): ")?;
        // "cannot continue '<id>': <field> '<incoming>' does not match the open stream's <what> ",
        // then the open stream's value quoted, or what stands for its absence.
        let (entity_id, field, incoming, what, open, absent) = match self {
            TextChunkWithoutMessageId { .. } => {
                return f.write_str("the first chunk of a text message must have a messageId")
            }
            ToolChunkWithoutToolCallId { .. } => {
                return f.write_str("the first chunk of a tool call must have a toolCallId")
            }
            ToolChunkWithoutToolCallName { tool_call_id, .. } => {
                return write!(
                    f,
                    "the first chunk of tool call '{tool_call_id}' must have a toolCallName"
                )
            }
            ReasoningChunkWithoutMessageId { .. } => {
                return f.write_str("the first chunk of a reasoning message must have a messageId")
            }
            AmbiguousChunk { open_lanes, .. } => {
                return write!(
                    f,
                    "carries neither id nor subagentRunId, but {open_lanes} lanes have an open stream of its kind"
                )
            }
            ConflictingField {
                entity_id,
                field,
                incoming,
                established,
                ..
            } => (entity_id, *field, incoming, *field, established, "(absent)"),
            SubagentConflict {
                entity_id,
                subagent_run_id,
                owner,
                ..
            } => (
                entity_id,
                "subagentRunId",
                subagent_run_id,
                "subagent",
                owner,
                "(the parent agent)",
            ),
        };
        write!(
            f,
            "cannot continue '{entity_id}': {field} '{incoming}' does not match the open stream's {what} "
        )?;
        match open {
            Some(value) => write!(f, "'{value}'"),
            None => f.write_str(absent),
        }
    }
}

impl std::error::Error for ChunkError {}

impl ChunkError {
    /// The position in the stream of the chunk that failed.
    pub fn index(&self) -> usize {
        match self {
            ChunkError::TextChunkWithoutMessageId { index }
            | ChunkError::ToolChunkWithoutToolCallId { index }
            | ChunkError::ToolChunkWithoutToolCallName { index, .. }
            | ChunkError::ReasoningChunkWithoutMessageId { index }
            | ChunkError::ConflictingField { index, .. }
            | ChunkError::SubagentConflict { index, .. }
            | ChunkError::AmbiguousChunk { index, .. } => *index,
        }
    }
}

/// The kind of stream a lane is assembling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Tool,
    Reasoning,
}

/// What a lane's opener established, kept to synthesize the `END` and to judge repeated fields.
#[derive(Debug)]
enum Pending {
    Text {
        message_id: String,
        /// Explicit, or the assistant default the synthesized START carried.
        role: TextMessageRole,
        name: Option<String>,
    },
    Tool {
        tool_call_id: String,
        tool_call_name: String,
        parent_message_id: Option<String>,
    },
    Reasoning {
        message_id: String,
    },
}

impl Pending {
    fn kind(&self) -> Kind {
        match self {
            Pending::Text { .. } => Kind::Text,
            Pending::Tool { .. } => Kind::Tool,
            Pending::Reasoning { .. } => Kind::Reasoning,
        }
    }

    fn id(&self) -> &str {
        match self {
            Pending::Text { message_id, .. } | Pending::Reasoning { message_id } => message_id,
            Pending::Tool { tool_call_id, .. } => tool_call_id,
        }
    }
}

/// One lane: the stream one producer (the parent agent or one sub-agent) is assembling.
#[derive(Debug)]
struct Lane {
    /// The lane's producer: `None` is the parent agent, `Some` a sub-agent run. Also the
    /// opener's `subagentRunId` (a stream opens in the lane its opener names), which the
    /// synthesized `END` and untagged continuations carry.
    owner: Option<String>,
    /// What the lane has open.
    pending: Pending,
}

/// Expands `TEXT_MESSAGE_CHUNK`, `TOOL_CALL_CHUNK` and `REASONING_MESSAGE_CHUNK` into explicit
/// events, as the TS client's `transformChunks` does. Non-chunk events pass through, moved.
///
/// **Lanes.** Each producer — the parent agent (no `subagentRunId`) or one sub-agent run — has one
/// lane, holding at most one stream under assembly (text, tool call or reasoning message).
///
/// **Chunks.** A chunk whose id (`messageId` / `toolCallId`) is absent or equal to its lane's open
/// stream of the same kind continues it: it yields `*_CONTENT` / `TOOL_CALL_ARGS` when it carries a
/// `delta` or `rawEvent` (missing `delta` = `""`), else a zero-delta one if it carries only
/// `metadata`, else nothing. Otherwise the lane's open stream (of any kind) is closed with a
/// synthesized `END` and the chunk opens a new one: it must carry the id (and, for tool calls,
/// `toolCallName`); the synthesized `START` carries `role` (default `assistant`), `name`,
/// `parentMessageId`, `subagentRunId` and the chunk's `metadata`; the content event carries the
/// `metadata` and `rawEvent`. A continuation may repeat `role`, `name`, `toolCallName` or
/// `parentMessageId` only with the opener's value ([`ChunkError::ConflictingField`]).
///
/// **Which lane.** A chunk naming an id open in some lane (same kind) continues there — a
/// `subagentRunId` naming another lane is [`ChunkError::SubagentConflict`]; an id open nowhere
/// opens in the lane its `subagentRunId` names. A chunk without id goes to the lane its
/// `subagentRunId` names; untagged, to the parent's lane if that holds a stream of its kind, else
/// to the only lane that does ([`ChunkError::AmbiguousChunk`] if several do).
///
/// **Closing.** Explicit `TEXT_MESSAGE_*`, `TOOL_CALL_START/ARGS/END/RESULT`, `STATE_*`, `CUSTOM`,
/// `STEP_*` and `REASONING_START/END`, `REASONING_MESSAGE_START/CONTENT/END` close the pending
/// stream of their own lane (their `subagentRunId`) before passing; `SUBAGENT_FINISHED` /
/// `SUBAGENT_ERROR` close that sub-agent's lane; `RUN_STARTED`, `RUN_FINISHED`, `RUN_ERROR` and
/// `MESSAGES_SNAPSHOT` close every lane, in the order they opened. `RAW`, `ACTIVITY_*`,
/// `REASONING_ENCRYPTED_VALUE`, `SUBAGENT_STARTED` and unknown events close nothing.
///
/// **Divergences from TS** (documented, deliberate): synthesized events carry no `timestamp`
/// (TS does not copy it either); [`ChunkExpander::finish`] *emits* the `END`s of lanes still open
/// when the stream ends, where the TS `finalize` builds and discards them.
#[derive(Debug, Default)]
pub struct ChunkExpander {
    /// Open lanes, in the order they opened (the order `RUN_*` closes them in). A handful at most
    /// (one per concurrently streaming sub-agent), so a vector beats a map here.
    lanes: Vec<Lane>,
}

/// The fields of a chunk, independent of its kind.
struct Chunk {
    kind: Kind,
    chunk_type: &'static str,
    id: Option<String>,
    tag: Option<String>,
    delta: Option<String>,
    raw_event: Option<crate::json::Value>,
    metadata: Option<JsonObject>,
    /// Text: `role`, `name`; tool: `toolCallName`, `parentMessageId`.
    text_role: Option<TextMessageRole>,
    name: Option<String>,
    parent_message_id: Option<String>,
}

impl ChunkExpander {
    /// A fresh expander with no lane open.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether any chunk stream is still being assembled (its `END` not yet emitted).
    pub fn has_open_stream(&self) -> bool {
        !self.lanes.is_empty()
    }

    /// Handles event `index` of the stream: appends to `out` what it expands to (a chunk), or the
    /// `END`s it forces followed by the event itself (anything else). On error nothing is appended
    /// and the expander is unchanged; the error is fatal for the run.
    pub fn push(
        &mut self,
        event: Event,
        index: usize,
        out: &mut Vec<Event>,
    ) -> Result<(), ChunkError> {
        let chunk = match event {
            Event::TextMessageChunk(c) => Chunk {
                kind: Kind::Text,
                chunk_type: "TEXT_MESSAGE_CHUNK",
                id: c.message_id,
                tag: c.subagent_run_id,
                delta: c.delta,
                raw_event: c.raw_event,
                metadata: c.metadata,
                text_role: c.role,
                name: c.name,
                parent_message_id: None,
            },
            Event::ToolCallChunk(c) => Chunk {
                kind: Kind::Tool,
                chunk_type: "TOOL_CALL_CHUNK",
                id: c.tool_call_id,
                tag: c.subagent_run_id,
                delta: c.delta,
                raw_event: c.raw_event,
                metadata: c.metadata,
                text_role: None,
                name: c.tool_call_name,
                parent_message_id: c.parent_message_id,
            },
            Event::ReasoningMessageChunk(c) => Chunk {
                kind: Kind::Reasoning,
                chunk_type: "REASONING_MESSAGE_CHUNK",
                id: c.message_id,
                tag: c.subagent_run_id,
                delta: c.delta,
                raw_event: c.raw_event,
                metadata: c.metadata,
                text_role: None,
                name: None,
                parent_message_id: None,
            },
            Event::TextMessageStart(_)
            | Event::TextMessageContent(_)
            | Event::TextMessageEnd(_)
            | Event::ToolCallStart(_)
            | Event::ToolCallArgs(_)
            | Event::ToolCallEnd(_)
            | Event::ToolCallResult(_)
            | Event::StateSnapshot(_)
            | Event::StateDelta(_)
            | Event::Custom(_)
            | Event::StepStarted(_)
            | Event::StepFinished(_)
            | Event::ReasoningStart(_)
            | Event::ReasoningMessageStart(_)
            | Event::ReasoningMessageContent(_)
            | Event::ReasoningMessageEnd(_)
            | Event::ReasoningEnd(_)
            | Event::SubagentFinished(_)
            | Event::SubagentError(_) => {
                // An explicit event closes only its own lane; an untagged one is the parent's.
                // A sub-agent's terminal closes that sub-agent's lane.
                self.close_lane(event.subagent_run_id(), out);
                emit(out, event);
                return Ok(());
            }
            Event::RunStarted(_)
            | Event::RunFinished(_)
            | Event::RunError(_)
            | Event::MessagesSnapshot(_) => {
                // Run-level events speak for the whole run: no chunk stream outlives them.
                self.finish(out);
                emit(out, event);
                return Ok(());
            }
            // RAW, ACTIVITY_*, REASONING_ENCRYPTED_VALUE, SUBAGENT_STARTED, unknown events.
            other => {
                emit(out, other);
                return Ok(());
            }
        };
        self.expand(chunk, index, out)
    }

    /// Whether no chunk stream is open: then [`push`](Self::push) of an event that is not a
    /// chunk appends that event alone.
    pub fn is_idle(&self) -> bool {
        self.lanes.is_empty()
    }

    /// Ends the stream: appends a synthesized `END` for every lane still open, in the order they
    /// opened, and forgets them. (The TS client discards these; see the type's docs.)
    pub fn finish(&mut self, out: &mut Vec<Event>) {
        for lane in self.lanes.drain(..) {
            emit(out, end_event(lane));
        }
    }

    fn close_lane(&mut self, owner: Option<&str>, out: &mut Vec<Event>) {
        if let Some(at) = self.lanes.iter().position(|l| l.owner.as_deref() == owner) {
            emit(out, end_event(self.lanes.remove(at)));
        }
    }

    /// Which lane a chunk belongs to (TS `resolveLane`).
    fn resolve_lane(&self, chunk: &Chunk, index: usize) -> Result<Option<String>, ChunkError> {
        if let Some(id) = &chunk.id {
            let holder = self
                .lanes
                .iter()
                .find(|l| l.pending.kind() == chunk.kind && l.pending.id() == id);
            return match holder {
                Some(lane) => match &chunk.tag {
                    Some(tag) if Some(tag) != lane.owner.as_ref() => {
                        Err(ChunkError::SubagentConflict {
                            index,
                            chunk_type: chunk.chunk_type,
                            entity_id: id.clone(),
                            subagent_run_id: tag.clone(),
                            owner: lane.owner.clone(),
                        })
                    }
                    _ => Ok(lane.owner.clone()),
                },
                None => Ok(chunk.tag.clone()),
            };
        }
        if let Some(tag) = &chunk.tag {
            return Ok(Some(tag.clone()));
        }
        if self
            .lanes
            .iter()
            .any(|l| l.owner.is_none() && l.pending.kind() == chunk.kind)
        {
            return Ok(None);
        }
        let mut candidates = self.lanes.iter().filter(|l| l.pending.kind() == chunk.kind);
        match (candidates.next(), candidates.count()) {
            (Some(only), 0) => Ok(only.owner.clone()),
            (Some(_), more) => Err(ChunkError::AmbiguousChunk {
                index,
                chunk_type: chunk.chunk_type,
                open_lanes: more + 1,
            }),
            (None, _) => Ok(None),
        }
    }

    fn expand(
        &mut self,
        chunk: Chunk,
        index: usize,
        out: &mut Vec<Event>,
    ) -> Result<(), ChunkError> {
        let lane_owner = self.resolve_lane(&chunk, index)?;
        let at = self.lanes.iter().position(|l| l.owner == lane_owner);
        let continued = at.map(|at| &self.lanes[at]).filter(|lane| {
            lane.pending.kind() == chunk.kind
                && chunk.id.as_deref().is_none_or(|id| id == lane.pending.id())
        });

        if let Some(lane) = continued {
            check_agreement(&chunk, lane, index)?;
            let id = lane.pending.id().to_owned();
            // The chunk's own attribution first, the opener's as fallback.
            let owner = chunk.tag.or_else(|| lane.owner.clone());
            if chunk.delta.is_some() || chunk.raw_event.is_some() {
                emit(
                    out,
                    content_event(
                        chunk.kind,
                        id,
                        chunk.delta.unwrap_or_default(),
                        owner,
                        chunk.metadata,
                        chunk.raw_event,
                    ),
                );
            } else if chunk.metadata.is_some() {
                // A metadata-only continuation (usage, finish reason) still reaches the reducer.
                emit(
                    out,
                    content_event(chunk.kind, id, String::new(), owner, chunk.metadata, None),
                );
            }
            return Ok(());
        }

        // A new stream: validate before touching state, so an error leaves everything as it was.
        let Some(id) = chunk.id else {
            return Err(match chunk.kind {
                Kind::Text => ChunkError::TextChunkWithoutMessageId { index },
                Kind::Tool => ChunkError::ToolChunkWithoutToolCallId { index },
                Kind::Reasoning => ChunkError::ReasoningChunkWithoutMessageId { index },
            });
        };
        if chunk.kind == Kind::Tool && chunk.name.is_none() {
            return Err(ChunkError::ToolChunkWithoutToolCallName {
                index,
                tool_call_id: id,
            });
        }
        // Whatever else this lane had open ends before the new stream begins.
        if let Some(at) = at {
            emit(out, end_event(self.lanes.remove(at)));
        }
        let tag = chunk.tag;
        let (pending, start) = match chunk.kind {
            Kind::Text => {
                let role = chunk.text_role.unwrap_or(TextMessageRole::Assistant);
                let start = Event::TextMessageStart(TextMessageStart {
                    message_id: id.clone(),
                    role: Some(role),
                    name: chunk.name.clone(),
                    timestamp: None,
                    raw_event: None,
                    metadata: chunk.metadata.clone(),
                    subagent_run_id: tag.clone(),
                });
                let pending = Pending::Text {
                    message_id: id.clone(),
                    role,
                    name: chunk.name,
                };
                (pending, start)
            }
            Kind::Tool => {
                let name = chunk.name.unwrap_or_default();
                let start = Event::ToolCallStart(ToolCallStart {
                    tool_call_id: id.clone(),
                    tool_call_name: name.clone(),
                    parent_message_id: chunk.parent_message_id.clone(),
                    timestamp: None,
                    raw_event: None,
                    metadata: chunk.metadata.clone(),
                    subagent_run_id: tag.clone(),
                });
                let pending = Pending::Tool {
                    tool_call_id: id.clone(),
                    tool_call_name: name,
                    parent_message_id: chunk.parent_message_id,
                };
                (pending, start)
            }
            Kind::Reasoning => {
                let start = Event::ReasoningMessageStart(ReasoningMessageStart {
                    message_id: id.clone(),
                    role: ReasoningRole::Reasoning,
                    timestamp: None,
                    raw_event: None,
                    metadata: chunk.metadata.clone(),
                    subagent_run_id: tag.clone(),
                });
                (
                    Pending::Reasoning {
                        message_id: id.clone(),
                    },
                    start,
                )
            }
        };
        emit(out, start);
        if chunk.delta.is_some() || chunk.raw_event.is_some() {
            emit(
                out,
                content_event(
                    chunk.kind,
                    id,
                    chunk.delta.unwrap_or_default(),
                    tag.clone(),
                    chunk.metadata,
                    chunk.raw_event,
                ),
            );
        }
        debug_assert_eq!(
            lane_owner, tag,
            "a stream opens in the lane its opener names"
        );
        self.lanes.push(Lane {
            owner: lane_owner,
            pending,
        });
        Ok(())
    }
}

/// A continuation may repeat an opener's field only with the same value (TS
/// `requireOpenerAgreement`): the repeated field does not survive expansion, so nothing
/// downstream could see the disagreement.
fn check_agreement(chunk: &Chunk, lane: &Lane, index: usize) -> Result<(), ChunkError> {
    // Out of line: one copy of the error's construction for the four fields, not one inlined
    // per field.
    #[inline(never)]
    fn conflict_error(
        chunk: &Chunk,
        lane: &Lane,
        index: usize,
        field: &'static str,
        incoming: String,
        established: Option<String>,
    ) -> ChunkError {
        ChunkError::ConflictingField {
            index,
            chunk_type: chunk.chunk_type,
            entity_id: lane.pending.id().to_owned(),
            field,
            incoming,
            established,
        }
    }
    let conflict = |field: &'static str, incoming: String, established: Option<String>| {
        Err(conflict_error(
            chunk,
            lane,
            index,
            field,
            incoming,
            established,
        ))
    };
    match &lane.pending {
        Pending::Text { role, name, .. } => {
            if let Some(incoming) = chunk.text_role {
                if incoming != *role {
                    return conflict(
                        "role",
                        role_str(incoming).into(),
                        Some(role_str(*role).into()),
                    );
                }
            }
            if let Some(incoming) = &chunk.name {
                if Some(incoming) != name.as_ref() {
                    return conflict("name", incoming.clone(), name.clone());
                }
            }
        }
        Pending::Tool {
            tool_call_name,
            parent_message_id,
            ..
        } => {
            if let Some(incoming) = &chunk.name {
                if incoming != tool_call_name {
                    return conflict(
                        "toolCallName",
                        incoming.clone(),
                        Some(tool_call_name.clone()),
                    );
                }
            }
            if let Some(incoming) = &chunk.parent_message_id {
                if Some(incoming) != parent_message_id.as_ref() {
                    return conflict(
                        "parentMessageId",
                        incoming.clone(),
                        parent_message_id.clone(),
                    );
                }
            }
        }
        Pending::Reasoning { .. } => {}
    }
    Ok(())
}

fn role_str(role: TextMessageRole) -> &'static str {
    match role {
        TextMessageRole::Developer => "developer",
        TextMessageRole::System => "system",
        TextMessageRole::Assistant => "assistant",
        TextMessageRole::User => "user",
    }
}

/// Appends `event` to the expander's output. Out of line: one copy of the vector's push (its
/// growth and the event's move) for the ten places that append, not one inlined at each.
#[inline(never)]
fn emit(out: &mut Vec<Event>, event: Event) {
    out.push(event);
}

/// The `END` that closes a lane: the opener's id and `subagentRunId`, nothing else (the chunk
/// that caused the close must not lend its metadata to the message it closes).
fn end_event(lane: Lane) -> Event {
    let subagent_run_id = lane.owner;
    match lane.pending {
        Pending::Text { message_id, .. } => Event::TextMessageEnd(TextMessageEnd {
            message_id,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id,
        }),
        Pending::Tool { tool_call_id, .. } => Event::ToolCallEnd(ToolCallEnd {
            tool_call_id,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id,
        }),
        Pending::Reasoning { message_id } => Event::ReasoningMessageEnd(ReasoningMessageEnd {
            message_id,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id,
        }),
    }
}

/// `TEXT_MESSAGE_CONTENT`, `TOOL_CALL_ARGS` or `REASONING_MESSAGE_CONTENT` for a chunk.
fn content_event(
    kind: Kind,
    id: String,
    delta: String,
    subagent_run_id: Option<String>,
    metadata: Option<JsonObject>,
    raw_event: Option<crate::json::Value>,
) -> Event {
    match kind {
        Kind::Text => Event::TextMessageContent(TextMessageContent {
            message_id: id,
            delta,
            timestamp: None,
            raw_event,
            metadata,
            subagent_run_id,
        }),
        Kind::Tool => Event::ToolCallArgs(ToolCallArgs {
            tool_call_id: id,
            delta,
            timestamp: None,
            raw_event,
            metadata,
            subagent_run_id,
        }),
        Kind::Reasoning => Event::ReasoningMessageContent(ReasoningMessageContent {
            message_id: id,
            delta,
            timestamp: None,
            raw_event,
            metadata,
            subagent_run_id,
        }),
    }
}
