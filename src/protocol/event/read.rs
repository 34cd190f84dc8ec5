//! One event read from the `data` of an SSE frame ([`Event::parse`]: a 1.0 event, an unknown
//! one kept whole, or a legacy `THINKING_*` one still to be translated) and written back.

use std::borrow::Cow;

use crate::json::{parse_string_members, parse_tagged_object, Value};
use crate::protocol::wire::{FieldError, Fields, ObjWriter, ToJson};

use super::fields::{Content, TextMessageRole, ToolRole};
use super::table::{
    Event, StepFinished, StepStarted, TextMessageContent, TextMessageEnd, TextMessageStart,
    ToolCallArgs, ToolCallEnd, ToolCallResult, ToolCallStart, UnknownEvent,
};

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
        match parse_flat(data) {
            Some(event) => Ok(Parsed::Event(event)),
            None => Event::parse_object(data, index),
        }
    }

    /// [`Event::parse`]'s general path: the top-level object's members, then the fields of its
    /// `type`.
    fn parse_object(data: &str, index: usize) -> Result<Parsed, EventError> {
        // A `STATE_DELTA`'s patch is read straight into its operations (no `Value` tree).
        let object = match parse_tagged_object(data, "type", Some(("STATE_DELTA", "delta"))) {
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
        let patch = object.patch;
        let mut fields = Fields::borrowed(object.members);
        let field_error = |e: FieldError| EventError::Field {
            index,
            event_type: ty.to_string(),
            field: e.path,
            message: e.message,
        };
        if let Some(event) = Event::read_known(&ty, &mut fields) {
            let mut event = event.map_err(field_error)?;
            // The patch read by the parser (its member read as an empty one).
            if let (Some(patch), Event::StateDelta(e)) = (patch, &mut event) {
                e.delta = patch;
            }
            return Ok(Parsed::Event(event));
        }
        // Behind `black_box`, one loop: LLVM unrolled a search of the five into inline
        // comparisons, and `parse_legacy` then compared the name again.
        let legacy = core::hint::black_box(LEGACY_TYPES)
            .iter()
            .position(|name| *name == ty);
        if let Some(kind) = legacy {
            return parse_legacy(&mut fields, kind).map_err(field_error);
        }
        fields.insert(at, "type", Value::String(ty.into_owned()));
        Ok(Parsed::Event(Event::Unknown(UnknownEvent {
            json: fields.into_map(),
        })))
    }
}

/// The events a stream sends most, in their usual shape (`type` first, then string members only,
/// each one the event's own, nothing else): read without the members, values and field look-ups
/// of the general path, into the event it would read. `None` for any other text (another
/// member, a number, a `null`, a value the general path refuses), which the general path reads,
/// or names the error of. The text and tool-call events of real servers (and the streams of
/// `bench/`) have this shape.
fn parse_flat(data: &str) -> Option<Event> {
    let rest = data.strip_prefix("{\"type\":\"")?;
    let end = rest.find('"')?;
    let ty = &rest[..end];
    // Behind `black_box`, one loop (as the other type tables).
    let &(_, names, build) = core::hint::black_box(FLAT)
        .iter()
        .find(|(name, _, _)| *name == ty)?;
    // `type` and up to four members of the event's own.
    let mut slots: Slots<'_> = [
        ("type", None),
        ("", None),
        ("", None),
        ("", None),
        ("", None),
    ];
    for (slot, name) in slots[1..].iter_mut().zip(names) {
        slot.0 = name;
    }
    parse_string_members(data, &mut slots[..=names.len()])?;
    // `type` is the prefix's (a second one is a repeated member: the general path's).
    build(&mut slots)
}

/// A `TEXT_MESSAGE_CONTENT` or `TOOL_CALL_ARGS` (`true`) in the shape [`parse_flat`] reads: its
/// id and its delta, as [`Event::parse`] would read them. `None` for any other text.
pub(crate) fn flat_delta(data: &str) -> Option<(bool, Cow<'_, str>, Cow<'_, str>)> {
    let rest = data.strip_prefix("{\"type\":\"")?;
    let (tool, id) = if rest.starts_with("TEXT_MESSAGE_CONTENT\"") {
        (false, "messageId")
    } else if rest.starts_with("TOOL_CALL_ARGS\"") {
        (true, "toolCallId")
    } else {
        return None;
    };
    let mut slots = [("type", None), (id, None), ("delta", None)];
    parse_string_members(data, &mut slots)?;
    let [_, (_, id), (_, delta)] = slots;
    Some((tool, id?, delta?))
}

/// `type` and the members of a flat event, in the order of [`FLAT`]'s names (`None`: absent).
type Slots<'a> = [(&'a str, Option<Cow<'a, str>>); 5];

/// The member at `at` of [`Slots`] (1: the first after `type`), owned.
#[inline(never)]
fn own(slots: &mut Slots<'_>, at: usize) -> Option<String> {
    slots[at].1.take().map(Cow::into_owned)
}

/// The events [`parse_flat`] reads: `type`, the names of their string members, and how the
/// event is made of them (`None`: a required member is absent, or a role is not one of its
/// literals: the general path's error).
#[allow(clippy::type_complexity)]
const FLAT: &[(&str, &[&str], fn(&mut Slots<'_>) -> Option<Event>)] = &[
    ("TEXT_MESSAGE_CONTENT", &["messageId", "delta"], |s| {
        Some(Event::TextMessageContent(TextMessageContent {
            message_id: own(s, 1)?,
            delta: own(s, 2)?,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id: None,
        }))
    }),
    ("TOOL_CALL_ARGS", &["toolCallId", "delta"], |s| {
        Some(Event::ToolCallArgs(ToolCallArgs {
            tool_call_id: own(s, 1)?,
            delta: own(s, 2)?,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id: None,
        }))
    }),
    ("TEXT_MESSAGE_START", &["messageId", "role", "name"], |s| {
        Some(Event::TextMessageStart(TextMessageStart {
            message_id: own(s, 1)?,
            role: literal(s, 2, TextMessageRole::from_name)?,
            name: own(s, 3),
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id: None,
        }))
    }),
    ("TEXT_MESSAGE_END", &["messageId"], |s| {
        Some(Event::TextMessageEnd(TextMessageEnd {
            message_id: own(s, 1)?,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id: None,
        }))
    }),
    (
        "TOOL_CALL_START",
        &["toolCallId", "toolCallName", "parentMessageId"],
        |s| {
            Some(Event::ToolCallStart(ToolCallStart {
                tool_call_id: own(s, 1)?,
                tool_call_name: own(s, 2)?,
                parent_message_id: own(s, 3),
                timestamp: None,
                raw_event: None,
                metadata: None,
                subagent_run_id: None,
            }))
        },
    ),
    ("TOOL_CALL_END", &["toolCallId"], |s| {
        Some(Event::ToolCallEnd(ToolCallEnd {
            tool_call_id: own(s, 1)?,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id: None,
        }))
    }),
    (
        "TOOL_CALL_RESULT",
        &["messageId", "toolCallId", "content", "role"],
        |s| {
            Some(Event::ToolCallResult(ToolCallResult {
                message_id: own(s, 1)?,
                tool_call_id: own(s, 2)?,
                content: Content::Text(own(s, 3)?),
                role: literal(s, 4, ToolRole::from_name)?,
                timestamp: None,
                raw_event: None,
                metadata: None,
                subagent_run_id: None,
            }))
        },
    ),
    ("STEP_STARTED", &["stepName"], |s| {
        Some(Event::StepStarted(StepStarted {
            step_name: own(s, 1)?,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id: None,
        }))
    }),
    ("STEP_FINISHED", &["stepName"], |s| {
        Some(Event::StepFinished(StepFinished {
            step_name: own(s, 1)?,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id: None,
        }))
    }),
];

/// An optional role member at `at`: `Some(None)` when absent, `None` when it is not one of the
/// literals (the general path names the error).
fn literal<T>(slots: &Slots<'_>, at: usize, from: fn(&str) -> Option<T>) -> Option<Option<T>> {
    match &slots[at].1 {
        None => Some(None),
        Some(text) => from(text).map(Some),
    }
}

/// The pre-1.0 `THINKING_*` types [`parse_legacy`] reads, in the order of its indexes.
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

/// The legacy event at `kind`, an index of [`LEGACY_TYPES`].
fn parse_legacy(fields: &mut Fields<'_>, kind: usize) -> Result<Parsed, FieldError> {
    let timestamp = fields.take("timestamp")?;
    let event = match kind {
        0 => LegacyThinking::Start {
            title: fields.take("title")?,
        },
        1 => LegacyThinking::End,
        2 => LegacyThinking::TextMessageStart,
        3 => LegacyThinking::TextMessageContent {
            delta: fields.take("delta")?,
        },
        _ => LegacyThinking::TextMessageEnd,
    };
    Ok(Parsed::Legacy { event, timestamp })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_in_its_usual_shape_is_the_event_the_general_path_reads() {
        for text in [
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"word0 "}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"","messageId":"m1"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT", "messageId" : "m\u0031" ,"delta":"a\nb\u00e9\ud800\"" }"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":1}"}"#,
            r#"{"type":"TOOL_CALL_ARGS","delta":"x","too\u006cCallId":"c1"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
            r#"{"type":"TEXT_MESSAGE_START","name":"Ann","role":"user","messageId":"m\u00e9"}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","parentMessageId":"m1"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallName":"search","toolCallId":"c1"}"#,
            r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
            r#"{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"result 1","role":"tool"}"#,
            r#"{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":""}"#,
            r#"{"type":"STEP_STARTED","stepName":"s1"}"#,
            r#"{"type":"STEP_FINISHED","stepName":"s\"1"}"#,
        ] {
            let general = Event::parse_object(text, 0).unwrap();
            assert_eq!(parse_flat(text).map(Parsed::Event), Some(general), "{text}");
        }
        // Any other shape is left to the general path (which reads it, or names its error).
        for text in [
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a","timestamp":1}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a","subagentRunId":"s"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":null}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a","delta":"b"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","toolCallId":"c1","delta":"a"}"#,
            r#"{"type":"TOOL_CALL_ARGS","messageId":"m1","delta":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a","type":"X"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENTS","messageId":"m1","delta":"a"}"#,
            r#"{"messageId":"m1","type":"TEXT_MESSAGE_CONTENT","delta":"a"}"#,
            r#"{ "type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"} x"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a\x"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"robot"}"#,
            r#"{"type":"TEXT_MESSAGE_START","role":"assistant"}"#,
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":null}"#,
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m1","delta":"a"}"#,
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1"}"#,
            r#"{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":[]}"#,
            r#"{"type":"TOOL_CALL_RESULT","messageId":"r1","toolCallId":"c1","content":"x","role":"user"}"#,
            r#"{"type":"STEP_STARTED","stepName":"s1","timestamp":5}"#,
            r#"{"type":"STEP_STARTED"}"#,
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"STEP_STARTED""#,
        ] {
            assert_eq!(parse_flat(text), None, "{text}");
        }
    }
}
