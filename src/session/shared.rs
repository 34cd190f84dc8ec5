//! What every round of every thread shares ([`Shared`]): the config, the patterns, the actions
//! out, the id counter, the reconnect waits' stamp and the body sink. The session holds it beside
//! its threads; a round borrows it with its own thread, as two pointers, and never sees the
//! session (docs/architecture.md, "Rooms of the session").

use std::collections::VecDeque;

use super::action::Action;
use super::body::BodySink;
use super::config::SessionConfig;
use super::events::RuntimeEvent;
use super::result::ToolErrorInfo;

use crate::tools::outcome::ToolOutcome;
use crate::tools::schema::PatternMatcher;

/// What the rounds share, held once by the session.
pub(super) struct Shared {
    pub(super) config: SessionConfig,
    /// How the schemas' `pattern`s are matched (the runtime's: `tools::pattern::Patterns`).
    pub(super) patterns: Box<dyn PatternMatcher>,
    pub(super) actions: VecDeque<Action>,
    /// Whether each wire event becomes a [`RuntimeEvent::Agui`] (`Session::set_agui_events`).
    pub(super) agui_events: bool,
    /// Makes run and message ids: `{prefix}-{n}`; the host gives a random prefix.
    pub(super) id_prefix: String,
    pub(super) next_id: u64,
    /// Whether a `ReconnectWait` waits for its deadline (the next `poll_action`'s `now`).
    pub(super) unstamped_waits: bool,
    /// Where request bodies are written (`Session::with_body_sink`).
    pub(super) body_sink: Box<dyn BodySink>,
}

impl Shared {
    /// A run or message id: `{kind}-{prefix}-{n}`.
    pub(super) fn next_id(&mut self, kind: &str) -> String {
        self.next_id += 1;
        format!("{kind}-{}-{}", self.id_prefix, self.next_id)
    }

    /// A number for a turn, a request or a stream, unique in the session.
    pub(super) fn next_number(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Tells the listeners a call has its outcome.
    pub(super) fn emit_tool_finished(
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
}
