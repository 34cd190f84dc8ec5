//! The app's options, read and checked here: the constructor's (`ChatRuntimeOptions`) and a run's
//! (`RunRequest`), as JSON through the same [`FromJson`] as the wire.
//!
//! The boundary hands over the members that are data as one JSON object (functions and host
//! objects, such as `fetch`, `storage` or a signal, stay there) and converts the error. Every
//! default and limit lives here, so a native test checks it.

use std::borrow::Cow;

use crate::json::{quoted, Map, Value};
use crate::protocol::event::{Context, Message, ResumeEntry};
use crate::protocol::wire::{FieldError, FromJson};
#[cfg(feature = "coder")]
use crate::session::CoderConfig;
use crate::session::{HistoryMode, Pending, RunRequest, SessionConfig};
use crate::tools::catalog::{Catalog, CatalogError};

/// Where `tools.json` is fetched from when the app says nothing.
pub const DEFAULT_TOOLS_URL: &str = "/tools/tools.json";
/// The largest `maxToolResultBytes`: 256 MiB.
pub const MAX_TOOL_RESULT_BYTES: u32 = 1 << 28;
/// The largest `maxRounds`.
pub const MAX_ROUNDS: u32 = 1000;
/// The largest `toolTimeoutMs`: an hour.
pub const MAX_TOOL_TIMEOUT_MS: u32 = 3_600_000;

/// An option the runtime refuses: `options/invalid` (constructor) or `run/bad-request` (a run),
/// naming the field; or a bad `toolNamePrefix`, as the catalog says.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionsError {
    /// A field of the wrong shape or out of range.
    Field {
        /// `options/invalid` or `run/bad-request`.
        code: &'static str,
        /// The option's name, as the app wrote it.
        field: Cow<'static, str>,
        /// What is wrong, for a person.
        message: Cow<'static, str>,
    },
    /// `toolNamePrefix` is not a valid prefix.
    Prefix(CatalogError),
}

impl OptionsError {
    /// `options/invalid` about `field`. Out of line: one copy for every field.
    #[inline(never)]
    fn invalid(field: &'static str, message: impl Into<Cow<'static, str>>) -> Self {
        OptionsError::Field {
            code: "options/invalid",
            field: Cow::Borrowed(field),
            message: message.into(),
        }
    }

    /// `run/bad-request` about `field`.
    #[inline(never)]
    fn bad_request(field: &'static str, message: impl Into<Cow<'static, str>>) -> Self {
        OptionsError::Field {
            code: "run/bad-request",
            field: Cow::Borrowed(field),
            message: message.into(),
        }
    }
}

/// The constructor's options that are data. The members the boundary reads as JSON.
pub const RUNTIME_OPTION_KEYS: &[&str] = &[
    "backend",
    "runUrl",
    "toolsUrl",
    "history",
    "headers",
    "maxToolResultBytes",
    "maxRounds",
    "toolTimeoutMs",
    "toolNamePrefix",
    "allowedImportOrigins",
];

/// How the coder backend authenticates beyond the session's [`CoderConfig`]: what only the
/// boundary's I/O uses (the CSRF header of cookie mode, the cross-origin opt-in).
#[cfg(feature = "coder")]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CoderAuth {
    /// `backend.csrfToken` as a string (the boundary takes a function form itself): sent as
    /// `X-CSRF-TOKEN` on every POST in cookie mode. `None`: the page's
    /// `<meta property="csrf-token">`.
    pub csrf_token: Option<String>,
    /// `backend.allowCrossOriginToken`: a session token may go to a `baseUrl` of another origin.
    pub allow_cross_origin_token: bool,
}

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

    /// Refuses a session token bound for another origin than the page's (`page_origin`, e.g.
    /// `"https://app.example"`; `None` when the host has none): the token would travel in the
    /// stream's URL (`?coder_session_token=`) to that origin, where proxies and logs keep URLs.
    /// `backend.allowCrossOriginToken: true` lets it go. A relative `baseUrl` is same-origin.
    #[cfg(feature = "coder")]
    pub fn check_token_origin(&self, page_origin: Option<&str>) -> Result<(), OptionsError> {
        let Some(coder) = &self.config.coder else {
            return Ok(());
        };
        if coder.session_token.is_none() || self.coder_auth.allow_cross_origin_token {
            return Ok(());
        }
        let Some(target) = url_origin(&coder.base_url, page_origin) else {
            return Ok(());
        };
        if page_origin.and_then(|p| url_origin(p, None)).as_deref() == Some(target.as_str()) {
            return Ok(());
        }
        Err(OptionsError::invalid(
            "backend.baseUrl",
            format!(
                "`backend.baseUrl` is on another origin ({target}) than the page: a `sessionToken` \
                 would go there in the stream's URL; serve the page from the Coder origin (or a \
                 same-origin proxy), or set `backend.allowCrossOriginToken: true`"
            ),
        ))
    }
}

/// The origin (`scheme://host[:port]`, lower-cased, without a default port) of an absolute or
/// scheme-relative URL (`//host/...`, completed with `page_origin`'s scheme); `None` for a
/// relative URL (same-origin) or one without a host. Byte loops and the crate's `split_once`:
/// core's string searchers would cost kilobytes of wasm.
#[cfg(feature = "coder")]
pub fn url_origin(url: &str, page_origin: Option<&str>) -> Option<String> {
    use crate::lean::text::{split_once, sub};
    let (scheme, rest) = if url.starts_with("//") {
        (split_once(page_origin?, "://")?.0, sub(url, 2..))
    } else {
        split_once(url, "://")?
    };
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.');
    if scheme.is_empty() || !scheme.bytes().all(plain) {
        return None;
    }
    let bytes = rest.as_bytes();
    let end = bytes
        .iter()
        .position(|b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(bytes.len());
    let start = bytes[..end]
        .iter()
        .rposition(|b| *b == b'@')
        .map_or(0, |at| at + 1);
    if start >= end {
        return None;
    }
    let mut origin = String::with_capacity(scheme.len() + 3 + end - start);
    origin.push_str(scheme);
    origin.push_str("://");
    origin.push_str(sub(rest, start..end));
    origin.make_ascii_lowercase();
    let default_port = match scheme.len() {
        4 | 2 => ":80",
        _ => ":443",
    };
    let http = matches!(
        origin.as_bytes()[..scheme.len()],
        [b'h', b't', b't', b'p'] | [b'w', b's']
    );
    let https = matches!(
        origin.as_bytes()[..scheme.len()],
        [b'h', b't', b't', b'p', b's'] | [b'w', b's', b's']
    );
    if (http || https) && origin.ends_with(default_port) {
        origin.truncate(origin.len() - default_port.len());
    }
    Some(origin)
}

/// Whether `s` is a UUID in a form coderd's decoder (google/uuid's `Parse`) accepts: the
/// 36-character form (any case), in braces, after `urn:uuid:`, or as 32 hex digits.
#[cfg(feature = "coder")]
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    // One loop for the four forms: the braces or the `urn:uuid:` prefix come off first.
    let b = match b.len() {
        38 if b[0] == b'{' && b[37] == b'}' => &b[1..37],
        45 if b[..9].eq_ignore_ascii_case(b"urn:uuid:") => &b[9..],
        _ => b,
    };
    let dashed = b.len() == 36;
    (dashed || b.len() == 32)
        && b.iter().enumerate().all(|(i, c)| {
            if dashed && matches!(i, 8 | 13 | 18 | 23) {
                *c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

/// What a Coder chat's run may post, checked before anything is sent (coderd refuses the rest
/// with 400 "Content is required." or "Invalid input part."): `new_texts` are the text parts of
/// the run's user messages the thread does not hold yet, with the index of their message. One
/// that is empty or only whitespace is `run/bad-request` naming `messages[i]`; so is a run with
/// no text at all.
#[cfg(feature = "coder")]
pub fn check_chat_texts(new_texts: &[(usize, &str)]) -> Result<(), OptionsError> {
    let mut any = false;
    for &(index, text) in new_texts {
        if text.chars().all(char::is_whitespace) {
            let field = format!("messages[{index}].content");
            let message = crate::lean::text::concat(&[
                "`",
                &field,
                "`: a Coder chat's message text must not be empty or only whitespace",
            ]);
            return Err(OptionsError::Field {
                code: "run/bad-request",
                field: Cow::Owned(field),
                message: Cow::Owned(message),
            });
        }
        any = true;
    }
    if !any {
        return Err(OptionsError::bad_request(
            "messages",
            "`messages`: a Coder chat's run needs a new user message with text",
        ));
    }
    Ok(())
}

/// The constructor's options that only shape an AG-UI request (its URL, its body, its headers, the
/// restarts of a turn): refused with the coder backend, where a chat's server runs the loop and
/// the routes, bodies and headers are Coder's. (`prepareRequest`, a function, is refused at the
/// boundary for the same reason.)
pub const AGUI_ONLY_OPTIONS: &[&str] = &["runUrl", "history", "headers", "maxRounds"];

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

/// `backend`: absent, `null` or `{type: "agui"}` is AG-UI (`None`); `{type: "coder", baseUrl,
/// organizationId, sessionToken?, csrfToken?, allowCrossOriginToken?}` is a Coder deployment.
/// An unknown member, a member of the wrong type or an empty string is refused, naming the
/// member (`backend.baseUrl`), and so is an `organizationId` that is not a UUID; a message
/// never quotes the session token or the CSRF token.
#[cfg(feature = "coder")]
fn backend(value: Option<Value>) -> Result<(Option<CoderConfig>, CoderAuth), OptionsError> {
    const SHAPE: &str = "`backend` must be {type: \"agui\"} or {type: \"coder\", baseUrl, organizationId, sessionToken?, csrfToken?, allowCrossOriginToken?}";
    let Some(value) = value else {
        return Ok((None, CoderAuth::default()));
    };
    let Value::Object(mut members) = value else {
        return Err(OptionsError::invalid("backend", SHAPE));
    };
    let kind = members.remove("type");
    let coder = match kind.as_ref().and_then(Value::as_str) {
        Some("agui") => false,
        Some("coder") => true,
        _ => return Err(OptionsError::invalid("backend.type", SHAPE)),
    };
    let mut auth = CoderAuth::default();
    let config = if coder {
        let m = &mut members;
        let base_url = text(m, "baseUrl", "backend.baseUrl", true, false)?.unwrap_or_default();
        let organization_id =
            text(m, "organizationId", "backend.organizationId", true, true)?.unwrap_or_default();
        let session_token = text(m, "sessionToken", "backend.sessionToken", false, false)?;
        auth.csrf_token = text(m, "csrfToken", "backend.csrfToken", false, false)?;
        // `CreateChatRequest`'s options, written once as the create body's extra members.
        let mut create = String::new();
        for &(key, field, wire, uuid) in CREATE_OPTIONS {
            if let Some(value) = text(&mut members, key, field, false, uuid)? {
                create_member(&mut create, wire, &Value::String(value));
            }
        }
        auth.allow_cross_origin_token = match members.remove("allowCrossOriginToken") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => b,
            Some(_) => {
                return Err(OptionsError::invalid(
                    "backend.allowCrossOriginToken",
                    "`backend.allowCrossOriginToken` must be a boolean",
                ))
            }
        };
        let max_reconnects = match members.remove("maxReconnects") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n <= u64::from(u32::MAX)) => {
                n.as_u64().map(|n| n as u32)
            }
            Some(_) => {
                return Err(OptionsError::invalid(
                    "backend.maxReconnects",
                    "`backend.maxReconnects` must be a whole number of reconnects, or null",
                ))
            }
        };
        for &(key, field, wire, labels) in CREATE_LISTS {
            let ok = match members.remove(key) {
                None | Some(Value::Null) => continue,
                Some(value) => {
                    let ok = match (&value, labels) {
                        (Value::Object(map), true) => map.values().all(Value::is_string),
                        (Value::Array(ids), false) => {
                            ids.iter().all(|id| id.as_str().is_some_and(is_uuid))
                        }
                        _ => false,
                    };
                    if ok {
                        create_member(&mut create, wire, &value);
                    }
                    ok
                }
            };
            if !ok {
                return Err(OptionsError::invalid(
                    field,
                    format!("`{field}` must be an object of strings (labels) or an array of UUIDs (mcpServerIds)"),
                ));
            }
        }
        Some(CoderConfig {
            base_url,
            organization_id,
            session_token,
            max_reconnects,
            create,
        })
    } else {
        None
    };
    if let Some(key) = members.keys().next() {
        return Err(OptionsError::invalid(
            "backend",
            format!("`backend` has no member {}", quoted(key)),
        ));
    }
    Ok((config, auth))
}

/// `CreateChatRequest`'s options among `backend`'s members: the member, its name in errors, its
/// wire name, whether it is a UUID. (A static table: the loop reads it rather than building the
/// tuples on the stack.)
#[cfg(feature = "coder")]
static CREATE_OPTIONS: &[(&str, &str, &str, bool)] = &[
    (
        "modelConfigId",
        "backend.modelConfigId",
        "model_config_id",
        true,
    ),
    ("workspaceId", "backend.workspaceId", "workspace_id", true),
    (
        "systemPrompt",
        "backend.systemPrompt",
        "system_prompt",
        false,
    ),
    (
        "reasoningEffort",
        "backend.reasoningEffort",
        "reasoning_effort",
        false,
    ),
    ("planMode", "backend.planMode", "plan_mode", false),
];

/// The two list options of `CreateChatRequest`, as above; the last: an object of strings
/// (`labels`), else an array of UUIDs.
#[cfg(feature = "coder")]
static CREATE_LISTS: &[(&str, &str, &str, bool)] = &[
    ("labels", "backend.labels", "labels", true),
    (
        "mcpServerIds",
        "backend.mcpServerIds",
        "mcp_server_ids",
        false,
    ),
];

/// `backend`'s member `key` (written `field` in errors): a non-empty string without a lone
/// surrogate, a UUID when `uuid`; absent or `null` is `None` unless `required`. Out of line: one
/// copy for the seven members rather than one inlined per member.
#[cfg(feature = "coder")]
#[inline(never)]
fn text(
    members: &mut Map,
    key: &str,
    field: &'static str,
    required: bool,
    uuid: bool,
) -> Result<Option<String>, OptionsError> {
    match members.remove(key) {
        None | Some(Value::Null) if !required => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => {
            if crate::json::find_lone_surrogate(&s).is_some() {
                return Err(OptionsError::invalid(
                    field,
                    format!("`{field}` holds a lone UTF-16 surrogate, which no URL or HTTP header can carry"),
                ));
            }
            if uuid && !is_uuid(&s) {
                return Err(OptionsError::invalid(
                    field,
                    format!("`{field}` must be a UUID, not {}", quoted(&s)),
                ));
            }
            Ok(Some(s))
        }
        _ => Err(OptionsError::invalid(
            field,
            format!("`{field}` must be a non-empty string"),
        )),
    }
}

/// Appends `,"wire":value` to a create body's extra members.
#[cfg(feature = "coder")]
fn create_member(create: &mut String, wire: &str, value: &Value) {
    create.push(',');
    crate::json::write_str(create, wire);
    create.push(':');
    create.push_str(&value.to_json());
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
