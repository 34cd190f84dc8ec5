//! The decoding pipeline: `text/event-stream` bytes in, AG-UI 1.0 events out.
//!
//! ```text
//! bytes ─▶ SseDecoder ─▶ Event::parse ─▶ LegacyUpgrader ─▶ wire events
//!                                                     └─▶ ChunkExpander ─▶ Verifier  (checks only)
//! ```
//!
//! [`EventDecoder`] yields the events as they are on the wire (legacy `THINKING_*` already mapped to
//! `REASONING_*`, chunk events left as they are; what `decodeEventStream` returns), the expanded
//! stream a reducer folds (no `*_CHUNK` events), or both ([`Output`]). The ordering rules are
//! checked on the expanded view when [`DecodeOptions::verify`] is set.
//! [`decode_all`] runs it over a whole body.

use std::collections::VecDeque;

use super::wire::{ObjWriter, ToJson};

use super::chunks::{ChunkError, ChunkExpander, LegacyNotice, LegacyUpgrader};
use super::event::{flat_delta, Event, EventError, Parsed};
use super::sse::{SseDecoder, SseError, DEFAULT_MAX_EVENT_BYTES};
use super::verify::{OrderError, Verifier};

/// Whether an event has none of the base fields (`timestamp`, `rawEvent`, `metadata`,
/// `subagentRunId`).
macro_rules! bare {
    ($e:expr) => {
        $e.timestamp.is_none()
            && $e.raw_event.is_none()
            && $e.metadata.is_none()
            && $e.subagent_run_id.is_none()
    };
}

/// How to decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Check the AG-UI ordering rules (on the chunk-expanded stream).
    pub verify: bool,
    /// The largest single SSE event accepted, in bytes.
    pub max_event_bytes: usize,
    /// What [`EventDecoder`] yields.
    pub output: Output,
    /// The stream may be resumed on a new connection ([`EventDecoder::reconnect`]): the decoder
    /// keeps the SSE id of every event, so it can recognise and drop the events a resuming server
    /// sends again. Costs one id string per event of the stream that has an id.
    pub resumable: bool,
}

/// What an [`EventDecoder`] yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    /// The events as they are on the wire (`*_CHUNK` events stay chunks).
    #[default]
    Wire,
    /// The chunk-expanded stream a reducer folds (no `*_CHUNK` events).
    Expanded,
    /// Both, in stream order, each [`Item`] saying which view it belongs to. A chunk event is a
    /// wire-only item followed by its expansion; any other event is one item in both views.
    Both,
}

/// One decoded event and the views it belongs to (see [`Output::Both`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The event.
    pub event: Event,
    /// It is an event as it arrived on the wire (to hand to listeners).
    pub wire: bool,
    /// It is part of the expanded stream (to fold into the thread).
    pub expanded: bool,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        Self {
            verify: true,
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
            output: Output::Wire,
            resumable: false,
        }
    }
}

/// Something the decoder accepted but reports.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// An event `type` this crate does not know; kept as [`Event::Unknown`].
    UnknownEventType {
        /// The event's position in the stream.
        index: usize,
        /// Its `type`.
        event_type: String,
    },
    /// A legacy `THINKING_*` event, translated to `REASONING_*`.
    LegacyEvent {
        /// The event's position in the stream.
        index: usize,
        /// Its legacy `type`.
        event_type: String,
        /// The 1.0 `type` it became.
        translated_to: String,
    },
    /// `THINKING_START.title` was dropped (`REASONING_START` has no title).
    LegacyTitleDropped {
        /// The event's position in the stream.
        index: usize,
        /// The title that was dropped.
        title: String,
    },
    /// A legacy continuation arrived with nothing open, so an id was made up for it.
    LegacyMintedId {
        /// The event's position in the stream.
        index: usize,
        /// Its legacy `type`.
        event_type: String,
        /// The id made up.
        id: String,
    },
}

/// `{"kind":"unknown_event_type","index":3,"eventType":"X"}`.
impl ToJson for Warning {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        match self {
            Warning::UnknownEventType { index, event_type } => {
                w.field("kind", "unknown_event_type");
                w.field("index", index);
                w.field("eventType", event_type);
            }
            Warning::LegacyEvent {
                index,
                event_type,
                translated_to,
            } => {
                w.field("kind", "legacy_event");
                w.field("index", index);
                w.field("eventType", event_type);
                w.field("translatedTo", translated_to);
            }
            Warning::LegacyTitleDropped { index, title } => {
                w.field("kind", "legacy_title_dropped");
                w.field("index", index);
                w.field("title", title);
            }
            Warning::LegacyMintedId {
                index,
                event_type,
                id,
            } => {
                w.field("kind", "legacy_minted_id");
                w.field("index", index);
                w.field("eventType", event_type);
                w.field("id", id);
            }
        }
        w.end();
    }
}

impl Warning {
    fn from_legacy(index: usize, notice: LegacyNotice) -> Self {
        match notice {
            LegacyNotice::Translated { from, to } => Warning::LegacyEvent {
                index,
                event_type: from.to_owned(),
                translated_to: to.to_owned(),
            },
            LegacyNotice::TitleDropped { title } => Warning::LegacyTitleDropped { index, title },
            LegacyNotice::MintedId { from, id } => Warning::LegacyMintedId {
                index,
                event_type: from.to_owned(),
                id,
            },
        }
    }
}

/// Why a stream could not be decoded. Every variant knows the event index where it happened.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The `text/event-stream` framing failed (event too large, truncated at the end).
    Sse {
        /// The position of the event being read.
        index: usize,
        /// What failed.
        source: SseError,
    },
    /// An event's JSON is malformed.
    Event(EventError),
    /// A `*_CHUNK` event could not be expanded.
    Chunk(ChunkError),
    /// The events break the AG-UI ordering rules.
    Order(OrderError),
}

/// Written by hand: `event N: ` and the SSE error's text for `Sse`, the inner error's text for
/// the others (a derive formats the `Sse` text through one more `format_args!`).
impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Sse { index, source } => {
                write!(f, "event {index}: ")?;
                source.fmt(f)
            }
            DecodeError::Event(e) => e.fmt(f),
            DecodeError::Chunk(e) => e.fmt(f),
            DecodeError::Order(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DecodeError::Sse { source, .. } => Some(source),
            // `thiserror`'s `transparent`: the inner error's own source (none has one).
            DecodeError::Event(e) => e.source(),
            DecodeError::Chunk(e) => e.source(),
            DecodeError::Order(e) => e.source(),
        }
    }
}

impl From<EventError> for DecodeError {
    fn from(e: EventError) -> Self {
        DecodeError::Event(e)
    }
}

impl From<ChunkError> for DecodeError {
    fn from(e: ChunkError) -> Self {
        DecodeError::Chunk(e)
    }
}

impl From<OrderError> for DecodeError {
    fn from(e: OrderError) -> Self {
        DecodeError::Order(e)
    }
}

impl DecodeError {
    /// A stable, machine-readable code: `decode/too-large`, `decode/truncated`, `decode/json`,
    /// `decode/no-type`, `decode/field`, `decode/chunk`, `decode/order`.
    pub fn code(&self) -> &'static str {
        match self {
            DecodeError::Sse {
                source: SseError::EventTooLarge { .. },
                ..
            } => "decode/too-large",
            DecodeError::Sse { .. } => "decode/truncated",
            DecodeError::Event(EventError::Json { .. }) => "decode/json",
            DecodeError::Event(EventError::NoType { .. }) => "decode/no-type",
            DecodeError::Event(_) => "decode/field",
            DecodeError::Chunk(_) => "decode/chunk",
            DecodeError::Order(_) => "decode/order",
        }
    }

    /// The 0-based position in the stream of the event that failed.
    pub fn index(&self) -> Option<usize> {
        match self {
            DecodeError::Sse { index, .. } => Some(*index),
            DecodeError::Event(e) => Some(e.index()),
            DecodeError::Chunk(e) => Some(e.index()),
            DecodeError::Order(e) => Some(e.index()),
        }
    }

    /// The `type` of the event that failed, when known.
    pub fn event_type(&self) -> Option<&str> {
        match self {
            DecodeError::Event(EventError::Field { event_type, .. }) => Some(event_type),
            DecodeError::Order(e) => Some(e.event_type()),
            _ => None,
        }
    }

    /// The path of the malformed field, for [`EventError::Field`].
    pub fn field(&self) -> Option<&str> {
        match self {
            DecodeError::Event(EventError::Field { field, .. }) => Some(field),
            _ => None,
        }
    }
}

/// Incremental decoder: [`feed`](Self::feed) bytes as they arrive, take events with
/// [`next_event`](Self::next_event), call [`finish`](Self::finish) at the end of the body.
///
/// After an error the decoder is failed: later calls return the same error.
#[derive(Debug)]
pub struct EventDecoder {
    sse: SseDecoder,
    legacy: LegacyUpgrader,
    /// Present when chunks are expanded for output or for the verifier.
    expander: Option<ChunkExpander>,
    /// Present when the ordering rules are checked.
    verifier: Option<Verifier>,
    /// Which view(s) to yield.
    output: Output,
    /// Index of the next SSE event, for error positions and warnings.
    index: usize,
    /// Events decoded but not yet taken.
    ready: VecDeque<Item>,
    /// Reusable buffer of expanded events, so a token stream does not allocate one per event.
    expanded: Vec<Event>,
    warnings: Vec<Warning>,
    /// The first error; the decoder stays failed after it.
    failed: Option<DecodeError>,
    /// With [`DecodeOptions::resumable`]: the SSE ids of the events decoded, in stream order
    /// (consecutive events with one id: once), by which a resumed connection's events are known
    /// to be ones the stream has already had. A vector, not a set: a push per event costs less
    /// than a hash, and a replay comes in stream order.
    ids: Option<Vec<String>>,
    /// After a [`reconnect`](Self::reconnect), until the new connection has caught up.
    catching_up: Option<CatchUp>,
    /// With [`coalesce_deltas`](Self::coalesce_deltas): deltas merged into the one before.
    coalesce: bool,
}

/// A resumed connection that may be sending again events the stream has had.
#[derive(Debug)]
struct CatchUp {
    /// The last event ID the stream had (what the client sent as `Last-Event-ID`).
    last: String,
    /// Where in [`EventDecoder::ids`] the replay has got to; `None` before its first event.
    at: Option<usize>,
}

impl EventDecoder {
    /// A decoder with the given options.
    pub fn new(options: &DecodeOptions) -> Self {
        Self {
            sse: SseDecoder::with_max_event_bytes(options.max_event_bytes),
            legacy: LegacyUpgrader::default(),
            expander: (options.verify || options.output != Output::Wire)
                .then(ChunkExpander::default),
            verifier: options.verify.then(Verifier::default),
            output: options.output,
            index: 0,
            ready: VecDeque::new(),
            expanded: Vec::new(),
            warnings: Vec::new(),
            failed: None,
            ids: options.resumable.then(Vec::new),
            catching_up: None,
            coalesce: false,
        }
    }

    /// Feeds the next bytes of the body and decodes every event they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        self.check_failed()?;
        let result = self.feed_once(bytes);
        self.fail_on(result)
    }

    /// Ends the body: errors if an event was cut off. Chunk streams still open are closed.
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        self.check_failed()?;
        let result = self.finish_once();
        self.fail_on(result)
    }

    /// For a caller that folds the expanded view and reads no event of it one by one (the
    /// session, while no `agui` listener is subscribed): a `TEXT_MESSAGE_CONTENT` or
    /// `TOOL_CALL_ARGS` that continues the event queued last (same id, no base field on either)
    /// is appended to its `delta` instead of queued, so the thread it folds into is the same,
    /// in fewer events. Takes effect for the events decoded from then on.
    pub(crate) fn coalesce_deltas(&mut self, on: bool) {
        self.coalesce = on;
    }

    /// [`feed`](Self::feed) for a caller that drops the decoder at its first error (the session,
    /// [`decode_all`]): the error is not kept for later calls, so it is not cloned (and
    /// `DecodeError`'s `Clone` stays out of the `.wasm`). Not to be called after an error.
    pub(crate) fn feed_once(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        let fed = self.sse.feed_once(bytes);
        // Events completed before a framing error come first in the stream: decode them first,
        // so the error's index is the event that broke.
        self.drain().and_then(|()| self.sse_result(fed))
    }

    /// [`finish`](Self::finish) for a caller that drops the decoder at its first error (see
    /// [`feed_once`](Self::feed_once)).
    pub(crate) fn finish_once(&mut self) -> Result<(), DecodeError> {
        let finished = self.sse.finish_once();
        self.drain().and_then(|()| self.sse_result(finished))?;
        if let Some(expander) = &mut self.expander {
            expander.finish(&mut self.expanded);
        }
        self.take_expanded(self.index.saturating_sub(1), false)
    }

    fn sse_result(&self, result: Result<(), SseError>) -> Result<(), DecodeError> {
        result.map_err(|source| DecodeError::Sse {
            index: self.index,
            source,
        })
    }

    /// The next decoded event, in stream order (for [`Output::Wire`] and [`Output::Expanded`]).
    pub fn next_event(&mut self) -> Option<Event> {
        self.ready.pop_front().map(|item| item.event)
    }

    /// The next decoded item, in stream order (for [`Output::Both`]).
    pub fn next_item(&mut self) -> Option<Item> {
        self.ready.pop_front()
    }

    /// Warnings so far (unknown event types, legacy events).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Takes the warnings so far.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }

    /// The last SSE `id:` of a completed event (the last event ID string), for resuming the
    /// stream with `Last-Event-ID`. While a resumed connection is still sending events the
    /// stream had already, the id the stream had reached before it.
    pub fn last_event_id(&self) -> Option<&str> {
        match &self.catching_up {
            Some(catch_up) => Some(&catch_up.last),
            None => self.sse.last_event_id(),
        }
    }

    /// The stream's reconnection time (the latest valid SSE `retry:`), in milliseconds.
    pub fn reconnection_time(&self) -> Option<u64> {
        self.sse.reconnection_time()
    }

    /// A new connection continues the stream after the last completed event: the SSE framing
    /// starts over (a cut-off event is dropped; the last event ID is kept), while the ordering
    /// checks, the chunk streams and the event count go on as one stream.
    ///
    /// With [`DecodeOptions::resumable`], the new connection may start again at an earlier
    /// event (at the last event ID, or from the start): its events are dropped, unseen by the
    /// output and the checks, for as long as their ids repeat, in order, ids the stream has had,
    /// up to and including the one with the last event ID. The first event that does not, or
    /// that one, ends it.
    pub fn reconnect(&mut self) {
        if self.ids.is_some() {
            // A connection cut while it caught up resumes from the same id again.
            let last = match self.catching_up.take() {
                Some(catch_up) => Some(catch_up.last),
                None => self.sse.last_event_id().map(str::to_owned),
            };
            self.catching_up = last.map(|last| CatchUp { last, at: None });
        }
        self.sse.reconnect();
    }

    /// Whether an event with SSE id `id` is one a resumed connection sends again (drop it).
    /// Records the ids of the others.
    fn replayed(&mut self, id: Option<String>, own: bool) -> bool {
        let Some(ids) = &mut self.ids else {
            return false;
        };
        if let Some(catch_up) = &mut self.catching_up {
            // The first event is looked for anywhere in the stream (the latest first), each
            // later one at the same place (one id again) or the next.
            let (from, to) = match catch_up.at {
                None => (0, ids.len()),
                Some(at) => (at, ids.len().min(at + 2)),
            };
            let again = id
                .as_deref()
                .filter(|_| own)
                .and_then(|id| (from..to).rev().find(|&n| ids[n] == id));
            catch_up.at = again;
            if again.is_none() || (own && id.as_deref() == Some(&catch_up.last)) {
                self.catching_up = None;
            }
            if again.is_some() {
                return true;
            }
        }
        if let Some(id) = id {
            if ids.last() != Some(&id) {
                ids.push(id);
            }
        }
        false
    }

    /// How many SSE events were read.
    pub fn events_read(&self) -> usize {
        self.index
    }

    fn check_failed(&self) -> Result<(), DecodeError> {
        match &self.failed {
            Some(error) => Err(error.clone()),
            None => Ok(()),
        }
    }

    fn fail_on(&mut self, result: Result<(), DecodeError>) -> Result<(), DecodeError> {
        if let Err(error) = &result {
            self.failed = Some(error.clone());
        }
        result
    }

    /// Parses every complete SSE event into wire events.
    fn drain(&mut self) -> Result<(), DecodeError> {
        while let Some(mut frame) = self.sse.next_event() {
            // Only an `id` of the event's own counts: one inherited from an earlier event says
            // nothing about whether a resumed connection sends this one again.
            let own = self.sse.had_own_id();
            if self.replayed(frame.id.take(), own) {
                self.sse.recycle(frame.data);
                continue;
            }
            let index = self.index;
            self.index += 1;
            if self.coalesce && self.append_delta(&frame.data) {
                self.sse.recycle(frame.data);
                continue;
            }
            let parsed = Event::parse(&frame.data, index);
            self.sse.recycle(frame.data);
            let parsed = parsed?;
            if let Parsed::Event(Event::Unknown(unknown)) = &parsed {
                self.warnings.push(Warning::UnknownEventType {
                    index,
                    event_type: unknown.type_name().to_owned(),
                });
            }
            let event = self.legacy.upgrade(parsed);
            while let Some(notice) = self.legacy.poll_notice() {
                self.warnings.push(Warning::from_legacy(index, notice));
            }
            let Some(expander) = &mut self.expander else {
                queue(&mut self.ready, event, true, false);
                continue;
            };
            // An event that is not a chunk, with no chunk stream open, is what the expander
            // would give back alone: checked and queued straight (not through `expanded`).
            if expander.is_idle() && !is_chunk(&event) {
                if let Some(verifier) = &mut self.verifier {
                    verifier.check(&event, index)?;
                }
                let (wire, expanded) = self.straight_views();
                queue(&mut self.ready, event, wire, expanded);
                continue;
            }
            // Only the wire view (`Wire`, `Both`) keeps a chunk event apart from what the
            // expander makes of it; the expanded view alone moves the event itself through.
            let copy = match self.output {
                Output::Expanded => None,
                Output::Wire | Output::Both => chunk_copy(&event),
            };
            match copy {
                Some(copy) => {
                    expander.push(copy, index, &mut self.expanded)?;
                    if self.output == Output::Wire {
                        // The verifier needs the expanded view; the wire event is the output.
                        self.take_expanded(index, false)?;
                        queue(&mut self.ready, event, true, false);
                    } else {
                        queue(&mut self.ready, event, true, false);
                        self.take_expanded(index, false)?;
                    }
                }
                None => {
                    // A non-chunk event comes out of the expander last, as it went in, after
                    // the ENDs it synthesized to close chunk streams: with a wire view, that
                    // last event is the wire event.
                    let last_is_wire = self.output != Output::Expanded;
                    expander.push(event, index, &mut self.expanded)?;
                    self.take_expanded(index, last_is_wire)?;
                }
            }
        }
        Ok(())
    }

    /// The views of an event the expander would hand on as it is (no chunk, none open): the
    /// wire's unless only the expanded view is wanted, the expanded one unless only the wire.
    fn straight_views(&self) -> (bool, bool) {
        (self.output != Output::Expanded, self.output != Output::Wire)
    }

    /// With [`coalesce_deltas`](Self::coalesce_deltas): appends the delta of `data` to the item
    /// queued last when `data` is a flat `TEXT_MESSAGE_CONTENT` or `TOOL_CALL_ARGS` that
    /// continues it (read as [`Event::parse`] would, never made an event of its own); false,
    /// reading nothing, when it is not. The item queued last was checked by the verifier and
    /// nothing was checked since, so the verifier would say of this event what it said of that
    /// one; with no chunk stream open, the expander would hand it on as it is, in both views.
    fn append_delta(&mut self, data: &str) -> bool {
        let (wire, expanded) = match &self.expander {
            None => (true, false),
            Some(expander) if expander.is_idle() => self.straight_views(),
            Some(_) => return false,
        };
        let Some(last) = self.ready.back_mut() else {
            return false;
        };
        if last.wire != wire || last.expanded != expanded {
            return false;
        }
        let (tool, to_id, to) = match &mut last.event {
            Event::TextMessageContent(e) if bare!(e) => (false, &e.message_id, &mut e.delta),
            Event::ToolCallArgs(e) if bare!(e) => (true, &e.tool_call_id, &mut e.delta),
            _ => return false,
        };
        match flat_delta(data) {
            Some((is_tool, id, delta)) if is_tool == tool && id == to_id.as_str() => {
                to.push_str(&delta);
                true
            }
            _ => false,
        }
    }

    /// Verifies the expanded events of event `index` and queues them unless only the wire view
    /// is wanted. With `last_is_wire`, the last one is also the wire event.
    fn take_expanded(&mut self, index: usize, last_is_wire: bool) -> Result<(), DecodeError> {
        let count = self.expanded.len();
        for (n, event) in self.expanded.drain(..).enumerate() {
            if let Some(verifier) = &mut self.verifier {
                verifier.check(&event, index)?;
            }
            let wire = last_is_wire && n + 1 == count;
            let expanded = self.output != Output::Wire;
            if expanded || wire {
                queue(&mut self.ready, event, wire, expanded);
            }
        }
        Ok(())
    }
}

/// Queues an item for the output. Out of line: one copy of the queue's push (its growth and the
/// event's move) for the four places that queue, not one inlined at each.
#[inline(never)]
fn queue(ready: &mut VecDeque<Item>, event: Event, wire: bool, expanded: bool) {
    ready.push_back(Item {
        event,
        wire,
        expanded,
    });
}

/// Whether `event` is one of the three chunk types, which the expander turns into other events.
fn is_chunk(event: &Event) -> bool {
    matches!(
        event,
        Event::TextMessageChunk(_) | Event::ToolCallChunk(_) | Event::ReasoningMessageChunk(_)
    )
}

/// A copy of a chunk event (which the expander turns into other events while the wire keeps it);
/// `None` for any other event. Only the three chunk types are ever cloned.
fn chunk_copy(event: &Event) -> Option<Event> {
    Some(match event {
        Event::TextMessageChunk(e) => Event::TextMessageChunk(e.clone()),
        Event::ToolCallChunk(e) => Event::ToolCallChunk(e.clone()),
        Event::ReasoningMessageChunk(e) => Event::ReasoningMessageChunk(e.clone()),
        _ => return None,
    })
}

/// A whole body, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The events, wire-shaped.
    pub events: Vec<Event>,
    /// What the decoder accepted but reports.
    pub warnings: Vec<Warning>,
    /// The last SSE `id:` seen.
    pub last_event_id: Option<String>,
}

/// `{"events":[...],"warnings":[...],"lastEventId":"..."}` (`lastEventId` when there was one).
impl ToJson for Decoded {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("events", &self.events);
        w.field("warnings", &self.warnings);
        w.field("lastEventId", &self.last_event_id);
        w.end();
    }
}

/// Decodes a whole `text/event-stream` body.
pub fn decode_all(bytes: &[u8], options: &DecodeOptions) -> Result<Decoded, DecodeError> {
    let mut decoder = EventDecoder::new(options);
    let mut events = Vec::new();
    decoder.feed_once(bytes)?;
    decoder.finish_once()?;
    while let Some(event) = decoder.next_event() {
        events.push(event);
    }
    Ok(Decoded {
        events,
        warnings: decoder.take_warnings(),
        // SSE text, not JSON: a literal U+10FFFF in it takes the internal form the writer expects.
        last_event_id: decoder
            .last_event_id()
            .map(|id| crate::json::from_js_string(id).into_owned()),
    })
}

#[cfg(test)]
mod display_tests {
    use super::*;
    use crate::protocol::sse::SseEvent;

    /// Every text the hand-written `Display`s write, pinned byte for byte (they were the
    /// `thiserror` formats).
    #[test]
    fn texts() {
        let cases: Vec<(DecodeError, &str)> = vec![
            (
                DecodeError::Sse { index: 3, source: SseError::EventTooLarge { limit: 64 } },
                "event 3: event exceeds the limit of 64 bytes",
            ),
            (
                DecodeError::Sse {
                    index: 0,
                    source: SseError::Truncated {
                        partial: SseEvent { event: None, data: "x".into(), id: None, retry: None },
                    },
                },
                "event 0: stream ended inside an event that has no terminating blank line",
            ),
            (
                EventError::Json { index: 2, message: "bad".into() }.into(),
                "event 2: not valid JSON: bad",
            ),
            (
                EventError::NoType { index: 5 }.into(),
                "event 5: not an object with a non-empty string `type`",
            ),
            (
                EventError::Field {
                    index: 7,
                    event_type: "RUN_STARTED".into(),
                    field: "threadId".into(),
                    message: "expected a string".into(),
                }
                .into(),
                "event 7 (RUN_STARTED): field `threadId`: expected a string",
            ),
            (
                ChunkError::TextChunkWithoutMessageId { index: 1 }.into(),
                "event 1 (TEXT_MESSAGE_CHUNK): the first chunk of a text message must have a messageId",
            ),
            (
                ChunkError::ToolChunkWithoutToolCallId { index: 1 }.into(),
                "event 1 (TOOL_CALL_CHUNK): the first chunk of a tool call must have a toolCallId",
            ),
            (
                ChunkError::ToolChunkWithoutToolCallName { index: 4, tool_call_id: "c1".into() }
                    .into(),
                "event 4 (TOOL_CALL_CHUNK): the first chunk of tool call 'c1' must have a toolCallName",
            ),
            (
                ChunkError::ReasoningChunkWithoutMessageId { index: 9 }.into(),
                "event 9 (REASONING_MESSAGE_CHUNK): the first chunk of a reasoning message must have a messageId",
            ),
            (
                ChunkError::ConflictingField {
                    index: 2,
                    chunk_type: "TOOL_CALL_CHUNK",
                    entity_id: "c1".into(),
                    field: "toolCallName",
                    incoming: "b".into(),
                    established: Some("a".into()),
                }
                .into(),
                "event 2 (TOOL_CALL_CHUNK): cannot continue 'c1': toolCallName 'b' does not match the open stream's toolCallName 'a'",
            ),
            (
                ChunkError::ConflictingField {
                    index: 2,
                    chunk_type: "TEXT_MESSAGE_CHUNK",
                    entity_id: "m".into(),
                    field: "name",
                    incoming: "b".into(),
                    established: None,
                }
                .into(),
                "event 2 (TEXT_MESSAGE_CHUNK): cannot continue 'm': name 'b' does not match the open stream's name (absent)",
            ),
            (
                ChunkError::SubagentConflict {
                    index: 1,
                    chunk_type: "TEXT_MESSAGE_CHUNK",
                    entity_id: "s".into(),
                    subagent_run_id: "B".into(),
                    owner: Some("A".into()),
                }
                .into(),
                "event 1 (TEXT_MESSAGE_CHUNK): cannot continue 's': subagentRunId 'B' does not match the open stream's subagent 'A'",
            ),
            (
                ChunkError::SubagentConflict {
                    index: 1,
                    chunk_type: "TOOL_CALL_CHUNK",
                    entity_id: "s".into(),
                    subagent_run_id: "B".into(),
                    owner: None,
                }
                .into(),
                "event 1 (TOOL_CALL_CHUNK): cannot continue 's': subagentRunId 'B' does not match the open stream's subagent (the parent agent)",
            ),
            (
                ChunkError::AmbiguousChunk { index: 6, chunk_type: "TOOL_CALL_CHUNK", open_lanes: 2 }
                    .into(),
                "event 6 (TOOL_CALL_CHUNK): carries neither id nor subagentRunId, but 2 lanes have an open stream of its kind",
            ),
            (
                OrderError::FirstEventNotRunStarted { index: 0, event_type: "TEXT_MESSAGE_START" }
                    .into(),
                "event 0 (TEXT_MESSAGE_START): the first event must be RUN_STARTED",
            ),
            (
                OrderError::RunFinishedWithOpen {
                    index: 8,
                    event_type: "RUN_FINISHED",
                    what: crate::protocol::verify::OpenKind::ToolCall,
                    ids: vec!["a".into(), "b".into(), "c".into()],
                }
                .into(),
                "event 8 (RUN_FINISHED): cannot finish the run while tool calls are still active: a, b, c",
            ),
            (
                OrderError::RunFinishedWithOpen {
                    index: 8,
                    event_type: "RUN_FINISHED",
                    what: crate::protocol::verify::OpenKind::Step,
                    ids: vec!["s".into()],
                }
                .into(),
                "event 8 (RUN_FINISHED): cannot finish the run while steps are still active: s",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}

#[cfg(test)]
mod coalesce_tests {
    use super::*;

    fn frames(events: &[&str]) -> String {
        events.iter().map(|e| format!("data: {e}\n\n")).collect()
    }

    /// The items a session's decoder yields for `body` fed in one piece, with deltas merged
    /// or not.
    fn items(body: &str, coalesce: bool) -> Result<Vec<Item>, DecodeError> {
        let mut decoder = EventDecoder::new(&DecodeOptions {
            output: Output::Both,
            ..DecodeOptions::default()
        });
        decoder.coalesce_deltas(coalesce);
        decoder.feed_once(body.as_bytes())?;
        decoder.finish_once()?;
        Ok(std::iter::from_fn(|| decoder.next_item()).collect())
    }

    fn json(items: &[Item]) -> Vec<String> {
        items.iter().map(|i| i.event.to_json()).collect()
    }

    const START: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
    const END: &str = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;

    #[test]
    fn consecutive_deltas_of_one_message_or_call_become_one_event() {
        let body = frames(&[
            START,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\"b\u00e9"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"c"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"x\""}"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":":1}"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
            END,
        ]);
        let merged = items(&body, true).unwrap();
        assert_eq!(
            json(&merged)[2..4],
            [
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\"béc"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
            ]
        );
        assert_eq!(
            json(&merged)[5],
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"x\":1}"}"#
        );
        assert_eq!(merged.len(), 8);
        assert!(merged.iter().all(|i| i.wire && i.expanded));
        // Off, every event is its own item.
        assert_eq!(items(&body, false).unwrap().len(), 11);
    }

    #[test]
    fn a_delta_of_another_id_or_with_a_base_field_is_not_merged() {
        let body = frames(&[
            START,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"n","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"n","delta":"b"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"c"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","timestamp":5}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"e"}"#,
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"k","delta":"f"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"g"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"n"}"#,
            END,
        ]);
        let merged = items(&body, true).unwrap();
        assert_eq!(json(&merged), json(&items(&body, false).unwrap()));
    }

    #[test]
    fn a_merged_delta_is_checked_as_its_own_event_would_be() {
        // A delta after its message ended is refused at its own index, merged or not.
        let body = frames(&[
            START,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"b"}"#,
        ]);
        for coalesce in [true, false] {
            let error = items(&body, coalesce).unwrap_err();
            assert!(
                matches!(
                    error,
                    DecodeError::Order(OrderError::TextMessageNotOpen { index: 4, .. })
                ),
                "{error:?}"
            );
        }
        // And one before any run: the first is refused, nothing is merged into nothing.
        let body = frames(&[
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"b"}"#,
        ]);
        assert_eq!(items(&body, true).unwrap_err().index(), Some(0));
    }
}
