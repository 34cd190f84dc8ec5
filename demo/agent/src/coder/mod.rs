//! A mock of Coder's chat API (chatd) with client-executed dynamic tools: the REST routes under
//! `/api/v2/chats` (and `/api/experimental/chats`), the per-chat WebSocket stream, the status
//! machine with `requires_action` and its deadline, and a scripted model. The `/test/coder/*`
//! control routes choose a chat's script, framing, deadline and stream drops, and read back what
//! the mock received. README.md beside this crate ("Coder mock") is the contract it serves.
//!
//! Rooms: this file holds the shared state, the REST handlers and auth; `turn` the worker and
//! the deadline; [`chat`] one chat and its events; [`model`] the scripted model; `stream` the
//! WebSocket; `control` the test API.

pub mod chat;
mod control;
pub mod model;
pub mod site;
mod stream;
pub mod time;
mod turn;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

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

use chat::{Chat, Era, Framing, Setup, Status, REASON_INTERRUPT, REASON_RECONCILE};
use control::SetupPatch;
use turn::{close_pending, commit_partial, content_of, start_turn};

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
/// The longest `system_prompt` (`maxSystemPromptLenBytes`, 128 KiB).
pub const MAX_SYSTEM_PROMPT: usize = 128 * 1024;
/// Queued messages a chat holds before `POST /messages` answers 429.
pub const MAX_QUEUE: usize = 20;
/// The chatd built-in tools a dynamic tool's name may collide with: such a call is run by the
/// server (the built-in wins) and never reaches `requires_action`.
pub const CHATD_BUILTINS: [&str; 4] = ["read_file", "write_file", "edit_files", "execute"];
/// Whether `name` is one of [`CHATD_BUILTINS`].
pub fn is_chatd_builtin(name: &str) -> bool {
    CHATD_BUILTINS.contains(&name)
}
/// The 503 of `requireChatDaemon` (the AI Gateway is off).
const GATEWAY_OFF: &str = "AI Gateway must be enabled for Coder Agents functionality. Please contact your deployment administrator.";
const GATEWAY_OFF_DETAIL: &str =
    "Set CODER_AI_GATEWAY_ENABLED=true (or ai-gateway-enabled in deployment YAML) to enable.";
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
    /// Sign every browser in: an HTML page sets the `coder_session_token` cookie (the token)
    /// and carries the CSRF meta tag (`--coder-sign-in`).
    pub sign_in: bool,
    /// Serve the chat routes under `prefix` only, not under `/api/experimental/chats` too
    /// (`--coder-only-prefix`: builds after coder/coder#29548).
    pub only_prefix: bool,
}

impl Default for CoderConfig {
    fn default() -> Self {
        CoderConfig {
            prefix: DEFAULT_PREFIX.into(),
            deadline_ms: DEFAULT_DEADLINE_MS,
            token: None,
            sign_in: false,
            only_prefix: false,
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
    /// The AI Gateway is off (`requireChatDaemon` answers 503).
    gateway_off: bool,
    /// A restart is under way until then: every chat route answers 502.
    down_until: Option<Instant>,
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
        // The ids keep counting: a turn task of a forgotten chat (one sleeping in a step's
        // `delayMs`) looks its chat up by id, and must never find a new chat under it.
        let ids = std::mem::take(&mut hub.ids);
        *hub = Hub {
            token: self.config.token.clone(),
            ids,
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
            quiet_status: false,
            hold_results: 0,
            hold_interrupts: 0,
        }
    }
}

/// The chat routes (under the configured prefix and `/api/experimental/chats`) and the
/// `/test/coder/*` control routes.
pub fn router(coder: Arc<Coder>) -> Router {
    let mut api = Router::new();
    let mut prefixes = vec![coder.config.prefix.clone()];
    if coder.config.prefix != EXPERIMENTAL_PREFIX && !coder.config.only_prefix {
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
            .route(
                &format!("{p}/{{chat}}/reconcile-invalid"),
                post(reconcile_invalid),
            )
            .route(&format!("{p}/{{chat}}/stream"), get(stream::stream));
    }
    let api = api.route_layer(middleware::from_fn_with_state(coder.clone(), auth));
    let control = Router::new()
        .route("/test/coder/setup", post(control::setup))
        .route("/test/coder/drop", post(control::drop_streams))
        .route("/test/coder/inject", post(control::inject))
        .route("/test/coder/auth", post(control::set_auth))
        .route("/test/coder/restart", post(control::restart))
        .route("/test/coder/gateway", post(control::gateway))
        .route("/test/coder/login", get(site::login))
        .route("/test/coder/chats", get(control::list_chats))
        .route("/test/coder/chats/{chat}", get(control::chat_record));
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

/// The answer to a create or tool-results body over [`MAX_BODY`] (`httpapi.ReadLimit`).
fn too_large() -> Response {
    sdk(
        StatusCode::PAYLOAD_TOO_LARGE,
        "Request body exceeds 256 KiB",
        Some(format!("The limit is {MAX_BODY} bytes.")),
    )
}

/// The 503 of `requireChatDaemon`, when the AI Gateway is off.
fn gateway_check(coder: &Coder) -> Option<Response> {
    coder.lock().gateway_off.then(|| {
        sdk(
            StatusCode::SERVICE_UNAVAILABLE,
            GATEWAY_OFF,
            Some(GATEWAY_OFF_DETAIL.into()),
        )
    })
}

/// Reads a JSON object body of at most [`MAX_BODY`] bytes: 413 over it (create and
/// tool-results), else as [`read_object`].
async fn read_capped(req: Request) -> Result<(Map<String, Value>, Value), Response> {
    let bytes: Bytes = axum::body::to_bytes(req.into_body(), MAX_BODY)
        .await
        .map_err(|_| too_large())?;
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|e| bad_json(format!("unmarshal request: {e}")))?;
    match value {
        Value::Object(o) => Ok((o.clone(), Value::Object(o))),
        _ => Err(bad_json("unmarshal request: the body is not a JSON object")),
    }
}

/// A message's `content` as coderd's `createChatInputFromParts` reads it: no parts → 400
/// "Content is required."; a text part is trimmed and an empty one → 400 "Invalid input
/// part."; a part of another type → 400 "Invalid input part.". The stored parts hold the
/// trimmed text.
fn input_content(content: Option<&Value>) -> Result<Vec<Value>, (StatusCode, Value)> {
    let fail = |m: &str, d: String| {
        (
            StatusCode::BAD_REQUEST,
            json!({ "message": m, "detail": d }),
        )
    };
    let parts = match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => {
            return Err((
                StatusCode::BAD_REQUEST,
                json!({ "message": "Request body must be valid JSON.",
                    "detail": "unmarshal request: content is not an array" }),
            ))
        }
    };
    if parts.is_empty() {
        return Err(fail(
            "Content is required.",
            "Content cannot be empty.".into(),
        ));
    }
    let mut out = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        let kind = part["type"].as_str().unwrap_or("");
        if !kind.trim().eq_ignore_ascii_case("text") {
            return Err(fail(
                "Invalid input part.",
                format!("content[{i}].type {kind:?} is not supported."),
            ));
        }
        let text = part["text"].as_str().unwrap_or("").trim();
        if text.is_empty() {
            return Err(fail(
                "Invalid input part.",
                format!("content[{i}].text cannot be empty."),
            ));
        }
        out.push(json!({ "type": "text", "text": text }));
    }
    Ok(out)
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

/// What runs before every chat route, in coderd's order: a restart under way (502, as a
/// proxy in front of a coderd that is down answers), the CSRF check of the root router
/// ([`site::check`]), then the API key.
async fn auth(State(coder): State<Arc<Coder>>, req: Request, next: Next) -> Response {
    let (want, down) = {
        let mut hub = coder.lock();
        if hub.down_until.is_some_and(|t| Instant::now() >= t) {
            hub.down_until = None;
        }
        (hub.token.clone(), hub.down_until.is_some())
    };
    if down {
        let mut res = (
            StatusCode::BAD_GATEWAY,
            "502 Bad Gateway: coderd is restarting\n",
        )
            .into_response();
        res.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        return res;
    }
    if let Some(res) = site::check(req.method(), req.headers(), req.uri().query()) {
        return res;
    }
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

// ---- REST handlers ------------------------------------------------------------------------------

/// Whether `s` decodes as a `uuid.UUID` (google/uuid's `Parse`: the 36-character form, also
/// in braces or after `urn:uuid:`, or 32 hex digits).
pub fn valid_uuid(s: &str) -> bool {
    let canonical = |b: &[u8]| {
        b.len() == 36
            && b.iter().enumerate().all(|(i, c)| match i {
                8 | 13 | 18 | 23 => *c == b'-',
                _ => c.is_ascii_hexdigit(),
            })
    };
    let b = s.as_bytes();
    match b.len() {
        36 => canonical(b),
        38 => b[0] == b'{' && b[37] == b'}' && canonical(&b[1..37]),
        45 => s[..9].eq_ignore_ascii_case("urn:uuid:") && canonical(&b[9..]),
        32 => b.iter().all(u8::is_ascii_hexdigit),
        _ => false,
    }
}

/// `POST /` (create): 201 `Chat`, status `running`; the first message goes to the worker.
async fn create_chat(State(coder): State<Arc<Coder>>, req: Request) -> Response {
    if let Some(res) = gateway_check(&coder) {
        return res;
    }
    let (body, _) = match read_capped(req).await {
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
    let content = match input_content(body.get("content")) {
        Ok(c) => c,
        Err((status, b)) => return json_response(status, b),
    };
    if let Err(res) = check_create_members(&body) {
        return res;
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
    let text = chat::first_text(Some(&Value::Array(content.clone())));
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
    let mut chat = Chat::new(id.clone(), &body, &text, names, setup);
    let message_id = hub.ids.message();
    chat.commit(message_id, "user", content);
    start_turn(&coder, &mut chat, false);
    let json = chat.to_json();
    hub.order.push(id.clone());
    hub.chats.insert(id, chat);
    json_response(StatusCode::CREATED, json)
}

/// The optional members of `CreateChatRequest` as Go's decoder reads them: `model_config_id`
/// and `workspace_id` UUIDs (or null), `mcp_server_ids` an array of UUIDs, `system_prompt`,
/// `reasoning_effort` and `plan_mode` strings, `labels` an object of strings; a wrong type is 400
/// "Request body must be valid JSON.". A `system_prompt` over 128 KiB is 400 (the mock's
/// wording).
#[allow(clippy::result_large_err)]
fn check_create_members(body: &Map<String, Value>) -> Result<(), Response> {
    let uuid_or_null = |k: &str| match body.get(k) {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => valid_uuid(s),
        _ => false,
    };
    for k in ["model_config_id", "workspace_id"] {
        if !uuid_or_null(k) {
            return Err(bad_json(format!("unmarshal request: {k} is not a UUID")));
        }
    }
    match body.get("mcp_server_ids") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) if a.iter().all(|v| v.as_str().is_some_and(valid_uuid)) => {}
        _ => {
            return Err(bad_json(
                "unmarshal request: mcp_server_ids is not an array of UUIDs",
            ))
        }
    }
    for k in ["system_prompt", "reasoning_effort", "plan_mode"] {
        if !matches!(
            body.get(k),
            None | Some(Value::Null) | Some(Value::String(_))
        ) {
            return Err(bad_json(format!("unmarshal request: {k} is not a string")));
        }
    }
    match body.get("labels") {
        None | Some(Value::Null) => {}
        Some(Value::Object(o)) if o.values().all(Value::is_string) => {}
        _ => {
            return Err(bad_json(
                "unmarshal request: labels is not an object of strings",
            ))
        }
    }
    if body
        .get("system_prompt")
        .and_then(Value::as_str)
        .is_some_and(|p| p.len() > MAX_SYSTEM_PROMPT)
    {
        return Err(sdk(
            StatusCode::BAD_REQUEST,
            "System prompt is too long.",
            Some(format!("Maximum {MAX_SYSTEM_PROMPT} bytes.")),
        ));
    }
    Ok(())
}

/// `POST /{chat}/reconcile-invalid`: a chat in an invalid state (`invalidState`) has its pending
/// calls closed ("Tool execution canceled due to invalid chat state") and goes to `waiting` →
/// 200 `Chat`; a chat that is not → 409 `Chat is not in an invalid state.` (the mock's wording).
async fn reconcile_invalid(State(coder): State<Arc<Coder>>, Path(id): Path<String>) -> Response {
    let mut hub = coder.lock();
    let Hub { chats, ids, .. } = &mut *hub;
    let Some(chat) = chats.get_mut(&id) else {
        return not_found();
    };
    if !chat.invalid {
        return sdk(
            StatusCode::CONFLICT,
            "Chat is not in an invalid state.",
            None,
        );
    }
    chat.invalid = false;
    chat.epoch += 1;
    let mut batch = close_pending(chat, ids, REASON_RECONCILE);
    batch.push(chat.set_status(Status::Waiting));
    chat.publish(batch);
    json_response(StatusCode::OK, chat.to_json())
}

fn invalid_state() -> (StatusCode, Value) {
    (
        StatusCode::CONFLICT,
        json!({ "message": "Chat is in an invalid state." }),
    )
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
    if let Some(res) = gateway_check(&coder) {
        return res;
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
    let content = match input_content(body.get("content")) {
        Ok(c) => c,
        Err((s, b)) => return (s, b, raw),
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
    if chat.invalid {
        let (s, b) = invalid_state();
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

/// `POST /{chat}/interrupt`: 200 `Chat`. Running: `interrupting`, then `waiting` with the
/// partial output committed. requires_action: synthetic "interrupted by user" results and the
/// turn goes on (`running`; the pending era: `waiting`). Idle: 409.
async fn interrupt(State(coder): State<Arc<Coder>>, Path(id): Path<String>) -> Response {
    let at = coder.at_ms();
    if hold_interrupt(&coder, &id, at) {
        // Held (`holdInterrupts`): as a held tool-results POST.
        let _held = Held {
            coder,
            id,
            at,
            interrupt: true,
        };
        return std::future::pending::<Response>().await;
    }
    let mut hub = coder.lock();
    let hub_gateway_off = hub.gateway_off;
    let Hub { chats, ids, .. } = &mut *hub;
    let Some(chat) = chats.get_mut(&id) else {
        return not_found();
    };
    if hub_gateway_off {
        return sdk(
            StatusCode::SERVICE_UNAVAILABLE,
            GATEWAY_OFF,
            Some(GATEWAY_OFF_DETAIL.into()),
        );
    }
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
    if hold_results(&coder, &id, &bytes, at) {
        // Held (`holdResults`): recorded, never applied, never answered; when the client gives
        // up on it (closes the connection, and the server drops this handler) the record says when.
        let _held = Held {
            coder,
            id,
            at,
            interrupt: false,
        };
        return std::future::pending::<Response>().await;
    }
    let mut hub = coder.lock();
    let gateway_off = hub.gateway_off;
    let Hub { chats, ids, .. } = &mut *hub;
    let Some(chat) = chats.get_mut(&id) else {
        return not_found();
    };
    if gateway_off {
        return sdk(
            StatusCode::SERVICE_UNAVAILABLE,
            GATEWAY_OFF,
            Some(GATEWAY_OFF_DETAIL.into()),
        );
    }
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

/// A held `POST /tool-results` (or `/interrupt`) being awaited: dropped when the client closes
/// the request (the server then drops its handler), which its record shows as `closedAtMs`.
struct Held {
    coder: Arc<Coder>,
    id: String,
    at: u64,
    interrupt: bool,
}

impl Drop for Held {
    fn drop(&mut self) {
        let closed = self.coder.at_ms();
        let mut hub = self.coder.lock();
        let Some(chat) = hub.chats.get_mut(&self.id) else {
            return;
        };
        let posts = if self.interrupt {
            &mut chat.record.interrupts
        } else {
            &mut chat.record.tool_result_posts
        };
        let held = posts.iter_mut().rev().find(|post| {
            post["held"] == json!(true)
                && post["atMs"] == json!(self.at)
                && post.get("closedAtMs").is_none()
        });
        if let Some(post) = held {
            post["closedAtMs"] = json!(closed);
        }
    }
}

/// Whether this `POST /tool-results` is one of those `holdResults` holds (then recorded with
/// `held: true` and `status: null`).
fn hold_results(coder: &Arc<Coder>, id: &str, bytes: &Result<Bytes, axum::Error>, at: u64) -> bool {
    let mut hub = coder.lock();
    let Some(chat) = hub.chats.get_mut(id) else {
        return false;
    };
    if chat.setup.hold_results == 0 {
        return false;
    }
    chat.setup.hold_results -= 1;
    let raw = match bytes {
        Ok(b) => serde_json::from_slice::<Value>(b).unwrap_or(Value::Null),
        Err(_) => Value::Null,
    };
    chat.record
        .tool_result_posts
        .push(json!({ "status": null, "held": true, "body": raw, "atMs": at }));
    true
}

/// Whether this `POST /interrupt` is one of those `holdInterrupts` holds (then recorded with
/// `held: true` and `status: null`).
fn hold_interrupt(coder: &Arc<Coder>, id: &str, at: u64) -> bool {
    let mut hub = coder.lock();
    let Some(chat) = hub.chats.get_mut(id) else {
        return false;
    };
    if chat.setup.hold_interrupts == 0 {
        return false;
    }
    chat.setup.hold_interrupts -= 1;
    let from = chat.status.as_str();
    chat.record
        .interrupts
        .push(json!({ "status": null, "held": true, "from": from, "atMs": at }));
    true
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
            StatusCode::PAYLOAD_TOO_LARGE,
            "Request body exceeds 256 KiB",
            Some(format!("The limit is {MAX_BODY} bytes.")),
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
    if chat.invalid {
        let (s, b) = invalid_state();
        return (s, Some(b));
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
