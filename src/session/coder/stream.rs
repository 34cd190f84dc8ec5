//! A chat's stream: opening it, each frame translated into the thread, and its end (resumed
//! after the one reconnect wait, or the turn's end).

use super::chat_diagnostic;
use super::fail::chat_error_details;
use super::requests::read_status;
use super::round::{Request, Step};
use super::send::{chat_request, coder_config, post_message, routes};
use super::submit::calls_required;
use crate::session::action::Action;
use crate::session::advance::{fail, finish, maybe_advance};
use crate::session::agui::stream::note_applied;
use crate::session::events::RuntimeEvent;
use crate::session::result::{RunError, RunStatus};
use crate::session::shared::Shared;
use crate::session::thread::ThreadState;
use crate::session::turn::backoff;
use crate::session::turn::Turn;

use crate::coder::wire::decode_chat_frame;
use crate::coder::{TurnEnd, Update};
use crate::lean::text::{concat, decimal};
use crate::protocol::event::Message;

/// One text message of the stream opened by `CoderAction::OpenStream` `stream_id`
/// (the session's `handle_stream_frame`). A message of another stream (closed since) is ignored.
pub(in crate::session) fn stream_frame(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    stream_id: u64,
    text: &str,
) {
    let Some(chat) = state.chat.as_mut().filter(|c| c.stream == Some(stream_id)) else {
        return;
    };
    state.active = true;
    chat.framed = true;
    chat.reconnecting = None;
    let before = (chat.coder.last_message_id(), chat.coder.status().cloned());
    let frame = match decode_chat_frame(text, Some(thread_id)) {
        Ok(frame) => frame,
        Err(error) => {
            chat_diagnostic(
                sh,
                "coder/bad-frame",
                concat(&["a stream message was skipped: ", &error.to_string()]),
            );
            return;
        }
    };
    let updates = chat.coder.handle_frame(frame);
    // Progress (a message committed, the status moved, a delta streamed) starts the
    // reconnects' count again; a stream that only repeats the chat's state does not, so
    // one that closes right after every connect backs off instead of looping.
    let progress = before != (chat.coder.last_message_id(), chat.coder.status().cloned())
        || updates.iter().any(|u| matches!(u, Update::Event(_)));
    if let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) {
        if progress {
            round.reconnects = 0;
        }
    }
    for update in updates {
        chat_update(sh, thread_id, state, update);
    }
    maybe_advance(sh, thread_id, state);
}

/// The stream opened by `CoderAction::OpenStream` `stream_id` ended (closed by the server,
/// dropped, or refused before it opened). A turn going on resumes it after a wait (the
/// session's deadline, as for a cut AG-UI stream), from the last committed message; after
/// [`SessionConfig::max_reconnects`](crate::session::SessionConfig::max_reconnects) ends in a row
/// without a frame, the turn ends in error (`coder/stream`).
pub(in crate::session) fn stream_closed(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    stream_id: u64,
) {
    let base = sh.config.reconnect_delay_ms;
    let max = coder_config(sh).max_reconnects;
    let seed = sh.id_prefix.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let Some(chat) = state.chat.as_mut().filter(|c| c.stream == Some(stream_id)) else {
        return;
    };
    chat.stream = None;
    let unframed = !std::mem::replace(&mut chat.framed, false);
    let Some(turn) = state.turn.as_mut() else {
        return;
    };
    let Some(round) = turn.chat_mut() else {
        return;
    };
    if max.is_some_and(|max| round.reconnects >= max) {
        let message = concat(&[
            "the chat's stream closed ",
            &decimal(i64::from(round.reconnects) + 1),
            " times in a row without a message",
        ]);
        fail(sh, thread_id, state, "coder/stream", message, None);
        return;
    }
    // Coder's site: 1 s doubling to a 10 s cap (the base's tenfold), each wait ±30 %.
    let delay_ms = backoff(base, round.reconnects).min(base.saturating_mul(10));
    let mut x = if chat.jitter == 0 {
        seed | 1
    } else {
        chat.jitter
    };
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    chat.jitter = x;
    let delay_ms = delay_ms.saturating_mul(700 + x % 601) / 1000;
    round.reconnects = round.reconnects.saturating_add(1);
    // The run's `activity` says so (the next one without it is the stream back).
    chat.reconnecting = Some((round.reconnects, delay_ms));
    state.active = true;
    turn.wait_to_reconnect(String::new(), delay_ms);
    sh.unstamped_waits = true;
    if unframed {
        // Refused before its first frame: a browser WebSocket never says why, a plain
        // `GET` of the route does.
        let url = routes(coder_config(sh)).stream_probe(thread_id);
        chat_request(sh, thread_id, state, Request::Probe, url, None);
    }
}

/// The reconnect the thread's stream started since the last call (its attempt, from 1, and
/// its wait in ms), for the coalesced [`RuntimeEvent::Activity`] of that moment.
pub(in crate::session) fn take_reconnecting(state: &mut ThreadState) -> Option<(u32, u64)> {
    state.chat.as_deref_mut()?.reconnecting.take()
}

/// What one translated change of the stream does.
fn chat_update(sh: &mut Shared, thread_id: &str, state: &mut ThreadState, update: Update) {
    match update {
        Update::Event(mut event) => {
            let applied = state.thread.fold_moving(&mut event).ok();
            note_applied(&state.thread, &mut state.changes, applied);
        }
        Update::Replace => {
            let Some(chat) = state.chat.as_ref() else {
                return;
            };
            let mut messages = chat.coder.messages().to_vec();
            if let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) {
                let posted = matches!(round.step, Step::Live)
                    && chat.coder.has_user_message_after(round.posted_after);
                if posted {
                    round.local.clear();
                }
                messages.extend(round.local.iter().cloned());
            }
            for message in &messages {
                if let Message::Tool(tool) = message {
                    state.handled.insert(tool.tool_call_id.clone());
                }
            }
            state.thread.set_messages(messages);
            state.changes.all = true;
        }
        Update::Status(status) => post_message(sh, thread_id, state, Some(&status)),
        Update::Retry(retry) => {
            sh.actions.push_back(Action::Emit(RuntimeEvent::Retry {
                thread_id: thread_id.to_owned(),
                attempt: retry.attempt,
                delay_ms: retry.delay_ms,
                error: retry.error,
                kind: retry.kind,
                provider: retry.provider,
                status_code: retry.status_code,
                retrying_at: retry.retrying_at,
            }));
        }
        Update::Queue(queued_messages) => {
            sh.actions
                .push_back(Action::Emit(RuntimeEvent::QueueUpdate {
                    thread_id: thread_id.to_owned(),
                    queued_messages: crate::json::Value::Array(queued_messages),
                }));
        }
        Update::LastError(error) => {
            sh.actions.push_back(Action::Emit(RuntimeEvent::LastError {
                thread_id: thread_id.to_owned(),
                message: error.message.clone(),
                details: chat_error_details(error),
            }));
        }
        Update::ActionRequired(calls) => calls_required(sh, thread_id, state, calls),
        Update::Quiet => read_status(sh, thread_id, state),
        Update::TurnEnded(end) => {
            let (code, message, details) = match end {
                TurnEnd::Completed => {
                    return finish(sh, thread_id, state, RunStatus::Completed, None);
                }
                TurnEnd::Error(error) => {
                    let message = error.message.clone();
                    ("coder/error", message, Some(chat_error_details(error)))
                }
                TurnEnd::StreamError(message) => ("coder/stream", message, None),
            };
            let error = RunError {
                code: code.to_owned(),
                message,
                status: None,
                details,
            };
            finish(sh, thread_id, state, RunStatus::Error, Some(error));
        }
        Update::Invalid {
            event_type,
            message,
        } => chat_diagnostic(
            sh,
            "coder/bad-event",
            concat(&[
                "a ",
                &event_type,
                " event of the chat's stream was skipped: ",
                &message,
            ]),
        ),
    }
}
