//! What a Coder chat's turn is, as data: what a thread keeps of its chat ([`ChatState`]), the
//! round a turn holds ([`ChatRound`], its [`Step`]) and what each request out was ([`Request`]).
//! Below the turn and the thread that hold them; the behaviour (`coder/mod.rs`, `requests.rs`,
//! `stream.rs`, `submit.rs`) is above.

use crate::session::config::Pending;

use crate::coder::{CoderThread, Submission};
use crate::protocol::event::Message;
use crate::protocol::thread::PendingCall;
use crate::tools::outcome::ToolOutcome;

/// What a thread keeps of its Coder chat across turns.
#[derive(Default)]
pub(in crate::session) struct ChatState {
    /// The stream, translated: the committed history, the calls handed out, the last id.
    pub(super) coder: CoderThread,
    /// The requests out, by id, and what each is.
    pub(super) requests: Vec<(u64, Request)>,
    /// The stream open, if any.
    pub(super) stream: Option<u64>,
    /// Whether the stream open brought a frame: one that ends before its first is asked why.
    pub(super) framed: bool,
    /// A reconnect started (attempt, wait in ms) that no `activity` event said yet.
    pub(super) reconnecting: Option<(u32, u64)>,
    /// The reconnect jitter's generator (xorshift), seeded from the session's random id prefix
    /// (the host's randomness: the core makes none); 0 until first used.
    pub(super) jitter: u64,
    /// When Stop's interrupts out count as unanswered (host's clock; `None` until `poll_action`
    /// stamps it; each interrupt sent sets it anew): `requests::chat_requests_due`.
    pub(super) stop_by: Option<u64>,
    /// The calls a Stop cut short: handed out, the chat waiting for them, no result sent. An
    /// interrupt that lands answers them; one that never does leaves the chat asking for them
    /// on the next turn, which answers them as stopped and never runs them
    /// (`submit::calls_required`).
    pub(super) stopped: Vec<String>,
}

impl ChatState {
    /// Whether an interrupt a Stop owes is out (the chat's next message waits for it).
    pub(super) fn stopping(&self) -> bool {
        self.requests.iter().any(|(_, kind)| kind.stops())
    }
}

/// What a `Action::ChatRequest` was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Request {
    /// `POST /chats`.
    Create,
    /// `POST /chats` of a turn stopped before it was answered: the chat is interrupted.
    CreateStopped,
    /// `POST .../messages`.
    Message,
    /// `POST .../tool-results`.
    Results,
    /// `POST .../interrupt` (the first of a Stop: a chat it finds in `requires_action` goes on
    /// `running`, and is interrupted once more).
    Interrupt,
    /// The second interrupt of a Stop.
    InterruptAgain,
    /// `POST .../reconcile-invalid` after a 409 "Chat is in an invalid state." (of a message
    /// POST, then posted again; or of a tool-results POST).
    Reconcile,
    /// `GET .../{chat}/stream` without an upgrade, after a socket ended before its first frame:
    /// coderd's status and message say why it was refused.
    Probe,
    /// `GET .../{chat}`: the chat's status, read once when a turn's answer was committed and no
    /// `status` came (`Update::Quiet`).
    Status,
}

impl Request {
    /// Whether this is one of Stop's interrupts.
    pub(super) fn stops(self) -> bool {
        matches!(self, Request::Interrupt | Request::InterruptAgain)
    }
}

/// A Coder turn's round: where the turn is, and the batch being answered.
pub(in crate::session) struct ChatRound {
    pub(super) step: Step,
    /// What the turn does with calls a chat found in `requires_action` owes (before its message).
    pub(super) pending: Pending,
    /// The message has a `busy_behavior`: it is posted whatever the chat's status.
    pub(super) busy: bool,
    /// The calls of the batch being answered that this turn dispatched, in call order, and
    /// their outcomes once known (what AG-UI's answering phase holds).
    pub(in crate::session) answers: Vec<(PendingCall, Option<ToolOutcome>)>,
    /// Every outcome this turn produced, by call id: a batch taken afresh (a refused submission)
    /// reuses them rather than run a call twice.
    pub(super) outcomes: Vec<(String, ToolOutcome)>,
    /// The submission out, if any.
    pub(super) submission: Option<(u64, Submission)>,
    /// When its POST counts as unanswered (host's clock; `None` until `poll_action` stamps it).
    pub(super) answer_by: Option<u64>,
    /// The stream's ends in a row without a frame between them.
    pub(super) reconnects: u32,
    /// Submissions given up on (sent twice, no answer that says): each is followed by the
    /// chat's state read again; after `submit::MAX_RECONCILES` the turn ends.
    pub(super) reconciles: u8,
    /// The turn's own messages (the user's), shown after the committed history until it holds
    /// the message posted: a history replaced meanwhile would otherwise hide them.
    pub(super) local: Vec<Message>,
    /// The message body posted (kept to post it once more after a `reconcile-invalid`), and
    /// whether the turn recovered the chat once already.
    pub(super) posted: Option<String>,
    pub(super) recovered: bool,
    /// The last committed message id when the message was posted: a user message after it is
    /// the one posted.
    pub(super) posted_after: Option<i64>,
}

/// Where a Coder turn is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    /// `POST /chats` is out.
    Creating,
    /// The stream is opening: the message (this body) goes out once it says the chat is idle.
    Waiting(String),
    /// The message went out (or the chat was created with it): the turn ends with the chat's.
    Live,
}

impl ChatRound {
    /// Whether the batch is complete and no submission is out: it goes out now.
    pub(in crate::session) fn batch_ready(&self) -> bool {
        !self.answers.is_empty()
            && self.submission.is_none()
            && self.answers.iter().all(|(_, outcome)| outcome.is_some())
    }
}
