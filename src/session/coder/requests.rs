//! The answers to a chat's REST calls (create, message, results, interrupt, reconcile, probe,
//! status) and what each does; a submission left unanswered past its deadline. The two inputs
//! that pick a thread by another id (a new chat's, once created; a stopped create's) take the
//! session's threads; every other works on the one thread.

use super::fail::{fail_api, fail_request, recover_invalid};
use super::round::{Request, Step};
use super::send::{chat_request, coder_config, open_stream, post_message, routes};

use super::submit::results_answered;
use super::CoderAction;
use crate::session::action::Action;
use crate::session::advance::{fail, finish};
use crate::session::events::RuntimeEvent;
use crate::session::result::RunStatus;
use crate::session::shared::Shared;
use crate::session::thread::ThreadState;
use crate::session::turn::Turn;

use crate::coder::wire::{ApiError, ChatError};

use crate::coder::{ChatStatus, SubmitReply};
use crate::json::Value;
use crate::lean::sorted::SortedMap;
use crate::lean::text::concat;

/// Whether some thread's chat still awaits the answer to request `request_id`
/// (`Session::awaits_chat_reply`).
pub(in crate::session) fn awaits_reply(threads: &SortedMap<ThreadState>, request_id: u64) -> bool {
    let mut chats = threads.values().filter_map(|t| t.chat.as_deref());
    chats.any(|chat| chat.requests.iter().any(|(id, _)| *id == request_id))
}

/// The answer to an [`CoderAction::ChatRequest`] (the session's `handle_chat_reply`). An answer
/// for a request the session does not know (of a thread forgotten since) is ignored.
pub(in crate::session) fn chat_reply(
    sh: &mut Shared,
    threads: &mut SortedMap<ThreadState>,
    thread_id: &str,
    request_id: u64,
    reply: SubmitReply,
) {
    let Some(state) = threads.get_mut(thread_id) else {
        return;
    };
    let Some(chat) = state.chat.as_deref_mut() else {
        return;
    };
    let Some(at) = chat.requests.iter().position(|(id, _)| *id == request_id) else {
        return;
    };
    let (_, kind) = chat.requests.remove(at);
    let (status, body) = match &reply {
        SubmitReply::Http(status, body) => (Some(*status), body.as_str()),
        SubmitReply::Network => (None, ""),
    };
    let ok = status.is_some_and(crate::http::is_success);
    match kind {
        Request::Create if ok => chat_created(sh, threads, thread_id, body),
        Request::CreateStopped if ok => {
            // The run was stopped while the chat was being created: it is interrupted, and
            // nothing of it is kept here.
            if let Some((chat_id, ..)) = read_chat(body) {
                let url = routes(coder_config(sh)).interrupt(&chat_id);
                threads.remove(thread_id);
                let state = threads.get_or_insert_with(&chat_id, ThreadState::default);
                state.chat = Some(Box::default());
                chat_request(sh, &chat_id, state, Request::Interrupt, url, None);
            }
        }
        Request::Create | Request::Message => {
            if ok {
                return;
            }
            if kind == Request::Message && recover_invalid(sh, thread_id, state, &reply) {
                return;
            }
            let what = if kind == Request::Create {
                "creating the chat"
            } else {
                "posting the message"
            };
            fail_request(sh, thread_id, state, what, reply);
        }
        Request::Results => results_answered(sh, thread_id, state, request_id, reply),
        Request::Interrupt => {
            // A chat interrupted in `requires_action` goes on `running` (the model sees the
            // calls interrupted): once more stops it.
            let chat = status
                .filter(|s| crate::http::is_success(*s))
                .and_then(|_| read_chat(body));
            let running = matches!(chat, Some((_, ChatStatus::Running, _)));
            emit_title(sh, thread_id, chat.and_then(|c| c.2));
            if running {
                let url = routes(coder_config(sh)).interrupt(thread_id);
                chat_request(sh, thread_id, state, Request::InterruptAgain, url, None);
            } else {
                stop_answered(sh, thread_id, state);
            }
        }
        // The route is fine (426: only the upgrade is missing), or coderd is away (502,
        // the network): the reconnect goes on. Anything else is why the socket was
        // refused, and the turn ends with it.
        Request::Probe => match status {
            Some(status) if !ok && !matches!(status, 426 | 408 | 429 | 500..=502 | 504..) => {
                let error = ApiError::from_response(status, body);
                if state.turn.is_some() {
                    fail_api(sh, thread_id, state, "opening the chat's stream", error);
                }
            }
            _ => {}
        },
        Request::Reconcile => {
            let posted = state
                .turn
                .as_mut()
                .and_then(Turn::chat_mut)
                .and_then(|round| round.posted.clone());
            match (ok, posted) {
                (true, Some(body)) => {
                    let url = routes(coder_config(sh)).messages(thread_id);
                    chat_request(sh, thread_id, state, Request::Message, url, Some(body));
                }
                // A batch's chat recovered: the stream shows how the turn goes on.
                (true, None) => {}
                (false, _) => fail_request(
                    sh,
                    thread_id,
                    state,
                    "reconciling the chat's invalid state",
                    reply,
                ),
            }
        }
        Request::Status => {
            let (status, title) = match ok.then(|| read_chat(body)).flatten() {
                Some((_, status, title)) => (Some(status), title),
                None => (None, None),
            };
            emit_title(sh, thread_id, title);
            status_read(sh, thread_id, state, status, body);
        }
        Request::InterruptAgain => stop_answered(sh, thread_id, state),
        Request::CreateStopped => {}
    }
}

/// Stop's interrupts are answered: a next turn whose message waited for them goes on, if the
/// chat's status allows it.
fn stop_answered(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    let status = state
        .chat
        .as_deref()
        .and_then(|chat| chat.coder.status().cloned());
    post_message(sh, thread_id, state, status.as_ref());
}

/// The turn's answer was committed with no `status` beside it: the chat's status is read,
/// once (one read out at a time).
pub(super) fn read_status(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    let Some(chat) = state.chat.as_deref_mut() else {
        return;
    };
    if chat
        .requests
        .iter()
        .any(|(_, kind)| *kind == Request::Status)
    {
        return;
    }
    let url = routes(coder_config(sh)).read(thread_id);
    chat_request(sh, thread_id, state, Request::Status, url, None);
}

/// The chat's status, read: `waiting` ends the turn completed, `error` in error with the
/// chat's `last_error`; any other (or no answer) leaves the turn to the stream.
fn status_read(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    status: Option<ChatStatus>,
    body: &str,
) {
    let live = state
        .turn
        .as_mut()
        .and_then(Turn::chat_mut)
        .is_some_and(|r| r.step == Step::Live && r.submission.is_none());
    let posted = state
        .chat
        .as_deref()
        .is_some_and(|c| c.coder.turn_active() && c.coder.turn_posted());
    if !live || !posted {
        return;
    }
    match status {
        Some(ChatStatus::Waiting) => finish(sh, thread_id, state, RunStatus::Completed, None),
        Some(ChatStatus::Error) => {
            let message = match Value::parse(body) {
                Ok(Value::Object(mut chat)) => match chat.remove("last_error") {
                    Some(Value::String(text)) if !text.is_empty() => text,
                    _ => ChatError::generic().message,
                },
                _ => ChatError::generic().message,
            };
            fail(sh, thread_id, state, "coder/error", message, None);
        }
        _ => {}
    }
}

/// `POST /chats` answered: the thread takes the chat's id and the stream opens.
fn chat_created(
    sh: &mut Shared,
    threads: &mut SortedMap<ThreadState>,
    provisional: &str,
    body: &str,
) {
    let (chat_id, title) = match read_chat(body) {
        Some((chat_id, _, title)) if crate::thread_id::check(&chat_id).is_ok() => (chat_id, title),
        _ => {
            let message = concat(&[
                "creating the chat: the answer is not a chat with a usable id: ",
                crate::http::error_excerpt(body).unwrap_or("(empty)"),
            ]);
            if let Some(state) = threads.get_mut(provisional) {
                fail(sh, provisional, state, "coder/http", message, None);
            }
            return;
        }
    };
    let Some(mut state) = threads.remove(provisional) else {
        return;
    };
    // Every message shows under the chat's id from now on.
    state.changes.all = true;
    if let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) {
        round.step = Step::Live;
    }
    threads.insert(chat_id.clone(), state);
    sh.actions
        .push_back(Action::Coder(CoderAction::ThreadCreated {
            provisional: provisional.to_owned(),
            thread_id: chat_id.clone(),
        }));
    sh.actions
        .push_back(Action::Emit(RuntimeEvent::ThreadCreated {
            thread_id: chat_id.clone(),
            previous_thread_id: provisional.to_owned(),
        }));
    emit_title(sh, &chat_id, title);
    if let Some(state) = threads.get_mut(&chat_id) {
        open_stream(sh, &chat_id, state);
    }
}

/// The chat's title, as an answer of the chat said it, for the listeners.
fn emit_title(sh: &mut Shared, thread_id: &str, title: Option<String>) {
    if let Some(title) = title {
        sh.actions.push_back(Action::Emit(RuntimeEvent::Title {
            thread_id: thread_id.to_owned(),
            title,
        }));
    }
}

/// The chat requests out whose deadline passed by `now` count as unanswered, as a network
/// failure does; the late answer of each is ignored (it is no request's any more) and the host
/// aborts its fetch (`awaits_reply` is false for it).
///
/// - A submission: sent once more, or the chat's state read again.
/// - Stop's interrupts (every one out on the chat): as a failed interrupt, the first sends no
///   second one; the next turn's message, held for them, goes (still only once the chat says it
///   is idle, unless it has a `busy_behavior`). The order that keeps the next turn from being
///   stopped: the second interrupt is sent only on the first's answer, and the first is given
///   up here *before* the message can go; its late answer (`running`) finds no request and
///   sends nothing, so no interrupt leaves after the message. The second, given up the same
///   way, is aborted before the message is posted (the host aborts between `handle_timeout`
///   and its next `poll_action`), so a POST the browser still held does not go after it. A
///   proxy that took an interrupt and holds it (not just its answer) can still deliver it
///   late: the runtime cannot reach past that.
pub(in crate::session) fn chat_requests_due(
    sh: &mut Shared,
    threads: &mut SortedMap<ThreadState>,
    now: u64,
) {
    // One at a time (a submission's deadline cleared: never due twice; an interrupt answered:
    // gone), without a list of them.
    loop {
        let due = threads.iter_mut().find_map(|(id, state)| {
            if let Some(chat) = state.chat.as_deref_mut() {
                if chat.stop_by.is_some_and(|at| at <= now) {
                    let stop = chat.requests.iter().find(|(_, kind)| kind.stops());
                    match stop {
                        Some((request_id, _)) => return Some((id.clone(), *request_id)),
                        None => chat.stop_by = None,
                    }
                }
            }
            let round = state.turn.as_mut()?.chat_mut()?;
            let (request_id, _) = round.submission.as_ref()?;
            round.answer_by.filter(|at| *at <= now)?;
            round.answer_by = None;
            Some((id.clone(), *request_id))
        });
        let Some((thread_id, request_id)) = due else {
            return;
        };
        chat_reply(sh, threads, &thread_id, request_id, SubmitReply::Network);
    }
}

/// A `Chat` answer's body, if it is one: its `id`, `status` and `title`, the members the client
/// uses (read straight from the object: `Chat::from_json` and its `last_error` reader cost more
/// than the members are worth here).
pub(super) fn read_chat(body: &str) -> Option<(String, ChatStatus, Option<String>)> {
    let Value::Object(mut chat) = Value::parse(body).ok()? else {
        return None;
    };
    let title = match chat.remove("title") {
        Some(Value::String(title)) => Some(title),
        _ => None,
    };
    match (chat.remove("id"), chat.remove("status")) {
        (Some(Value::String(id)), Some(Value::String(status))) => {
            Some((id, ChatStatus::from_wire(&status), title))
        }
        _ => None,
    }
}
