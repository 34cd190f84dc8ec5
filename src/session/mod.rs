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

use std::collections::VecDeque;

use crate::lean::hash::HashSet;
use crate::lean::sorted::{SortedMap, StrSet};

use crate::json::{quoted, Value};

use crate::protocol::decode::{DecodeError, DecodeOptions, EventDecoder, Output};
use crate::protocol::event::{
    Content, Context, Event, Interrupt, Message, ResumeEntry, ResumeStatus, RunFinishedOutcome,
    Tool, ToolMessage,
};
use crate::protocol::input::RunInputBuilder;
use crate::protocol::thread::{Applied, PendingCall, Thread};
use crate::protocol::wire::{ObjWriter, ToJson};
use crate::tools::catalog::Catalog;
use crate::tools::outcome::{FailureCode, Interruption, ToolFailure, ToolOutcome};
use crate::tools::schema::{validate, PatternMatcher, Violation};
use crate::tools::toggles::{KeyValueStore, Toggles};
use crate::tools::{FrontendTool, TimeLimit};

/// Which messages a run request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HistoryMode {
    /// The whole thread (stateless servers such as pydantic-ai).
    #[default]
    Full,
    /// Only what the server has not seen: the user's messages, then the tool results (servers
    /// that keep the thread, such as the nebari chat pack).
    New,
}

/// How the loop behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionConfig {
    /// Which messages a request carries.
    pub history: HistoryMode,
    /// How many restarts one turn may make before it stops with `max_rounds`.
    pub max_rounds: u32,
    /// A tool's time limit when it sets none, in milliseconds.
    pub tool_timeout_ms: u32,
    /// The largest single SSE event accepted, in bytes.
    pub max_event_bytes: usize,
    /// The run URL template: `{threadId}` is replaced by the thread id as one percent-encoded
    /// path segment ([`crate::thread_id::run_url`]).
    pub run_url: String,
    /// The largest tool result accepted, in bytes of its JSON text (a string result: its UTF-8
    /// bytes); a larger one fails with `TOOL_RESULT_TOO_LARGE`.
    pub max_tool_result_bytes: usize,
    /// Extra request headers for every run (an API key, a tenant). `Content-Type` and `Accept`
    /// are the session's own ([`Action::Send`]): an app's header of either name is left out.
    pub headers: Vec<(String, String)>,
    /// How many times in a row a round's stream is resumed after a cut ([`Action::Reconnect`])
    /// before the turn ends in error; an attempt that brings a new event starts the count again.
    pub max_reconnects: u32,
    /// The first reconnect's delay in milliseconds when the stream set no `retry:`; each further
    /// attempt in a row waits twice as long.
    pub reconnect_delay_ms: u64,
}

/// The default of [`SessionConfig::max_tool_result_bytes`]: 1 MiB, far more than a model's context
/// takes in one tool message, and a bound on what a tool can make the page hold.
pub const DEFAULT_MAX_TOOL_RESULT_BYTES: usize = 1 << 20;

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            history: HistoryMode::Full,
            max_rounds: 8,
            tool_timeout_ms: 30_000,
            max_event_bytes: crate::protocol::sse::DEFAULT_MAX_EVENT_BYTES,
            run_url: "/api/threads/{threadId}/runs".to_owned(),
            max_tool_result_bytes: DEFAULT_MAX_TOOL_RESULT_BYTES,
            headers: Vec::new(),
            max_reconnects: 3,
            reconnect_delay_ms: 1_000,
        }
    }
}

/// What the agent may call in this turn, as the runtime resolved it from its catalog and the
/// thread's toggles when the turn started.
#[derive(Debug, Clone, Default)]
pub struct ToolSet {
    /// The enabled frontend tools, as sent in `RunAgentInput.tools` (prefixed names).
    pub wire: Vec<Tool>,
    /// Incoming tool-call name → what it is. A name that is absent is unknown.
    pub calls: SortedMap<CallKind>,
}

impl ToolSet {
    /// Resolves the catalog for one thread: the enabled frontend tools go out (with the
    /// catalog's prefix), every frontend tool and backend tool is known by its incoming name.
    pub fn from_catalog(catalog: &Catalog, mut enabled: impl FnMut(&FrontendTool) -> bool) -> Self {
        let mut set = ToolSet::default();
        let mut on = HashSet::default();
        for tool in catalog.frontend_tools() {
            let kind = if enabled(tool) {
                on.insert(tool.name.clone());
                CallKind::Enabled(tool.clone())
            } else {
                CallKind::Disabled
            };
            set.calls.insert(catalog.wire_name(&tool.name), kind);
        }
        for tool in catalog.backend_tools() {
            set.calls.insert(tool.name.clone(), CallKind::Backend);
        }
        set.wire = catalog.wire_tools(|name| on.contains(name));
        set
    }

    /// The tool set of a thread (`None`: a new chat): the catalog with the thread's toggles. The
    /// one rule for what a run sends, used by the run itself and by `activeTools`.
    pub fn for_thread<S: KeyValueStore>(
        catalog: &Catalog,
        toggles: &mut Toggles<S>,
        thread_id: Option<&str>,
    ) -> Self {
        Self::from_catalog(catalog, |tool| {
            tool.is_on(toggles.saved(thread_id, &tool.name))
        })
    }
}

/// What an incoming tool-call name refers to.
#[derive(Debug, Clone, PartialEq)]
pub enum CallKind {
    /// An enabled frontend tool: the browser runs it.
    Enabled(FrontendTool),
    /// A frontend tool that is disabled in this thread.
    Disabled,
    /// A backend tool: the server answers it.
    Backend,
}

/// One `run` call.
#[derive(Debug, Clone, Default)]
pub struct RunRequest {
    /// The thread.
    pub thread_id: String,
    /// The messages to add to the thread (usually the user's message). Messages whose id the
    /// thread already has are not added again, so passing the whole history works too.
    pub messages: Vec<Message>,
    /// `RunAgentInput.context`.
    pub context: Vec<Context>,
    /// Replaces the thread's state when given.
    pub state: Option<Value>,
    /// `RunAgentInput.forwardedProps`.
    pub forwarded_props: Option<Value>,
    /// `RunAgentInput.resume`: an answer for each of the thread's open interrupts
    /// ([`Session::interrupts`]), sent with the turn's first run.
    pub resume: Vec<ResumeEntry>,
    /// The wall clock when the run starts, in ms since the Unix epoch, for the open interrupts'
    /// `expiresAt` (one past it and not answered is answered `cancelled`); `None`: none expires.
    pub now_ms: Option<u64>,
    /// What happens to the browser calls of a loaded history that have no result.
    pub pending: Pending,
}

/// What a turn does with the browser calls of the thread's last assistant message that have no
/// result (a history loaded with `set_messages` after a reload mid-tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pending {
    /// Answer them `INTERRUPTED` before the first request (every call of the thread that has no
    /// result is settled so).
    #[default]
    Settle,
    /// Run each of them once, as if the agent had just called it (toggles and schema validation
    /// as usual), then send the first request with their results. Calls of backend tools and of
    /// earlier messages are settled as with `Settle`.
    Run,
}

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    /// A stable code: `run/http`, `run/network`, `run/prepare-request`, `run/content-type`,
    /// `run/truncated`, `run/error` (the agent's `RUN_ERROR`, or its own `code`), `decode/...`.
    pub code: String,
    /// What happened.
    pub message: String,
    /// The HTTP status, for `run/http`.
    pub status: Option<u16>,
}

/// What a turn produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// The thread.
    pub thread_id: String,
    /// How it ended.
    pub status: RunStatus,
    /// How many runs were sent (1 + restarts).
    pub rounds: u32,
    /// The whole thread after the turn.
    pub messages: Vec<Message>,
    /// Where in `messages` the messages this turn added are (the user's, the agent's, the tool
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
    /// per animation frame, see [`Session::take_activity`]): a stream of only `STATE_*` or
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
    /// A turn ended (the same moment [`Action::Finished`] is emitted).
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

/// `{"code","message","status"?}`.
impl ToJson for RunError {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("code", &self.code);
        w.field("message", &self.message);
        w.field("status", &self.status);
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

/// The object `run()` resolves with (camelCase fields).
impl ToJson for RunResult {
    fn write_json(&self, out: &mut String) {
        self.write_json_with(out, true, true);
    }
}

impl RunResult {
    /// The JSON of [`ToJson`], with `messages` / `newMessages` written as `[]` unless asked for
    /// (for a host that fills them in from messages it already holds).
    pub fn write_json_with(&self, out: &mut String, messages: bool, new_messages: bool) {
        let mut w = ObjWriter::new(out);
        w.field("threadId", &self.thread_id);
        w.field("status", &self.status);
        w.field("rounds", &self.rounds);
        let none: &[Message] = &[];
        w.field("messages", if messages { &self.messages[..] } else { none });
        let new = if new_messages {
            self.new_messages()
        } else {
            Vec::new()
        };
        w.field("newMessages", &new[..]);
        w.field("state", &self.state);
        w.field("error", &self.error);
        w.field("interrupts", &self.interrupts);
        w.end();
    }

    /// The messages this turn added, in order.
    pub fn new_messages(&self) -> Vec<&Message> {
        self.new_positions
            .iter()
            .filter_map(|&at| self.messages.get(at))
            .collect()
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

/// The messages of a thread that changed since the last [`Session::take_changed_positions`].
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

/// A browser tool call for the host to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallJob {
    /// The thread.
    pub thread_id: String,
    /// The run that made the call.
    pub run_id: String,
    /// The call's id.
    pub tool_call_id: String,
    /// The tool, with its handler.
    pub tool: FrontendTool,
    /// The arguments, parsed and validated against the tool's schema.
    pub args: Value,
    /// The time limit in milliseconds (`None`: the tool has none).
    pub timeout_ms: Option<u32>,
}

/// Work for the host. Every string an action carries (a URL, a header, an id) is in the JSON
/// layer's internal form ([`crate::json`]): the host hands JavaScript the JS string it stands for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Action {
    /// POST `body` (a `RunAgentInput`) to `url` with `headers`.
    Send {
        /// The thread.
        thread_id: String,
        /// The run's id (pass it back with the response).
        run_id: String,
        /// The thread's run URL ([`SessionConfig::run_url`] filled in).
        url: String,
        /// Every request header: the app's ([`SessionConfig::headers`]), then
        /// `Content-Type: application/json` and `Accept: text/event-stream`.
        headers: Vec<(String, String)>,
        /// The JSON body.
        body: String,
    },
    /// The round's stream was cut after events with SSE ids: after `delay_ms`, send `request`
    /// again (the round's request exactly as it went out: the [`Action::Send`], or the body the
    /// host reported with [`Session::handle_request_prepared`]) with the header
    /// `Last-Event-ID: last_event_id`, and hand the answer in as before
    /// ([`Session::handle_response`], then the bytes). The server continues the run after that
    /// event.
    Reconnect {
        /// The thread.
        thread_id: String,
        /// The round's run id (unchanged).
        run_id: String,
        /// The round's request.
        request: RoundRequest,
        /// The id of the last complete event received.
        last_event_id: String,
        /// How long to wait first, in milliseconds.
        delay_ms: u64,
    },
    /// Run a browser tool; answer with [`Session::handle_tool_result`]. Its deadline starts when
    /// the host takes this action ([`Session::poll_action`]'s `now`).
    Execute(ToolCallJob),
    /// Stop the thread's fetch and fire its handlers' abort signal.
    Cancel {
        /// The thread.
        thread_id: String,
    },
    /// Fire one call's abort signal: its deadline passed ([`Session::handle_timeout`]) and it has
    /// its `TIMEOUT` result already; whatever the handler does later is ignored.
    CancelCall {
        /// The thread.
        thread_id: String,
        /// The call.
        tool_call_id: String,
    },
    /// Tell the listeners.
    Emit(RuntimeEvent),
    /// The turn is over: resolve its promise.
    Finished(Box<RunResult>),
}

/// A round's request as it went out: what [`Action::Reconnect`] sends again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundRequest {
    /// The URL.
    pub url: String,
    /// Every header (as [`Action::Send`] has them).
    pub headers: Vec<(String, String)>,
    /// The body, after the host shaped it.
    pub body: String,
}

/// Why a call into the session was refused (a programmer error, not a run outcome).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// A run is already going on this thread.
    #[error("a run is already in progress on thread {thread_id}")]
    Busy {
        /// The thread.
        thread_id: String,
    },
    /// The thread id breaks the rule of [`crate::thread_id`]; nothing was sent.
    #[error("{0}")]
    BadThreadId(crate::thread_id::ThreadIdError),
    /// A `resume` entry is wrong: its payload breaks the interrupt's `responseSchema` (then
    /// `violation` says where), or it answers an interrupt twice. Nothing was sent.
    #[error("resume entry for interrupt {}: {message}", quoted(interrupt_id))]
    BadResume {
        /// The interrupt answered.
        interrupt_id: String,
        /// What is wrong.
        message: String,
        /// The first way the payload breaks the schema (its `pointer` is in the payload).
        violation: Option<Violation>,
    },
    /// The thread has open interrupts the request does not answer (and that have not expired).
    /// Nothing was sent.
    #[error(
        "thread {} has open interrupts the run does not answer in `resume`: {}",
        quoted(thread_id),
        quoted_list(ids)
    )]
    UnansweredInterrupts {
        /// The thread.
        thread_id: String,
        /// The interrupts not answered.
        ids: Vec<String>,
    },
}

impl SessionError {
    /// A stable code: `run/busy`, `run/bad-request`, `input/invalid`, `run/unanswered-interrupts`.
    pub fn code(&self) -> &'static str {
        match self {
            SessionError::Busy { .. } => "run/busy",
            SessionError::BadThreadId(_) => "run/bad-request",
            SessionError::BadResume { .. } => "input/invalid",
            SessionError::UnansweredInterrupts { .. } => "run/unanswered-interrupts",
        }
    }
}

/// The thread's AG-UI state as a request sends it: without a top-level `tools` member that holds
/// a list of tools (an array of objects, each with a string `name`, as `RunAgentInput.tools` has).
/// The request's own `tools` is the one list of the tools offered; a server that keeps a copy of
/// them in its state (ag-ui-langgraph does, and sends it back in `STATE_SNAPSHOT`) would otherwise
/// get the copy back and offer again a tool the user has just turned off (README, "Servers"). A
/// `tools` member of any other shape is the app's own and is sent. The thread keeps its state as
/// received (`state()`).
fn request_state(state: &Value) -> Value {
    let mut state = state.clone();
    if let Some(members) = state.as_object_mut() {
        let copy_of_tools = members
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|tools| {
                tools
                    .iter()
                    .all(|tool| tool.get("name").and_then(Value::as_str).is_some())
            });
        if copy_of_tools {
            members.remove("tools");
        }
    }
    state
}

/// The tool messages the runtime put into a thread that the server has not been sent yet.
fn unsent_tool_messages(thread: &Thread, unsent: &[String]) -> Vec<ToolMessage> {
    let messages = thread.messages();
    unsent
        .iter()
        .filter_map(|id| match thread.position(id).map(|at| &messages[at]) {
            Some(Message::Tool(tool)) => Some(tool.clone()),
            _ => None,
        })
        .collect()
}

/// Puts a recorded tool message back after a snapshot dropped it, unless the thread has it, or
/// a result for its call, already.
fn keep_tool_message(thread: &mut Thread, message: ToolMessage) {
    let answered = thread.messages().iter().any(|m| match m {
        Message::Tool(t) => t.id == message.id || t.tool_call_id == message.tool_call_id,
        _ => false,
    });
    if !answered {
        thread.insert_tool_result(message);
    }
}

/// The loop's state for every thread.
pub struct Session {
    config: SessionConfig,
    /// How the schemas' `pattern`s are matched (the runtime's: `tools::pattern::Patterns`).
    patterns: Box<dyn PatternMatcher>,
    threads: SortedMap<ThreadState>,
    actions: VecDeque<Action>,
    /// Whether each wire event becomes a [`RuntimeEvent::Agui`] (see [`Session::set_agui_events`]).
    agui_events: bool,
    /// Makes run and message ids: `{prefix}-{n}`; the host gives a random prefix.
    id_prefix: String,
    next_id: u64,
}

/// One thread's lasting state.
#[derive(Default)]
struct ThreadState {
    thread: Thread,
    /// Every tool call this thread ever executed or answered locally: exactly once per id.
    handled: HashSet<String>,
    /// Message ids the server has not seen yet (for [`HistoryMode::New`]).
    unsent: Vec<String>,
    /// Ids of messages changed since the host last took them (for coalesced rendering).
    changed: Vec<String>,
    /// Whether the whole list changed since the host last took the changes.
    changed_all: bool,
    /// Whether the AG-UI state changed since the host last asked.
    state_changed: bool,
    /// Whether bytes of the current round's body arrived since the host last asked: a flag per
    /// chunk, so a long stream costs nothing more (see [`Session::take_activity`]).
    active: bool,
    /// The open interrupts: those of the last `RUN_FINISHED` whose outcome was `interrupt`,
    /// until a later `RUN_FINISHED` (of a run that answered them).
    interrupts: Vec<Interrupt>,
    /// The turn in progress.
    turn: Option<Turn>,
}

/// A browser call handed to the host and not answered yet.
struct RunningCall {
    tool_name: String,
    /// Whether its result is sent back in a restart (else it is recorded and nothing restarts).
    follow_up: bool,
    /// Its time limit (`None`: none).
    timeout_ms: Option<u32>,
    /// When its time is up (the host's clock, in ms); `None` until the host took the job.
    deadline: Option<u64>,
    /// Whether the host called the handler ([`Session::begin_call`]): its module had loaded.
    called: bool,
}

/// A `run` call in progress.
struct Turn {
    /// What the agent may call, resolved when the turn started.
    tools: ToolSet,
    context: Vec<Context>,
    forwarded_props: Option<Value>,
    /// Ids of the messages that were in the thread before the turn (for `newMessages`).
    before: HashSet<String>,
    /// The calls open interrupts named when the turn started: the server's, so the end of the
    /// turn does not settle them even when its run closed those interrupts.
    held_before: Vec<String>,
    /// Runs sent so far.
    round: u32,
    /// The current round's run id.
    run_id: String,
    /// The current round's response decoder; `None` before the response or after its end.
    decoder: Option<EventDecoder>,
    /// Whether the current round's body has ended cleanly.
    stream_done: bool,
    /// Whether `RUN_FINISHED` arrived in this round.
    run_finished: bool,
    /// Reconnects of this round in a row without a new event, and the id resumed from last.
    reconnects: u32,
    resumed_from: Option<String>,
    /// Calls the host is running, by id.
    running: SortedMap<RunningCall>,
    /// Follow-up calls of this round in call order, and their outcomes once known.
    answers: Vec<(PendingCall, Option<ToolOutcome>)>,
    /// The answers to the open interrupts, sent with the first round (taken then).
    resume: Vec<ResumeEntry>,
    /// Whether this round's `RUN_FINISHED` carried an `interrupt` outcome.
    interrupted: bool,
    /// Where the current round's request is: a reconnect sends it again.
    outgoing: Outgoing,
}

/// Where a round's request is, between [`Action::Send`] and the answer.
enum Outgoing {
    /// No request yet (a loaded history's calls run first).
    NotYet,
    /// [`Action::Send`] is out; the host may still shape its body (the app's `prepareRequest`).
    Preparing(RoundRequest),
    /// It went out as this.
    Sent(RoundRequest),
}

impl Outgoing {
    /// The request goes out (with `body` when the host shaped it): `false` unless it was being
    /// prepared.
    fn send(&mut self, body: Option<&str>) -> bool {
        match std::mem::replace(self, Outgoing::NotYet) {
            Outgoing::Preparing(mut request) => {
                if let Some(body) = body {
                    body.clone_into(&mut request.body);
                }
                *self = Outgoing::Sent(request);
                true
            }
            other => {
                *self = other;
                false
            }
        }
    }
}

impl Session {
    /// A session. `id_prefix` makes run and tool-message ids unique (the host passes a random
    /// one); `patterns` evaluates JSON Schema `pattern`s.
    pub fn new(
        config: SessionConfig,
        id_prefix: impl Into<String>,
        patterns: Box<dyn PatternMatcher>,
    ) -> Self {
        Self {
            config,
            patterns,
            threads: SortedMap::new(),
            actions: VecDeque::new(),
            agui_events: true,
            id_prefix: id_prefix.into(),
            next_id: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The next piece of work for the host. `now` is the host's clock in milliseconds (any
    /// origin, never going back): an [`Action::Execute`] taken now must be answered by
    /// `now + timeout_ms`, or [`handle_timeout`](Self::handle_timeout) answers it with `TIMEOUT`.
    /// The deadline covers loading the tool's module and the call.
    pub fn poll_action(&mut self, now: u64) -> Option<Action> {
        let action = self.actions.pop_front()?;
        if let Action::Execute(job) = &action {
            let call = self
                .threads
                .get_mut(&job.thread_id)
                .and_then(|t| t.turn.as_mut())
                .and_then(|turn| turn.running.get_mut(&job.tool_call_id));
            if let Some(call) = call {
                call.deadline = call.timeout_ms.map(|ms| now.saturating_add(u64::from(ms)));
            }
        }
        Some(action)
    }

    /// The earliest deadline of a running call, if any: the host calls
    /// [`handle_timeout`](Self::handle_timeout) once its clock reaches it.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.threads
            .values()
            .filter_map(|t| t.turn.as_ref())
            .flat_map(|turn| turn.running.values())
            .filter_map(|call| call.deadline)
            .min()
    }

    /// The host's clock reached `now`: every running call whose deadline has passed is answered
    /// with a `TIMEOUT` result and gets an [`Action::CancelCall`] (its signal fires); from then
    /// on [`may_call`](Self::may_call) is `false` for it and its late result is ignored.
    pub fn handle_timeout(&mut self, now: u64) {
        let mut expired: Vec<(String, String, String, u32, bool)> = Vec::new();
        for (thread_id, state) in &self.threads {
            let Some(turn) = state.turn.as_ref() else {
                continue;
            };
            for (id, call) in &turn.running {
                if call.deadline.is_some_and(|d| d <= now) {
                    expired.push((
                        thread_id.clone(),
                        id.clone(),
                        call.tool_name.clone(),
                        call.timeout_ms.unwrap_or_default(),
                        call.called,
                    ));
                }
            }
        }
        // By thread, then by call id: both maps iterate in name order.
        for (thread_id, tool_call_id, tool_name, timeout_ms, called) in expired {
            self.actions.push_back(Action::CancelCall {
                thread_id: thread_id.clone(),
                tool_call_id: tool_call_id.clone(),
            });
            let outcome = ToolOutcome::Failed(ToolFailure::new(
                FailureCode::Timeout,
                format!(
                    "{tool_name} took longer than {timeout_ms} ms {}",
                    if called { "to answer" } else { "to load" }
                ),
            ));
            self.handle_tool_result(&thread_id, &tool_call_id, outcome);
        }
    }

    /// The page removed the tool `tool_name` (`unregisterTool`): every call of it that is
    /// running, in any thread, is answered `INTERRUPTED` (the tool was removed) and never reaches
    /// its handler if it has not yet; its late result is ignored. Returns those calls as
    /// `(thread_id, tool_call_id)`, for the host to fire their signals.
    pub fn remove_tool(&mut self, tool_name: &str) -> Vec<(String, String)> {
        let mut removed = Vec::new();
        for (thread_id, state) in &self.threads {
            let Some(turn) = state.turn.as_ref() else {
                continue;
            };
            for (id, call) in &turn.running {
                if call.tool_name == tool_name {
                    removed.push((thread_id.clone(), id.clone()));
                }
            }
        }
        for (thread_id, tool_call_id) in &removed {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::Removed,
                format!("{tool_name} was removed from the page while it ran"),
            ));
            self.handle_tool_result(thread_id, tool_call_id, outcome);
        }
        removed
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
            .is_some_and(|turn| turn.running.contains_key(tool_call_id))
    }

    /// [`may_call`](Self::may_call), and when it is `true` the host calls the handler right
    /// away: from then on a timeout says the handler took too long to answer, before it that the
    /// module took too long to load.
    pub fn begin_call(&mut self, thread_id: &str, tool_call_id: &str) -> bool {
        let call = self
            .threads
            .get_mut(thread_id)
            .and_then(|t| t.turn.as_mut())
            .and_then(|turn| turn.running.get_mut(tool_call_id));
        match call {
            Some(call) => {
                call.called = true;
                true
            }
            None => false,
        }
    }

    /// The thread's open interrupts, as the server sent them (none for an unknown thread): the
    /// next run must answer each of them in [`RunRequest::resume`].
    pub fn interrupts(&self, thread_id: &str) -> &[Interrupt] {
        self.threads
            .get(thread_id)
            .map_or(&[], |t| t.interrupts.as_slice())
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
        state.changed_all = true;
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
            .is_some_and(|state| std::mem::take(&mut state.state_changed))
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
        if !state.changed_all && state.changed.is_empty() {
            return None;
        }
        let len = state.thread.messages().len();
        let positions = if state.changed_all {
            (0..len).collect()
        } else {
            // O(changed), not O(thread): each frame of a long thread looks up only what changed.
            let mut positions: Vec<usize> = state
                .changed
                .iter()
                .filter_map(|id| state.thread.position(id))
                .collect();
            crate::lean::sort::sort(&mut positions);
            positions.dedup();
            positions
        };
        let all = state.changed_all;
        state.changed.clear();
        state.changed_all = false;
        Some(ChangedMessages {
            positions,
            all,
            len,
        })
    }

    /// Whether each AG-UI event as it arrived is emitted as [`RuntimeEvent::Agui`] (on by
    /// default). A host whose listeners do not want them turns this off, and the stream then costs
    /// no per-event action.
    pub fn set_agui_events(&mut self, on: bool) {
        self.agui_events = on;
    }

    /// Starts a turn: adds the request's messages and sends the first run.
    /// Refused, with nothing sent and nothing changed, while a turn is going on in the thread
    /// ([`SessionError::Busy`]), when the thread id cannot be one segment of the run URL
    /// ([`SessionError::BadThreadId`]), when a `resume` payload breaks its interrupt's
    /// `responseSchema` ([`SessionError::BadResume`]), or when an open interrupt that has not
    /// expired gets no answer ([`SessionError::UnansweredInterrupts`]).
    pub fn start_run(&mut self, request: RunRequest, tools: ToolSet) -> Result<(), SessionError> {
        crate::thread_id::check(&request.thread_id).map_err(SessionError::BadThreadId)?;
        let thread_id = request.thread_id.clone();
        let state = self
            .threads
            .get_or_insert_with(&thread_id, ThreadState::default);
        if state.turn.is_some() {
            return Err(SessionError::Busy { thread_id });
        }
        let resume = answer_interrupts(
            &thread_id,
            &state.interrupts,
            request.resume,
            request.now_ms,
            self.patterns.as_ref(),
        )?;
        // A history whose calls never got an answer (a reload mid-tool, a crash) is rejected by
        // providers that demand a result for every call: settle those first, or run those of
        // the last assistant message that are the browser's (`pending: "run"`). A call an open
        // interrupt names is the server's until it is resumed: it is neither settled nor run here.
        let held = held_calls(&state.interrupts);
        let mut dangling = unanswered_calls(state.thread.messages());
        dangling.retain(|id| !held.contains(id));
        let mut to_run = Vec::new();
        let last = state.thread.messages().iter().rev().find_map(|m| match m {
            Message::Assistant(a) if request.pending == Pending::Run => Some(a),
            _ => None,
        });
        // Calls answered in the loaded history are in `handled` (`set_messages`).
        for call in last
            .and_then(|a| a.tool_calls.as_ref())
            .into_iter()
            .flatten()
        {
            let backend = matches!(
                tools.calls.get(&call.function.name),
                Some(CallKind::Backend)
            );
            if !backend && !state.handled.contains(&call.id) && !held.contains(&call.id) {
                dangling.retain(|id| *id != call.id);
                to_run.extend(state.thread.pending_call(&call.id));
            }
        }
        for tool_call_id in dangling {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::Abandoned,
                "this call was never answered (the page was closed or reloaded while it ran)",
            ));
            self.record_result(&thread_id, &tool_call_id, &outcome);
        }
        let state = self
            .threads
            .get_or_insert_with(&thread_id, ThreadState::default);
        let before = state
            .thread
            .messages()
            .iter()
            .map(|m| m.id().to_owned())
            .collect::<HashSet<_>>();
        for message in request.messages {
            if before.contains(message.id()) {
                continue;
            }
            state.unsent.push(message.id().to_owned());
            state.changed.push(message.id().to_owned());
            if let Message::Tool(tool) = &message {
                state.handled.insert(tool.tool_call_id.clone());
            }
            state.thread.push_message(message);
        }
        if let Some(initial) = request.state {
            state.thread.set_state(initial);
            state.state_changed = true;
        }
        state.turn = Some(Turn {
            tools,
            context: request.context,
            forwarded_props: request.forwarded_props,
            before,
            held_before: held,
            round: 0,
            run_id: String::new(),
            decoder: None,
            stream_done: false,
            run_finished: false,
            reconnects: 0,
            resumed_from: None,
            running: SortedMap::new(),
            answers: Vec::new(),
            resume,
            interrupted: false,
            outgoing: Outgoing::NotYet,
        });
        if to_run.is_empty() {
            self.send_round(&thread_id);
            return Ok(());
        }
        // The calls run first, under the run id of the request that will carry their results;
        // that request goes out once they are all answered (`maybe_advance`).
        let run_id = self.next_id("run");
        if let Some(turn) = self.turn_mut(&thread_id) {
            turn.run_id = run_id;
            turn.stream_done = true;
        }
        for call in to_run {
            self.dispatch(&thread_id, call, true);
        }
        self.maybe_advance(&thread_id);
        Ok(())
    }

    /// The host is about to send this round's request with `body`: the [`Action::Send`]'s, or
    /// what the app's `prepareRequest` made of it (reported before any answer, once per round).
    /// `false`: the round is over (stopped, the turn ended or moved on) or its request already
    /// went out, and the host sends nothing. A reconnect ([`Action::Reconnect`]) sends the body
    /// reported here; a host that reports nothing sends the `Send`'s body, and so does its
    /// reconnect.
    pub fn handle_request_prepared(&mut self, thread_id: &str, run_id: &str, body: &str) -> bool {
        self.current_turn(thread_id, run_id)
            .is_some_and(|turn| turn.outgoing.send(Some(body)))
    }

    /// The response to the current round arrived: anything but a 2xx `text/event-stream` ends
    /// the turn in error ([`crate::http`]). `error_body` is the body of a non-2xx answer, as far
    /// as the host read it (the error quotes its start, so it can say what the server said).
    pub fn handle_response(
        &mut self,
        thread_id: &str,
        run_id: &str,
        status: u16,
        content_type: Option<&str>,
        error_body: Option<&str>,
    ) {
        let Some(turn) = self.current_turn(thread_id, run_id) else {
            return;
        };
        // Not reported: the `Send` went out as it was.
        turn.outgoing.send(None);
        if !crate::http::is_success(status) {
            let message = match error_body.and_then(crate::http::error_excerpt) {
                Some(body) => format!("the agent answered HTTP {status}: {body}"),
                None => format!("the agent answered HTTP {status}"),
            };
            self.fail(thread_id, "run/http", message, Some(status));
            return;
        }
        let is_sse = content_type.is_some_and(|ct| {
            ct.split(';').next().is_some_and(|mime| {
                crate::lean::text::trim(mime).eq_ignore_ascii_case("text/event-stream")
            })
        });
        if !is_sse {
            let message = format!(
                "expected a text/event-stream answer, got {}",
                content_type.unwrap_or("no content type")
            );
            self.fail(thread_id, "run/content-type", message, Some(status));
        }
    }

    /// The next bytes of the current round's body.
    pub fn handle_bytes(&mut self, thread_id: &str, run_id: &str, bytes: &[u8]) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_mut().filter(|t| t.run_id == run_id) else {
            return;
        };
        state.active |= !bytes.is_empty();
        turn.outgoing.send(None);
        let Some(decoder) = turn.decoder.as_mut() else {
            return;
        };
        // At an error the turn ends and the decoder goes with it: it need not keep the error.
        if let Err(error) = decoder.feed_once(bytes) {
            self.decode_failed(thread_id, error);
            return;
        }
        self.drain_decoder(thread_id);
    }

    /// The current round's body ended. Without `RUN_FINISHED` after events with SSE ids, the
    /// stream is resumed ([`Action::Reconnect`]) while attempts are left.
    pub fn handle_body_end(&mut self, thread_id: &str, run_id: &str) {
        if self.current_turn(thread_id, run_id).is_none() || self.try_reconnect(thread_id) {
            return;
        }
        let Some(decoder) = self.turn_mut(thread_id).and_then(|t| t.decoder.as_mut()) else {
            return;
        };
        if let Err(error) = decoder.finish_once() {
            self.decode_failed(thread_id, error);
            return;
        }
        self.drain_decoder(thread_id);
        let Some(turn) = self.turn_mut(thread_id) else {
            return;
        };
        turn.decoder = None;
        if !turn.run_finished {
            self.fail(
                thread_id,
                "run/truncated",
                "the stream ended without RUN_FINISHED or RUN_ERROR".to_owned(),
                None,
            );
            return;
        }
        turn.stream_done = true;
        self.collect_pending(thread_id);
        self.maybe_advance(thread_id);
    }

    /// The fetch failed (network error, or the body could not be read): the stream is resumed as
    /// at [`handle_body_end`](Self::handle_body_end) if it can be, else `run/network`. With a
    /// `status` (the app's `fetch` threw a value carrying one, an auth wrapper's 401), `run/http`
    /// with that status.
    pub fn handle_transport_error(
        &mut self,
        thread_id: &str,
        run_id: &str,
        message: &str,
        status: Option<u16>,
    ) {
        match status {
            Some(status) => self.handle_request_error(
                thread_id,
                run_id,
                "run/http",
                &format!("HTTP {status}, thrown by fetch: {message}"),
                Some(status),
            ),
            None => {
                if self.current_turn(thread_id, run_id).is_some() && self.try_reconnect(thread_id) {
                    return;
                }
                self.handle_request_error(thread_id, run_id, "run/network", message, None)
            }
        }
    }

    /// The host could not send this round's request (`code`: `run/network`, `run/http`, or
    /// `run/prepare-request` when the app's `prepareRequest` threw): the turn ends in error.
    pub fn handle_request_error(
        &mut self,
        thread_id: &str,
        run_id: &str,
        code: &str,
        message: &str,
        status: Option<u16>,
    ) {
        if self.current_turn(thread_id, run_id).is_some() {
            self.fail(thread_id, code, message.to_owned(), status);
        }
    }

    /// A browser tool finished. Results for calls that are not running (late, after an abort,
    /// or unknown) are ignored.
    pub fn handle_tool_result(
        &mut self,
        thread_id: &str,
        tool_call_id: &str,
        outcome: ToolOutcome,
    ) {
        let limit = self.config.max_tool_result_bytes;
        let Some(turn) = self.turn_mut(thread_id) else {
            return;
        };
        let Some(RunningCall {
            tool_name,
            follow_up,
            ..
        }) = turn.running.remove(tool_call_id)
        else {
            return;
        };
        let run_id = turn.run_id.clone();
        let outcome = bounded(outcome, &tool_name, limit);
        if follow_up {
            if let Some(slot) = turn
                .answers
                .iter_mut()
                .find(|(call, _)| call.tool_call_id == tool_call_id)
            {
                slot.1 = Some(outcome.clone());
            }
        } else {
            self.record_result(thread_id, tool_call_id, &outcome);
        }
        self.emit_tool_finished(thread_id, &run_id, tool_call_id, &tool_name, &outcome);
        self.maybe_advance(thread_id);
    }

    /// Aborts the thread's turn: the fetch and the handlers are cancelled, no restart happens,
    /// and every call of the turn that got no result is settled with an `INTERRUPTED` result.
    pub fn abort(&mut self, thread_id: &str) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_mut() else {
            return;
        };
        turn.decoder = None;
        let run_id = turn.run_id.clone();
        let running: Vec<(String, String)> = turn
            .running
            .drain()
            .map(|(id, call)| (id, call.tool_name))
            .collect();
        self.actions.push_back(Action::Cancel {
            thread_id: thread_id.to_owned(),
        });
        for (id, name) in running {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::Stopped,
                format!("the run was stopped before {name} finished"),
            ));
            self.emit_tool_finished(thread_id, &run_id, &id, &name, &outcome);
        }
        self.finish(thread_id, RunStatus::Aborted, None);
    }

    // ---- internals ----------------------------------------------------------------------

    fn next_id(&mut self, kind: &str) -> String {
        self.next_id += 1;
        format!("{kind}-{}-{}", self.id_prefix, self.next_id)
    }

    fn turn_mut(&mut self, thread_id: &str) -> Option<&mut Turn> {
        self.threads.get_mut(thread_id)?.turn.as_mut()
    }

    /// The thread's turn, if `run_id` is its current round.
    fn current_turn(&mut self, thread_id: &str, run_id: &str) -> Option<&mut Turn> {
        self.turn_mut(thread_id).filter(|t| t.run_id == run_id)
    }

    /// The round's stream was cut (it ended without `RUN_FINISHED`, or the network failed): if
    /// it had events with SSE ids and attempts are left, starts a new connection of the same
    /// stream ([`Action::Reconnect`]) and returns `true`. The delay is the stream's `retry:`
    /// (else [`SessionConfig::reconnect_delay_ms`]), doubled for each attempt in a row.
    fn try_reconnect(&mut self, thread_id: &str) -> bool {
        let max = self.config.max_reconnects;
        let base = self.config.reconnect_delay_ms;
        let Some(turn) = self.turn_mut(thread_id).filter(|t| !t.run_finished) else {
            return false;
        };
        let Some(decoder) = turn.decoder.as_mut() else {
            return false;
        };
        let Some(id) = decoder.last_event_id().map(str::to_owned) else {
            return false;
        };
        // The cut stream had events: its request went out.
        let Outgoing::Sent(request) = &turn.outgoing else {
            return false;
        };
        if turn.resumed_from.as_ref() != Some(&id) {
            turn.reconnects = 0;
        }
        if turn.reconnects >= max {
            return false;
        }
        let base = decoder.reconnection_time().unwrap_or(base);
        let delay_ms = base.saturating_mul(1 << turn.reconnects.min(16));
        decoder.reconnect();
        turn.reconnects += 1;
        turn.resumed_from = Some(id.clone());
        let run_id = turn.run_id.clone();
        let request = request.clone();
        self.actions.push_back(Action::Reconnect {
            thread_id: thread_id.to_owned(),
            run_id,
            request,
            // SSE text, not JSON: in the internal form, like every string an action carries.
            last_event_id: crate::json::from_js_string(&id).into_owned(),
            delay_ms,
        });
        true
    }

    fn send_round(&mut self, thread_id: &str) {
        // The first round of a turn that ran a loaded history's calls has its id already.
        let preset = self
            .turn_mut(thread_id)
            .filter(|t| t.round == 0)
            .map(|t| std::mem::take(&mut t.run_id))
            .filter(|id| !id.is_empty());
        let run_id = preset.unwrap_or_else(|| self.next_id("run"));
        let history = self.config.history;
        let options = DecodeOptions {
            max_event_bytes: self.config.max_event_bytes,
            output: Output::Both,
            resumable: true,
            ..DecodeOptions::default()
        };
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_mut() else {
            return;
        };
        turn.round += 1;
        turn.run_id = run_id.clone();
        turn.decoder = Some(EventDecoder::new(&options));
        turn.stream_done = false;
        turn.run_finished = false;
        turn.interrupted = false;
        turn.reconnects = 0;
        turn.resumed_from = None;
        turn.answers.clear();
        let mut builder = RunInputBuilder::new(thread_id, run_id.clone())
            .tools(turn.tools.wire.clone())
            .context(turn.context.clone())
            .state(request_state(state.thread.state()));
        if !turn.resume.is_empty() {
            builder = builder.resume(std::mem::take(&mut turn.resume));
        }
        if let Some(props) = &turn.forwarded_props {
            builder = builder.forwarded_props(props.clone());
        }
        let input = match history {
            HistoryMode::Full => builder.build(state.thread.messages()),
            HistoryMode::New => {
                let unsent = StrSet::new(state.unsent.iter().map(String::as_str).collect());
                let messages: Vec<Message> = state
                    .thread
                    .messages()
                    .iter()
                    .filter(|m| unsent.contains(m.id()))
                    .cloned()
                    .collect();
                builder.build(&messages)
            }
        };
        state.unsent.clear();
        state.thread.begin_run();
        let round = turn.round;
        // The id passed `thread_id::check` in `start_run`.
        let url = crate::thread_id::fill(&self.config.run_url, thread_id);
        self.actions
            .push_back(Action::Emit(RuntimeEvent::RoundStarted {
                thread_id: thread_id.to_owned(),
                run_id: run_id.clone(),
                round,
            }));
        let mut headers: Vec<(String, String)> = Vec::new();
        for (name, value) in &self.config.headers {
            if !name.eq_ignore_ascii_case("content-type") && !name.eq_ignore_ascii_case("accept") {
                headers.push((name.clone(), value.clone()));
            }
        }
        headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
        headers.push(("Accept".to_owned(), "text/event-stream".to_owned()));
        let body = input.to_json();
        turn.outgoing = Outgoing::Preparing(RoundRequest {
            url: url.clone(),
            headers: headers.clone(),
            body: body.clone(),
        });
        self.actions.push_back(Action::Send {
            thread_id: thread_id.to_owned(),
            run_id,
            url,
            headers,
            body,
        });
    }

    /// Folds everything the decoder has ready into the thread and tells the listeners.
    fn drain_decoder(&mut self, thread_id: &str) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_mut() else {
            return;
        };
        let Some(decoder) = turn.decoder.as_mut() else {
            return;
        };
        let mut fire_and_forget = Vec::new();
        let mut run_error = None;
        while let Some(item) = decoder.next_item() {
            if item.expanded {
                // A snapshot holds the server's messages only: the results this turn recorded
                // and has not sent yet (fire-and-forget calls) are put back after it.
                let recorded = match &item.event {
                    Event::MessagesSnapshot(_) => {
                        unsent_tool_messages(&state.thread, &state.unsent)
                    }
                    _ => Vec::new(),
                };
                let applied = state.thread.fold(&item.event);
                for message in recorded {
                    keep_tool_message(&mut state.thread, message);
                }
                match applied {
                    Ok(Applied::Added(at)) if at + 1 != state.thread.messages().len() => {
                        // Inserted before other messages: every later position moved.
                        state.changed_all = true;
                    }
                    Ok(Applied::Message(at)) | Ok(Applied::Added(at)) => {
                        // A token stream changes the same message thousands of times between
                        // two frames: record it once.
                        if let Some(message) = state.thread.messages().get(at) {
                            if state.changed.last().map(String::as_str) != Some(message.id()) {
                                state.changed.push(message.id().to_owned());
                            }
                        }
                    }
                    Ok(Applied::Messages) => state.changed_all = true,
                    Ok(Applied::State) => state.state_changed = true,
                    // A patch that does not apply leaves the state as it was; the TS client
                    // logs and continues, and so does the loop.
                    Ok(_) | Err(_) => {}
                }
                match &item.event {
                    Event::RunFinished(e) => {
                        turn.run_finished = true;
                        // A run on a thread with open interrupts answered them all: they close
                        // here, and an `interrupt` outcome opens the new ones.
                        state.interrupts = match &e.outcome {
                            Some(RunFinishedOutcome::Interrupt { interrupts }) => {
                                turn.interrupted = true;
                                interrupts.clone()
                            }
                            _ => Vec::new(),
                        };
                    }
                    Event::RunError(e) => {
                        run_error = Some(RunError {
                            code: e.code.clone().unwrap_or_else(|| "run/error".to_owned()),
                            message: e.message.clone(),
                            status: None,
                        })
                    }
                    Event::ToolCallEnd(e) => {
                        if let Some(CallKind::Enabled(tool)) = state
                            .thread
                            .tool_call(&e.tool_call_id)
                            .and_then(|call| turn.tools.calls.get(&call.function.name))
                        {
                            if !tool.follow_up && !state.handled.contains(&e.tool_call_id) {
                                fire_and_forget.push(e.tool_call_id.clone());
                            }
                        }
                    }
                    _ => {}
                }
            }
            if item.wire && self.agui_events {
                self.actions.push_back(Action::Emit(RuntimeEvent::Agui {
                    thread_id: thread_id.to_owned(),
                    run_id: turn.run_id.clone(),
                    event: item.event,
                }));
            }
        }
        for tool_call_id in fire_and_forget {
            if let Some(call) = self.threads[thread_id].thread.pending_call(&tool_call_id) {
                self.dispatch(thread_id, call, false);
            }
        }
        if let Some(error) = run_error {
            self.actions.push_back(Action::Cancel {
                thread_id: thread_id.to_owned(),
            });
            self.finish(thread_id, RunStatus::Error, Some(error));
        }
    }

    /// After `RUN_FINISHED` and the end of the body: decides what the browser must answer.
    ///
    /// A non-empty `outcome.pendingToolCallIds` is the server's word on which calls are the
    /// client's: the calls it names run, an id that names no call is reported (a `diagnostic`,
    /// `run/unknown-pending-call`) and skipped, and a call of this run it leaves out is not run
    /// (running a tool the server did not hand over could act for no one) but answered at once,
    /// with a tool message that says so (providers want an answer for every call).
    fn collect_pending(&mut self, thread_id: &str) {
        self.check_named_pending(thread_id);
        let Some(state) = self.threads.get(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_ref() else {
            return;
        };
        let mut calls = Vec::new();
        for call in state.thread.pending_tool_calls() {
            if state.handled.contains(&call.tool_call_id) {
                continue;
            }
            match turn.tools.calls.get(&call.tool_name) {
                Some(CallKind::Backend) => {}
                Some(CallKind::Enabled(tool)) if !tool.follow_up => {}
                _ => calls.push(call),
            }
        }
        if calls.is_empty() {
            return;
        }
        let restarts = turn.round.saturating_sub(1);
        if restarts >= self.config.max_rounds {
            // The model keeps calling tools: stop without running them (their results would
            // never reach it), and settle the calls so the next turn is valid.
            let limit = self.config.max_rounds;
            for call in calls {
                let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                    Interruption::RunEnded,
                    format!("the turn stopped after maxRounds ({limit}) restarts"),
                ));
                self.record_result(thread_id, &call.tool_call_id, &outcome);
            }
            let error = RunError {
                code: "run/max-rounds".to_owned(),
                message: format!("the agent still called tools after {limit} restarts"),
                status: None,
            };
            self.finish(thread_id, RunStatus::MaxRounds, Some(error));
            return;
        }
        for call in calls {
            self.dispatch(thread_id, call, true);
        }
    }

    /// Reports the ids of `outcome.pendingToolCallIds` that name no call, and answers the calls
    /// of this run it leaves out (see [`Session::collect_pending`]).
    fn check_named_pending(&mut self, thread_id: &str) {
        let Some(state) = self.threads.get(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_ref() else {
            return;
        };
        let Some(named) = state.thread.named_pending_ids() else {
            return;
        };
        let run_id = turn.run_id.clone();
        // Calls the server answers itself (backend tools) are its business, listed or not.
        let unlisted: Vec<PendingCall> = state
            .thread
            .unanswered_ended_calls()
            .into_iter()
            .filter(|call| {
                !named.contains(&call.tool_call_id)
                    && !state.handled.contains(&call.tool_call_id)
                    && !matches!(
                        turn.tools.calls.get(&call.tool_name),
                        Some(CallKind::Backend)
                    )
            })
            .collect();
        let mut unknown: Vec<String> = Vec::new();
        for id in named {
            if !state.thread.has_tool_call(id) {
                unknown.push(id.clone());
            }
        }
        let listed = quoted_list(named);
        for call in unlisted {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::RunEnded,
                format!(
                    "the server did not hand this call to the client (RUN_FINISHED.outcome.pendingToolCallIds named only {listed}), so it did not run"
                ),
            ));
            self.record_result(thread_id, &call.tool_call_id, &outcome);
            self.emit_tool_finished(
                thread_id,
                &run_id,
                &call.tool_call_id,
                &call.tool_name,
                &outcome,
            );
        }
        for id in unknown {
            self.actions
                .push_back(Action::Emit(RuntimeEvent::Diagnostic {
                    diagnostic: crate::tools::Diagnostic {
                        index: None,
                        name: None,
                        code: "run/unknown-pending-call",
                        message: format!(
                            "RUN_FINISHED.outcome.pendingToolCallIds names {}, which is no tool call of thread {}; it is skipped", quoted(&id), quoted(thread_id)
                        ),
                    },
                }));
        }
    }

    /// Answers one call: runs it (validated), or answers it with an error at once.
    fn dispatch(&mut self, thread_id: &str, call: PendingCall, follow_up: bool) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_mut() else {
            return;
        };
        state.handled.insert(call.tool_call_id.clone());
        let run_id = turn.run_id.clone();
        let tool = match turn.tools.calls.get(&call.tool_name) {
            Some(CallKind::Enabled(tool)) => Ok(tool.clone()),
            Some(CallKind::Disabled) => Err(ToolFailure::new(
                FailureCode::ToolNotAvailable,
                format!("the tool {} is disabled in this chat", call.tool_name),
            )),
            _ => Err(ToolFailure::new(
                FailureCode::ToolNotAvailable,
                format!("there is no tool named {}", call.tool_name),
            )),
        };
        let prepared = tool.and_then(|tool| {
            let args = parse_arguments(&call.arguments)?;
            validate(&tool.parameters, &args, self.patterns.as_ref()).map_err(|violation| {
                ToolFailure::new(FailureCode::InvalidToolArguments, violation.to_text())
            })?;
            Ok((tool, args))
        });
        let tool_name = match &prepared {
            Ok((tool, _)) => tool.name.clone(),
            Err(_) => call.tool_name.clone(),
        };
        if follow_up {
            turn.answers.push((call.clone(), None));
        }
        match prepared {
            Ok((tool, args)) => {
                let timeout_ms = match tool.time_limit {
                    TimeLimit::Default => Some(self.config.tool_timeout_ms),
                    TimeLimit::Never => None,
                    TimeLimit::Ms(ms) => Some(ms),
                };
                turn.running.insert(
                    call.tool_call_id.clone(),
                    RunningCall {
                        tool_name: tool_name.clone(),
                        follow_up,
                        timeout_ms,
                        deadline: None,
                        called: false,
                    },
                );
                self.actions
                    .push_back(Action::Emit(RuntimeEvent::ToolStarted {
                        thread_id: thread_id.to_owned(),
                        run_id: run_id.clone(),
                        tool_call_id: call.tool_call_id.clone(),
                        tool_name,
                        args: args.clone(),
                    }));
                self.actions.push_back(Action::Execute(ToolCallJob {
                    thread_id: thread_id.to_owned(),
                    run_id,
                    tool_call_id: call.tool_call_id,
                    tool,
                    args,
                    timeout_ms,
                }));
            }
            Err(failure) => {
                let outcome = ToolOutcome::Failed(failure);
                if follow_up {
                    if let Some(slot) = turn.answers.last_mut() {
                        slot.1 = Some(outcome.clone());
                    }
                } else {
                    self.record_result(thread_id, &call.tool_call_id, &outcome);
                }
                self.emit_tool_finished(
                    thread_id,
                    &run_id,
                    &call.tool_call_id,
                    &tool_name,
                    &outcome,
                );
            }
        }
    }

    /// Restarts when every follow-up call of the round is answered, or ends the turn.
    fn maybe_advance(&mut self, thread_id: &str) {
        let Some(turn) = self.turn_mut(thread_id) else {
            return;
        };
        if !turn.stream_done || !turn.running.is_empty() {
            return;
        }
        if turn.answers.is_empty() {
            let status = if turn.interrupted {
                RunStatus::Interrupted
            } else {
                RunStatus::Completed
            };
            self.finish(thread_id, status, None);
            return;
        }
        let answers = std::mem::take(&mut turn.answers);
        for (call, outcome) in answers {
            let outcome = outcome.unwrap_or_else(|| {
                ToolOutcome::Failed(ToolFailure::new(
                    FailureCode::ToolExecutionFailed,
                    "the tool produced no result",
                ))
            });
            self.record_result(thread_id, &call.tool_call_id, &outcome);
        }
        self.send_round(thread_id);
    }

    /// Puts a tool message for the call into the thread, where the agent expects it.
    fn record_result(&mut self, thread_id: &str, tool_call_id: &str, outcome: &ToolOutcome) {
        let id = self.next_id("tool");
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        state.handled.insert(tool_call_id.to_owned());
        state.unsent.push(id.clone());
        state.changed.push(id.clone());
        let at = state.thread.insert_tool_result(ToolMessage {
            id,
            content: Content::Text(outcome.content()),
            tool_call_id: tool_call_id.to_owned(),
            error: outcome.error(),
            encrypted_value: None,
            metadata: None,
            subagent_run_id: None,
        });
        if at + 1 != state.thread.messages().len() {
            // Placed before later messages (right after its assistant message).
            state.changed_all = true;
        }
    }

    fn emit_tool_finished(
        &mut self,
        thread_id: &str,
        run_id: &str,
        tool_call_id: &str,
        tool_name: &str,
        outcome: &ToolOutcome,
    ) {
        let (result, error) = match outcome {
            ToolOutcome::Value(value) => (Some(value.clone()), None),
            ToolOutcome::Failed(failure) => (
                None,
                Some(ToolErrorInfo {
                    code: failure.code.as_str(),
                    message: failure.message.clone(),
                }),
            ),
        };
        self.actions
            .push_back(Action::Emit(RuntimeEvent::ToolFinished {
                thread_id: thread_id.to_owned(),
                run_id: run_id.to_owned(),
                tool_call_id: tool_call_id.to_owned(),
                tool_name: tool_name.to_owned(),
                result,
                error,
            }));
    }

    fn decode_failed(&mut self, thread_id: &str, error: DecodeError) {
        self.actions.push_back(Action::Cancel {
            thread_id: thread_id.to_owned(),
        });
        self.fail(thread_id, error.code(), error.to_string(), None);
    }

    fn fail(&mut self, thread_id: &str, code: &str, message: String, status: Option<u16>) {
        let error = RunError {
            code: code.to_owned(),
            message,
            status,
        };
        self.finish(thread_id, RunStatus::Error, Some(error));
    }

    /// Ends the turn: settles every call of the turn still without a result, then reports.
    fn finish(&mut self, thread_id: &str, status: RunStatus, error: Option<RunError>) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(mut turn) = state.turn.take() else {
            return;
        };
        let (why, reason) = match status {
            RunStatus::Aborted => (
                Interruption::Stopped,
                "the run was stopped before this call was answered",
            ),
            _ => (
                Interruption::RunEnded,
                "the run ended before this call was answered",
            ),
        };
        // A call an open interrupt names, or named when the turn started, stays the server's: no
        // answer from here.
        let mut held = held_calls(&state.interrupts);
        held.append(&mut turn.held_before);
        // Results gathered for a restart that will not happen are real answers: keep them. A
        // call still without one (it may be a loaded history's, `Pending::Run`) gets one below.
        let mut settle: Vec<(String, ToolOutcome)> = Vec::new();
        for (call, outcome) in turn.answers.drain(..) {
            if outcome.is_none() && held.contains(&call.tool_call_id) {
                continue;
            }
            let outcome = outcome
                .unwrap_or_else(|| ToolOutcome::Failed(ToolFailure::interrupted(why, reason)));
            settle.push((call.tool_call_id, outcome));
        }
        // Every other call without an answer gets one, so the next turn is valid for providers
        // that demand a result for every call. The turn started with none but the held ones
        // (`start_run` settled or ran the others), so each is this turn's, whichever message it
        // joined: a call may name an earlier turn's message as its parent.
        for id in unanswered_calls(state.thread.messages()) {
            if !held.contains(&id) && !settle.iter().any(|(s, _)| *s == id) {
                let outcome = ToolOutcome::Failed(ToolFailure::interrupted(why, reason));
                settle.push((id, outcome));
            }
        }
        for (tool_call_id, outcome) in &settle {
            self.record_result(thread_id, tool_call_id, outcome);
        }
        let Some(state) = self.threads.get(thread_id) else {
            return;
        };
        let messages = state.thread.messages();
        let new_positions = (0..messages.len())
            .filter(|&at| !turn.before.contains(messages[at].id()))
            .collect();
        let interrupts = (status == RunStatus::Interrupted).then(|| state.interrupts.clone());
        let result = RunResult {
            thread_id: thread_id.to_owned(),
            status,
            rounds: turn.round,
            messages: messages.to_vec(),
            new_positions,
            state: state.thread.state().clone(),
            error: error.clone(),
            interrupts: interrupts.clone(),
        };
        self.actions
            .push_back(Action::Emit(RuntimeEvent::RunFinished {
                thread_id: thread_id.to_owned(),
                status,
                rounds: turn.round,
                error,
                interrupts,
            }));
        self.actions.push_back(Action::Finished(Box::new(result)));
    }
}

/// `"a", "b"`: ids as JSON strings, comma-separated.
fn quoted_list(ids: &[String]) -> String {
    let mut out = String::new();
    for (n, id) in ids.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        crate::json::write_str(&mut out, id);
    }
    out
}

/// The tool calls the open `interrupts` name: the server's until they are resumed.
fn held_calls(interrupts: &[Interrupt]) -> Vec<String> {
    interrupts
        .iter()
        .filter_map(|i| i.tool_call_id.clone())
        .collect()
}

/// The `resume` a run sends: the app's `answers`, each payload of a `resolved` answer checked
/// against its interrupt's `responseSchema` (by the validator of tool arguments), then a
/// `cancelled` answer for each open interrupt the app left unanswered that is past its
/// `expiresAt` at `now_ms`. An interrupt answered twice, a payload off its schema, or an open
/// interrupt left unanswered that has not expired refuses the run. An answer to an interrupt
/// the thread does not hold (the app kept it across a reload) is sent as it is.
fn answer_interrupts(
    thread_id: &str,
    open: &[Interrupt],
    mut answers: Vec<ResumeEntry>,
    now_ms: Option<u64>,
    patterns: &dyn PatternMatcher,
) -> Result<Vec<ResumeEntry>, SessionError> {
    for (at, answer) in answers.iter().enumerate() {
        let bad = |message: String, violation: Option<Violation>| SessionError::BadResume {
            interrupt_id: answer.interrupt_id.clone(),
            message,
            violation,
        };
        if answers[..at]
            .iter()
            .any(|a| a.interrupt_id == answer.interrupt_id)
        {
            return Err(bad("it is answered twice".to_owned(), None));
        }
        let schema = open
            .iter()
            .find(|i| i.id == answer.interrupt_id)
            .and_then(|i| i.response_schema.as_ref());
        if let (ResumeStatus::Resolved, Some(schema)) = (&answer.status, schema) {
            let payload = answer.payload.clone().unwrap_or(Value::Null);
            validate(&Value::Object(schema.clone()), &payload, patterns).map_err(|v| {
                bad(
                    format!(
                        "the payload does not match its responseSchema: {}",
                        v.to_text()
                    ),
                    Some(v),
                )
            })?;
        }
    }
    let mut unanswered = Vec::new();
    for interrupt in open {
        if answers.iter().any(|a| a.interrupt_id == interrupt.id) {
            continue;
        }
        let expired = match (now_ms, interrupt.expires_at.as_deref().and_then(epoch_ms)) {
            // Before 1970 is negative: expired for every clock.
            (Some(now), Some(at)) => i64::try_from(now).map_or(true, |now| now >= at),
            _ => false,
        };
        if expired {
            answers.push(ResumeEntry {
                interrupt_id: interrupt.id.clone(),
                status: ResumeStatus::Cancelled,
                payload: None,
                metadata: None,
            });
        } else {
            unanswered.push(interrupt.id.clone());
        }
    }
    if !unanswered.is_empty() {
        return Err(SessionError::UnansweredInterrupts {
            thread_id: thread_id.to_owned(),
            ids: unanswered,
        });
    }
    Ok(answers)
}

/// An ISO 8601 date-time (`2026-05-01T12:00:00Z`, `2026-05-01T14:00:00.5+02:00`, years 0000 to
/// 9999) as ms since the Unix epoch, negative before 1970; `None` for any other text (such an
/// `expiresAt` never expires).
fn epoch_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let digits = b.get(from..from + len)?;
        digits.iter().try_fold(0i64, |n, d| {
            d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
        })
    };
    let sep = |at: usize, c: &[u8]| b.get(at).is_some_and(|x| c.contains(x));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut at = 19;
    let mut millis = 0;
    if sep(at, b".") {
        at += 1;
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            if at - start < 3 {
                millis = millis * 10 + i64::from(b[at] - b'0');
            }
            at += 1;
        }
        if at == start {
            return None;
        }
        for _ in (at - start)..3 {
            millis *= 10;
        }
    }
    let offset_min = match b.get(at) {
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if at + 6 == b.len() && sep(at + 3, b":") => {
            let minutes = num(at + 1, 2)? * 60 + num(at + 4, 2)?;
            if *sign == b'+' {
                minutes
            } else {
                -minutes
            }
        }
        _ => return None,
    };
    // Days from 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_min * 60;
    // At most 10,000 years either way: far inside i64 milliseconds.
    Some(seconds * 1000 + millis)
}

/// The ids of tool calls that no tool message answers, in thread order.
fn unanswered_calls(messages: &[Message]) -> Vec<String> {
    let mut answered = Vec::new();
    for message in messages {
        if let Message::Tool(t) = message {
            answered.push(t.tool_call_id.as_str());
        }
    }
    let answered = StrSet::new(answered);
    let mut ids = Vec::new();
    for message in messages {
        let Message::Assistant(a) = message else {
            continue;
        };
        for call in a.tool_calls.iter().flatten() {
            if !answered.contains(call.id.as_str()) {
                ids.push(call.id.clone());
            }
        }
    }
    ids
}

/// A result larger than `limit` bytes (a string's UTF-8, any other value's JSON text) becomes a
/// `TOOL_RESULT_TOO_LARGE` failure.
fn bounded(outcome: ToolOutcome, tool_name: &str, limit: usize) -> ToolOutcome {
    let size = match &outcome {
        ToolOutcome::Value(Value::String(text)) => text.len(),
        ToolOutcome::Value(value) => value.to_json().len(),
        ToolOutcome::Failed(_) => return outcome,
    };
    if size <= limit {
        return outcome;
    }
    ToolOutcome::Failed(ToolFailure::new(
        FailureCode::ToolResultTooLarge,
        format!("{tool_name} returned {size} bytes; the limit is {limit} (maxToolResultBytes)"),
    ))
}

/// Parses a call's JSON arguments: `""` is `{}`.
fn parse_arguments(text: &str) -> Result<Value, ToolFailure> {
    if crate::lean::text::trim(text).is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    // The arguments text was assembled from parsed deltas: it is in the internal string form.
    Value::parse_internal(text).map_err(|e| {
        ToolFailure::new(
            FailureCode::InvalidToolArguments,
            format!("the arguments are not valid JSON: {e}"),
        )
    })
}

#[cfg(test)]
mod epoch_tests {
    use super::epoch_ms;

    #[test]
    fn dates_on_both_sides_of_1970_and_the_ends_of_the_range() {
        for (text, ms) in [
            ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59Z", -1_000),
            ("1969-12-31T23:59:59.999Z", -1),
            ("1970-01-01T01:00:00+01:00", 0),
            ("2000-01-01T00:00:00Z", 946_684_800_000),
            ("0001-01-01T00:00:00Z", -62_135_596_800_000),
            ("0000-03-01T00:00:00Z", -62_162_035_200_000),
            ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
        ] {
            assert_eq!(epoch_ms(text), Some(ms), "{text}");
        }
    }

    #[test]
    fn any_text_parses_or_is_none_and_never_panics() {
        let base = "1969-12-31T23:59:59.123456-12:34";
        assert!(epoch_ms(base).is_some());
        let bytes = base.as_bytes();
        for cut in 0..bytes.len() {
            let _ = epoch_ms(&base[..cut]);
            for b in [b'0', b'9', b'-', b'+', b':', b'.', b'Z', b'T', b' ', b'x'] {
                let mut changed = bytes.to_vec();
                changed[cut] = b;
                let _ = epoch_ms(std::str::from_utf8(&changed).unwrap());
            }
        }
        for text in [
            "",
            "-",
            "-0001-01-01T00:00:00Z",
            "99999-01-01T00:00:00Z",
            "é",
        ] {
            assert_eq!(epoch_ms(text), None, "{text}");
        }
    }
}
