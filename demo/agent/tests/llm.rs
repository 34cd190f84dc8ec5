//! `--llm-url`: the bridge against a real OpenAI-compatible mock server, npm `@copilotkit/aimock`
//! (its `llmock` CLI with `tests/fixtures/aimock.json`). It must be installed (`npm ci` at the
//! repository root; `make test` does it): these tests fail, never skip, when it is missing.

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use chat_runtime_agent::llm::LlmConfig;
use chat_runtime_agent::{spawn, Config, Server};
use common::*;
use serde_json::{json, Value};

/// A running aimock; killed on drop.
struct Aimock {
    child: Child,
    url: String,
}

impl Drop for Aimock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn aimock() -> Aimock {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let bin = root.join("node_modules/.bin/llmock");
    assert!(
        bin.exists(),
        "{} is missing: run `npm ci` at the repository root (make test does) to install @copilotkit/aimock",
        bin.display()
    );
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/aimock.json");
    let mut child = Command::new(&bin)
        .args(["--port", "0", "--chunk-size", "20", "--fixtures"])
        .arg(&fixtures)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut url = None;
    let mut seen = String::new();
    for _ in 0..20 {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            break;
        }
        seen.push_str(&line);
        if let Some(i) = line.find("listening on http://") {
            url = Some(line[i + "listening on ".len()..].trim().to_string());
            break;
        }
    }
    // Keep draining its log so it never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = String::new();
        while out.read_line(&mut sink).is_ok_and(|n| n > 0) {
            sink.clear();
        }
    });
    let url = url.unwrap_or_else(|| panic!("aimock did not start:\n{seen}"));
    Aimock { child, url }
}

async fn agent(llm_url: &str) -> Server {
    let llm = LlmConfig::parse(llm_url, "mock-model").unwrap();
    spawn(
        Config {
            llm: Some(llm),
            ..Config::default()
        },
        0,
    )
    .await
    .unwrap()
}

fn input(thread: &str, run: &str, messages: Value, tools: Value) -> Value {
    json!({ "threadId": thread, "runId": run, "protocolVersion": "1.0", "state": {},
            "messages": messages, "tools": tools, "context": [], "forwardedProps": {} })
}

fn weather_tool() -> Value {
    json!({ "name": "get_weather", "description": "Weather in a city",
            "parameters": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] } })
}

async fn journal(mock: &Aimock) -> Vec<Value> {
    let addr: SocketAddr = mock.url.trim_start_matches("http://").parse().unwrap();
    let v = get(addr, "/__aimock/journal").await.json().await;
    match v {
        Value::Array(a) => a,
        other => other["entries"].as_array().cloned().unwrap_or_default(),
    }
}

#[tokio::test]
async fn text_answer_streams_as_one_text_message() {
    let mock = aimock();
    let server = agent(&format!("{}/v1", mock.url)).await;
    let (status, events) = run_events(
        server.addr,
        "t1",
        input(
            "t1",
            "r1",
            json!([{ "id": "u1", "role": "user", "content": "say hello" }]),
            json!([]),
        ),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        events,
        vec![
            json!({"type":"RUN_STARTED","threadId":"t1","runId":"r1"}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Hello from the mock "}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"model!"}),
            json!({"type":"TEXT_MESSAGE_END","messageId":"msg-1"}),
            json!({"type":"RUN_FINISHED","threadId":"t1","runId":"r1","outcome":{"type":"success"}}),
        ]
    );
    // What the model got: stream, model, a system prompt, the user message, search_docs as a tool.
    let j = journal(&mock).await;
    assert_eq!(j.len(), 1);
    let body = &j[0]["body"];
    assert_eq!(body["model"], "mock-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(
        body["messages"][1],
        json!({ "role": "user", "content": "say hello" })
    );
    assert_eq!(body["tools"].as_array().unwrap().len(), 1);
    assert_eq!(body["tools"][0]["function"]["name"], "search_docs");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn frontend_tool_call_is_pending_then_the_result_continues_the_model() {
    let mock = aimock();
    let server = agent(&format!("{}/v1", mock.url)).await;
    let a = server.addr;
    let user = json!({ "id": "u1", "role": "user", "content": "What's the weather in Paris?" });
    let (_, events) = run_events(
        a,
        "w",
        input("w", "r1", json!([user]), json!([weather_tool()])),
    )
    .await;
    assert_eq!(
        events,
        vec![
            json!({"type":"RUN_STARTED","threadId":"w","runId":"r1"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"call_w1","toolCallName":"get_weather","parentMessageId":"msg-1"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"call_w1","delta":"{\"city\":\"Paris\"}"}),
            json!({"type":"TOOL_CALL_END","toolCallId":"call_w1"}),
            json!({"type":"RUN_FINISHED","threadId":"w","runId":"r1","outcome":{"type":"success","pendingToolCallIds":["call_w1"]}}),
        ]
    );
    // The browser's result, sent as "new messages only": the server remembers the call.
    let result = json!({ "id": "t1", "role": "tool", "toolCallId": "call_w1", "content": "{\"temperature\":18}" });
    let (_, events) = run_events(
        a,
        "w",
        input("w", "r2", json!([result]), json!([weather_tool()])),
    )
    .await;
    assert_eq!(
        events,
        vec![
            json!({"type":"RUN_STARTED","threadId":"w","runId":"r2"}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"msg-2","role":"assistant"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-2","delta":"It is sunny in Paris"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-2","delta":"."}),
            json!({"type":"TEXT_MESSAGE_END","messageId":"msg-2"}),
            json!({"type":"RUN_FINISHED","threadId":"w","runId":"r2","outcome":{"type":"success"}}),
        ]
    );
    let j = journal(&mock).await;
    assert_eq!(j.len(), 2);
    let first = &j[0]["body"];
    let names: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get_weather", "search_docs"]);
    assert_eq!(first["tools"][0]["type"], "function");
    assert_eq!(
        first["tools"][0]["function"]["parameters"]["required"],
        json!(["city"])
    );
    let msgs = j[1]["body"]["messages"].as_array().unwrap();
    assert_eq!(
        msgs[2],
        json!({ "role": "assistant", "tool_calls": [{ "id": "call_w1", "type": "function", "function": { "name": "get_weather", "arguments": "{\"city\":\"Paris\"}" } }] })
    );
    assert_eq!(
        msgs[3],
        json!({ "role": "tool", "tool_call_id": "call_w1", "content": "{\"temperature\":18}" })
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn search_docs_runs_on_the_server_and_the_model_continues_in_the_same_run() {
    let mock = aimock();
    let server = agent(&format!("{}/v1", mock.url)).await;
    let user = json!({ "id": "u1", "role": "user", "content": "Please search the docs for frontend tools" });
    let (_, events) =
        run_events(server.addr, "d", input("d", "r1", json!([user]), json!([]))).await;
    let content = events
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_RESULT")
        .map(|e| e["content"].as_str().unwrap().to_string())
        .unwrap();
    assert!(content.starts_with("Frontend tools: "), "{content}");
    assert_eq!(
        events,
        vec![
            json!({"type":"RUN_STARTED","threadId":"d","runId":"r1"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"call_d1","toolCallName":"search_docs","parentMessageId":"msg-1"}),
            // aimock streams the arguments in --chunk-size 20 pieces too.
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"call_d1","delta":"{\"query\":\"frontend t"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"call_d1","delta":"ools\"}"}),
            json!({"type":"TOOL_CALL_END","toolCallId":"call_d1"}),
            json!({"type":"TOOL_CALL_RESULT","messageId":"msg-2","toolCallId":"call_d1","content":content,"role":"tool"}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"msg-3","role":"assistant"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-3","delta":"The docs say fronten"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-3","delta":"d tools run in the b"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-3","delta":"rowser."}),
            json!({"type":"TEXT_MESSAGE_END","messageId":"msg-3"}),
            json!({"type":"RUN_FINISHED","threadId":"d","runId":"r1","outcome":{"type":"success"}}),
        ]
    );
    // The second request carried the call and its server-side result.
    let j = journal(&mock).await;
    assert_eq!(j.len(), 2);
    let msgs = j[1]["body"]["messages"].as_array().unwrap();
    assert_eq!(msgs[2]["tool_calls"][0]["id"], "call_d1");
    assert_eq!(
        msgs[3],
        json!({ "role": "tool", "tool_call_id": "call_d1", "content": content })
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn upstream_failures_are_run_errors() {
    let mock = aimock();
    let server = agent(&format!("{}/v1", mock.url)).await;
    let user = json!({ "id": "u1", "role": "user", "content": "break please" });
    let (status, events) =
        run_events(server.addr, "e", input("e", "r1", json!([user]), json!([]))).await;
    assert_eq!(status, 200);
    assert_eq!(
        events,
        vec![
            json!({"type":"RUN_STARTED","threadId":"e","runId":"r1"}),
            json!({"type":"RUN_ERROR","message":"LLM request failed: HTTP 503: Model overloaded","code":"llm/http"}),
        ]
    );
    server.stop().await.unwrap();
    drop(mock);

    // Nobody listening.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let server = agent(&format!("http://127.0.0.1:{port}/v1")).await;
    let user = json!({ "id": "u1", "role": "user", "content": "hi" });
    let (_, events) =
        run_events(server.addr, "e", input("e", "r1", json!([user]), json!([]))).await;
    assert_eq!(events.len(), 2);
    assert_eq!(events[1]["type"], "RUN_ERROR");
    assert_eq!(events[1]["code"], "llm/unreachable");
    server.stop().await.unwrap();
}
