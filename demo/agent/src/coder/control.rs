//! The `/test/coder/*` control API: a chat's script, framing, deadline, drops and errors, and
//! what the mock received.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Map, Value};

use super::chat::{Era, Framing, Setup, Status};
use super::model::{self, Step};
use super::{json_response, read_object, test_error, Coder, PendingSetup};

/// The fields of `POST /test/coder/setup` (each optional: only those given change).
#[derive(Default, Clone)]
pub(super) struct SetupPatch {
    framing: Option<Framing>,
    deadline_ms: Option<u64>,
    pace_ms: Option<u64>,
    ping_ms: Option<u64>,
    turns: Option<Vec<Step>>,
    drop_after: Option<Vec<String>>,
    era: Option<Era>,
    archived: Option<bool>,
    quiet_status: Option<bool>,
    hold_results: Option<u64>,
    hold_interrupts: Option<u64>,
    invalid_state: Option<bool>,
    edited: Option<bool>,
}

impl SetupPatch {
    pub(super) fn parse(o: &Map<String, Value>) -> Result<SetupPatch, String> {
        let ms = |k: &str| -> Result<Option<u64>, String> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_u64()
                    .map(Some)
                    .ok_or(format!("{k} is a non-negative integer")),
            }
        };
        let framing = match o.get("framing").and_then(Value::as_str) {
            Some(f) => Some(Framing::parse(f)?),
            None => None,
        };
        let era = match o.get("era").and_then(Value::as_str) {
            Some("current") => Some(Era::Current),
            Some("pending") => Some(Era::Pending),
            Some(e) => return Err(format!("era {e:?}: expected current or pending")),
            None => None,
        };
        let turns = match o.get("turns") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) => Some(
                a.iter()
                    .enumerate()
                    .map(|(i, s)| Step::parse(s).map_err(|e| format!("turns[{i}]: {e}")))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(_) => return Err("turns is an array of steps".into()),
        };
        const TRIGGERS: [&str; 9] = [
            "requires_action",
            "action_required",
            "running",
            "waiting",
            "error",
            "interrupting",
            "message",
            "tool_result",
            "message_part",
        ];
        let drop_after = match o.get("dropAfter") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) => Some(
                a.iter()
                    .map(|t| match t.as_str() {
                        Some(t) if TRIGGERS.contains(&t) => Ok(t.to_string()),
                        _ => Err(format!("dropAfter: {t} is not one of {TRIGGERS:?}")),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(_) => return Err("dropAfter is an array of trigger names".into()),
        };
        Ok(SetupPatch {
            framing,
            deadline_ms: ms("deadlineMs")?,
            pace_ms: ms("paceMs")?,
            ping_ms: ms("pingMs")?,
            turns,
            drop_after,
            era,
            archived: o.get("archived").and_then(Value::as_bool),
            quiet_status: o.get("quietStatus").and_then(Value::as_bool),
            hold_results: ms("holdResults")?,
            hold_interrupts: ms("holdInterrupts")?,
            invalid_state: o.get("invalidState").and_then(Value::as_bool),
            edited: o.get("edited").and_then(Value::as_bool),
        })
    }

    pub(super) fn apply(self, s: &mut Setup) {
        if let Some(f) = self.framing {
            s.framing = f;
        }
        if let Some(d) = self.deadline_ms {
            s.deadline_ms = d;
        }
        if let Some(p) = self.pace_ms {
            s.pace_ms = p;
        }
        if let Some(p) = self.ping_ms {
            s.ping_ms = p.max(10);
        }
        if let Some(t) = self.turns {
            s.turns.get_or_insert_with(VecDeque::new).extend(t);
        }
        if let Some(d) = self.drop_after {
            s.drop_after.extend(d);
        }
        if let Some(e) = self.era {
            s.era = e;
        }
        if let Some(q) = self.quiet_status {
            s.quiet_status = q;
        }
        if let Some(h) = self.hold_results {
            s.hold_results = h;
        }
        if let Some(h) = self.hold_interrupts {
            s.hold_interrupts = h;
        }
    }
}

/// `POST /test/coder/setup {chatId? | match?, framing?, deadlineMs?, paceMs?, pingMs?, turns?,
/// dropAfter?, era?, archived?, quietStatus?, holdResults?, holdInterrupts?, invalidState?, edited?}`: with `chatId`, changes that chat now; else applies to the next
/// chat created whose first message text contains `match` (any chat without it), FIFO.
pub(super) async fn setup(State(coder): State<Arc<Coder>>, req: Request) -> Response {
    let (body, _) = match read_object(req, 16 * 1024 * 1024).await {
        Ok(b) => b,
        Err(_) => return test_error("body must be a JSON object"),
    };
    let patch = match SetupPatch::parse(&body) {
        Ok(p) => p,
        Err(e) => return test_error(e),
    };
    let mut hub = coder.lock();
    if let Some(id) = body.get("chatId").and_then(Value::as_str) {
        let Some(chat) = hub.chats.get_mut(id) else {
            return test_error(format!("no chat {id}"));
        };
        if let Some(a) = patch.archived {
            chat.archived = a;
        }
        if let Some(i) = patch.invalid_state {
            chat.invalid = i;
        }
        if let Some(e) = patch.edited {
            chat.edited = e;
        }
        patch.apply(&mut chat.setup);
        return json_response(StatusCode::OK, json!({ "ok": true, "chatId": id }));
    }
    hub.pending_setups.push_back(PendingSetup {
        matches: body
            .get("match")
            .and_then(Value::as_str)
            .map(str::to_string),
        patch,
    });
    let n = hub.pending_setups.len();
    json_response(StatusCode::OK, json!({ "ok": true, "pending": n }))
}

/// `POST /test/coder/drop {chatId?}`: drops the chat's open streams (every chat's without
/// `chatId`) at once, without a close frame → `{"dropped": n}`.
pub(super) async fn drop_streams(State(coder): State<Arc<Coder>>, req: Request) -> Response {
    let body = read_object(req, 1024 * 1024)
        .await
        .map(|(b, _)| b)
        .unwrap_or_default();
    let mut hub = coder.lock();
    let n: usize = match body.get("chatId").and_then(Value::as_str) {
        Some(id) => match hub.chats.get_mut(id) {
            Some(chat) => chat.drop_streams(),
            None => return test_error(format!("no chat {id}")),
        },
        None => hub.chats.values_mut().map(|c| c.drop_streams()).sum(),
    };
    json_response(StatusCode::OK, json!({ "dropped": n }))
}

/// `POST /test/coder/inject {chatId, events: [{type, ...}]}`: publishes the events as one batch
/// (`chat_id` filled in). An `error` event also moves the chat to `error` with that
/// `last_error`; a `history_reset` is followed by every committed message again.
pub(super) async fn inject(State(coder): State<Arc<Coder>>, req: Request) -> Response {
    let (body, _) = match read_object(req, 16 * 1024 * 1024).await {
        Ok(b) => b,
        Err(_) => return test_error("body must be a JSON object"),
    };
    let Some(events) = body.get("events").and_then(Value::as_array) else {
        return test_error("events (array) is required");
    };
    let mut hub = coder.lock();
    let Some(chat) = body
        .get("chatId")
        .and_then(Value::as_str)
        .and_then(|id| hub.chats.get_mut(id))
    else {
        return test_error("chatId names no chat");
    };
    let mut batch = Vec::new();
    for e in events {
        let Some(kind) = e["type"].as_str() else {
            return test_error("every event has a string type");
        };
        let mut e = e.clone();
        e["chat_id"] = json!(chat.id);
        if kind == "error" {
            let err = match model::chat_error(&e["error"]) {
                Ok(err) => err,
                Err(m) => return test_error(m),
            };
            chat.epoch += 1;
            batch.push(chat.set_status(Status::Error));
            chat.last_error = Some(err.clone());
            e["error"] = err;
        }
        batch.push(e);
        if kind == "history_reset" {
            let again: Vec<Value> = chat
                .messages
                .iter()
                .map(|m| chat.event("message", m.clone()))
                .collect();
            batch.extend(again);
        }
    }
    let n = batch.len();
    chat.publish(batch);
    json_response(StatusCode::OK, json!({ "published": n }))
}

/// `POST /test/coder/auth {"token": "t" | null}`: the session token the chat routes require.
pub(super) async fn set_auth(State(coder): State<Arc<Coder>>, req: Request) -> Response {
    let (body, _) = match read_object(req, 1024 * 1024).await {
        Ok(b) => b,
        Err(_) => return test_error("body must be a JSON object"),
    };
    let token = body
        .get("token")
        .and_then(Value::as_str)
        .map(str::to_string);
    coder.lock().token = token.clone();
    json_response(StatusCode::OK, json!({ "ok": true, "token": token }))
}

/// `POST /test/coder/restart {"ms": N}`: a coderd restart. Every chat's streams are dropped
/// at once (no close frame) and for `ms` every chat route answers 502 (what a proxy in front of
/// a coderd that is down answers); the chats, their turns and their deadlines go on, as
/// coderd's database and its other replicas keep them → `{"dropped": n, "downMs": N}`.
pub(super) async fn restart(State(coder): State<Arc<Coder>>, req: Request) -> Response {
    let (body, _) = match read_object(req, 1024 * 1024).await {
        Ok(b) => b,
        Err(_) => return test_error("body must be a JSON object"),
    };
    let Some(ms) = body.get("ms").and_then(Value::as_u64) else {
        return test_error("ms (a non-negative integer) is required");
    };
    let mut hub = coder.lock();
    hub.down_until = Some(Instant::now() + Duration::from_millis(ms));
    let n: usize = hub.chats.values_mut().map(|c| c.drop_streams()).sum();
    json_response(StatusCode::OK, json!({ "dropped": n, "downMs": ms }))
}

/// `POST /test/coder/gateway {"enabled": bool}`: with the AI Gateway off, the routes that need
/// the chat daemon (create, message, interrupt, tool-results, stream) answer 503, as coderd's
/// `requireChatDaemon`; reads (`GET /{chat}`, `GET /{chat}/messages`) still pass.
pub(super) async fn gateway(State(coder): State<Arc<Coder>>, req: Request) -> Response {
    let (body, _) = match read_object(req, 1024 * 1024).await {
        Ok(b) => b,
        Err(_) => return test_error("body must be a JSON object"),
    };
    let Some(enabled) = body.get("enabled").and_then(Value::as_bool) else {
        return test_error("enabled (a boolean) is required");
    };
    coder.lock().gateway_off = !enabled;
    json_response(StatusCode::OK, json!({ "ok": true, "enabled": enabled }))
}

/// `GET /test/coder/chats`: `[{id, status, title}]` in creation order.
pub(super) async fn list_chats(State(coder): State<Arc<Coder>>) -> Response {
    let hub = coder.lock();
    let list: Vec<Value> = hub
        .order
        .iter()
        .filter_map(|id| hub.chats.get(id))
        .map(|c| {
            let j = c.to_json();
            json!({ "id": c.id, "status": j["status"], "title": j["title"] })
        })
        .collect();
    json_response(StatusCode::OK, Value::Array(list))
}

/// `GET /test/coder/chats/{id}`: the chat, its messages (ascending), its queue, what the mock
/// received (tool-results POSTs, interrupts, message POSTs), its streams and how many of its
/// scripted steps no turn has taken yet (`turnsLeft`).
pub(super) async fn chat_record(
    State(coder): State<Arc<Coder>>,
    Path(id): Path<String>,
) -> Response {
    let hub = coder.lock();
    let Some(c) = hub.chats.get(&id) else {
        return json_response(
            StatusCode::NOT_FOUND,
            json!({ "error": format!("no chat {id}") }),
        );
    };
    let r = &c.record;
    let accepted = r
        .tool_result_posts
        .iter()
        .filter(|p| p["status"] == 204)
        .count();
    let pending: Vec<Value> = c
        .pending_calls()
        .into_iter()
        .map(|(id, name, args)| json!({ "tool_call_id": id, "tool_name": name, "args": args }))
        .collect();
    json_response(
        StatusCode::OK,
        json!({
            "chat": c.to_json(),
            "messages": c.messages,
            "queuedMessages": c.queued_json(),
            "pendingCalls": pending,
            "modelTools": c.model_tools,
            "createRequest": c.create_request,
            "actionRequiredSent": c.action_sent(),
            "toolResultPosts": r.tool_result_posts,
            "toolResultPostCount": r.tool_result_posts.len(),
            "toolResultsAccepted": accepted,
            "interrupts": r.interrupts,
            "messagePosts": r.message_posts,
            "turnsLeft": c.setup.turns.as_ref().map_or(0, |t| t.len()),
            "streams": { "opened": r.streams_opened, "open": r.streams_open,
                "dropped": r.streams_dropped },
        }),
    )
}
