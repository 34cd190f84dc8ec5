//! `chat-runtime-agent`: a small AG-UI server on 127.0.0.1 for chat-runtime's tests and demo.
//!
//! Two modes ([`Mode`]):
//! - *demo* (default): `POST /api/threads/{threadId}/runs` is answered by a deterministic
//!   rule-based planner ([`demo`]) or, with `--llm-url`, by an OpenAI-compatible model ([`llm`]);
//! - *script*: every run is answered with the next response a test queued for that thread.
//!
//! Both serve static files under URL prefixes (`--static /pkg=pkg`), `GET /api/agents`, the JSON
//! control API under `/test/`, CORS `*` on every route but the Coder mock's, and the mock of
//! Coder's chat API ([`coder`]) under `/api/v2/chats`.
//!
//! See `README.md` beside this crate for the API.

pub mod coder;
pub mod demo;
pub mod gateway;
pub mod llm;
pub mod resume;

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use crate::demo::Ids;
use crate::llm::{Emitter, LlmConfig, Threads};

/// Largest request body the server reads (runs and control calls alike).
const MAX_BODY: usize = 16 * 1024 * 1024;

/// How runs are answered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// The rule-based planner (or the model of `--llm-url`); scripted responses queued for a
    /// thread still come first.
    #[default]
    Demo,
    /// Only scripted responses (`POST /test/script`); nothing queued is a 500.
    Script,
    /// Streams like the Jaeger AI gateway of its RFC 0002 ([`gateway`]); scripted responses
    /// queued for a thread still come first.
    Gateway,
}

impl Mode {
    /// `demo` / `script`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "demo" => Ok(Mode::Demo),
            "script" => Ok(Mode::Script),
            "gateway" => Ok(Mode::Gateway),
            _ => Err(format!("--mode {s:?}: expected demo, script or gateway")),
        }
    }
}

/// What the server serves besides its API.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Static mounts: URL prefix (`/`, `/pkg`, ...) and the directory served under it.
    pub statics: Vec<StaticMount>,
    /// How runs are answered.
    pub mode: Mode,
    /// Demo mode: pause before each streamed token, in ms (the binary's default is 25).
    pub pace_ms: u64,
    /// Demo mode: answer with this model instead of the planner.
    pub llm: Option<LlmConfig>,
    /// The Coder chat API mock, served in both modes (`coder`).
    pub coder: coder::CoderConfig,
}

/// One `--static /prefix=DIR`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticMount {
    /// Normalized URL prefix: starts with `/`, no trailing `/` except for the root prefix `/`.
    pub prefix: String,
    /// Directory whose files are served under `prefix`.
    pub dir: PathBuf,
}

impl StaticMount {
    /// Parses `/prefix=DIR` or a bare `DIR` (mounted at `/`).
    pub fn parse(spec: &str) -> Result<Self, String> {
        let (prefix, dir) = match spec.split_once('=') {
            Some((p, d)) if p.starts_with('/') => (p, d),
            _ => ("/", spec),
        };
        if dir.is_empty() {
            return Err(format!("--static {spec}: empty directory"));
        }
        let trimmed = prefix.trim_end_matches('/');
        let prefix = if trimmed.is_empty() {
            "/".to_string()
        } else {
            trimmed.to_string()
        };
        Ok(StaticMount {
            prefix,
            dir: PathBuf::from(dir),
        })
    }
}

/// One scripted answer to a run (`POST /test/script` → `responses[i]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptedResponse {
    /// HTTP status (default 200).
    #[serde(default = "default_status")]
    pub status: u16,
    /// `Content-Type` (default `text/event-stream`).
    pub content_type: Option<String>,
    /// Extra response headers.
    #[serde(default)]
    pub headers: Map<String, Value>,
    /// Raw body, written as is (malformed streams, HTML pages, JSON errors).
    pub body: Option<String>,
    /// Events, each written as one SSE frame `data: <json>\n\n` (a JSON string is written verbatim
    /// after `data: `, for malformed frames).
    pub events: Option<Vec<Value>>,
    /// Pause before each event (or before each body chunk).
    #[serde(default)]
    pub delay_ms: u64,
    /// Split the bytes into writes of at most this size, each flushed on its own.
    pub chunk_bytes: Option<usize>,
    /// After the last byte, keep the connection open until the client goes away (or shutdown).
    #[serde(default)]
    pub hold: bool,
}

fn default_status() -> u16 {
    200
}

#[derive(Default)]
struct Inner {
    queues: HashMap<String, VecDeque<ScriptedResponse>>,
    requests: Vec<Value>,
    aborted: HashMap<String, u64>,
    backend_tools: Vec<Value>,
    /// Where the next planner responses of a thread stop (`POST /test/cut`).
    cuts: HashMap<String, VecDeque<resume::Cut>>,
    /// Where a thread's re-POSTs start (`POST /test/cut`'s `resume`; absent: after the id).
    resume_modes: HashMap<String, resume::ResumeMode>,
}

struct Shared {
    started: Instant,
    statics: Vec<StaticMount>,
    mode: Mode,
    pace: Duration,
    llm: Option<Arc<LlmConfig>>,
    threads: Arc<Threads>,
    ids: Arc<Ids>,
    /// The planner's recent runs, for `Last-Event-ID` resume.
    runs: resume::Runs,
    /// Counts `POST /test/break`: a cut waiting to break the connection does it then.
    breaks: watch::Sender<u64>,
    inner: Mutex<Inner>,
    shutdown: watch::Receiver<bool>,
    /// The Coder chat API mock (cleared by `POST /test/reset` too).
    coder: Arc<coder::Coder>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panicking handler must not wedge the whole test server.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

type AppState = Arc<Shared>;

/// Builds the router. `shutdown` turning `true` releases held streams.
pub fn app(config: Config, shutdown: watch::Receiver<bool>) -> Router {
    let mut statics = config.statics;
    // Longest prefix first, so `/pkg` wins over `/`.
    statics.sort_by_key(|m| std::cmp::Reverse(m.prefix.len()));
    let coder_prefix = config.coder.prefix.clone();
    let coder = coder::Coder::new(config.coder, config.pace_ms, shutdown.clone());
    let state = Arc::new(Shared {
        started: Instant::now(),
        statics,
        mode: config.mode,
        pace: Duration::from_millis(config.pace_ms),
        llm: config.llm.map(Arc::new),
        threads: Arc::default(),
        ids: Arc::default(),
        runs: resume::Runs::default(),
        breaks: watch::channel(0).0,
        inner: Mutex::new(Inner::default()),
        shutdown,
        coder: coder.clone(),
    });
    Router::new()
        .route("/api/threads/{thread_id}/runs", post(run))
        .route("/api/threads/{thread_id}/messages", get(thread_messages))
        .route("/api/agents", get(agents))
        .route("/test/script", post(script))
        .route("/test/requests", get(requests))
        .route("/test/reset", post(reset))
        .route("/test/aborted", get(aborted))
        .route("/test/redirect", get(redirect))
        .route("/test/backend-tools", post(set_backend_tools))
        .route("/test/cut", post(set_cuts))
        .route("/test/break", post(break_cut))
        .fallback(static_files)
        .with_state(state)
        .merge(coder::router(coder.clone()))
        .layer(middleware::from_fn_with_state(coder, coder::site::page))
        .layer(middleware::from_fn_with_state(Arc::new(coder_prefix), cors))
}

/// A running server (see [`spawn`]).
pub struct Server {
    /// The bound address (`127.0.0.1:PORT`).
    pub addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops the server: releases held streams, finishes open responses (at most 3 s), returns.
    pub async fn stop(self) -> std::io::Result<()> {
        let _ = self.shutdown.send(true);
        match self.task.await {
            Ok(r) => r,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

/// Binds `127.0.0.1:port` (0 = a free port) and serves in a background task.
pub async fn spawn(config: Config, port: u16) -> std::io::Result<Server> {
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    let (tx, rx) = watch::channel(false);
    let task = tokio::spawn(serve(listener, config, rx));
    Ok(Server {
        addr,
        shutdown: tx,
        task,
    })
}

/// Serves on `listener` until `shutdown` turns `true`; then waits at most 3 s for open responses.
pub async fn serve(
    listener: TcpListener,
    config: Config,
    shutdown: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let router = app(config, shutdown.clone());
    let mut on_signal = shutdown.clone();
    let mut on_deadline = shutdown;
    let server = axum::serve(listener, router).with_graceful_shutdown(async move {
        let _ = on_signal.wait_for(|stop| *stop).await;
    });
    tokio::select! {
        r = server => r,
        _ = async {
            let _ = on_deadline.wait_for(|stop| *stop).await;
            tokio::time::sleep(Duration::from_secs(3)).await;
        } => Ok(()),
    }
}

// ---- CORS --------------------------------------------------------------------------------------

/// CORS `*` on every route except the Coder mock's chat routes, which, like Coder's, send no
/// CORS headers (and answer no preflight).
async fn cors(State(coder_prefix): State<Arc<String>>, req: Request, next: Next) -> Response {
    if coder::is_chat_path(&coder_prefix, req.uri().path()) {
        return next.run(req).await;
    }
    let mut res = if req.method() == Method::OPTIONS {
        let mut res = StatusCode::NO_CONTENT.into_response();
        let h = res.headers_mut();
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("*"),
        );
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("*"),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
        h.insert(
            HeaderName::from_static("access-control-allow-private-network"),
            HeaderValue::from_static("true"),
        );
        res
    } else {
        next.run(req).await
    };
    let h = res.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    h.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("*"),
    );
    res
}

// ---- helpers -----------------------------------------------------------------------------------

fn json_response(status: StatusCode, value: Value) -> Response {
    let mut res = (status, Json(value)).into_response();
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// A `text/event-stream` answer, never cached, of `body`.
pub(crate) fn event_stream_response(body: Body) -> Response {
    let mut res = Response::new(body);
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

fn bad_request(message: impl Into<String>) -> Response {
    json_response(StatusCode::BAD_REQUEST, json!({ "error": message.into() }))
}

async fn read_json(req: Request) -> Result<Value, Response> {
    let bytes = axum::body::to_bytes(req.into_body(), MAX_BODY)
        .await
        .map_err(|e| bad_request(format!("cannot read body: {e}")))?;
    serde_json::from_slice(&bytes).map_err(|e| bad_request(format!("body is not JSON: {e}")))
}

#[derive(Deserialize)]
struct RedirectQuery {
    to: String,
}

/// `GET /test/redirect?to=/path`: a `302 Found` to a path of this server (a moved `tools.json`).
async fn redirect(Query(q): Query<RedirectQuery>) -> Response {
    if !q.to.starts_with('/') || q.to.starts_with("//") {
        return json_response(
            StatusCode::BAD_REQUEST,
            json!({ "error": "`to` must be a path of this server" }),
        );
    }
    match HeaderValue::from_str(&q.to) {
        Ok(location) => (StatusCode::FOUND, [(header::LOCATION, location)]).into_response(),
        Err(_) => json_response(StatusCode::BAD_REQUEST, json!({ "error": "bad `to`" })),
    }
}

#[derive(Deserialize)]
struct ThreadQuery {
    #[serde(rename = "threadId")]
    thread_id: Option<String>,
}

// ---- the scripted AG-UI endpoint ---------------------------------------------------------------

async fn run(
    State(state): State<AppState>,
    UrlPath(thread_id): UrlPath<String>,
    req: Request,
) -> Response {
    let received_at_ms = state.started.elapsed().as_millis() as u64;
    let method = req.method().to_string();
    let path = req.uri().path().to_string();
    let query = req.uri().query().map(str::to_string);
    let last_event_id = req
        .headers()
        .get("last-event-id")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let mut headers = Map::new();
    for (name, value) in req.headers() {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        match headers.get_mut(name.as_str()) {
            Some(Value::String(prev)) => {
                prev.push_str(", ");
                prev.push_str(&value);
            }
            _ => {
                headers.insert(name.as_str().to_string(), Value::String(value));
            }
        }
    }
    let bytes = match axum::body::to_bytes(req.into_body(), MAX_BODY).await {
        Ok(bytes) => bytes,
        Err(e) => return bad_request(format!("cannot read body: {e}")),
    };
    let body = serde_json::from_slice::<Value>(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    let mut record = json!({
        "threadId": thread_id,
        "method": method,
        "path": path,
        "headers": headers,
        "body": body,
        "receivedAtMs": received_at_ms,
    });
    if let Some(q) = query {
        record["query"] = Value::String(q);
    }
    let next = {
        let mut inner = state.lock();
        inner.requests.push(record);
        inner
            .queues
            .get_mut(&thread_id)
            .and_then(VecDeque::pop_front)
    };
    match next {
        Some(scripted) => scripted_response(&state, thread_id, scripted),
        None if state.mode == Mode::Demo => demo_run(&state, &bytes, last_event_id.as_deref()),
        None if state.mode == Mode::Gateway => {
            gateway_run(&state, &bytes, last_event_id.as_deref())
        }
        None => json_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({ "error": format!("no scripted response for thread {thread_id}") }),
        ),
    }
}

/// A run request's input: 422 on a bad RunAgentInput; a re-POST with `Last-Event-ID` is answered
/// by resuming that run (the `Err` response either way).
fn run_input(
    state: &AppState,
    bytes: &[u8],
    last_event_id: Option<&str>,
) -> Result<demo::RunInput, Box<Response>> {
    let input = demo::validate(bytes).map_err(|detail| {
        Box::new(json_response(
            StatusCode::UNPROCESSABLE_ENTITY,
            json!({ "detail": detail }),
        ))
    })?;
    match last_event_id {
        Some(id) => Err(Box::new(resumed_run(
            state,
            &input.thread_id,
            &input.run_id,
            id,
        ))),
        None => Ok(input),
    }
}

/// Demo mode: 422 on a bad RunAgentInput, else the planner's (or the model's) SSE stream. A
/// re-POST with `Last-Event-ID` resumes a planner run ([`resume`]).
fn demo_run(state: &AppState, bytes: &[u8], last_event_id: Option<&str>) -> Response {
    let mut input = match run_input(state, bytes, last_event_id) {
        Ok(input) => input,
        Err(response) => return *response,
    };
    if input.run_id.is_empty() {
        // A client that leaves naming the run to the server (no `runId`): the agent names it.
        input.run_id = state.ids.run();
    }
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    let em = Emitter(tx);
    let mut threads = state.threads.lock().unwrap_or_else(|e| e.into_inner());
    let thread = threads.entry(input.thread_id.clone()).or_default();
    demo::merge(thread, &input.messages);
    if let Some(cfg) = &state.llm {
        drop(threads);
        tokio::spawn(llm::run(
            cfg.clone(),
            state.threads.clone(),
            state.ids.clone(),
            input,
            em,
        ));
    } else {
        let steps = demo::plan(thread, &input, &state.ids);
        drop(threads);
        return planner_run(state, &input.thread_id, &input.run_id, steps, || {});
    }
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<Bytes, Infallible>(b), rx))
    });
    event_stream_response(Body::from_stream(stream))
}

/// Gateway mode: 422 on a bad RunAgentInput, else the gateway-shaped stream ([`gateway`]); a
/// re-POST with `Last-Event-ID` resumes it like a planner run.
fn gateway_run(state: &AppState, bytes: &[u8], last_event_id: Option<&str>) -> Response {
    let mut input = match run_input(state, bytes, last_event_id) {
        Ok(input) => input,
        Err(response) => return *response,
    };
    if input.run_id.is_empty() {
        input.run_id = state.ids.run();
    }
    // The thread is kept: the request's messages now, what the turn says once it has ended
    // (`GET /api/threads/{threadId}/messages`, the history a reloaded page asks for).
    {
        let mut threads = state.threads.lock().unwrap_or_else(|e| e.into_inner());
        demo::merge(
            threads.entry(input.thread_id.clone()).or_default(),
            &input.messages,
        );
    }
    let steps = gateway::plan(&input, &state.ids);
    let said = gateway::messages_of(&steps);
    let (threads, thread_id) = (state.threads.clone(), input.thread_id.clone());
    let keep = move || {
        let mut threads = threads.lock().unwrap_or_else(|e| e.into_inner());
        demo::merge(threads.entry(thread_id).or_default(), &said);
    };
    planner_run(state, &input.thread_id, &input.run_id, steps, keep)
}

#[derive(Deserialize)]
struct MessagesQuery {
    wait: Option<String>,
}

/// How long `GET /api/threads/{threadId}/messages?wait` waits for the thread's runs at most.
const HISTORY_WAIT: Duration = Duration::from_secs(30);

/// `GET /api/threads/{threadId}/messages`: `{"messages": [...]}`, the thread as the agent keeps it
/// (gateway and demo modes; `[]` for a thread it does not know). With `?wait`, once the thread's
/// runs that are still going on have ended (at most 30 s): a page reloaded mid-run gets the
/// run's answer.
async fn thread_messages(
    State(state): State<AppState>,
    UrlPath(thread_id): UrlPath<String>,
    Query(q): Query<MessagesQuery>,
) -> Response {
    if q.wait.is_some() {
        let open = state.runs.open(&thread_id);
        let all = futures_util::future::join_all(open.iter().map(|log| log.finished()));
        let _ = tokio::time::timeout(HISTORY_WAIT, all).await;
    }
    let messages = state
        .threads
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&thread_id)
        .cloned()
        .unwrap_or_default();
    json_response(StatusCode::OK, json!({ "messages": messages }))
}

/// The planner's run: its events go into the run's log (with SSE ids) at the pace, whether or
/// not the client stays, and the response streams the log. `keep` runs after the last event,
/// before the log says the run is over.
fn planner_run(
    state: &AppState,
    thread_id: &str,
    run_id: &str,
    steps: Vec<demo::Step>,
    keep: impl FnOnce() + Send + 'static,
) -> Response {
    let log = state.runs.start(thread_id, run_id);
    let producer = log.clone();
    let pace = state.pace;
    tokio::spawn(async move {
        for step in steps {
            if step.paced && !pace.is_zero() {
                tokio::time::sleep(pace).await;
            }
            producer.push(&step.event);
        }
        keep();
        producer.close();
    });
    resume::response(log, 0, next_cut(state, thread_id), state.breaks.subscribe())
}

/// A re-POST with `Last-Event-ID`: the run's events after that id, or 404 when the run is not
/// kept (or 400 for an id this agent never sent).
fn resumed_run(state: &AppState, thread_id: &str, run_id: &str, last_event_id: &str) -> Response {
    let mode = state
        .lock()
        .resume_modes
        .get(thread_id)
        .copied()
        .unwrap_or_default();
    let Some(from) = resume::resume_from(last_event_id, mode) else {
        return bad_request(format!(
            "Last-Event-ID {last_event_id:?} is no event id of this agent"
        ));
    };
    match state.runs.find(thread_id, run_id) {
        Some(log) => resume::response(
            log,
            from,
            next_cut(state, thread_id),
            state.breaks.subscribe(),
        ),
        None => json_response(
            StatusCode::NOT_FOUND,
            json!({ "error": format!("run {run_id} of thread {thread_id} is not kept; start a new run") }),
        ),
    }
}

/// `POST /test/break`: the responses stopped at a breaking cut drop their connection now.
async fn break_cut(State(state): State<AppState>) -> Response {
    state.breaks.send_modify(|n| *n += 1);
    json_response(StatusCode::OK, json!({ "ok": true }))
}

/// The cut queued for the thread's next planner response, if any.
fn next_cut(state: &AppState, thread_id: &str) -> Option<resume::Cut> {
    state
        .lock()
        .cuts
        .get_mut(thread_id)
        .and_then(VecDeque::pop_front)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CutsRequest {
    thread_id: String,
    cuts: Vec<resume::Cut>,
    #[serde(default)]
    resume: Option<resume::ResumeMode>,
}

/// `POST /test/cut {threadId, cuts: [{frame, byte, clean?}], resume?}`: the thread's next planner
/// responses stop part-way, one cut per response, in order; `resume` (`"after"`, `"at"`,
/// `"start"`) says where its re-POSTs start from then on.
async fn set_cuts(State(state): State<AppState>, req: Request) -> Response {
    let value = match read_json(req).await {
        Ok(v) => v,
        Err(res) => return res,
    };
    let request: CutsRequest = match serde_json::from_value(value) {
        Ok(r) => r,
        Err(e) => return bad_request(format!("bad cut request: {e}")),
    };
    let mut inner = state.lock();
    if let Some(mode) = request.resume {
        inner.resume_modes.insert(request.thread_id.clone(), mode);
    }
    let queue = inner.cuts.entry(request.thread_id).or_default();
    queue.extend(request.cuts);
    json_response(StatusCode::OK, json!({ "queued": queue.len() }))
}

/// The writes of a scripted response: (pause before, bytes).
fn pieces(s: &ScriptedResponse) -> Vec<(Duration, Bytes)> {
    let delay = Duration::from_millis(s.delay_ms);
    let chunk = s.chunk_bytes.filter(|&n| n > 0);
    let split = |bytes: Vec<u8>| -> Vec<Bytes> {
        match chunk {
            Some(n) => bytes.chunks(n).map(Bytes::copy_from_slice).collect(),
            None => vec![Bytes::from(bytes)],
        }
    };
    let mut out = Vec::new();
    if let Some(events) = &s.events {
        let frames: Vec<Vec<u8>> = events
            .iter()
            .map(|event| {
                let data = match event {
                    Value::String(raw) => raw.clone(),
                    other => other.to_string(),
                };
                format!("data: {data}\n\n").into_bytes()
            })
            .collect();
        if delay.is_zero() {
            // No pauses: one byte stream, cut into `chunkBytes` pieces that straddle frame boundaries.
            for piece in split(frames.concat()) {
                out.push((Duration::ZERO, piece));
            }
        } else {
            for frame in frames {
                for (i, piece) in split(frame).into_iter().enumerate() {
                    out.push((if i == 0 { delay } else { Duration::ZERO }, piece));
                }
            }
        }
    } else if let Some(body) = &s.body {
        for piece in split(body.clone().into_bytes()) {
            out.push((delay, piece));
        }
    }
    out
}

/// Counts the response as aborted when dropped before its end (the client went away).
struct AbortGuard {
    state: AppState,
    thread_id: String,
    finished: bool,
}

impl AbortGuard {
    fn finish(&mut self) {
        self.finished = true;
    }
}

impl Drop for AbortGuard {
    fn drop(&mut self) {
        if !self.finished {
            *self
                .state
                .lock()
                .aborted
                .entry(self.thread_id.clone())
                .or_insert(0) += 1;
        }
    }
}

struct StreamState {
    pieces: VecDeque<(Duration, Bytes)>,
    hold: bool,
    first: bool,
    guard: AbortGuard,
    shutdown: watch::Receiver<bool>,
}

fn scripted_response(state: &AppState, thread_id: String, s: ScriptedResponse) -> Response {
    let status = StatusCode::from_u16(s.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let content_type = s
        .content_type
        .clone()
        .unwrap_or_else(|| "text/event-stream".to_string());
    let mut headers = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(&content_type) {
        headers.insert(header::CONTENT_TYPE, v);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    for (name, value) in &s.headers {
        let value = match value {
            Value::String(v) => v.clone(),
            other => other.to_string(),
        };
        if let (Ok(n), Ok(v)) = (
            HeaderName::try_from(name.as_str()),
            HeaderValue::from_str(&value),
        ) {
            headers.insert(n, v);
        }
    }
    let init = StreamState {
        pieces: pieces(&s).into(),
        hold: s.hold,
        first: true,
        guard: AbortGuard {
            state: state.clone(),
            thread_id,
            finished: false,
        },
        shutdown: state.shutdown.clone(),
    };
    let stream = futures_util::stream::unfold(init, |mut st| async move {
        if let Some((delay, bytes)) = st.pieces.pop_front() {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            } else if !st.first {
                // Return Pending once so hyper flushes the previous piece as its own write.
                tokio::task::yield_now().await;
            }
            st.first = false;
            return Some((Ok::<Bytes, Infallible>(bytes), st));
        }
        if st.hold {
            // Until the client goes away (hyper drops this stream: counted by the guard) or shutdown.
            let _ = st.shutdown.wait_for(|stop| *stop).await;
        }
        st.guard.finish();
        None
    });
    let mut res = Response::new(Body::from_stream(stream));
    *res.status_mut() = status;
    *res.headers_mut() = headers;
    res
}

// ---- control API -------------------------------------------------------------------------------

async fn script(State(state): State<AppState>, req: Request) -> Response {
    let value = match read_json(req).await {
        Ok(v) => v,
        Err(res) => return res,
    };
    let Some(thread_id) = value
        .get("threadId")
        .and_then(Value::as_str)
        .map(str::to_string)
    else {
        return bad_request("threadId (string) is required");
    };
    let Some(list) = value.get("responses").and_then(Value::as_array) else {
        return bad_request("responses (array) is required");
    };
    let mut parsed = Vec::with_capacity(list.len());
    for (i, r) in list.iter().enumerate() {
        match ScriptedResponse::deserialize(r) {
            Ok(s) if s.body.is_some() && s.events.is_some() => {
                return bad_request(format!("responses[{i}]: give body or events, not both"));
            }
            Ok(s) => parsed.push(s),
            Err(e) => return bad_request(format!("responses[{i}]: {e}")),
        }
    }
    let queued = {
        let mut inner = state.lock();
        let queue = inner.queues.entry(thread_id.clone()).or_default();
        queue.extend(parsed);
        queue.len()
    };
    json_response(
        StatusCode::OK,
        json!({ "ok": true, "threadId": thread_id, "queued": queued }),
    )
}

async fn requests(State(state): State<AppState>, Query(q): Query<ThreadQuery>) -> Response {
    let inner = state.lock();
    let list: Vec<Value> = inner
        .requests
        .iter()
        .filter(|r| q.thread_id.as_deref().is_none_or(|t| r["threadId"] == t))
        .cloned()
        .collect();
    json_response(StatusCode::OK, Value::Array(list))
}

async fn reset(State(state): State<AppState>) -> Response {
    *state.lock() = Inner::default();
    state.coder.reset();
    state.runs.clear();
    state
        .threads
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
    json_response(StatusCode::OK, json!({ "ok": true }))
}

async fn aborted(State(state): State<AppState>, Query(q): Query<ThreadQuery>) -> Response {
    let inner = state.lock();
    match q.thread_id {
        Some(t) => {
            let n = inner.aborted.get(&t).copied().unwrap_or(0);
            json_response(StatusCode::OK, json!({ "threadId": t, "aborted": n }))
        }
        None => {
            let total: u64 = inner.aborted.values().sum();
            json_response(
                StatusCode::OK,
                json!({ "aborted": total, "byThread": inner.aborted }),
            )
        }
    }
}

async fn set_backend_tools(State(state): State<AppState>, req: Request) -> Response {
    let value = match read_json(req).await {
        Ok(v) => v,
        Err(res) => return res,
    };
    let Value::Array(items) = value else {
        return bad_request("body must be a JSON array of {name, description, parameters?}");
    };
    if let Some(i) = items
        .iter()
        .position(|t| !t.get("name").is_some_and(Value::is_string))
    {
        return bad_request(format!("[{i}]: name (string) is required"));
    }
    let n = items.len();
    state.lock().backend_tools = items;
    json_response(StatusCode::OK, json!({ "ok": true, "count": n }))
}

async fn agents(State(state): State<AppState>) -> Response {
    let mut items = state.lock().backend_tools.clone();
    let name = match state.mode {
        Mode::Script => "scripted",
        Mode::Gateway => {
            items.insert(
                0,
                json!({ "name": gateway::BACKEND_TOOL, "description": "Search the traces of a time window",
                        "parameters": { "type": "object", "properties": { "lookback": { "type": "string" } } } }),
            );
            "gateway"
        }
        Mode::Demo => {
            items.insert(0, demo::search_docs_tool());
            "demo"
        }
    };
    json_response(
        StatusCode::OK,
        json!({ "agents": [ { "name": name, "capabilities": { "tools": { "items": items } } } ] }),
    )
}

// ---- static files ------------------------------------------------------------------------------

/// Content type by extension (`None`: unknown, served as `application/octet-stream`).
pub fn content_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "wasm" => "application/wasm",
        "json" | "map" => "application/json",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "txt" | "ts" | "md" => "text/plain; charset=utf-8",
        "sse" => "text/event-stream",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

enum Resolved {
    File(PathBuf),
    /// A directory asked for without its trailing slash: redirect so relative URLs work.
    AddSlash,
    Forbidden,
    NotFound,
}

/// Maps a URL path to a file under the mounts, refusing anything that could escape a mount.
fn resolve(statics: &[StaticMount], url_path: &str) -> Resolved {
    let Some(decoded) = percent_decode(url_path).and_then(|b| String::from_utf8(b).ok()) else {
        return Resolved::Forbidden;
    };
    if decoded.contains('\0') || decoded.contains('\\') {
        return Resolved::Forbidden;
    }
    let segments: Vec<&str> = decoded.split('/').collect();
    if segments
        .iter()
        .any(|s| *s == ".." || (s.len() >= 2 && s.as_bytes()[1] == b':'))
    {
        return Resolved::Forbidden;
    }
    for mount in statics {
        let rest = if mount.prefix == "/" {
            Some(decoded.as_str())
        } else {
            decoded
                .strip_prefix(mount.prefix.as_str())
                .filter(|r| r.is_empty() || r.starts_with('/'))
        };
        let Some(rest) = rest else { continue };
        let mut path = mount.dir.clone();
        for seg in rest.split('/').filter(|s| !s.is_empty() && *s != ".") {
            path.push(seg);
        }
        if path.is_dir() {
            if !decoded.ends_with('/') {
                return Resolved::AddSlash;
            }
            path.push("index.html");
        }
        return if path.is_file() {
            Resolved::File(path)
        } else {
            Resolved::NotFound
        };
    }
    Resolved::NotFound
}

async fn static_files(State(state): State<AppState>, req: Request) -> Response {
    let method = req.method().clone();
    if method != Method::GET && method != Method::HEAD {
        return json_response(StatusCode::NOT_FOUND, json!({ "error": "not found" }));
    }
    let not_found = || {
        let mut res = (StatusCode::NOT_FOUND, "404 not found\n").into_response();
        res.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        res
    };
    match resolve(&state.statics, req.uri().path()) {
        Resolved::Forbidden => {
            let mut res = (StatusCode::FORBIDDEN, "403 forbidden\n").into_response();
            res.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            res
        }
        Resolved::NotFound => not_found(),
        Resolved::AddSlash => {
            let mut location = format!("{}/", req.uri().path());
            if let Some(q) = req.uri().query() {
                location.push('?');
                location.push_str(q);
            }
            let mut res = StatusCode::MOVED_PERMANENTLY.into_response();
            if let Ok(v) = HeaderValue::from_str(&location) {
                res.headers_mut().insert(header::LOCATION, v);
            }
            res.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            res
        }
        Resolved::File(path) => match tokio::fs::read(&path).await {
            Ok(bytes) => {
                let len = bytes.len();
                let body = if method == Method::HEAD {
                    Body::empty()
                } else {
                    Body::from(bytes)
                };
                let mut res = Response::new(body);
                let h = res.headers_mut();
                h.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static(content_type(&path)),
                );
                h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
                res
            }
            Err(_) => not_found(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_static_specs() {
        assert_eq!(
            StaticMount::parse("/pkg/=pkg").unwrap(),
            StaticMount {
                prefix: "/pkg".into(),
                dir: "pkg".into()
            }
        );
        assert_eq!(
            StaticMount::parse("/=tests/e2e/pages").unwrap(),
            StaticMount {
                prefix: "/".into(),
                dir: "tests/e2e/pages".into()
            }
        );
        assert_eq!(
            StaticMount::parse("demo").unwrap(),
            StaticMount {
                prefix: "/".into(),
                dir: "demo".into()
            }
        );
        assert!(StaticMount::parse("/x=").is_err());
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type(Path::new("a/b.js")), "text/javascript");
        assert_eq!(content_type(Path::new("x.wasm")), "application/wasm");
        assert_eq!(content_type(Path::new("x.json")), "application/json");
        assert_eq!(content_type(Path::new("x.js.map")), "application/json");
        assert_eq!(content_type(Path::new("x.svg")), "image/svg+xml");
    }

    #[test]
    fn pieces_straddle_frames_without_delay_and_split_per_event_with_delay() {
        let mut s: ScriptedResponse = serde_json::from_value(
            json!({ "events": [{"type":"A"}, {"type":"B"}], "chunkBytes": 5 }),
        )
        .unwrap();
        let all: Vec<u8> = pieces(&s).iter().flat_map(|(_, b)| b.to_vec()).collect();
        assert_eq!(all, b"data: {\"type\":\"A\"}\n\ndata: {\"type\":\"B\"}\n\n");
        assert!(pieces(&s).iter().all(|(d, b)| d.is_zero() && b.len() <= 5));
        s.delay_ms = 10;
        let p = pieces(&s);
        assert_eq!(p.iter().filter(|(d, _)| !d.is_zero()).count(), 2);
        s.events = Some(vec![json!("not json")]);
        s.chunk_bytes = None;
        assert_eq!(&pieces(&s)[0].1[..], b"data: not json\n\n");
    }

    #[test]
    fn resolve_refuses_traversal() {
        let mounts = vec![StaticMount {
            prefix: "/".into(),
            dir: ".".into(),
        }];
        for p in [
            "/../etc/passwd",
            "/a/%2e%2e/b",
            "/%2E%2E/x",
            "/a\\..\\b",
            "/%00",
            "/%zz",
        ] {
            assert!(matches!(resolve(&mounts, p), Resolved::Forbidden), "{p}");
        }
    }
}
