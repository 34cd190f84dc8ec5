//! What an AG-UI round is, as data: [`AguiRound`], its [`Phase`], how its run ended
//! ([`RunEnd`]) and where its request is ([`Outgoing`]). Below the turn that holds it; the round's
//! behaviour (`agui/mod.rs`, `agui/stream.rs`) is above.

use crate::session::action::RoundRequest;
use crate::session::body::RequestBody;

use crate::json::Value;
use crate::protocol::decode::EventDecoder;
use crate::protocol::event::{Context, ResumeEntry};
use crate::protocol::thread::PendingCall;
use crate::tools::outcome::ToolOutcome;

/// What an AG-UI turn keeps beside what every turn has (`Turn`): what each run sends, where
/// the current run is, and how its stream is resumed.
pub(in crate::session) struct AguiRound {
    /// `RunAgentInput.context` and `forwardedProps`, sent with every run of the turn.
    pub(in crate::session) context: Vec<Context>,
    pub(in crate::session) forwarded_props: Option<Value>,
    /// The answers to the open interrupts, sent with the first run (taken then).
    pub(in crate::session) resume: Vec<ResumeEntry>,
    /// Where the current run is: streaming its response, or answering its calls.
    pub(in crate::session) phase: Phase,
    /// Reconnects of this run in a row without a new event, and the id resumed from last.
    pub(in crate::session) reconnects: u32,
    pub(in crate::session) resumed_from: Option<String>,
    /// Where the current run's request is: a reconnect sends it again.
    pub(in crate::session) outgoing: Outgoing,
}

impl AguiRound {
    /// The current run's response decoder, while its body streams in.
    pub(in crate::session) fn decoder(&mut self) -> Option<&mut EventDecoder> {
        match &mut self.phase {
            Phase::Streaming { decoder, .. } => Some(decoder.as_mut()),
            Phase::Answering { .. } => None,
        }
    }
}

/// The phase of an AG-UI round: one value, where four flags (the stream's end,
/// `RUN_FINISHED`, its `interrupt` outcome, the calls' answers) were read together. Each
/// variant holds what its phase needs, so a round cannot have answers while it streams, nor a
/// decoder after its body ended.
pub(in crate::session) enum Phase {
    /// The response is awaited or streaming in (`Action::Send` or `Action::Reconnect` went
    /// out): events fold into the thread as they arrive.
    Streaming {
        /// The response's decoder (kept across reconnects: it knows the last event id); boxed,
        /// as the other phase is small.
        decoder: Box<EventDecoder>,
        /// How the round's `RUN_FINISHED` ended the run, once one arrived (`None`: the stream
        /// may still be resumed, and a body that ends now is truncated).
        finished: Option<RunEnd>,
    },
    /// The body ended after `RUN_FINISHED`, or no request went out yet (a loaded history's
    /// calls run first): the round waits for the host's running calls, then restarts with the
    /// answers (`advance::maybe_advance`) or, without any, ends the turn.
    Answering {
        /// How the run ended: the turn's status if nothing restarts.
        end: RunEnd,
        /// Follow-up calls of this round in call order, and their outcomes once known.
        answers: Vec<(PendingCall, Option<ToolOutcome>)>,
    },
}

/// How a round's run ended, by its `RUN_FINISHED`.
#[derive(Clone, Copy)]
pub(in crate::session) enum RunEnd {
    /// Without an `interrupt` outcome (or there was no run yet: a loaded history's calls).
    Completed,
    /// With an `interrupt` outcome: the turn ends `interrupted` unless it restarts.
    Interrupted,
}

/// Where a round's request is, between `Action::Send` and the answer.
pub(in crate::session) enum Outgoing {
    /// No request yet (a loaded history's calls run first).
    NotYet,
    /// `Action::Send` is out; the host may still shape its body (the app's `prepareRequest`).
    Preparing(RoundRequest),
    /// It went out as this.
    Sent(RoundRequest),
}

impl Outgoing {
    /// The request goes out (with `body` when the host shaped it): `false` unless it was being
    /// prepared.
    pub(in crate::session) fn send(&mut self, body: Option<RequestBody>) -> bool {
        match std::mem::replace(self, Outgoing::NotYet) {
            Outgoing::Preparing(mut request) => {
                if let Some(body) = body {
                    request.body = body;
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
