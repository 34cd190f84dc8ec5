//! Starts the server in-process on port 0 and talks raw HTTP/1.1 to it (a tiny client below, so
//! the tests see every chunk the server flushes and can drop a connection mid-response).

mod common;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use chat_runtime_agent::{spawn, Config, Mode, Server, StaticMount};
use common::*;
use serde_json::json;

async fn start(statics: Vec<StaticMount>) -> Server {
    spawn(
        Config {
            statics,
            mode: Mode::Script,
            ..Config::default()
        },
        0,
    )
    .await
    .unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("chat-runtime-agent-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// ---- tests ---------------------------------------------------------------------------------------

#[tokio::test]
async fn serves_static_files_with_types_and_refuses_traversal() {
    let root = temp_dir("static");
    let pages = root.join("pages");
    let pkg = root.join("pkg");
    std::fs::create_dir_all(pages.join("sub")).unwrap();
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(root.join("secret.txt"), "do not serve").unwrap();
    std::fs::write(pages.join("index.html"), "<h1>home</h1>").unwrap();
    std::fs::write(pages.join("sub/index.html"), "<h1>sub</h1>").unwrap();
    std::fs::write(pages.join("app.css"), "body{}").unwrap();
    std::fs::write(pages.join("logo.svg"), "<svg/>").unwrap();
    std::fs::write(pkg.join("chat_runtime.js"), "export default 1;").unwrap();
    std::fs::write(pkg.join("chat_runtime_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(pkg.join("package.json"), "{}").unwrap();
    std::fs::write(pkg.join("chat_runtime.js.map"), "{}").unwrap();
    let server = start(vec![
        StaticMount::parse(&format!("/={}", pages.display())).unwrap(),
        StaticMount::parse(&format!("/pkg={}", pkg.display())).unwrap(),
    ])
    .await;
    let a = server.addr;

    for (path, ctype, body) in [
        ("/", "text/html; charset=utf-8", &b"<h1>home</h1>"[..]),
        ("/index.html", "text/html; charset=utf-8", b"<h1>home</h1>"),
        ("/sub/", "text/html; charset=utf-8", b"<h1>sub</h1>"),
        ("/app.css", "text/css; charset=utf-8", b"body{}"),
        ("/logo.svg", "image/svg+xml", b"<svg/>"),
        (
            "/pkg/chat_runtime.js",
            "text/javascript",
            b"export default 1;",
        ),
        (
            "/pkg/chat_runtime_bg.wasm",
            "application/wasm",
            b"\0asm\x01\0\0\0",
        ),
        ("/pkg/package.json", "application/json", b"{}"),
        ("/pkg/chat_runtime.js.map", "application/json", b"{}"),
        (
            "/pkg/chat_runtime.js?v=2",
            "text/javascript",
            b"export default 1;",
        ),
    ] {
        let mut c = get(a, path).await;
        assert_eq!(c.status, 200, "{path}");
        assert_eq!(c.header("content-type"), Some(ctype), "{path}");
        assert_eq!(c.header("cache-control"), Some("no-store"), "{path}");
        assert_eq!(c.header("access-control-allow-origin"), Some("*"), "{path}");
        assert_eq!(c.body().await.0, body, "{path}");
    }

    let c = get(a, "/sub").await;
    assert_eq!(c.status, 301);
    assert_eq!(c.header("location"), Some("/sub/"));

    for path in ["/missing.js", "/pkg/missing.wasm", "/pkgx/chat_runtime.js"] {
        assert_eq!(get(a, path).await.status, 404, "{path}");
    }
    for path in [
        "/../secret.txt",
        "/pkg/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/pkg/%2E%2E/%2e%2e/secret.txt",
        "/sub/..%2f..%2fsecret.txt",
        "/..%5csecret.txt",
    ] {
        let mut c = get(a, path).await;
        assert_eq!(c.status, 403, "{path}");
        assert!(!c.text().await.contains("do not serve"), "{path}");
    }

    server.stop().await.unwrap();
    let _ = std::fs::remove_dir_all(root);
}

#[tokio::test]
async fn streams_scripted_events_in_chunks() {
    let server = start(vec![]).await;
    let a = server.addr;
    let events = json!([
        { "type": "RUN_STARTED", "threadId": "t1", "runId": "r1" },
        { "type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hello, world" },
        { "type": "RUN_FINISHED", "threadId": "t1", "runId": "r1" }
    ]);
    let expected: String = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("data: {e}\n\n"))
        .collect();
    script(a, "t1", json!([{ "events": events, "chunkBytes": 7 }])).await;

    let mut c = run(
        a,
        "t1",
        json!({ "threadId": "t1", "runId": "r1", "messages": [] }),
    )
    .await;
    assert_eq!(c.status, 200);
    assert_eq!(c.header("content-type"), Some("text/event-stream"));
    let mut chunks = Vec::new();
    while let Some(chunk) = c.next_chunk().await {
        chunks.push(chunk);
    }
    assert!(chunks.iter().all(|ch| ch.len() <= 7));
    assert_eq!(
        chunks.len(),
        expected.len().div_ceil(7),
        "each chunkBytes piece is its own write"
    );
    assert_eq!(String::from_utf8(chunks.concat()).unwrap(), expected);
    assert_eq!(aborted(a, "t1").await, 0);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn delays_flush_each_event_before_the_next() {
    let server = start(vec![]).await;
    let a = server.addr;
    let events = json!([{ "type": "A" }, { "type": "B" }, { "type": "C" }]);
    script(a, "slow", json!([{ "events": events, "delayMs": 150 }])).await;
    let mut c = run(a, "slow", json!({})).await;
    let t0 = Instant::now();
    let mut arrivals = Vec::new();
    while let Some(chunk) = c.next_chunk().await {
        arrivals.push((t0.elapsed(), String::from_utf8(chunk).unwrap()));
    }
    let texts: Vec<_> = arrivals.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        texts,
        [
            "data: {\"type\":\"A\"}\n\n",
            "data: {\"type\":\"B\"}\n\n",
            "data: {\"type\":\"C\"}\n\n"
        ]
    );
    for w in arrivals.windows(2) {
        assert!(
            w[1].0 - w[0].0 >= Duration::from_millis(100),
            "{arrivals:?}"
        );
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn raw_bodies_statuses_and_headers() {
    let server = start(vec![]).await;
    let a = server.addr;
    script(
        a,
        "t",
        json!([
            { "status": 200, "contentType": "text/html", "body": "<html>login</html>" },
            { "status": 422, "contentType": "application/json", "body": "[{\"msg\":\"bad\"}]",
              "headers": { "X-Trace": "abc" } },
            { "body": "data: {\"type\":\"RUN_STARTED\"\n\n", "chunkBytes": 4 },
            { "events": ["not json", { "type": "RUN_ERROR", "message": "x" }] }
        ]),
    )
    .await;
    let mut c = run(a, "t", json!({})).await;
    assert_eq!(
        (c.status, c.header("content-type")),
        (200, Some("text/html"))
    );
    assert_eq!(c.text().await, "<html>login</html>");

    let mut c = run(a, "t", json!({})).await;
    assert_eq!(
        (c.status, c.header("content-type")),
        (422, Some("application/json"))
    );
    assert_eq!(c.header("x-trace"), Some("abc"));
    assert_eq!(c.json().await, json!([{ "msg": "bad" }]));

    let mut c = run(a, "t", json!({})).await;
    let (body, n) = c.body().await;
    assert_eq!(body, b"data: {\"type\":\"RUN_STARTED\"\n\n");
    assert!(n >= 7, "{n} chunks");

    let mut c = run(a, "t", json!({})).await;
    assert_eq!(
        c.text().await,
        "data: not json\n\ndata: {\"message\":\"x\",\"type\":\"RUN_ERROR\"}\n\n"
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn records_requests_and_answers_fifo_per_thread() {
    let server = start(vec![]).await;
    let a = server.addr;
    script(
        a,
        "t1",
        json!([{ "body": "t1-first" }, { "body": "t1-second" }]),
    )
    .await;
    script(a, "t2", json!([{ "body": "t2-first" }])).await;
    script(a, "t1", json!([{ "body": "t1-third" }])).await;

    let input =
        json!({ "threadId": "t1", "runId": "r1", "protocolVersion": "1.0", "messages": [] });
    assert_eq!(run(a, "t1", input.clone()).await.text().await, "t1-first");
    assert_eq!(
        run(a, "t2", json!({ "n": 2 })).await.text().await,
        "t2-first"
    );
    let mut c = Conn::open(
        a,
        "POST",
        "/api/threads/t1/runs?x=1",
        &[("X-Custom", "Yes")],
        b"not {json",
    )
    .await;
    assert_eq!(c.text().await, "t1-second");
    assert_eq!(run(a, "t1", json!({})).await.text().await, "t1-third");

    let mut c = run(a, "t1", json!({})).await;
    assert_eq!(c.status, 500);
    assert_eq!(
        c.json().await,
        json!({ "error": "no scripted response for thread t1" })
    );
    let mut c = run(a, "nobody", json!({})).await;
    assert_eq!(c.status, 500);
    assert_eq!(
        c.json().await,
        json!({ "error": "no scripted response for thread nobody" })
    );

    let reqs = get(a, "/test/requests?threadId=t1").await.json().await;
    let reqs = reqs.as_array().unwrap();
    assert_eq!(reqs.len(), 4);
    assert_eq!(reqs[0]["method"], "POST");
    assert_eq!(reqs[0]["path"], "/api/threads/t1/runs");
    assert_eq!(reqs[0]["threadId"], "t1");
    assert_eq!(reqs[0]["body"], input);
    assert_eq!(reqs[0]["headers"]["content-type"], "application/json");
    assert_eq!(reqs[0]["headers"]["accept"], "text/event-stream");
    assert_eq!(reqs[1]["body"], "not {json");
    assert_eq!(reqs[1]["headers"]["x-custom"], "Yes");
    assert_eq!(reqs[1]["query"], "x=1");
    let times: Vec<u64> = reqs
        .iter()
        .map(|r| r["receivedAtMs"].as_u64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");

    let all = get(a, "/test/requests").await.json().await;
    let threads: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["threadId"].as_str().unwrap())
        .collect();
    assert_eq!(threads, ["t1", "t2", "t1", "t1", "t1", "nobody"]);

    let mut c = post_json(a, "/test/reset", json!({})).await;
    assert_eq!(c.status, 200);
    c.body().await;
    assert_eq!(get(a, "/test/requests").await.json().await, json!([]));
    script(a, "t1", json!([{ "body": "after reset" }])).await;
    assert_eq!(run(a, "t1", json!({})).await.text().await, "after reset");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn rejects_bad_scripts() {
    let server = start(vec![]).await;
    let a = server.addr;
    for body in [
        json!({ "responses": [] }),
        json!({ "threadId": "t" }),
        json!({ "threadId": "t", "responses": [{ "status": "x" }] }),
        json!({ "threadId": "t", "responses": [{ "body": "a", "events": [] }] }),
    ] {
        let mut c = post_json(a, "/test/script", body.clone()).await;
        assert_eq!(c.status, 400, "{body}");
        assert!(c.json().await["error"].is_string());
    }
    server.stop().await.unwrap();
}

async fn wait_aborted(a: SocketAddr, thread: &str, want: u64) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let n = aborted(a, thread).await;
        if n == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "aborted({thread}) = {n}, want {want}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn counts_responses_the_client_cut() {
    let server = start(vec![]).await;
    let a = server.addr;
    let started = json!({ "type": "RUN_STARTED", "threadId": "h", "runId": "r" });
    script(
        a,
        "h",
        json!([
            { "events": [started], "hold": true },
            { "events": [started, { "type": "RUN_FINISHED", "threadId": "h", "runId": "r" }], "delayMs": 2000 },
            { "events": [started] }
        ]),
    )
    .await;

    // 1: held open after its last event until the client goes away.
    let mut c = run(a, "h", json!({})).await;
    assert!(c.next_chunk().await.unwrap().starts_with(b"data: {"));
    let held = tokio::time::timeout(Duration::from_millis(300), c.next_chunk()).await;
    assert!(held.is_err(), "the held response must not end");
    assert_eq!(aborted(a, "h").await, 0);
    drop(c);
    wait_aborted(a, "h", 1).await;

    // 2: cut while the server waits before its next event.
    let mut c = run(a, "h", json!({})).await;
    assert!(c.next_chunk().await.is_some());
    drop(c);
    wait_aborted(a, "h", 2).await;

    // 3: read to the end: not counted.
    let mut c = run(a, "h", json!({})).await;
    c.body().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(aborted(a, "h").await, 2);
    assert_eq!(aborted(a, "other").await, 0);
    let all = get(a, "/test/aborted").await.json().await;
    assert_eq!(all, json!({ "aborted": 2, "byThread": { "h": 2 } }));

    // A held response ends at shutdown, so stopping does not hang.
    script(a, "h", json!([{ "events": [started], "hold": true }])).await;
    let mut c = run(a, "h", json!({})).await;
    assert!(c.next_chunk().await.is_some());
    let t0 = Instant::now();
    server.stop().await.unwrap();
    assert!(t0.elapsed() < Duration::from_secs(2));
    assert!(c.next_chunk().await.is_none());
}

#[tokio::test]
async fn cors_on_every_route_and_preflight() {
    let server = start(vec![]).await;
    let a = server.addr;
    let c = Conn::open(
        a,
        "OPTIONS",
        "/api/threads/t1/runs",
        &[
            ("Origin", "http://127.0.0.1:9999"),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type"),
        ],
        b"",
    )
    .await;
    assert!(c.status == 204 || c.status == 200);
    assert_eq!(c.header("access-control-allow-origin"), Some("*"));
    assert_eq!(c.header("access-control-allow-methods"), Some("*"));
    assert_eq!(c.header("access-control-allow-headers"), Some("*"));
    for path in ["/test/script", "/nowhere"] {
        let c = Conn::open(
            a,
            "OPTIONS",
            path,
            &[("Access-Control-Request-Method", "POST")],
            b"",
        )
        .await;
        assert_eq!(c.header("access-control-allow-origin"), Some("*"), "{path}");
    }
    for mut c in [
        get(a, "/api/agents").await,
        get(a, "/test/requests").await,
        get(a, "/nowhere").await,
        run(a, "unscripted", json!({})).await,
        post_json(a, "/test/reset", json!({})).await,
    ] {
        assert_eq!(
            c.header("access-control-allow-origin"),
            Some("*"),
            "status {}",
            c.status
        );
        c.body().await;
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn agents_lists_backend_tools() {
    let server = start(vec![]).await;
    let a = server.addr;
    let empty =
        json!({ "agents": [{ "name": "scripted", "capabilities": { "tools": { "items": [] } } }] });
    assert_eq!(get(a, "/api/agents").await.json().await, empty);
    let tools = json!([{ "name": "search_docs", "description": "Search", "parameters": { "type": "object" } }]);
    let mut c = post_json(a, "/test/backend-tools", tools.clone()).await;
    assert_eq!(c.status, 200);
    c.body().await;
    let got = get(a, "/api/agents").await.json().await;
    assert_eq!(got["agents"][0]["capabilities"]["tools"]["items"], tools);
    assert_eq!(
        post_json(a, "/test/backend-tools", json!({ "name": "x" }))
            .await
            .status,
        400
    );
    assert_eq!(
        post_json(a, "/test/backend-tools", json!([{ "description": "x" }]))
            .await
            .status,
        400
    );
    post_json(a, "/test/reset", json!({})).await.body().await;
    assert_eq!(get(a, "/api/agents").await.json().await, empty);
    server.stop().await.unwrap();
}

/// The binary: `--port 0` prints exactly one line with the port, serves, and exits cleanly on SIGTERM.
#[cfg(unix)]
#[test]
fn binary_prints_port_and_stops_on_sigterm() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};

    let mut child = Command::new(env!("CARGO_BIN_EXE_chat-runtime-agent"))
        .args(["--mode", "script", "--port", "0", "--static", "/src=src"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let port: u16 = line
        .strip_prefix("listening on http://127.0.0.1:")
        .and_then(|p| p.trim_end().parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    assert_ne!(port, 0);

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let a: SocketAddr = ([127, 0, 0, 1], port).into();
        let mut c = get(a, "/src/main.rs").await;
        assert_eq!(c.status, 200);
        assert!(c.text().await.contains("chat-runtime-agent"));
    });

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let t0 = Instant::now();
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exit.success(), "{exit:?}");
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "", "stdout has exactly one line");
}

#[tokio::test]
async fn redirect_sends_a_302_to_a_path_of_this_server_only() {
    let server = start(Vec::new()).await;
    let conn = get(server.addr, "/test/redirect?to=/tools/moved/tools.json").await;
    assert_eq!(conn.status, 302);
    assert_eq!(conn.header("location"), Some("/tools/moved/tools.json"));
    for bad in ["https://elsewhere.example/x", "//elsewhere.example/x", "x"] {
        let conn = get(server.addr, &format!("/test/redirect?to={bad}")).await;
        assert_eq!(conn.status, 400, "{bad}");
    }
}
