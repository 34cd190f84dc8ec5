//! Why an event could not be applied: [`ReduceError`], and the [`Fault`] it is built from.

use crate::json::patch::PatchError;
use crate::protocol::event::Event;

/// Why an event could not be applied. The thread is left as it was (except as noted on
/// [`ReduceError::ActivityPatch`]); the TS client logs these as warnings and continues.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReduceError {
    /// A `*_CONTENT` / `*_END` event names a message the thread does not have.
    #[error("{event_type}: no message with id `{message_id}`")]
    UnknownMessage {
        /// The event's `type`.
        event_type: String,
        /// The id it named.
        message_id: String,
    },
    /// `TOOL_CALL_ARGS` / `TOOL_CALL_END` names a tool call the thread does not have.
    #[error("{event_type}: no tool call with id `{tool_call_id}`")]
    UnknownToolCall {
        /// The event's `type`.
        event_type: String,
        /// The id it named.
        tool_call_id: String,
    },
    /// A text or reasoning event reuses the id of an activity message; it is dropped.
    #[error(
        "{event_type}: message `{message_id}` is an activity message; message ids must be unique"
    )]
    ActivityIdReused {
        /// The event's `type`.
        event_type: String,
        /// The reused id.
        message_id: String,
    },
    /// `ACTIVITY_DELTA` names a message that is not an activity message.
    #[error("ACTIVITY_DELTA: message `{message_id}` is not an activity message")]
    NotActivity {
        /// The id it named.
        message_id: String,
    },
    /// A `STATE_DELTA` patch failed; the state is unchanged.
    #[error("state patch failed, state unchanged: {message}")]
    StatePatch {
        /// What failed (operation index, path, reason).
        message: String,
    },
    /// An `ACTIVITY_DELTA` patch failed, or did not leave an object; the content is unchanged.
    /// The event's metadata *was* merged onto the message, as in the TS client (`default.ts`:
    /// "Metadata does not depend on the patch succeeding").
    #[error("activity patch for `{message_id}` failed, content unchanged: {message}")]
    ActivityPatch {
        /// The activity message's id.
        message_id: String,
        /// What failed.
        message: String,
    },
}

/// A [`ReduceError`] before its texts are written: the ids borrow the event.
#[derive(Debug)]
pub(crate) enum Fault<'a> {
    UnknownMessage(&'a str),
    UnknownToolCall(&'a str),
    ActivityIdReused(&'a str),
    NotActivity(&'a str),
    StatePatch(PatchError),
    /// `None`: the patch applied but did not leave an object.
    ActivityPatch(&'a str, Option<PatchError>),
}

impl Fault<'_> {
    pub(super) fn into_error(self, event: &Event) -> ReduceError {
        let event_type = || event.type_name().to_owned();
        match self {
            Fault::UnknownMessage(id) => ReduceError::UnknownMessage {
                event_type: event_type(),
                message_id: id.to_owned(),
            },
            Fault::UnknownToolCall(id) => ReduceError::UnknownToolCall {
                event_type: event_type(),
                tool_call_id: id.to_owned(),
            },
            Fault::ActivityIdReused(id) => ReduceError::ActivityIdReused {
                event_type: event_type(),
                message_id: id.to_owned(),
            },
            Fault::NotActivity(id) => ReduceError::NotActivity {
                message_id: id.to_owned(),
            },
            Fault::StatePatch(error) => ReduceError::StatePatch {
                message: error.to_string(),
            },
            Fault::ActivityPatch(id, error) => ReduceError::ActivityPatch {
                message_id: id.to_owned(),
                message: match error {
                    Some(error) => error.to_string(),
                    None => "the patched content is not an object".to_owned(),
                },
            },
        }
    }
}
