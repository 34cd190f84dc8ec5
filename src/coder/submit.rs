//! Delivering results to Coder: one `tool-results` body per `action_required` batch, and what
//! each answer to it means. Pure decisions; the host does the POST.
//!
//! The server takes a batch all or nothing (every pending id, in one POST; the first POST wins,
//! later ones get 409) and has no idempotency key, so:
//!
//! - 2xx: done; the stream shows the `tool` messages and `running`.
//! - 409: someone answered first (another tab, the 5-minute deadline, an interrupt) or our own
//!   earlier POST landed: never sent again; the turn goes on, the stream says how.
//! - 400 `Missing tool result.` / `Unexpected tool result.`: the pending set is not the one
//!   answered (the chat moved on to another batch): never sent again; take the pending set
//!   afresh ([`CoderThread::batch`](super::CoderThread::batch), or
//!   [`CoderThread::pending_from_history`](super::CoderThread::pending_from_history)).
//! - Any other 4xx: the body is wrong; never sent again, the error kept.
//! - 5xx, 408, 429 or no answer (the network): the same body once more; if that fails too,
//!   reconcile from the history (a `tool` message for each id means it landed).

use crate::json::Value;
use crate::lean::text::concat;
use crate::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};

use crate::protocol::wire::{ObjWriter, ToJson};

use super::wire::{ApiError, ToolResult};

/// The results of one `action_required` batch, gathered until every id has one.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultsBatch {
    /// The batch's ids, in the order the body lists them, and each one's outcome so far.
    results: Vec<(String, Option<ToolOutcome>)>,
}

impl ResultsBatch {
    /// A batch answering these pending ids (duplicates dropped: the server refuses them).
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>) -> ResultsBatch {
        let mut results: Vec<(String, Option<ToolOutcome>)> = Vec::new();
        for id in ids {
            if !results.iter().any(|(have, _)| have == id) {
                results.push((id.to_owned(), None));
            }
        }
        ResultsBatch { results }
    }

    /// Records a call's outcome; false when the id is not in the batch or already answered
    /// (the first outcome stays).
    pub fn set(&mut self, tool_call_id: &str, outcome: ToolOutcome) -> bool {
        match self.results.iter_mut().find(|(id, _)| id == tool_call_id) {
            Some((_, slot @ None)) => {
                *slot = Some(outcome);
                true
            }
            _ => false,
        }
    }

    /// The ids still without an outcome.
    pub fn missing(&self) -> impl Iterator<Item = &str> {
        self.results
            .iter()
            .filter(|(_, o)| o.is_none())
            .map(|(id, _)| id.as_str())
    }

    /// Whether every id has an outcome.
    pub fn is_complete(&self) -> bool {
        self.missing().next().is_none()
    }

    /// The `tool-results` body, once every id has an outcome: what [`tool_results_body`](super::wire::tool_results_body) writes
    /// for each id's [`result`], written from the outcomes as they are (no copy of the values).
    pub fn body(&self) -> Option<String> {
        let results = self
            .results
            .iter()
            .map(|(id, outcome)| outcome.as_ref().map(|o| (id.as_str(), o)))
            .collect::<Option<Vec<_>>>()?;
        Some(results_body(&results))
    }
}

/// The `tool-results` body of these `(id, outcome)` pairs, in order (ids unique), written as
/// [`ResultsBatch::body`] writes it, from outcomes borrowed where they are kept.
pub fn results_body(results: &[(&str, &ToolOutcome)]) -> String {
    let results: Vec<ResultOut<'_>> = results.iter().map(|&(id, o)| ResultOut(id, o)).collect();
    let mut out = String::new();
    let mut w = ObjWriter::new(&mut out);
    w.field("results", &results);
    w.end();
    out
}

/// One result of the body, borrowed from the batch: written as its [`result`] is.
struct ResultOut<'a>(&'a str, &'a ToolOutcome);

impl ToJson for ResultOut<'_> {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("tool_call_id", self.0);
        match self.1 {
            ToolOutcome::Value(value) => {
                w.field("output", value);
                w.field("is_error", &false);
            }
            ToolOutcome::Failed(failure) => {
                w.field("output", &failure.content());
                w.field("is_error", &true);
            }
        }
        w.end();
    }
}

/// One call's result as Coder takes it: the handler's value as JSON (a string as a JSON
/// string), or a failure's text (the crate's three-line `TOOL ERROR` format) as a JSON string
/// with `is_error`.
pub fn result(tool_call_id: &str, outcome: &ToolOutcome) -> ToolResult {
    match outcome {
        ToolOutcome::Value(value) => ToolResult {
            tool_call_id: tool_call_id.to_owned(),
            output: value.clone(),
            is_error: false,
        },
        ToolOutcome::Failed(failure) => ToolResult {
            tool_call_id: tool_call_id.to_owned(),
            output: Value::String(failure.content()),
            is_error: true,
        },
    }
}

/// The outcome of a call to a tool the user switched off in this chat: never run, answered
/// as an error that says so.
pub fn tool_off(tool_name: &str) -> ToolOutcome {
    ToolOutcome::Failed(ToolFailure::new(
        FailureCode::ToolNotAvailable,
        concat(&["the tool ", tool_name, " is disabled in this chat"]),
    ))
}

/// What came back from a `tool-results` POST.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubmitReply {
    /// An HTTP answer: its status and its body (empty for 204).
    Http(u16, String),
    /// No answer (the network, an aborted fetch).
    Network,
}

/// What to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubmitStep {
    /// The results were taken.
    Done,
    /// Someone answered first (409): do not send again; the turn goes on.
    Superseded(ApiError),
    /// The pending set is not the one answered (400 Missing / Unexpected): do not send again;
    /// take the pending set afresh.
    Refresh(ApiError),
    /// Send the same body again, once.
    Resend,
    /// Sent twice without an answer that says: look in the history for the results.
    Reconcile(Option<ApiError>),
    /// The body was refused (another 4xx): do not send again.
    Failed(ApiError),
}

/// One batch's submission: at most two POSTs of one body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// The body, the same for the resend.
    body: String,
    /// POSTs answered so far.
    sent: u8,
}

impl Submission {
    /// A submission of this body (from [`ResultsBatch::body`]).
    pub fn new(body: String) -> Submission {
        Submission { body, sent: 0 }
    }

    /// The body to POST.
    pub fn body(&self) -> &str {
        &self.body
    }

    /// What the answer to the last POST means.
    pub fn handle_reply(&mut self, reply: SubmitReply) -> SubmitStep {
        self.sent = self.sent.saturating_add(1);
        let error = match reply {
            SubmitReply::Http(status, _) if crate::http::is_success(status) => {
                return SubmitStep::Done
            }
            SubmitReply::Http(status, body) => ApiError::from_response(status, &body),
            SubmitReply::Network => return self.transient(None),
        };
        match error.status {
            409 => SubmitStep::Superseded(error),
            400 if matches!(
                error.message.as_str(),
                "Missing tool result." | "Unexpected tool result."
            ) =>
            {
                SubmitStep::Refresh(error)
            }
            408 | 429 | 500..=599 => self.transient(Some(error)),
            _ => SubmitStep::Failed(error),
        }
    }

    fn transient(&self, error: Option<ApiError>) -> SubmitStep {
        if self.sent < 2 {
            SubmitStep::Resend
        } else {
            SubmitStep::Reconcile(error)
        }
    }
}
