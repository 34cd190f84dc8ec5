//! The worker of a turn: model steps until the chat waits for the client, ends, fails or is
//! taken over; the requires_action deadline; the transitions every handler shares (start a turn,
//! close the pending calls, commit an interrupted step's text).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::chat::{Chat, Era, Status, REASON_TIMEOUT};
use super::model::{self, Step};
use super::{time, Coder, Counters, Hub};

/// Moves the chat to `running` (the pending era's `pending` after a submit) under a new epoch
/// and starts the worker that continues the turn; returns the `status` event.
pub(super) fn start_turn(coder: &Arc<Coder>, chat: &mut Chat, after_submit: bool) -> Value {
    chat.epoch += 1;
    chat.partial.clear();
    let status = if after_submit && chat.setup.era == Era::Pending {
        Status::Pending
    } else {
        Status::Running
    };
    let e = chat.set_status(status);
    // The turn's first step is the model's now, under the hub's lock: it belongs to this turn
    // even when the turn is stopped before its worker first runs. Left in the script for the
    // worker to take, a stopped turn's step would answer the next turn instead.
    let first = model_step(chat);
    tokio::spawn(run_turn(coder.clone(), chat.id.clone(), chat.epoch, first));
    e
}

/// The model's next step for the chat as it is now (its quote of the tool results included).
fn model_step(chat: &mut Chat) -> Step {
    let mut step: Step = model::next_step(chat);
    if step.quote {
        step.text.extend(crate::demo::tokenize(&model::quote(chat)));
    }
    step
}

/// Closes every pending dynamic call with a synthetic error result; returns the `message`
/// events.
pub(super) fn close_pending(chat: &mut Chat, ids: &mut Counters, reason: &str) -> Vec<Value> {
    chat.pending_calls()
        .into_iter()
        .map(|(id, name, _)| chat.commit_synthetic(ids.message(), &id, &name, reason))
        .collect()
}

/// The chat, if the task holding `epoch` still owns it.
fn owned<'a>(hub: &'a mut Hub, id: &str, epoch: u64) -> Option<(&'a mut Chat, &'a mut Counters)> {
    let Hub { chats, ids, .. } = hub;
    let chat = chats.get_mut(id)?;
    (chat.epoch == epoch && matches!(chat.status, Status::Running | Status::Pending))
        .then_some((chat, ids))
}

async fn pause(ms: u64) {
    if ms > 0 {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    } else {
        tokio::task::yield_now().await;
    }
}

/// One turn: model steps (`first`, taken when the turn started, then the next ones) until the
/// chat waits for the client, ends, fails or is taken over.
async fn run_turn(coder: Arc<Coder>, id: String, epoch: u64, first: Step) {
    let mut first = Some(first);
    loop {
        let (step, pace, hv) = {
            let mut hub = coder.lock();
            let Some((chat, ids)) = owned(&mut hub, &id, epoch) else {
                return;
            };
            if chat.status == Status::Pending {
                let e = chat.set_status(Status::Running);
                chat.publish(vec![e]);
            }
            let mut step = match first.take() {
                Some(step) => step,
                None => model_step(chat),
            };
            for call in &mut step.calls {
                if call.id.is_none() {
                    call.id = Some(ids.call());
                }
            }
            (step, chat.setup.pace_ms, chat.history_version)
        };
        pause(step.delay_ms).await;
        if let Some(err) = &step.error {
            let mut hub = coder.lock();
            let Some((chat, _)) = owned(&mut hub, &id, epoch) else {
                return;
            };
            let s = chat.set_status(Status::Error);
            chat.last_error = Some(err.clone());
            let e = chat.event("error", err.clone());
            chat.publish(vec![s, e]);
            return;
        }
        // Stream the step's parts.
        // `seq` starts at 1 within a generation (chatd's relay).
        let mut seq = 1u64;
        let mut parts: Vec<Value> = step
            .text
            .iter()
            .map(|t| json!({ "type": "text", "text": t }))
            .collect();
        for call in &step.calls {
            let call_id = call.id.clone().unwrap_or_default();
            for piece in crate::demo::split_args(&call.args.to_string()) {
                parts.push(json!({ "type": "tool-call", "tool_call_id": call_id,
                    "tool_name": call.name, "args_delta": piece }));
            }
            parts.push(json!({ "type": "tool-call", "tool_call_id": call_id,
                "tool_name": call.name, "args": call.args, "created_at": time::now_rfc3339() }));
        }
        for part in parts {
            pause(pace).await;
            let mut hub = coder.lock();
            let Some((chat, _)) = owned(&mut hub, &id, epoch) else {
                return;
            };
            if let Some(t) = part["text"].as_str() {
                chat.partial.push_str(t);
            }
            let e = chat.event(
                "message_part",
                json!({ "role": "assistant", "part": part, "history_version": hv,
                    "generation_attempt": 1, "seq": seq }),
            );
            seq += 1;
            chat.publish(vec![e]);
        }
        // Commit, run the built-ins, pause on the dynamic calls or go on.
        let mut hub = coder.lock();
        let Some((chat, ids)) = owned(&mut hub, &id, epoch) else {
            return;
        };
        let text: String = step.text.concat();
        let mut content = Vec::new();
        if !text.is_empty() {
            content.push(json!({ "type": "text", "text": text }));
        }
        for call in &step.calls {
            content.push(json!({ "type": "tool-call", "tool_call_id": call.id,
                "tool_name": call.name, "args": call.args }));
        }
        chat.partial.clear();
        if !content.is_empty() {
            let m = chat.commit(ids.message(), "assistant", content);
            chat.publish(vec![m]);
        }
        let (builtins, dynamic): (Vec<_>, Vec<_>) = step.calls.iter().partition(|c| {
            c.builtin || !chat.dynamic.contains(&c.name) || super::is_chatd_builtin(&c.name)
        });
        let results: Vec<Value> = builtins
            .iter()
            .map(|c| {
                let part = json!({ "type": "tool-result", "tool_call_id": c.id,
                    "tool_name": c.name, "result": model::builtin_result(c), "is_error": c.is_error });
                chat.commit(ids.message(), "tool", vec![part])
            })
            .collect();
        chat.publish(results);
        if !dynamic.is_empty() {
            let s = chat.set_status(Status::RequiresAction);
            let a = chat.action_required();
            chat.publish(vec![s, a]);
            arm_deadline(&coder, chat);
            return;
        }
        if !step.calls.is_empty() {
            continue;
        }
        if let Some(next) = chat.queue.pop_front() {
            let m = chat.commit(ids.message(), "user", content_of(&next));
            let q = chat.event("queue_update", chat.queued_json());
            chat.publish(vec![m, q]);
            continue;
        }
        let s = chat.set_status(Status::Waiting);
        chat.publish(vec![s]);
        return;
    }
}

pub(super) fn content_of(queued: &Value) -> Vec<Value> {
    queued["content"].as_array().cloned().unwrap_or_default()
}

/// Closes the pending calls with "Tool execution timed out" when the chat is still waiting for
/// the same batch after its deadline, and continues the turn.
fn arm_deadline(coder: &Arc<Coder>, chat: &Chat) {
    let (coder, id, epoch, hv) = (
        coder.clone(),
        chat.id.clone(),
        chat.epoch,
        chat.history_version,
    );
    let ms = chat.setup.deadline_ms;
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        let mut hub = coder.lock();
        let Hub { chats, ids, .. } = &mut *hub;
        let Some(chat) = chats.get_mut(&id) else {
            return;
        };
        if chat.epoch != epoch
            || chat.history_version != hv
            || chat.status != Status::RequiresAction
        {
            return;
        }
        let mut batch = close_pending(chat, ids, REASON_TIMEOUT);
        batch.push(start_turn(&coder, chat, false));
        chat.publish(batch);
    });
}

/// Commits the text streamed so far by an interrupted step as an assistant message.
pub(super) fn commit_partial(chat: &mut Chat, ids: &mut Counters) -> Option<Value> {
    if chat.partial.is_empty() {
        return None;
    }
    let text = std::mem::take(&mut chat.partial);
    Some(chat.commit(
        ids.message(),
        "assistant",
        vec![json!({ "type": "text", "text": text })],
    ))
}
