//! What every backend's turn has, as data ([`Turn`], [`Round`], one reconnect wait and one
//! backoff). How a turn goes on or ends is `advance.rs`, above the rounds.

use super::agui::round::{AguiRound, Phase};
use super::call_table::CallTable;
#[cfg(feature = "coder")]
use super::coder::round::ChatRound;
use super::tool_set::ToolSet;

use crate::lean::sorted::{IdSet, StrSet};

use crate::protocol::decode::EventDecoder;
use crate::protocol::event::{Message, ToolCall};
use crate::protocol::thread::PendingCall;
use crate::tools::outcome::ToolOutcome;

/// A `run` call in progress: what every backend's turn has, and its round ([`Round`]).
pub(super) struct Turn {
    /// What the agent may call, resolved when the turn started.
    pub(super) tools: ToolSet,
    /// Ids of the messages that were in the thread before the turn (for `newMessages`).
    pub(super) before: IdSet,
    /// The calls open interrupts named when the turn started: the server's, so the end of the
    /// turn does not settle them even when its run closed those interrupts.
    pub(super) held_before: Vec<String>,
    /// Rounds so far (AG-UI: runs sent; Coder: the message and each submission).
    pub(super) round: u32,
    /// The current round's run id.
    pub(super) run_id: String,
    /// The call table: calls the host is running, by id, with their deadlines.
    pub(super) running: CallTable,
    /// A cut stream waiting to be resumed (either backend's): its deadline is the session's.
    pub(super) reconnect: Option<ReconnectWait>,
    /// What the backend keeps of the turn.
    pub(super) backend: Round,
}

/// What differs between the backends in a turn: each backend's round, in its own room
/// (`agui/`, and `coder/` with the `coder` feature). The AG-UI round is held inline, as before
/// the Coder one existed (a turn is one per running thread; boxing it would cost an allocation per
/// turn on the path every AG-UI app takes), the Coder one boxed.
#[allow(clippy::large_enum_variant)]
pub(super) enum Round {
    /// Runs of an AG-UI agent, restarted with the tool results.
    Agui(AguiRound),
    /// A Coder chat's turn: one stream, read until the chat is idle again, and one submission
    /// per batch of calls.
    #[cfg(feature = "coder")]
    Coder(Box<ChatRound>),
}

/// The wait before a cut stream is resumed (`Session::poll_timeout` and
/// `Session::handle_timeout`, the same clock as the calls' deadlines): one wait for both
/// backends.
pub(super) struct ReconnectWait {
    /// The id of the last complete event received (AG-UI's `Last-Event-ID`; empty for Coder,
    /// whose stream resumes after the last committed message).
    pub(super) last_event_id: String,
    /// How long to wait, in milliseconds.
    pub(super) delay_ms: u64,
    /// When to resume in the host's clock: set by the first `Session::poll_action` after the
    /// cut (its `now`), as a call's deadline is.
    pub(super) deadline: Option<u64>,
}

/// The one backoff of both backends: `base`, doubled for each attempt in a row.
pub(super) fn backoff(base: u64, attempt: u32) -> u64 {
    base.saturating_mul(1 << attempt.min(16))
}

impl Turn {
    /// The AG-UI round, for an AG-UI turn.
    pub(super) fn agui(&mut self) -> Option<&mut AguiRound> {
        match &mut self.backend {
            Round::Agui(round) => Some(round),
            #[cfg(feature = "coder")]
            Round::Coder(_) => None,
        }
    }

    /// The current round's response decoder, while an AG-UI run's body streams in.
    pub(super) fn decoder(&mut self) -> Option<&mut EventDecoder> {
        self.agui()?.decoder()
    }

    /// The current round's follow-up calls and their outcomes, once its stream has ended.
    pub(super) fn answers_mut(&mut self) -> Option<&mut Vec<(PendingCall, Option<ToolOutcome>)>> {
        match &mut self.backend {
            Round::Agui(AguiRound {
                phase: Phase::Answering { answers, .. },
                ..
            }) => Some(answers),
            Round::Agui(_) => None,
            #[cfg(feature = "coder")]
            Round::Coder(round) => Some(&mut round.answers),
        }
    }

    /// A cut stream waits `delay_ms` before it is resumed; the session stamps its deadline at the
    /// host's next `poll_action` (`Session::unstamped_waits`).
    pub(super) fn wait_to_reconnect(&mut self, last_event_id: String, delay_ms: u64) {
        self.reconnect = Some(ReconnectWait {
            last_event_id,
            delay_ms,
            deadline: None,
        });
    }
}

/// The ids of tool calls that no tool message answers, in thread order.
pub(super) fn unanswered_calls(messages: &[Message]) -> Vec<String> {
    // A thread as it streams answers its calls in their order, one tool message each: then none
    // is unanswered, seen in one pass with no set (the set below sorted every call id of the
    // thread at the end of each run: 20,000 ids, about 9 ms, at the end of a 20 MB mixed stream).
    let mut answers = messages.iter().filter_map(|message| match message {
        Message::Tool(t) => Some(t.tool_call_id.as_str()),
        _ => None,
    });
    let in_order = messages.iter().all(|m| {
        tool_calls(m)
            .iter()
            .all(|call| answers.next() == Some(&call.id))
    });
    if in_order && answers.next().is_none() {
        return Vec::new();
    }
    let mut answered = Vec::new();
    for message in messages {
        if let Message::Tool(t) = message {
            answered.push(t.tool_call_id.as_str());
        }
    }
    let answered = StrSet::new(answered);
    let mut ids = Vec::new();
    for message in messages {
        for call in tool_calls(message) {
            if !answered.contains(call.id.as_str()) {
                ids.push(call.id.clone());
            }
        }
    }
    ids
}

/// The tool calls of a message: an assistant message's, none for the others.
fn tool_calls(message: &Message) -> &[ToolCall] {
    match message {
        Message::Assistant(a) => a.tool_calls.as_deref().unwrap_or_default(),
        _ => &[],
    }
}

/// The ids of the thread's messages: what a turn's `before` holds (for `newMessages`). In one
/// buffer ([`IdSet`]): the whole thread's ids as a hash set of `String`s, built at every turn,
/// were a long chat's largest passing cost in the heap.
pub(super) fn message_ids(messages: &[Message]) -> IdSet {
    IdSet::new(messages.iter().map(Message::id).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Value;
    use crate::protocol::wire::FromJson;

    fn thread(spec: &str) -> Vec<Message> {
        // `a:c1,c2` an assistant message with those calls, `t:c1` a tool message answering c1.
        spec.split(' ')
            .enumerate()
            .map(|(n, m)| {
                let (kind, ids) = m.split_once(':').unwrap();
                let json = match kind {
                    "a" => {
                        let calls: Vec<String> = ids
                            .split(',')
                            .map(|id| {
                                format!(
                                    r#"{{"id":"{id}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}"#
                                )
                            })
                            .collect();
                        format!(r#"{{"id":"m{n}","role":"assistant","toolCalls":[{}]}}"#, calls.join(","))
                    }
                    _ => format!(r#"{{"id":"m{n}","role":"tool","content":"ok","toolCallId":"{ids}"}}"#),
                };
                Message::from_json(Value::parse(&json).unwrap()).unwrap()
            })
            .collect()
    }

    #[test]
    fn unanswered_calls_in_order_out_of_order_and_missing() {
        for (spec, expected) in [
            ("a:c1,c2 t:c1 t:c2 a:c3 t:c3", &[][..]),
            ("a:c1,c2 t:c2 t:c1", &[]),
            ("a:c1,c2 t:c1", &["c2"]),
            ("a:c1,c2 t:c1 a:c3", &["c2", "c3"]),
            ("a:c1 t:x", &["c1"]),
            ("a:c1 t:c1 t:c1", &[]),
            ("a:c1 a:c1 t:c1", &[]),
            ("t:c1 a:c1", &[]),
            ("a:c2,c1 t:c1", &["c2"]),
        ] {
            assert_eq!(unanswered_calls(&thread(spec)), expected, "{spec}");
        }
    }
}
