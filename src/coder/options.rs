//! The coder backend's options: `backend: {type: "coder", ...}` read into [`CoderConfig`] (which
//! the session holds as `SessionConfig::coder`) and the boundary's [`CoderAuth`], and the checks
//! coderd would make, made before anything is sent (a UUID organization, a token's origin, a chat
//! message's text). [`crate::options`] reads `backend` through
//! `backend`. It names [`OptionsError`] from `options/error.rs`, below both, and nothing else of
//! `options.rs`: `RuntimeOptions::check_token_origin` calls [`check_token_origin`] here.

use std::borrow::Cow;

use crate::json::{quoted, Map, Value};
use crate::options::error::OptionsError;

/// How the coder backend authenticates beyond the session's [`CoderConfig`]: what only the
/// boundary's I/O uses (the CSRF header of cookie mode, the cross-origin opt-in).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CoderAuth {
    /// `backend.csrfToken` as a string (the boundary takes a function form itself): sent as
    /// `X-CSRF-TOKEN` on every POST in cookie mode. `None`: the page's
    /// `<meta property="csrf-token">`.
    pub csrf_token: Option<String>,
    /// `backend.allowCrossOriginToken`: a session token may go to a `baseUrl` of another origin.
    pub allow_cross_origin_token: bool,
}

/// Where a runtime's Coder chats live, and as whom it calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoderConfig {
    /// The deployment's API base (`/api/v2`, or `https://coder.example/api/v2`): the chats are
    /// under `{base_url}/chats`.
    pub base_url: String,
    /// The organization new chats are created in.
    pub organization_id: String,
    /// The session token: the `Coder-Session-Token` header on every REST call and the
    /// `coder_session_token` query parameter of the stream (a browser WebSocket sends no
    /// headers). `None`: the page's cookie authenticates.
    pub session_token: Option<String>,
    /// How many times in a row the chat's stream may close without progress before the turn
    /// ends (`coder/stream`); `None` (the default): never, as Coder's own site does.
    pub max_reconnects: Option<u32>,
    /// The create body's extra members (`CreateChatRequest`'s options, from `backend`:
    /// `modelConfigId`, `systemPrompt`, `workspaceId`, `labels`, `mcpServerIds`,
    /// `reasoningEffort`, `planMode`), as JSON text `,"model_config_id":"…",…`; empty: none.
    pub create: String,
}

/// Refuses a session token bound for another origin than the page's (`page_origin`, e.g.
/// `"https://app.example"`; `None` when the host has none): the token would travel in the
/// stream's URL (`?coder_session_token=`) to that origin, where proxies and logs keep URLs.
/// `backend.allowCrossOriginToken: true` lets it go. A relative `baseUrl` is same-origin.
pub fn check_token_origin(
    coder: Option<&CoderConfig>,
    auth: &CoderAuth,
    page_origin: Option<&str>,
) -> Result<(), OptionsError> {
    let Some(coder) = coder else {
        return Ok(());
    };
    if coder.session_token.is_none() || auth.allow_cross_origin_token {
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

/// The origin (`scheme://host[:port]`, lower-cased, without a default port) of an absolute or
/// scheme-relative URL (`//host/...`, completed with `page_origin`'s scheme); `None` for a
/// relative URL (same-origin) or one without a host. Byte loops and the crate's `split_once`:
/// core's string searchers would cost kilobytes of wasm.
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

/// `backend`: absent, `null` or `{type: "agui"}` is AG-UI (`None`); `{type: "coder", baseUrl,
/// organizationId, sessionToken?, csrfToken?, allowCrossOriginToken?}` is a Coder deployment.
/// An unknown member, a member of the wrong type or an empty string is refused, naming the
/// member (`backend.baseUrl`), and so is an `organizationId` that is not a UUID; a message
/// never quotes the session token or the CSRF token.
pub(crate) fn backend(
    value: Option<Value>,
) -> Result<(Option<CoderConfig>, CoderAuth), OptionsError> {
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
fn create_member(create: &mut String, wire: &str, value: &Value) {
    create.push(',');
    crate::json::write_str(create, wire);
    create.push(':');
    create.push_str(&value.to_json());
}
