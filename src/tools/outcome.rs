//! Tool outcomes as the model sees them: a result as `content`, a failure as `error` *and* a
//! readable `content` in one fixed format, so models learn it and can recover:
//!
//! ```text
//! TOOL ERROR: <CODE>
//! <message>
//! RECOVERY HINT: <what the model can do>
//! ```

use crate::json::Value;

/// Why a tool call produced no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureCode {
    /// The arguments were not JSON, or broke the tool's schema.
    InvalidToolArguments,
    /// The tool is unknown, or disabled in this thread.
    ToolNotAvailable,
    /// The handler threw or its promise rejected.
    ToolExecutionFailed,
    /// The handler did not settle within its time limit.
    Timeout,
    /// The module could not be imported, or has no such export.
    ToolLoadFailed,
    /// The call was not run to the end: the user stopped the run, the run ended (an error, the
    /// round limit) before it was answered, or the page went away while it ran. The message says
    /// which, and so does the hint ([`ToolFailure::interrupted`]).
    Interrupted,
    /// The tool's result is larger than `maxToolResultBytes`.
    ToolResultTooLarge,
}

/// Why a call was [`FailureCode::Interrupted`]: each cause tells the model something different.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interruption {
    /// The user pressed Stop (`abort`, or the run's `signal`).
    Stopped,
    /// The run ended before the call was answered: `RUN_ERROR`, a broken stream, the round limit.
    RunEnded,
    /// The call was never answered in an earlier session (the page was closed or reloaded).
    Abandoned,
    /// The page removed the tool while the call ran (`unregisterTool`, a `useFrontendTool` that
    /// unmounted).
    Removed,
}

impl Interruption {
    fn hint(self) -> &'static str {
        match self {
            Interruption::Stopped => {
                "The user stopped the run; do not call the tool again unless the user asks."
            }
            Interruption::RunEnded => {
                "The run ended before this call was answered; call the tool again if it is still needed."
            }
            Interruption::Abandoned => {
                "The call was never answered; call the tool again if it is still needed."
            }
            Interruption::Removed => {
                "The tool was removed from the page while this call ran; it is not available now."
            }
        }
    }
}

impl FailureCode {
    /// The wire spelling, e.g. `INVALID_TOOL_ARGUMENTS`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureCode::InvalidToolArguments => "INVALID_TOOL_ARGUMENTS",
            FailureCode::ToolNotAvailable => "TOOL_NOT_AVAILABLE",
            FailureCode::ToolExecutionFailed => "TOOL_EXECUTION_FAILED",
            FailureCode::Timeout => "TIMEOUT",
            FailureCode::ToolLoadFailed => "TOOL_LOAD_FAILED",
            FailureCode::Interrupted => "INTERRUPTED",
            FailureCode::ToolResultTooLarge => "TOOL_RESULT_TOO_LARGE",
        }
    }

    /// What the model can do about it.
    pub fn recovery_hint(self) -> &'static str {
        match self {
            FailureCode::InvalidToolArguments => {
                "Fix the arguments so they match the tool's parameters schema, then call the tool again."
            }
            FailureCode::ToolNotAvailable => {
                "Do not call this tool again; answer without it or ask the user to enable it."
            }
            FailureCode::ToolExecutionFailed => {
                "Check the arguments; retry once if the error looks temporary, otherwise tell the user."
            }
            FailureCode::Timeout => {
                "The tool took too long; retry once with a smaller request, otherwise tell the user."
            }
            FailureCode::ToolLoadFailed => {
                "The tool is broken in this browser; do not call it again and tell the user."
            }
            FailureCode::Interrupted => Interruption::Stopped.hint(),
            FailureCode::ToolResultTooLarge => {
                "The result was too large to send back; call the tool again with a narrower request, otherwise tell the user."
            }
        }
    }
}

/// A tool call that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolFailure {
    /// Why.
    pub code: FailureCode,
    /// What happened, for the model and the user.
    pub message: String,
    /// What the model can do about it (the code's [`FailureCode::recovery_hint`] unless the
    /// failure knows better).
    pub hint: &'static str,
}

impl ToolFailure {
    /// A failure with a code and a message.
    pub fn new(code: FailureCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            hint: code.recovery_hint(),
        }
    }

    /// An [`FailureCode::Interrupted`] failure whose hint says why.
    pub fn interrupted(why: Interruption, message: impl Into<String>) -> Self {
        Self {
            code: FailureCode::Interrupted,
            message: message.into(),
            hint: why.hint(),
        }
    }

    /// The `content` of the tool message: the fixed three-line format.
    pub fn content(&self) -> String {
        format!(
            "TOOL ERROR: {}\n{}\nRECOVERY HINT: {}",
            self.code.as_str(),
            self.message,
            self.hint
        )
    }

    /// The `error` field of the tool message: `<CODE>: <message>`.
    pub fn error_field(&self) -> String {
        format!("{}: {}", self.code.as_str(), self.message)
    }
}

/// What a tool call produced.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutcome {
    /// The handler's value, already converted to JSON by the host (a string stays a string).
    Value(Value),
    /// It failed.
    Failed(ToolFailure),
}

impl ToolOutcome {
    /// The tool message `content`: a string result as is, any other value as JSON text, a failure
    /// in the error format.
    pub fn content(&self) -> String {
        match self {
            ToolOutcome::Value(Value::String(text)) => text.clone(),
            ToolOutcome::Value(value) => value.to_string(),
            ToolOutcome::Failed(failure) => failure.content(),
        }
    }

    /// The tool message `error` field, for failures.
    pub fn error(&self) -> Option<String> {
        match self {
            ToolOutcome::Failed(failure) => Some(failure.error_field()),
            ToolOutcome::Value(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn failures_use_the_three_line_format() {
        let failure = ToolFailure::new(
            FailureCode::Timeout,
            "get_weather took longer than 30000 ms",
        );
        assert_eq!(
            failure.content(),
            "TOOL ERROR: TIMEOUT\nget_weather took longer than 30000 ms\nRECOVERY HINT: The tool took too long; retry once with a smaller request, otherwise tell the user."
        );
        assert_eq!(
            failure.error_field(),
            "TIMEOUT: get_weather took longer than 30000 ms"
        );
    }

    #[test]
    fn strings_are_sent_as_is_and_other_values_as_json() {
        assert_eq!(
            ToolOutcome::Value(Value::String("72F".into())).content(),
            "72F"
        );
        assert_eq!(
            ToolOutcome::Value(Value::parse(r#"{"t": 72}"#).unwrap()).content(),
            r#"{"t":72}"#
        );
        assert_eq!(ToolOutcome::Value(Value::Null).content(), "null");
        assert_eq!(ToolOutcome::Value(Value::Null).error(), None);
    }
}
