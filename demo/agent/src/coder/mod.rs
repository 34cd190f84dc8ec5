//! A mock of Coder's chat API (chatd) with client-executed dynamic tools: the REST routes under
//! `/api/v2/chats` (and `/api/experimental/chats`), the per-chat WebSocket stream, the status
//! machine with `requires_action` and its deadline, and a scripted model. The `/test/coder/*`
//! control routes choose a chat's script, framing, deadline and stream drops, and read back what
//! the mock received. README.md beside this crate ("Coder mock") is the contract it serves.

pub mod chat;
pub mod model;
mod stream;
pub mod time;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::sync::watch;

use chat::{Chat, Era, Framing, Setup, Status, REASON_INTERRUPT, REASON_TIMEOUT};
use model::Step;

/// The prefix current builds serve the chat routes under.
pub const DEFAULT_PREFIX: &str = "/api/v2/chats";
/// The prefix of older builds, served too.
pub const EXPERIMENTAL_PREFIX: &str = "/api/experimental/chats";
/// The server's requires_action deadline (`requiresActionTimeout`, 5 minutes).
pub const DEFAULT_DEADLINE_MS: u64 = 300_000;
/// Body cap of create and tool-results (the handlers cap the reader at 256 KiB).
pub const MAX_BODY: usize = 256 * 1024;
/// Most dynamic tools a chat may declare.
pub const MAX_DYNAMIC_TOOLS: usize = 250;
/// Queued messages a chat holds before `POST /messages` answers 429.
pub const MAX_QUEUE: usize = 20;
/// Default interval of stream pings.
const DEFAULT_PING_MS: u64 = 15_000;

/// How the mock is configured from the command line.
#[derive(Debug, Clone)]
pub struct CoderConfig {
    /// Where the chat routes live (default `/api/v2/chats`); `/api/experimental/chats` is
    /// served as well.
    pub prefix: String,
    /// The requires_action deadline of new chats, in ms.
    pub deadline_ms: u64,
    /// The session token every chat route requires (`None`: no auth).
    pub token: Option<String>,
}

impl Default for CoderConfig {
    fn default() -> Self {
        CoderConfig {
            prefix: DEFAULT_PREFIX.into(),
            deadline_ms: DEFAULT_DEADLINE_MS,
            token: None,
        }
    }
}

/// Deployment-wide counters: message ids are integers increasing per deployment.
#[derive(Default)]
struct Counters {
    message: i64,
    queued: i64,
    chat: u64,
    call: u64,
}

impl Counters {
    fn message(&mut self) -> i64 {
        self.message += 1;
        self.message
    }
    fn queued(&mut self) -> i64 {
        self.queued += 1;
        self.queued
    }
    fn call(&mut self) -> String {
        self.call += 1;
        format!("toolu_{:02}", self.call)
    }
}

/// A setup waiting for the chat it applies to (`POST /test/coder/setup` without `chatId`).
struct PendingSetup {
    /// Applies to the next chat whose first message text contains this (any chat: `None`).
    matches: Option<String>,
    patch: SetupPatch,
}

#[derive(Default)]
struct Hub {
    chats: HashMap<String, Chat>,
    order: Vec<String>,
    ids: Counters,
    pending_setups: VecDeque<PendingSetup>,
    /// `None`: no auth.
    token: Option<String>,
}

/// The mock's shared state.
pub struct Coder {
    hub: Mutex<Hub>,
    config: CoderConfig,
    pace_ms: u64,
    started: Instant,
    shutdown: watch::Receiver<bool>,
}

impl Coder {
    /// A mock with no chats. `pace_ms` is the default pause between streamed parts.
    pub fn new(config: CoderConfig, pace_ms: u64, shutdown: watch::Receiver<bool>) -> Arc<Coder> {
        let hub = Hub {
            token: config.token.clone(),
            ..Hub::default()
        };
        Arc::new(Coder {
            hub: Mutex::new(hub),
            config,
            pace_ms,
            started: Instant::now(),
            shutdown,
        })
    }

    fn lock(&self) -> MutexGuard<'_, Hub> {
        self.hub.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn at_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Forgets every chat and setup (`POST /test/reset`); the token goes back to the flag's.
    /// Open streams are dropped.
    pub fn reset(&self) {
        let mut hub = self.lock();
        for chat in hub.chats.values_mut() {
            chat.epoch += 1;
            chat.drop_streams();
        }
        *hub = Hub {
            token: self.config.token.clone(),
            ..Hub::default()
        };
    }

    fn default_setup(&self) -> Setup {
        Setup {
            framing: Framing::Array,
            deadline_ms: self.config.deadline_ms,
            pace_ms: self.pace_ms,
            ping_ms: DEFAULT_PING_MS,
            turns: None,
            drop_after: VecDeque::new(),
            era: Era::Current,
        }
    }
}

/// The chat routes (under the configured prefix and `/api/experimental/chats`) and the
/// `/test/coder/*` control routes.
pub fn router(coder: Arc<Coder>) -> Router {
    let mut api = Router::new();
    let mut prefixes = vec![coder.config.prefix.clone()];
    if coder.config.prefix != EXPERIMENTAL_PREFIX {
        prefixes.push(EXPERIMENTAL_PREFIX.into());
    }
    for p in &prefixes {
        api = api
            .route(p, post(create_chat))
            .route(&format!("{p}/{{chat}}"), get(get_chat))
            .route(
                &format!("{p}/{{chat}}/messages"),
                get(list_messages).post(post_message),
            )
            .route(&format!("{p}/{{chat}}/interrupt"), post(interrupt))
            .route(&format!("{p}/{{chat}}/tool-results"), post(tool_results))
            .route(&format!("{p}/{{chat}}/stream"), get(stream::stream));
    }
    let api = api.route_layer(middleware::from_fn_with_state(coder.clone(), auth));
    let control = Router::new()
        .route("/test/coder/setup", post(setup))
        .route("/test/coder/drop", post(drop_streams))
        .route("/test/coder/inject", post(inject))
        .route("/test/coder/auth", post(set_auth))
        .route("/test/coder/chats", get(list_chats))
        .route("/test/coder/chats/{chat}", get(chat_record));
    api.merge(control).with_state(coder)
}

/// Whether `path` is one of the mock's chat routes (they get no CORS headers, like Coder's).
pub fn is_chat_path(config_prefix: &str, path: &str) -> bool {
    [config_prefix, EXPERIMENTAL_PREFIX]
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

// ---- responses ----------------------------------------------------------------------------------

/// A `codersdk.Response` body: `{message, detail?}`.
fn sdk(status: StatusCode, message: &str, detail: Option<String>) -> Response {
    let mut body = json!({ "message": message });
    if let Some(d) = detail {
        body["detail"] = json!(d);
    }
    json_response(status, body)
}

fn json_response(status: StatusCode, body: Value) -> Response {
    let mut res = (status, Json(body)).into_response();
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

fn not_found() -> Response {
    sdk(
        StatusCode::NOT_FOUND,
        "Resource not found or you do not have access to this resource",
        None,
    )
}

fn bad_json(detail: impl Into<String>) -> Response {
    sdk(
        StatusCode::BAD_REQUEST,
        "Request body must be valid JSON.",
        Some(detail.into()),
    )
}

fn test_error(message: impl Into<String>) -> Response {
    json_response(StatusCode::BAD_REQUEST, json!({ "error": message.into() }))
}

/// Reads a JSON object body of at most `limit` bytes (400 "Request body must be valid JSON."
/// otherwise, as httpapi.Read answers).
async fn read_object(req: Request, limit: usize) -> Result<(Map<String, Value>, Value), Response> {
    let bytes: Bytes = axum::body::to_bytes(req.into_body(), limit)
        .await
        .map_err(|_| bad_json("http: request body too large"))?;
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| bad_json(format!("unmarshal request: {e}")))?;
    match value {
        Value::Object(o) => Ok((o.clone(), Value::Object(o))),
        _ => Err(bad_json("unmarshal request: the body is not a JSON object")),
    }
}

// ---- auth ---------------------------------------------------------------------------------------

const SIGNED_OUT: &str =
    "You are signed out or your session has expired. Please sign in again to continue.";

/// The session token of a request, where coderd's `APITokenFromRequest` looks, in its order: the
/// `coder_session_token` cookie, the query parameter of that name, the `Coder-Session-Token`
/// header.
fn session_token(headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            c.trim_start()
                .strip_prefix("coder_session_token=")
                .map(str::to_string)
        });
    let query = query.and_then(|q| {
        q.split('&')
            .find_map(|pair| pair.strip_prefix("coder_session_token="))
            .map(str::to_string)
    });
    let header = headers
        .get("coder-session-token")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    [cookie, query, header]
        .into_iter()
        .flatten()
        .find(|t| !t.is_empty())
}

async fn auth(State(coder): State<Arc<Coder>>, req: Request, next: Next) -> Response {
    let want = coder.lock().token.clone();
    if let Some(want) = want {
        match session_token(req.headers(), req.uri().query()) {
            None => {
                return sdk(
                    StatusCode::UNAUTHORIZED,
                    SIGNED_OUT,
                    Some(
                        "Cookie \"coder_session_token\" or query parameter must be provided."
                            .into(),
                    ),
                )
            }
            Some(got) if got != want => {
                return sdk(
                    StatusCode::UNAUTHORIZED,
                    SIGNED_OUT,
                    Some("API key is invalid.".into()),
                )
            }
            Some(_) => {}
        }
    }
    next.run(req).await
}

// ---- the worker ---------------------------------------------------------------------------------

/// Moves the chat to `running` (the pending era's `pending` after a submit) under a new epoch
/// and starts the worker that continues the turn; returns the `status` event.
fn start_turn(coder: &Arc<Coder>, chat: &mut Chat, after_submit: bool) -> Value {
    chat.epoch += 1;
    chat.partial.clear();
    let status = if after_submit && chat.setup.era == Era::Pending {
        Status::Pending
    } else {
        Status::Running
    };
    let e = chat.set_status(status);
    tokio::spawn(run_turn(coder.clone(), chat.id.clone(), chat.epoch));
    e
}

/// Closes every pending dynamic call with a synthetic error result; returns the `message`
/// events.
fn close_pending(chat: &mut Chat, ids: &mut Counters, reason: &str) -> Vec<Value> {
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

/// One turn: model steps until the chat waits for the client, ends, fails or is taken over.
async fn run_turn(coder: Arc<Coder>, id: String, epoch: u64) {
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
            let mut step: Step = model::next_step(chat);
            if step.quote {
                step.text.extend(crate::demo::tokenize(&model::quote(chat)));
            }
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
        let mut seq = 0u64;
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
        let (builtins, dynamic): (Vec<_>, Vec<_>) = step
            .calls
            .iter()
            .partition(|c| c.builtin || !chat.dynamic.contains(&c.name));
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

fn content_of(queued: &Value) -> Vec<Value> {
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

// ---- REST handlers ------------------------------------------------------------------------------

fn valid_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// `POST /` (create): 201 `Chat`, status `running`; the first message goes to the worker.
async fn create_chat(State(coder): State<Arc<Coder>>, req: Request) -> Response {
    let (body, _) = match read_object(req, MAX_BODY).await {
        Ok(b) => b,
        Err(res) => return res,
    };
    match body.get("organization_id") {
        None | Some(Value::Null) => {
            return sdk(
                StatusCode::BAD_REQUEST,
                "organization_id is required.",
                None,
            )
        }
        Some(Value::String(s)) if s == "00000000-0000-0000-0000-000000000000" => {
            return sdk(
                StatusCode::BAD_REQUEST,
                "organization_id is required.",
                None,
            )
        }
        Some(Value::String(s)) if valid_uuid(s) => {}
        Some(_) => return bad_json("unmarshal request: organization_id is not a UUID"),
    }
    if body
        .get("content")
        .and_then(Value::as_array)
        .is_none_or(|a| a.is_empty())
    {
        return sdk(
            StatusCode::BAD_REQUEST,
            "Content is required.",
            Some("Content must include at least one part.".into()),
        );
    }
    let tools = match body.get("unsafe_dynamic_tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => return bad_json("unmarshal request: unsafe_dynamic_tools is not an array"),
    };
    if tools.len() > MAX_DYNAMIC_TOOLS {
        return sdk(
            StatusCode::BAD_REQUEST,
            "Too many dynamic tools.",
            Some(format!(
                "Maximum {MAX_DYNAMIC_TOOLS} dynamic tools per chat."
            )),
        );
    }
    let mut names = HashSet::new();
    for t in &tools {
        let name = t["name"].as_str().unwrap_or("");
        if name.is_empty() {
            return sdk(
                StatusCode::BAD_REQUEST,
                "Dynamic tool name must not be empty.",
                None,
            );
        }
        if !names.insert(name.to_string()) {
            return sdk(
                StatusCode::BAD_REQUEST,
                "Duplicate dynamic tool name.",
                Some(format!("Tool {name:?} appears more than once.")),
            );
        }
    }
    let text = chat::first_text(body.get("content"));
    let mut hub = coder.lock();
    let mut setup = coder.default_setup();
    if let Some(i) = hub
        .pending_setups
        .iter()
        .position(|p| p.matches.as_deref().is_none_or(|m| text.contains(m)))
    {
        if let Some(p) = hub.pending_setups.remove(i) {
            p.patch.apply(&mut setup);
        }
    }
    hub.ids.chat += 1;
    let id = format!("c0de0000-0000-4000-8000-{:012x}", hub.ids.chat);
    let mut chat = Chat::new(id.clone(), &body, names, setup);
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let message_id = hub.ids.message();
    chat.commit(message_id, "user", content);
    start_turn(&coder, &mut chat, false);
    let json = chat.to_json();
    hub.order.push(id.clone());
    hub.chats.insert(id, chat);
    json_response(StatusCode::CREATED, json)
}

/// `GET /{chat}`.
async fn get_chat(State(coder): State<Arc<Coder>>, Path(id): Path<String>) -> Response {
    match coder.lock().chats.get(&id) {
        Some(chat) => json_response(StatusCode::OK, chat.to_json()),
        None => not_found(),
    }
}

#[derive(Deserialize)]
struct PageQuery {
    before_id: Option<String>,
    after_id: Option<String>,
    limit: Option<String>,
}

/// `GET /{chat}/messages?before_id=&after_id=&limit=`: newest first, except a page with only
/// `after_id`, which is ascending; `queued_messages` on the first page.
async fn list_messages(
    State(coder): State<Arc<Coder>>,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> Response {
    let parse = |name: &'static str, v: &Option<String>| -> Result<Option<i64>, &'static str> {
        match v.as_deref() {
            None | Some("") => Ok(None),
            Some(s) => s.parse::<i64>().map(Some).map_err(|_| name),
        }
    };
    let (before, after, limit) = match (
        parse("before_id", &q.before_id),
        parse("after_id", &q.after_id),
        parse("limit", &q.limit),
    ) {
        (Ok(b), Ok(a), Ok(l)) => (b, a, l.unwrap_or(50)),
        (Err(name), _, _) | (_, Err(name), _) | (_, _, Err(name)) => {
            return sdk(
                StatusCode::BAD_REQUEST,
                &format!("Invalid {name} parameter."),
                None,
            )
        }
    };
    if !(1..=200).contains(&limit) {
        return sdk(
            StatusCode::BAD_REQUEST,
            "Invalid limit parameter.",
            Some("Limit must be between 1 and 200.".into()),
        );
    }
    let hub = coder.lock();
    let Some(chat) = hub.chats.get(&id) else {
        return not_found();
    };
    let mut list: Vec<&Value> = chat
        .messages
        .iter()
        .filter(|m| {
            let mid = m["id"].as_i64().unwrap_or(0);
            before.is_none_or(|b| mid < b) && after.is_none_or(|a| mid > a)
        })
        .collect();
    let ascending = after.is_some() && before.is_none();
    if !ascending {
        list.reverse();
    }
    let has_more = list.len() > limit as usize;
    list.truncate(limit as usize);
    let mut body = json!({ "messages": list, "has_more": has_more });
    if before.is_none() {
        body["queued_messages"] = chat.queued_json();
    }
    json_response(StatusCode::OK, body)
}

/// `POST /{chat}/messages`: runs the message when idle, queues it when busy (or interrupts the
/// turn with `busy_behavior: "interrupt"`).
async fn post_message(
    State(coder): State<Arc<Coder>>,
    Path(id): Path<String>,
    req: Request,
) -> Response {
    if !coder.lock().chats.contains_key(&id) {
        return not_found();
    }
    let res = post_message_inner(&coder, &id, req).await;
    let mut hub = coder.lock();
    let at = coder.at_ms();
    if let Some(chat) = hub.chats.get_mut(&id) {
        chat.record
            .message_posts
            .push(json!({ "status": res.0.as_u16(), "body": res.2, "atMs": at }));
    }
    json_response(res.0, res.1)
}

async fn post_message_inner(
    coder: &Arc<Coder>,
    id: &str,
    req: Request,
) -> (StatusCode, Value, Value) {
    let err = |s: StatusCode, m: &str, d: Option<&str>| {
        let mut b = json!({ "message": m });
        if let Some(d) = d {
            b["detail"] = json!(d);
        }
        (s, b)
    };
    let (body, raw) = match read_object(req, MAX_BODY).await {
        Ok(b) => b,
        Err(_) => {
            let (s, b) = err(
                StatusCode::BAD_REQUEST,
                "Request body must be valid JSON.",
                None,
            );
            return (s, b, Value::Null);
        }
    };
    let busy = body
        .get("busy_behavior")
        .and_then(Value::as_str)
        .unwrap_or("");
    let interrupt = match busy {
        "" | "queue" => false,
        "interrupt" => true,
        _ => {
            let (s, b) = err(
                StatusCode::BAD_REQUEST,
                "Invalid busy_behavior value.",
                Some("Must be \"queue\" or \"interrupt\"."),
            );
            return (s, b, raw);
        }
    };
    let Some(content) = body
        .get("content")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
        .cloned()
    else {
        let (s, b) = err(
            StatusCode::BAD_REQUEST,
            "Content is required.",
            Some("Content must include at least one part."),
        );
        return (s, b, raw);
    };
    let mut hub = coder.lock();
    let Hub { chats, ids, .. } = &mut *hub;
    let Some(chat) = chats.get_mut(id) else {
        let (s, b) = err(
            StatusCode::NOT_FOUND,
            "Resource not found or you do not have access to this resource",
            None,
        );
        return (s, b, raw);
    };
    if chat.archived {
        let (s, b) = err(
            StatusCode::BAD_REQUEST,
            "Cannot send messages to an archived chat.",
            None,
        );
        return (s, b, raw);
    }
    let idle = matches!(chat.status, Status::Waiting | Status::Error);
    if idle || interrupt {
        let mut batch = Vec::new();
        match chat.status {
            Status::RequiresAction => batch.extend(close_pending(chat, ids, REASON_INTERRUPT)),
            Status::Running | Status::Interrupting | Status::Pending => {
                chat.epoch += 1;
                batch.extend(commit_partial(chat, ids));
            }
            _ => {}
        }
        let m = chat.commit(ids.message(), "user", content);
        let message = m["message"].clone();
        batch.push(m);
        batch.push(start_turn(coder, chat, false));
        chat.publish(batch);
        return (
            StatusCode::OK,
            json!({ "queued": false, "message": message }),
            raw,
        );
    }
    if chat.queue.len() >= MAX_QUEUE {
        let (s, b) = err(
            StatusCode::TOO_MANY_REQUESTS,
            "Message queue is full.",
            Some(&format!("Maximum {MAX_QUEUE} messages can be queued.")),
        );
        return (s, b, raw);
    }
    let queued = json!({ "id": ids.queued(), "chat_id": chat.id, "content": content,
        "created_at": time::now_rfc3339() });
    chat.queue.push_back(queued.clone());
    let q = chat.event("queue_update", chat.queued_json());
    chat.publish(vec![q]);
    (
        StatusCode::OK,
        json!({ "queued": true, "queued_message": queued }),
        raw,
    )
}

/// Commits the text streamed so far by an interrupted step as an assistant message.
fn commit_partial(chat: &mut Chat, ids: &mut Counters) -> Option<Value> {
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

/// `POST /{chat}/interrupt`: 200 `Chat`. Running: `interrupting`, then `waiting` with the
/// partial output committed. requires_action: synthetic "interrupted by user" results and the
/// turn goes on (`running`; the pending era: `waiting`). Idle: 409.
async fn interrupt(State(coder): State<Arc<Coder>>, Path(id): Path<String>) -> Response {
    let at = coder.at_ms();
    let mut hub = coder.lock();
    let Hub { chats, ids, .. } = &mut *hub;
    let Some(chat) = chats.get_mut(&id) else {
        return not_found();
    };
    let from = chat.status;
    let status = match from {
        Status::Waiting | Status::Error => StatusCode::CONFLICT,
        Status::Interrupting => StatusCode::OK,
        Status::RequiresAction => {
            let mut batch = close_pending(chat, ids, REASON_INTERRUPT);
            if chat.setup.era == Era::Pending {
                chat.epoch += 1;
                batch.push(chat.set_status(Status::Waiting));
            } else {
                batch.push(start_turn(&coder, chat, false));
            }
            chat.publish(batch);
            StatusCode::OK
        }
        Status::Running | Status::Pending => {
            chat.epoch += 1;
            let e = chat.set_status(Status::Interrupting);
            chat.publish(vec![e]);
            let (coder2, id2, epoch) = (coder.clone(), chat.id.clone(), chat.epoch);
            tokio::spawn(async move {
                tokio::task::yield_now().await;
                let mut hub = coder2.lock();
                let Hub { chats, ids, .. } = &mut *hub;
                let Some(chat) = chats.get_mut(&id2) else {
                    return;
                };
                if chat.epoch != epoch || chat.status != Status::Interrupting {
                    return;
                }
                let mut batch: Vec<Value> = commit_partial(chat, ids).into_iter().collect();
                if let Some(next) = chat.queue.pop_front() {
                    batch.push(chat.commit(ids.message(), "user", content_of(&next)));
                    batch.push(chat.event("queue_update", chat.queued_json()));
                    batch.push(start_turn(&coder2, chat, false));
                } else {
                    batch.push(chat.set_status(Status::Waiting));
                }
                chat.publish(batch);
            });
            StatusCode::OK
        }
    };
    chat.record
        .interrupts
        .push(json!({ "status": status.as_u16(), "from": from.as_str(), "atMs": at }));
    if status == StatusCode::CONFLICT {
        return sdk(
            StatusCode::CONFLICT,
            "Chat is not in an interruptible state.",
            None,
        );
    }
    json_response(StatusCode::OK, chat.to_json())
}

/// `POST /{chat}/tool-results`: 204, or the first failing check in the handler's order.
async fn tool_results(
    State(coder): State<Arc<Coder>>,
    Path(id): Path<String>,
    req: Request,
) -> Response {
    let bytes = axum::body::to_bytes(req.into_body(), MAX_BODY).await;
    let at = coder.at_ms();
    let mut hub = coder.lock();
    let Hub { chats, ids, .. } = &mut *hub;
    let Some(chat) = chats.get_mut(&id) else {
        return not_found();
    };
    let raw = match &bytes {
        Ok(b) => serde_json::from_slice::<Value>(b)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(b).into_owned())),
        Err(_) => Value::String("<over 256 KiB>".into()),
    };
    let (status, body) = submit(&coder, chat, ids, bytes.ok());
    chat.record
        .tool_result_posts
        .push(json!({ "status": status.as_u16(), "body": raw, "atMs": at }));
    match body {
        None => status.into_response(),
        Some(b) => json_response(status, b),
    }
}

/// The tool-results checks, in the handler's order, and the commit on success.
fn submit(
    coder: &Arc<Coder>,
    chat: &mut Chat,
    ids: &mut Counters,
    bytes: Option<Bytes>,
) -> (StatusCode, Option<Value>) {
    let fail = |s: StatusCode, m: &str, d: Option<String>| {
        let mut b = json!({ "message": m });
        if let Some(d) = d {
            b["detail"] = json!(d);
        }
        (s, Some(b))
    };
    if chat.archived {
        return fail(
            StatusCode::BAD_REQUEST,
            "Cannot submit tool results to an archived chat.",
            None,
        );
    }
    let Some(bytes) = bytes else {
        return fail(
            StatusCode::BAD_REQUEST,
            "Request body must be valid JSON.",
            Some("http: request body too large".into()),
        );
    };
    let results = match parse_results(&bytes) {
        Ok(r) => r,
        Err(detail) => {
            return fail(
                StatusCode::BAD_REQUEST,
                "Request body must be valid JSON.",
                Some(detail),
            )
        }
    };
    if results.is_empty() {
        return fail(
            StatusCode::BAD_REQUEST,
            "At least one tool result is required.",
            None,
        );
    }
    if chat.status != Status::RequiresAction {
        return fail(
            StatusCode::CONFLICT,
            "Chat is not waiting for tool results.",
            Some(format!(
                "chat status is {:?}, expected \"requires_action\"",
                chat.status.as_str()
            )),
        );
    }
    let pending = chat.pending_calls();
    let mut seen: HashSet<&str> = HashSet::new();
    for r in &results {
        if !seen.insert(r.id.as_str()) {
            return fail(
                StatusCode::BAD_REQUEST,
                "Duplicate tool_call_id in results.",
                Some(format!("Duplicate tool call ID {:?}.", r.id)),
            );
        }
        if r.output.is_none() {
            return fail(
                StatusCode::BAD_REQUEST,
                "Tool result output must be valid JSON.",
                Some(format!(
                    "Output for tool call {:?} is not valid JSON.",
                    r.id
                )),
            );
        }
    }
    if let Some((missing, _, _)) = pending
        .iter()
        .find(|(id, _, _)| !seen.contains(id.as_str()))
    {
        return fail(
            StatusCode::BAD_REQUEST,
            "Missing tool result.",
            Some(format!("Missing result for tool call {missing:?}.")),
        );
    }
    if let Some(r) = results
        .iter()
        .find(|r| !pending.iter().any(|(id, _, _)| *id == r.id))
    {
        return fail(
            StatusCode::BAD_REQUEST,
            "Unexpected tool result.",
            Some(format!("No pending tool call with ID {:?}.", r.id)),
        );
    }
    let mut batch: Vec<Value> = results
        .into_iter()
        .map(|r| {
            let name = pending
                .iter()
                .find(|(id, _, _)| *id == r.id)
                .map(|(_, n, _)| n.clone())
                .unwrap_or_default();
            let part = json!({ "type": "tool-result", "tool_call_id": r.id, "tool_name": name,
                "result": r.output, "is_error": r.is_error });
            chat.commit(ids.message(), "tool", vec![part])
        })
        .collect();
    batch.push(start_turn(coder, chat, true));
    chat.publish(batch);
    (StatusCode::NO_CONTENT, None)
}

/// One item of `results`.
struct ToolResult {
    id: String,
    /// `None`: the key is absent (Go's empty RawMessage, which is not valid JSON).
    output: Option<Value>,
    is_error: bool,
}

/// Decodes `{"results": [{tool_call_id, output, is_error}]}` as Go's decoder would: wrong types
/// are decode errors; unknown fields are ignored.
fn parse_results(bytes: &[u8]) -> Result<Vec<ToolResult>, String> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("unmarshal request: {e}"))?;
    let Value::Object(o) = v else {
        return Err("unmarshal request: the body is not a JSON object".into());
    };
    let items = match o.get("results") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(_) => return Err("unmarshal request: results is not an array".into()),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let Value::Object(r) = item else {
                return Err(format!("unmarshal request: results[{i}] is not an object"));
            };
            let id = match r.get("tool_call_id") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(_) => {
                    return Err(format!(
                        "unmarshal request: results[{i}].tool_call_id is not a string"
                    ))
                }
            };
            let is_error = match r.get("is_error") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(format!(
                        "unmarshal request: results[{i}].is_error is not a boolean"
                    ))
                }
            };
            Ok(ToolResult {
                id,
                output: r.get("output").cloned(),
                is_error,
            })
        })
        .collect()
}

// ---- test control -------------------------------------------------------------------------------

/// The fields of `POST /test/coder/setup` (each optional: only those given change).
#[derive(Default, Clone)]
struct SetupPatch {
    framing: Option<Framing>,
    deadline_ms: Option<u64>,
    pace_ms: Option<u64>,
    ping_ms: Option<u64>,
    turns: Option<Vec<Step>>,
    drop_after: Option<Vec<String>>,
    era: Option<Era>,
    archived: Option<bool>,
}

impl SetupPatch {
    fn parse(o: &Map<String, Value>) -> Result<SetupPatch, String> {
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
        })
    }

    fn apply(self, s: &mut Setup) {
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
    }
}

/// `POST /test/coder/setup {chatId? | match?, framing?, deadlineMs?, paceMs?, pingMs?, turns?,
/// dropAfter?, era?, archived?}`: with `chatId`, changes that chat now; else applies to the next
/// chat created whose first message text contains `match` (any chat without it), FIFO.
async fn setup(State(coder): State<Arc<Coder>>, req: Request) -> Response {
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
async fn drop_streams(State(coder): State<Arc<Coder>>, req: Request) -> Response {
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
async fn inject(State(coder): State<Arc<Coder>>, req: Request) -> Response {
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
async fn set_auth(State(coder): State<Arc<Coder>>, req: Request) -> Response {
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

/// `GET /test/coder/chats`: `[{id, status, title}]` in creation order.
async fn list_chats(State(coder): State<Arc<Coder>>) -> Response {
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
/// received (tool-results POSTs, interrupts, message POSTs) and its streams.
async fn chat_record(State(coder): State<Arc<Coder>>, Path(id): Path<String>) -> Response {
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
            "actionRequiredSent": c.action_sent(),
            "toolResultPosts": r.tool_result_posts,
            "toolResultPostCount": r.tool_result_posts.len(),
            "toolResultsAccepted": accepted,
            "interrupts": r.interrupts,
            "messagePosts": r.message_posts,
            "streams": { "opened": r.streams_opened, "open": r.streams_open,
                "dropped": r.streams_dropped },
        }),
    )
}
