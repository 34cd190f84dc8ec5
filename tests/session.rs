//! The execute-and-restart loop as a state machine: scripted responses in, actions out.

mod common;
use common::session_host::*;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::protocol::event::Message;
use chat_runtime::session::{
    BodySink, HistoryMode, Pending, RoundRequest, RunRequest, RunStatus, RuntimeEvent,
    SessionConfig, ToolSet, BODY_PIECE,
};
use chat_runtime::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};
use chat_runtime::tools::{FrontendTool, TimeLimit};
use serde_json::{json, Value};

fn browser_time() -> FrontendTool {
    FrontendTool {
        description: "Return the current time from the browser clock.".to_owned(),
        ..tool(
            "get_browser_time",
            json!({"type":"object","properties":{"format":{"type":"string"}},"required":["format"]}),
        )
    }
}

fn request(thread: &str, messages: Vec<Message>) -> RunRequest {
    RunRequest {
        thread_id: thread.to_owned(),
        messages,
        ..RunRequest::default()
    }
}

/// Only `get_browser_time`, enabled.
fn clock() -> ToolSet {
    tool_set(&[browser_time()], &[], &[])
}

/// A host whose thread `t` asks `text` (message `u1`) with [`clock`] on: its round is sent.
fn asking(text: &str) -> Harness {
    asking_with(SessionConfig::default(), text)
}

/// [`asking`] on a session with `config`.
fn asking_with(config: SessionConfig, text: &str) -> Harness {
    let mut h = Harness::new(config);
    h.start(request("t", vec![user("u1", text)]), clock());
    h
}

/// Run `r` started, and its assistant message `a1` calls `get_browser_time` as `c1`.
fn calling_clock() -> Vec<Value> {
    let mut events = vec![started("r")];
    events.extend(call("c1", "get_browser_time", r#"{"format":"iso"}"#, "a1"));
    events
}

/// A run whose assistant message `parent` calls `get_browser_time` once, as call `id`.
fn clock_run(id: &str, parent: &str) -> String {
    run_with(vec![call(
        id,
        "get_browser_time",
        r#"{"format":"iso"}"#,
        parent,
    )])
}

#[test]
fn a_frontend_call_runs_and_the_run_restarts_with_its_result() {
    let mut h = harness();
    let ask = user("u1", "What time is it in my browser?");
    h.start(
        request("thread-1", vec![ask]),
        tool_set(&[browser_time()], &[], &[]),
    );
    assert_eq!(h.sent.len(), 1);
    h.respond(
        "thread-1",
        include_str!("fixtures/agui-real/pydantic-ai/run1.sse"),
    );
    assert_eq!(h.jobs.len(), 1);
    assert_eq!(h.jobs[0].tool_call_id, "call_frontend_1");
    assert_eq!(h.jobs[0].args, value!({"format": "iso"}));
    assert_eq!(h.jobs[0].timeout_ms, Some(30_000));
    assert_eq!(h.sent.len(), 1, "no restart before the tool answered");

    h.answer(
        "thread-1",
        "call_frontend_1",
        ToolOutcome::Value(value!("2026-01-01T12:00:00Z")),
    );
    assert_eq!(h.sent.len(), 2);

    // The restart is exactly what @ag-ui/client sent to pydantic-ai in the capture, but for ids.
    let mut body = h.body(1).clone();
    body["runId"] = json!("run-2");
    body["messages"][2]["id"] = json!("tool-result-call_frontend_1");
    let expected: Value =
        serde_json::from_str(include_str!("fixtures/agui-real/pydantic-ai/run2.json")).unwrap();
    assert_eq!(body, expected);

    h.respond(
        "thread-1",
        include_str!("fixtures/agui-real/pydantic-ai/run2.sse"),
    );
    let result = h.result();
    assert_eq!(result.status, RunStatus::Completed);
    assert_eq!(result.rounds, 2);
    assert_eq!(
        result.new_messages(h.session.messages("thread-1")).len(),
        4,
        "user, assistant call, tool, assistant answer"
    );
    assert_eq!(h.jobs.len(), 1);
}

#[test]
fn parallel_calls_run_together_and_results_go_back_in_call_order() {
    let mut h = asking("two");
    h.respond(
        "t",
        include_str!("fixtures/agui-real/pydantic-ai/parallel-run1.sse"),
    );
    let ids: Vec<_> = h.jobs.iter().map(|j| j.tool_call_id.as_str()).collect();
    assert_eq!(ids, ["call_frontend_1", "call_frontend_2"]);
    // The second finishes first.
    h.answer("t", "call_frontend_2", ToolOutcome::Value(value!("second")));
    assert_eq!(h.sent.len(), 1, "waits for every call of the round");
    h.answer("t", "call_frontend_1", ToolOutcome::Value(value!("first")));
    let messages = &h.body(1)["messages"];
    let tools: Vec<_> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["toolCallId"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        tools,
        [("call_frontend_1", "first"), ("call_frontend_2", "second")]
    );
}

#[test]
fn a_call_plus_text_continuing_still_runs_the_call() {
    let mut h = asking("x");
    h.respond(
        "t",
        run_with(vec![
            call("c1", "get_browser_time", r#"{"format":"iso"}"#, "a1"),
            text("a2", "meanwhile, some words"),
        ]),
    );
    assert_eq!(h.jobs.len(), 1);
    h.answer("t", "c1", ToolOutcome::Value(value!("now")));
    // The tool result sits right after the assistant message that called, not after the text.
    let roles = h.roles_sent(1);
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
}

#[test]
fn backend_calls_answered_by_the_server_are_not_run_in_the_browser() {
    let mut h = harness();
    let tools = tool_set(&[browser_time()], &[], &["search_docs"]);
    h.start(request("t", vec![user("u1", "x")]), tools);
    let mut body = vec![call("b1", "search_docs", r#"{"q":"x"}"#, "a1")];
    body.push(vec![
        json!({"type":"TOOL_CALL_RESULT","messageId":"m-b1","toolCallId":"b1","content":"found"}),
    ]);
    body.push(call("c1", "get_browser_time", r#"{"format":"iso"}"#, "a1"));
    h.respond("t", run_with(body));
    let ids: Vec<_> = h.jobs.iter().map(|j| j.tool_call_id.as_str()).collect();
    assert_eq!(ids, ["c1"]);
}

#[test]
fn a_forwarded_to_client_placeholder_is_no_answer_and_is_replaced() {
    let mut h = asking("x");
    let mut body = vec![call("c1", "get_browser_time", r#"{"format":"iso"}"#, "a1")];
    body.push(vec![json!({"type":"TOOL_CALL_RESULT","messageId":"p1","toolCallId":"c1","content":"Forwarded to client"})]);
    h.respond("t", run_with(body));
    assert_eq!(h.jobs.len(), 1);
    h.answer("t", "c1", ToolOutcome::Value(value!("real")));
    let tools = h.tools_sent(1);
    assert_eq!(tools.len(), 1, "one result per call");
    assert_eq!(tools[0]["content"], "real");
}

#[test]
fn a_tool_call_id_is_executed_once_even_if_the_server_asks_again() {
    let mut h = asking("x");
    h.respond("t", clock_run("c1", "a1"));
    h.answer("t", "c1", ToolOutcome::Value(value!("now")));
    // A confused server lists the answered call as pending again.
    h.respond(
        "t",
        sse(&[
            started("r2"),
            json!({"type":"RUN_FINISHED","threadId":"t","runId":"r2","outcome":{"type":"success","pendingToolCallIds":["c1"]}}),
        ]),
    );
    assert_eq!(h.jobs.len(), 1);
    assert_eq!(h.result().status, RunStatus::Completed);
}

#[test]
fn unknown_and_disabled_tools_get_an_error_result_and_the_model_hears_it() {
    let mut h = harness();
    h.start(
        request("t", vec![user("u1", "x")]),
        tool_set(&[browser_time()], &["delete_files"], &[]),
    );
    h.respond(
        "t",
        run_with(vec![
            call("c1", "delete_files", "{}", "a1"),
            call("c2", "made_up_tool", "{}", "a1"),
        ]),
    );
    assert!(h.jobs.is_empty(), "nothing ran");
    assert_eq!(h.sent.len(), 2, "restarted with the errors");
    let tools = h.tools_sent(1);
    assert_eq!(tools.len(), 2);
    for t in &tools {
        assert!(t["content"]
            .as_str()
            .unwrap()
            .starts_with("TOOL ERROR: TOOL_NOT_AVAILABLE\n"));
        assert!(t["error"]
            .as_str()
            .unwrap()
            .starts_with("TOOL_NOT_AVAILABLE: "));
    }
    assert!(tools[0]["content"].as_str().unwrap().contains("disabled"));
}

#[test]
fn arguments_that_are_not_json_or_break_the_schema_never_reach_the_handler() {
    let mut h = asking("x");
    h.respond(
        "t",
        run_with(vec![
            call("c1", "get_browser_time", r#"{"format": "#, "a1"),
            call("c2", "get_browser_time", r#"{"format": 7}"#, "a1"),
            call("c3", "get_browser_time", "", "a1"),
        ]),
    );
    assert!(h.jobs.is_empty());
    let contents: Vec<String> = h
        .tools_sent(1)
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(contents.len(), 3);
    assert!(contents[0]
        .starts_with("TOOL ERROR: INVALID_TOOL_ARGUMENTS\nthe arguments are not valid JSON"));
    assert!(contents[1].contains("/format"), "{}", contents[1]);
    assert!(
        contents[2].contains("format"),
        "empty arguments are {{}}: {}",
        contents[2]
    );
}

#[test]
fn handler_failures_are_sent_with_error_and_readable_content() {
    let mut h = asking("x");
    h.respond("t", clock_run("c1", "a1"));
    h.answer(
        "t",
        "c1",
        ToolOutcome::Failed(ToolFailure::new(
            FailureCode::Timeout,
            "get_browser_time took longer than 30000 ms",
        )),
    );
    let tool = h.body(1)["messages"][2].clone();
    assert_eq!(
        tool["error"],
        "TIMEOUT: get_browser_time took longer than 30000 ms"
    );
    assert!(tool["content"]
        .as_str()
        .unwrap()
        .starts_with("TOOL ERROR: TIMEOUT\nget_browser_time took longer"));
    let finished: Vec<_> = h
        .events
        .iter()
        .filter_map(|e| match e {
            RuntimeEvent::ToolFinished { error, .. } => Some(error.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0].as_ref().unwrap().code, "TIMEOUT");
}

/// Thread `t` with the fire-and-forget tool `set_theme` on, mid-stream: the run's assistant
/// message `a1` has called it as `c1` (its `TOOL_CALL_END` read), nothing more. Returns the run id.
fn fire_and_forget_call_streamed() -> Harness {
    let mut h = harness();
    let theme = FrontendTool {
        follow_up: false,
        ..tool("set_theme", json!({"type":"object"}))
    };
    h.start(
        request("t", vec![user("u1", "dark please")]),
        tool_set(&[theme], &[], &[]),
    );
    let mut events = vec![started("r")];
    events.extend(call("c1", "set_theme", r#"{"theme":"dark"}"#, "a1"));
    h.open("t");
    h.feed("t", sse(&events));
    h
}

#[test]
fn fire_and_forget_tools_run_mid_stream_and_never_restart() {
    let mut h = fire_and_forget_call_streamed();
    assert_eq!(h.jobs.len(), 1, "runs as soon as its TOOL_CALL_END arrives");
    h.answer("t", "c1", ToolOutcome::Value(value!({"ok": true})));
    let mut rest = text("a2", "Done, it is dark now.");
    rest.push(finished("r"));
    h.feed("t", sse(&rest));
    h.end("t");
    assert_eq!(h.sent.len(), 1, "no restart");
    let result = h.result();
    assert_eq!(result.status, RunStatus::Completed);
    assert_eq!(
        tool_messages(&h.result_messages(result))[0]["content"],
        r#"{"ok":true}"#
    );
}

#[test]
fn a_messages_snapshot_mid_stream_keeps_a_result_the_runtime_recorded() {
    // ag-ui-langgraph sends MESSAGES_SNAPSHOT before RUN_FINISHED, with the server's messages
    // only: a fire-and-forget call answered mid-stream has its result in the thread but not
    // there. The snapshot must not drop it (the call would then be settled INTERRUPTED).
    let mut h = fire_and_forget_call_streamed();
    h.answer("t", "c1", ToolOutcome::Value(value!({"ok": true})));
    let snapshot = json!({"type":"MESSAGES_SNAPSHOT","messages":[
        {"id":"u1","role":"user","content":"dark please"},
        {"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function",
            "function":{"name":"set_theme","arguments":"{\"theme\":\"dark\"}"}}]}
    ]});
    h.feed("t", sse(&[snapshot, finished("r")]));
    h.end("t");
    let result = h.result();
    assert_eq!(result.status, RunStatus::Completed);
    let tools = tool_messages(&h.result_messages(result));
    assert_eq!(tools.len(), 1, "{tools:?}");
    assert_eq!(tools[0]["toolCallId"], "c1");
    assert_eq!(tools[0]["content"], r#"{"ok":true}"#);
    // Still unsent: the next request carries it, right after its assistant message.
    h.start(request("t", vec![user("u2", "thanks")]), ToolSet::default());
    let sent: Vec<Value> = h.messages_sent(1).clone();
    let ids: Vec<&str> = sent.iter().map(|m| m["id"].as_str().unwrap()).collect();
    let at = ids.iter().position(|&id| id == "a1").unwrap();
    assert_eq!(sent[at + 1]["toolCallId"], "c1", "{ids:?}");
}

#[test]
fn max_rounds_stops_a_model_that_keeps_calling_tools() {
    let mut h = asking_with(
        SessionConfig {
            max_rounds: 2,
            ..SessionConfig::default()
        },
        "loop",
    );
    for n in 0..3 {
        let id = format!("c{n}");
        h.respond(
            "t",
            run_with(vec![call(
                &id,
                "get_browser_time",
                r#"{"format":"iso"}"#,
                &format!("a{n}"),
            )]),
        );
        if n < 2 {
            h.answer("t", &id, ToolOutcome::Value(value!("now")));
        }
    }
    assert_eq!(h.sent.len(), 3, "the user's run and two restarts");
    assert_eq!(h.jobs.len(), 2, "the third round's call is not run");
    let result = h.result();
    assert_eq!(result.status, RunStatus::MaxRounds);
    assert_eq!(result.rounds, 3);
    let last = tool_messages(&h.result_messages(result))
        .last()
        .cloned()
        .unwrap();
    assert_eq!(last["toolCallId"], "c2");
    assert!(last["content"]
        .as_str()
        .unwrap()
        .starts_with("TOOL ERROR: INTERRUPTED\n"));
}

#[test]
fn run_error_ends_the_turn_with_its_code_and_message() {
    let mut h = harness();
    h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
    h.respond(
        "t",
        sse(&[
            started("r"),
            json!({"type":"RUN_ERROR","message":"model overloaded","code":"overloaded"}),
        ]),
    );
    let result = h.result();
    assert_eq!(result.status, RunStatus::Error);
    let error = result.error.as_ref().unwrap();
    assert_eq!(
        (error.code.as_str(), error.message.as_str()),
        ("overloaded", "model overloaded")
    );
}

#[test]
fn a_failed_send_is_run_network_or_run_http_with_the_thrown_status() {
    let cases: [(Option<u16>, &str, &str); 2] = [
        (None, "run/network", "Failed to fetch"),
        (
            Some(401),
            "run/http",
            "HTTP 401, thrown by fetch: Failed to fetch",
        ),
    ];
    for (status, code, message) in cases {
        let mut h = asking("x");
        h.fail("t", "Failed to fetch", status);
        let error = h.result().error.clone().unwrap();
        assert_eq!(
            (error.code.as_str(), error.message.as_str(), error.status),
            (code, message, status)
        );
    }
    // prepareRequest's failure, and a late report for a run that is over changes nothing.
    let mut h = asking("x");
    let run = h.last_run("t");
    h.session
        .handle_request_error("t", &run, "run/prepare-request", "TypeError: no", None);
    h.fail("t", "late", Some(500));
    assert_eq!(h.results.len(), 1);
    assert_eq!(
        h.result().error.as_ref().unwrap().code,
        "run/prepare-request"
    );
}

#[test]
fn a_stream_without_run_finished_is_truncated() {
    let mut h = asking("x");
    let events = calling_clock();
    h.respond("t", sse(&events));
    let result = h.result();
    assert_eq!(result.status, RunStatus::Error);
    assert_eq!(result.error.as_ref().unwrap().code, "run/truncated");
    assert!(h.jobs.is_empty(), "nothing runs from a broken run");
    // The call is settled so the next turn is valid.
    assert_eq!(tool_messages(&h.result_messages(result)).len(), 1);
}

#[test]
fn http_errors_keep_the_status_and_what_the_server_said() {
    let mut h = harness();
    h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
    let body = r#"[{"type":"missing","loc":["runId"],"msg":"Field required"}]"#;
    h.open_with("t", 422, Some("application/json"), Some(body));
    let error = h.result().error.clone().unwrap();
    assert_eq!(error.code, "run/http");
    assert_eq!(error.status, Some(422));
    assert!(error.message.contains("Field required"));
    // Bytes of the dead response change nothing.
    h.feed("t", b"data: {}\n\n");
    h.end("t");
    assert_eq!(h.results.len(), 1);
}

#[test]
fn an_answer_that_is_not_an_event_stream_is_an_error() {
    let mut h = harness();
    h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
    h.open_with("t", 200, Some("text/html"), None);
    assert_eq!(h.result().error.as_ref().unwrap().code, "run/content-type");
}

#[test]
fn a_malformed_event_mid_stream_ends_the_turn_with_the_decode_code() {
    let mut h = harness();
    h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
    h.respond(
        "t",
        "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {oops\n\n",
    );
    assert_eq!(h.result().error.as_ref().unwrap().code, "decode/json");
    assert_eq!(h.cancels, ["t"]);
}

#[test]
fn abort_mid_stream_cancels_and_settles_the_calls() {
    let mut h = asking("x");
    let events = calling_clock();
    h.open("t");
    h.feed("t", sse(&events));
    h.session.abort("t");
    h.pump();
    assert_eq!(h.cancels, ["t"]);
    let result = h.result();
    assert_eq!(result.status, RunStatus::Aborted);
    assert_eq!(
        tool_messages(&h.result_messages(result))[0]["error"]
            .as_str()
            .unwrap()
            .split(':')
            .next(),
        Some("INTERRUPTED")
    );
    // The rest of the body arrives anyway: nothing happens.
    h.feed("t", sse(&[finished("r")]));
    h.end("t");
    assert!(h.jobs.is_empty());
    assert_eq!(h.sent.len(), 1);
}

#[test]
fn abort_mid_tool_never_restarts_and_a_late_result_is_dropped() {
    let mut h = asking("x");
    h.respond("t", clock_run("c1", "a1"));
    assert_eq!(h.jobs.len(), 1);
    h.session.abort("t");
    h.pump();
    h.answer("t", "c1", ToolOutcome::Value(value!("too late")));
    assert_eq!(h.sent.len(), 1, "no restart");
    let result = h.result();
    assert_eq!(result.status, RunStatus::Aborted);
    let tools = tool_messages(&h.result_messages(result));
    assert_eq!(tools.len(), 1);
    assert!(tools[0]["content"]
        .as_str()
        .unwrap()
        .starts_with("TOOL ERROR: INTERRUPTED"));
    // And the thread is free for the next turn, which is valid.
    h.start(request("t", vec![user("u2", "again")]), clock());
    assert_eq!(h.sent.len(), 2);
}

#[test]
fn a_second_run_on_a_busy_thread_is_refused() {
    let mut h = harness();
    h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
    let err = h
        .session
        .start_run(request("t", vec![user("u2", "y")]), ToolSet::default())
        .unwrap_err();
    assert_eq!(err.code(), "run/busy");
}

#[test]
fn two_threads_run_at_once_and_results_never_cross() {
    let mut h = harness();
    h.start(request("a", vec![user("ua", "x")]), clock());
    h.start(request("b", vec![user("ub", "y")]), clock());
    h.respond("a", clock_run("ca", "aa"));
    h.respond("b", clock_run("cb", "ab"));
    // A result for b's call delivered as thread a's is ignored.
    h.answer("a", "cb", ToolOutcome::Value(value!("wrong thread")));
    assert_eq!(h.sent.len(), 2);
    h.answer("b", "cb", ToolOutcome::Value(value!("b's")));
    h.answer("a", "ca", ToolOutcome::Value(value!("a's")));
    let body_b = &h.sent[2];
    let body_a = &h.sent[3];
    assert_eq!((body_b.0.as_str(), body_a.0.as_str()), ("b", "a"));
    let content = |v: &Value| v["messages"][2]["content"].as_str().unwrap().to_owned();
    assert_eq!(content(&body_b.2), "b's");
    assert_eq!(content(&body_a.2), "a's");
}

#[test]
fn history_new_sends_only_what_the_server_has_not_seen() {
    let mut h = asking_with(
        SessionConfig {
            history: HistoryMode::New,
            ..SessionConfig::default()
        },
        "time?",
    );
    assert_eq!(
        h.body(0)["messages"],
        json!([{"id":"u1","role":"user","content":"time?"}])
    );
    h.respond("t", clock_run("c1", "a1"));
    h.answer("t", "c1", ToolOutcome::Value(value!("now")));
    let messages = h.messages_sent(1);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["role"], "tool");
    assert_eq!(messages[0]["toolCallId"], "c1");
    h.respond("t", run_with(vec![text("a2", "It is now.")]));
    h.start(request("t", vec![user("u2", "thanks")]), clock());
    assert_eq!(
        h.body(2)["messages"],
        json!([{"id":"u2","role":"user","content":"thanks"}])
    );
}

#[test]
fn the_state_is_sent_without_the_servers_copy_of_the_tools() {
    // ag-ui-langgraph keeps the request's tools in its state and sends them back; sent back, they
    // would offer again a tool the user has just turned off.
    let mut h = asking("time?");
    let snapshot = json!({"type":"STATE_SNAPSHOT","snapshot":{
        "tools":[{"name":"get_browser_time","description":"d","parameters":{"type":"object"}}],
        "city":"Paris"
    }});
    h.respond("t", run_with(vec![vec![snapshot], text("a1", "hi")]));
    // The thread keeps the state as the server sent it.
    let kept = to_serde(h.session.state("t").unwrap());
    assert_eq!(kept["tools"][0]["name"], "get_browser_time");
    h.start(
        request("t", vec![user("u2", "time?")]),
        tool_set(&[], &["get_browser_time"], &[]),
    );
    assert_eq!(h.body(1)["state"], json!({"city":"Paris"}));
    assert_eq!(h.body(1)["tools"], json!([]));
    // A `tools` member that is no list of tools is the app's own, and is sent.
    for own in [
        json!({"favorites": ["get_time"]}),
        json!(["get_time"]),
        json!([{"title": "x"}]),
    ] {
        let mut h = harness();
        let mut req = request("t", vec![user("u1", "x")]);
        req.state = Some(value!({"tools": own, "city": "Paris"}));
        h.start(req, ToolSet::default());
        assert_eq!(h.body(0)["state"], json!({"tools": own, "city": "Paris"}));
    }
    // A state that is not an object is sent as it is.
    let mut h = harness();
    let mut req = request("t", vec![user("u1", "x")]);
    req.state = Some(value!(["tools"]));
    h.start(req, ToolSet::default());
    assert_eq!(h.body(0)["state"], json!(["tools"]));
}

#[test]
fn messages_already_in_the_thread_are_not_added_twice() {
    let mut h = harness();
    h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
    h.respond("t", run_with(vec![text("a1", "hi")]));
    // The app passes the whole history plus the new message, AI-SDK style.
    let mut all = h.result_messages(h.result());
    all.push(user("u2", "y"));
    h.start(request("t", all), ToolSet::default());
    let ids: Vec<_> = h
        .messages_sent(1)
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["u1", "a1", "u2"]);
}

#[test]
fn a_loaded_history_with_a_dangling_call_is_settled_before_the_next_run() {
    let mut h = harness();
    let history: Vec<Message> = from_serde(json!([
        {"id":"u1","role":"user","content":"x"},
        {"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"get_browser_time","arguments":"{}"}}]}
    ]));
    h.session.set_messages("t", history).unwrap();
    h.start(request("t", vec![user("u2", "hello?")]), ToolSet::default());
    let roles = h.roles_sent(0);
    assert_eq!(roles, ["user", "assistant", "tool", "user"]);
    assert!(h.jobs.is_empty(), "a stale call is never run");
}

#[test]
fn listeners_get_every_wire_event_and_the_loop_events() {
    let mut h = asking("x");
    h.respond("t", include_str!("fixtures/agui-real/pydantic-ai/run1.sse"));
    h.answer("t", "call_frontend_1", ToolOutcome::Value(value!("now")));
    h.respond("t", include_str!("fixtures/agui-real/pydantic-ai/run2.sse"));
    let kinds: Vec<String> = h
        .events
        .iter()
        .map(|e| match e {
            RuntimeEvent::Agui { event, .. } => event.type_name().to_owned(),
            other => to_serde(other)["type"].as_str().unwrap().to_owned(),
        })
        .collect();
    assert_eq!(kinds.first().map(String::as_str), Some("round_started"));
    assert_eq!(kinds.iter().filter(|k| *k == "round_started").count(), 2);
    assert_eq!(
        kinds.iter().filter(|k| k.as_str() == "RUN_STARTED").count(),
        2
    );
    assert_eq!(kinds.iter().filter(|k| *k == "tool_started").count(), 1);
    assert_eq!(kinds.iter().filter(|k| *k == "tool_finished").count(), 1);
    assert_eq!(kinds.last().map(String::as_str), Some("run_finished"));
    // 8 events in run1, 6 in run2: every one reaches the listeners.
    assert_eq!(
        kinds
            .iter()
            .filter(|k| k.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
            .count(),
        14
    );
}

#[test]
fn changed_messages_are_coalesced_until_taken() {
    let mut h = harness();
    h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
    let first = h.session.take_changed("t").unwrap();
    assert_eq!(first.len(), 1);
    assert!(h.session.take_changed("t").is_none(), "nothing new");
    h.open("t");
    let mut events = vec![started("r")];
    events.push(json!({"type":"TEXT_MESSAGE_START","messageId":"a1","role":"assistant"}));
    for word in ["one ", "two ", "three"] {
        events.push(json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":word}));
    }
    h.feed("t", sse(&events));
    let changed = h.session.take_changed("t").unwrap();
    assert_eq!(changed.len(), 1, "many deltas, one changed message");
    assert_eq!(to_serde(&changed[0])["content"], "one two three");
}

/// `n` assistant messages `m0..`, each started, given a word and ended.
fn assistant_messages(n: usize) -> Vec<Value> {
    let mut events = Vec::new();
    for k in 0..n {
        let id = format!("m{k}");
        events.push(json!({"type":"TEXT_MESSAGE_START","messageId":id,"role":"assistant"}));
        events.push(json!({"type":"TEXT_MESSAGE_CONTENT","messageId":id,"delta":"x"}));
        events.push(json!({"type":"TEXT_MESSAGE_END","messageId":id}));
    }
    events
}

/// Issue 38 (speed): past 1,024 messages between two takes the whole list was marked changed,
/// so each frame of a long mixed stream (about 2,000 new messages a frame) sent the whole thread
/// again: mixed 20 MB ran at 0.39 of the floor. Messages added since the last take go out as
/// their positions, however many; none of them is listed by id (no allocation each, issue 38's
/// memory point: a stream read with no frame between its events added 27,769).
#[test]
fn messages_added_between_takes_go_out_as_positions_however_many() {
    let n = 5_000;
    let mut h = harness();
    h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
    h.session.take_changed("t");
    h.open("t");
    let mut events = vec![started("r")];
    events.extend(assistant_messages(n));
    h.feed("t", sse(&events));
    let changed = h.session.take_changed_positions("t").unwrap();
    assert!(!changed.all);
    assert_eq!(changed.positions, (1..=n).collect::<Vec<_>>());
    assert_eq!(changed.len, n + 1);
    assert!(h.session.take_changed_positions("t").is_none(), "taken");
    // Taken: the next message is listed alone.
    h.feed("t", sse(&assistant_messages(n + 1)[3 * n..]));
    let next = h.session.take_changed_positions("t").unwrap();
    assert!(!next.all);
    assert_eq!(next.positions, [n + 1]);
}

/// Messages handed out before and changed in place with no take between are listed one by one
/// up to 1,024 (an id each); past that the whole list goes out (`all`), as after a snapshot.
#[test]
fn many_messages_changed_in_place_between_takes_mark_the_whole_list() {
    for (n, all) in [(1_024, false), (1_025, true)] {
        let mut h = harness();
        h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
        h.open("t");
        let mut events = vec![started("r")];
        let ids: Vec<String> = (0..n).map(|k| format!("m{k}")).collect();
        for id in &ids {
            events.push(json!({"type":"TEXT_MESSAGE_START","messageId":id,"role":"assistant"}));
        }
        h.feed("t", sse(&events));
        assert_eq!(h.session.take_changed_positions("t").unwrap().len, n + 1);
        // Every message handed out gets a word, and one more message comes.
        let mut events: Vec<Value> = ids
            .iter()
            .map(|id| json!({"type":"TEXT_MESSAGE_CONTENT","messageId":id,"delta":"x"}))
            .collect();
        events.push(json!({"type":"TEXT_MESSAGE_START","messageId":"late","role":"assistant"}));
        h.feed("t", sse(&events));
        let changed = h.session.take_changed_positions("t").unwrap();
        assert_eq!(changed.all, all, "{n} messages");
        let expected: Vec<usize> = if all {
            (0..=n + 1).collect()
        } else {
            (1..=n + 1).collect()
        };
        assert_eq!(changed.positions, expected, "{n} messages");
        assert_eq!(changed.len, n + 2);
    }
}

#[test]
fn stream_activity_is_one_flag_per_thread_until_taken() {
    let mut h = harness();
    h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
    assert!(!h.session.take_activity("t"), "no bytes yet");
    h.session.take_changed("t");
    let run = h.last_run("t");
    h.open("t");
    // Events the thread shows nothing for, in many chunks: one flag, taken once.
    let mut events = vec![started("r")];
    events.push(json!({"type":"STATE_SNAPSHOT","snapshot":{"n":0}}));
    for n in 1..=5 {
        events.push(json!({"type":"STEP_STARTED","stepName":format!("s{n}")}));
        events.push(json!({"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":n}]}));
    }
    for chunk in sse(&events).as_bytes().chunks(7) {
        h.feed("t", chunk);
    }
    assert!(h.session.take_changed("t").is_none(), "no message changed");
    assert!(h.session.take_activity("t"));
    assert!(!h.session.take_activity("t"), "taken");
    // A keep-alive comment is activity too; bytes of another run or thread are not.
    h.feed("t", b": ping\n\n");
    h.session.handle_bytes("t", "another-run", b": ping\n\n");
    h.session.handle_bytes("other", &run, b": ping\n\n");
    assert!(h.session.take_activity("t"));
    assert!(!h.session.take_activity("t"));
    assert!(!h.session.take_activity("other"));
    h.session.handle_bytes("t", "another-run", b": ping\n\n");
    assert!(!h.session.take_activity("t"), "not the current round");
}

#[test]
fn agui_events_can_be_turned_off_and_the_loop_still_runs() {
    let count = |h: &Harness| {
        h.events
            .iter()
            .filter(|e| matches!(e, RuntimeEvent::Agui { .. }))
            .count()
    };
    let mut h = asking("hi");
    h.respond("t", run_with(vec![text("a1", "one two")]));
    let with = count(&h);
    assert!(with > 0, "on by default");

    let mut h = harness();
    h.session.set_agui_events(false);
    h.start(request("t", vec![user("u1", "time?")]), clock());
    h.respond("t", clock_run("c1", "a1"));
    assert_eq!(count(&h), 0);
    // The call still ran and the turn still finished once it was answered.
    assert_eq!(h.jobs.len(), 1);
    h.answer("t", "c1", ToolOutcome::Value(value!("12:00")));
    h.respond("t", run_with(vec![text("a2", "It is noon.")]));
    assert_eq!(h.result().status, RunStatus::Completed);
    assert_eq!(h.result_messages(h.result()).len(), 4);
    assert_eq!(count(&h), 0);
}

// ---- hostile inputs -----------------------------------------------------------------------

#[test]
fn a_thread_id_that_cannot_be_one_path_segment_is_refused_and_nothing_is_sent() {
    let mut h = harness();
    for id in ["", ".", ".."] {
        let error = h
            .session
            .start_run(request(id, vec![user("u1", "hi")]), clock())
            .unwrap_err();
        assert_eq!(error.code(), "run/bad-request", "{id:?}");
        h.pump();
        assert!(h.sent.is_empty(), "{id:?}: nothing is sent");
        assert!(!h.session.is_running(id));
        assert!(h.session.messages(id).is_empty(), "{id:?}: nothing is kept");
    }
}

#[test]
fn every_other_thread_id_is_one_percent_encoded_segment_of_the_run_url() {
    let long = "x".repeat(10 * 1024);
    let cases: Vec<(&str, String)> = vec![
        ("../admin", "/api/threads/..%2Fadmin/runs".to_owned()),
        ("a/b", "/api/threads/a%2Fb/runs".to_owned()),
        ("a?x=1", "/api/threads/a%3Fx%3D1/runs".to_owned()),
        ("a#f", "/api/threads/a%23f/runs".to_owned()),
        ("%2e%2e", "/api/threads/%252e%252e/runs".to_owned()),
        ("a b", "/api/threads/a%20b/runs".to_owned()),
        (
            "Zürich 😀",
            "/api/threads/Z%C3%BCrich%20%F0%9F%98%80/runs".to_owned(),
        ),
        ("...", "/api/threads/.../runs".to_owned()),
        (&long, format!("/api/threads/{long}/runs")),
    ];
    for (id, url) in cases {
        let mut h = harness();
        h.start(request(id, vec![user("u1", "hi")]), clock());
        assert_eq!(h.urls, [url], "{id:?}");
        assert_eq!(
            h.body(0)["threadId"],
            json!(id),
            "the body keeps the id as it is"
        );
    }
}

#[test]
fn the_run_url_template_comes_from_the_config() {
    let mut h = Harness::new(SessionConfig {
        run_url: "https://agent.example/v1/{threadId}?t={threadId}".to_owned(),
        ..SessionConfig::default()
    });
    h.start(request("a/b", vec![user("u1", "hi")]), clock());
    assert_eq!(h.urls, ["https://agent.example/v1/a%2Fb?t=a%2Fb"]);
}

#[test]
fn an_unknown_pending_id_next_to_a_real_call_runs_the_real_call() {
    let mut h = asking("time?");
    let mut events = calling_clock();
    events.push(json!({"type":"RUN_FINISHED","threadId":"t","runId":"r",
        "outcome":{"type":"success","pendingToolCallIds":["ghost","c1"]}}));
    h.respond("t", sse(&events));
    let ids: Vec<_> = h.jobs.iter().map(|j| j.tool_call_id.as_str()).collect();
    assert_eq!(
        ids,
        ["c1"],
        "the real call runs; the unknown id has nothing to run"
    );
    h.answer("t", "c1", ToolOutcome::Value(value!("noon")));
    assert_eq!(
        h.sent.len(),
        2,
        "the restart carries the real call's result"
    );
    let tools: Vec<_> = h
        .tools_sent(1)
        .iter()
        .map(|m| (m["toolCallId"].clone(), m["content"].clone()))
        .collect();
    assert_eq!(tools, [(json!("c1"), json!("noon"))]);
}

#[test]
fn calls_settled_because_the_run_failed_do_not_say_the_user_stopped_it() {
    let mut h = asking("time?");
    let mut events = calling_clock();
    events.push(json!({"type":"RUN_ERROR","message":"the model crashed"}));
    h.respond("t", sse(&events));
    let result = h.result();
    assert_eq!(result.status, RunStatus::Error);
    let tools = tool_messages(&h.result_messages(result));
    assert_eq!(tools.len(), 1);
    let content = tools[0]["content"].as_str().unwrap();
    assert!(
        content.starts_with("TOOL ERROR: INTERRUPTED\n"),
        "{content}"
    );
    assert!(!content.contains("user stopped"), "{content}");
}

#[test]
fn a_call_a_later_turn_adds_to_an_earlier_message_is_settled_when_that_turn_ends() {
    for stop in [false, true] {
        let mut h = asking("hi");
        h.respond("t", run_with(vec![text("a1", "Hello.")]));
        assert_eq!(h.result().status, RunStatus::Completed);
        // The next run's call names the first run's message as its parent.
        h.start(request("t", vec![user("u2", "time?")]), clock());
        let events = calling_clock();
        h.open("t");
        h.feed("t", sse(&events[..2]));
        if stop {
            h.session.abort("t");
        } else {
            h.feed("t", sse(&[json!({"type":"RUN_ERROR","message":"down"})]));
        }
        h.pump();
        let result = h.result();
        assert_eq!(result.rounds, 1);
        let tools = tool_messages(&h.result_messages(result));
        assert_eq!(tools.len(), 1, "stop {stop}: {tools:?}");
        assert_eq!(tools[0]["toolCallId"], "c1");
    }
}

/// The clock called as `c1`, on a session whose tool results may have `bytes` bytes.
fn clock_called_limited_to(bytes: usize) -> Harness {
    let config = SessionConfig {
        max_tool_result_bytes: bytes,
        ..SessionConfig::default()
    };
    let mut h = asking_with(config, "time?");
    h.respond("t", clock_run("c1", "a1"));
    h
}

#[test]
fn a_tool_result_larger_than_the_limit_fails_and_the_model_is_told() {
    let mut h = clock_called_limited_to(16);
    // 17 bytes of UTF-8 in 9 characters: the limit is in bytes.
    h.answer("t", "c1", ToolOutcome::Value(value!("ééééééééx")));
    let messages = h.messages_sent(1).clone();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    let content = tool["content"].as_str().unwrap();
    assert!(
        content.starts_with("TOOL ERROR: TOOL_RESULT_TOO_LARGE\n"),
        "{content}"
    );
    assert!(
        content.contains("17 bytes") && content.contains("16"),
        "{content}"
    );
    let finished = h
        .events
        .iter()
        .find_map(|e| match e {
            RuntimeEvent::ToolFinished { error, .. } => error.clone(),
            _ => None,
        })
        .expect("tool_finished with an error");
    assert_eq!(finished.code, "TOOL_RESULT_TOO_LARGE");

    // Exactly at the limit passes, JSON values are measured as their JSON text.
    let mut h = clock_called_limited_to(16);
    h.answer("t", "c1", ToolOutcome::Value(value!({"a": "01234567"})));
    let messages = h.messages_sent(1).clone();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["content"], json!(r#"{"a":"01234567"}"#));
}

#[test]
fn a_call_may_be_called_only_while_it_runs() {
    let mut h = asking("time?");
    assert!(!h.session.may_call("t", "c1"), "not handed out yet");
    h.respond("t", clock_run("c1", "a1"));
    assert!(h.session.may_call("t", "c1"));
    assert!(!h.session.may_call("t", "c2"));
    assert!(!h.session.may_call("other", "c1"));
    h.session.abort("t");
    h.pump();
    assert!(
        !h.session.may_call("t", "c1"),
        "a stopped call is never called"
    );

    let mut h = asking("time?");
    h.respond("t", clock_run("c1", "a1"));
    let timeout = ToolFailure::new(FailureCode::Timeout, "too slow");
    h.answer("t", "c1", ToolOutcome::Failed(timeout));
    assert!(
        !h.session.may_call("t", "c1"),
        "a timed-out call is never called"
    );
}

#[test]
fn a_pending_list_naming_only_an_unknown_id_leaves_the_real_call_unrun_and_says_why() {
    let mut h = asking("time?");
    let mut events = calling_clock();
    events.push(json!({"type":"RUN_FINISHED","threadId":"t","runId":"r",
        "outcome":{"type":"success","pendingToolCallIds":["ghost"]}}));
    h.respond("t", sse(&events));
    assert!(
        h.jobs.is_empty(),
        "a call the server did not hand over is not run"
    );
    let result = h.result();
    assert_eq!(result.status, RunStatus::Completed);
    assert_eq!(result.rounds, 1);
    let tools = tool_messages(&h.result_messages(result));
    assert_eq!(tools.len(), 1, "the call is still answered");
    assert_eq!(tools[0]["toolCallId"], json!("c1"));
    let content = tools[0]["content"].as_str().unwrap();
    assert!(
        content.starts_with("TOOL ERROR: INTERRUPTED\nthe server did not hand this call to the client (RUN_FINISHED.outcome.pendingToolCallIds named only \"ghost\"), so it did not run\n"),
        "{content}"
    );
    assert!(!content.contains("user stopped"), "{content}");
    let diagnostics: Vec<_> = h
        .events
        .iter()
        .filter_map(|e| match e {
            RuntimeEvent::Diagnostic { diagnostic } => Some(diagnostic.code),
            _ => None,
        })
        .collect();
    assert_eq!(diagnostics, ["run/unknown-pending-call"]);
}

// ---- deadlines: session timers, time passed in ------------------------------------------------

#[test]
fn a_call_past_its_deadline_is_answered_with_timeout_and_its_signal_fires() {
    let mut h = asking("x");
    assert_eq!(h.session.poll_timeout(), None, "no call, no timer");
    h.respond("t", clock_run("c1", "a1"));
    assert_eq!(h.jobs.len(), 1);
    // The deadline starts when the host took the job.
    assert_eq!(h.session.poll_timeout(), Some(1_000 + 30_000));
    assert!(h.session.may_call("t", "c1"));

    h.advance(29_999);
    assert!(h.call_cancels.is_empty(), "one ms early: nothing happens");
    assert!(h.session.may_call("t", "c1"));
    // The module loaded and the handler was called: a timeout now says it did not answer.
    assert!(h.session.begin_call("t", "c1"));

    h.advance(1);
    assert_eq!(h.call_cancels, vec![("t".to_owned(), "c1".to_owned())]);
    assert!(
        !h.session.may_call("t", "c1"),
        "a timed-out call is never called"
    );
    assert_eq!(h.session.poll_timeout(), None);
    let finished: Vec<_> = h
        .events
        .iter()
        .filter_map(|e| match e {
            RuntimeEvent::ToolFinished { error, .. } => Some(error.clone().unwrap()),
            _ => None,
        })
        .collect();
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0].code, "TIMEOUT");
    assert!(finished[0]
        .message
        .starts_with("get_browser_time took longer than 30000 ms to answer"));
    assert!(
        !h.session.begin_call("t", "c1"),
        "a timed-out call is never begun"
    );
    // The restart carries the TIMEOUT answer; the handler's late value changes nothing.
    assert_eq!(h.sent.len(), 2);
    h.answer("t", "c1", ToolOutcome::Value(value!("late")));
    assert_eq!(h.sent.len(), 2);
    let tool = &h.body(1)["messages"][2];
    assert!(tool["content"]
        .as_str()
        .unwrap()
        .starts_with("TOOL ERROR: TIMEOUT"));
}

#[test]
fn a_tool_without_a_time_limit_gets_no_deadline_and_stop_still_interrupts_it() {
    let mut h = harness();
    let mut approve = tool("approve", json!({"type": "object"}));
    approve.time_limit = TimeLimit::Never;
    h.start(
        request("t", vec![user("u1", "x")]),
        tool_set(&[approve], &[], &[]),
    );
    h.respond("t", run_with(vec![call("a1", "approve", "{}", "m1")]));
    assert_eq!(h.jobs.len(), 1);
    assert_eq!(h.jobs[0].timeout_ms, None);
    assert_eq!(h.session.poll_timeout(), None, "no timer for it");
    h.advance(86_400_000);
    assert!(h.call_cancels.is_empty(), "a day later it still waits");
    assert_eq!(h.sent.len(), 1);
    h.session.abort("t");
    h.pump();
    let interrupted = h.events.iter().any(|e| {
        matches!(e, RuntimeEvent::ToolFinished { error: Some(error), .. } if error.code == "INTERRUPTED")
    });
    assert!(interrupted, "Stop answers it INTERRUPTED");
}

#[test]
fn a_tool_sets_its_own_deadline_and_the_earliest_one_is_the_timer() {
    let mut h = harness();
    let mut slow = tool("slow", json!({"type": "object"}));
    slow.time_limit = TimeLimit::Ms(5_000);
    let mut quick = tool("quick", json!({"type": "object"}));
    quick.time_limit = TimeLimit::Ms(300);
    h.start(
        request("t", vec![user("u1", "x")]),
        tool_set(&[slow, quick], &[], &[]),
    );
    h.respond(
        "t",
        run_with(vec![
            call("s1", "slow", "{}", "a1"),
            call("q1", "quick", "{}", "a1"),
        ]),
    );
    assert_eq!(h.jobs.len(), 2);
    assert_eq!(h.session.poll_timeout(), Some(1_300));
    h.answer("t", "q1", ToolOutcome::Value(value!("ok")));
    assert_eq!(
        h.session.poll_timeout(),
        Some(6_000),
        "the answered call's timer is gone"
    );
    h.advance(5_000);
    assert_eq!(h.call_cancels, vec![("t".to_owned(), "s1".to_owned())]);
    let timed_out = h.events.iter().find_map(|e| match e {
        RuntimeEvent::ToolFinished {
            error: Some(error), ..
        } => Some(error.message.clone()),
        _ => None,
    });
    assert_eq!(
        timed_out.as_deref(),
        Some("slow took longer than 5000 ms to load"),
        "never begun: its module did not load in time"
    );
    assert_eq!(h.sent.len(), 2, "both answered: the run restarts");
}

#[test]
fn stop_clears_the_timers_and_a_late_clock_changes_nothing() {
    let mut h = asking("x");
    h.respond("t", clock_run("c1", "a1"));
    h.session.abort("t");
    h.pump();
    assert_eq!(h.session.poll_timeout(), None);
    h.advance(60_000);
    assert!(h.call_cancels.is_empty());
    assert_eq!(h.results.len(), 1);
    assert_eq!(h.result().status, RunStatus::Aborted);
}

#[test]
fn the_app_headers_go_with_every_run_and_content_type_and_accept_are_the_sessions() {
    let config = SessionConfig {
        headers: vec![
            ("Authorization".to_owned(), "Bearer k".to_owned()),
            ("content-type".to_owned(), "text/plain".to_owned()),
            ("ACCEPT".to_owned(), "*/*".to_owned()),
        ],
        ..SessionConfig::default()
    };
    let mut h = Harness::new(config);
    h.start(request("t", vec![user("u1", "x")]), clock());
    h.respond("t", clock_run("c1", "a1"));
    h.answer("t", "c1", ToolOutcome::Value(value!("now")));
    assert_eq!(h.headers.len(), 2, "the restart too");
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    for headers in &h.headers {
        assert_eq!(
            *headers,
            pairs(&[
                ("Authorization", "Bearer k"),
                ("Content-Type", "application/json"),
                ("Accept", "text/event-stream"),
            ])
        );
    }
}

#[test]
fn an_http_error_quotes_a_bounded_trimmed_excerpt_of_the_body() {
    let mut h = harness();
    h.start(request("t", vec![user("u1", "x")]), ToolSet::default());
    let body = format!("  {}", "x".repeat(10_000));
    h.open_with("t", 502, Some("text/html"), Some(&body));
    let error = h.result().error.clone().unwrap();
    assert_eq!(error.status, Some(502));
    assert_eq!(
        error.message,
        format!(
            "the agent answered HTTP 502: {}",
            "x".repeat(chat_runtime::http::ERROR_BODY_CHARS)
        )
    );
}

// ---- stream resume (Last-Event-ID) ------------------------------------------------------------

/// The SSE body of `events`, each with `id: {n}` (its position), and `retry` on the first.
fn sse_with_ids(events: &[Value], retry: Option<u64>) -> String {
    let mut body = String::new();
    for (n, event) in events.iter().enumerate() {
        if n == 0 {
            if let Some(ms) = retry {
                body.push_str(&format!("retry: {ms}\n"));
            }
        }
        body.push_str(&format!("id: {n}\ndata: {event}\n\n"));
    }
    body
}

/// A run with text, reasoning-free tool call and more text: one round that calls the clock.
fn resumable_events() -> Vec<Value> {
    let mut events = vec![started("r")];
    events.extend(text("m1", "Let me look at the clock, \u{1F552} "));
    events.extend(call("c1", "get_browser_time", r#"{"format":"iso"}"#, "m1"));
    events.push(finished("r"));
    events
}

/// Where a resuming server starts again for `Last-Event-ID: n`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Replay {
    /// The events after `n` (what the SSE spec asks).
    After,
    /// Event `n` again, then the rest.
    At,
    /// Every event of the run again.
    Start,
}

/// What a resuming server sends for `Last-Event-ID: id`.
fn replay(events: &[Value], id: &str, mode: Replay) -> String {
    let n: usize = id.parse().unwrap();
    let from = match mode {
        Replay::After => n + 1,
        Replay::At => n,
        Replay::Start => 0,
    };
    let mut body = String::new();
    for (n, event) in events.iter().enumerate().skip(from) {
        body.push_str(&format!("id: {n}\ndata: {event}\n\n"));
    }
    body
}

/// Runs the first round of [`resumable_events`] with its body cut after `cut` bytes (the first
/// connection ends cleanly there, or fails with a network error), answers every reconnect with
/// the replay, and returns the harness after the clock call answered and the second round.
fn run_cut(cut: Option<usize>, network_error: bool) -> Harness {
    run_cut_replaying(cut, network_error, Replay::After)
}

/// [`run_cut`] against a server that resumes as `mode` says.
fn run_cut_replaying(cut: Option<usize>, network_error: bool, mode: Replay) -> Harness {
    let mut h = asking("time?");
    let events = resumable_events();
    let body = sse_with_ids(&events, Some(50));
    let run = h.last_run("t");
    h.open("t");
    let cut = cut.unwrap_or(body.len());
    h.feed("t", &body.as_bytes()[..cut]);
    if network_error && cut < body.len() {
        h.fail("t", "network error", None);
    } else {
        h.end("t");
    }
    h.pump();
    let mut answered = 0;
    while h.reconnects.len() > answered {
        let (thread, run_id, id, _) = h.reconnects[answered].clone();
        answered += 1;
        assert_eq!((thread.as_str(), run_id.as_str()), ("t", run.as_str()));
        h.respond("t", replay(&events, &id, mode));
    }
    if let Some(job) = h.jobs.first().cloned() {
        h.answer("t", &job.tool_call_id, ToolOutcome::Value(value!("noon")));
        h.respond("t", run_with(vec![text("m2", "It is noon.")]));
    }
    h
}

/// The AG-UI events listeners got, as JSON.
fn agui_events(h: &Harness) -> Vec<Value> {
    h.events
        .iter()
        .filter_map(|e| match e {
            RuntimeEvent::Agui { event, .. } => Some(to_serde(event)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_stream_cut_anywhere_resumes_from_the_last_complete_event_and_ends_as_the_uncut_one() {
    let whole = run_cut(None, false);
    let expected = whole.result().clone();
    assert_eq!(expected.status, RunStatus::Completed);
    assert!(whole.reconnects.is_empty());
    let expected_events = agui_events(&whole);
    let body = sse_with_ids(&resumable_events(), Some(50));
    // Every byte offset: between events, inside a line, inside the 4-byte emoji, inside `id:`.
    for cut in 0..body.len() {
        for network_error in [false, true] {
            let h = run_cut(Some(cut), network_error);
            let result = h.result();
            // The id a client may send: the last one followed by its blank line.
            let done = String::from_utf8_lossy(&body.as_bytes()[..cut]);
            let committed = done
                .rfind("\n\n")
                .and_then(|end| done[..end].rfind("id: ").map(|at| (at, end)))
                .map(|(at, end)| done[at + 4..end].lines().next().unwrap().to_owned());
            let Some(committed) = committed else {
                // No complete event yet: nothing to resume from, the turn ends as today.
                assert_eq!(result.status, RunStatus::Error, "cut {cut}");
                let code = &result.error.as_ref().unwrap().code;
                let allowed: &[&str] = if network_error {
                    &["run/network"]
                } else {
                    &["run/truncated", "decode/truncated"]
                };
                assert!(allowed.contains(&code.as_str()), "cut {cut}: {code}");
                continue;
            };
            assert_eq!(h.reconnects.len(), 1, "cut {cut}");
            assert_eq!(h.reconnects[0].2, committed, "cut {cut}");
            assert_eq!(h.reconnects[0].3, 50, "retry: 50 is the delay, cut {cut}");
            assert_eq!(result.status, RunStatus::Completed, "cut {cut}");
            assert_eq!(
                to_serde(h.result_messages(result)),
                to_serde(whole.result_messages(&expected)),
                "cut {cut}"
            );
            assert_eq!(
                agui_events(&h),
                expected_events,
                "no event twice, cut {cut}"
            );
            assert_eq!(h.jobs.len(), 1, "the clock ran once, cut {cut}");
            assert_eq!(
                h.sent.len(),
                2,
                "the restart is the only new request, cut {cut}"
            );
        }
    }
}

#[test]
fn a_server_that_replays_at_the_id_or_from_the_start_applies_no_event_twice() {
    let expected = run_cut(None, false);
    let expected_events = agui_events(&expected);
    let body = sse_with_ids(&resumable_events(), Some(50));
    for mode in [Replay::After, Replay::At, Replay::Start] {
        for cut in 0..body.len() {
            for network_error in [false, true] {
                let h = run_cut_replaying(Some(cut), network_error, mode);
                let result = h.result();
                if h.reconnects.is_empty() {
                    // Nothing to resume from: as in the test above.
                    assert_eq!(result.status, RunStatus::Error, "{mode:?} cut {cut}");
                    continue;
                }
                let what = format!("{mode:?} cut {cut} network error {network_error}");
                assert_eq!(h.reconnects.len(), 1, "{what}");
                assert_eq!(result.status, RunStatus::Completed, "{what}: {result:?}");
                assert_eq!(
                    to_serde(h.result_messages(result)),
                    to_serde(expected.result_messages(expected.result())),
                    "{what}"
                );
                assert_eq!(agui_events(&h), expected_events, "no event twice, {what}");
                assert_eq!(h.jobs.len(), 1, "the clock ran once, {what}");
            }
        }
    }
}

#[test]
fn a_replay_cut_before_it_caught_up_resumes_from_the_same_id_again() {
    let events = resumable_events();
    let mut h = asking("time?");
    // Events 0..=4 arrive, then the connection is cut.
    h.respond("t", sse_with_ids(&events[..5], None));
    assert_eq!(h.reconnects.last().unwrap().2, "4");
    // The server replays from the start and is cut after event 2: nothing new arrived.
    let again = replay(&events[..3], "0", Replay::Start);
    h.respond("t", &again);
    assert_eq!(h.reconnects.len(), 2);
    assert_eq!(
        h.reconnects[1].2, "4",
        "the last event applied, not the last replayed"
    );
    assert!(h.reconnects[1].3 > h.reconnects[0].3, "an attempt in a row");
    // Then at the id, and the run ends as the uncut one.
    h.respond("t", replay(&events, "4", Replay::At));
    let job = h.jobs[0].clone();
    h.answer("t", &job.tool_call_id, ToolOutcome::Value(value!("noon")));
    h.respond("t", run_with(vec![text("m2", "It is noon.")]));
    let expected = run_cut(None, false);
    assert_eq!(h.result().status, RunStatus::Completed);
    assert_eq!(
        to_serde(h.result_messages(h.result())),
        to_serde(expected.result_messages(expected.result()))
    );
    assert_eq!(agui_events(&h), agui_events(&expected));
}

#[test]
fn a_stream_without_ids_is_not_resumed() {
    let mut h = asking("x");
    h.open("t");
    h.feed("t", sse(&[started("r")]));
    h.fail("t", "network error", None);
    assert!(h.reconnects.is_empty());
    assert_eq!(h.result().error.as_ref().unwrap().code, "run/network");
}

#[test]
fn reconnects_are_bounded_and_back_off_from_retry_or_the_default() {
    for (retry, delays) in [(None, [1_000, 2_000, 4_000]), (Some(30), [30, 60, 120])] {
        let mut h = asking("x");
        let events = resumable_events();
        h.respond("t", sse_with_ids(&events[..2], retry));
        // The server keeps failing: twice at connect, once with an empty answer.
        h.fail("t", "offline", None);
        h.fail("t", "offline", None);
        h.open("t");
        h.end("t");
        let got: Vec<u64> = h.reconnects.iter().map(|r| r.3).collect();
        assert_eq!(got, delays);
        assert!(h.reconnects.iter().all(|r| r.2 == "1"));
        assert_eq!(h.result().error.as_ref().unwrap().code, "run/truncated");
        assert_eq!(h.sent.len(), 1);
    }
    // An attempt that brings new events starts the count again.
    let mut h = asking("x");
    let events = resumable_events();
    h.respond("t", sse_with_ids(&events[..1], None));
    for (n, event) in events.iter().enumerate().take(events.len() - 1).skip(1) {
        h.fail("t", "offline", None);
        let next = format!("id: {n}\ndata: {event}\n\n");
        h.respond("t", next);
    }
    assert!(h.results.is_empty(), "{:?}", h.results);
    assert_eq!(h.reconnects.len(), 2 * (events.len() - 2) + 1);
    assert!(h.reconnects.iter().all(|r| r.3 <= 2_000));
}

#[test]
fn a_cut_after_a_second_run_started_in_the_stream_is_resumed_not_taken_as_finished() {
    let mut h = asking("x");
    let mut events = vec![started("r"), finished("r"), started("r2")];
    events.extend(text("m2", "more"));
    h.respond("t", sse_with_ids(&events, Some(50)));
    assert_eq!(
        h.reconnects.len(),
        1,
        "the second run did not finish: the stream is resumed"
    );
    assert_eq!(h.reconnects[0].2, (events.len() - 1).to_string());
    assert!(h.results.is_empty(), "the turn goes on");
}

#[test]
fn a_cut_stream_waits_for_the_sessions_deadline_before_it_is_resumed() {
    let mut h = asking("x");
    h.auto_wait = false;
    let cut_at = h.now;
    h.respond("t", sse_with_ids(&resumable_events()[..2], Some(250)));
    // Nothing goes out during the wait; the one timer the host keeps says when it ends.
    assert!(h.reconnects.is_empty());
    assert_eq!(h.session.poll_timeout(), Some(cut_at + 250));
    assert_eq!(h.session.reconnect_deadline("t"), Some(cut_at + 250));
    h.advance(249);
    assert!(h.reconnects.is_empty(), "not before its deadline");
    h.advance(1);
    assert_eq!(h.reconnects.len(), 1);
    assert_eq!(h.reconnects[0].2, "1");
    assert_eq!(h.session.reconnect_deadline("t"), None);
    assert_eq!(h.session.poll_timeout(), None);

    // Stop during the wait: the deadline goes with the turn, nothing is resumed.
    let mut h = asking("x");
    h.auto_wait = false;
    h.respond("t", sse_with_ids(&resumable_events()[..2], Some(250)));
    h.session.abort("t");
    h.pump();
    assert_eq!(h.session.poll_timeout(), None);
    h.advance(1_000);
    assert!(h.reconnects.is_empty());
    assert_eq!(h.result().status, RunStatus::Aborted);

    // A host that cannot keep a timer resumes at once rather than strand the turn.
    let mut h = asking("x");
    h.auto_wait = false;
    h.respond("t", sse_with_ids(&resumable_events()[..2], Some(250)));
    assert!(h.session.skip_reconnect_waits());
    assert!(!h.session.skip_reconnect_waits(), "nothing more to skip");
    h.advance(0);
    assert_eq!(h.reconnects.len(), 1);
}

#[test]
fn a_reconnect_that_fails_with_http_or_after_stop_ends_as_usual() {
    let mut h = asking("x");
    h.respond("t", sse_with_ids(&resumable_events()[..3], None));
    assert_eq!(h.reconnects.len(), 1);
    h.open_with("t", 404, Some("text/plain"), Some("no such run"));
    assert_eq!(h.result().error.as_ref().unwrap().status, Some(404));

    let mut h = asking("x");
    h.respond("t", sse_with_ids(&resumable_events()[..3], None));
    h.session.abort("t");
    h.pump();
    assert_eq!(h.result().status, RunStatus::Aborted);
    // The reconnect's answer comes too late and changes nothing.
    h.open("t");
    h.end("t");
    assert_eq!(h.results.len(), 1);
}

// ---- the request as it went out (prepareRequest) ---------------------------------------------

/// Streams events 0..3 of [`resumable_events`] with ids into the thread's current round and
/// cuts the body: the session asks to reconnect.
fn cut_after_three(h: &mut Harness, thread: &str) {
    h.respond(thread, sse_with_ids(&resumable_events()[..3], None));
}

/// A [`BodySink`] that keeps each piece it is given.
struct Pieces(std::rc::Rc<std::cell::RefCell<Vec<String>>>);

impl BodySink for Pieces {
    fn push(&mut self, piece: &str) {
        self.0.borrow_mut().push(piece.to_owned());
    }

    fn finish(&mut self) -> chat_runtime::session::RequestBody {
        self.0.borrow().concat().into()
    }
}

#[test]
fn a_long_threads_body_goes_to_the_hosts_sink_in_pieces() {
    let pieces = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let mut session = chat_runtime::session::Session::with_body_sink(
        SessionConfig::default(),
        "x",
        Box::new(chat_runtime::tools::schema::NoPatterns),
        Box::new(Pieces(pieces.clone())),
    );
    // 200 messages of 1,000 characters: a body of about 220 KB.
    let messages: Vec<Message> = (0..200)
        .map(|i| user(&format!("u{i}"), &"x".repeat(1000)))
        .collect();
    session
        .start_run(request("t", messages), ToolSet::default())
        .unwrap();
    let body = std::iter::from_fn(|| session.poll_action(0))
        .find_map(|a| match a {
            chat_runtime::session::Action::Send { body, .. } => Some(body),
            _ => None,
        })
        .unwrap();
    let pieces = pieces.borrow();
    assert!(pieces.len() > 10, "{} pieces", pieces.len());
    // A piece ends after the message that brings it to `BODY_PIECE` bytes or more.
    for piece in &pieces[..] {
        assert!(
            piece.len() < BODY_PIECE + 1100,
            "a piece of {} bytes",
            piece.len()
        );
    }
    let text = body.text().unwrap();
    assert_eq!(text, pieces.concat());
    let sent: Value = serde_json::from_str(text).unwrap();
    assert_eq!(sent["messages"].as_array().unwrap().len(), 200);
    assert_eq!(sent["messages"][199]["id"], "u199");
}

#[test]
fn the_request_that_goes_out_shares_the_sessions_body_unless_the_host_shaped_it() {
    let mut session = harness().session;
    session
        .start_run(request("t", vec![user("u1", "hi")]), ToolSet::default())
        .unwrap();
    let (run, body): (String, chat_runtime::session::RequestBody) =
        std::iter::from_fn(|| session.poll_action(0))
            .find_map(|a| match a {
                chat_runtime::session::Action::Send { run_id, body, .. } => Some((run_id, body)),
                _ => None,
            })
            .unwrap();
    assert!(session.sent_request("t", &run).is_none(), "not sent yet");
    assert!(session.handle_request_prepared("t", &run, body.clone()));
    let sent = session.sent_request("t", &run).unwrap();
    assert!(
        std::ptr::eq(sent.body.text().unwrap(), body.text().unwrap()),
        "one copy of the body: the action's"
    );

    let mut h = asking("x");
    let run = h.last_run("t");
    assert!(h
        .session
        .handle_request_prepared("t", &run, r#"{"shaped":1}"#));
    assert_eq!(
        h.session
            .sent_request("t", &run)
            .unwrap()
            .body
            .text()
            .unwrap(),
        r#"{"shaped":1}"#
    );
}

#[test]
fn a_request_prepared_after_stop_is_refused_and_the_next_run_keeps_its_own() {
    let mut h = asking("first");
    let stopped = h.last_run("t");
    // The app's prepareRequest is still busy when the user stops the run.
    h.session.abort("t");
    h.pump();
    assert_eq!(h.result().status, RunStatus::Aborted);
    assert!(
        !h.session
            .handle_request_prepared("t", &stopped, r#"{"late":1}"#),
        "nothing of a stopped round is sent"
    );
    // The next run's request goes out shaped; the stopped round's answer comes in late.
    h.start(request("t", vec![user("u2", "second")]), clock());
    let next = h.last_run("t");
    assert!(h
        .session
        .handle_request_prepared("t", &next, r#"{"mine":2}"#));
    assert!(!h
        .session
        .handle_request_prepared("t", &stopped, r#"{"late":1}"#));
    assert!(
        !h.session
            .handle_request_prepared("t", &next, r#"{"again":3}"#),
        "a round's request goes out once"
    );
    cut_after_three(&mut h, "t");
    assert_eq!(h.reconnects.len(), 1);
    assert_eq!(h.reconnects[0].1, next);
    assert_eq!(
        h.resent[0],
        RoundRequest {
            url: h.urls[1].clone(),
            headers: h.headers[1].clone(),
            body: r#"{"mine":2}"#.into(),
        },
        "the reconnect re-sends exactly what went out for this round"
    );
}

#[test]
fn a_reconnect_re_sends_its_own_rounds_request_in_every_round() {
    let mut h = asking_with(
        SessionConfig {
            headers: vec![("Authorization".to_owned(), "Bearer k".to_owned())],
            ..SessionConfig::default()
        },
        "time?",
    );
    // Round 1: the host sends the Send's body as it is and does not report it.
    cut_after_three(&mut h, "t");
    let round1 = RoundRequest {
        url: h.urls[0].clone(),
        headers: h.headers[0].clone(),
        body: serde_json::to_string(h.body(0)).unwrap().into(),
    };
    assert_eq!(
        serde_json::from_str::<Value>(h.resent[0].body.text().unwrap()).unwrap(),
        *h.body(0)
    );
    assert_eq!(
        (&h.resent[0].url, &h.resent[0].headers),
        (&round1.url, &round1.headers)
    );
    let run = h.last_run("t");
    h.respond("t", replay(&resumable_events(), "2", Replay::After));
    // Round 2 (the restart) is shaped by the host, then cut: its own body goes again.
    let job = h.jobs[0].clone();
    h.answer("t", &job.tool_call_id, ToolOutcome::Value(value!("noon")));
    let restart = h.last_run("t");
    assert_ne!(restart, run);
    assert!(h
        .session
        .handle_request_prepared("t", &restart, r#"{"round":2}"#));
    // A late report for round 1 changes nothing.
    assert!(!h
        .session
        .handle_request_prepared("t", &run, r#"{"round":1}"#));
    cut_after_three(&mut h, "t");
    assert_eq!(h.reconnects.len(), 2);
    assert_eq!(h.reconnects[1].1, restart);
    assert_eq!(h.resent[1].body.text().unwrap(), r#"{"round":2}"#);
    assert_eq!(h.resent[1].headers, h.headers[1]);
    assert!(h.resent[1]
        .headers
        .contains(&("Authorization".to_owned(), "Bearer k".to_owned())));
}

// ---- pending calls of a loaded history ---------------------------------------------------------

/// A reloaded history: the user asked, the assistant called `calls` and nothing answered them.
fn reloaded(h: &mut Harness, calls: Value) {
    let history: Vec<Message> = from_serde(json!([
        {"id":"u1","role":"user","content":"what time is it?"},
        {"id":"a1","role":"assistant","toolCalls": calls}
    ]));
    h.session.set_messages("t", history).unwrap();
}

fn fn_call(id: &str, name: &str, args: &str) -> Value {
    json!({"id":id,"type":"function","function":{"name":name,"arguments":args}})
}

fn run_pending() -> RunRequest {
    RunRequest {
        pending: Pending::Run,
        ..request("t", vec![])
    }
}

/// A host whose thread `t` was reloaded with the clock call `c1` unanswered and runs it
/// (`pending: "run"`).
fn pending_clock_call() -> Harness {
    let mut h = harness();
    reloaded(
        &mut h,
        json!([fn_call("c1", "get_browser_time", r#"{"format":"iso"}"#)]),
    );
    h.start(run_pending(), clock());
    h
}

#[test]
fn pending_calls_names_what_a_pending_run_would_run_until_it_ran() {
    let mut h = harness();
    assert!(h.session.pending_calls("t").is_empty(), "an unknown thread");
    let history: Vec<Message> = from_serde(json!([
        {"id":"u0","role":"user","content":"earlier"},
        {"id":"a0","role":"assistant","toolCalls":[fn_call("old", "get_browser_time", r#"{"format":"iso"}"#)]},
        {"id":"u1","role":"user","content":"now"},
        {"id":"a1","role":"assistant","toolCalls":[
            fn_call("c1", "get_browser_time", r#"{"format":"iso"}"#),
            fn_call("c2", "get_browser_time", r#"{"format":"iso"}"#)
        ]},
        {"id":"t2","role":"tool","toolCallId":"c2","content":"noon"}
    ]));
    h.session.set_messages("t", history).unwrap();
    // Only the last assistant message's call without a result: `old` is settled, `c2` answered.
    assert_eq!(h.session.pending_calls("t"), ["c1"]);
    h.start(run_pending(), clock());
    assert_eq!(h.jobs.len(), 1);
    assert_eq!(h.jobs[0].tool_call_id, "c1", "the run runs what it named");
    h.answer("t", "c1", ToolOutcome::Value(value!("noon")));
    assert!(
        h.session.pending_calls("t").is_empty(),
        "answered: nothing left"
    );
}

#[test]
fn pending_run_executes_a_loaded_call_once_then_sends_its_result() {
    let mut h = pending_clock_call();
    assert_eq!(h.jobs.len(), 1);
    assert_eq!(h.jobs[0].tool_call_id, "c1");
    assert_eq!(h.jobs[0].args, value!({"format": "iso"}));
    assert!(h.sent.is_empty(), "the request waits for the call's result");
    h.answer("t", "c1", ToolOutcome::Value(value!("noon")));
    assert_eq!(h.sent.len(), 1);
    let messages = h.messages_sent(0).clone();
    let roles: Vec<_> = messages.iter().map(|m| m["role"].clone()).collect();
    assert_eq!(roles, ["user", "assistant", "tool"]);
    assert_eq!(messages[2]["toolCallId"], "c1");
    assert_eq!(messages[2]["content"], "noon");
    // The tool events carry the run id of the request that sent the result.
    let run = h.last_run("t");
    assert_eq!(h.jobs[0].run_id, run);
    h.respond("t", run_with(vec![text("a2", "It is noon.")]));
    let result = h.result().clone();
    assert_eq!(result.status, RunStatus::Completed);
    assert_eq!(result.rounds, 1);
    assert_eq!(
        result.new_messages(h.session.messages("t")).len(),
        2,
        "the tool result and the answer"
    );
    // Once: the next turn has nothing pending.
    h.start(run_pending(), clock());
    assert_eq!(h.jobs.len(), 1);
    assert_eq!(h.sent.len(), 2);
}

#[test]
fn pending_run_applies_toggles_and_validation_and_settles_what_it_cannot_run() {
    let mut h = harness();
    let history: Vec<Message> = from_serde(json!([
        {"id":"u0","role":"user","content":"earlier"},
        {"id":"a0","role":"assistant","toolCalls":[fn_call("old", "get_browser_time", r#"{"format":"iso"}"#)]},
        {"id":"u1","role":"user","content":"now"},
        {"id":"a1","role":"assistant","toolCalls":[
            fn_call("ok", "get_browser_time", r#"{"format":"iso"}"#),
            fn_call("bad", "get_browser_time", r#"{"format":1}"#),
            fn_call("off", "read_notes", "{}"),
            fn_call("srv", "search", "{}")
        ]}
    ]));
    h.session.set_messages("t", history).unwrap();
    h.start(
        run_pending(),
        tool_set(&[browser_time()], &["read_notes"], &["search"]),
    );
    let ran: Vec<_> = h.jobs.iter().map(|j| j.tool_call_id.as_str()).collect();
    assert_eq!(ran, ["ok"]);
    h.answer("t", "ok", ToolOutcome::Value(value!("noon")));
    assert_eq!(h.sent.len(), 1);
    let result_of = |id: &str| {
        h.messages_sent(0)
            .iter()
            .find(|m| m["toolCallId"] == id)
            .unwrap_or_else(|| panic!("a result for {id}"))
            .clone()
    };
    assert_eq!(result_of("ok")["content"], "noon");
    assert!(result_of("bad")["content"]
        .as_str()
        .unwrap()
        .contains("INVALID_TOOL_ARGUMENTS"));
    assert!(result_of("off")["content"]
        .as_str()
        .unwrap()
        .contains("TOOL_NOT_AVAILABLE"));
    // A backend call and an older message's call are not the browser's to run now.
    for id in ["srv", "old"] {
        assert!(
            result_of(id)["content"]
                .as_str()
                .unwrap()
                .contains("INTERRUPTED"),
            "{id}"
        );
    }
}

#[test]
fn pending_settle_is_the_default_and_a_stop_mid_call_settles_the_pending_call() {
    let mut h = harness();
    reloaded(
        &mut h,
        json!([fn_call("c1", "get_browser_time", r#"{"format":"iso"}"#)]),
    );
    h.start(
        RunRequest {
            pending: Pending::Settle,
            ..request("t", vec![])
        },
        clock(),
    );
    assert!(h.jobs.is_empty());
    assert_eq!(h.sent.len(), 1);

    let mut h = pending_clock_call();
    assert_eq!(h.jobs.len(), 1);
    h.session.abort("t");
    h.pump();
    assert!(!h.session.may_call("t", "c1"));
    let result = h.result();
    assert_eq!(result.status, RunStatus::Aborted);
    assert!(h.sent.is_empty());
    let tools = tool_messages(&h.result_messages(result));
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["toolCallId"], "c1");
    assert!(tools[0]["content"]
        .as_str()
        .unwrap()
        .contains("INTERRUPTED"));
    // A late result changes nothing.
    h.answer("t", "c1", ToolOutcome::Value(value!("late")));
    assert!(h.sent.is_empty());
}

#[test]
fn removing_a_tool_answers_its_running_calls_interrupted_and_the_run_goes_on() {
    let mut h = harness();
    h.start(
        request("thread-1", vec![user("u1", "What time is it?")]),
        tool_set(&[browser_time()], &[], &[]),
    );
    h.respond(
        "thread-1",
        include_str!("fixtures/agui-real/pydantic-ai/run1.sse"),
    );
    assert_eq!(h.jobs.len(), 1);
    assert!(h.session.remove_tool("another_tool").is_empty());
    assert_eq!(h.sent.len(), 1, "no other tool's removal touches the call");

    let removed = h.session.remove_tool("get_browser_time");
    h.pump();
    assert_eq!(
        removed,
        vec![("thread-1".to_owned(), "call_frontend_1".to_owned())]
    );
    assert!(
        !h.session.may_call("thread-1", "call_frontend_1"),
        "a call whose module is still loading never reaches its handler"
    );
    assert_eq!(h.sent.len(), 2, "the run restarts with the call answered");
    let messages = &h.body(1)["messages"];
    let answer = messages.as_array().unwrap().last().unwrap();
    assert_eq!(answer["role"], "tool");
    assert_eq!(answer["toolCallId"], "call_frontend_1");
    let content = answer["content"].as_str().unwrap();
    assert!(
        content.starts_with(
            "TOOL ERROR: INTERRUPTED\nget_browser_time was removed from the page while it ran\n"
        ),
        "{content}"
    );
    assert!(content.contains("removed from the page"), "{content}");

    // The handler's late answer changes nothing.
    h.answer(
        "thread-1",
        "call_frontend_1",
        ToolOutcome::Value(value!("late")),
    );
    assert_eq!(h.sent.len(), 2);
    assert!(h.session.remove_tool("get_browser_time").is_empty());
}

#[test]
fn a_resumed_connection_whose_events_carry_no_ids_of_their_own_is_applied_whole() {
    // The first connection had `id:` fields; the server resumes after the last one and sends the
    // rest without ids. Those events inherit the last id, which says nothing about whether they
    // were sent before: none is dropped as a replay.
    let events = resumable_events();
    let mut h = asking("time?");
    h.respond("t", sse_with_ids(&events[..3], Some(1)));
    assert_eq!(h.reconnects.last().unwrap().2, "2");
    let mut rest = String::new();
    for event in &events[3..] {
        rest.push_str(&format!("data: {event}\n\n"));
    }
    h.respond("t", &rest);
    assert_eq!(h.jobs.len(), 1, "the call of the resumed part ran");
    let expected = run_cut(None, false);
    assert_eq!(
        to_serde(h.session.messages("t")),
        to_serde(&expected.result_messages(expected.result())[..2]),
        "the thread as without the cut: the text once, the call"
    );
}

/// `RUN_ERROR` ends the turn: a run the stream starts after it is not folded into the thread,
/// whether it comes in the same read or in later ones.
#[test]
fn nothing_after_run_error_is_folded_whatever_the_reads() {
    let body = sse(&[
        started("r"),
        json!({"type": "RUN_ERROR", "message": "boom"}),
        started("r2"),
        json!({"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "late"}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": "a1"}),
        finished("r2"),
    ]);
    for piece in [1, 16, body.len()] {
        let mut h = asking("Go.");
        h.open("t");
        for bytes in body.as_bytes().chunks(piece) {
            h.feed("t", bytes);
        }
        h.end("t");
        assert_eq!(h.result().status, RunStatus::Error, "reads of {piece}");
        let ids: Vec<&str> = h.session.messages("t").iter().map(Message::id).collect();
        assert_eq!(ids, ["u1"], "reads of {piece}");
    }
}

/// Without `agui` events (no listener reads them one by one) consecutive deltas are folded in
/// as one: the thread, its state and the run's end are the same as with them, whatever the
/// pieces the body arrives in. Every conformance body and the real servers' answers.
#[test]
fn deltas_fold_to_the_same_thread_with_or_without_agui_events() {
    let bodies: &[&str] = &[
        include_str!("fixtures/conformance/text-basic.sse"),
        include_str!("fixtures/conformance/text-roles.sse"),
        include_str!("fixtures/conformance/text-chunks.sse"),
        include_str!("fixtures/conformance/tool-calls-parallel.sse"),
        include_str!("fixtures/conformance/tool-call-chunks.sse"),
        include_str!("fixtures/conformance/state.sse"),
        include_str!("fixtures/conformance/messages-snapshot.sse"),
        include_str!("fixtures/conformance/activity.sse"),
        include_str!("fixtures/conformance/reasoning.sse"),
        include_str!("fixtures/conformance/subagents.sse"),
        include_str!("fixtures/conformance/run-error.sse"),
        include_str!("fixtures/conformance/outcomes-interrupt.sse"),
        include_str!("fixtures/conformance/outcomes-cancelled.sse"),
        include_str!("fixtures/conformance/multi-run.sse"),
        include_str!("fixtures/conformance/raw-custom.sse"),
        include_str!("fixtures/conformance/unicode.sse"),
        include_str!("fixtures/agui-real/pydantic-ai/run1.sse"),
        include_str!("fixtures/agui-real/pydantic-ai/run2.sse"),
        include_str!("fixtures/agui-real/pydantic-ai/parallel-run1.sse"),
        include_str!("fixtures/agui-real/ag-ui-server-starter/hitl-run1.sse"),
    ];
    let outcome = |body: &str, agui: bool, piece: usize| {
        let mut h = harness();
        h.session.set_agui_events(agui);
        h.start(request("t", vec![user("u1", "Go.")]), clock());
        h.open("t");
        for bytes in body.as_bytes().chunks(piece) {
            h.feed("t", bytes);
        }
        h.end("t");
        let messages: Vec<Value> = h.session.messages("t").iter().map(to_serde).collect();
        let state = h.session.state("t").map(to_serde);
        let ends: Vec<String> = h
            .results
            .iter()
            .map(|r| format!("{:?} {:?}", r.status, r.error))
            .collect();
        (messages, state, ends, h.jobs.len())
    };
    for (n, body) in bodies.iter().enumerate() {
        let expected = outcome(body, true, body.len());
        assert!(!expected.0.is_empty(), "body {n} folds to a thread");
        for piece in [1, 7, 64, body.len()] {
            assert_eq!(
                outcome(body, false, piece),
                expected,
                "body {n}, pieces of {piece}"
            );
        }
    }
}
