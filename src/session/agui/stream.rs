//! A round's response: its status, its body folded into the thread as it streams, its end,
//! and resuming a cut stream ([`Action::Reconnect`]): each a function of the shared context and
//! the one thread, which the session's `handle_*` found.

use super::round::{AguiRound, Outgoing, Phase, RunEnd};
use crate::session::action::{Action, RoundRequest};
use crate::session::advance::{fail, finish, maybe_advance};
use crate::session::body::RequestBody;
use crate::session::calls::{collect_pending, dispatch};
use crate::session::events::RuntimeEvent;
use crate::session::result::{RunError, RunStatus};
use crate::session::shared::Shared;
use crate::session::thread::{Changes, ThreadState};
use crate::session::tool_set::CallKind;
use crate::session::turn::{backoff, Round, Turn};

use crate::protocol::decode::DecodeError;
use crate::protocol::event::{Event, Message, RunFinishedOutcome, ToolMessage};
use crate::protocol::thread::{Applied, Thread};

/// The thread's turn, if `run_id` is its current round.
fn current<'a>(state: &'a mut ThreadState, run_id: &str) -> Option<&'a mut Turn> {
    state.turn.as_mut().filter(|t| t.run_id == run_id)
}

/// The host is about to send this round's request with `body` (the session's `handle_request_prepared`):
/// `false` when the round is over or its request already went out.
pub(in crate::session) fn request_prepared(
    state: &mut ThreadState,
    run_id: &str,
    body: RequestBody,
) -> bool {
    current(state, run_id)
        .and_then(Turn::agui)
        .is_some_and(|round| round.outgoing.send(Some(body)))
}

/// The current round's request as it went out (the session's `sent_request`).
pub(in crate::session) fn sent_request(
    state: &mut ThreadState,
    run_id: &str,
) -> Option<RoundRequest> {
    match &current(state, run_id)?.agui()?.outgoing {
        Outgoing::Sent(request) => Some(request.clone()),
        _ => None,
    }
}

/// The response to the current round arrived (the session's `handle_response`).
pub(in crate::session) fn response(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    run_id: &str,
    status: u16,
    content_type: Option<&str>,
    error_body: Option<&str>,
) {
    let Some(round) = current(state, run_id).and_then(Turn::agui) else {
        return;
    };
    // Not reported: the `Send` went out as it was.
    round.outgoing.send(None);
    if !crate::http::is_success(status) {
        let message = match error_body.and_then(crate::http::error_excerpt) {
            Some(body) => format!("the agent answered HTTP {status}: {body}"),
            None => format!("the agent answered HTTP {status}"),
        };
        fail(sh, thread_id, state, "run/http", message, Some(status));
        return;
    }
    let is_sse = content_type.is_some_and(|ct| {
        ct.split(';').next().is_some_and(|mime| {
            crate::lean::text::trim(mime).eq_ignore_ascii_case("text/event-stream")
        })
    });
    if !is_sse {
        let message = format!(
            "expected a text/event-stream answer, got {}",
            content_type.unwrap_or("no content type")
        );
        fail(
            sh,
            thread_id,
            state,
            "run/content-type",
            message,
            Some(status),
        );
    }
}

/// The next bytes of the current round's body (the session's `handle_bytes`).
pub(in crate::session) fn bytes(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    run_id: &str,
    bytes: &[u8],
) {
    let Some(turn) = state.turn.as_mut().filter(|t| t.run_id == run_id) else {
        return;
    };
    state.active |= !bytes.is_empty();
    let Some(round) = turn.agui() else {
        return;
    };
    round.outgoing.send(None);
    // In pieces, each decoded and folded before the next is read: what a read holds decoded at
    // once (its SSE frames, its events) is bounded by a piece, not by the read (64 KiB of small
    // events is a thousand of them), and the buffers of one piece's events serve the next's.
    for piece in bytes.chunks(PIECE) {
        // The turn may have ended with the piece before (`RUN_ERROR`, a failed fold).
        let Some(decoder) = state
            .turn
            .as_mut()
            .filter(|t| t.run_id == run_id)
            .and_then(Turn::decoder)
        else {
            return;
        };
        // Without an `agui` listener no event is read one by one: deltas may be merged.
        decoder.coalesce_deltas(!sh.agui_events);
        // At an error the turn ends and the decoder goes with it: it need not keep the error.
        if let Err(error) = decoder.feed_once(piece) {
            decode_failed(sh, thread_id, state, error);
            return;
        }
        drain_decoder(sh, thread_id, state);
    }
}

/// How many bytes of a read [`bytes`] decodes and folds at a time.
const PIECE: usize = 8 * 1024;

/// The current round's body ended (the session's `handle_body_end`). Without `RUN_FINISHED` after
/// events with SSE ids, the stream is resumed ([`Action::Reconnect`]) while attempts are left.
pub(in crate::session) fn body_end(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    run_id: &str,
) {
    if current(state, run_id).is_none() || try_reconnect(sh, state) {
        return;
    }
    let Some(decoder) = state.turn.as_mut().and_then(Turn::decoder) else {
        return;
    };
    if let Err(error) = decoder.finish_once() {
        decode_failed(sh, thread_id, state, error);
        return;
    }
    drain_decoder(sh, thread_id, state);
    let Some(round) = state.turn.as_mut().and_then(Turn::agui) else {
        return;
    };
    let Phase::Streaming { finished, .. } = &round.phase else {
        return;
    };
    let Some(end) = *finished else {
        fail(
            sh,
            thread_id,
            state,
            "run/truncated",
            "the stream ended without RUN_FINISHED or RUN_ERROR".to_owned(),
            None,
        );
        return;
    };
    round.phase = Phase::Answering {
        end,
        answers: Vec::new(),
    };
    collect_pending(sh, thread_id, state);
    maybe_advance(sh, thread_id, state);
}

/// The fetch failed (the session's `handle_transport_error`): the stream is resumed as at
/// [`body_end`] if it can be, else `run/network`; with a `status`, `run/http`.
pub(in crate::session) fn transport_error(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    run_id: &str,
    message: &str,
    status: Option<u16>,
) {
    match status {
        Some(status) => request_error(
            sh,
            thread_id,
            state,
            run_id,
            "run/http",
            &format!("HTTP {status}, thrown by fetch: {message}"),
            Some(status),
        ),
        None => {
            if current(state, run_id).is_some() && try_reconnect(sh, state) {
                return;
            }
            request_error(sh, thread_id, state, run_id, "run/network", message, None)
        }
    }
}

/// The host could not send this round's request (the session's `handle_request_error`): the turn
/// ends in error.
pub(in crate::session) fn request_error(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    run_id: &str,
    code: &str,
    message: &str,
    status: Option<u16>,
) {
    if current(state, run_id).is_some() {
        fail(sh, thread_id, state, code, message.to_owned(), status);
    }
}

/// The round's stream was cut (it ended without `RUN_FINISHED`, or the network failed): if
/// it had events with SSE ids and attempts are left, starts a new connection of the same
/// stream ([`Action::Reconnect`]) and returns `true`. The delay is the stream's `retry:`
/// (else `SessionConfig::reconnect_delay_ms`), doubled for each attempt in a row.
fn try_reconnect(sh: &mut Shared, state: &mut ThreadState) -> bool {
    let max = sh.config.max_reconnects;
    let base = sh.config.reconnect_delay_ms;
    let Some(turn) = state.turn.as_mut() else {
        return false;
    };
    // A stream past `RUN_FINISHED`, or over, is not resumed.
    let Round::Agui(AguiRound {
        phase: Phase::Streaming {
            decoder,
            finished: None,
        },
        outgoing,
        reconnects,
        resumed_from,
        ..
    }) = &mut turn.backend
    else {
        return false;
    };
    let Some(id) = decoder.last_event_id().map(str::to_owned) else {
        return false;
    };
    // The cut stream had events: its request went out.
    let Outgoing::Sent(_) = outgoing else {
        return false;
    };
    if resumed_from.as_ref() != Some(&id) {
        *reconnects = 0;
    }
    if *reconnects >= max {
        return false;
    }
    let base = decoder.reconnection_time().unwrap_or(base);
    let delay_ms = backoff(base, *reconnects);
    decoder.reconnect();
    *reconnects += 1;
    // SSE text, not JSON: in the internal form, like every string an action carries.
    let last_event_id = crate::json::from_js_string(&id).into_owned();
    *resumed_from = Some(id);
    // The wait is a deadline of the session's, stamped at the host's next `poll_action`:
    // `handle_timeout` sends `Action::Reconnect` when it passes.
    turn.wait_to_reconnect(last_event_id, delay_ms);
    sh.unstamped_waits = true;
    true
}

/// Folds everything the decoder has ready into the thread and tells the listeners.
fn drain_decoder(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    let Some(turn) = state.turn.as_mut() else {
        return;
    };
    let Round::Agui(AguiRound {
        phase: Phase::Streaming { decoder, finished },
        ..
    }) = &mut turn.backend
    else {
        return;
    };
    let mut fire_and_forget = Vec::new();
    let mut run_error = None;
    while let Some(mut item) = decoder.next_item() {
        if item.expanded {
            // A snapshot holds the server's messages only: the results this turn recorded
            // and has not sent yet (fire-and-forget calls) are put back after it.
            let recorded = match &item.event {
                Event::MessagesSnapshot(_) => unsent_tool_messages(&state.thread, &state.unsent),
                _ => Vec::new(),
            };
            // An event no `agui` listener reads gives the thread what it keeps (strings, a
            // delta's values) instead of copies.
            let applied = if item.wire && sh.agui_events {
                state.thread.fold(&item.event).ok()
            } else {
                state.thread.fold_moving(&mut item.event).ok()
            };
            for message in recorded {
                keep_tool_message(&mut state.thread, message);
            }
            note_applied(&state.thread, &mut state.changes, applied);
            match &item.event {
                // Another run in the same stream: the round is not over until it finishes
                // (a cut before then is resumed, or truncated).
                Event::RunStarted(_) => *finished = None,
                Event::RunFinished(e) => {
                    // A run on a thread with open interrupts answered them all: they close
                    // here, and an `interrupt` outcome opens the new ones. The last run of
                    // the stream says how the round ended: one that finishes without an
                    // interrupt after one that had them leaves none open, and the round
                    // completed.
                    let (end, interrupts) = match &e.outcome {
                        Some(RunFinishedOutcome::Interrupt { interrupts }) => {
                            (RunEnd::Interrupted, interrupts.clone())
                        }
                        _ => (RunEnd::Completed, Vec::new()),
                    };
                    *finished = Some(end);
                    state.interrupts = interrupts;
                }
                Event::RunError(e) => {
                    run_error = Some(RunError {
                        code: e.code.clone().unwrap_or_else(|| "run/error".to_owned()),
                        message: e.message.clone(),
                        status: None,
                        details: None,
                    })
                }
                Event::ToolCallEnd(e) => {
                    if let Some(CallKind::Enabled(tool)) = state
                        .thread
                        .tool_call(&e.tool_call_id)
                        .and_then(|call| turn.tools.calls.get(&call.function.name))
                    {
                        if !tool.follow_up && !state.handled.contains(&e.tool_call_id) {
                            fire_and_forget.push(e.tool_call_id.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        if item.wire && sh.agui_events {
            sh.actions.push_back(Action::Emit(RuntimeEvent::Agui {
                thread_id: thread_id.to_owned(),
                run_id: turn.run_id.clone(),
                event: item.event,
            }));
        }
        // `RUN_ERROR` ends the turn: what the stream sent after it is not folded, whether it
        // came in the same read or a later one (which the ended turn no longer reads).
        if run_error.is_some() {
            break;
        }
    }
    for tool_call_id in fire_and_forget {
        if let Some(call) = state.thread.pending_call(&tool_call_id) {
            dispatch(sh, thread_id, state, call, false);
        }
    }
    if let Some(error) = run_error {
        sh.actions.push_back(Action::Cancel {
            thread_id: thread_id.to_owned(),
        });
        finish(sh, thread_id, state, RunStatus::Error, Some(error));
    }
}

fn decode_failed(sh: &mut Shared, thread_id: &str, state: &mut ThreadState, error: DecodeError) {
    sh.actions.push_back(Action::Cancel {
        thread_id: thread_id.to_owned(),
    });
    fail(sh, thread_id, state, error.code(), error.to_string(), None);
}

/// The tool messages the runtime put into a thread that the server has not been sent yet.
pub(in crate::session) fn unsent_tool_messages(
    thread: &Thread,
    unsent: &[String],
) -> Vec<ToolMessage> {
    let messages = thread.messages();
    unsent
        .iter()
        .filter_map(|id| match thread.position(id).map(|at| &messages[at]) {
            Some(Message::Tool(tool)) => Some(tool.clone()),
            _ => None,
        })
        .collect()
}

/// Puts a recorded tool message back after a snapshot dropped it, unless the thread has it, or
/// a result for its call, already.
pub(in crate::session) fn keep_tool_message(thread: &mut Thread, message: ToolMessage) {
    let answered = thread.messages().iter().any(|m| match m {
        Message::Tool(t) => t.id == message.id || t.tool_call_id == message.tool_call_id,
        _ => false,
    });
    if !answered {
        thread.insert_tool_result(message);
    }
}

/// The messages changed in place [`note_applied`] lists one by one before it marks the whole
/// list changed.
const MANY_CHANGED: usize = 1024;

/// Records what folding an event changed, for the coalesced `messages` and `state` events. A
/// fold that failed (`None`: a patch that does not apply) leaves the thread as it was; the TS
/// client logs and continues, and so does the loop.
pub(in crate::session) fn note_applied(
    thread: &Thread,
    changes: &mut Changes,
    applied: Option<Applied>,
) {
    match applied {
        // New since the last take, or changed after it came: it goes out with all of
        // `seen..`, nothing to list.
        Some(Applied::Message(at)) | Some(Applied::Added(at)) if at >= changes.seen => {}
        Some(Applied::Added(_)) => {
            // Inserted before messages already handed out: they all moved.
            changes.all = true;
        }
        Some(Applied::Message(at)) => {
            // A token stream changes the same message thousands of times between two frames:
            // record it once.
            if let Some(message) = thread.messages().get(at) {
                if changes.ids.last().map(String::as_str) != Some(message.id()) {
                    changes.ids.push(message.id().to_owned());
                }
            }
            // Messages handed out before, changed in place with no frame between (each an
            // allocation): past `MANY_CHANGED` of them, the whole list goes out instead.
            if changes.ids.len() > MANY_CHANGED {
                changes.ids = Vec::new();
                changes.all = true;
            }
        }
        Some(Applied::Messages) => changes.all = true,
        Some(Applied::State) => changes.state = true,
        _ => {}
    }
}
