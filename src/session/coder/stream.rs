//! A chat's stream: opening it, each frame translated into the thread, and its end (resumed
//! after the one reconnect wait, or the turn's end).

use super::requests::chat_error_details;
use super::round::{Request, Step};
use super::routes;
use super::CoderAction;
use crate::session::action::Action;
use crate::session::agui::note_applied;
use crate::session::events::RuntimeEvent;
use crate::session::result::{RunError, RunStatus};
use crate::session::turn::backoff;
use crate::session::turn::Turn;
use crate::session::Session;

use crate::coder::wire::decode_chat_frame;
use crate::coder::{ChatStatus, TurnEnd, Update};
use crate::lean::text::{concat, decimal};
use crate::protocol::event::Message;

impl Session {
    /// One text message of the stream opened by [`CoderAction::OpenStream`] `stream_id`. A message of
    /// another stream (closed since) is ignored.
    pub fn handle_stream_frame(&mut self, thread_id: &str, stream_id: u64, text: &str) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
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
                self.chat_diagnostic(
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
            self.chat_update(thread_id, update);
        }
        self.maybe_advance(thread_id);
    }

    /// The stream opened by [`CoderAction::OpenStream`] `stream_id` ended (closed by the server,
    /// dropped, or refused before it opened). A turn going on resumes it after a wait (the
    /// session's deadline, as for a cut AG-UI stream), from the last committed message; after
    /// [`SessionConfig::max_reconnects`](crate::session::SessionConfig::max_reconnects) ends in a row
    /// without a frame, the turn ends in error (`coder/stream`).
    pub fn handle_stream_closed(&mut self, thread_id: &str, stream_id: u64) {
        let base = self.config.reconnect_delay_ms;
        let max = self.coder_config().max_reconnects;
        let seed = self
            .id_prefix
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
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
            self.fail(thread_id, "coder/stream", message, None);
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
        self.unstamped_waits = true;
        if unframed {
            // Refused before its first frame: a browser WebSocket never says why, a plain
            // `GET` of the route does.
            let url = routes(self.coder_config()).stream_probe(thread_id);
            self.chat_request(thread_id, Request::Probe, url, None);
        }
    }

    /// The reconnect the thread's stream started since the last call (its attempt, from 1, and
    /// its wait in ms), for the coalesced [`RuntimeEvent::Activity`] of that moment.
    pub fn take_reconnecting(&mut self, thread_id: &str) -> Option<(u32, u64)> {
        self.chat_mut(thread_id)?.reconnecting.take()
    }

    /// The turn's stream is opened (again): after the last committed message this page holds,
    /// or from the start.
    pub(in crate::session) fn open_stream(&mut self, thread_id: &str) {
        let stream_id = self.next_number();
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let (Some(coder), Some(chat)) = (self.config.coder.as_ref(), state.chat.as_mut()) else {
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
            self.actions
                .push_back(Action::Coder(CoderAction::CloseStream {
                    thread_id: thread_id.to_owned(),
                    stream_id: replaced,
                }));
        }
        self.actions
            .push_back(Action::Coder(CoderAction::OpenStream {
                thread_id: thread_id.to_owned(),
                stream_id,
                url,
            }));
    }

    /// What one translated change of the stream does.
    pub(super) fn chat_update(&mut self, thread_id: &str, update: Update) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        match update {
            Update::Event(event) => {
                let applied = state.thread.fold(&event).ok();
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
            Update::Status(status) => {
                let idle = matches!(status, ChatStatus::Waiting | ChatStatus::Error);
                let waiting = state
                    .turn
                    .as_mut()
                    .and_then(Turn::chat_mut)
                    .filter(|round| (idle || round.busy) && round.submission.is_none())
                    .filter(|round| matches!(round.step, Step::Waiting(_)))
                    .and_then(|round| {
                        round.posted_after =
                            state.chat.as_ref().and_then(|c| c.coder.last_message_id());
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
                    let url = routes(self.coder_config()).messages(thread_id);
                    self.chat_request(thread_id, Request::Message, url, Some(body));
                }
            }
            Update::Retry(retry) => {
                self.actions.push_back(Action::Emit(RuntimeEvent::Retry {
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
                self.actions
                    .push_back(Action::Emit(RuntimeEvent::QueueUpdate {
                        thread_id: thread_id.to_owned(),
                        queued_messages: crate::json::Value::Array(queued_messages),
                    }));
            }
            Update::LastError(error) => {
                self.actions
                    .push_back(Action::Emit(RuntimeEvent::LastError {
                        thread_id: thread_id.to_owned(),
                        message: error.message.clone(),
                        details: chat_error_details(error),
                    }));
            }
            Update::ActionRequired(calls) => self.calls_required(thread_id, calls),
            Update::Quiet => self.read_status(thread_id),
            Update::TurnEnded(end) => {
                let (code, message, details) = match end {
                    TurnEnd::Completed => {
                        return self.finish(thread_id, RunStatus::Completed, None);
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
                self.finish(thread_id, RunStatus::Error, Some(error));
            }
            Update::Invalid {
                event_type,
                message,
            } => self.chat_diagnostic(
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
}
