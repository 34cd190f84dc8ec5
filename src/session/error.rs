//! Why a call into the session was refused: [`SessionError`].

use crate::json::quoted;

use crate::tools::schema::Violation;

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
    /// A run was given a member its backend does not send: one only an AG-UI run sends
    /// (`context`, `state`, `forwardedProps`, `resume`) on a Coder chat, or `newChat` on AG-UI.
    /// Refused rather than dropped; nothing was sent.
    #[error("`{member}` does not apply to the {backend} backend")]
    NotForBackend {
        /// The run's member, as the app names it.
        member: &'static str,
        /// `"coder"` or `"agui"`.
        backend: &'static str,
    },
    /// A Coder chat's run was given a message the chat cannot take: one that is not the user's,
    /// or a user message with a part that is not text. Nothing was sent.
    #[cfg(feature = "coder")]
    #[error("messages[{index}]: {message}")]
    NotForChat {
        /// Its position in the run's `messages`.
        index: usize,
        /// What is wrong.
        message: &'static str,
    },
    /// A new Coder chat's create body would be over coderd's 256 KiB cap (it would answer
    /// 413): the message says the body's size, the tools' total and the biggest tools. Nothing
    /// was sent.
    #[cfg(feature = "coder")]
    #[error("{0}")]
    CreateTooLarge(String),
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
            SessionError::BadThreadId(_) | SessionError::NotForBackend { .. } => "run/bad-request",
            #[cfg(feature = "coder")]
            SessionError::NotForChat { .. } | SessionError::CreateTooLarge(_) => "run/bad-request",
            SessionError::BadResume { .. } => "input/invalid",
            SessionError::UnansweredInterrupts { .. } => "run/unanswered-interrupts",
        }
    }
}

/// `"a", "b"`: ids as JSON strings, comma-separated.
pub(super) fn quoted_list(ids: &[String]) -> String {
    let mut out = String::new();
    for (n, id) in ids.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        crate::json::write_str(&mut out, id);
    }
    out
}
