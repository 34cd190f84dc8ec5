//! The work the session hands the host: [`Action`], [`ToolCallJob`], [`RoundRequest`].

use super::body::RequestBody;
use super::events::RuntimeEvent;
use super::result::RunResult;

use crate::json::Value;

use crate::tools::FrontendTool;

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
        /// The turn's round this request starts, from 1 (the app's `prepareRequest` sees it).
        round: u32,
        /// The thread's run URL ([`SessionConfig::run_url`](super::SessionConfig::run_url) filled in).
        url: String,
        /// Every request header: the app's ([`SessionConfig::headers`](super::SessionConfig::headers)), then
        /// `Content-Type: application/json` and `Accept: text/event-stream`.
        headers: Vec<(String, String)>,
        /// The JSON body, as the session's [`BodySink`](super::BodySink) made it (the browser's:
        /// a JS string, never whole in wasm memory), shared with the round's [`RoundRequest`],
        /// which a reconnect sends again: one copy of a body that may hold the whole thread.
        body: RequestBody,
    },
    /// The round's stream was cut after events with SSE ids, and its wait is over (a deadline of
    /// [`Session::poll_timeout`](super::Session::poll_timeout): the stream's `retry:`, else
    /// [`SessionConfig::reconnect_delay_ms`](super::SessionConfig::reconnect_delay_ms), doubled
    /// for each attempt in a row): send `request` now,
    /// again (the round's request exactly as it went out: the [`Action::Send`], or the body the
    /// host reported with [`Session::handle_request_prepared`](super::Session::handle_request_prepared)) with the header
    /// `Last-Event-ID: last_event_id`, and hand the answer in as before
    /// ([`Session::handle_response`](super::Session::handle_response), then the bytes). The server continues the run after that
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
    },
    /// Run a browser tool; answer with [`Session::handle_tool_result`](super::Session::handle_tool_result). Its deadline starts when
    /// the host takes this action ([`Session::poll_action`](super::Session::poll_action)'s `now`).
    Execute(ToolCallJob),
    /// Stop the thread's fetch and fire its handlers' abort signal.
    Cancel {
        /// The thread.
        thread_id: String,
    },
    /// Fire one call's abort signal: its deadline passed ([`Session::handle_timeout`](super::Session::handle_timeout)) and it has
    /// its `TIMEOUT` result already; whatever the handler does later is ignored.
    CancelCall {
        /// The thread.
        thread_id: String,
        /// The call.
        tool_call_id: String,
    },
    /// Coder: what a chat asks of the host ([`CoderAction`](super::coder::action::CoderAction), in the
    /// Coder room).
    #[cfg(feature = "coder")]
    Coder(super::coder::action::CoderAction),
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
    pub body: RequestBody,
}
