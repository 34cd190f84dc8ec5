//! The Coder chat API mock over real sockets: REST through the raw HTTP/1.1 client of
//! tests/common, the stream through tokio-tungstenite.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use chat_runtime_agent::coder::CoderConfig;
use chat_runtime_agent::{spawn, Config, Mode, Server};
use common::*;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

const P: &str = "/api/v2/chats";
const ORG: &str = "7c60d51f-b44e-4682-87d6-449835ea4de6";

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

async fn start_with(coder: CoderConfig) -> Server {
    spawn(
        Config {
            mode: Mode::Script,
            pace_ms: 0,
            coder,
            ..Config::default()
        },
        0,
    )
    .await
    .unwrap()
}

async fn start() -> Server {
    start_with(CoderConfig::default()).await
}

fn tool(name: &str) -> Value {
    json!({ "name": name, "description": format!("the {name} tool"),
        "input_schema": { "type": "object", "properties": {} } })
}

fn create_body(text: &str, tools: &[&str]) -> Value {
    json!({
        "organization_id": ORG,
        "content": [{ "type": "text", "text": text }],
        "client_type": "api",
        "unsafe_dynamic_tools": tools.iter().map(|t| tool(t)).collect::<Vec<_>>(),
    })
}

/// (status, JSON body or Null when empty)
async fn call(addr: SocketAddr, method: &str, path: &str, body: Option<&[u8]>) -> (u16, Value) {
    let headers: &[(&str, &str)] = if body.is_some() {
        &[("Content-Type", "application/json")]
    } else {
        &[]
    };
    let mut c = Conn::open(addr, method, path, headers, body.unwrap_or(b"")).await;
    let status = c.status;
    let bytes = c.body().await.0;
    let v = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    };
    (status, v)
}

async fn post(addr: SocketAddr, path: &str, body: Value) -> (u16, Value) {
    call(
        addr,
        "POST",
        path,
        Some(&serde_json::to_vec(&body).unwrap()),
    )
    .await
}

async fn setup(addr: SocketAddr, body: Value) {
    let (s, b) = post(addr, "/test/coder/setup", body).await;
    assert_eq!(s, 200, "{b}");
}

async fn create(addr: SocketAddr, text: &str, tools: &[&str]) -> String {
    let (s, chat) = post(addr, P, create_body(text, tools)).await;
    assert_eq!(s, 201, "{chat}");
    chat["id"].as_str().unwrap().to_string()
}

async fn record(addr: SocketAddr, id: &str) -> Value {
    call(addr, "GET", &format!("/test/coder/chats/{id}"), None)
        .await
        .1
}

/// Polls the chat until its status is `want` (the worker runs in the background).
async fn wait_status(addr: SocketAddr, id: &str, want: &str) -> Value {
    for _ in 0..500 {
        let r = record(addr, id).await;
        if r["chat"]["status"] == want {
            return r;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("chat {id} never reached {want}: {}", record(addr, id).await);
}

async fn results(addr: SocketAddr, id: &str, body: Value) -> (u16, Value) {
    post(addr, &format!("{P}/{id}/tool-results"), body).await
}

async fn ws_with(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Result<Ws, WsError> {
    let mut req = format!("ws://{addr}{path}").into_client_request().unwrap();
    for (k, v) in headers {
        req.headers_mut().insert(
            HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    tokio_tungstenite::connect_async(req)
        .await
        .map(|(ws, _)| ws)
}

async fn ws(addr: SocketAddr, id: &str) -> Ws {
    ws_with(addr, &format!("{P}/{id}/stream"), &[])
        .await
        .unwrap()
}

/// The next text message as JSON (`None` when the connection ended); pings are skipped.
async fn frame(ws: &mut Ws) -> Option<Value> {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("no frame within 10 s");
        match msg {
            Some(Ok(Message::Text(t))) => {
                assert!(t.ends_with('\n'), "a frame ends with a newline: {t:?}");
                return Some(serde_json::from_str(&t).unwrap());
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return None,
            Some(Ok(other)) => panic!("unexpected message {other:?}"),
        }
    }
}

/// Events (array frames flattened) until one satisfies `stop` (included).
async fn until(ws: &mut Ws, stop: impl Fn(&Value) -> bool) -> Vec<Value> {
    let mut out = Vec::new();
    loop {
        let f = frame(ws).await.expect("stream ended");
        let batch = f.as_array().expect("a frame is an array").clone();
        for e in batch {
            assert!(e["chat_id"].is_string(), "{e}");
            let done = stop(&e);
            out.push(e);
            if done {
                return out;
            }
        }
    }
}

fn is_status(s: &'static str) -> impl Fn(&Value) -> bool {
    move |e| e["type"] == "status" && e["status"]["status"] == s
}

fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e["type"].as_str().unwrap() {
            "status" => format!("status:{}", e["status"]["status"].as_str().unwrap()),
            "message" => format!("message:{}", e["message"]["role"].as_str().unwrap()),
            t => t.to_string(),
        })
        .collect()
}

/// A chat whose first turn is "Hi." and whose stream is connected and idle (`waiting`), so
/// that what follows arrives live.
async fn idle_chat(addr: SocketAddr, text: &str, tools: &[&str], turns: Value) -> (String, Ws) {
    let mut all = vec![json!({ "text": "Hi." })];
    all.extend(turns.as_array().unwrap().iter().cloned());
    setup(addr, json!({ "match": text, "turns": all })).await;
    let id = create(addr, text, tools).await;
    wait_status(addr, &id, "waiting").await;
    let mut s = ws(addr, &id).await;
    until(&mut s, |e| e["type"] == "preview_reset").await;
    (id, s)
}

async fn say(addr: SocketAddr, id: &str, text: &str) -> (u16, Value) {
    post(
        addr,
        &format!("{P}/{id}/messages"),
        json!({ "content": [{ "type": "text", "text": text }] }),
    )
    .await
}

// ---- create ---------------------------------------------------------------------------------------

#[tokio::test]
async fn create_answers_201_running_and_validates_dynamic_tools() {
    let server = start().await;
    let a = server.addr;
    let (s, chat) = post(a, P, create_body("hello", &["get_weather"])).await;
    assert_eq!(s, 201);
    assert_eq!(chat["status"], "running");
    assert_eq!(chat["organization_id"], ORG);
    assert_eq!(chat["client_type"], "api");
    assert_eq!(chat["id"].as_str().unwrap().len(), 36);
    assert!(chat["last_error"].is_null() && chat["archived"] == false);

    let mut no_org = create_body("x", &[]);
    no_org.as_object_mut().unwrap().remove("organization_id");
    assert_eq!(
        post(a, P, no_org).await,
        (400, json!({ "message": "organization_id is required." }))
    );
    let too_many: Vec<String> = (0..251).map(|i| format!("t{i}")).collect();
    let refs: Vec<&str> = too_many.iter().map(String::as_str).collect();
    assert_eq!(
        post(a, P, create_body("x", &refs)).await,
        (
            400,
            json!({ "message": "Too many dynamic tools.",
                "detail": "Maximum 250 dynamic tools per chat." })
        )
    );
    assert_eq!(
        post(a, P, create_body("x", &["a", ""])).await,
        (
            400,
            json!({ "message": "Dynamic tool name must not be empty." })
        )
    );
    assert_eq!(
        post(a, P, create_body("x", &["x", "x"])).await,
        (
            400,
            json!({ "message": "Duplicate dynamic tool name.",
                "detail": "Tool \"x\" appears more than once." })
        )
    );
    let (s, body) = call(a, "POST", P, Some(b"{nope")).await;
    assert_eq!(
        (s, &body["message"]),
        (400, &json!("Request body must be valid JSON."))
    );
    // The experimental prefix serves the same chats; chat routes send no CORS headers.
    let id = chat["id"].as_str().unwrap();
    let mut c = get(a, &format!("/api/experimental/chats/{id}")).await;
    assert_eq!(c.status, 200);
    assert!(c.header("access-control-allow-origin").is_none());
    assert_eq!(c.json().await["id"], id);
    assert_eq!(
        call(
            a,
            "GET",
            &format!("{P}/c0de0000-0000-4000-8000-999999999999"),
            None
        )
        .await,
        (
            404,
            json!({ "message": "Resource not found or you do not have access to this resource" })
        )
    );
}

// ---- the status machine and the stream --------------------------------------------------------------

#[tokio::test]
async fn one_dynamic_call_pauses_the_turn_and_tool_results_resume_it() {
    let server = start().await;
    let a = server.addr;
    let (id, mut s) = idle_chat(
        a,
        "weather please",
        &["get_weather"],
        json!([
            { "text": ["Let me ", "check."],
              "calls": [{ "id": "toolu_A", "name": "get_weather", "args": { "city": "Paris" } }] },
            { "quote": true }
        ]),
    )
    .await;
    assert_eq!(say(a, &id, "and in Paris?").await.0, 200);
    let events = until(&mut s, |e| e["type"] == "action_required").await;
    assert_eq!(
        types(&events),
        [
            "message:user",
            "status:running",
            "message_part",
            "message_part",
            "message_part",
            "message_part",
            "message_part",
            "message_part",
            "message:assistant",
            "status:requires_action",
            "action_required"
        ]
    );
    let parts: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "message_part")
        .map(|e| &e["message_part"])
        .collect();
    let seqs: Vec<u64> = parts.iter().map(|p| p["seq"].as_u64().unwrap()).collect();
    assert_eq!(
        seqs,
        [1, 2, 3, 4, 5, 6],
        "seq starts at 1, contiguous per generation"
    );
    assert!(parts.iter().all(
        |p| p["history_version"] == parts[0]["history_version"] && p["generation_attempt"] == 1
    ));
    assert_eq!(
        parts[0]["part"],
        json!({ "type": "text", "text": "Let me " })
    );
    let deltas: String = parts[2..5]
        .iter()
        .map(|p| p["part"]["args_delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, r#"{"city":"Paris"}"#);
    assert_eq!(parts[5]["part"]["args"], json!({ "city": "Paris" }));
    let assistant = &events[8]["message"];
    assert_eq!(
        assistant["content"],
        json!([{ "type": "text", "text": "Let me check." },
            { "type": "tool-call", "tool_call_id": "toolu_A", "tool_name": "get_weather",
              "args": { "city": "Paris" } }])
    );
    assert_eq!(
        events[10]["action_required"],
        json!({ "tool_calls": [{ "tool_call_id": "toolu_A", "tool_name": "get_weather",
            "args": "{\"city\":\"Paris\"}" }] })
    );
    // GET chat and messages show the pause (a reload in requires_action).
    let (_, chat) = call(a, "GET", &format!("{P}/{id}"), None).await;
    assert_eq!(chat["status"], "requires_action");
    let (_, page) = call(a, "GET", &format!("{P}/{id}/messages"), None).await;
    assert_eq!(page["messages"][0]["id"], assistant["id"], "newest first");

    let (st, body) = results(
        a,
        &id,
        json!({ "results": [{ "tool_call_id": "toolu_A", "output": { "temp_c": 18 } }] }),
    )
    .await;
    assert_eq!((st, body), (204, Value::Null));
    let events = until(&mut s, is_status("waiting")).await;
    let t = types(&events);
    assert_eq!(&t[..2], ["message:tool", "status:running"]);
    assert_eq!(&t[t.len() - 2..], ["message:assistant", "status:waiting"]);
    let tool_msg = &events[0]["message"];
    assert_eq!(
        tool_msg["created_by"],
        "a1b2c3d4-0000-4000-8000-000000000001"
    );
    assert_eq!(
        tool_msg["content"],
        json!([{ "type": "tool-result", "tool_call_id": "toolu_A", "tool_name": "get_weather",
            "result": { "temp_c": 18 }, "is_error": false }])
    );
    assert_eq!(
        events[t.len() - 2]["message"]["content"][0]["text"],
        r#"I got: get_weather(toolu_A) = {"temp_c":18}."#
    );
    let r = record(a, &id).await;
    assert_eq!(r["toolResultPostCount"], 1);
    assert_eq!(r["toolResultsAccepted"], 1);
    assert_eq!(
        r["toolResultPosts"][0]["body"]["results"][0]["tool_call_id"],
        "toolu_A"
    );
}

#[tokio::test]
async fn parallel_calls_with_a_builtin_pause_on_the_dynamic_ones_only() {
    let server = start().await;
    let a = server.addr;
    setup(
        a,
        json!({ "turns": [
            { "calls": [
                { "id": "c1", "name": "get_weather", "args": { "city": "Oslo" } },
                { "id": "c2", "name": "search_docs", "builtin": true, "args": { "query": "q" },
                  "result": { "hits": 0 } },
                { "id": "c3", "name": "get_browser_time" } ] },
            { "quote": true } ] }),
    )
    .await;
    let id = create(a, "go", &["get_weather", "get_browser_time"]).await;
    let r = wait_status(a, &id, "requires_action").await;
    let roles: Vec<&str> = r["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "tool"],
        "the built-in ran first"
    );
    assert_eq!(
        r["messages"][2]["content"][0]["result"],
        json!({ "hits": 0 })
    );
    let pending: Vec<&str> = r["pendingCalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(pending, ["c1", "c3"]);
    let mut s = ws(a, &id).await;
    let snap = until(&mut s, |e| e["type"] == "preview_reset").await;
    let ar = snap
        .iter()
        .find(|e| e["type"] == "action_required")
        .unwrap();
    assert_eq!(
        ar["action_required"]["tool_calls"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // One POST answers both (order free); an error result and a JSON-string output.
    let (st, _) = results(
        a,
        &id,
        json!({ "results": [
            { "tool_call_id": "c3", "output": "Tool is disabled", "is_error": true },
            { "tool_call_id": "c1", "output": { "temp": 3 } } ] }),
    )
    .await;
    assert_eq!(st, 204);
    let r = wait_status(a, &id, "waiting").await;
    let last = r["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last["content"][0]["text"],
        r#"I got: search_docs(c2) = {"hits":0}; get_browser_time(c3) failed: "Tool is disabled"; get_weather(c1) = {"temp":3}."#
    );
}

#[tokio::test]
async fn tool_results_are_checked_in_the_handlers_order() {
    let server = start().await;
    let a = server.addr;
    setup(
        a,
        json!({ "turns": [{ "calls": [
            { "id": "A", "name": "t1" }, { "id": "B", "name": "t2" } ] }] }),
    )
    .await;
    let id = create(a, "two", &["t1", "t2"]).await;
    // Empty results are refused whatever the status (the check comes before the status's).
    assert_eq!(
        results(a, &id, json!({ "results": [] })).await,
        (
            400,
            json!({ "message": "At least one tool result is required." })
        )
    );
    wait_status(a, &id, "requires_action").await;
    let path = format!("{P}/{id}/tool-results");
    let (s, b) = call(a, "POST", &path, Some(b"not json")).await;
    assert_eq!(
        (s, &b["message"]),
        (400, &json!("Request body must be valid JSON."))
    );
    assert_eq!(
        results(a, &id, json!({})).await,
        (
            400,
            json!({ "message": "At least one tool result is required." })
        )
    );
    let cases = [
        (
            json!([{ "tool_call_id": "A", "output": 1 }, { "tool_call_id": "A" }]),
            "Duplicate tool_call_id in results.",
            "Duplicate tool call ID \"A\".",
        ),
        (
            json!([{ "tool_call_id": "A" }, { "tool_call_id": "A", "output": 1 }]),
            "Tool result output must be valid JSON.",
            "Output for tool call \"A\" is not valid JSON.",
        ),
        (
            json!([{ "tool_call_id": "Z", "output": 1 }]),
            "Missing tool result.",
            "Missing result for tool call \"A\".",
        ),
        (
            json!([{ "tool_call_id": "A", "output": 1 }]),
            "Missing tool result.",
            "Missing result for tool call \"B\".",
        ),
        (
            json!([{ "tool_call_id": "A", "output": null }, { "tool_call_id": "B", "output": 2 },
                { "tool_call_id": "C", "output": 3 }]),
            "Unexpected tool result.",
            "No pending tool call with ID \"C\".",
        ),
    ];
    for (items, message, detail) in cases {
        assert_eq!(
            results(a, &id, json!({ "results": items })).await,
            (400, json!({ "message": message, "detail": detail })),
            "{items}"
        );
    }
    let ok = json!({ "results": [{ "tool_call_id": "A", "output": null },
        { "tool_call_id": "B", "output": [1] }] });
    assert_eq!(results(a, &id, ok.clone()).await.0, 204);
    // First POST wins; the same body again is a 409 naming the status it found.
    let (s, b) = results(a, &id, ok).await;
    assert_eq!(
        (s, &b["message"]),
        (409, &json!("Chat is not waiting for tool results."))
    );
    let detail = b["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("chat status is \"")
            && detail.ends_with(", expected \"requires_action\""),
        "{detail}"
    );
    let r = record(a, &id).await;
    assert_eq!(r["toolResultPostCount"], 10);
    assert_eq!(r["toolResultsAccepted"], 1);
    // Archived chats are refused before the body is read.
    setup(a, json!({ "chatId": id, "archived": true })).await;
    let (s, b) = call(a, "POST", &path, Some(b"garbage")).await;
    assert_eq!(
        (s, b),
        (
            400,
            json!({ "message": "Cannot submit tool results to an archived chat." })
        )
    );
    assert_eq!(
        results(a, "c0de0000-0000-4000-8000-999999999999", json!({}))
            .await
            .0,
        404
    );
}

#[tokio::test]
async fn the_deadline_writes_timeout_results_and_a_late_post_gets_409() {
    let server = start_with(CoderConfig {
        deadline_ms: 60_000,
        ..CoderConfig::default()
    })
    .await;
    let a = server.addr;
    setup(
        a,
        json!({ "deadlineMs": 30, "turns": [{ "calls": [{ "id": "slow", "name": "ask_user" }] }] }),
    )
    .await;
    let id = create(a, "ask", &["ask_user"]).await;
    let r = wait_status(a, &id, "waiting").await;
    let msgs = r["messages"].as_array().unwrap();
    let synthetic = &msgs[2];
    assert_eq!(synthetic["role"], "tool");
    assert!(synthetic.get("created_by").is_none(), "{synthetic}");
    assert_eq!(
        synthetic["content"],
        json!([{ "type": "tool-result", "tool_call_id": "slow", "tool_name": "ask_user",
            "result": "Tool execution timed out", "is_error": true }])
    );
    assert_eq!(
        msgs[3]["content"][0]["text"],
        r#"I got: ask_user(slow) failed: "Tool execution timed out"."#
    );
    let (s, b) = results(
        a,
        &id,
        json!({ "results": [{ "tool_call_id": "slow", "output": 1 }] }),
    )
    .await;
    assert_eq!(
        (s, b),
        (
            409,
            json!({ "message": "Chat is not waiting for tool results.",
                "detail": "chat status is \"waiting\", expected \"requires_action\"" })
        )
    );
}

#[tokio::test]
async fn interrupt_at_requires_action_goes_on_and_a_second_one_stops_the_turn() {
    let server = start().await;
    let a = server.addr;
    setup(
        a,
        json!({ "turns": [
            { "calls": [{ "id": "k", "name": "slow_tool" }] },
            { "delayMs": 30000, "text": "never" } ] }),
    )
    .await;
    let id = create(a, "slow", &["slow_tool"]).await;
    wait_status(a, &id, "requires_action").await;
    let mut s = ws(a, &id).await;
    until(&mut s, |e| e["type"] == "preview_reset").await;
    let (st, chat) = post(a, &format!("{P}/{id}/interrupt"), json!(null)).await;
    assert_eq!((st, &chat["status"]), (200, &json!("running")));
    let events = until(&mut s, is_status("running")).await;
    assert_eq!(types(&events), ["message:tool", "status:running"]);
    assert_eq!(
        events[0]["message"]["content"][0]["result"],
        "Tool execution interrupted by user"
    );
    let (st, chat) = post(a, &format!("{P}/{id}/interrupt"), json!(null)).await;
    assert_eq!((st, &chat["status"]), (200, &json!("interrupting")));
    let events = until(&mut s, is_status("waiting")).await;
    assert_eq!(types(&events), ["status:interrupting", "status:waiting"]);
    assert_eq!(
        post(a, &format!("{P}/{id}/interrupt"), json!(null)).await,
        (
            409,
            json!({ "message": "Chat is not in an interruptible state." })
        )
    );
    let froms: Vec<Value> = record(a, &id).await["interrupts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| json!([i["from"], i["status"]]))
        .collect();
    assert_eq!(
        froms,
        [
            json!(["requires_action", 200]),
            json!(["running", 200]),
            json!(["waiting", 409])
        ]
    );
    // A late POST after the interrupt closed the calls: 409.
    assert_eq!(
        results(
            a,
            &id,
            json!({ "results": [{ "tool_call_id": "k", "output": 1 }] })
        )
        .await
        .0,
        409
    );
}

#[tokio::test]
async fn the_pending_era_sets_pending_after_a_submit_and_waiting_after_an_interrupt() {
    let server = start().await;
    let a = server.addr;
    setup(
        a,
        json!({ "era": "pending", "turns": [
            { "calls": [{ "id": "p1", "name": "t" }] }, { "text": "ok" },
            { "calls": [{ "id": "p2", "name": "t" }] } ] }),
    )
    .await;
    let id = create(a, "era", &["t"]).await;
    wait_status(a, &id, "requires_action").await;
    let mut s = ws(a, &id).await;
    until(&mut s, |e| e["type"] == "preview_reset").await;
    results(
        a,
        &id,
        json!({ "results": [{ "tool_call_id": "p1", "output": 1 }] }),
    )
    .await;
    let events = until(&mut s, is_status("waiting")).await;
    let t = types(&events);
    assert_eq!(
        &t[..3],
        ["message:tool", "status:pending", "status:running"]
    );
    say(a, &id, "again").await;
    until(&mut s, |e| e["type"] == "action_required").await;
    let (_, chat) = post(a, &format!("{P}/{id}/interrupt"), json!(null)).await;
    assert_eq!(chat["status"], "waiting");
}

#[tokio::test]
async fn messages_page_newest_first_and_queue_while_busy() {
    let server = start().await;
    let a = server.addr;
    let (id, mut s) = idle_chat(
        a,
        "queue",
        &["t"],
        json!([{ "calls": [{ "id": "q1", "name": "t" }] }, { "text": "after" }, { "text": "queued answer" }]),
    )
    .await;
    say(a, &id, "call it").await;
    until(&mut s, |e| e["type"] == "action_required").await;
    let (st, body) = say(a, &id, "later").await;
    assert_eq!((st, &body["queued"]), (200, &json!(true)));
    assert_eq!(body["queued_message"]["content"][0]["text"], "later");
    let events = until(&mut s, |e| e["type"] == "queue_update").await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        call(a, "GET", &format!("{P}/{id}"), None).await.1["status"],
        "requires_action",
        "a queued message leaves the chat waiting for the results"
    );
    let (bad, _) = post(
        a,
        &format!("{P}/{id}/messages"),
        json!({ "content": [{ "type": "text", "text": "x" }], "busy_behavior": "later" }),
    )
    .await;
    assert_eq!(bad, 400);
    results(
        a,
        &id,
        json!({ "results": [{ "tool_call_id": "q1", "output": 1 }] }),
    )
    .await;
    let events = until(&mut s, is_status("waiting")).await;
    let t = types(&events);
    assert!(
        t.windows(2).any(|w| w == ["message:user", "queue_update"]),
        "the queued message is promoted: {t:?}"
    );
    // Pages: newest first; only after_id: ascending; limit and has_more.
    let all = record(a, &id).await["messages"].clone();
    let ids: Vec<i64> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    let (_, page) = call(a, "GET", &format!("{P}/{id}/messages?limit=2"), None).await;
    let got: Vec<i64> = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(got, [ids[ids.len() - 1], ids[ids.len() - 2]]);
    assert_eq!(page["has_more"], true);
    assert_eq!(page["queued_messages"], json!([]));
    let (_, page) = call(
        a,
        "GET",
        &format!("{P}/{id}/messages?after_id={}&limit=2", ids[0]),
        None,
    )
    .await;
    let got: Vec<i64> = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    assert_eq!(got, [ids[1], ids[2]]);
    let (_, page) = call(
        a,
        "GET",
        &format!("{P}/{id}/messages?before_id={}", ids[2]),
        None,
    )
    .await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 2);
    assert!(page.get("queued_messages").is_none());
}

#[tokio::test]
async fn the_snapshot_honours_after_id_and_resends_action_required_on_reconnect() {
    let server = start().await;
    let a = server.addr;
    setup(
        a,
        json!({ "turns": [{ "text": "x", "calls": [{ "id": "r1", "name": "t" }] }] }),
    )
    .await;
    let id = create(a, "snap", &["t"]).await;
    let r = wait_status(a, &id, "requires_action").await;
    let first = r["messages"][0]["id"].as_i64().unwrap();
    let mut s = ws_with(a, &format!("{P}/{id}/stream?after_id={first}"), &[])
        .await
        .unwrap();
    let snap = until(&mut s, |e| e["type"] == "preview_reset").await;
    assert_eq!(
        types(&snap),
        [
            "message:assistant",
            "status:requires_action",
            "action_required",
            "preview_reset"
        ]
    );
    // A forced drop closes the socket without a close frame; a reconnect gets the calls again.
    let (_, d) = post(a, "/test/coder/drop", json!({ "chatId": id })).await;
    assert_eq!(d["dropped"], 1);
    assert!(frame(&mut s).await.is_none());
    let mut s = ws(a, &id).await;
    let snap = until(&mut s, |e| e["type"] == "preview_reset").await;
    assert_eq!(
        types(&snap),
        [
            "message:user",
            "message:assistant",
            "status:requires_action",
            "action_required",
            "preview_reset"
        ]
    );
    assert_eq!(record(a, &id).await["streams"]["opened"], 2);
    assert_eq!(
        call(a, "GET", &format!("{P}/{id}/stream?after_id=x"), None).await,
        (
            400,
            json!({ "message": "Invalid after_id parameter.",
                "detail": "strconv.ParseInt: parsing \"x\": invalid syntax" })
        )
    );
}

#[tokio::test]
async fn drop_after_requires_action_cuts_the_stream_before_action_required() {
    let server = start().await;
    let a = server.addr;
    let (id, mut s) = idle_chat(
        a,
        "cut",
        &["t"],
        json!([{ "calls": [{ "id": "d1", "name": "t" }] }]),
    )
    .await;
    setup(a, json!({ "chatId": id, "dropAfter": ["requires_action"] })).await;
    say(a, &id, "go").await;
    let mut seen = Vec::new();
    while let Some(f) = frame(&mut s).await {
        seen.extend(f.as_array().unwrap().iter().cloned());
    }
    let t = types(&seen);
    assert_eq!(t.last().unwrap(), "status:requires_action", "{t:?}");
    assert!(!t.contains(&"action_required".to_string()));
    // The messages page has the pending call (the REST fallback).
    let (_, page) = call(a, "GET", &format!("{P}/{id}/messages"), None).await;
    assert_eq!(page["messages"][0]["content"][0]["tool_call_id"], "d1");
}

#[tokio::test]
async fn legacy_envelopes_frame_batches_and_ping() {
    let server = start().await;
    let a = server.addr;
    setup(
        a,
        json!({ "framing": "envelope", "pingMs": 20, "turns": [{ "text": "hi" }] }),
    )
    .await;
    let id = create(a, "legacy", &[]).await;
    wait_status(a, &id, "waiting").await;
    let mut s = ws(a, &id).await;
    assert_eq!(frame(&mut s).await.unwrap(), json!({ "type": "ping" }));
    let snap = frame(&mut s).await.unwrap();
    assert_eq!(snap["type"], "data");
    let events = snap["data"].as_array().unwrap();
    assert_eq!(events.last().unwrap()["type"], "preview_reset");
    assert_eq!(frame(&mut s).await.unwrap(), json!({ "type": "ping" }));
    setup(a, json!({ "chatId": id, "framing": "envelope-single" })).await;
    let mut s = ws(a, &id).await;
    assert_eq!(frame(&mut s).await.unwrap(), json!({ "type": "ping" }));
    let one = frame(&mut s).await.unwrap();
    assert_eq!(one["type"], "data");
    assert_eq!(one["data"]["type"], "message", "one event per envelope");
}

#[tokio::test]
async fn injected_events_and_a_failing_step_surface_as_error() {
    let server = start().await;
    let a = server.addr;
    setup(
        a,
        json!({ "turns": [{ "error": { "message": "Provider overloaded", "kind": "overloaded",
            "retryable": true, "provider": "anthropic", "statusCode": 529 } }] }),
    )
    .await;
    let id = create(a, "fail", &[]).await;
    let r = wait_status(a, &id, "error").await;
    let err = json!({ "message": "Provider overloaded", "kind": "overloaded", "retryable": true,
        "provider": "anthropic", "status_code": 529 });
    assert_eq!(r["chat"]["last_error"], err);
    let mut s = ws(a, &id).await;
    let snap = until(&mut s, |e| e["type"] == "preview_reset").await;
    assert_eq!(
        types(&snap),
        ["message:user", "status:error", "error", "preview_reset"]
    );
    assert_eq!(snap[2]["error"], err);
    // A new message restarts the chat; an injected error, reset and retry arrive live.
    say(a, &id, "again").await;
    until(&mut s, is_status("waiting")).await;
    let (st, _) = post(
        a,
        "/test/coder/inject",
        json!({ "chatId": id, "events": [
            { "type": "retry", "retry": { "attempt": 1, "delay_ms": 10 } },
            { "type": "preview_reset" },
            { "type": "history_reset" },
            { "type": "error", "error": { "message": "m", "kind": "rate_limit" } } ] }),
    )
    .await;
    assert_eq!(st, 200);
    let events = until(&mut s, |e| e["type"] == "error").await;
    let t = types(&events);
    assert_eq!(&t[..3], ["retry", "preview_reset", "history_reset"]);
    assert_eq!(t.iter().filter(|t| t.starts_with("message:")).count(), 3);
    assert_eq!(&t[t.len() - 2..], ["status:error", "error"]);
    assert_eq!(
        events.last().unwrap()["error"],
        json!({ "message": "m", "kind": "rate_limit", "retryable": false })
    );
}

#[tokio::test]
async fn a_client_data_frame_closes_the_stream_with_policy_violation() {
    let server = start().await;
    let a = server.addr;
    let id = create(a, "one way", &[]).await;
    let mut s = ws(a, &id).await;
    until(&mut s, |e| e["type"] == "preview_reset").await;
    s.send(Message::Text("hello".into())).await.unwrap();
    loop {
        match tokio::time::timeout(Duration::from_secs(10), s.next())
            .await
            .unwrap()
        {
            Some(Ok(Message::Close(Some(f)))) => {
                assert_eq!(u16::from(f.code), 1008);
                break;
            }
            Some(Ok(_)) => {}
            other => panic!("expected a close frame, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_session_token_is_required_when_configured() {
    let server = start_with(CoderConfig {
        token: Some("sekret".into()),
        ..CoderConfig::default()
    })
    .await;
    let a = server.addr;
    let (s, b) = post(a, P, create_body("x", &[])).await;
    assert_eq!(s, 401);
    assert_eq!(
        b["message"],
        "You are signed out or your session has expired. Please sign in again to continue."
    );
    let body = serde_json::to_vec(&create_body("x", &[])).unwrap();
    // A create with the token as the `Coder-Session-Token` header.
    let create_with = |token: &'static str| {
        let body = body.clone();
        async move {
            let headers = [
                ("Content-Type", "application/json"),
                ("Coder-Session-Token", token),
            ];
            Conn::open(a, "POST", P, &headers, &body).await
        }
    };
    let mut c = create_with("wrong").await;
    assert_eq!(c.status, 401);
    assert_eq!(c.json().await["detail"], "API key is invalid.");
    let mut c = create_with("sekret").await;
    assert_eq!(c.status, 201);
    let id = c.json().await["id"].as_str().unwrap().to_string();
    let c = Conn::open(
        a,
        "GET",
        &format!("{P}/{id}"),
        &[("Cookie", "a=b; coder_session_token=sekret")],
        b"",
    )
    .await;
    assert_eq!(c.status, 200);
    let stream = format!("{P}/{id}/stream");
    match ws_with(a, &stream, &[]).await {
        Err(WsError::Http(res)) => assert_eq!(res.status(), 401),
        other => panic!("expected 401, got {:?}", other.map(|_| ())),
    }
    assert!(
        ws_with(a, &format!("{stream}?coder_session_token=sekret"), &[])
            .await
            .is_ok()
    );
    // The control API changes the token at run time.
    post(a, "/test/coder/auth", json!({ "token": null })).await;
    assert_eq!(call(a, "GET", &format!("{P}/{id}"), None).await.0, 200);
}

#[tokio::test]
async fn a_cross_origin_upgrade_is_refused() {
    let server = start().await;
    let a = server.addr;
    let id = create(a, "origin", &[]).await;
    let path = format!("{P}/{id}/stream");
    match ws_with(a, &path, &[("Origin", "http://evil.example")]).await {
        Err(WsError::Http(res)) => assert_eq!(res.status(), 403),
        other => panic!("expected 403, got {:?}", other.map(|_| ())),
    }
    let same = format!("http://{a}");
    assert!(ws_with(a, &path, &[("Origin", &same)]).await.is_ok());
}

#[tokio::test]
async fn without_a_script_the_demo_rules_call_declared_tools() {
    let server = start().await;
    let a = server.addr;
    let id = create(
        a,
        "What time is it? Search the docs too.",
        &["get_browser_time"],
    )
    .await;
    let r = wait_status(a, &id, "requires_action").await;
    let msgs = r["messages"].as_array().unwrap();
    let calls: Vec<&str> = msgs[1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "tool-call")
        .map(|p| p["tool_name"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["get_browser_time", "search_docs"]);
    assert_eq!(msgs[2]["role"], "tool", "search_docs ran on the server");
    let call_id = r["pendingCalls"][0]["tool_call_id"]
        .as_str()
        .unwrap()
        .to_string();
    results(
        a,
        &id,
        json!({ "results": [{ "tool_call_id": call_id, "output": "10:42" }] }),
    )
    .await;
    let r = wait_status(a, &id, "waiting").await;
    let text = r["messages"].as_array().unwrap().last().unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.starts_with("From the docs: "), "{text}");
    assert!(text.ends_with(" Your browser says it is 10:42."), "{text}");
    // A tool the chat did not declare is not called.
    let id = create(a, "What's the weather in Rome?", &[]).await;
    let r = wait_status(a, &id, "waiting").await;
    assert_eq!(
        r["messages"][1]["content"][0]["text"],
        "I can't check the weather: the get_weather tool is turned off. Turn it on in the Tools menu and ask again."
    );
}

// ---- what a real coderd does (contract section 9) ----------------------------------------------

/// A POST with the given headers: (status, content type, body text).
async fn post_with(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, String) {
    let mut h = vec![("Content-Type", "application/json")];
    h.extend_from_slice(headers);
    let mut c = Conn::open(addr, "POST", path, &h, body).await;
    let ct = c.header("content-type").unwrap_or("").to_string();
    (c.status, ct, c.text().await)
}

/// The `name=value` of a response's `Set-Cookie` for `name`.
fn set_cookie(c: &Conn, name: &str) -> Option<String> {
    c.headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("set-cookie"))
        .map(|(_, v)| v.split(';').next().unwrap_or("").to_string())
        .find(|v| v.starts_with(&format!("{name}=")))
}

#[tokio::test]
async fn csrf_refuses_cookie_posts_without_the_pages_token() {
    let dir = std::env::temp_dir().join(format!("coder-csrf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<!doctype html><head><title>t</title></head>",
    )
    .unwrap();
    let server = spawn(
        Config {
            mode: Mode::Script,
            pace_ms: 0,
            statics: vec![chat_runtime_agent::StaticMount::parse(dir.to_str().unwrap()).unwrap()],
            coder: CoderConfig {
                token: Some("sekret".into()),
                ..CoderConfig::default()
            },
            ..Config::default()
        },
        0,
    )
    .await
    .unwrap();
    let a = server.addr;
    let body = serde_json::to_vec(&create_body("csrf", &[])).unwrap();

    // Signing in sets the HttpOnly session cookie and redirects.
    let c = Conn::open(a, "GET", "/test/coder/login?token=sekret&to=/", &[], b"").await;
    assert_eq!(c.status, 303);
    assert_eq!(c.header("location"), Some("/"));
    assert_eq!(
        set_cookie(&c, "coder_session_token").as_deref(),
        Some("coder_session_token=sekret")
    );
    assert!(c
        .headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("set-cookie") && v.contains("HttpOnly")));

    // The signed-in page carries the token; the csrf_token cookie comes with it.
    let session = "coder_session_token=sekret";
    let mut page = Conn::open(a, "GET", "/", &[("Cookie", session)], b"").await;
    let csrf_cookie = set_cookie(&page, "csrf_token").expect("the csrf_token cookie");
    let html = page.text().await;
    let meta = html
        .split("<meta property=\"csrf-token\" content=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("the meta tag")
        .to_string();
    assert!(html.starts_with("<!doctype html><head><meta property=\"csrf-token\""));
    // A signed-out page is served as it is.
    let mut plain = Conn::open(a, "GET", "/", &[], b"").await;
    assert!(set_cookie(&plain, "csrf_token").is_none());
    assert!(!plain.text().await.contains("csrf-token"));

    let cookies = format!("{session}; {csrf_cookie}");
    // Cookie only: 400 text/plain.
    let (s, ct, text) = post_with(a, P, &[("Cookie", &cookies)], &body).await;
    assert_eq!((s, ct.as_str()), (400, "text/plain; charset=utf-8"));
    assert!(
        text.starts_with("Something is wrong with your CSRF token."),
        "{text}"
    );
    // A wrong token, or the right token without its cookie: the same.
    let (s, _, _) = post_with(
        a,
        P,
        &[("Cookie", &cookies), ("X-CSRF-TOKEN", "AAAA")],
        &body,
    )
    .await;
    assert_eq!(s, 400);
    let (s, _, _) = post_with(a, P, &[("Cookie", session), ("X-CSRF-TOKEN", &meta)], &body).await;
    assert_eq!(s, 400);
    // A header token that differs from the cookie's.
    let (s, _, text) = post_with(
        a,
        P,
        &[("Cookie", &cookies), ("Coder-Session-Token", "other")],
        &body,
    )
    .await;
    assert_eq!(s, 400);
    assert!(text.starts_with("CSRF error encountered. Authentication via \"coder_session_token\" cookie and \"Coder-Session-Token\" header detected, but the values do not match."), "{text}");
    // Exempt: the page's token; the same token as header or query; no session cookie.
    let (s, _, text) = post_with(
        a,
        P,
        &[("Cookie", &cookies), ("X-CSRF-TOKEN", &meta)],
        &body,
    )
    .await;
    assert_eq!(s, 201, "{text}");
    let id = serde_json::from_str::<Value>(&text).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (s, _, _) = post_with(
        a,
        P,
        &[("Cookie", &cookies), ("Coder-Session-Token", "sekret")],
        &body,
    )
    .await;
    assert_eq!(s, 201);
    let (s, _, _) = post_with(
        a,
        &format!("{P}?coder_session_token=sekret"),
        &[("Cookie", &cookies)],
        &body,
    )
    .await;
    assert_eq!(s, 201);
    let (s, _, _) = post_with(a, P, &[("Coder-Session-Token", "sekret")], &body).await;
    assert_eq!(s, 201);
    // GETs and the stream's upgrade are never checked.
    let c = Conn::open(a, "GET", &format!("{P}/{id}"), &[("Cookie", &cookies)], b"").await;
    assert_eq!(c.status, 200);
    assert!(
        ws_with(a, &format!("{P}/{id}/stream"), &[("Cookie", &cookies)])
            .await
            .is_ok()
    );
    // The CSRF check comes before the API key: a wrong cookie without a token is still 400.
    let (s, _, _) = post_with(a, P, &[("Cookie", "coder_session_token=nope")], &body).await;
    assert_eq!(s, 400);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn sign_in_mode_signs_every_page_in() {
    let dir = std::env::temp_dir().join(format!("coder-signin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<p>no head</p>").unwrap();
    let server = spawn(
        Config {
            mode: Mode::Script,
            pace_ms: 0,
            statics: vec![chat_runtime_agent::StaticMount::parse(dir.to_str().unwrap()).unwrap()],
            coder: CoderConfig {
                token: Some("demo".into()),
                sign_in: true,
                ..CoderConfig::default()
            },
            ..Config::default()
        },
        0,
    )
    .await
    .unwrap();
    let mut page = Conn::open(server.addr, "GET", "/", &[], b"").await;
    assert_eq!(
        set_cookie(&page, "coder_session_token").as_deref(),
        Some("coder_session_token=demo")
    );
    assert!(set_cookie(&page, "csrf_token").is_some());
    assert!(page
        .text()
        .await
        .starts_with("<meta property=\"csrf-token\" content=\""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn bodies_over_256_kib_get_413() {
    let server = start().await;
    let a = server.addr;
    let mut big = create_body("big", &[]);
    big["unsafe_dynamic_tools"] = json!([{ "name": "t", "description": "x".repeat(262_144),
        "input_schema": { "type": "object" } }]);
    let (s, b) = post(a, P, big).await;
    assert_eq!(s, 413, "{b}");
    assert_eq!(b["message"], "Request body exceeds 256 KiB");
    let id = create(a, "small", &[]).await;
    let huge = json!({ "results": [{ "tool_call_id": "x", "output": "y".repeat(262_144) }] });
    let (s, b) = results(a, &id, huge).await;
    assert_eq!(s, 413, "{b}");
    assert_eq!(record(a, &id).await["toolResultPosts"][0]["status"], 413);
    // Just under the cap is read (and then judged on its content).
    let mut fits = create_body("fits", &[]);
    let room = 262_144 - serde_json::to_vec(&fits).unwrap().len() - 64;
    fits["labels"] = json!({ "pad": "z".repeat(room) });
    assert_eq!(post(a, P, fits).await.0, 201);
}

#[tokio::test]
async fn a_dynamic_tool_named_like_a_builtin_runs_on_the_server() {
    let server = start().await;
    let a = server.addr;
    setup(
        a,
        json!({ "match": "shadow", "turns": [
            { "calls": [{ "name": "read_file", "args": { "path": "/etc/x" }, "result": "file text" }] },
            { "quote": true }
        ] }),
    )
    .await;
    let id = create(a, "shadow", &["read_file", "get_weather"]).await;
    let r = wait_status(a, &id, "waiting").await;
    assert_eq!(r["actionRequiredSent"], false);
    assert_eq!(r["toolResultPostCount"], 0);
    let msgs = r["messages"].as_array().unwrap();
    let tool = msgs.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["content"][0]["tool_name"], "read_file");
    assert_eq!(tool["content"][0]["result"], "file text");
    let last = msgs.last().unwrap()["content"][0]["text"].as_str().unwrap();
    assert!(last.starts_with("I got: read_file("), "{last}");
}

#[tokio::test]
async fn refused_upgrades_answer_a_plain_get_with_their_status() {
    let server = start_with(CoderConfig {
        token: Some("t".into()),
        ..CoderConfig::default()
    })
    .await;
    let a = server.addr;
    let auth = [("Coder-Session-Token", "t")];
    let mut c = Conn::open(
        a,
        "POST",
        P,
        &[("Content-Type", "application/json"), auth[0]],
        &serde_json::to_vec(&create_body("up", &[])).unwrap(),
    )
    .await;
    let id = c.json().await["id"].as_str().unwrap().to_string();
    let stream = format!("{P}/{id}/stream");
    let get = |path: String, headers: Vec<(&'static str, &'static str)>| async move {
        let mut c = Conn::open(a, "GET", &path, &headers, b"").await;
        let status = c.status;
        (status, c.text().await)
    };
    assert_eq!(get(stream.clone(), vec![]).await.0, 401);
    let unknown = format!("{P}/c0de0000-0000-4000-8000-ffffffffffff/stream");
    assert_eq!(get(unknown, vec![auth[0]]).await.0, 404);
    assert_eq!(
        get(format!("{stream}?after_id=x"), vec![auth[0]]).await.0,
        400
    );
    assert_eq!(
        get(
            stream.clone(),
            vec![auth[0], ("Origin", "http://evil.example")]
        )
        .await
        .0,
        403
    );
    // A route that is fine answers the missing upgrade.
    let (s, text) = get(stream.clone(), vec![auth[0]]).await;
    assert_eq!(s, 426, "{text}");
    // The AI Gateway off: 503 on the stream and on what mutates; reads pass.
    post(a, "/test/coder/gateway", json!({ "enabled": false })).await;
    let (s, text) = get(stream.clone(), vec![auth[0]]).await;
    assert_eq!(s, 503);
    let b: Value = serde_json::from_str(&text).unwrap();
    assert!(b["message"]
        .as_str()
        .unwrap()
        .starts_with("AI Gateway must be enabled"));
    assert_eq!(get(format!("{P}/{id}"), vec![auth[0]]).await.0, 200);
    let msg = serde_json::to_vec(&json!({ "content": [{ "type": "text", "text": "x" }] })).unwrap();
    let c = Conn::open(
        a,
        "POST",
        &format!("{P}/{id}/messages"),
        &[("Content-Type", "application/json"), auth[0]],
        &msg,
    )
    .await;
    assert_eq!(c.status, 503);
    match ws_with(a, &format!("{stream}?coder_session_token=t"), &[]).await {
        Err(WsError::Http(res)) => assert_eq!(res.status(), 503),
        other => panic!("expected 503, got {:?}", other.map(|_| ())),
    }
    post(a, "/test/coder/gateway", json!({ "enabled": true })).await;
    assert!(ws_with(a, &format!("{stream}?coder_session_token=t"), &[])
        .await
        .is_ok());
}

#[tokio::test]
async fn a_restart_drops_every_socket_and_refuses_until_it_is_over() {
    let server = start().await;
    let a = server.addr;
    let (id, mut s) = idle_chat(a, "restart", &[], json!([])).await;
    let (st, b) = post(a, "/test/coder/restart", json!({ "ms": 400 })).await;
    assert_eq!((st, b["dropped"].as_u64()), (200, Some(1)));
    assert!(frame(&mut s).await.is_none(), "the socket is dropped");
    let c = Conn::open(a, "GET", &format!("{P}/{id}"), &[], b"").await;
    assert_eq!(c.status, 502);
    match ws_with(a, &format!("{P}/{id}/stream"), &[]).await {
        Err(WsError::Http(res)) => assert_eq!(res.status(), 502),
        other => panic!("expected 502, got {:?}", other.map(|_| ())),
    }
    assert_eq!(say(a, &id, "lost").await.0, 502);
    tokio::time::sleep(Duration::from_millis(450)).await;
    let mut s = ws(a, &id).await;
    let snap = until(&mut s, |e| e["type"] == "preview_reset").await;
    assert!(types(&snap).contains(&"status:waiting".to_string()));
    assert_eq!(say(a, &id, "back").await.0, 200);
}

#[tokio::test]
async fn a_quiet_turn_shows_its_messages_but_no_status() {
    let server = start().await;
    let a = server.addr;
    let (id, mut s) = idle_chat(
        a,
        "quiet",
        &[],
        json!([{ "text": "One." }, { "text": "Two." }]),
    )
    .await;
    setup(a, json!({ "chatId": id, "quietStatus": true })).await;
    assert_eq!(say(a, &id, "again").await.0, 200);
    let events = until(&mut s, |e| {
        e["type"] == "message" && e["message"]["role"] == "assistant"
    })
    .await;
    wait_status(a, &id, "waiting").await;
    assert_eq!(say(a, &id, "and again").await.0, 200);
    let more = until(&mut s, |e| {
        e["type"] == "message" && e["message"]["role"] == "assistant"
    })
    .await;
    let all: Vec<String> = types(&events).into_iter().chain(types(&more)).collect();
    assert!(!all.iter().any(|t| t.starts_with("status:")), "{all:?}");
    assert_eq!(all.iter().filter(|t| *t == "message:user").count(), 2);
    // A new connection is told the status.
    let mut again = ws(a, &id).await;
    let snap = until(&mut again, |e| e["type"] == "preview_reset").await;
    assert!(types(&snap).contains(&"status:waiting".to_string()));
}

#[tokio::test]
async fn content_is_trimmed_and_empty_parts_are_refused() {
    let server = start().await;
    let a = server.addr;
    let with = |content: Value| {
        let mut b = create_body("x", &[]);
        b["content"] = content;
        b
    };
    let (s, b) = post(a, P, with(json!([]))).await;
    assert_eq!(
        (s, &b["message"], &b["detail"]),
        (
            400,
            &json!("Content is required."),
            &json!("Content cannot be empty.")
        )
    );
    let (s, b) = post(a, P, with(json!([{ "type": "text", "text": " \n\t " }]))).await;
    assert_eq!(
        (s, &b["message"], &b["detail"]),
        (
            400,
            &json!("Invalid input part."),
            &json!("content[0].text cannot be empty.")
        )
    );
    let (s, b) = post(a, P, with(json!([{ "type": "image", "text": "x" }]))).await;
    assert_eq!(
        (s, &b["detail"]),
        (400, &json!("content[0].type \"image\" is not supported."))
    );
    let (s, chat) = post(
        a,
        P,
        with(json!([{ "type": "text", "text": "  Hello there  " }])),
    )
    .await;
    assert_eq!(s, 201);
    assert_eq!(chat["title"], "Hello there");
    let id = chat["id"].as_str().unwrap();
    let r = wait_status(a, id, "waiting").await;
    assert_eq!(r["messages"][0]["content"][0]["text"], "Hello there");
    let (s, b) = say(a, id, "   ").await;
    assert_eq!((s, &b["message"]), (400, &json!("Invalid input part.")));
    assert_eq!(
        record(a, id).await["messages"].as_array().unwrap().len(),
        r["messages"].as_array().unwrap().len()
    );
}

#[tokio::test]
async fn organization_id_must_decode_as_a_uuid() {
    let server = start().await;
    let a = server.addr;
    let with = |org: Value| {
        let mut b = create_body("org", &[]);
        b["organization_id"] = org;
        b
    };
    for bad in [
        json!("not-a-uuid"),
        json!("7c60d51f-b44e-4682-87d6-449835ea4de"),
        json!(7),
    ] {
        let (s, b) = post(a, P, with(bad.clone())).await;
        assert_eq!(
            (s, &b["message"]),
            (400, &json!("Request body must be valid JSON.")),
            "{bad}"
        );
    }
    for good in [
        "7C60D51F-B44E-4682-87D6-449835EA4DE6",
        "7c60d51fb44e468287d6449835ea4de6",
        "{7c60d51f-b44e-4682-87d6-449835ea4de6}",
        "urn:uuid:7c60d51f-b44e-4682-87d6-449835ea4de6",
    ] {
        assert_eq!(post(a, P, with(json!(good))).await.0, 201, "{good}");
    }
}

#[tokio::test]
async fn the_model_sees_only_top_level_properties_and_required() {
    let server = start().await;
    let a = server.addr;
    let mut body = create_body("schema", &[]);
    body["unsafe_dynamic_tools"] = json!([{ "name": "put", "description": "d", "input_schema": {
        "type": "object", "$defs": { "P": { "type": "string" } },
        "properties": { "p": { "$ref": "#/$defs/P" } }, "required": ["p"],
        "additionalProperties": false, "anyOf": [{ "required": ["p"] }] } }]);
    let (s, chat) = post(a, P, body).await;
    assert_eq!(s, 201);
    let r = record(a, chat["id"].as_str().unwrap()).await;
    assert_eq!(
        r["modelTools"],
        json!([{ "name": "put", "description": "d", "input_schema": { "type": "object",
            "properties": { "p": { "$ref": "#/$defs/P" } }, "required": ["p"] } }])
    );
}

#[tokio::test]
async fn creation_options_are_kept_and_checked_as_codersdk_decodes_them() {
    let server = start().await;
    let a = server.addr;
    let model = "11111111-2222-4333-8444-555555555555";
    let ws_id = "66666666-7777-4888-8999-aaaaaaaaaaaa";
    let mut body = create_body("options", &[]);
    body["model_config_id"] = json!(model);
    body["workspace_id"] = json!(ws_id);
    body["mcp_server_ids"] = json!([model]);
    body["plan_mode"] = json!("plan");
    body["system_prompt"] = json!("Be brief.");
    body["reasoning_effort"] = json!("low");
    body["labels"] = json!({ "app": "demo" });
    let (s, chat) = post(a, P, body.clone()).await;
    assert_eq!(s, 201, "{chat}");
    assert_eq!(chat["last_model_config_id"], model);
    assert_eq!(chat["workspace_id"], ws_id);
    assert_eq!(chat["mcp_server_ids"], json!([model]));
    assert_eq!(chat["plan_mode"], "plan");
    assert_eq!(chat["labels"], json!({ "app": "demo" }));
    let r = record(a, chat["id"].as_str().unwrap()).await;
    assert_eq!(r["createRequest"], body);
    for (k, v) in [
        ("model_config_id", json!("gpt-4")),
        ("workspace_id", json!(5)),
        ("mcp_server_ids", json!(["x"])),
        ("system_prompt", json!(["x"])),
        ("labels", json!({ "n": 1 })),
    ] {
        let mut b = create_body("bad option", &[]);
        b[k] = v;
        let (s, e) = post(a, P, b).await;
        assert_eq!(
            (s, &e["message"]),
            (400, &json!("Request body must be valid JSON.")),
            "{k}"
        );
    }
    let mut long = create_body("long prompt", &[]);
    long["system_prompt"] = json!("p".repeat(128 * 1024 + 1));
    assert_eq!(post(a, P, long).await.0, 400);
}

#[tokio::test]
async fn an_invalid_state_refuses_posts_until_reconcile_invalid() {
    let server = start().await;
    let a = server.addr;
    setup(
        a,
        json!({ "match": "invalid", "turns": [{ "calls": [{ "id": "i1", "name": "get_weather" }] }] }),
    )
    .await;
    let id = create(a, "invalid", &["get_weather"]).await;
    wait_status(a, &id, "requires_action").await;
    setup(a, json!({ "chatId": id, "invalidState": true })).await;
    let ok = json!({ "results": [{ "tool_call_id": "i1", "output": "x" }] });
    let (s, b) = results(a, &id, ok.clone()).await;
    assert_eq!(
        (s, &b["message"]),
        (409, &json!("Chat is in an invalid state."))
    );
    let (s, b) = say(a, &id, "hello").await;
    assert_eq!(
        (s, &b["message"]),
        (409, &json!("Chat is in an invalid state."))
    );
    let (s, chat) = post(a, &format!("{P}/{id}/reconcile-invalid"), json!({})).await;
    assert_eq!((s, &chat["status"]), (200, &json!("waiting")));
    let r = record(a, &id).await;
    let last = r["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last["content"][0]["result"],
        "Tool execution canceled due to invalid chat state"
    );
    assert_eq!(
        post(a, &format!("{P}/{id}/reconcile-invalid"), json!({}))
            .await
            .0,
        409
    );
    assert_eq!(say(a, &id, "hello").await.0, 200);
}

#[tokio::test]
async fn an_edited_chat_resends_its_whole_history_on_every_connect() {
    let server = start().await;
    let a = server.addr;
    let (id, _s) = idle_chat(a, "edited", &[], json!([])).await;
    let last = record(a, &id).await["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    setup(a, json!({ "chatId": id, "edited": true })).await;
    let mut s = ws_with(a, &format!("{P}/{id}/stream?after_id={last}"), &[])
        .await
        .unwrap();
    let snap = until(&mut s, |e| e["type"] == "preview_reset").await;
    let t = types(&snap);
    assert_eq!(t[0], "history_reset");
    assert_eq!(
        t.iter().filter(|t| t.starts_with("message:")).count(),
        2,
        "{t:?}"
    );
}

#[tokio::test]
async fn only_prefix_serves_one_prefix() {
    let server = start_with(CoderConfig {
        only_prefix: true,
        ..CoderConfig::default()
    })
    .await;
    let a = server.addr;
    assert_eq!(post(a, P, create_body("v2", &[])).await.0, 201);
    let (s, _) = post(a, "/api/experimental/chats", create_body("old", &[])).await;
    assert_eq!(s, 404);
    let both = start().await;
    let (s, _) = post(
        both.addr,
        "/api/experimental/chats",
        create_body("old", &[]),
    )
    .await;
    assert_eq!(s, 201);
}

#[tokio::test]
async fn hold_results_holds_a_tool_results_post_unanswered_and_unapplied() {
    let server = start().await;
    let a = server.addr;
    let (id, mut s) = idle_chat(
        a,
        "hold please",
        &["get_weather"],
        json!([
            { "calls": [{ "id": "toolu_H", "name": "get_weather", "args": {} }] },
            { "text": "Done." }
        ]),
    )
    .await;
    setup(a, json!({ "chatId": id, "holdResults": 1 })).await;
    assert_eq!(say(a, &id, "go").await.0, 200);
    until(&mut s, |e| e["type"] == "action_required").await;
    let body =
        json!({ "results": [{ "tool_call_id": "toolu_H", "output": "{}", "is_error": false }] });
    let held =
        tokio::time::timeout(Duration::from_millis(500), results(a, &id, body.clone())).await;
    assert!(held.is_err(), "the held POST is not answered");
    let r = record(a, &id).await;
    assert_eq!(r["chat"]["status"], "requires_action", "not applied");
    assert_eq!(r["toolResultPosts"][0]["held"], true);
    assert_eq!(r["toolResultPosts"][0]["status"], Value::Null);
    assert_eq!(r["toolResultPosts"][0]["body"], body);
    // The next one is answered as usual.
    assert_eq!(results(a, &id, body).await.0, 204);
    wait_status(a, &id, "waiting").await;
}
