//! What the session is configured with and what a `run` call brings: [`SessionConfig`],
//! [`HistoryMode`], [`RunRequest`], [`Pending`].

use crate::json::Value;

use crate::protocol::event::{Context, Message, ResumeEntry};

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
    /// The `RunAgentInput` members a request leaves out (`omitRequestFields`; none by default).
    pub omit: crate::protocol::input::Omitted,
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
    /// are the session's own ([`Action::Send`](super::Action::Send)): an app's header of either name is left out.
    pub headers: Vec<(String, String)>,
    /// How many times in a row a round's stream is resumed after a cut ([`Action::Reconnect`](super::Action::Reconnect))
    /// before the turn ends in error; an attempt that brings a new event starts the count again.
    pub max_reconnects: u32,
    /// The first reconnect's delay in milliseconds when the stream set no `retry:`; each further
    /// attempt in a row waits twice as long.
    pub reconnect_delay_ms: u64,
    /// The Coder chat backend (`None`: AG-UI). With it, a turn is a chat's turn
    /// ([`Session::start_chat`](super::Session::start_chat)) and the AG-UI fields above that
    /// shape a request (`history`, `run_url`, `headers`, `max_rounds`) are not used.
    #[cfg(feature = "coder")]
    pub coder: Option<crate::coder::options::CoderConfig>,
}

/// The default of [`SessionConfig::max_tool_result_bytes`]: 1 MiB, far more than a model's context
/// takes in one tool message, and a bound on what a tool can make the page hold.
pub const DEFAULT_MAX_TOOL_RESULT_BYTES: usize = 1 << 20;

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            history: HistoryMode::Full,
            omit: crate::protocol::input::Omitted::default(),
            max_rounds: 8,
            tool_timeout_ms: 30_000,
            max_event_bytes: crate::protocol::sse::DEFAULT_MAX_EVENT_BYTES,
            run_url: "/api/threads/{threadId}/runs".to_owned(),
            max_tool_result_bytes: DEFAULT_MAX_TOOL_RESULT_BYTES,
            headers: Vec::new(),
            max_reconnects: 3,
            reconnect_delay_ms: 1_000,
            #[cfg(feature = "coder")]
            coder: None,
        }
    }
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
    /// ([`Session::interrupts`](super::Session::interrupts)), sent with the turn's first run.
    pub resume: Vec<ResumeEntry>,
    /// The wall clock when the run starts, in ms since the Unix epoch, for the open interrupts'
    /// `expiresAt` (one past it and not answered is answered `cancelled`); `None`: none expires.
    pub now_ms: Option<u64>,
    /// What happens to the browser calls of a loaded history that have no result.
    pub pending: Pending,
    /// Coder: `thread_id` is not a chat but the id the new chat's turn runs under until the chat
    /// exists (`CoderAction::ThreadCreated`); a chat is created. (An
    /// empty `thread_id` creates one too, under an id of the session's.)
    pub new_chat: bool,
    /// Coder: the message's `busy_behavior` (`queue` or `interrupt`): given, the message is
    /// posted as soon as the chat's stream is read, busy or not, and coderd queues it or stops
    /// the chat's turn for it; `None`: posted once the chat is idle.
    #[cfg(feature = "coder")]
    pub busy_behavior: Option<crate::coder::wire::BusyBehavior>,
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
