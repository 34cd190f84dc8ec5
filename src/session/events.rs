//! The events for the app's listeners: [`RuntimeEvent`] and its JSON writer,
//! [`write_messages_event`], [`ChangedMessages`].

use super::result::{RunError, RunStatus, ToolErrorInfo};

use crate::json::Value;

use crate::protocol::event::{Event, Interrupt, Message};
use crate::protocol::wire::{ObjWriter, ToJson};

/// An event for the app's listeners.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RuntimeEvent {
    /// An AG-UI event as it arrived.
    Agui {
        /// The thread.
        thread_id: String,
        /// The run (the `runId` this client sent).
        run_id: String,
        /// The event, wire-shaped.
        event: Event,
    },
    /// A run request is going out.
    RoundStarted {
        /// The thread.
        thread_id: String,
        /// The run.
        run_id: String,
        /// 1 for the user's run, 2 for the first restart, ...
        round: u32,
    },
    /// A browser tool is starting.
    ToolStarted {
        /// The thread.
        thread_id: String,
        /// The run whose call this is.
        run_id: String,
        /// The call.
        tool_call_id: String,
        /// The tool (without any prefix).
        tool_name: String,
        /// The parsed arguments.
        args: Value,
    },
    /// A browser tool finished, or a call was answered with an error without running.
    ToolFinished {
        /// The thread.
        thread_id: String,
        /// The run whose call this is.
        run_id: String,
        /// The call.
        tool_call_id: String,
        /// The tool called.
        tool_name: String,
        /// The value, when it succeeded.
        result: Option<Value>,
        /// The failure, when it failed.
        error: Option<ToolErrorInfo>,
    },
    /// Messages changed (coalesced by the host, at most once per animation frame): only the
    /// messages that changed, or all of them after a snapshot. Not emitted by the session itself.
    Messages {
        /// The thread.
        thread_id: String,
        /// The changed messages, in thread order.
        messages: Vec<Message>,
    },
    /// Bytes of the thread's stream arrived since the last one (coalesced by the host, at most once
    /// per animation frame, see [`Session::take_activity`](super::Session::take_activity)): a stream of only `STATE_*` or
    /// `STEP_*` events, or a server's keep-alive comments, is live. `at` is the host's clock (ms).
    /// Not emitted by the session itself.
    Activity {
        /// The thread.
        thread_id: String,
        /// When the host saw it, in the host's clock (ms).
        at: u64,
    },
    /// A thread's toggles changed (here or in another tab). Not emitted by the session itself.
    TogglesChanged {
        /// The thread, or `None` for the default toggles of new chats.
        thread_id: Option<String>,
    },
    /// The tool list changed (manifest loaded, tool registered, backend tools set). Not emitted
    /// by the session itself.
    ToolsChanged {},
    /// Something was skipped or fell back, and the app may want to show it. Not emitted by the
    /// session itself.
    Diagnostic {
        /// What happened.
        diagnostic: crate::tools::Diagnostic,
    },
    /// A turn ended (the same moment [`Action::Finished`](super::Action::Finished) is emitted).
    RunFinished {
        /// The thread.
        thread_id: String,
        /// How it ended.
        status: RunStatus,
        /// How many runs were sent.
        rounds: u32,
        /// Why it failed.
        error: Option<RunError>,
        /// The open interrupts, for `interrupted`.
        interrupts: Option<Vec<Interrupt>>,
    },
}

impl RuntimeEvent {
    /// The event's `type` as listeners see it (`"agui"`, `"messages"`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            RuntimeEvent::Agui { .. } => "agui",
            RuntimeEvent::RoundStarted { .. } => "round_started",
            RuntimeEvent::ToolStarted { .. } => "tool_started",
            RuntimeEvent::ToolFinished { .. } => "tool_finished",
            RuntimeEvent::Messages { .. } => "messages",
            RuntimeEvent::Activity { .. } => "activity",
            RuntimeEvent::TogglesChanged { .. } => "toggles_changed",
            RuntimeEvent::ToolsChanged {} => "tools_changed",
            RuntimeEvent::Diagnostic { .. } => "diagnostic",
            RuntimeEvent::RunFinished { .. } => "run_finished",
        }
    }
}

/// The JSON of a [`RuntimeEvent::Messages`] from borrowed messages (a host that sends the event
/// without building it writes it here, in the same shape).
pub fn write_messages_event<M: ToJson>(out: &mut String, thread_id: &str, messages: &[M]) {
    let mut w = ObjWriter::new(out);
    w.field("type", "messages");
    write_messages_fields(&mut w, thread_id, messages);
    w.end();
}

fn write_messages_fields<M: ToJson>(w: &mut ObjWriter<'_>, thread_id: &str, messages: &[M]) {
    w.field("threadId", thread_id);
    w.field("messages", messages);
}

/// `{"type":"tool_finished","threadId":...}`: `type` first, camelCase fields.
impl ToJson for RuntimeEvent {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("type", self.kind());
        match self {
            RuntimeEvent::Agui {
                thread_id,
                run_id,
                event,
            } => {
                w.field("threadId", thread_id);
                w.field("runId", run_id);
                w.field("event", event);
            }
            RuntimeEvent::RoundStarted {
                thread_id,
                run_id,
                round,
            } => {
                w.field("threadId", thread_id);
                w.field("runId", run_id);
                w.field("round", round);
            }
            RuntimeEvent::ToolStarted {
                thread_id,
                run_id,
                tool_call_id,
                tool_name,
                args,
            } => {
                w.field("threadId", thread_id);
                w.field("runId", run_id);
                w.field("toolCallId", tool_call_id);
                w.field("toolName", tool_name);
                w.field("args", args);
            }
            RuntimeEvent::ToolFinished {
                thread_id,
                run_id,
                tool_call_id,
                tool_name,
                result,
                error,
            } => {
                w.field("threadId", thread_id);
                w.field("runId", run_id);
                w.field("toolCallId", tool_call_id);
                w.field("toolName", tool_name);
                w.field("result", result);
                w.field("error", error);
            }
            RuntimeEvent::Messages {
                thread_id,
                messages,
            } => write_messages_fields(&mut w, thread_id, messages),
            RuntimeEvent::Activity { thread_id, at } => {
                w.field("threadId", thread_id);
                w.field("at", at);
            }
            RuntimeEvent::TogglesChanged { thread_id } => w.nullable("threadId", thread_id),
            RuntimeEvent::ToolsChanged {} => {}
            RuntimeEvent::Diagnostic { diagnostic } => w.field("diagnostic", diagnostic),
            RuntimeEvent::RunFinished {
                thread_id,
                status,
                rounds,
                error,
                interrupts,
            } => {
                w.field("threadId", thread_id);
                w.field("status", status);
                w.field("rounds", rounds);
                w.field("error", error);
                w.field("interrupts", interrupts);
            }
        }
        w.end();
    }
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
