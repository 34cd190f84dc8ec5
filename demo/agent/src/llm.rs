//! `--llm-url URL --model NAME`: the run is answered by an OpenAI-compatible chat completions
//! server (Ollama, llama.cpp, vLLM, aimock...) instead of the planner.
//!
//! RunAgentInput → `POST {URL}/chat/completions` (`stream: true`) → AG-UI events. The backend tool
//! `search_docs` is run here and the model is continued with its result within the same run;
//! frontend calls end the run with `pendingToolCallIds`. Plain `http://` only (no TLS): the client
//! is hyper's HTTP/1.1 connection API over a tokio `TcpStream`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{header, Request};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use crate::demo::{self, Ids, RunInput};

/// Where the model is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmConfig {
    /// `host:port` for the TCP connection and the `Host` header.
    pub authority: String,
    /// Path of `chat/completions` (`/v1/chat/completions` for `http://host:port/v1`).
    pub path: String,
    /// `model` of every request.
    pub model: String,
    /// Sent as `Authorization: Bearer ...` when set (`$LLM_API_KEY`).
    pub api_key: Option<String>,
}

impl LlmConfig {
    /// Parses `http://host[:port][/base]` (port default 80).
    pub fn parse(url: &str, model: &str) -> Result<Self, String> {
        let Some(rest) = url.strip_prefix("http://") else {
            return Err(format!(
                "--llm-url {url}: only http:// URLs are supported (no TLS; put a local proxy in front of https endpoints)"
            ));
        };
        let (authority, base) = match rest.find('/') {
            Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
            None => (rest, ""),
        };
        if authority.is_empty() {
            return Err(format!("--llm-url {url}: no host"));
        }
        let authority = if authority
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        if model.is_empty() {
            return Err("--llm-url needs --model NAME".into());
        }
        Ok(LlmConfig {
            authority,
            path: format!("{base}/chat/completions"),
            model: model.to_string(),
            api_key: None,
        })
    }
}

/// The thread store shared with the demo planner.
pub type Threads = Mutex<HashMap<String, Vec<Value>>>;

/// Sends AG-UI events as SSE frames; `false` once the client is gone.
pub struct Emitter(pub mpsc::Sender<Bytes>);

impl Emitter {
    /// Sends one event as `data: <json>\n\n`.
    pub async fn send(&self, event: Value) -> bool {
        self.0
            .send(Bytes::from(format!("data: {event}\n\n")))
            .await
            .is_ok()
    }
}

const SYSTEM_PROMPT: &str = "You are the chat-runtime demo agent. Use the tools you are given when they help. \
The browser runs the frontend tools; the user can turn them on and off. If a tool you would need is not offered, \
say that it is turned off and that it can be turned on in the Tools menu. search_docs searches the chat-runtime documentation.";

/// Most model requests in one run (each backend tool round adds one).
const MAX_ROUNDS: usize = 5;

/// The thread as OpenAI chat messages (with a system prompt and the input's context first).
pub fn to_openai(thread: &[Value], context: &[Value]) -> Vec<Value> {
    let mut out = vec![json!({ "role": "system", "content": SYSTEM_PROMPT })];
    let ctx: Vec<String> = context
        .iter()
        .map(|c| {
            format!(
                "- {}: {}",
                c["description"].as_str().unwrap_or(""),
                c["value"].as_str().unwrap_or("")
            )
        })
        .collect();
    if !ctx.is_empty() {
        out.push(json!({ "role": "system", "content": format!("Context:\n{}", ctx.join("\n")) }));
    }
    for m in thread {
        let role = m["role"].as_str().unwrap_or("");
        match role {
            "user" | "system" | "developer" => {
                out.push(json!({ "role": role, "content": demo::text_of(&m["content"]) }))
            }
            "assistant" => {
                let mut a = json!({ "role": "assistant" });
                if let Some(c) = m["content"].as_str() {
                    a["content"] = json!(c);
                }
                if let Some(calls) = m["toolCalls"].as_array().filter(|c| !c.is_empty()) {
                    a["tool_calls"] = Value::Array(
                        calls
                            .iter()
                            .map(|c| {
                                json!({
                                    "id": c["id"],
                                    "type": "function",
                                    "function": {
                                        "name": c["function"]["name"],
                                        "arguments": c["function"]["arguments"].as_str().unwrap_or("{}"),
                                    }
                                })
                            })
                            .collect(),
                    );
                } else if a.get("content").is_none() {
                    a["content"] = json!("");
                }
                out.push(a);
            }
            "tool" => out.push(json!({
                "role": "tool",
                "tool_call_id": m["toolCallId"],
                "content": demo::text_of(&m["content"]),
            })),
            _ => {} // activity, reasoning: not for the model
        }
    }
    out
}

/// The input's tools (frontend) plus `search_docs`, as OpenAI function tools.
pub fn openai_tools(tools: &[Value]) -> Vec<Value> {
    let mut all: Vec<Value> = tools
        .iter()
        .filter(|t| t["name"] != "search_docs")
        .cloned()
        .collect();
    all.push(demo::search_docs_tool());
    all.iter()
        .map(|t| {
            let mut f = json!({ "name": t["name"] });
            if let Some(d) = t["description"].as_str() {
                f["description"] = json!(d);
            }
            f["parameters"] = match &t["parameters"] {
                p @ Value::Object(_) => p.clone(),
                _ => json!({ "type": "object", "properties": {} }),
            };
            json!({ "type": "function", "function": f })
        })
        .collect()
}

struct Failure {
    message: String,
    code: &'static str,
}

fn fail(code: &'static str, message: impl Into<String>) -> Failure {
    Failure {
        message: message.into(),
        code,
    }
}

struct Call {
    id: String,
    name: String,
    args: String,
    started: bool,
    ended: bool,
}

/// What one completion said.
struct Turn {
    msg_id: String,
    text: String,
    calls: Vec<Call>,
}

/// Streams one completion as AG-UI events.
struct Translator<'a> {
    em: &'a Emitter,
    ids: &'a Ids,
    turn: Turn,
    text_open: bool,
    by_index: HashMap<u64, usize>,
    gone: bool,
}

impl Translator<'_> {
    async fn emit(&mut self, event: Value) {
        if !self.gone && !self.em.send(event).await {
            self.gone = true;
        }
    }

    async fn close_text(&mut self) {
        if self.text_open {
            self.text_open = false;
            let id = self.turn.msg_id.clone();
            self.emit(json!({ "type": "TEXT_MESSAGE_END", "messageId": id }))
                .await;
        }
    }

    async fn close_all(&mut self) {
        self.close_text().await;
        for i in 0..self.turn.calls.len() {
            let c = &mut self.turn.calls[i];
            if c.started && !c.ended {
                c.ended = true;
                let id = c.id.clone();
                self.emit(json!({ "type": "TOOL_CALL_END", "toolCallId": id }))
                    .await;
            }
        }
    }

    async fn chunk(&mut self, chunk: &Value) -> Result<(), Failure> {
        if let Some(e) = chunk.get("error") {
            let message = e["message"]
                .as_str()
                .map_or_else(|| e.to_string(), str::to_string);
            return Err(fail("llm/stream", format!("LLM stream error: {message}")));
        }
        let choice = &chunk["choices"][0];
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
            if !self.text_open {
                self.text_open = true;
                let id = self.turn.msg_id.clone();
                self.emit(
                    json!({ "type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant" }),
                )
                .await;
            }
            self.turn.text.push_str(text);
            let id = self.turn.msg_id.clone();
            self.emit(json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": text }))
                .await;
        }
        if let Some(tcs) = delta["tool_calls"].as_array() {
            for (pos, tc) in tcs.iter().enumerate() {
                let index = tc["index"].as_u64().unwrap_or(pos as u64);
                let k = match self.by_index.get(&index) {
                    Some(k) => *k,
                    None => {
                        let id = tc["id"]
                            .as_str()
                            .filter(|s| !s.is_empty())
                            .map_or_else(|| self.ids.call(), str::to_string);
                        self.turn.calls.push(Call {
                            id,
                            name: String::new(),
                            args: String::new(),
                            started: false,
                            ended: false,
                        });
                        self.by_index.insert(index, self.turn.calls.len() - 1);
                        self.turn.calls.len() - 1
                    }
                };
                if let Some(name) = tc["function"]["name"].as_str() {
                    self.turn.calls[k].name.push_str(name);
                }
                let fragment = tc["function"]["arguments"].as_str().unwrap_or("");
                if !self.turn.calls[k].started && !self.turn.calls[k].name.is_empty() {
                    self.close_text().await;
                    self.turn.calls[k].started = true;
                    let (id, name, parent) = (
                        self.turn.calls[k].id.clone(),
                        self.turn.calls[k].name.clone(),
                        self.turn.msg_id.clone(),
                    );
                    self.emit(json!({ "type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name, "parentMessageId": parent }))
                        .await;
                    // Arguments that came before the name.
                    let early = self.turn.calls[k].args.clone();
                    if !early.is_empty() {
                        self.emit(
                            json!({ "type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": early }),
                        )
                        .await;
                    }
                }
                self.turn.calls[k].args.push_str(fragment);
                if self.turn.calls[k].started && !fragment.is_empty() {
                    let id = self.turn.calls[k].id.clone();
                    self.emit(
                        json!({ "type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": fragment }),
                    )
                    .await;
                }
            }
        }
        if choice["finish_reason"].is_string() {
            self.close_all().await;
        }
        Ok(())
    }
}

async fn complete(cfg: &LlmConfig, body: Value, em: &Emitter, ids: &Ids) -> Result<Turn, Failure> {
    let stream = TcpStream::connect(&cfg.authority).await.map_err(|e| {
        fail(
            "llm/unreachable",
            format!(
                "LLM request failed: cannot connect to {}: {e}",
                cfg.authority
            ),
        )
    })?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| fail("llm/unreachable", format!("LLM request failed: {e}")))?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut req = Request::post(&cfg.path)
        .header(header::HOST, &cfg.authority)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "text/event-stream");
    if let Some(key) = &cfg.api_key {
        req = req.header(header::AUTHORIZATION, format!("Bearer {key}"));
    }
    let req = req
        .body(Full::new(Bytes::from(body.to_string())))
        .map_err(|e| fail("llm/request", format!("LLM request failed: {e}")))?;
    let res = sender
        .send_request(req)
        .await
        .map_err(|e| fail("llm/unreachable", format!("LLM request failed: {e}")))?;
    let status = res.status();
    let mut body = res.into_body();
    if !status.is_success() {
        let bytes = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        let detail = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
            .unwrap_or_else(|| text.trim().chars().take(300).collect());
        return Err(fail(
            "llm/http",
            format!("LLM request failed: HTTP {}: {detail}", status.as_u16()),
        ));
    }
    let mut t = Translator {
        em,
        ids,
        turn: Turn {
            msg_id: ids.msg(),
            text: String::new(),
            calls: Vec::new(),
        },
        text_open: false,
        by_index: HashMap::new(),
        gone: false,
    };
    let mut buf: Vec<u8> = Vec::new();
    'read: while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| fail("llm/stream", format!("LLM stream broke: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        buf.extend_from_slice(&data);
        while let Some(i) = buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buf.drain(..=i).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            let Some(payload) = line.strip_prefix("data:") else {
                continue;
            };
            let payload = payload.trim();
            if payload == "[DONE]" {
                break 'read;
            }
            let chunk: Value = serde_json::from_str(payload)
                .map_err(|e| fail("llm/stream", format!("LLM stream: bad JSON chunk: {e}")))?;
            t.chunk(&chunk).await?;
            if t.gone {
                break 'read;
            }
        }
    }
    t.close_all().await;
    Ok(t.turn)
}

/// Answers one run with the model; events go to `em`. Threads must already hold the merged input.
pub async fn run(
    cfg: Arc<LlmConfig>,
    threads: Arc<Threads>,
    ids: Arc<Ids>,
    input: RunInput,
    em: Emitter,
) {
    if !em.send(demo::run_started(&input)).await {
        return;
    }
    let tools = openai_tools(&input.tools);
    for _ in 0..MAX_ROUNDS {
        let messages = {
            let threads = threads.lock().unwrap_or_else(|e| e.into_inner());
            to_openai(
                threads.get(&input.thread_id).map_or(&[][..], Vec::as_slice),
                &input.context,
            )
        };
        let body =
            json!({ "model": cfg.model, "stream": true, "messages": messages, "tools": tools });
        let turn = match complete(&cfg, body, &em, &ids).await {
            Ok(turn) => turn,
            Err(f) => {
                em.send(json!({ "type": "RUN_ERROR", "message": f.message, "code": f.code }))
                    .await;
                return;
            }
        };
        let calls: Vec<&Call> = turn.calls.iter().filter(|c| c.started).collect();
        let mut stored = json!({ "id": turn.msg_id, "role": "assistant" });
        if !turn.text.is_empty() {
            stored["content"] = json!(turn.text);
        }
        if !calls.is_empty() {
            stored["toolCalls"] = Value::Array(
                calls
                    .iter()
                    .map(|c| demo::tool_call_entry(&c.id, &c.name, &c.args))
                    .collect(),
            );
        }
        let mut results = Vec::new();
        let mut pending = Vec::new();
        for c in &calls {
            if c.name == "search_docs" {
                let args: Value = serde_json::from_str(&c.args).unwrap_or_else(|_| json!({}));
                let query = args["query"].as_str().unwrap_or("");
                let content = demo::search_docs_content(&demo::search_docs(query));
                let msg_id = ids.msg();
                results.push(json!({ "type": "TOOL_CALL_RESULT", "messageId": msg_id, "toolCallId": c.id, "content": content, "role": "tool" }));
            } else {
                pending.push(c.id.clone());
            }
        }
        {
            let mut threads = threads.lock().unwrap_or_else(|e| e.into_inner());
            let thread = threads.entry(input.thread_id.clone()).or_default();
            if !turn.text.is_empty() || !calls.is_empty() {
                thread.push(stored);
            }
            for r in &results {
                thread.push(json!({ "id": r["messageId"], "role": "tool", "toolCallId": r["toolCallId"], "content": r["content"] }));
            }
        }
        for r in results.iter().cloned() {
            if !em.send(r).await {
                return;
            }
        }
        if results.is_empty() || !pending.is_empty() {
            em.send(demo::run_finished(&input, &pending)).await;
            return;
        }
    }
    em.send(json!({ "type": "RUN_ERROR", "message": format!("the model kept calling search_docs ({MAX_ROUNDS} requests)"), "code": "llm/rounds" }))
        .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_urls() {
        let c = LlmConfig::parse("http://127.0.0.1:11434/v1/", "llama3.2").unwrap();
        assert_eq!(c.authority, "127.0.0.1:11434");
        assert_eq!(c.path, "/v1/chat/completions");
        let c = LlmConfig::parse("http://localhost", "m").unwrap();
        assert_eq!(c.authority, "localhost:80");
        assert_eq!(c.path, "/chat/completions");
        assert!(LlmConfig::parse("https://api.openai.com/v1", "m").is_err());
        assert!(LlmConfig::parse("http://x/v1", "").is_err());
    }

    #[test]
    fn translates_messages() {
        let thread = vec![
            json!({"id":"u1","role":"user","content":[{"type":"text","text":"hi"}]}),
            json!({"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}),
            json!({"id":"t1","role":"tool","toolCallId":"c1","content":"{\"temperature\":20}"}),
            json!({"id":"x","role":"activity","activityType":"a","content":{}}),
        ];
        let m = to_openai(&thread, &[]);
        assert_eq!(m.len(), 4);
        assert_eq!(m[1], json!({"role":"user","content":"hi"}));
        assert_eq!(m[2]["tool_calls"][0]["function"]["name"], "get_weather");
        assert!(m[2].get("content").is_none());
        assert_eq!(
            m[3],
            json!({"role":"tool","tool_call_id":"c1","content":"{\"temperature\":20}"})
        );
    }
}
