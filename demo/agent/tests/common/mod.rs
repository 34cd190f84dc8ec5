//! Shared by the integration tests: a tiny raw HTTP/1.1 client (so the tests see every chunk the
//! server flushes and can drop a connection mid-response) and AG-UI stream checks.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

// ---- a tiny HTTP/1.1 client ----------------------------------------------------------------------

pub struct Conn {
    pub stream: TcpStream,
    pub buf: Vec<u8>,
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Conn {
    pub async fn open(
        addr: SocketAddr,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Conn {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if !body.is_empty() || method == "POST" {
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        stream.write_all(req.as_bytes()).await.unwrap();
        stream.write_all(body).await.unwrap();
        let mut conn = Conn {
            stream,
            buf: Vec::new(),
            status: 0,
            headers: Vec::new(),
        };
        conn.read_head().await;
        conn
    }

    /// Reads more bytes into the buffer; false on EOF.
    pub async fn fill(&mut self) -> bool {
        let mut tmp = [0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut tmp))
            .await
            .expect("read timed out")
            .unwrap();
        self.buf.extend_from_slice(&tmp[..n]);
        n > 0
    }

    pub async fn read_line(&mut self) -> String {
        loop {
            if let Some(i) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = String::from_utf8(self.buf[..i].to_vec()).unwrap();
                self.buf.drain(..i + 2);
                return line;
            }
            assert!(self.fill().await, "EOF inside a line");
        }
    }

    pub async fn read_head(&mut self) {
        let status_line = self.read_line().await;
        self.status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        loop {
            let line = self.read_line().await;
            if line.is_empty() {
                break;
            }
            let (k, v) = line.split_once(':').unwrap();
            self.headers
                .push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn chunked(&self) -> bool {
        self.header("transfer-encoding")
            .is_some_and(|v| v.contains("chunked"))
    }

    /// Next chunk of a chunked body (`None` at the terminating chunk).
    pub async fn next_chunk(&mut self) -> Option<Vec<u8>> {
        assert!(self.chunked());
        let size_line = self.read_line().await;
        let size = usize::from_str_radix(size_line.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            return None;
        }
        while self.buf.len() < size + 2 {
            assert!(self.fill().await, "EOF inside a chunk");
        }
        let data = self.buf[..size].to_vec();
        self.buf.drain(..size + 2);
        Some(data)
    }

    /// The whole body (chunked, Content-Length, or up to EOF), and how many chunks it came in.
    pub async fn body(&mut self) -> (Vec<u8>, usize) {
        if self.chunked() {
            let mut all = Vec::new();
            let mut n = 0;
            while let Some(c) = self.next_chunk().await {
                all.extend(c);
                n += 1;
            }
            return (all, n);
        }
        if let Some(len) = self
            .header("content-length")
            .map(|v| v.parse::<usize>().unwrap())
        {
            while self.buf.len() < len {
                assert!(self.fill().await, "EOF before Content-Length");
            }
            return (self.buf[..len].to_vec(), 1);
        }
        while self.fill().await {}
        (std::mem::take(&mut self.buf), 1)
    }

    pub async fn text(&mut self) -> String {
        String::from_utf8(self.body().await.0).unwrap()
    }

    pub async fn json(&mut self) -> Value {
        serde_json::from_slice(&self.body().await.0).unwrap()
    }
}

pub async fn get(addr: SocketAddr, path: &str) -> Conn {
    Conn::open(addr, "GET", path, &[], b"").await
}

pub async fn post_json(addr: SocketAddr, path: &str, body: Value) -> Conn {
    let bytes = serde_json::to_vec(&body).unwrap();
    Conn::open(
        addr,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        &bytes,
    )
    .await
}

pub async fn script(addr: SocketAddr, thread: &str, responses: Value) {
    let mut c = post_json(
        addr,
        "/test/script",
        json!({ "threadId": thread, "responses": responses }),
    )
    .await;
    let status = c.status;
    assert_eq!(status, 200, "{}", c.text().await);
}

pub async fn run(addr: SocketAddr, thread: &str, body: Value) -> Conn {
    let bytes = serde_json::to_vec(&body).unwrap();
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "text/event-stream"),
    ];
    Conn::open(
        addr,
        "POST",
        &format!("/api/threads/{thread}/runs"),
        &headers,
        &bytes,
    )
    .await
}

pub async fn aborted(addr: SocketAddr, thread: &str) -> u64 {
    get(addr, &format!("/test/aborted?threadId={thread}"))
        .await
        .json()
        .await["aborted"]
        .as_u64()
        .unwrap()
}

// ---- AG-UI streams -------------------------------------------------------------------------------

/// The JSON events of an SSE body (`data: <json>\n\n` frames, each possibly after `retry:` and
/// `id:` lines).
pub fn sse_events(body: &str) -> Vec<Value> {
    assert!(
        body.ends_with("\n\n"),
        "stream ends with a complete frame: {body:?}"
    );
    body.split("\n\n")
        .filter(|f| !f.is_empty())
        .map(|f| {
            let data = f
                .lines()
                .find_map(|line| line.strip_prefix("data: "))
                .unwrap_or_else(|| panic!("not a data frame: {f:?}"));
            serde_json::from_str(data).unwrap_or_else(|e| panic!("bad JSON {data:?}: {e}"))
        })
        .collect()
}

/// Panics on a `null` anywhere in `v` (optional fields are omitted, never null).
pub fn assert_no_null(v: &Value, path: &str) {
    match v {
        Value::Null => panic!("null at {path}"),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| assert_no_null(x, &format!("{path}[{i}]"))),
        Value::Object(o) => o
            .iter()
            .for_each(|(k, x)| assert_no_null(x, &format!("{path}.{k}"))),
        _ => {}
    }
}

/// The AG-UI ordering rules (@ag-ui/client verifyEvents) for one run, plus "no null anywhere":
/// RUN_STARTED first; TEXT_MESSAGE_* / TOOL_CALL_* START before CONTENT/ARGS/END and never twice
/// open; nothing open at RUN_FINISHED; RUN_FINISHED (or RUN_ERROR) last and only once.
pub fn check_stream(events: &[Value]) {
    assert!(!events.is_empty(), "empty stream");
    for (i, e) in events.iter().enumerate() {
        assert_no_null(e, &format!("event[{i}]"));
        assert!(e["type"].is_string(), "event[{i}] has a type");
    }
    assert_eq!(events[0]["type"], "RUN_STARTED", "first event");
    let last = events.last().unwrap()["type"].as_str().unwrap();
    assert!(
        last == "RUN_FINISHED" || last == "RUN_ERROR",
        "last event is {last}"
    );
    let mut texts: Vec<String> = Vec::new();
    let mut calls: Vec<String> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let t = e["type"].as_str().unwrap();
        let mid = e["messageId"].as_str().unwrap_or("").to_string();
        let cid = e["toolCallId"].as_str().unwrap_or("").to_string();
        match t {
            "RUN_STARTED" => assert_eq!(i, 0, "RUN_STARTED only first"),
            "RUN_FINISHED" => {
                assert_eq!(i, events.len() - 1, "RUN_FINISHED last");
                assert!(
                    texts.is_empty() && calls.is_empty(),
                    "open at RUN_FINISHED: {texts:?} {calls:?}"
                );
                assert!(e["threadId"].is_string() && e["runId"].is_string());
            }
            "RUN_ERROR" => {
                assert_eq!(i, events.len() - 1, "RUN_ERROR last");
                assert!(e["message"].is_string());
            }
            "TEXT_MESSAGE_START" => {
                assert!(!texts.contains(&mid), "{mid} opened twice");
                texts.push(mid);
            }
            "TEXT_MESSAGE_CONTENT" => {
                assert!(texts.contains(&mid), "content of unopened {mid}");
                assert!(e["delta"].is_string());
            }
            "TEXT_MESSAGE_END" => {
                assert!(texts.contains(&mid), "end of unopened {mid}");
                texts.retain(|m| *m != mid);
            }
            "TOOL_CALL_START" => {
                assert!(!calls.contains(&cid), "{cid} opened twice");
                assert!(e["toolCallName"].is_string());
                calls.push(cid);
            }
            "TOOL_CALL_ARGS" => assert!(calls.contains(&cid), "args of unopened {cid}"),
            "TOOL_CALL_END" => {
                assert!(calls.contains(&cid), "end of unopened {cid}");
                calls.retain(|c| *c != cid);
            }
            "TOOL_CALL_RESULT" => {
                assert!(e["messageId"].is_string() && e["content"].is_string());
            }
            other => panic!("unexpected event type {other}"),
        }
    }
}

/// The streamed text of every text message, in order.
pub fn texts(events: &[Value]) -> Vec<String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for e in events {
        match e["type"].as_str().unwrap() {
            "TEXT_MESSAGE_START" => {
                out.push((e["messageId"].as_str().unwrap().into(), String::new()))
            }
            "TEXT_MESSAGE_CONTENT" => {
                let id = e["messageId"].as_str().unwrap();
                let m = out.iter_mut().find(|(m, _)| m == id).unwrap();
                m.1.push_str(e["delta"].as_str().unwrap());
            }
            _ => {}
        }
    }
    out.into_iter().map(|(_, t)| t).collect()
}

/// The tool calls of a stream: (id, name, parentMessageId, arguments joined).
pub fn calls(events: &[Value]) -> Vec<(String, String, String, String)> {
    let mut out: Vec<(String, String, String, String)> = Vec::new();
    for e in events {
        match e["type"].as_str().unwrap() {
            "TOOL_CALL_START" => out.push((
                e["toolCallId"].as_str().unwrap().into(),
                e["toolCallName"].as_str().unwrap().into(),
                e["parentMessageId"].as_str().unwrap_or("").into(),
                String::new(),
            )),
            "TOOL_CALL_ARGS" => {
                let id = e["toolCallId"].as_str().unwrap();
                let c = out.iter_mut().find(|c| c.0 == id).unwrap();
                c.3.push_str(e["delta"].as_str().unwrap());
            }
            _ => {}
        }
    }
    out
}

/// The event types of a stream.
pub fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect()
}

/// POSTs a RunAgentInput and returns (status, events) for an SSE answer (checked with
/// [`check_stream`]) or (status, [the JSON body]) otherwise.
pub async fn run_events(addr: SocketAddr, thread: &str, body: Value) -> (u16, Vec<Value>) {
    let mut c = run(addr, thread, body).await;
    let status = c.status;
    let sse = c.header("content-type") == Some("text/event-stream");
    let text = c.text().await;
    if sse {
        let events = sse_events(&text);
        check_stream(&events);
        (status, events)
    } else {
        (
            status,
            vec![serde_json::from_str(&text).unwrap_or(json!(text))],
        )
    }
}
