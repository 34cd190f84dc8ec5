//! One thread's lasting state in the session ([`ThreadState`]): its messages, the calls it
//! answered, its open interrupts, what changed since the host last looked, and its turn; a
//! call's result put into it ([`record_result`]).

#[cfg(feature = "coder")]
use super::coder::round::ChatState;
use super::shared::Shared;
use super::turn::Turn;

use crate::lean::hash::HashSet;
use crate::protocol::event::{Content, Interrupt, Message, RareFields, ToolCall, ToolMessage};
use crate::protocol::thread::Thread;
use crate::tools::outcome::ToolOutcome;

/// One thread's lasting state.
#[derive(Default)]
pub(super) struct ThreadState {
    pub(super) thread: Thread,
    /// Every tool call this thread ever executed or answered locally: exactly once per id.
    pub(super) handled: HashSet<String>,
    /// Message ids the server has not seen yet (for [`HistoryMode::New`]).
    pub(super) unsent: Vec<String>,
    /// What changed since the host last took the changes.
    pub(super) changes: Changes,
    /// Whether bytes of the current round's body arrived since the host last asked: a flag per
    /// chunk, so a long stream costs nothing more (see `Session::take_activity`).
    pub(super) active: bool,
    /// The open interrupts: those of the last `RUN_FINISHED` whose outcome was `interrupt`,
    /// until a later `RUN_FINISHED` (of a run that answered them).
    pub(super) interrupts: Vec<Interrupt>,
    /// The turn in progress.
    pub(super) turn: Option<Turn>,
    /// The handle of the thread's latest turn ([`Session::run_handle`](super::Session::run_handle)):
    /// a number unique in the session, set when the turn starts and kept after it ends, so it
    /// follows the thread when a new chat takes its id. `0`: the thread never ran.
    pub(super) run: u64,
    /// The Coder chat behind the thread, with a Coder backend.
    #[cfg(feature = "coder")]
    pub(super) chat: Option<Box<ChatState>>,
}

impl ThreadState {
    /// The calls a turn started with [`Pending::Run`](super::Pending::Run) runs (backend tools
    /// aside: the server's): those of the thread's last assistant message that have no result
    /// and that no open interrupt holds (`held`), in call order.
    pub(super) fn calls_to_run(&self, held: &[String]) -> Vec<&ToolCall> {
        let last = self.thread.messages().iter().rev().find_map(|m| match m {
            Message::Assistant(a) => Some(a),
            _ => None,
        });
        let mut calls = Vec::new();
        for call in last
            .and_then(|a| a.tool_calls.as_ref())
            .into_iter()
            .flatten()
        {
            if !self.handled.contains(&call.id) && !held.contains(&call.id) {
                calls.push(call);
            }
        }
        calls
    }
}

/// What changed in a thread since the host last took the changes (for coalesced rendering).
#[derive(Default)]
pub(super) struct Changes {
    /// Ids of messages changed in place that were in the list at the last take (positions
    /// below `seen`); messages added since are not listed, they are all of `seen..`.
    pub(super) ids: Vec<String>,
    /// How many messages the list had when the changes were last taken: every message at or
    /// after it is new since, and goes out with the next take without an id listed for it (a
    /// stream that adds thousands of messages between two frames lists none of them).
    pub(super) seen: usize,
    /// Whether the whole list changed.
    pub(super) all: bool,
    /// Whether the AG-UI state changed.
    pub(super) state: bool,
}

/// Puts a tool message for the call into the thread, where the agent expects it.
pub(super) fn record_result(
    sh: &mut Shared,
    state: &mut ThreadState,
    tool_call_id: &str,
    outcome: &ToolOutcome,
) {
    let id = sh.next_id("tool");
    state.handled.insert(tool_call_id.to_owned());
    state.unsent.push(id.clone());
    let at = state.thread.insert_tool_result(ToolMessage {
        id,
        content: Content::Text(outcome.content()),
        tool_call_id: tool_call_id.to_owned(),
        rare: RareFields {
            error: outcome.error(),
            ..RareFields::default()
        }
        .boxed(),
    });
    if at < state.changes.seen {
        // Placed before messages already handed out (right after its assistant message).
        state.changes.all = true;
    }
}
