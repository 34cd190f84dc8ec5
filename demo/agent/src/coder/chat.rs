//! One mock chat: its row (the `Chat` JSON), its committed messages, its queue, its status and
//! the events it publishes to the streams connected to it. No I/O: the handlers and the worker
//! in `mod.rs` lock the hub, call these methods and publish what they return.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use serde_json::{json, Map, Value};
use tokio::sync::broadcast;

use super::model::Step;
use super::time::now_rfc3339;

/// The single user of the mock (`owner_id`, `created_by` of user and tool messages).
pub const OWNER_ID: &str = "a1b2c3d4-0000-4000-8000-000000000001";
/// `owner_username` of every chat.
pub const OWNER_NAME: &str = "alice";
/// `last_model_config_id` and `model_config_id` of assistant and synthetic messages.
pub const MODEL_CONFIG_ID: &str = "f5fb4d91-62ca-4377-9ee6-5d43ba00d205";

/// Synthetic result of a call whose requires_action deadline passed.
pub const REASON_TIMEOUT: &str = "Tool execution timed out";
/// Synthetic result of a call closed by `POST /reconcile-invalid`.
pub const REASON_RECONCILE: &str = "Tool execution canceled due to invalid chat state";
/// Synthetic result of a call closed by `POST /interrupt` (or `busy_behavior: "interrupt"`).
pub const REASON_INTERRUPT: &str = "Tool execution interrupted by user";

/// `ChatStatus`: the current values plus the pending era's `pending`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Idle: the turn ended, ready for a user message.
    Waiting,
    /// A worker owns the chat (generation or built-in tools).
    Running,
    /// Paused on client-executed dynamic calls.
    RequiresAction,
    /// Interrupt requested; becomes `waiting`.
    Interrupting,
    /// The turn failed; `last_error` says why.
    Error,
    /// Pending era only: accepted tool results, not yet picked up by a worker.
    Pending,
}

impl Status {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Running => "running",
            Status::RequiresAction => "requires_action",
            Status::Interrupting => "interrupting",
            Status::Error => "error",
            Status::Pending => "pending",
        }
    }
}

/// How stream frames are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Framing {
    /// Current builds: each WS text message is one JSON array of events, then `\n`.
    #[default]
    Array,
    /// Envelope era: `{"type":"data","data":[...]}` per batch, plus `{"type":"ping"}` messages.
    Envelope,
    /// Oldest builds: `{"type":"data","data":{event}}`, one event per message, plus pings.
    EnvelopeSingle,
}

impl Framing {
    /// `array` / `envelope` / `envelope-single`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "array" => Ok(Framing::Array),
            "envelope" => Ok(Framing::Envelope),
            "envelope-single" => Ok(Framing::EnvelopeSingle),
            _ => Err(format!(
                "framing {s:?}: expected array, envelope or envelope-single"
            )),
        }
    }
}

/// Which server generation the chat imitates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Era {
    /// `main` after the state-machine refactor.
    #[default]
    Current,
    /// coder/coder#24036: `pending` after a submit; interrupt at requires_action ends the turn.
    Pending,
}

/// What a connected stream receives.
#[derive(Debug, Clone)]
pub enum Out {
    /// One server batch of events (written as one or more frames).
    Batch(Arc<Vec<Value>>),
    /// Drop the connection now, without a close frame (`POST /test/coder/drop`, `dropAfter`).
    Drop,
}

/// What the tests chose for a chat (`POST /test/coder/setup`).
#[derive(Debug, Clone)]
pub struct Setup {
    /// Stream framing.
    pub framing: Framing,
    /// requires_action deadline.
    pub deadline_ms: u64,
    /// Pause before each streamed part.
    pub pace_ms: u64,
    /// Interval of WebSocket pings (and envelope `ping` messages).
    pub ping_ms: u64,
    /// The scripted model's steps; `None`: the demo rules answer.
    pub turns: Option<VecDeque<Step>>,
    /// Triggers that drop the live streams right after the matching event (each fires once).
    pub drop_after: VecDeque<String>,
    /// Server generation.
    pub era: Era,
    /// No live `status` event of `running` or `waiting` (a turn between two of coderd's
    /// syncs); the snapshot still says the status.
    pub quiet_status: bool,
    /// How many of the next `POST /tool-results` are held: read, recorded (`held: true`) and
    /// never answered nor applied (a coderd or proxy that hangs).
    pub hold_results: u64,
    /// How many of the next `POST /interrupt` are held: recorded (`held: true`), never applied
    /// nor answered (a proxy that holds the request).
    pub hold_interrupts: u64,
}

/// The test log of one chat (`GET /test/coder/chats/{id}`).
#[derive(Debug, Default)]
pub struct Record {
    /// Every `POST /tool-results`: `{status, body, atMs}`.
    pub tool_result_posts: Vec<Value>,
    /// Every `POST /interrupt`: `{status, from, atMs}`.
    pub interrupts: Vec<Value>,
    /// Every `POST /messages`: `{status, body, atMs}`.
    pub message_posts: Vec<Value>,
    /// Streams opened on the chat.
    pub streams_opened: u64,
    /// Streams open now.
    pub streams_open: u64,
    /// Streams the mock dropped.
    pub streams_dropped: u64,
}

/// One chat.
pub struct Chat {
    /// UUID.
    pub id: String,
    organization_id: String,
    title: String,
    labels: Value,
    client_type: Option<String>,
    /// What the create body chose (`CreateChatRequest`): shown in the `Chat` JSON.
    workspace_id: Value,
    mcp_server_ids: Value,
    plan_mode: Value,
    model_config_id: Value,
    /// The create request as received (`GET /test/coder/chats/{id}` → `createRequest`).
    pub create_request: Value,
    /// Set by a test (`invalidState`): POSTs answer 409 "Chat is in an invalid state." until
    /// `POST /{chat}/reconcile-invalid`.
    pub invalid: bool,
    /// Set by a test (`edited`): every connect gets `history_reset` and the whole history,
    /// whatever `after_id` says (coderd's `loadDBSnapshot` for a chat with a soft-deleted row).
    pub edited: bool,
    created_at: String,
    updated_at: String,
    /// Lifecycle.
    pub status: Status,
    /// `ChatError` of the failed turn.
    pub last_error: Option<Value>,
    /// Set by a test: the tool-results handler answers 400.
    pub archived: bool,
    /// Names of `unsafe_dynamic_tools`: the calls the client executes.
    pub dynamic: HashSet<String>,
    /// The dynamic tools as the model sees them ([`model_tool`]).
    pub model_tools: Vec<Value>,
    /// Committed messages, ascending ids.
    pub messages: Vec<Value>,
    /// Queued user messages (`queued_messages`).
    pub queue: VecDeque<Value>,
    /// Bumped on every commit: message parts of one LLM step share one value.
    pub history_version: u64,
    /// Bumped whenever the task that owns the chat changes (worker, deadline, interrupt): a task
    /// whose epoch is stale stops without touching the chat.
    pub epoch: u64,
    /// Text streamed in the current step, committed if the step is interrupted.
    pub partial: String,
    /// The history_version an `action_required` was last published for.
    action_sent_for: Option<u64>,
    /// Test choices.
    pub setup: Setup,
    /// Test log.
    pub record: Record,
    /// The live streams.
    pub tx: broadcast::Sender<Out>,
}

impl Chat {
    /// A new chat in `running` with no messages yet.
    pub fn new(
        id: String,
        body: &Map<String, Value>,
        text: &str,
        dynamic: HashSet<String>,
        setup: Setup,
    ) -> Chat {
        let now = now_rfc3339();
        let title = title_of(text);
        Chat {
            id,
            organization_id: body
                .get("organization_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .into(),
            title,
            labels: body
                .get("labels")
                .filter(|l| l.is_object())
                .cloned()
                .unwrap_or_else(|| json!({})),
            client_type: body
                .get("client_type")
                .and_then(Value::as_str)
                .map(str::to_string),
            workspace_id: body.get("workspace_id").cloned().unwrap_or(Value::Null),
            mcp_server_ids: body
                .get("mcp_server_ids")
                .filter(|v| v.is_array())
                .cloned()
                .unwrap_or_else(|| json!([])),
            plan_mode: body
                .get("plan_mode")
                .filter(|v| !v.is_null())
                .cloned()
                .unwrap_or_else(|| json!("")),
            model_config_id: body
                .get("model_config_id")
                .filter(|v| v.is_string())
                .cloned()
                .unwrap_or_else(|| json!(MODEL_CONFIG_ID)),
            create_request: Value::Object(body.clone()),
            invalid: false,
            edited: false,
            created_at: now.clone(),
            updated_at: now,
            status: Status::Running,
            last_error: None,
            archived: false,
            dynamic,
            model_tools: body
                .get("unsafe_dynamic_tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(model_tool)
                .collect(),
            messages: Vec::new(),
            queue: VecDeque::new(),
            history_version: 1,
            epoch: 0,
            partial: String::new(),
            action_sent_for: None,
            setup,
            record: Record::default(),
            tx: broadcast::channel(1024).0,
        }
    }

    /// The `Chat` JSON.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "id": self.id,
            "organization_id": self.organization_id,
            "owner_id": OWNER_ID,
            "owner_username": OWNER_NAME,
            "workspace_id": self.workspace_id,
            "parent_chat_id": null,
            "root_chat_id": null,
            "last_model_config_id": self.model_config_id,
            "title": self.title,
            "status": self.status.as_str(),
            "plan_mode": self.plan_mode,
            "last_error": self.last_error,
            "last_turn_summary": null,
            "summary": null,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "archived": self.archived,
            "shared": false,
            "pin_order": 0,
            "mcp_server_ids": self.mcp_server_ids,
            "labels": self.labels,
            "has_unread": false,
            "warnings": [],
            "children": [],
        });
        if let Some(c) = &self.client_type {
            v["client_type"] = json!(c);
        }
        v
    }

    /// Sets the status and returns its `status` event.
    pub fn set_status(&mut self, status: Status) -> Value {
        self.status = status;
        self.updated_at = now_rfc3339();
        if status != Status::Error {
            self.last_error = None;
        }
        self.event("status", json!({ "status": status.as_str() }))
    }

    /// `{"type": t, "chat_id": id, t-field: payload}` (the field of `queue_update` is
    /// `queued_messages`; `preview_reset`/`history_reset` carry none).
    pub fn event(&self, kind: &str, payload: Value) -> Value {
        let mut e = json!({ "type": kind, "chat_id": self.id });
        let field = match kind {
            "queue_update" => Some("queued_messages"),
            "preview_reset" | "history_reset" => None,
            other => Some(other),
        };
        if let Some(f) = field {
            e[f] = payload;
        }
        e
    }

    /// Commits a message (`id` from the deployment's counter) and returns its `message` event.
    pub fn commit(&mut self, id: i64, role: &str, content: Vec<Value>) -> Value {
        let mut m = json!({
            "id": id,
            "chat_id": self.id,
            "role": role,
            "content": content,
            "created_at": now_rfc3339(),
        });
        match role {
            "assistant" => m["model_config_id"] = json!(MODEL_CONFIG_ID),
            "tool" | "user" => m["created_by"] = json!(OWNER_ID),
            _ => {}
        }
        self.messages.push(m.clone());
        self.history_version += 1;
        self.updated_at = now_rfc3339();
        self.event("message", m)
    }

    /// A synthetic tool message (no `created_by`, like chatstate's synthetics).
    pub fn commit_synthetic(&mut self, id: i64, call_id: &str, tool: &str, reason: &str) -> Value {
        let part = json!({
            "type": "tool-result", "tool_call_id": call_id, "tool_name": tool,
            "result": reason, "is_error": true,
        });
        let mut e = self.commit(id, "tool", vec![part]);
        if let Some(m) = self.messages.last_mut() {
            if let Some(o) = m.as_object_mut() {
                o.remove("created_by");
                o.insert("model_config_id".into(), json!(MODEL_CONFIG_ID));
            }
            e["message"] = m.clone();
        }
        e
    }

    /// The pending dynamic calls, in call order: the non-provider-executed `tool-call` parts of
    /// the last assistant message whose tool is dynamic and that have no `tool-result` after it.
    pub fn pending_calls(&self) -> Vec<(String, String, Value)> {
        let Some(last) = self.messages.iter().rposition(|m| m["role"] == "assistant") else {
            return Vec::new();
        };
        let mut handled: HashSet<String> = HashSet::new();
        for m in &self.messages[last..] {
            for p in parts(m) {
                if p["type"] == "tool-result" {
                    handled.insert(p["tool_call_id"].as_str().unwrap_or("").into());
                }
            }
        }
        parts(&self.messages[last])
            .filter(|p| p["type"] == "tool-call" && p["provider_executed"] != true)
            .filter_map(|p| {
                let id = p["tool_call_id"].as_str()?.to_string();
                let name = p["tool_name"].as_str()?.to_string();
                let client = self.dynamic.contains(&name) && !super::is_chatd_builtin(&name);
                (client && !handled.contains(&id)).then(|| {
                    let args = p.get("args").cloned().unwrap_or(json!({}));
                    (id, name, args)
                })
            })
            .collect()
    }

    /// The `action_required` event of the pending calls (`args` as a JSON string).
    pub fn action_required(&mut self) -> Value {
        self.action_sent_for = Some(self.history_version);
        let calls: Vec<Value> = self
            .pending_calls()
            .into_iter()
            .map(|(id, name, args)| {
                json!({ "tool_call_id": id, "tool_name": name, "args": args.to_string() })
            })
            .collect();
        self.event("action_required", json!({ "tool_calls": calls }))
    }

    /// The snapshot a new stream gets: messages after `after_id`, `queue_update` if queued,
    /// `status`, `error` if in error, `action_required` if requires_action, `preview_reset`.
    pub fn snapshot(&self, after_id: i64) -> Vec<Value> {
        let after_id = if self.edited { 0 } else { after_id };
        let mut out: Vec<Value> = Vec::new();
        if self.edited {
            out.push(self.event("history_reset", Value::Null));
        }
        out.extend(
            self.messages
                .iter()
                .filter(|m| m["id"].as_i64().unwrap_or(0) > after_id)
                .map(|m| self.event("message", m.clone())),
        );
        if !self.queue.is_empty() {
            out.push(self.event("queue_update", self.queued_json()));
        }
        out.push(self.event("status", json!({ "status": self.status.as_str() })));
        if self.status == Status::Error {
            if let Some(e) = &self.last_error {
                out.push(self.event("error", e.clone()));
            }
        }
        if self.status == Status::RequiresAction {
            let calls: Vec<Value> = self
                .pending_calls()
                .into_iter()
                .map(|(id, name, args)| {
                    json!({ "tool_call_id": id, "tool_name": name, "args": args.to_string() })
                })
                .collect();
            out.push(self.event("action_required", json!({ "tool_calls": calls })));
        }
        out.push(self.event("preview_reset", Value::Null));
        out
    }

    /// The queue as `queued_messages`.
    pub fn queued_json(&self) -> Value {
        Value::Array(self.queue.iter().cloned().collect())
    }

    /// Publishes a batch to the live streams, applying the `dropAfter` triggers: a batch holding
    /// the next trigger's event is cut right after it and the streams are dropped (the rest of
    /// the batch is not delivered live; committed messages come back through the snapshot).
    pub fn publish(&mut self, mut batch: Vec<Value>) {
        if self.setup.quiet_status {
            batch.retain(|e| !(e["type"] == "status" && quiet(&e["status"]["status"])));
        }
        if batch.is_empty() {
            return;
        }
        let cut = self
            .setup
            .drop_after
            .front()
            .and_then(|t| batch.iter().position(|e| matches_trigger(e, t)));
        match cut {
            Some(i) => {
                self.setup.drop_after.pop_front();
                let head: Vec<Value> = batch[..=i].to_vec();
                let _ = self.tx.send(Out::Batch(Arc::new(head)));
                self.drop_streams();
            }
            None => {
                let _ = self.tx.send(Out::Batch(Arc::new(batch)));
            }
        }
    }

    /// Drops every live stream; returns how many there were.
    pub fn drop_streams(&mut self) -> usize {
        let n = self.tx.receiver_count();
        let _ = self.tx.send(Out::Drop);
        self.record.streams_dropped += n as u64;
        n
    }

    /// Whether the `action_required` of the current history_version was published.
    pub fn action_sent(&self) -> bool {
        self.action_sent_for == Some(self.history_version)
    }
}

/// The statuses a `quietStatus` chat never publishes live: those of a turn that starts and
/// ends between two of coderd's syncs.
fn quiet(status: &Value) -> bool {
    status == "running" || status == "waiting"
}

/// Whether `event` is the one a `dropAfter` trigger names: `requires_action`, `running`,
/// `waiting`, `error`, `interrupting` (that `status`), `action_required`, `message` (any
/// committed message), `tool_result` (a committed `role: "tool"` message), `message_part`.
fn matches_trigger(event: &Value, trigger: &str) -> bool {
    let kind = event["type"].as_str().unwrap_or("");
    match trigger {
        "action_required" | "message" | "message_part" => kind == trigger,
        "tool_result" => kind == "message" && event["message"]["role"] == "tool",
        status => kind == "status" && event["status"]["status"] == status,
    }
}

/// A declared dynamic tool as chatloop's `BuildToolDefinitions` shows it to the model: its name,
/// description and only the top-level `properties` and `required` of its `input_schema`
/// (`$defs`, `definitions`, a top-level `$ref`, `allOf`/`anyOf`/`oneOf`, `additionalProperties`
/// are dropped; a `$ref` inside `properties` stays, dangling).
pub fn model_tool(tool: &Value) -> Value {
    let schema = &tool["input_schema"];
    let mut reduced = json!({ "type": "object",
        "properties": schema.get("properties").cloned().unwrap_or_else(|| json!({})) });
    if let Some(r) = schema.get("required").filter(|r| r.is_array()) {
        reduced["required"] = r.clone();
    }
    json!({ "name": tool["name"], "description": tool.get("description").cloned().unwrap_or(json!("")),
        "input_schema": reduced })
}

/// coderd's `chatTitleFromMessage`: the first six words (then `…`), at most 80 characters;
/// `New Chat` when there are none.
pub fn title_of(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return "New Chat".into();
    }
    let mut title = words[..words.len().min(6)].join(" ");
    if words.len() > 6 {
        title.push('…');
    }
    title.chars().take(80).collect()
}

/// The parts of a message.
pub fn parts(m: &Value) -> impl Iterator<Item = &Value> {
    m["content"].as_array().into_iter().flatten()
}

/// The text parts of a `content` array joined by spaces.
pub fn first_text(content: Option<&Value>) -> String {
    content
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| p["type"] == "text")
        .filter_map(|p| p["text"].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}
