//! How a turn ended, as `run()` resolves: [`RunResult`], [`RunStatus`], [`RunError`], and
//! [`ToolErrorInfo`], with their JSON writers.

use crate::json::Value;

use crate::protocol::event::{Interrupt, Message};
use crate::protocol::wire::{ObjWriter, ToJson};

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// The agent answered with nothing left for the browser.
    Completed,
    /// The run was aborted.
    Aborted,
    /// The turn reached `maxRounds` restarts.
    MaxRounds,
    /// The server, the network or the stream failed.
    Error,
    /// The run ended with `RUN_FINISHED.outcome.type` `"interrupt"`: the agent waits for answers
    /// (the next run's `resume`).
    Interrupted,
}

/// Why a turn ended in error.
#[derive(Debug, Clone, PartialEq)]
pub struct RunError {
    /// A stable code: `run/http`, `run/network`, `run/prepare-request`, `run/content-type`,
    /// `run/truncated`, `run/error` (the agent's `RUN_ERROR`, or its own `code`), `decode/...`.
    pub code: String,
    /// What happened.
    pub message: String,
    /// The HTTP status, for `run/http` and `coder/http`.
    pub status: Option<u16>,
    /// What the server said beyond the message, as an object: for `coder/error` the chat's error
    /// (`kind`, `retryable`, `provider`, `statusCode`, `detail`), for `coder/http` Coder's body
    /// (`message`, `detail`, `validations`).
    pub details: Option<Value>,
}

/// What a turn produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// The thread.
    pub thread_id: String,
    /// The turn's handle ([`Session::run_handle`](super::Session::run_handle)).
    pub run: u64,
    /// How it ended.
    pub status: RunStatus,
    /// How many runs were sent (1 + restarts).
    pub rounds: u32,
    /// How many messages the thread had when the turn ended: `run()`'s `messages` are the
    /// thread's first `message_count` ([`Session::messages`](super::Session::messages)), which
    /// the host reads when it takes the result. No copy of the thread is made: at the end of
    /// every turn it cost time and heap in proportion to the whole thread.
    pub message_count: usize,
    /// Where in the thread the messages this turn added are (the user's, the agent's, the tool
    /// results), in order: [`new_messages`](Self::new_messages). Positions, not a second copy of
    /// each: a turn's answer can be most of the thread, and the copy doubled the heap's peak.
    pub new_positions: Vec<usize>,
    /// The thread's AG-UI state.
    pub state: Value,
    /// Why it failed, for `error` (and the limit, for `max_rounds`).
    pub error: Option<RunError>,
    /// The open interrupts as the server sent them, for `interrupted`.
    pub interrupts: Option<Vec<Interrupt>>,
}

/// The error of a tool, as listeners see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolErrorInfo {
    /// `INVALID_TOOL_ARGUMENTS`, `TOOL_NOT_AVAILABLE`, ...
    pub code: &'static str,
    /// What happened.
    pub message: String,
}

impl RunStatus {
    /// The status as listeners see it (`"completed"`, `"max_rounds"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Completed => "completed",
            RunStatus::Aborted => "aborted",
            RunStatus::MaxRounds => "max_rounds",
            RunStatus::Error => "error",
            RunStatus::Interrupted => "interrupted",
        }
    }
}

impl ToJson for RunStatus {
    fn write_json(&self, out: &mut String) {
        self.as_str().write_json(out);
    }
}

/// `{"code","message","status"?,"details"?}`.
impl ToJson for RunError {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("code", &self.code);
        w.field("message", &self.message);
        w.field("status", &self.status);
        w.field("details", &self.details);
        w.end();
    }
}

impl ToJson for ToolErrorInfo {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("code", self.code);
        w.field("message", &self.message);
        w.end();
    }
}

impl RunResult {
    /// `run()`'s value as JSON (camelCase fields), over the thread's messages (`thread`: what
    /// [`Session::messages`](super::Session::messages) gives; its first
    /// [`message_count`](Self::message_count) are the result's). `messages` / `newMessages` are
    /// written as `[]` unless asked for (for a host that fills them in from messages it already
    /// holds).
    pub fn write_json(&self, out: &mut String, thread: &[Message], messages: bool, new: bool) {
        let thread = &thread[..self.message_count.min(thread.len())];
        let mut w = ObjWriter::new(out);
        w.field("threadId", &self.thread_id);
        w.field("status", &self.status);
        w.field("rounds", &self.rounds);
        let none: &[Message] = &[];
        w.field("messages", if messages { thread } else { none });
        let new = if new {
            self.new_messages(thread)
        } else {
            Vec::new()
        };
        w.field("newMessages", &new[..]);
        w.field("state", &self.state);
        w.field("error", &self.error);
        w.field("interrupts", &self.interrupts);
        w.end();
    }

    /// The messages this turn added, in order, out of the thread's messages.
    pub fn new_messages<'a>(&self, thread: &'a [Message]) -> Vec<&'a Message> {
        let thread = &thread[..self.message_count.min(thread.len())];
        self.new_positions
            .iter()
            .filter_map(|&at| thread.get(at))
            .collect()
    }
}
