//! Demo mode: SSE ids on the planner's events and `Last-Event-ID` resume (`src/resume.rs`).

mod common;

use chat_runtime_agent::{spawn, Config, Server};
use common::*;
use serde_json::{json, Value};

async fn start() -> Server {
    spawn(Config::default(), 0).await.unwrap()
}

fn input(thread: &str, run: &str) -> Value {
    json!({
        "threadId": thread, "runId": run, "protocolVersion": "1.0", "state": {},
        "messages": [{ "id": "u1", "role": "user", "content": "hello" }],
        "tools": [], "context": [], "forwardedProps": {}
    })
}

async fn post_run(
    server: &Server,
    thread: &str,
    body: &Value,
    last_event_id: Option<&str>,
) -> Conn {
    let bytes = serde_json::to_vec(body).unwrap();
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "text/event-stream"),
    ];
    if let Some(id) = last_event_id {
        headers.push(("Last-Event-ID", id));
    }
    Conn::open(
        server.addr,
        "POST",
        &format!("/api/threads/{thread}/runs"),
        &headers,
        &bytes,
    )
    .await
}

/// The frames of an SSE body, each with its blank line.
fn frames(body: &str) -> Vec<String> {
    body.split_inclusive("\n\n").map(str::to_owned).collect()
}

#[tokio::test]
async fn every_event_has_an_id_and_a_re_post_with_last_event_id_continues_after_it() {
    let server = start().await;
    let body = input("t", "r1");
    let whole = post_run(&server, "t", &body, None).await.text().await;
    let all = frames(&whole);
    assert!(all.len() > 4, "{whole}");
    assert!(
        all[0].starts_with("retry: 100\nid: 0\ndata: "),
        "{}",
        all[0]
    );
    for (n, frame) in all.iter().enumerate().skip(1) {
        assert!(frame.starts_with(&format!("id: {n}\ndata: ")), "{frame}");
    }
    assert_eq!(sse_events(&whole).len(), all.len());

    let mut resumed = post_run(&server, "t", &body, Some("2")).await;
    assert_eq!(resumed.status, 200);
    assert_eq!(
        frames(&resumed.text().await),
        all[3..],
        "the same bytes, after id 2"
    );
    // The resume does not plan again: the thread has one answer, the next run sees it.
    let again = post_run(&server, "t", &body, Some("0")).await.text().await;
    assert_eq!(frames(&again), all[1..]);

    let mut unknown = post_run(&server, "t", &input("t", "nope"), Some("1")).await;
    assert_eq!(unknown.status, 404);
    assert!(unknown.text().await.contains("not kept"));
    let bad = post_run(&server, "t", &body, Some("x")).await;
    assert_eq!(bad.status, 400);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn test_cut_stops_responses_part_way_broken_or_clean() {
    let server = start().await;
    let body = input("t", "r1");
    let all = frames(&post_run(&server, "t", &body, None).await.text().await);
    let mut c = post_json(
        server.addr,
        "/test/cut",
        json!({ "threadId": "u", "cuts": [{ "frame": 2, "byte": 5 }, { "frame": 3, "byte": 0, "clean": true }] }),
    )
    .await;
    assert_eq!(c.json().await, json!({ "queued": 2 }));

    let body = input("u", "r2");
    let mut cut = post_run(&server, "u", &body, None).await;
    // The connection stays open at the cut until `/test/break`.
    let want = all[0].len() + all[1].len() + 5;
    while cut.buf.windows(5).filter(|w| *w == b"id: 2").count() == 0 || !cut.buf.ends_with(b"\r\n")
    {
        assert!(cut.fill().await);
    }
    let mut b = post_json(server.addr, "/test/break", json!({})).await;
    let status = b.status;
    assert_eq!(status, 200, "{}", b.text().await);
    let (got, complete) = chunked_to_eof(cut).await;
    assert!(
        !complete,
        "the connection is dropped without the last chunk"
    );
    let text = String::from_utf8(got).unwrap();
    // Frames 0 and 1 whole, then the first 5 bytes of frame 2 (ids and run differ from `all`).
    assert_eq!(text.len(), want, "{text}");
    assert_eq!(frames(&text).len(), 3);
    assert!(
        text.starts_with("retry: 100\nid: 0\n") && text.ends_with("\n\nid: 2"),
        "{text}"
    );

    // The resume is cut cleanly right before frame 3: a whole, short body.
    let resumed = post_run(&server, "u", &body, Some("1")).await.text().await;
    assert_eq!(frames(&resumed).len(), 1, "{resumed}");
    assert!(resumed.starts_with("id: 2\n"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn test_cut_resume_makes_re_posts_start_at_the_id_or_from_the_first_event() {
    let server = start().await;
    for (mode, from) in [("at", 2), ("start", 0), ("after", 3)] {
        let thread = format!("m-{mode}");
        let mut c = post_json(
            server.addr,
            "/test/cut",
            json!({ "threadId": thread, "cuts": [], "resume": mode }),
        )
        .await;
        let status = c.status;
        assert_eq!(status, 200, "{}", c.text().await);
        let body = input(&thread, "r1");
        let all = frames(&post_run(&server, &thread, &body, None).await.text().await);
        let resumed = post_run(&server, &thread, &body, Some("2"))
            .await
            .text()
            .await;
        assert_eq!(frames(&resumed), all[from..], "{mode}");
    }
    let mut bad = post_json(
        server.addr,
        "/test/cut",
        json!({ "threadId": "x", "cuts": [], "resume": "sideways" }),
    )
    .await;
    let status = bad.status;
    assert_eq!(status, 400, "{}", bad.text().await);
    server.stop().await.unwrap();
}

/// The body of a chunked response read to the connection's end, and whether it was complete (the
/// last, empty chunk came).
async fn chunked_to_eof(mut conn: Conn) -> (Vec<u8>, bool) {
    assert!(conn.chunked());
    while conn.fill().await {}
    let mut raw = &conn.buf[..];
    let mut body = Vec::new();
    loop {
        let Some(end) = raw.windows(2).position(|w| w == b"\r\n") else {
            return (body, false);
        };
        let size = usize::from_str_radix(std::str::from_utf8(&raw[..end]).unwrap(), 16).unwrap();
        if size == 0 {
            return (body, true);
        }
        let data = &raw[end + 2..];
        if data.len() < size + 2 {
            return (body, false);
        }
        body.extend_from_slice(&data[..size]);
        raw = &data[size + 2..];
    }
}

/// Gateway mode keeps its threads: `GET /api/threads/{id}/messages` is the history a page reloaded
/// mid-run asks for, and `?wait` answers once the thread's run has ended, with the whole turn.
#[tokio::test]
async fn gateway_history_after_a_dropped_run_holds_the_whole_turn() {
    let config = Config {
        mode: chat_runtime_agent::Mode::Gateway,
        pace_ms: 20,
        ..Config::default()
    };
    let server = spawn(config, 0).await.unwrap();
    let mut body = input("g", "r1");
    body["messages"][0]["content"] = json!("show the traces");
    // The page goes away after the head: the run goes on without it.
    let conn = post_run(&server, "g", &body, None).await;
    assert_eq!(conn.status, 200);
    drop(conn);
    let now = get(server.addr, "/api/threads/g/messages")
        .await
        .json()
        .await;
    let roles: Vec<&str> = now["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user"], "mid-run: the turn is not kept yet");
    let after = get(server.addr, "/api/threads/g/messages?wait")
        .await
        .json()
        .await;
    let messages = after["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(messages[0]["id"], "u1");
    assert_eq!(
        messages[1]["content"],
        "Looking at the traces of the last hour."
    );
    assert_eq!(
        messages[1]["toolCalls"][0]["function"]["name"],
        "search_traces"
    );
    assert_eq!(messages[2]["toolCallId"], messages[1]["toolCalls"][0]["id"]);
    assert!(messages[3]["content"]
        .as_str()
        .unwrap()
        .starts_with("Two traces"));
    // A thread the agent does not know: an empty history.
    let none = get(server.addr, "/api/threads/nope/messages?wait")
        .await
        .json()
        .await;
    assert_eq!(none["messages"], json!([]));
    server.stop().await.unwrap();
}
