//! The app's options, read and checked here: the constructor's (`ChatRuntimeOptions`) and a run's
//! (`RunRequest`), as JSON through the same [`FromJson`] as the wire.
//!
//! The boundary hands over the members that are data as one JSON object (functions and host
//! objects, such as `fetch`, `storage` or a signal, stay there) and converts the error. Every
//! default and limit lives here, so a native test checks it.

use std::borrow::Cow;

pub mod error;

pub use error::OptionsError;

#[cfg(feature = "coder")]
use crate::coder::options::backend;
#[cfg(feature = "coder")]
use crate::coder::options::CoderAuth;
use crate::json::{quoted, Map, Value};
use crate::protocol::event::{Context, Message, ResumeEntry};
use crate::protocol::input::Omitted;
use crate::protocol::wire::{FieldError, FromJson};
use crate::session::{HistoryMode, Pending, RunRequest, SessionConfig};
use crate::tools::catalog::Catalog;

/// Where `tools.json` is fetched from when the app says nothing.
pub const DEFAULT_TOOLS_URL: &str = "/tools/tools.json";
/// The largest `maxToolResultBytes`: 256 MiB.
pub const MAX_TOOL_RESULT_BYTES: u32 = 1 << 28;
/// The largest `maxRounds`.
pub const MAX_ROUNDS: u32 = 1000;
/// The largest `toolTimeoutMs`: an hour.
pub const MAX_TOOL_TIMEOUT_MS: u32 = 3_600_000;

/// The constructor's options that are data. The members the boundary reads as JSON.
pub const RUNTIME_OPTION_KEYS: &[&str] = &[
    "backend",
    "runUrl",
    "toolsUrl",
    "history",
    "omitRequestFields",
    "headers",
    "maxToolResultBytes",
    "maxRounds",
    "toolTimeoutMs",
    "toolNamePrefix",
    "allowedImportOrigins",
];

/// What the constructor's data options make.
#[derive(Debug)]
pub struct RuntimeOptions {
    /// The loop's configuration.
    pub config: SessionConfig,
    /// The catalog, empty, with the `toolNamePrefix`.
    pub catalog: Catalog,
    /// `toolsUrl`: `None` when the app set `null` (no `tools.json`).
    pub tools_url: Option<String>,
    /// `allowedImportOrigins`.
    pub allowed_import_origins: Vec<String>,
    /// The coder backend's auth members (default with AG-UI).
    #[cfg(feature = "coder")]
    pub coder_auth: CoderAuth,
}

impl RuntimeOptions {
    /// Refuses a session token bound for another origin than the page's (`page_origin`, e.g.
    /// `"https://app.example"`; `None` when the host has none); see
    /// [`check_token_origin`](crate::coder::options::check_token_origin).
    #[cfg(feature = "coder")]
    pub fn check_token_origin(&self, page_origin: Option<&str>) -> Result<(), OptionsError> {
        let coder = self.config.coder.as_ref();
        crate::coder::options::check_token_origin(coder, &self.coder_auth, page_origin)
    }

    /// Reads the members of [`RUNTIME_OPTION_KEYS`] (an absent member is left out of `options`; a
    /// `null` one is `Value::Null`). The first bad member is the error, in the order of the keys.
    pub fn from_json(mut options: Map) -> Result<Self, OptionsError> {
        #[cfg(feature = "coder")]
        let (coder, coder_auth) = backend(take(&mut options, "backend"))?;
        #[cfg(not(feature = "coder"))]
        let coder = backend(take(&mut options, "backend"))?;
        if coder.is_some() {
            // What only shapes an AG-UI request would silently do nothing with a Coder chat.
            for key in AGUI_ONLY_OPTIONS {
                if options.get(key).is_some_and(|v| !v.is_null()) {
                    return Err(OptionsError::invalid(
                        key,
                        crate::lean::text::concat(&[
                            "`",
                            key,
                            "` is an AG-UI option: the coder backend does not use it",
                        ]),
                    ));
                }
            }
        }
        let run_url = match (
            string(take(&mut options, "runUrl"), "runUrl", "options/invalid")?,
            &coder,
        ) {
            (Some(url), _) => url,
            (None, Some(_)) => SessionConfig::default().run_url,
            (None, None) => return Err(OptionsError::invalid("runUrl", "`runUrl` is required")),
        };
        let tools_url = match options.remove("toolsUrl") {
            None => Some(DEFAULT_TOOLS_URL.to_owned()),
            Some(Value::Null) => None,
            Some(Value::String(url)) => Some(url),
            Some(_) => {
                return Err(OptionsError::invalid(
                    "toolsUrl",
                    "`toolsUrl` must be a string or null",
                ))
            }
        };
        let history =
            match string(take(&mut options, "history"), "history", "options/invalid")?.as_deref() {
                None | Some("full") => HistoryMode::Full,
                Some("new") => HistoryMode::New,
                Some(other) => {
                    return Err(OptionsError::invalid(
                        "history",
                        format!(
                            "`history` must be \"full\" or \"new\", not {}",
                            quoted(other)
                        ),
                    ))
                }
            };
        let omit = omitted(take(&mut options, "omitRequestFields"))?;
        let headers = headers(take(&mut options, "headers"))?;
        let max_tool_result_bytes = bounded(
            take(&mut options, "maxToolResultBytes"),
            "maxToolResultBytes",
            MAX_TOOL_RESULT_BYTES,
        )?;
        let max_rounds = bounded(take(&mut options, "maxRounds"), "maxRounds", MAX_ROUNDS)?;
        let tool_timeout_ms = bounded(
            take(&mut options, "toolTimeoutMs"),
            "toolTimeoutMs",
            MAX_TOOL_TIMEOUT_MS,
        )?;
        let catalog = match string(
            take(&mut options, "toolNamePrefix"),
            "toolNamePrefix",
            "options/invalid",
        )? {
            Some(prefix) => Catalog::with_prefix(&prefix).map_err(OptionsError::Prefix)?,
            None => Catalog::new(),
        };
        let allowed_import_origins = typed(
            take(&mut options, "allowedImportOrigins"),
            "allowedImportOrigins",
            "options/invalid",
        )?
        .unwrap_or_default();
        let defaults = SessionConfig::default();
        let config = SessionConfig {
            run_url,
            max_tool_result_bytes: max_tool_result_bytes
                .map_or(defaults.max_tool_result_bytes, |n| n as usize),
            history,
            omit,
            max_rounds: max_rounds.unwrap_or(defaults.max_rounds),
            tool_timeout_ms: tool_timeout_ms.unwrap_or(defaults.tool_timeout_ms),
            headers,
            #[cfg(feature = "coder")]
            coder,
            ..defaults
        };
        Ok(Self {
            config,
            catalog,
            tools_url,
            allowed_import_origins,
            #[cfg(feature = "coder")]
            coder_auth,
        })
    }
}

/// The constructor's options that only shape an AG-UI request (its URL, its body, its headers, the
/// restarts of a turn): refused with the coder backend, where a chat's server runs the loop and
/// the routes, bodies and headers are Coder's. (`prepareRequest`, a function, is refused at the
/// boundary for the same reason.)
pub const AGUI_ONLY_OPTIONS: &[&str] = &[
    "runUrl",
    "history",
    "omitRequestFields",
    "headers",
    "maxRounds",
];

/// `backend` in the AG-UI build: absent, `null` or `{type: "agui"}`. `{type: "coder"}` is refused,
/// naming the build that has it (`chat-runtime/coder`).
#[cfg(not(feature = "coder"))]
fn backend(value: Option<Value>) -> Result<Option<std::convert::Infallible>, OptionsError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let Value::Object(members) = value else {
        return Err(OptionsError::invalid(
            "backend",
            "`backend` must be {type: \"agui\"}",
        ));
    };
    match members.get("type").and_then(Value::as_str) {
        Some("agui") if members.len() == 1 => Ok(None),
        Some("coder") => Err(OptionsError::invalid(
            "backend.type",
            "this build has no Coder backend: import the runtime from `chat-runtime/coder`",
        )),
        Some("agui") => Err(OptionsError::invalid(
            "backend",
            "`backend` {type: \"agui\"} has no other member",
        )),
        _ => Err(OptionsError::invalid(
            "backend.type",
            "`backend` must be {type: \"agui\"}",
        )),
    }
}

/// The member `key` of the constructor's options, taken out; `null` reads as absent. (Out of
/// line: one copy for the nine members rather than one inlined per member.)
#[inline(never)]
fn take(options: &mut Map, key: &str) -> Option<Value> {
    options.remove(key).filter(|v| !v.is_null())
}

/// A run's members that are data (the thread id and the signal stay at the boundary).
#[cfg(not(feature = "coder"))]
pub const RUN_REQUEST_KEYS: &[&str] = &[
    "messages",
    "context",
    "resume",
    "state",
    "forwardedProps",
    "pending",
    "newChat",
];
/// A run's members that are data; the Coder build also reads `busyBehavior`.
#[cfg(feature = "coder")]
pub const RUN_REQUEST_KEYS: &[&str] = &[
    "messages",
    "context",
    "resume",
    "state",
    "forwardedProps",
    "pending",
    "newChat",
    "busyBehavior",
];

/// What a run's data members make.
#[derive(Debug, Default)]
pub struct RunInput {
    /// `messages` (absent or `null`: none).
    pub messages: Vec<Message>,
    /// `context`.
    pub context: Vec<Context>,
    /// `resume`.
    pub resume: Vec<ResumeEntry>,
    /// `state`: `None` when absent; `null` is kept (it replaces the state).
    pub state: Option<Value>,
    /// `forwardedProps`, as `state`.
    pub forwarded_props: Option<Value>,
    /// `pending` (default `"settle"`).
    pub pending: Pending,
    /// `newChat` (Coder: `threadId` names the chat to create until it has its id).
    pub new_chat: bool,
    /// `busyBehavior` (Coder: `"queue"` or `"interrupt"`).
    #[cfg(feature = "coder")]
    pub busy_behavior: Option<crate::coder::wire::BusyBehavior>,
}

impl RunInput {
    /// Reads the members of [`RUN_REQUEST_KEYS`]; a malformed one is `run/bad-request` naming it.
    pub fn from_json(mut request: Map) -> Result<Self, OptionsError> {
        let messages = list(request.remove("messages"), "messages")?;
        let context = list(request.remove("context"), "context")?;
        let resume = list(request.remove("resume"), "resume")?;
        let state = request.remove("state");
        let forwarded_props = request.remove("forwardedProps");
        let pending = match string(
            request.remove("pending").filter(|v| !v.is_null()),
            "pending",
            "run/bad-request",
        )?
        .as_deref()
        {
            None | Some("settle") => Pending::Settle,
            Some("run") => Pending::Run,
            Some(_) => {
                return Err(OptionsError::bad_request(
                    "pending",
                    "`pending` must be \"settle\" or \"run\"",
                ))
            }
        };
        let new_chat = typed::<bool>(
            request.remove("newChat").filter(|v| !v.is_null()),
            "newChat",
            "run/bad-request",
        )?
        .unwrap_or(false);
        // Read here, not by a function of the Coder room: one costs about 100 bytes gzip more.
        #[cfg(feature = "coder")]
        let busy_behavior = match string(
            request.remove("busyBehavior").filter(|v| !v.is_null()),
            "busyBehavior",
            "run/bad-request",
        )?
        .as_deref()
        {
            None => None,
            Some("queue") => Some(crate::coder::wire::BusyBehavior::Queue),
            Some("interrupt") => Some(crate::coder::wire::BusyBehavior::Interrupt),
            Some(_) => {
                return Err(OptionsError::bad_request(
                    "busyBehavior",
                    "`busyBehavior` must be \"queue\" or \"interrupt\"",
                ))
            }
        };
        Ok(Self {
            messages,
            context,
            resume,
            state,
            forwarded_props,
            pending,
            new_chat,
            #[cfg(feature = "coder")]
            busy_behavior,
        })
    }

    /// The session's request for `thread_id`, with the host's wall clock (for the open
    /// interrupts' `expiresAt`).
    pub fn into_request(self, thread_id: String, now_ms: Option<u64>) -> RunRequest {
        RunRequest {
            thread_id,
            messages: self.messages,
            context: self.context,
            state: self.state,
            forwarded_props: self.forwarded_props,
            resume: self.resume,
            now_ms,
            pending: self.pending,
            new_chat: self.new_chat,
            #[cfg(feature = "coder")]
            busy_behavior: self.busy_behavior,
        }
    }
}

/// A member as a `T` (`None` when absent); a wrong one is `code` with `` `key`: message ``.
fn typed<T: FromJson>(
    value: Option<Value>,
    key: &'static str,
    code: &'static str,
) -> Result<Option<T>, OptionsError> {
    value
        .map(T::from_json)
        .transpose()
        .map_err(|e| wrong_member(code, key, e))
}

/// [`typed`]'s error, out of line (one copy for every `T`).
#[inline(never)]
fn wrong_member(code: &'static str, key: &'static str, error: FieldError) -> OptionsError {
    OptionsError::Field {
        code,
        field: Cow::Borrowed(key),
        message: format!("`{key}`: {}", error.message).into(),
    }
}

/// A string member.
fn string(
    value: Option<Value>,
    key: &'static str,
    code: &'static str,
) -> Result<Option<String>, OptionsError> {
    typed(value, key, code)
}

/// `omitRequestFields`: an array of the `RunAgentInput` members a request leaves out (`null`:
/// none), read from the array itself (no `Vec<String>` made for it). One static message for
/// every refusal, naming what is allowed: a `format!` naming the bad item cost 130 bytes gzip.
#[inline(never)]
fn omitted(value: Option<Value>) -> Result<Omitted, OptionsError> {
    fn refused() -> OptionsError {
        OptionsError::invalid(
            "omitRequestFields",
            "`omitRequestFields` is an array of RunAgentInput members other than `messages` and \
             `resume`: threadId, runId, protocolVersion, parentRunId, state, tools, context, \
             forwardedProps",
        )
    }
    let mut omitted = Omitted::default();
    let items = match &value {
        None | Some(Value::Null) => return Ok(omitted),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(refused()),
    };
    for item in items {
        omitted = item
            .as_str()
            .and_then(|name| omitted.with(name))
            .ok_or_else(refused)?;
    }
    Ok(omitted)
}

/// A positive integer member up to `max`.
fn bounded(value: Option<Value>, key: &'static str, max: u32) -> Result<Option<u32>, OptionsError> {
    let out_of_range = || {
        OptionsError::invalid(
            key,
            format!("`{key}` must be a positive integer up to {max}"),
        )
    };
    match typed::<u64>(value, key, "options/invalid").map_err(|_| out_of_range())? {
        Some(n) if n == 0 || n > u64::from(max) => Err(out_of_range()),
        other => Ok(other.map(|n| n as u32)),
    }
}

/// `headers`: an object of strings. A lone surrogate is refused: no HTTP header can carry one.
fn headers(value: Option<Value>) -> Result<Vec<(String, String)>, OptionsError> {
    let refused = |message: String| OptionsError::invalid("headers", message);
    let mut headers = Vec::new();
    for (name, value) in typed::<Map>(value, "headers", "options/invalid")?.unwrap_or_default() {
        let Some(value) = value.as_str() else {
            return Err(refused(format!("header `{name}` must be a string")));
        };
        if crate::json::find_lone_surrogate(&name).is_some()
            || crate::json::find_lone_surrogate(value).is_some()
        {
            return Err(refused(format!(
                "header `{name}` holds a lone UTF-16 surrogate, which no HTTP header can carry"
            )));
        }
        headers.push((name, value.to_owned()));
    }
    Ok(headers)
}

/// A list member of a run (`null` or absent: empty); a malformed one names the field.
fn list<T: FromJson>(value: Option<Value>, field: &'static str) -> Result<Vec<T>, OptionsError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(value) => Vec::<T>::from_json(value).map_err(|e| malformed(field, e)),
    }
}

/// A malformed run member: `` `field` is malformed: [0].id: missing field ``.
#[inline(never)]
fn malformed(field: &'static str, e: FieldError) -> OptionsError {
    let inner = if e.path.is_empty() {
        e.message
    } else {
        format!("{}: {}", e.path, e.message)
    };
    OptionsError::bad_request(field, format!("`{field}` is malformed: {inner}"))
}
