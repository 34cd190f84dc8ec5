//! The Coder chat API's JSON, read and written by hand over [`crate::json::Value`]: the chat, its
//! committed messages and their parts, the stream events, one WebSocket frame of the stream, the
//! error body of every non-2xx answer, and the three request bodies the client sends.
//!
//! Reading is liberal, as the API moves fast: an unknown status, role, part type or event type is
//! kept (`Other`) or skipped, never an error; unknown members are ignored. A known event whose
//! payload is malformed becomes [`StreamEvent::Invalid`], so one bad event does not lose its
//! frame. Writing is exact: member names and omissions are those of the server's request types
//! (a Go `omitempty` member is left out when empty, the others are always written).

use crate::json::{write_str, Map, Value};
use crate::lean::text::{concat, decimal};
use crate::protocol::event::Content;
use crate::protocol::wire::{FieldError, Fields, FromJson, ObjWriter, ToJson};
use crate::wire_struct;

/// A chat's status. Values this crate does not know (older builds' `pending`, `paused`,
/// `completed`, and whatever comes next) are kept as [`ChatStatus::Other`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatStatus {
    /// `waiting`: idle, the turn ended; a new user message starts the next one.
    Waiting,
    /// `running`: a worker owns the chat (the model, or built-in tools).
    Running,
    /// `requires_action`: paused until the client submits the results of the dynamic calls.
    RequiresAction,
    /// `interrupting`: an interrupt was asked for; `waiting` follows.
    Interrupting,
    /// `error`: the turn failed.
    Error,
    /// Any other value, as sent.
    Other(String),
}

impl ChatStatus {
    /// The status a wire string names.
    pub fn from_wire(s: &str) -> ChatStatus {
        match s {
            "waiting" => ChatStatus::Waiting,
            "running" => ChatStatus::Running,
            "requires_action" => ChatStatus::RequiresAction,
            "interrupting" => ChatStatus::Interrupting,
            "error" => ChatStatus::Error,
            other => ChatStatus::Other(other.to_owned()),
        }
    }

    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            ChatStatus::Waiting => "waiting",
            ChatStatus::Running => "running",
            ChatStatus::RequiresAction => "requires_action",
            ChatStatus::Interrupting => "interrupting",
            ChatStatus::Error => "error",
            ChatStatus::Other(s) => s,
        }
    }

    /// Whether a turn is over in this status (`waiting` or `error`).
    pub fn ends_turn(&self) -> bool {
        matches!(self, ChatStatus::Waiting | ChatStatus::Error)
    }
}

impl FromJson for ChatStatus {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        match value {
            Value::String(s) => Ok(ChatStatus::from_wire(&s)),
            other => Err(FieldError::expected("a string", &other)),
        }
    }

    fn placeholder() -> Self {
        ChatStatus::Other(String::new())
    }
}

/// The author of a committed message. Unknown roles are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// `system`.
    System,
    /// `user`.
    User,
    /// `assistant`.
    Assistant,
    /// `tool`: one tool's result.
    Tool,
    /// Any other value, as sent.
    Other(String),
}

impl FromJson for Role {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        match value {
            Value::String(s) => Ok(match s.as_str() {
                "system" => Role::System,
                "user" => Role::User,
                "assistant" => Role::Assistant,
                "tool" => Role::Tool,
                _ => Role::Other(s),
            }),
            other => Err(FieldError::expected("a string", &other)),
        }
    }

    fn placeholder() -> Self {
        Role::Other(String::new())
    }
}

/// One part of a message (`ChatMessagePart`), the kinds the client reads; the others are kept by
/// their `type` only.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// `text`: in a `message_part` event, a delta to append.
    Text(String),
    /// `reasoning`: in a `message_part` event, a delta to append.
    Reasoning(String),
    /// `tool-call`.
    ToolCall(ToolCallPart),
    /// `tool-result`.
    ToolResult(ToolResultPart),
    /// Any other `type` (`source`, `file`, `skill`, ...), ignored by the translation.
    Other(String),
}

/// A `tool-call` part.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCallPart {
    /// The call's id, echoed back in its result.
    pub tool_call_id: String,
    /// The tool called.
    pub tool_name: String,
    /// The complete arguments (any JSON, normally an object); absent on a streamed delta.
    pub args: Option<Value>,
    /// A piece of the arguments' JSON text (streamed `message_part` only).
    pub args_delta: Option<String>,
    /// The provider ran the call itself (hosted web search...): never the client's to run.
    pub provider_executed: bool,
}

/// A `tool-result` part.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolResultPart {
    /// The call answered.
    pub tool_call_id: String,
    /// The tool that answered.
    pub tool_name: String,
    /// The result, any JSON (`null` when absent).
    pub result: Value,
    /// The tool failed.
    pub is_error: bool,
    /// The provider ran the call.
    pub provider_executed: bool,
}

impl FromJson for Part {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        let mut f = Fields::of(value)?;
        let kind: String = f.take("type")?;
        let part = match kind.as_str() {
            "text" => Part::Text(f.get_or_default("text")),
            "reasoning" => Part::Reasoning(f.get_or_default("text")),
            "tool-call" => Part::ToolCall(ToolCallPart {
                tool_call_id: f.get_or_default("tool_call_id"),
                tool_name: f.get_or_default("tool_name"),
                args: f.get("args"),
                args_delta: f.get("args_delta"),
                provider_executed: f.get_or_default("provider_executed"),
            }),
            "tool-result" => Part::ToolResult(ToolResultPart {
                tool_call_id: f.get_or_default("tool_call_id"),
                tool_name: f.get_or_default("tool_name"),
                result: f.get_or_default("result"),
                is_error: f.get_or_default("is_error"),
                provider_executed: f.get_or_default("provider_executed"),
            }),
            _ => Part::Other(kind),
        };
        f.check()?;
        Ok(part)
    }

    fn placeholder() -> Self {
        Part::Other(String::new())
    }
}

/// A committed message (`ChatMessage`): upserted by its `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    /// The message's id, an integer increasing per deployment.
    pub id: i64,
    /// The author.
    pub role: Role,
    /// The parts, in order (absent reads as none).
    pub content: Vec<Part>,
}

impl FromJson for ChatMessage {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        let mut f = Fields::of(value)?;
        let message = ChatMessage {
            id: f.get("id"),
            role: f.get("role"),
            content: f.get_or_default("content"),
        };
        f.check()?;
        Ok(message)
    }

    fn placeholder() -> Self {
        ChatMessage {
            id: 0,
            role: Role::placeholder(),
            content: Vec::new(),
        }
    }
}

wire_struct! {
    /// A chat's error (`ChatError`): the `error` event and `Chat.last_error`.
    pub struct ChatError {
        /// The user-facing message.
        message "message" default: String,
        /// Provider-specific context.
        detail "detail": Option<String>,
        /// `generic`, `overloaded`, `rate_limit`, ... (kept as sent).
        kind "kind": Option<String>,
        /// The upstream model provider, when known.
        provider "provider": Option<String>,
        /// Whether the underlying error is transient.
        retryable "retryable" default: bool,
        /// The upstream HTTP status, when known.
        status_code "status_code": Option<i64>,
    }
}

impl ChatError {
    /// The error the server reports for a chat in `error` without a stored one (chatd's
    /// `chatError`): what a status `error` without an `error` event means.
    pub fn generic() -> ChatError {
        ChatError {
            message: "The chat request failed unexpectedly.".to_owned(),
            detail: None,
            kind: Some("generic".to_owned()),
            provider: None,
            retryable: false,
            status_code: None,
        }
    }
}

wire_struct! {
    /// An automatic retry of the model call (`ChatStreamRetry`), for the listeners.
    pub struct Retry {
        /// The 1-based attempt.
        attempt "attempt" default: i64,
        /// The backoff before it, in milliseconds.
        delay_ms "delay_ms" default: i64,
        /// The failed attempt's error message.
        error "error" default: String,
        /// The retry's reason.
        kind "kind": Option<String>,
        /// The upstream model provider.
        provider "provider": Option<String>,
        /// The upstream HTTP status.
        status_code "status_code": Option<i64>,
        /// When the retry is attempted (RFC 3339).
        retrying_at "retrying_at": Option<String>,
    }
}

wire_struct! {
    /// One call of an `action_required` event (`ChatStreamToolCall`).
    #[derive(Eq)]
    pub struct ToolCallRequest {
        /// The call's id: echo it back exactly.
        tool_call_id "tool_call_id": String,
        /// The dynamic tool called.
        tool_name "tool_name": String,
        /// The arguments as JSON *text* (not an object).
        args "args" default: String,
    }
}

/// A `message_part` event's payload: a delta of the message being generated.
#[derive(Debug, Clone, PartialEq)]
pub struct MessagePart {
    /// The author (absent reads as assistant).
    pub role: Option<Role>,
    /// The delta.
    pub part: Part,
    /// The history version the generation belongs to.
    pub history_version: i64,
    /// The generation attempt within it.
    pub generation_attempt: i64,
    /// The part's number within (history version, attempt): 1, 2, 3...
    pub seq: i64,
}

/// One event of a chat's stream (`ChatStreamEvent`).
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// `message_part`: a delta of the message being generated.
    MessagePart(MessagePart),
    /// `message`: a committed message; upsert it by id, it replaces the deltas.
    Message(ChatMessage),
    /// `status`: the chat's new status.
    Status(ChatStatus),
    /// `error`: the turn failed.
    Error(ChatError),
    /// `retry`: the server retries the model call.
    Retry(Retry),
    /// `queue_update`: the whole queue of messages waiting (kept as sent).
    QueueUpdate(Vec<Value>),
    /// `action_required`: the dynamic calls the client must answer, in one submission.
    ActionRequired(Vec<ToolCallRequest>),
    /// `preview_reset`: drop every delta not committed.
    PreviewReset,
    /// `history_reset`: drop the transcript; the committed messages are sent again.
    HistoryReset,
    /// An event of a type this crate does not know: skipped.
    Unknown(String),
    /// A known event whose payload could not be read: skipped, reported.
    Invalid {
        /// The event's `type`.
        event_type: String,
        /// What was wrong.
        error: FieldError,
    },
}

impl StreamEvent {
    /// Reads one event object.
    pub fn from_value(value: Value) -> StreamEvent {
        let mut f = match Fields::of(value) {
            Ok(f) => f,
            Err(error) => {
                return StreamEvent::Invalid {
                    event_type: String::new(),
                    error,
                }
            }
        };
        let event_type: String = match f.take("type") {
            Ok(t) => t,
            Err(error) => {
                return StreamEvent::Invalid {
                    event_type: String::new(),
                    error,
                }
            }
        };
        let read = match event_type.as_str() {
            "message_part" => f.take("message_part").and_then(|v: Value| {
                let mut p = Fields::of(v)?;
                let part = MessagePart {
                    role: p.get("role"),
                    part: p.get("part"),
                    history_version: p.get_or_default("history_version"),
                    generation_attempt: p.get_or_default("generation_attempt"),
                    seq: p.get_or_default("seq"),
                };
                p.check().map_err(|e| e.in_member("message_part"))?;
                Ok(StreamEvent::MessagePart(part))
            }),
            "message" => f.take("message").map(StreamEvent::Message),
            "status" => f.take("status").and_then(|v: Value| {
                let mut s = Fields::of(v).map_err(|e| e.in_member("status"))?;
                s.take("status")
                    .map(StreamEvent::Status)
                    .map_err(|e| e.in_member("status"))
            }),
            "error" => f.take("error").map(StreamEvent::Error),
            "retry" => f.take("retry").map(StreamEvent::Retry),
            "queue_update" => f
                .take_or("queued_messages", Vec::new)
                .map(StreamEvent::QueueUpdate),
            "action_required" => f.take("action_required").and_then(|v: Value| {
                let mut a = Fields::of(v).map_err(|e| e.in_member("action_required"))?;
                a.take_or("tool_calls", Vec::new)
                    .map(StreamEvent::ActionRequired)
                    .map_err(|e| e.in_member("action_required"))
            }),
            "preview_reset" => Ok(StreamEvent::PreviewReset),
            "history_reset" => Ok(StreamEvent::HistoryReset),
            _ => Ok(StreamEvent::Unknown(event_type.clone())),
        };
        read.unwrap_or_else(|error| StreamEvent::Invalid { event_type, error })
    }
}

/// One WebSocket text frame of `/stream`, decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    /// Events, in order: a bare array (current builds), the `data` of a `{"type":"data"}`
    /// envelope (an array, or one event in the oldest builds), or one bare event.
    Events(Vec<StreamEvent>),
    /// `{"type":"ping"}`: a keep-alive of the envelope era.
    Ping,
    /// `{"type":"error","data":{"message":...}}`: the server cannot stream (the envelope era).
    Error(String),
}

/// Why a frame could not be decoded at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The frame is not JSON.
    #[error("the frame is not JSON: {0}")]
    NotJson(String),
    /// JSON, but neither an array of events nor an object.
    #[error("the frame is neither an array of events nor an object")]
    NotEvents,
}

/// Decodes one WebSocket text frame (the trailing newline of Go's encoder is whitespace).
pub fn decode_frame(text: &str) -> Result<Frame, FrameError> {
    decode_chat_frame(text, None)
}

/// [`decode_frame`] for the stream of `chat_id`: an event whose `chat_id` names another chat
/// is dropped (read as [`StreamEvent::Unknown`]), as Coder's own site drops it.
pub fn decode_chat_frame(text: &str, chat_id: Option<&str>) -> Result<Frame, FrameError> {
    let read = |value: Value| {
        let foreign = match (chat_id, value.get("chat_id").and_then(Value::as_str)) {
            (Some(ours), Some(theirs)) => ours != theirs,
            _ => false,
        };
        if foreign {
            StreamEvent::Unknown(String::new())
        } else {
            StreamEvent::from_value(value)
        }
    };
    let value = Value::parse(text).map_err(|e| FrameError::NotJson(e.to_string()))?;
    match value {
        Value::Array(items) => Ok(Frame::Events(items.into_iter().map(read).collect())),
        Value::Object(mut object) => {
            let envelope = object.contains_key("data") || object.len() == 1;
            match object.get("type").and_then(Value::as_str) {
                Some("ping") => Ok(Frame::Ping),
                Some("data") => Ok(Frame::Events(match object.remove("data") {
                    Some(Value::Array(items)) => items.into_iter().map(read).collect(),
                    Some(Value::Null) | None => Vec::new(),
                    Some(one) => vec![read(one)],
                })),
                Some("error") if envelope => {
                    let message = object
                        .get("data")
                        .and_then(|d| d.get("message"))
                        .and_then(Value::as_str)
                        .unwrap_or("the chat stream failed");
                    Ok(Frame::Error(message.to_owned()))
                }
                _ => Ok(Frame::Events(vec![read(Value::Object(object))])),
            }
        }
        _ => Err(FrameError::NotEvents),
    }
}

/// The chat resource (`Chat`), the members the client uses.
#[derive(Debug, Clone, PartialEq)]
pub struct Chat {
    /// The chat's id (a UUID).
    pub id: String,
    /// Its status.
    pub status: ChatStatus,
    /// The error of a chat in `error`.
    pub last_error: Option<ChatError>,
}

impl FromJson for Chat {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        let mut f = Fields::of(value)?;
        let chat = Chat {
            id: f.get("id"),
            status: f.get("status"),
            last_error: f.get("last_error"),
        };
        f.check()?;
        Ok(chat)
    }

    fn placeholder() -> Self {
        Chat {
            id: String::new(),
            status: ChatStatus::placeholder(),
            last_error: None,
        }
    }
}

/// The answer to `POST /chats/{id}/messages` (`CreateChatMessageResponse`).
#[derive(Debug, Clone, PartialEq)]
pub struct MessageAccepted {
    /// The message waits in the queue (the chat was busy).
    pub queued: bool,
    /// The inserted message, when not queued.
    pub message: Option<ChatMessage>,
    /// Every message the send inserted, in order.
    pub messages: Vec<ChatMessage>,
}

impl FromJson for MessageAccepted {
    fn from_json(value: Value) -> Result<Self, FieldError> {
        let mut f = Fields::of(value)?;
        let accepted = MessageAccepted {
            queued: f.get_or_default("queued"),
            message: f.get("message"),
            messages: f.get_or_default("messages"),
        };
        f.check()?;
        Ok(accepted)
    }

    fn placeholder() -> Self {
        MessageAccepted {
            queued: false,
            message: None,
            messages: Vec::new(),
        }
    }
}

/// A REST error answer: the status and Coder's `{message, detail, validations}` body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// The summary (the body's `message`; for a body that is not Coder's, its excerpt, or
    /// `HTTP <status>`).
    pub message: String,
    /// The body's `detail`.
    pub detail: Option<String>,
    /// The body's `validations`, as `(field, detail)`.
    pub validations: Vec<(String, String)>,
}

impl ApiError {
    /// Reads an error answer's body (any text: a proxy's HTML page keeps its excerpt).
    pub fn from_response(status: u16, body: &str) -> ApiError {
        let mut error = ApiError {
            status,
            message: String::new(),
            detail: None,
            validations: Vec::new(),
        };
        if let Ok(Value::Object(mut body)) = Value::parse(body) {
            if let Some(Value::String(message)) = body.remove("message") {
                error.message = message;
            }
            if let Some(Value::String(detail)) = body.remove("detail") {
                error.detail = Some(detail).filter(|d| !d.is_empty());
            }
            if let Some(Value::Array(items)) = body.remove("validations") {
                for item in items {
                    let text = |key| item.get(key).and_then(Value::as_str).unwrap_or("");
                    error
                        .validations
                        .push((text("field").to_owned(), text("detail").to_owned()));
                }
            }
        }
        if error.message.is_empty() {
            error.message = match crate::http::error_excerpt(body) {
                Some(excerpt) => excerpt.to_owned(),
                None => concat(&["HTTP ", &decimal(status.into())]),
            };
        }
        error
    }
}

/// A client-executed tool declared when the chat is created (`DynamicTool`).
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicTool {
    /// The tool's name.
    pub name: String,
    /// What it does (left out when empty).
    pub description: String,
    /// The JSON Schema of its arguments (the server keeps the top-level `properties` and
    /// `required`).
    pub input_schema: Value,
}

impl ToJson for DynamicTool {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("name", &self.name);
        if !self.description.is_empty() {
            w.field("description", &self.description);
        }
        w.field("input_schema", &self.input_schema);
        w.end();
    }
}

/// What to do with a message sent while the chat is busy (`busy_behavior`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusyBehavior {
    /// `queue`: wait for the current turn (the server's default).
    Queue,
    /// `interrupt`: stop the current turn, then run this message.
    Interrupt,
}

/// The user's input as `ChatInputPart`s: the text of an AG-UI message's content (a string, or
/// its `text` parts in order); other parts are not sent.
pub fn input_texts(content: &Content) -> Vec<&str> {
    match content {
        Content::Text(text) => vec![text.as_str()],
        Content::Parts(parts) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
    }
}

fn write_content(w: &mut ObjWriter<'_>, texts: &[&str]) {
    let parts: Vec<TextPart<'_>> = texts.iter().map(|t| TextPart(t)).collect();
    w.field("content", &parts);
}

struct TextPart<'a>(&'a str);

impl ToJson for TextPart<'_> {
    fn write_json(&self, out: &mut String) {
        out.push_str("{\"type\":\"text\",\"text\":");
        write_str(out, self.0);
        out.push('}');
    }
}

/// The body of `POST /chats` (`CreateChatRequest`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CreateChat<'a> {
    /// The organization (required).
    pub organization_id: &'a str,
    /// The first user message's text parts.
    pub content: Vec<&'a str>,
    /// The system prompt (left out when `None`).
    pub system_prompt: Option<&'a str>,
    /// The model (left out when `None`: the deployment's default).
    pub model_config_id: Option<&'a str>,
    /// Labels (left out when `None`).
    pub labels: Option<&'a Map>,
    /// `"api"` or `"ui"` (left out when `None`).
    pub client_type: Option<&'a str>,
    /// Every catalog and registered tool (left out when empty).
    pub tools: &'a [DynamicTool],
}

impl CreateChat<'_> {
    /// The JSON body.
    pub fn body(&self) -> String {
        let mut out = String::new();
        let mut w = ObjWriter::new(&mut out);
        w.field("organization_id", self.organization_id);
        write_content(&mut w, &self.content);
        w.field("system_prompt", &self.system_prompt);
        w.field("model_config_id", &self.model_config_id);
        w.field("labels", &self.labels);
        w.field("client_type", &self.client_type);
        if !self.tools.is_empty() {
            w.field("unsafe_dynamic_tools", self.tools);
        }
        w.end();
        out
    }
}

/// The body of `POST /chats/{id}/messages` (`CreateChatMessageRequest`).
pub fn post_message_body(
    content: &[&str],
    busy_behavior: Option<BusyBehavior>,
    model_config_id: Option<&str>,
) -> String {
    let mut out = String::new();
    let mut w = ObjWriter::new(&mut out);
    write_content(&mut w, content);
    w.field("model_config_id", &model_config_id);
    w.field(
        "busy_behavior",
        &busy_behavior.map(|b| match b {
            BusyBehavior::Queue => "queue",
            BusyBehavior::Interrupt => "interrupt",
        }),
    );
    w.end();
    out
}

/// One result of a `tool-results` submission (`ToolResult`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The pending call answered.
    pub tool_call_id: String,
    /// The output: any JSON value (text is a JSON string).
    pub output: Value,
    /// The tool failed.
    pub is_error: bool,
}

impl ToJson for ToolResult {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("tool_call_id", &self.tool_call_id);
        w.field("output", &self.output);
        w.field("is_error", &self.is_error);
        w.end();
    }
}

/// The body of `POST /chats/{id}/tool-results` (`SubmitToolResultsRequest`).
pub fn tool_results_body(results: &[ToolResult]) -> String {
    let mut out = String::new();
    let mut w = ObjWriter::new(&mut out);
    w.field("results", results);
    w.end();
    out
}

/// The routes of one deployment's chats, from its base URL (`https://coder.example/api/v2/chats`,
/// or `/api/experimental/chats` on older builds; a trailing `/` is ignored). A chat id is one
/// path segment, percent-encoded as `encodeURIComponent` encodes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Routes {
    /// The base, without a trailing `/`.
    base: String,
}

impl Routes {
    /// The routes under `base`.
    pub fn new(base: &str) -> Routes {
        Routes {
            base: base.strip_suffix('/').unwrap_or(base).to_owned(),
        }
    }

    /// `POST` here creates a chat.
    pub fn create(&self) -> String {
        self.base.clone()
    }

    fn chat(&self, chat_id: &str, tail: &str) -> String {
        concat(&[
            &self.base,
            "/",
            &crate::thread_id::path_segment(chat_id),
            "/",
            tail,
        ])
    }

    /// `GET` here reads the chat (its status, its `last_error`).
    pub fn read(&self, chat_id: &str) -> String {
        let mut url = self.chat(chat_id, "");
        url.pop();
        url
    }

    /// The stream's route as a plain `GET` (no upgrade): what coderd answers a socket it
    /// refused (401, 403, 404, 503, 400), or 426 when the route is fine.
    pub fn stream_probe(&self, chat_id: &str) -> String {
        self.chat(chat_id, "stream")
    }

    /// `POST` here recovers a chat coderd found in an invalid state (its 409 "Chat is in an
    /// invalid state."): the pending calls are closed and the chat waits.
    pub fn reconcile_invalid(&self, chat_id: &str) -> String {
        self.chat(chat_id, "reconcile-invalid")
    }

    /// `POST` here sends a user message.
    pub fn messages(&self, chat_id: &str) -> String {
        self.chat(chat_id, "messages")
    }

    /// `POST` here submits a batch's results.
    pub fn tool_results(&self, chat_id: &str) -> String {
        self.chat(chat_id, "tool-results")
    }

    /// `POST` here interrupts the chat.
    pub fn interrupt(&self, chat_id: &str) -> String {
        self.chat(chat_id, "interrupt")
    }

    /// The WebSocket of the chat's stream, resumed after `after_id` when given: an `http(s)`
    /// base becomes `ws(s)`; a path stays a path (the browser resolves it against the page).
    pub fn stream(&self, chat_id: &str, after_id: Option<i64>) -> String {
        let mut url = self.chat(chat_id, "stream");
        if let Some(rest) = url.strip_prefix("http") {
            url = concat(&["ws", rest]);
        }
        if let Some(id) = after_id {
            url.push_str("?after_id=");
            crate::json::push_i64(&mut url, id);
        }
        url
    }
}
