//! One event read from the `data` of an SSE frame ([`Event::parse`]: a 1.0 event, an unknown
//! one kept whole, or a legacy `THINKING_*` one still to be translated) and written back.

use crate::json::{parse_string_members, parse_tagged_object, Value};
use crate::protocol::wire::{FieldError, Fields, ObjWriter, ToJson};

use super::table::{Event, TextMessageContent, ToolCallArgs, UnknownEvent};

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
        match parse_delta(data) {
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

/// The two events a stream sends most, `TEXT_MESSAGE_CONTENT` and `TOOL_CALL_ARGS`, in their
/// usual shape (`type` first, then the id and `delta`, all strings, nothing else), read without
/// the members, values and field look-ups of the general path: the event it would read.
/// `None` for any other text, which the general path reads.
fn parse_delta(data: &str) -> Option<Event> {
    let ty = data.strip_prefix("{\"type\":\"")?;
    let text = ty.starts_with("TEXT_MESSAGE_CONTENT\"");
    if !text && !ty.starts_with("TOOL_CALL_ARGS\"") {
        return None;
    }
    let mut slots = [
        ("type", None),
        ("delta", None),
        (if text { "messageId" } else { "toolCallId" }, None),
    ];
    parse_string_members(data, &mut slots)?;
    // `type` is the prefix's (a second one is a repeated member: the general path's).
    let [_, (_, delta), (_, id)] = slots;
    let (delta, id) = (delta?.into_owned(), id?.into_owned());
    Some(if text {
        Event::TextMessageContent(TextMessageContent {
            message_id: id,
            delta,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id: None,
        })
    } else {
        Event::ToolCallArgs(ToolCallArgs {
            tool_call_id: id,
            delta,
            timestamp: None,
            raw_event: None,
            metadata: None,
            subagent_run_id: None,
        })
    })
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
    fn a_delta_in_its_usual_shape_is_the_event_the_general_path_reads() {
        for text in [
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"word0 "}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"","messageId":"m1"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT", "messageId" : "m\u0031" ,"delta":"a\nb\u00e9\ud800\"" }"#,
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"q\":1}"}"#,
            r#"{"type":"TOOL_CALL_ARGS","delta":"x","too\u006cCallId":"c1"}"#,
        ] {
            let general = Event::parse_object(text, 0).unwrap();
            assert_eq!(
                parse_delta(text).map(Parsed::Event),
                Some(general),
                "{text}"
            );
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
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
        ] {
            assert_eq!(parse_delta(text), None, "{text}");
        }
    }
}
