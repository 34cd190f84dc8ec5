//! The events for the app's listeners, declared once in the [`runtime_events!`] table:
//! [`RuntimeEvent`], its `type` names, its JSON writer, and the writers of the two events a host
//! sends from borrowed values ([`write_messages_event`], [`write_state_event`]); also
//! [`ChangedMessages`].
//!
//! `tests/runtime_events.rs` holds the table to `src/wasm/types.d.ts`'s `RuntimeEvent` union and to
//! the React adapter's list of the events it subscribes to, so adding an event is one row here
//! (then its declaration, which that test names when it is missing).

use super::result::{RunError, RunStatus, ToolErrorInfo};

use crate::json::Value;

use crate::protocol::event::{Event, Interrupt, Message};
use crate::protocol::wire::{ObjWriter, ToJson};

/// The runtime's events: the enum, [`RuntimeEvent::KINDS`], [`RuntimeEvent::FIELDS`],
/// [`RuntimeEvent::kind`] and the writer come from one table. A row: the variant's docs, the
/// variant, its `type`, then each field with its wire name; a field marked `nullable` is written
/// as `null` when it is `None` (any other `None` is left out). A row with a `[cfg]` after its
/// `type` (`[feature = "coder"]`: the events only the Coder backend emits) has its variant, and
/// so its writer, only in that build; a field with one before its type is a member only that
/// build writes. `KINDS` and `FIELDS` list every row and field in both builds (the package's
/// `types.d.ts` is one file).
macro_rules! runtime_events {
    (
        $(
            $(#[$doc:meta])* $variant:ident $kind:literal $([$cfg:meta])? {
                $(
                    $(#[$fdoc:meta])* $field:ident $wire:literal $($nullable:ident)?
                    $([$fcfg:meta])? : $ty:ty
                ),* $(,)?
            }
        )*
    ) => {
        /// An event for the app's listeners.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum RuntimeEvent {
            $(
                $(#[$doc])* $(#[cfg($cfg)])?
                $variant { $( $(#[$fdoc])* $(#[cfg($fcfg)])? $field: $ty, )* },
            )*
        }

        impl RuntimeEvent {
            /// Every event `type`, in the table's order.
            pub const KINDS: &'static [&'static str] = &[$($kind),*];

            /// Each event `type` with the wire names of its fields, in the table's order.
            pub const FIELDS: &'static [(&'static str, &'static [&'static str])] =
                &[$( ($kind, &[$($wire),*]) ),*];

            /// The event's `type` as listeners see it (`"agui"`, `"messages"`, ...).
            pub fn kind(&self) -> &'static str {
                match self {
                    $( $(#[cfg($cfg)])? RuntimeEvent::$variant { .. } => $kind, )*
                }
            }
        }

        /// `{"type":"tool_finished","threadId":...}`: `type` first, then the fields in the
        /// table's order.
        impl ToJson for RuntimeEvent {
            fn write_json(&self, out: &mut String) {
                let mut w = ObjWriter::new(out);
                w.field("type", self.kind());
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        RuntimeEvent::$variant { $( $(#[cfg($fcfg)])? $field ),* } => {
                            $(
                                $(#[cfg($fcfg)])?
                                runtime_events!(@write w $wire $field $($nullable)?);
                            )*
                        }
                    )*
                }
                w.end();
            }
        }
    };
    (@write $w:ident $wire:literal $field:ident) => { $w.field($wire, $field) };
    (@write $w:ident $wire:literal $field:ident nullable) => { $w.nullable($wire, $field) };
}

runtime_events! {
    /// An AG-UI event as it arrived.
    Agui "agui" {
        /// The thread.
        thread_id "threadId": String,
        /// The run (the `runId` this client sent).
        run_id "runId": String,
        /// The event, wire-shaped.
        event "event": Event,
    }
    /// A run request is going out.
    RoundStarted "round_started" {
        /// The thread.
        thread_id "threadId": String,
        /// The run.
        run_id "runId": String,
        /// 1 for the user's run, 2 for the first restart, ...
        round "round": u32,
    }
    /// A browser tool is starting.
    ToolStarted "tool_started" {
        /// The thread.
        thread_id "threadId": String,
        /// The run whose call this is.
        run_id "runId": String,
        /// The call.
        tool_call_id "toolCallId": String,
        /// The tool (without any prefix).
        tool_name "toolName": String,
        /// The parsed arguments.
        args "args": Value,
    }
    /// A browser tool finished, or a call was answered with an error without running.
    ToolFinished "tool_finished" {
        /// The thread.
        thread_id "threadId": String,
        /// The run whose call this is.
        run_id "runId": String,
        /// The call.
        tool_call_id "toolCallId": String,
        /// The tool called.
        tool_name "toolName": String,
        /// The value, when it succeeded.
        result "result": Option<Value>,
        /// The failure, when it failed.
        error "error": Option<ToolErrorInfo>,
    }
    /// Messages changed (coalesced by the host, at most once per animation frame): only the
    /// messages that changed, or all of them when the list was replaced wholesale. Not emitted by
    /// the session itself; a host sends it from borrowed messages with [`write_messages_event`].
    Messages "messages" {
        /// The thread.
        thread_id "threadId": String,
        /// The changed messages, in thread order; the whole list with `replace`.
        messages "messages": Vec<Message>,
        /// `Some(true)`: the thread's list was replaced wholesale ([`ChangedMessages::all`]: a
        /// snapshot, `set_messages`, a Coder chat's committed copies in place of its previews):
        /// `messages` is all of it, and a message it does not name is gone.
        replace "replace": Option<bool>,
    }
    /// The thread's AG-UI state changed (coalesced by the host, at most once per animation
    /// frame). Not emitted by the session itself; a host sends it from the borrowed state with
    /// [`write_state_event`].
    State "state" {
        /// The thread.
        thread_id "threadId": String,
        /// The state now.
        state "state": Value,
    }
    /// Bytes of the thread's stream arrived since the last one (coalesced by the host, at most
    /// once per animation frame, see [`Session::take_activity`](super::Session::take_activity)):
    /// a stream of only `STATE_*` or `STEP_*` events, or a server's keep-alive comments, is live.
    /// Not emitted by the session itself.
    Activity "activity" {
        /// The thread.
        thread_id "threadId": String,
        /// When the host saw it, in the host's clock (ms).
        at "at": u64,
        /// Coder: the chat's stream closed and is being reconnected, this attempt (from 1) in
        /// a row; the next `activity` without it is the stream back.
        reconnecting "reconnecting" [feature = "coder"]: Option<i64>,
        /// Coder: the wait before that attempt, in milliseconds.
        delay_ms "delayMs" [feature = "coder"]: Option<i64>,
    }
    /// A thread's toggles changed (here or in another tab). Not emitted by the session itself.
    TogglesChanged "toggles_changed" {
        /// The thread, or `None` (written `null`) for the default toggles of new chats.
        thread_id "threadId" nullable: Option<String>,
    }
    /// The tool list changed (manifest loaded, tool registered, backend tools set). Not emitted
    /// by the session itself.
    ToolsChanged "tools_changed" {}
    /// Something was skipped or fell back, and the app may want to show it. Not emitted by the
    /// session itself.
    Diagnostic "diagnostic" {
        /// What happened.
        diagnostic "diagnostic": crate::tools::Diagnostic,
    }
    /// A Coder chat was created for a run started without a chat id: the thread is the chat's
    /// from now on (its messages, toggles and events).
    ThreadCreated "thread_created" [feature = "coder"] {
        /// The chat's id.
        thread_id "threadId": String,
        /// The id the run started under (the app's `threadId` with `newChat`, else the
        /// runtime's own).
        previous_thread_id "previousThreadId": String,
    }
    /// A Coder chat's server retries its model call (the chat's `retry` event): the turn goes on.
    Retry "retry" [feature = "coder"] {
        /// The thread (the chat).
        thread_id "threadId": String,
        /// The attempt, from 1.
        attempt "attempt": i64,
        /// The wait before it, in milliseconds.
        delay_ms "delayMs": i64,
        /// The failed attempt's error.
        error "error": String,
        /// Why (`overloaded`, `rate_limit`, ...).
        kind "kind": Option<String>,
        /// The model provider.
        provider "provider": Option<String>,
        /// The provider's HTTP status.
        status_code "statusCode": Option<i64>,
        /// When the attempt is made (RFC 3339).
        retrying_at "retryingAt": Option<String>,
    }
    /// A Coder chat's title, as each answer of the chat the runtime reads says it (its
    /// creation, a Stop's interrupt, a status read): coderd's stream does not carry it.
    Title "title" [feature = "coder"] {
        /// The thread (the chat).
        thread_id "threadId": String,
        /// The title.
        title "title": String,
    }
    /// A Coder chat's queue of messages waiting for the turn to end (the stream's
    /// `queue_update`): the whole queue, as coderd sent it (`ChatQueuedMessage`s).
    QueueUpdate "queue_update" [feature = "coder"] {
        /// The thread (the chat).
        thread_id "threadId": String,
        /// The queue, whole (empty: none waits).
        queued_messages "queuedMessages": Value,
    }
    /// A Coder chat's error (the stream's `error` event, which is the chat's `last_error`),
    /// also when it does not end a run of this page (a chat found in error on connect).
    LastError "last_error" [feature = "coder"] {
        /// The thread (the chat).
        thread_id "threadId": String,
        /// Coder's message.
        message "message": String,
        /// `kind`, `retryable`, `provider`, `statusCode`, `detail` (as a run's `coder/error`).
        details "details": Value,
    }
    /// A turn ended (the same moment [`Action::Finished`](super::Action::Finished) is emitted).
    RunFinished "run_finished" {
        /// The thread.
        thread_id "threadId": String,
        /// How it ended.
        status "status": RunStatus,
        /// How many runs were sent.
        rounds "rounds": u32,
        /// Why it failed.
        error "error": Option<RunError>,
        /// The open interrupts, for `interrupted`.
        interrupts "interrupts": Option<Vec<Interrupt>>,
    }
}

/// The JSON of a [`RuntimeEvent::Messages`] from borrowed messages (a host that sends the event
/// without building it writes it here, in the same shape; `tests/runtime_events.rs` compares).
pub fn write_messages_event<M: ToJson>(
    out: &mut String,
    thread_id: &str,
    messages: &[M],
    replace: bool,
) {
    let mut w = ObjWriter::new(out);
    w.field("type", "messages");
    w.field("threadId", thread_id);
    w.field("messages", messages);
    if replace {
        w.field("replace", &true);
    }
    w.end();
}

/// The JSON of a [`RuntimeEvent::State`] from the borrowed state (in the same shape).
pub fn write_state_event(out: &mut String, thread_id: &str, state: &Value) {
    let mut w = ObjWriter::new(out);
    w.field("type", "state");
    w.field("threadId", thread_id);
    w.field("state", state);
    w.end();
}

/// The messages of a thread that changed since the last [`Session::take_changed_positions`](super::Session::take_changed_positions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedMessages {
    /// Their positions in the thread, ascending.
    pub positions: Vec<usize>,
    /// Every message changed (a snapshot, `set_messages`, or a message inserted before others):
    /// `positions` is `0..len` and a copy kept by position must be rebuilt. Otherwise each
    /// position is a message changed in place or appended at the end: positions past the
    /// previous length are exactly the appended messages.
    pub all: bool,
    /// The thread's length now.
    pub len: usize,
}
