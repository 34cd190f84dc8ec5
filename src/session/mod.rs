//! The execute-and-restart loop as a sans-IO state machine (docs/architecture.md, "The loop as a state machine").
//!
//! One [`Session`] holds every thread of a runtime. Inputs come in through `handle_*` methods and
//! [`Session::start_run`] / [`Session::abort`]; the work the host must do comes out of
//! [`Session::poll_action`]. The session never does I/O, never reads a clock and makes no random
//! ids (a prefix comes in at construction); time comes in as `now` (milliseconds of the host's
//! clock) with [`Session::poll_action`] and [`Session::handle_timeout`]. Per thread, one *turn* is a `run` call: the user's
//! messages plus every restart they cause.
//!
//! Call order for a turn, per thread:
//! 1. [`start_run`](Session::start_run) → [`Action::Send`] (POST the body; [`Action::Emit`]s too).
//!    A host that shapes the body first (the app's `prepareRequest`) reports what it sends with
//!    [`handle_request_prepared`](Session::handle_request_prepared), and sends nothing when that
//!    says no (the round was stopped meanwhile).
//! 2. The response: [`handle_response`](Session::handle_response) with status and content type,
//!    then [`handle_bytes`](Session::handle_bytes) for each chunk of the body, then
//!    [`handle_body_end`](Session::handle_body_end) (or
//!    [`handle_transport_error`](Session::handle_transport_error)).
//! 3. Each [`Action::Execute`] is answered by [`handle_tool_result`](Session::handle_tool_result)
//!    (the host imports the module, asks [`may_call`](Session::may_call), calls it, converts the
//!    value), or by the session itself when its deadline passes: the host keeps one timer for
//!    [`poll_timeout`](Session::poll_timeout) and calls [`handle_timeout`](Session::handle_timeout)
//!    when it fires ([`Action::CancelCall`] then fires that call's signal).
//! 4. When the round's calls are answered, the session restarts (another [`Action::Send`]) or
//!    ends the turn with [`Action::Finished`].
//!
//! [`abort`](Session::abort) may come at any time: [`Action::Cancel`] (abort the fetch, fire the
//! handlers' signal), unanswered calls settled with `INTERRUPTED` results, [`Action::Finished`].
//! Inputs for a round or a call that is over (a late chunk, a late tool result) are ignored.

mod action;
mod advance;
mod agui;
mod body;
mod call_table;
mod calls;
#[cfg(feature = "coder")]
pub mod coder;
#[cfg(feature = "coder")]
mod coder_inputs;
mod config;
mod error;
mod events;
mod inputs;
mod result;
mod shared;
mod thread;
mod tool_set;
mod turn;

pub use action::{Action, RoundRequest, ToolCallJob};
pub use body::{BodySink, RequestBody, TextSink, BODY_PIECE};
pub use config::{HistoryMode, Pending, RunRequest, SessionConfig, DEFAULT_MAX_TOOL_RESULT_BYTES};
pub use error::SessionError;
pub use events::{write_messages_event, write_state_event, ChangedMessages, RuntimeEvent};
pub use result::{RunError, RunResult, RunStatus, ToolErrorInfo};
pub use tool_set::{CallKind, ToolSet};

use std::collections::VecDeque;

use shared::Shared;
use thread::ThreadState;
use turn::Turn;

use crate::lean::sorted::SortedMap;

use crate::json::Value;

use crate::protocol::event::{Interrupt, Message};
use crate::tools::schema::PatternMatcher;

/// What [`Session::forget_thread`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forget {
    /// The thread was dropped.
    Forgotten,
    /// The session held nothing for the thread: nothing changed.
    Unknown,
    /// A turn is going on in the thread: nothing changed.
    Busy,
}

/// The loop's state for every thread: the router. Each input finds its thread once and hands
/// the round two disjoint borrows, what every round shares (`Shared`: the config, the ids, the
/// actions) and the thread's own state; no round sees the session.
pub struct Session {
    shared: Shared,
    threads: SortedMap<ThreadState>,
}

impl Session {
    /// A session. `id_prefix` makes run and tool-message ids unique (the host passes a random
    /// one); `patterns` evaluates JSON Schema `pattern`s.
    pub fn new(
        config: SessionConfig,
        id_prefix: impl Into<String>,
        patterns: Box<dyn PatternMatcher>,
    ) -> Self {
        Self::with_body_sink(config, id_prefix, patterns, Box::new(TextSink::default()))
    }

    /// [`Session::new`] with request bodies written to `body_sink`, a piece at a time
    /// ([`BodySink`]; `new`'s is a [`TextSink`], the text in memory). The browser's host writes
    /// them to JavaScript.
    pub fn with_body_sink(
        config: SessionConfig,
        id_prefix: impl Into<String>,
        patterns: Box<dyn PatternMatcher>,
        body_sink: Box<dyn BodySink>,
    ) -> Self {
        Self {
            shared: Shared {
                config,
                patterns,
                actions: VecDeque::new(),
                unstamped_waits: false,
                agui_events: true,
                id_prefix: id_prefix.into(),
                next_id: 0,
                body_sink,
            },
            threads: SortedMap::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.shared.config
    }

    /// The next piece of work for the host. `now` is the host's clock in milliseconds (any
    /// origin, never going back): an [`Action::Execute`] taken now must be answered by
    /// `now + timeout_ms`, or [`handle_timeout`](Self::handle_timeout) answers it with `TIMEOUT`.
    /// The deadline covers loading the tool's module and the call.
    pub fn poll_action(&mut self, now: u64) -> Option<Action> {
        if self.shared.unstamped_waits {
            self.shared.unstamped_waits = false;
            let waits = self.threads.values_mut().filter_map(|t| t.turn.as_mut());
            for wait in waits.filter_map(|turn| turn.reconnect.as_mut()) {
                wait.deadline
                    .get_or_insert(now.saturating_add(wait.delay_ms));
            }
            #[cfg(feature = "coder")]
            coder::submit::stamp_chat_requests(&mut self.threads, now);
        }
        let action = self.shared.actions.pop_front()?;
        if let Action::Execute(job) = &action {
            if let Some(turn) = self.turn_mut(&job.thread_id) {
                turn.running.stamp(&job.tool_call_id, now);
            }
        }
        Some(action)
    }

    /// The earliest deadline, if any: of a running call, or of the wait before a cut stream is
    /// resumed. The host calls [`handle_timeout`](Self::handle_timeout) once its clock reaches
    /// it; it keeps one timer.
    pub fn poll_timeout(&self) -> Option<u64> {
        let turns = self.threads.values().filter_map(|t| t.turn.as_ref());
        let next = turns
            .flat_map(|turn| {
                let calls = turn.running.deadlines();
                // A Coder submission's POST is awaited until its deadline.
                #[cfg(feature = "coder")]
                let calls = calls.chain(turn.submission_deadline());
                calls.chain(turn.reconnect.as_ref().and_then(|wait| wait.deadline))
            })
            .min();
        // So are a chat's interrupts, its thread's turn over or not.
        #[cfg(feature = "coder")]
        let next = (self.threads.values())
            .filter_map(ThreadState::stop_deadline)
            .chain(next)
            .min();
        next
    }

    /// When the thread's cut stream will be resumed, in the host's clock: `None` when it is not
    /// waiting to be (or the host has not polled since the cut). An app may show "reconnecting".
    pub fn reconnect_deadline(&self, thread_id: &str) -> Option<u64> {
        let turn = self.threads.get(thread_id)?.turn.as_ref()?;
        turn.reconnect.as_ref()?.deadline
    }

    /// A thread's messages (empty for an unknown thread).
    pub fn messages(&self, thread_id: &str) -> &[Message] {
        self.threads
            .get(thread_id)
            .map(|t| t.thread.messages())
            .unwrap_or(&[])
    }

    /// A thread's AG-UI state (`None` for an unknown thread).
    pub fn state(&self, thread_id: &str) -> Option<&Value> {
        self.threads.get(thread_id).map(|t| t.thread.state())
    }

    /// The run id of the thread's current round, while a turn is going on.
    pub fn current_run_id(&self, thread_id: &str) -> Option<&str> {
        let turn = self.threads.get(thread_id)?.turn.as_ref()?;
        Some(turn.run_id.as_str())
    }

    /// Whether the host may still call this call's handler: the call was handed out with
    /// [`Action::Execute`] and has no outcome yet. `false` once the turn was aborted, the call
    /// was answered, or the turn ended. The host asks right before it calls the handler (a module
    /// may finish loading long after Stop): a stopped or timed-out call never runs.
    pub fn may_call(&self, thread_id: &str, tool_call_id: &str) -> bool {
        self.threads
            .get(thread_id)
            .and_then(|t| t.turn.as_ref())
            .is_some_and(|turn| turn.running.contains(tool_call_id))
    }

    /// [`may_call`](Self::may_call), and when it is `true` the host calls the handler right
    /// away: from then on a timeout says the handler took too long to answer, before it that the
    /// module took too long to load.
    pub fn begin_call(&mut self, thread_id: &str, tool_call_id: &str) -> bool {
        self.turn_mut(thread_id)
            .is_some_and(|turn| turn.running.begin(tool_call_id))
    }

    /// The thread's open interrupts, as the server sent them (none for an unknown thread): the
    /// next run must answer each of them in [`RunRequest::resume`].
    pub fn interrupts(&self, thread_id: &str) -> &[Interrupt] {
        self.threads
            .get(thread_id)
            .map_or(&[], |t| t.interrupts.as_slice())
    }

    /// The thread's calls that a run with [`Pending::Run`] runs (none for an unknown thread): the
    /// calls of its last assistant message that have no result and that no open interrupt holds,
    /// in call order (those of backend tools the run leaves to the server). A host that loaded a
    /// history asks it to know whether such a run has anything to run.
    pub fn pending_calls(&self, thread_id: &str) -> Vec<String> {
        let Some(state) = self.threads.get(thread_id) else {
            return Vec::new();
        };
        let held = agui::interrupts::held_calls(&state.interrupts);
        let calls = state.calls_to_run(&held).into_iter();
        calls.map(|call| call.id.clone()).collect()
    }

    /// Drops everything the session holds for a thread that is not running: its messages, state,
    /// open interrupts, the calls it answered and its pending changes. The next
    /// [`start_run`](Self::start_run) of the thread starts from an empty thread, as for a thread
    /// never seen (the host re-seeds a history it keeps with [`set_messages`](Self::set_messages)).
    /// A running thread is kept ([`Forget::Busy`]): the host aborts it first.
    pub fn forget_thread(&mut self, thread_id: &str) -> Forget {
        match self.threads.get(thread_id) {
            None => Forget::Unknown,
            Some(state) if state.turn.is_some() => Forget::Busy,
            Some(_) => {
                let _forgotten = self.threads.remove(thread_id);
                // What Stop owes the server (an interrupt's answer may call for another) is
                // still sent: the chat's requests out outlive the thread.
                #[cfg(feature = "coder")]
                coder::keep_owed(&mut self.threads, thread_id, _forgotten);
                Forget::Forgotten
            }
        }
    }

    /// The handle of the thread's current turn, or of its last one once it ended (until the
    /// thread is forgotten): a number unique in the session, given when the turn starts. A host
    /// keys what it keeps per turn (its fetch, its stream, its promise) by it, so nothing of it
    /// moves when a new Coder chat's turn takes the chat's id: the session moves the thread, and
    /// the handle with it. `None`: the thread never ran.
    pub fn run_handle(&self, thread_id: &str) -> Option<u64> {
        self.threads
            .get(thread_id)
            .map(|t| t.run)
            .filter(|&run| run != 0)
    }

    /// The threads a turn is going on in.
    pub fn running_threads(&self) -> Vec<String> {
        let running = self.threads.iter().filter(|(_, t)| t.turn.is_some());
        running.map(|(id, _)| id.clone()).collect()
    }

    /// The thread whose current or last turn has this [`Session::run_handle`], by the id it has
    /// now.
    #[cfg(feature = "coder")]
    pub fn run_thread(&self, run: u64) -> Option<&str> {
        self.threads
            .iter()
            .find(|(_, t)| t.run == run)
            .map(|(id, _)| id.as_str())
    }

    /// Whether a turn is going on in the thread.
    pub fn is_running(&self, thread_id: &str) -> bool {
        self.threads
            .get(thread_id)
            .is_some_and(|t| t.turn.is_some())
    }

    /// Seeds a loaded thread's history. The server is taken to know these messages, and calls
    /// they already answer are never executed again.
    pub fn set_messages(
        &mut self,
        thread_id: &str,
        messages: Vec<Message>,
    ) -> Result<(), SessionError> {
        let state = self
            .threads
            .get_or_insert_with(thread_id, ThreadState::default);
        if state.turn.is_some() {
            return Err(SessionError::Busy {
                thread_id: thread_id.to_owned(),
            });
        }
        for message in &messages {
            if let Message::Tool(tool) = message {
                state.handled.insert(tool.tool_call_id.clone());
            }
        }
        state.thread.set_messages(messages);
        state.unsent.clear();
        state.changes.all = true;
        Ok(())
    }

    /// The messages changed since the last call, for coalesced rendering: `None` when nothing
    /// changed, all of them when the list changed wholesale.
    pub fn take_changed(&mut self, thread_id: &str) -> Option<Vec<Message>> {
        let changed = self.take_changed_positions(thread_id)?;
        let messages = self.threads.get(thread_id)?.thread.messages();
        Some(
            changed
                .positions
                .into_iter()
                .map(|at| messages[at].clone())
                .collect(),
        )
    }

    /// Whether the thread's AG-UI state changed since the last call (`STATE_SNAPSHOT`,
    /// `STATE_DELTA`, a run request's `state`), for a coalesced `state` event.
    pub fn take_state_changed(&mut self, thread_id: &str) -> bool {
        self.threads
            .get_mut(thread_id)
            .is_some_and(|state| std::mem::take(&mut state.changes.state))
    }

    /// Whether bytes of the thread's current stream arrived since the last call (any bytes: events
    /// the thread shows nothing for, like `STATE_DELTA` or `STEP_STARTED`, and SSE comments), for a
    /// coalesced [`RuntimeEvent::Activity`].
    pub fn take_activity(&mut self, thread_id: &str) -> bool {
        self.threads
            .get_mut(thread_id)
            .is_some_and(|state| std::mem::take(&mut state.active))
    }

    /// [`take_changed`](Self::take_changed) as positions in the thread's messages, for a host
    /// that keeps its own copy of the messages up to date.
    pub fn take_changed_positions(&mut self, thread_id: &str) -> Option<ChangedMessages> {
        let state = self.threads.get_mut(thread_id)?;
        let len = state.thread.messages().len();
        // Messages at `seen..` came since the last take (fewer than `seen`: some went, which
        // marks the whole list).
        let seen = state.changes.seen.min(len);
        if !state.changes.all && state.changes.ids.is_empty() && seen == len {
            return None;
        }
        let positions = if state.changes.all {
            (0..len).collect()
        } else {
            // O(changed), not O(thread): each frame of a long thread looks up only what changed.
            let mut positions: Vec<usize> = state
                .changes
                .ids
                .iter()
                .filter_map(|id| state.thread.position(id))
                .filter(|&at| at < seen)
                .collect();
            crate::lean::sort::sort(&mut positions);
            positions.dedup();
            positions.extend(seen..len);
            positions
        };
        let all = state.changes.all;
        state.changes.ids.clear();
        state.changes.all = false;
        state.changes.seen = len;
        Some(ChangedMessages {
            positions,
            all,
            len,
        })
    }

    /// Whether each AG-UI event as it arrived is emitted as [`RuntimeEvent::Agui`] (on by
    /// default). A host whose listeners do not want them turns this off, and the stream then costs
    /// no per-event action: consecutive deltas of one message or tool call are even folded in as
    /// one (the thread is the same).
    pub fn set_agui_events(&mut self, on: bool) {
        self.shared.agui_events = on;
    }

    // ---- internals ----------------------------------------------------------------------

    fn turn_mut(&mut self, thread_id: &str) -> Option<&mut Turn> {
        self.threads.get_mut(thread_id)?.turn.as_mut()
    }
}
