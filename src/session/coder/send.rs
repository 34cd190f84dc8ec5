//! What a chat sends, over the shared context and the one thread: each REST request and what it
//! was ([`chat_request`]), the stream opened ([`open_stream`]), a batch's one submission
//! ([`submit_batch`]), Stop ([`stop_chat`]) and the end of a turn's stream ([`end_chat_turn`]).
//! Below the turn's restart and end (`advance.rs`) and the chat's inputs (`requests.rs`,
//! `stream.rs`, `submit.rs`), which send through it.

use super::round::{Request, Step};
use super::CoderAction;
use crate::session::action::Action;
use crate::session::events::RuntimeEvent;
use crate::session::shared::Shared;
use crate::session::thread::ThreadState;
use crate::session::turn::Turn;

use crate::coder::options::CoderConfig;
use crate::coder::submit::results_body;
use crate::coder::{ChatStatus, Routes, Submission};
use crate::lean::text::{concat, decimal};
use crate::tools::outcome::{FailureCode, Interruption, ToolFailure, ToolOutcome};

/// coderd's cap on a create or tool-results body (`httpapi.ReadLimit`): 256 KiB; over it, 413.
pub(super) const MAX_BODY_BYTES: usize = 256 * 1024;

static NO_CODER: CoderConfig = CoderConfig {
    base_url: String::new(),
    organization_id: String::new(),
    session_token: None,
    max_reconnects: None,
    create: String::new(),
};

/// The session's Coder options.
pub(super) fn coder_config(sh: &Shared) -> &CoderConfig {
    // Only a session with a Coder backend has chats.
    sh.config.coder.as_ref().unwrap_or(&NO_CODER)
}

pub(super) fn routes(coder: &CoderConfig) -> Routes {
    let base = coder.base_url.strip_suffix('/').unwrap_or(&coder.base_url);
    Routes::new(&concat(&[base, "/chats"]))
}

/// The position of the biggest size (the first of equals; 0 when empty).
pub(super) fn biggest(sizes: &[usize]) -> usize {
    let mut at = 0;
    for (n, size) in sizes.iter().enumerate() {
        if *size > sizes[at] {
            at = n;
        }
    }
    at
}

/// Sends a `POST` and remembers what it was.
pub(super) fn chat_request(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    kind: Request,
    url: String,
    body: Option<String>,
) {
    let request_id = sh.next_number();
    post(sh, thread_id, state, request_id, kind, url, body);
}

/// Sends the `POST` `request_id` (a number of the session's) and remembers what it was.
pub(super) fn post(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    request_id: u64,
    kind: Request,
    url: String,
    body: Option<String>,
) {
    let mut headers = Vec::new();
    if let Some(token) = sh
        .config
        .coder
        .as_ref()
        .and_then(|c| c.session_token.clone())
    {
        headers.push(("Coder-Session-Token".to_owned(), token));
    }
    if let Some(chat) = state.chat.as_deref_mut() {
        chat.requests.push((request_id, kind));
        if kind.stops() {
            // Its deadline (`submit::INTERRUPT_ANSWER_MS`) is stamped at the next `poll_action`.
            chat.stop_by = None;
            sh.unstamped_waits = true;
        }
    }
    sh.actions
        .push_back(Action::Coder(CoderAction::ChatRequest {
            thread_id: thread_id.to_owned(),
            request_id,
            method: match kind {
                Request::Status | Request::Probe => "GET",
                _ => "POST",
            },
            url,
            headers,
            body,
        }));
}

/// The turn's stream is opened (again): after the last committed message this page holds,
/// or from the start.
pub(in crate::session) fn open_stream(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    let stream_id = sh.next_number();
    let (Some(coder), Some(chat)) = (sh.config.coder.as_ref(), state.chat.as_mut()) else {
        return;
    };
    let replaced = chat.stream.replace(stream_id);
    chat.framed = false;
    let after = chat.coder.last_message_id();
    let mut url = routes(coder).stream(thread_id, after);
    if let Some(token) = &coder.session_token {
        // A browser WebSocket sends no headers: the token goes in the query.
        url.push(if after.is_some() { '&' } else { '?' });
        url.push_str("coder_session_token=");
        url.push_str(&crate::thread_id::path_segment(token));
    }
    if replaced.is_some() {
        // A thread has one stream: the host keys streams by their id, so the one this
        // replaces is closed by its own.
        sh.actions
            .push_back(Action::Coder(CoderAction::CloseStream {
                thread_id: thread_id.to_owned(),
                stream_id: replaced,
            }));
    }
    sh.actions.push_back(Action::Coder(CoderAction::OpenStream {
        thread_id: thread_id.to_owned(),
        stream_id,
        url,
    }));
}

/// Stop of a chat's turn: the stream closes and the chat is interrupted (when it may be
/// busy); the create of a new chat not answered yet is interrupted once it is.
pub(in crate::session) fn stop_chat(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    let Some(chat) = state.chat.as_mut() else {
        return;
    };
    let creating = chat
        .requests
        .iter_mut()
        .find(|(_, kind)| *kind == Request::Create);
    if let Some((_, kind)) = creating {
        *kind = Request::CreateStopped;
        return;
    }
    let posted = matches!(
        state
            .turn
            .as_mut()
            .and_then(Turn::chat_mut)
            .map(|r| &r.step),
        Some(Step::Live)
    );
    let busy = matches!(
        chat.coder.status(),
        Some(ChatStatus::Running | ChatStatus::RequiresAction)
    );
    // The calls the chat waits for, which no result answers yet: cut short by the user.
    for call in chat.coder.batch() {
        let id = &call.tool_call_id;
        if !chat.coder.is_answered(id) && !chat.stopped.contains(id) {
            chat.stopped.push(id.clone());
        }
    }
    if posted || busy {
        let url = routes(coder_config(sh)).interrupt(thread_id);
        chat_request(sh, thread_id, state, Request::Interrupt, url, None);
    }
}

/// The end of a chat's turn: its stream closes.
pub(in crate::session) fn end_chat_turn(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    if let Some(chat) = state.chat.as_deref_mut() {
        // No end of this turn is due from the stream any more: the next turn starts clean.
        chat.coder.end_turn();
        if let Some(stream_id) = chat.stream.take() {
            sh.actions
                .push_back(Action::Coder(CoderAction::CloseStream {
                    thread_id: thread_id.to_owned(),
                    stream_id: Some(stream_id),
                }));
        }
    }
}

/// Every call of the batch is answered: its one submission goes out.
pub(in crate::session) fn submit_batch(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    let (Some(turn), Some(chat)) = (state.turn.as_mut(), state.chat.as_ref()) else {
        return;
    };
    let round_number = turn.round;
    let Some(round) = turn.chat_mut() else {
        return;
    };
    for (call, outcome) in std::mem::take(&mut round.answers) {
        let outcome = outcome.unwrap_or_else(|| {
            ToolOutcome::Failed(ToolFailure::new(
                FailureCode::ToolExecutionFailed,
                "the tool produced no result",
            ))
        });
        round.outcomes.push((call.tool_call_id, outcome));
    }
    // The server's pending set: the batch (each id once), less what the history answers
    // already. A call handed out to this page before and answered by no one since is not
    // run twice: its result is lost.
    let mut too_large: Vec<ToolOutcome> = Vec::new();
    let lost = ToolOutcome::Failed(ToolFailure::interrupted(
        Interruption::RunEnded,
        "this call was handed out before and its result was lost",
    ));
    let stopped = ToolOutcome::Failed(ToolFailure::interrupted(
        Interruption::Stopped,
        "the run was stopped before this call was answered",
    ));
    let mut results: Vec<(&str, &ToolOutcome)> = Vec::new();
    for call in chat.coder.batch() {
        let id = call.tool_call_id.as_str();
        if chat.coder.is_answered(id) || results.iter().any(|&(have, _)| have == id) {
            continue;
        }
        let outcome = round.outcomes.iter().find(|(done, _)| done == id);
        let unknown = if chat.stopped.iter().any(|s| s == id) {
            &stopped
        } else {
            &lost
        };
        results.push((id, outcome.map_or(unknown, |(_, outcome)| outcome)));
    }
    if results.is_empty() {
        return;
    }
    let mut body = results_body(&results);
    if body.len() > MAX_BODY_BYTES {
        // coderd takes at most 256 KiB per batch (413 over it): the biggest results are
        // answered as errors that name the limit, until the rest fits.
        // Each result's size; the biggest left is taken by a plain search (a sort's code
        // costs kilobytes of wasm).
        let mut sizes: Vec<usize> = results
            .iter()
            .map(|result| results_body(std::slice::from_ref(result)).len())
            .collect();
        let mut size = body.len();
        let mut cut = Vec::new();
        while size > MAX_BODY_BYTES {
            let at = biggest(&sizes);
            let bytes = std::mem::take(&mut sizes[at]);
            if bytes == 0 {
                break;
            }
            size = size - bytes + 400;
            cut.push(at);
            too_large.push(ToolOutcome::Failed(ToolFailure::new(
                FailureCode::ToolResultTooLarge,
                concat(&[
                    "the result is ",
                    &decimal(bytes as i64),
                    " bytes of JSON: a Coder chat takes at most 262144 bytes (256 KiB) of tool results per batch",
                ]),
            )));
        }
        for (at, outcome) in cut.into_iter().zip(&too_large) {
            results[at].1 = outcome;
        }
        body = results_body(&results);
    }
    let submission = Submission::new(body.clone());
    let request_id = sh.next_number();
    let run_id = sh.next_id("run");
    let Some(turn) = state.turn.as_mut() else {
        return;
    };
    turn.round = round_number + 1;
    turn.run_id = run_id.clone();
    if let Some(round) = turn.chat_mut() {
        round.submission = Some((request_id, submission));
    }
    sh.actions
        .push_back(Action::Emit(RuntimeEvent::RoundStarted {
            thread_id: thread_id.to_owned(),
            run_id,
            round: round_number + 1,
        }));
    send_results(sh, thread_id, state, request_id, body);
}

/// Sends the batch's `tool-results` POST `request_id`; its deadline is stamped at the host's
/// next `poll_action`.
pub(super) fn send_results(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    request_id: u64,
    body: String,
) {
    if let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) {
        round.answer_by = None;
        sh.unstamped_waits = true;
    }
    let url = routes(coder_config(sh)).tool_results(thread_id);
    post(
        sh,
        thread_id,
        state,
        request_id,
        Request::Results,
        url,
        Some(body),
    );
}

/// The turn's message goes out when the chat is idle (`status`, as the stream said it; any, with
/// a `busy_behavior`) and no interrupt a Stop owes is out: one answered after the message would
/// stop the turn just posted (the second interrupt, sent when the first says `running`). An
/// interrupt unanswered at its deadline no longer holds it (`requests::chat_requests_due`).
pub(super) fn post_message(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    status: Option<&ChatStatus>,
) {
    let idle = matches!(status, Some(ChatStatus::Waiting | ChatStatus::Error));
    let Some(chat) = state.chat.as_deref() else {
        return;
    };
    let stopping = chat.stopping();
    let after = chat.coder.last_message_id();
    let waiting = state
        .turn
        .as_mut()
        .and_then(Turn::chat_mut)
        .filter(|round| (idle || round.busy) && round.submission.is_none() && !stopping)
        .filter(|round| matches!(round.step, Step::Waiting(_)))
        .and_then(|round| {
            round.posted_after = after;
            // The body moves out: the step is `Live` from now on.
            match std::mem::replace(&mut round.step, Step::Live) {
                Step::Waiting(body) => Some(body),
                _ => None,
            }
        });
    if let Some(body) = waiting {
        if let Some(chat) = state.chat.as_mut() {
            chat.coder.begin_turn();
        }
        if let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) {
            round.posted = Some(body.clone());
        }
        let url = routes(coder_config(sh)).messages(thread_id);
        chat_request(sh, thread_id, state, Request::Message, url, Some(body));
    }
}
