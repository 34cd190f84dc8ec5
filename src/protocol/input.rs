//! The `RunAgentInput` builder: the body of a run request (docs/protocol.md, "The transport").
//!
//! The output matches what `@ag-ui/client@1.0.0` sends (`AbstractAgent.prepareRunAgentInput`,
//! checked against captured request bodies): `protocolVersion: "1.0"`, `tools` and `context`
//! always present as arrays, `state` and `forwardedProps` `{}` when not given, activity messages
//! left out of `messages`, and no `null` for any optional field.

use std::cell::Cell;

use crate::json::{Map, Value};

use super::wire::{ObjWriter, ToJson};

use crate::protocol::event::{Context, Message, ResumeEntry, RunAgentInput, Tool};
use crate::protocol::thread::Thread;

/// The protocol version this client speaks, sent as `RunAgentInput.protocolVersion`.
pub const PROTOCOL_VERSION: &str = "1.0";

/// Which messages of the thread a run request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum History {
    /// The whole thread, for stateless servers (pydantic-ai). The default.
    #[default]
    Full,
    /// Only what the server has not seen, for servers that keep the thread (the nebari chat
    /// pack): the messages from index `first_unseen` on.
    New {
        /// The index of the first message the server has not seen (the thread's length when the
        /// previous request was sent, plus what that run added). Past the end means none.
        first_unseen: usize,
    },
}

/// The `RunAgentInput` members a server may not take, each of which a body can leave out
/// ([`Omitted`]; the `omitRequestFields` option): every member but `messages`, what a run is
/// about, and `resume`, which is sent only to answer interrupts.
pub const OMITTABLE: [&str; 8] = [
    "threadId",
    "runId",
    "protocolVersion",
    "parentRunId",
    "state",
    "tools",
    "context",
    "forwardedProps",
];

/// Which [`OMITTABLE`] members a body leaves out: a bit each, in the table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Omitted(u8);

impl Omitted {
    /// The members named; the first name that is not in [`OMITTABLE`] is the error.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, &'a str> {
        names
            .into_iter()
            .try_fold(Omitted::default(), |omitted, name| {
                omitted.with(name).ok_or(name)
            })
    }

    /// These members and `name` (`None`: `name` is not in [`OMITTABLE`]).
    pub fn with(self, name: &str) -> Option<Self> {
        // A search of the table behind `black_box`, whose length LLVM then cannot see: a `match`
        // compiled to inline comparisons of each name, and a plain search was unrolled to the same.
        let index = core::hint::black_box(&OMITTABLE[..])
            .iter()
            .position(|member| *member == name)?;
        Some(Omitted(self.0 | 1 << index))
    }

    /// Whether the member at `index` of [`OMITTABLE`] is left out.
    fn has(self, index: usize) -> bool {
        self.0 & (1 << index) != 0
    }
}

/// Builds a [`RunAgentInput`]. The caller supplies the ids: the core has no randomness.
///
/// ```
/// use chat_runtime::protocol::input::{History, RunInputBuilder};
/// use chat_runtime::protocol::thread::Thread;
///
/// let thread = Thread::new();
/// let input = RunInputBuilder::new("thread-1", "run-1")
///     .history(History::Full)
///     .build_for(&thread);
/// assert_eq!(
///     input.to_json(),
///     r#"{"threadId":"thread-1","runId":"run-1","protocolVersion":"1.0","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}"#
/// );
/// ```
#[derive(Debug, Clone, Default)]
pub struct RunInputBuilder {
    /// `threadId`.
    thread_id: String,
    /// `runId`: fresh per request, from the caller.
    run_id: String,
    /// Which messages go out.
    history: History,
    /// `tools`: the thread's enabled frontend tools.
    tools: Vec<Tool>,
    /// `context`.
    context: Vec<Context>,
    /// `state` when the caller overrides the thread's; `None` means the thread's (or `{}`).
    state: Option<Value>,
    /// `forwardedProps`; `None` means `{}`.
    forwarded_props: Option<Value>,
    /// `parentRunId`, omitted when `None`.
    parent_run_id: Option<String>,
    /// `resume`, omitted when `None` (as the TS client does).
    resume: Option<Vec<ResumeEntry>>,
    /// The members [`body`](Self::body) leaves out.
    omitted: Omitted,
}

impl RunInputBuilder {
    /// A builder for a run of `thread_id` with the id `run_id`: full history, no tools, no
    /// context.
    pub fn new(thread_id: impl Into<String>, run_id: impl Into<String>) -> Self {
        RunInputBuilder {
            thread_id: thread_id.into(),
            run_id: run_id.into(),
            ..Self::default()
        }
    }

    /// Which messages to send.
    pub fn history(mut self, history: History) -> Self {
        self.history = history;
        self
    }

    /// The tools offered (schemas only).
    pub fn tools(mut self, tools: Vec<Tool>) -> Self {
        self.tools = tools;
        self
    }

    /// Context for the agent.
    pub fn context(mut self, context: Vec<Context>) -> Self {
        self.context = context;
        self
    }

    /// The state to send instead of the thread's. `null` is sent as `{}`.
    pub fn state(mut self, state: Value) -> Self {
        self.state = Some(state);
        self
    }

    /// `forwardedProps`. `null` is sent as `{}` (the TS client's `?? {}`).
    pub fn forwarded_props(mut self, forwarded_props: Value) -> Self {
        self.forwarded_props = Some(forwarded_props);
        self
    }

    /// The run this one continues.
    pub fn parent_run_id(mut self, parent_run_id: impl Into<String>) -> Self {
        self.parent_run_id = Some(parent_run_id.into());
        self
    }

    /// The members [`body`](Self::body) leaves out (none by default; [`build`](Self::build)
    /// keeps them all).
    pub fn omit(mut self, omitted: Omitted) -> Self {
        self.omitted = omitted;
        self
    }

    /// Answers to open interrupts.
    pub fn resume(mut self, resume: Vec<ResumeEntry>) -> Self {
        self.resume = Some(resume);
        self
    }

    /// The input for `thread`: its messages (per [`History`]) and its state, unless
    /// [`RunInputBuilder::state`] overrides it.
    pub fn build_for(&self, thread: &Thread) -> RunAgentInput {
        self.build_with_state(thread.messages(), thread.state())
    }

    /// The input for these messages (per [`History`]); state `{}` unless
    /// [`RunInputBuilder::state`] set one.
    pub fn build(&self, messages: &[Message]) -> RunAgentInput {
        self.build_with_state(messages, &Value::Null)
    }

    fn build_with_state(&self, messages: &[Message], thread_state: &Value) -> RunAgentInput {
        let sent = match self.history {
            History::Full => messages,
            History::New { first_unseen } => messages.get(first_unseen..).unwrap_or(&[]),
        };
        RunAgentInput {
            thread_id: self.thread_id.clone(),
            run_id: self.run_id.clone(),
            protocol_version: Some(PROTOCOL_VERSION.to_owned()),
            parent_run_id: self.parent_run_id.clone(),
            state: Some(or_empty_object(self.state.as_ref().unwrap_or(thread_state))),
            // prepareRunAgentInput: activity messages never travel back to the agent.
            messages: sent
                .iter()
                .filter(|m| !matches!(m, Message::Activity(_)))
                .cloned()
                .collect(),
            tools: self.tools.clone(),
            context: self.context.clone(),
            forwarded_props: Some(or_empty_object(
                self.forwarded_props.as_ref().unwrap_or(&Value::Null),
            )),
            resume: self.resume.clone(),
        }
    }
}

/// `null` (absent) becomes `{}`; anything else is sent as is.
fn or_empty_object(value: &Value) -> Value {
    match value {
        Value::Null => Value::Object(Map::new()),
        value => value.clone(),
    }
}

impl RunInputBuilder {
    /// The request body for `messages` (all of them: the caller picks per [`History`]), written
    /// from the borrowed messages: the JSON of [`build`](Self::build)'s [`RunAgentInput`] without
    /// a copy of each message (the whole thread, for [`History::Full`], at every request).
    /// `tests/input.rs` holds the two to the same text.
    pub fn body<'a>(&self, messages: impl IntoIterator<Item = &'a Message>) -> String {
        let mut body = String::new();
        self.write_body(messages, usize::MAX, &mut |piece| body.push_str(piece));
        body
    }

    /// [`body`](Self::body)'s text handed to `flush` in pieces: a piece ends after the message
    /// that brings it to `piece` bytes or more (a longer message is a piece of its own), so the
    /// whole body is never in one buffer (the browser's host joins the pieces in JavaScript).
    pub fn write_body<'a>(
        &self,
        messages: impl IntoIterator<Item = &'a Message>,
        piece: usize,
        flush: &mut dyn FnMut(&str),
    ) {
        let input = self.build_with_state(&[], &Value::Null);
        let messages = Flushing {
            messages: Cell::new(Some(messages.into_iter())),
            piece,
            flush: Cell::new(Some(&mut *flush)),
        };
        let mut out = String::new();
        let mut w = ObjWriter::new(&mut out);
        // RunAgentInput's members, in its order (`wire_struct!` writes them so), less those
        // the server does not take.
        let keep = |index| !self.omitted.has(index);
        if keep(0) {
            w.field("threadId", &input.thread_id);
        }
        if keep(1) {
            w.field("runId", &input.run_id);
        }
        if keep(2) {
            w.field("protocolVersion", &input.protocol_version);
        }
        if keep(3) {
            w.field("parentRunId", &input.parent_run_id);
        }
        if keep(4) {
            w.field("state", &input.state);
        }
        w.field("messages", &messages);
        if keep(5) {
            w.field("tools", &input.tools);
        }
        if keep(6) {
            w.field("context", &input.context);
        }
        if keep(7) {
            w.field("forwardedProps", &input.forwarded_props);
        }
        w.field("resume", &input.resume);
        w.end();
        flush(&out);
    }
}

/// [`RunInputBuilder::write_body`]'s `messages`: written once, as an array without the activity
/// messages, handing the text so far to `flush` (and clearing it) whenever it reaches `piece`
/// bytes after a message.
struct Flushing<'f, I> {
    messages: Cell<Option<I>>,
    piece: usize,
    flush: Cell<Option<Flush<'f>>>,
}

/// Where [`Flushing`] hands its pieces.
type Flush<'f> = &'f mut dyn FnMut(&str);

impl<'a, I: Iterator<Item = &'a Message>> ToJson for Flushing<'_, I> {
    fn write_json(&self, out: &mut String) {
        let (Some(messages), Some(flush)) = (self.messages.take(), self.flush.take()) else {
            return;
        };
        out.push('[');
        let mut first = true;
        for message in messages {
            if matches!(message, Message::Activity(_)) {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            message.write_json(out);
            if out.len() >= self.piece {
                flush(out);
                out.clear();
            }
        }
        out.push(']');
    }
}

impl RunAgentInput {
    /// The request body: JSON with every absent optional field omitted (never `null`).
    pub fn to_json(&self) -> String {
        self.to_json_string()
    }
}
