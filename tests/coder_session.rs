//! The Coder backend in the sans-IO session (`Session::start_chat`): a chat is created or posted
//! to, its stream translated into the thread, each `action_required` batch run and submitted in
//! one POST, exactly once across reconnects; Stop interrupts; a reload settles or runs what the
//! chat owes before the message is posted.
#![cfg(feature = "coder")]

mod common;
use common::session_host::{tool, tool_set, user, ChatRequest, Harness};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::coder::options::CoderConfig;
use chat_runtime::coder::SubmitReply;
use chat_runtime::json::Value as JsonValue;
use chat_runtime::protocol::event::{Message, Tool};
use chat_runtime::session::{Pending, RunRequest, RunStatus, RuntimeEvent, SessionConfig, ToolSet};
use chat_runtime::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};
use serde_json::{json, Value};

const CHAT: &str = "c0de0000-0000-4000-8000-000000000001";

fn coder_host(token: Option<&str>) -> Harness {
    Harness::new(SessionConfig {
        coder: Some(CoderConfig {
            base_url: "/api/v2".to_owned(),
            organization_id: "org-1".to_owned(),
            session_token: token.map(str::to_owned),
            max_reconnects: Some(3),
            create: String::new(),
        }),
        ..SessionConfig::default()
    })
}

/// `get_weather` enabled, `paint` switched off.
fn tools() -> ToolSet {
    tool_set(
        &[tool("get_weather", json!({"type":"object"}))],
        &["paint"],
        &[],
    )
}

fn declared() -> Vec<Tool> {
    ["get_weather", "paint"]
        .iter()
        .map(|name| Tool {
            name: (*name).to_owned(),
            description: format!("the {name} tool"),
            parameters: Some(JsonValue::parse(r#"{"type":"object"}"#).unwrap()),
            metadata: None,
        })
        .collect()
}

/// Starts a turn (`thread` empty: a new chat) and returns the id it runs under.
fn start(h: &mut Harness, thread: &str, text: &str, pending: Pending) -> String {
    let request = RunRequest {
        thread_id: thread.to_owned(),
        messages: vec![user(&format!("u-{text}"), text)],
        pending,
        ..RunRequest::default()
    };
    let id = h.session.start_chat(request, tools(), declared()).unwrap();
    h.pump();
    id
}

/// The last request the session sent.
fn last_request(h: &Harness) -> ChatRequest {
    h.chat_requests.last().expect("a request went out").clone()
}

/// Answers the last request.
fn reply(h: &mut Harness, status: u16, body: Value) {
    let request = last_request(h);
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    h.session.handle_chat_reply(
        &request.thread_id,
        request.request_id,
        SubmitReply::Http(status, body),
    );
    h.pump();
}

/// One frame of the thread's latest stream: a JSON array of events.
fn frame(h: &mut Harness, thread: &str, events: Value) {
    let (_, stream, _) = h
        .streams
        .iter()
        .rev()
        .find(|(t, _, _)| t == thread)
        .expect("a stream was opened")
        .clone();
    h.session
        .handle_stream_frame(thread, stream, &format!("{events}\n"));
    h.pump();
}

/// The thread's latest stream ends.
fn drop_stream(h: &mut Harness, thread: &str) {
    let (_, stream, _) = h
        .streams
        .iter()
        .rev()
        .find(|(t, _, _)| t == thread)
        .unwrap()
        .clone();
    h.session.handle_stream_closed(thread, stream);
    h.pump();
}

fn message(id: i64, role: &str, content: Value) -> Value {
    json!({"type":"message","message":{"id":id,"role":role,"content":content}})
}

fn status(s: &str) -> Value {
    json!({"type":"status","status":{"status":s}})
}

fn call_part(id: &str, name: &str) -> Value {
    json!({"type":"tool-call","tool_call_id":id,"tool_name":name,"args":{"city":"Paris"}})
}

fn action_required(calls: &[(&str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name)| json!({"tool_call_id":id,"tool_name":name,"args":"{\"city\":\"Paris\"}"}))
        .collect();
    json!({"type":"action_required","action_required":{"tool_calls":calls}})
}

fn text(t: &str) -> Value {
    json!([{"type":"text","text":t}])
}

/// Creates a chat for "hello": the create is answered, the stream opened.
fn created_chat(h: &mut Harness) {
    start(h, "", "hello", Pending::Settle);
    reply(h, 201, json!({"id":CHAT,"status":"running"}));
}

/// Creates a chat whose first step calls `calls` and pauses: returns the chat id.
fn paused_chat(h: &mut Harness, calls: &[(&str, &str)]) -> String {
    start(h, "", "weather in Paris", Pending::Settle);
    reply(h, 201, json!({"id":CHAT,"status":"running"}));
    let parts: Vec<Value> = calls.iter().map(|(id, name)| call_part(id, name)).collect();
    frame(
        h,
        CHAT,
        json!([
            message(1, "user", text("weather in Paris")),
            status("running"),
            message(2, "assistant", Value::Array(parts)),
            status("requires_action"),
            action_required(calls),
        ]),
    );
    CHAT.to_owned()
}

/// A chat paused on `toolu_1`, which the page answered: its results POST is out.
fn answered_chat(h: &mut Harness) -> String {
    let chat = paused_chat(h, &[("toolu_1", "get_weather")]);
    h.answer(&chat, "toolu_1", ok(json!(1)));
    chat
}

fn ok(value: Value) -> ToolOutcome {
    ToolOutcome::Value(JsonValue::parse(&value.to_string()).unwrap())
}

fn results_posts(h: &Harness) -> Vec<ChatRequest> {
    h.chat_requests
        .iter()
        .filter(|r| r.url.ends_with("/tool-results"))
        .cloned()
        .collect()
}

fn roles(h: &Harness, thread: &str) -> Vec<String> {
    h.session
        .messages(thread)
        .iter()
        .map(|m| {
            match m {
                Message::User(_) => "user",
                Message::Assistant(_) => "assistant",
                Message::Tool(_) => "tool",
                Message::Reasoning(_) => "reasoning",
                _ => "other",
            }
            .to_owned()
        })
        .collect()
}

#[test]
fn a_new_chat_is_created_with_every_tool_and_its_stream_opened_under_the_chats_id() {
    let mut h = coder_host(Some("tok"));
    let provisional = start(&mut h, "", "weather in Paris", Pending::Settle);
    let create = last_request(&h);
    assert_eq!(create.url, "/api/v2/chats");
    assert_eq!(create.thread_id, provisional);
    assert_eq!(
        create.headers,
        vec![("Coder-Session-Token".to_owned(), "tok".to_owned())]
    );
    assert_eq!(create.body["organization_id"], "org-1");
    assert_eq!(
        create.body["content"],
        json!([{"type":"text","text":"weather in Paris"}])
    );
    let names: Vec<&str> = create.body["unsafe_dynamic_tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["get_weather", "paint"],
        "the switched-off tool is declared too"
    );
    assert!(h.streams.is_empty(), "no stream before the chat exists");

    reply(&mut h, 201, json!({"id":CHAT,"status":"running"}));
    assert_eq!(h.created, vec![(provisional.clone(), CHAT.to_owned())]);
    assert_eq!(
        h.streams.last().unwrap().2,
        format!("/api/v2/chats/{CHAT}/stream?coder_session_token=tok")
    );
    assert!(h.session.is_running(CHAT));
    assert!(!h.session.is_running(&provisional));
    assert_eq!(
        roles(&h, CHAT),
        ["user"],
        "the user's message shows under the chat's id"
    );
}

#[test]
fn one_call_runs_once_its_result_goes_in_one_post_and_the_turn_ends_when_the_chat_waits() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    assert_eq!(h.jobs.len(), 1);
    assert_eq!(h.jobs[0].tool_call_id, "toolu_1");
    assert_eq!(
        h.jobs[0].args,
        JsonValue::parse(r#"{"city":"Paris"}"#).unwrap()
    );
    assert!(
        results_posts(&h).is_empty(),
        "nothing is sent before the call answers"
    );

    h.answer(&chat, "toolu_1", ok(json!({"temp":21})));
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].url, format!("/api/v2/chats/{CHAT}/tool-results"));
    assert_eq!(
        posts[0].body,
        json!({"results":[{"tool_call_id":"toolu_1","output":{"temp":21},"is_error":false}]})
    );
    reply(&mut h, 204, Value::Null);
    assert!(h.results.is_empty());

    frame(
        &mut h,
        &chat,
        json!([
            json!({"type":"message","message":{"id":3,"role":"tool","content":[{"type":"tool-result","tool_call_id":"toolu_1","tool_name":"get_weather","result":{"temp":21}}]}}),
            status("running"),
            json!({"type":"message_part","message_part":{"role":"assistant","part":{"type":"text","text":"It is "},"history_version":1,"generation_attempt":1,"seq":1}}),
        ]),
    );
    assert_eq!(roles(&h, &chat), ["user", "assistant", "tool", "assistant"]);
    frame(
        &mut h,
        &chat,
        json!([
            message(4, "assistant", text("It is 21.")),
            status("waiting")
        ]),
    );
    let result = h.result().clone();
    assert_eq!(result.status, RunStatus::Completed);
    assert_eq!(result.thread_id, chat);
    assert_eq!(
        result.rounds, 2,
        "the first step and the one resumed by the results"
    );
    assert_eq!(roles(&h, &chat), ["user", "assistant", "tool", "assistant"]);
    let ids: Vec<&str> = h.session.messages(&chat).iter().map(|m| m.id()).collect();
    assert_eq!(
        ids,
        ["1", "2", "3", "4"],
        "the committed history replaced the deltas"
    );
    assert_eq!(h.closed_streams, vec![chat.clone()]);
    assert_eq!(h.jobs.len(), 1);
}

#[test]
fn parallel_calls_go_in_one_post_once_every_one_answered() {
    let mut h = coder_host(None);
    let chat = paused_chat(
        &mut h,
        &[("toolu_1", "get_weather"), ("toolu_2", "get_weather")],
    );
    assert_eq!(h.jobs.len(), 2, "both run at once");
    h.answer(&chat, "toolu_2", ok(json!("sunny")));
    assert!(results_posts(&h).is_empty());
    h.answer(
        &chat,
        "toolu_1",
        ToolOutcome::Failed(ToolFailure::new(FailureCode::ToolExecutionFailed, "boom")),
    );
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 1);
    let results = posts[0].body["results"].as_array().unwrap();
    assert_eq!(results[0]["tool_call_id"], "toolu_1");
    assert_eq!(results[0]["is_error"], true);
    assert!(results[0]["output"].as_str().unwrap().contains("boom"));
    assert_eq!(
        results[1],
        json!({"tool_call_id":"toolu_2","output":"sunny","is_error":false})
    );
}

#[test]
fn a_switched_off_tool_never_runs_and_is_answered_as_an_error_that_says_so() {
    let mut h = coder_host(None);
    paused_chat(&mut h, &[("toolu_1", "paint")]);
    assert!(h.jobs.is_empty());
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 1);
    let result = &posts[0].body["results"][0];
    assert_eq!(result["is_error"], true);
    assert!(
        result["output"]
            .as_str()
            .unwrap()
            .contains("the tool paint is disabled in this chat"),
        "{result}"
    );
}

/// The server sends `toolu_1`'s batch again, as it does on every reconnect.
fn batch_again(h: &mut Harness, chat: &str) {
    frame(
        h,
        chat,
        json!([
            status("requires_action"),
            action_required(&[("toolu_1", "get_weather")])
        ]),
    );
}

#[test]
fn a_batch_sent_again_on_reconnect_is_neither_run_nor_submitted_again() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    drop_stream(&mut h, &chat);
    assert_eq!(h.streams.len(), 2, "the stream is resumed after the wait");
    assert_eq!(
        h.streams[1].2,
        format!("/api/v2/chats/{CHAT}/stream?after_id=2")
    );
    batch_again(&mut h, &chat);
    assert_eq!(h.jobs.len(), 1, "the call running is not run again");
    h.answer(&chat, "toolu_1", ok(json!(1)));
    reply(&mut h, 204, Value::Null);
    drop_stream(&mut h, &chat);
    batch_again(&mut h, &chat);
    assert_eq!(h.jobs.len(), 1);
    assert_eq!(results_posts(&h).len(), 1, "one POST per batch");
}

#[test]
fn a_409_is_not_retried_and_the_turn_goes_on_with_the_servers_results() {
    let mut h = coder_host(None);
    let chat = answered_chat(&mut h);
    reply(
        &mut h,
        409,
        json!({"message":"Chat is not waiting for tool results."}),
    );
    assert_eq!(results_posts(&h).len(), 1);
    assert!(h.results.is_empty(), "the turn goes on");
    frame(
        &mut h,
        &chat,
        json!([
            json!({"type":"message","message":{"id":3,"role":"tool","content":[{"type":"tool-result","tool_call_id":"toolu_1","tool_name":"get_weather","result":"Tool execution timed out","is_error":true}]}}),
            status("running"),
            message(4, "assistant", text("Sorry.")),
            status("waiting"),
        ]),
    );
    assert_eq!(h.result().status, RunStatus::Completed);
}

#[test]
fn a_failed_post_is_sent_once_more_with_the_same_body_then_left_to_the_stream() {
    let mut h = coder_host(None);
    let chat = answered_chat(&mut h);
    let request = last_request(&h);
    h.session
        .handle_chat_reply(&chat, request.request_id, SubmitReply::Network);
    h.pump();
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 2);
    assert_eq!(posts[0].body, posts[1].body);
    reply(&mut h, 502, json!({"message":"bad gateway"}));
    assert_eq!(results_posts(&h).len(), 2, "never a third time");
    assert!(h.results.is_empty());
}

#[test]
fn a_refused_body_ends_the_turn_with_coders_error_kept() {
    let mut h = coder_host(None);
    answered_chat(&mut h);
    reply(
        &mut h,
        400,
        json!({"message":"Cannot submit tool results to an archived chat.","validations":[{"field":"results","detail":"x"}]}),
    );
    let result = h.result();
    assert_eq!(result.status, RunStatus::Error);
    let error = result.error.as_ref().unwrap();
    assert_eq!(error.code, "coder/http");
    assert_eq!(error.status, Some(400));
    let details = error.details.as_ref().unwrap().to_json();
    assert_eq!(
        serde_json::from_str::<Value>(&details).unwrap(),
        json!({"message":"Cannot submit tool results to an archived chat.","validations":[{"field":"results","detail":"x"}]})
    );
}

#[test]
fn stop_during_a_call_fires_it_sends_no_results_and_interrupts_until_the_chat_stops() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    h.session.abort(&chat);
    h.pump();
    assert_eq!(h.cancels, vec![chat.clone()]);
    assert_eq!(h.result().status, RunStatus::Aborted);
    let interrupt = last_request(&h);
    assert_eq!(interrupt.url, format!("/api/v2/chats/{CHAT}/interrupt"));
    assert!(interrupt.body.is_null());
    // Interrupted in requires_action, the chat goes on running: once more.
    reply(&mut h, 200, json!({"id":CHAT,"status":"running"}));
    assert_eq!(
        last_request(&h).url,
        format!("/api/v2/chats/{CHAT}/interrupt")
    );
    assert_eq!(h.chat_requests.len(), 3, "create, interrupt, interrupt");
    reply(&mut h, 200, json!({"id":CHAT,"status":"interrupting"}));
    assert_eq!(h.chat_requests.len(), 3, "no third interrupt");
    h.answer(&chat, "toolu_1", ok(json!(1)));
    assert!(results_posts(&h).is_empty(), "nothing is sent after Stop");
    assert!(h.closed_streams.contains(&chat));
}

#[test]
fn stop_while_the_chat_is_created_interrupts_it_once_it_exists() {
    let mut h = coder_host(None);
    let provisional = start(&mut h, "", "hello", Pending::Settle);
    h.session.abort(&provisional);
    h.pump();
    assert_eq!(h.result().status, RunStatus::Aborted);
    reply(&mut h, 201, json!({"id":CHAT,"status":"running"}));
    assert!(h.created.is_empty());
    assert!(h.streams.is_empty());
    assert_eq!(
        last_request(&h).url,
        format!("/api/v2/chats/{CHAT}/interrupt")
    );
}

#[test]
fn a_second_turn_resumes_the_stream_and_posts_once_the_chat_is_idle() {
    let mut h = coder_host(None);
    created_chat(&mut h);
    frame(
        &mut h,
        CHAT,
        json!([
            message(1, "user", text("hello")),
            message(2, "assistant", text("Hi.")),
            status("waiting")
        ]),
    );
    assert_eq!(h.result().status, RunStatus::Completed);
    let requests = h.chat_requests.len();

    start(&mut h, CHAT, "again", Pending::Settle);
    assert_eq!(
        h.streams.last().unwrap().2,
        format!("/api/v2/chats/{CHAT}/stream?after_id=2")
    );
    assert_eq!(
        h.chat_requests.len(),
        requests,
        "nothing is posted before the snapshot"
    );
    assert_eq!(roles(&h, CHAT), ["user", "assistant", "user"]);
    frame(
        &mut h,
        CHAT,
        json!([status("waiting"), {"type":"preview_reset"}]),
    );
    let post = last_request(&h);
    assert_eq!(post.url, format!("/api/v2/chats/{CHAT}/messages"));
    assert_eq!(
        post.body,
        json!({"content":[{"type":"text","text":"again"}]})
    );
    reply(
        &mut h,
        200,
        json!({"queued":false,"message":{"id":3,"role":"user","content":text("again")}}),
    );
    frame(
        &mut h,
        CHAT,
        json!([message(3, "user", text("again")), status("running")]),
    );
    let ids: Vec<&str> = h.session.messages(CHAT).iter().map(|m| m.id()).collect();
    assert_eq!(
        ids,
        ["1", "2", "3"],
        "the posted message replaced the local one"
    );
    frame(
        &mut h,
        CHAT,
        json!([message(4, "assistant", text("Again.")), status("waiting")]),
    );
    assert_eq!(h.results.len(), 2);
    assert_eq!(h.result().status, RunStatus::Completed);
}

/// A page reloaded while its chat waits on a call: a fresh session opens the chat.
fn reload_in_requires_action(pending: Pending) -> Harness {
    let mut h = coder_host(None);
    start(&mut h, CHAT, "next", pending);
    assert_eq!(
        h.streams.last().unwrap().2,
        format!("/api/v2/chats/{CHAT}/stream"),
        "a chat this page never read is read whole"
    );
    frame(
        &mut h,
        CHAT,
        json!([
            message(1, "user", text("weather in Paris")),
            message(2, "assistant", json!([call_part("toolu_1", "get_weather")])),
            status("requires_action"),
            action_required(&[("toolu_1", "get_weather")]),
            {"type":"preview_reset"},
        ]),
    );
    h
}

#[test]
fn a_reload_with_pending_settle_answers_the_owed_call_as_interrupted_then_posts() {
    let mut h = reload_in_requires_action(Pending::Settle);
    assert!(h.jobs.is_empty(), "settled, not run");
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].body["results"][0]["is_error"], true);
    assert!(posts[0].body["results"][0]["output"]
        .as_str()
        .unwrap()
        .contains("INTERRUPTED"));
    assert!(!h.chat_requests.iter().any(|r| r.url.ends_with("/messages")));
    reply(&mut h, 204, Value::Null);
    frame(&mut h, CHAT, json!([status("running")]));
    assert!(
        !h.chat_requests.iter().any(|r| r.url.ends_with("/messages")),
        "not while it runs"
    );
    frame(
        &mut h,
        CHAT,
        json!([message(3, "assistant", text("ok")), status("waiting")]),
    );
    assert_eq!(
        last_request(&h).url,
        format!("/api/v2/chats/{CHAT}/messages")
    );
    assert!(h.results.is_empty(), "the turn is the new message's");
}

#[test]
fn a_reload_with_pending_run_runs_the_owed_call_once_and_submits_it_first() {
    let mut h = reload_in_requires_action(Pending::Run);
    assert_eq!(h.jobs.len(), 1);
    h.answer(CHAT, "toolu_1", ok(json!({"temp":3})));
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].body["results"][0]["output"], json!({"temp":3}));
    assert!(!h.chat_requests.iter().any(|r| r.url.ends_with("/messages")));
}

#[test]
fn an_error_event_ends_the_turn_with_the_chats_error_kept() {
    let mut h = coder_host(None);
    created_chat(&mut h);
    frame(
        &mut h,
        CHAT,
        json!([
            {"type":"retry","retry":{"attempt":1,"delay_ms":2000,"error":"overloaded","kind":"overloaded","provider":"anthropic","status_code":529}},
        ]),
    );
    assert!(h.events.iter().any(|e| matches!(
        e,
        RuntimeEvent::Retry {
            attempt: 1,
            delay_ms: 2000,
            status_code: Some(529),
            ..
        }
    )));
    frame(
        &mut h,
        CHAT,
        json!([
            status("error"),
            {"type":"error","error":{"message":"Provider overloaded","kind":"overloaded","retryable":true,"provider":"anthropic","status_code":529}},
        ]),
    );
    let error = h.result().error.clone().unwrap();
    assert_eq!(error.code, "coder/error");
    assert_eq!(error.message, "Provider overloaded");
    assert_eq!(
        serde_json::from_str::<Value>(&error.details.unwrap().to_json()).unwrap(),
        json!({"kind":"overloaded","retryable":true,"provider":"anthropic","statusCode":529})
    );
}

#[test]
fn a_refused_create_ends_the_turn_with_the_status_and_body() {
    let mut h = coder_host(None);
    start(&mut h, "", "hello", Pending::Settle);
    reply(
        &mut h,
        400,
        json!({"message":"Duplicate dynamic tool name.","detail":"Tool \"x\" appears more than once."}),
    );
    let error = h.result().error.clone().unwrap();
    assert_eq!(error.code, "coder/http");
    assert_eq!(error.status, Some(400));
    assert!(
        error.message.contains("Duplicate dynamic tool name."),
        "{}",
        error.message
    );
    assert!(h.streams.is_empty());
}

#[test]
fn a_stream_that_keeps_closing_without_a_message_ends_the_turn() {
    let mut h = coder_host(None);
    created_chat(&mut h);
    for _ in 0..4 {
        drop_stream(&mut h, CHAT);
    }
    assert_eq!(h.streams.len(), 4, "the first and three resumes");
    let error = h.result().error.clone().unwrap();
    assert_eq!(error.code, "coder/stream");
}

#[test]
fn a_frame_of_a_closed_stream_is_ignored() {
    let mut h = coder_host(None);
    created_chat(&mut h);
    let (_, first, _) = h.streams[0].clone();
    drop_stream(&mut h, CHAT);
    h.session.handle_stream_frame(
        CHAT,
        first,
        &json!([message(1, "user", text("hello")), status("waiting")]).to_string(),
    );
    h.pump();
    assert!(h.results.is_empty());
}

#[test]
fn a_member_only_ag_ui_sends_is_refused_not_dropped() {
    let mut h = coder_host(None);
    let request = RunRequest {
        thread_id: CHAT.to_owned(),
        messages: vec![user("u1", "hello")],
        state: Some(JsonValue::parse(r#"{"a":1}"#).unwrap()),
        ..RunRequest::default()
    };
    assert_eq!(
        refused(&mut h, request),
        "`state` does not apply to the coder backend"
    );
    assert!(h.session.messages(CHAT).is_empty(), "nothing was added");
}

/// Starts a turn the session must refuse `run/bad-request`, with nothing sent: its message.
fn refused(h: &mut Harness, request: RunRequest) -> String {
    let error = h
        .session
        .start_chat(request, tools(), declared())
        .unwrap_err();
    assert_eq!(error.code(), "run/bad-request");
    h.pump();
    assert!(h.chat_requests.is_empty() && h.streams.is_empty());
    error.to_string()
}

#[test]
fn a_new_chat_may_run_under_the_apps_own_id_until_it_exists() {
    let mut h = coder_host(None);
    let request = RunRequest {
        thread_id: "draft-1".to_owned(),
        messages: vec![user("u1", "hello")],
        new_chat: true,
        ..RunRequest::default()
    };
    let id = h.session.start_chat(request, tools(), declared()).unwrap();
    h.pump();
    assert_eq!(id, "draft-1");
    assert_eq!(last_request(&h).url, "/api/v2/chats", "a chat is created");
    reply(&mut h, 201, json!({"id":CHAT,"status":"running"}));
    assert_eq!(h.created, vec![("draft-1".to_owned(), CHAT.to_owned())]);
    assert!(h.events.iter().any(|e| *e
        == RuntimeEvent::ThreadCreated {
            thread_id: CHAT.to_owned(),
            previous_thread_id: "draft-1".to_owned(),
        }));
    assert!(h.session.is_running(CHAT));
}

#[test]
fn a_message_a_chat_cannot_take_is_refused_not_dropped() {
    let mut h = coder_host(None);
    let parts =
        JsonValue::parse(r#"[{"type":"text","text":"see"},{"type":"image","url":"x"}]"#).unwrap();
    let JsonValue::Array(parts) = parts else {
        unreachable!()
    };
    let image = Message::User(chat_runtime::protocol::event::UserMessage {
        id: "u1".to_owned(),
        content: chat_runtime::protocol::event::Content::Parts(
            parts
                .into_iter()
                .map(|p| p.as_object().unwrap().clone())
                .collect(),
        ),
        rare: None,
    });
    let request = RunRequest {
        thread_id: CHAT.to_owned(),
        messages: vec![user("u0", "hello"), image],
        ..RunRequest::default()
    };
    assert_eq!(
        refused(&mut h, request),
        "messages[1]: a Coder chat takes text parts only"
    );
}

// ---- turns end exactly once (issue 36, point 7) ------------------------------------------------

/// A chat whose first turn completed: "hello" (1) answered "Hi." (2), the chat `waiting`.
fn idle_chat(h: &mut Harness) {
    created_chat(h);
    frame(
        h,
        CHAT,
        json!([
            message(1, "user", text("hello")),
            message(2, "assistant", text("Hi.")),
            status("waiting")
        ]),
    );
    assert_eq!(h.result().status, RunStatus::Completed);
}

/// A turn on the idle chat: its snapshot (`waiting`) lets the message go, and it is taken.
fn posted_turn(h: &mut Harness, said: &str) {
    start(h, CHAT, said, Pending::Settle);
    frame(h, CHAT, json!([status("waiting")]));
    assert_eq!(
        last_request(h).url,
        format!("/api/v2/chats/{CHAT}/messages")
    );
    reply(h, 200, json!({"queued":false}));
}

#[test]
fn after_stop_the_next_turn_is_not_ended_by_its_first_snapshot() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    h.session.abort(&chat);
    h.pump();
    assert_eq!(h.result().status, RunStatus::Aborted);
    start(&mut h, CHAT, "again", Pending::Settle);
    frame(&mut h, CHAT, json!([status("waiting")]));
    assert_eq!(h.results.len(), 1, "the snapshot ends nothing");
    // Stop's interrupt answered (the chat stopped): the message goes.
    let interrupt = last_request(&h);
    assert_eq!(interrupt.url, format!("/api/v2/chats/{CHAT}/interrupt"));
    reply(&mut h, 200, json!({"id":CHAT,"status":"waiting"}));
    assert_eq!(
        last_request(&h).url,
        format!("/api/v2/chats/{CHAT}/messages")
    );
    reply(&mut h, 200, json!({"queued":false}));
    frame(
        &mut h,
        CHAT,
        json!([
            message(5, "user", text("again")),
            message(6, "assistant", text("Again.")),
            status("waiting")
        ]),
    );
    assert_eq!(h.results.len(), 2);
    assert_eq!(h.result().status, RunStatus::Completed);
}

/// Stop's first interrupt is answered late: the next turn on the chat began meanwhile and its
/// snapshot says `waiting` (the chat, interrupted in requires_action, went on and ended its turn).
/// The next message waits for the interrupts Stop owes, so the second one, sent when the first
/// says `running`, never reaches the chat after the message and stops the next turn.
#[test]
fn the_next_message_waits_for_the_interrupts_stop_owes() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    h.session.abort(&chat);
    h.pump();
    assert_eq!(h.result().status, RunStatus::Aborted);
    let interrupt = last_request(&h);
    assert_eq!(interrupt.url, format!("/api/v2/chats/{CHAT}/interrupt"));
    start(&mut h, CHAT, "again", Pending::Settle);
    let interrupted = json!([{"type":"tool-result","tool_call_id":"toolu_1","tool_name":"get_weather",
        "result":"Tool execution interrupted by user","is_error":true}]);
    frame(
        &mut h,
        CHAT,
        json!([
            message(3, "tool", interrupted),
            message(4, "assistant", text("Stopped anyway.")),
            status("waiting")
        ]),
    );
    assert_eq!(
        messages_posted(&h),
        0,
        "no message while Stop's interrupt is out"
    );
    // The first interrupt's answer: the chat was `running` when it came.
    h.session.handle_chat_reply(
        CHAT,
        interrupt.request_id,
        SubmitReply::Http(200, json!({"id":CHAT,"status":"running"}).to_string()),
    );
    h.pump();
    assert_eq!(
        last_request(&h).url,
        format!("/api/v2/chats/{CHAT}/interrupt"),
        "the second interrupt"
    );
    assert_eq!(
        messages_posted(&h),
        0,
        "no message while the second interrupt is out"
    );
    reply(
        &mut h,
        409,
        json!({"message":"Chat is not in an interruptible state."}),
    );
    let post = last_request(&h);
    assert_eq!(post.url, format!("/api/v2/chats/{CHAT}/messages"));
    assert_eq!(
        post.body,
        json!({"content":[{"type":"text","text":"again"}]})
    );
    assert_eq!(h.results.len(), 1, "the next turn goes on");
    next_turn_completes(&mut h);
    let last = h.session.messages(CHAT).last().unwrap().id().to_owned();
    assert_eq!(last, "6");
}

fn interrupts(h: &Harness) -> usize {
    h.chat_requests
        .iter()
        .filter(|r| r.url.ends_with("/interrupt"))
        .count()
}

fn messages_posted(h: &Harness) -> usize {
    h.chat_requests
        .iter()
        .filter(|r| r.url.ends_with("/messages"))
        .count()
}

/// Stop, then the next turn on the chat, whose snapshot says `waiting`: returns Stop's
/// interrupt, unanswered, and the time it went out.
fn stopped_then_next_turn(h: &mut Harness) -> (ChatRequest, u64) {
    let chat = paused_chat(h, &[("toolu_1", "get_weather")]);
    h.session.abort(&chat);
    h.pump();
    let sent = h.now;
    let interrupt = last_request(h);
    assert_eq!(interrupt.url, format!("/api/v2/chats/{CHAT}/interrupt"));
    start(h, CHAT, "again", Pending::Settle);
    frame(h, CHAT, json!([status("waiting")]));
    assert_eq!(
        messages_posted(h),
        0,
        "no message while Stop's interrupt is out"
    );
    (interrupt, sent)
}

/// The rest of the next turn: its message taken, the chat's answer, `waiting`.
fn next_turn_completes(h: &mut Harness) {
    let post = last_request(h);
    assert_eq!(post.url, format!("/api/v2/chats/{CHAT}/messages"));
    reply(h, 200, json!({"queued":false}));
    frame(
        h,
        CHAT,
        json!([
            message(5, "user", text("again")),
            status("running"),
            message(6, "assistant", text("Again.")),
            status("waiting")
        ]),
    );
    assert_eq!(h.results.len(), 2);
    assert_eq!(h.result().status, RunStatus::Completed);
}

/// Stop's interrupt `request_id`, sent at `sent`, is held unanswered: nothing goes before its
/// deadline (ten seconds); at it the interrupt counts as unanswered (the driver aborts its fetch)
/// and the next message goes.
fn held_to_its_deadline(h: &mut Harness, request_id: u64, sent: u64) {
    assert_eq!(
        h.session.poll_timeout(),
        Some(sent + 10_000),
        "the interrupt's deadline is the session's"
    );
    h.now = sent + 9_999;
    h.session.handle_timeout(h.now);
    h.pump();
    assert_eq!(messages_posted(h), 0, "not before its deadline");
    h.now = sent + 10_000;
    h.session.handle_timeout(h.now);
    h.pump();
    assert!(
        !h.session.awaits_chat_reply(request_id),
        "counted unanswered: the driver aborts its fetch"
    );
    assert_eq!(messages_posted(h), 1, "the message is no longer held");
}

/// The chat's answer to an interrupt `request_id`: its status then.
fn interrupt_answered(h: &mut Harness, request_id: u64, status: &str) {
    h.session.handle_chat_reply(
        CHAT,
        request_id,
        SubmitReply::Http(200, json!({"id":CHAT,"status":status}).to_string()),
    );
    h.pump();
}

/// A server (or a proxy) that holds Stop's interrupt without an answer: at ten seconds it counts
/// as failed (as a network failure does: no second interrupt), the next message goes, the driver
/// may let the fetch go, and the late answer (`running`) sends no second interrupt that could
/// stop the turn just posted.
#[test]
fn an_interrupt_that_never_answers_holds_the_next_message_ten_seconds_at_most() {
    let mut h = coder_host(None);
    let (interrupt, sent) = stopped_then_next_turn(&mut h);
    assert!(h.session.awaits_chat_reply(interrupt.request_id));
    held_to_its_deadline(&mut h, interrupt.request_id, sent);
    assert_eq!(interrupts(&h), 1, "a failed interrupt is not sent again");
    assert_eq!(h.session.poll_timeout(), None, "no deadline left");
    // The late answer: the chat was `running`. No second interrupt goes now.
    interrupt_answered(&mut h, interrupt.request_id, "running");
    assert_eq!(interrupts(&h), 1, "the late answer changes nothing");
    assert_eq!(messages_posted(&h), 1);
    next_turn_completes(&mut h);
}

/// Stop during a call, and its interrupt never reached the chat (a network failure): the chat
/// goes on waiting for the call. The next turn, even with `pending: "run"`, does not run it (the
/// user stopped it): it answers it as stopped, then posts its message.
#[test]
fn a_call_stop_cut_short_is_not_run_by_the_next_turn_even_with_pending_run() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    assert_eq!(h.jobs.len(), 1, "the call runs");
    h.session.abort(&chat);
    h.pump();
    let interrupt = last_request(&h);
    assert_eq!(interrupt.url, format!("/api/v2/chats/{CHAT}/interrupt"));
    h.session
        .handle_chat_reply(CHAT, interrupt.request_id, SubmitReply::Network);
    h.pump();
    assert_eq!(interrupts(&h), 1, "a failed interrupt is not sent again");

    start(&mut h, CHAT, "again", Pending::Run);
    frame(
        &mut h,
        CHAT,
        json!([
            status("requires_action"),
            action_required(&[("toolu_1", "get_weather")]),
            {"type":"preview_reset"},
        ]),
    );
    assert_eq!(h.jobs.len(), 1, "the stopped call is not run again");
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 1, "it is answered");
    let result = &posts[0].body["results"][0];
    assert_eq!(result["tool_call_id"], "toolu_1");
    assert_eq!(result["is_error"], true);
    let output = result["output"].as_str().unwrap();
    assert!(output.contains("INTERRUPTED"), "{output}");
    assert!(output.contains("stopped"), "{output}");
    assert_eq!(messages_posted(&h), 0, "the results go first");
    reply(&mut h, 204, Value::Null);
    frame(
        &mut h,
        CHAT,
        json!([message(3, "assistant", text("Stopped.")), status("waiting")]),
    );
    assert_eq!(messages_posted(&h), 1, "then the message");
}

/// The second interrupt held: it gets its own ten seconds from when it went out.
#[test]
fn a_second_interrupt_that_never_answers_holds_the_next_message_ten_seconds_at_most() {
    let mut h = coder_host(None);
    let (interrupt, _) = stopped_then_next_turn(&mut h);
    h.now += 4_000;
    interrupt_answered(&mut h, interrupt.request_id, "running");
    let again = last_request(&h);
    assert_eq!(again.url, format!("/api/v2/chats/{CHAT}/interrupt"));
    let sent = h.now;
    held_to_its_deadline(&mut h, again.request_id, sent);
    interrupt_answered(&mut h, again.request_id, "waiting");
    assert_eq!(interrupts(&h), 2, "the late answer changes nothing");
    assert_eq!(messages_posted(&h), 1);
    next_turn_completes(&mut h);
}

/// Stop then `forgetThread`: the interrupt kept for the chat has the same deadline, and at it
/// the session holds nothing more for it.
#[test]
fn a_kept_interrupt_of_a_forgotten_thread_is_given_up_at_its_deadline() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    h.session.abort(&chat);
    h.pump();
    let sent = h.now;
    let interrupt = last_request(&h);
    assert!(matches!(
        h.session.forget_thread(&chat),
        chat_runtime::session::Forget::Forgotten
    ));
    h.pump();
    assert_eq!(h.session.poll_timeout(), Some(sent + 10_000));
    h.now = sent + 10_000;
    h.session.handle_timeout(h.now);
    h.pump();
    assert!(!h.session.awaits_chat_reply(interrupt.request_id));
    assert_eq!(h.session.poll_timeout(), None);
    assert_eq!(interrupts(&h), 1);
}

#[test]
fn a_refused_message_post_clears_the_turn_for_the_next_one() {
    let mut h = coder_host(None);
    idle_chat(&mut h);
    start(&mut h, CHAT, "refused", Pending::Settle);
    frame(&mut h, CHAT, json!([status("waiting")]));
    reply(
        &mut h,
        400,
        json!({"message":"Cannot send messages to an archived chat."}),
    );
    assert_eq!(h.result().status, RunStatus::Error);
    posted_turn(&mut h, "next");
    assert_eq!(h.results.len(), 2, "the next turn waits for its answer");
    frame(
        &mut h,
        CHAT,
        json!([
            message(3, "user", text("next")),
            message(4, "assistant", text("Next.")),
            status("waiting")
        ]),
    );
    assert_eq!(h.results.len(), 3);
    assert_eq!(h.result().status, RunStatus::Completed);
}

#[test]
fn a_stale_waiting_after_the_message_post_ends_nothing() {
    let mut h = coder_host(None);
    idle_chat(&mut h);
    posted_turn(&mut h, "again");
    frame(&mut h, CHAT, json!([status("waiting")]));
    assert_eq!(h.results.len(), 1, "the history lacks the posted message");
    frame(
        &mut h,
        CHAT,
        json!([
            message(3, "user", text("again")),
            status("running"),
            message(4, "assistant", text("Again.")),
            status("waiting")
        ]),
    );
    assert_eq!(h.results.len(), 2);
    assert_eq!(h.result().status, RunStatus::Completed);
}

#[test]
fn a_turn_without_a_status_event_ends_from_its_answer_and_the_chats_status_read_once() {
    let mut h = coder_host(None);
    created_chat(&mut h);
    frame(&mut h, CHAT, json!([message(1, "user", text("hello"))]));
    assert_eq!(h.chat_requests.len(), 1, "no answer yet: nothing is read");
    frame(&mut h, CHAT, json!([message(2, "assistant", text("Hi."))]));
    let read = last_request(&h);
    assert_eq!(read.method, "GET");
    assert_eq!(read.url, format!("/api/v2/chats/{CHAT}"));
    assert!(h.results.is_empty());
    reply(&mut h, 200, json!({"id":CHAT,"status":"waiting"}));
    assert_eq!(h.result().status, RunStatus::Completed);
    assert_eq!(h.chat_requests.len(), 2, "read once");

    // An error the read finds ends the turn with the chat's last error.
    posted_turn(&mut h, "again");
    frame(
        &mut h,
        CHAT,
        json!([
            message(3, "user", text("again")),
            message(4, "assistant", text("Partial."))
        ]),
    );
    assert_eq!(last_request(&h).method, "GET");
    reply(
        &mut h,
        200,
        json!({"id":CHAT,"status":"error","last_error":"the model is gone"}),
    );
    let result = h.result();
    assert_eq!(result.status, RunStatus::Error);
    let error = result.error.as_ref().unwrap();
    assert_eq!(error.code, "coder/error");
    assert_eq!(error.message, "the model is gone");
}

#[test]
fn a_refreshed_batch_of_answered_calls_resubmits_their_kept_answers_at_once() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    frame(
        &mut h,
        &chat,
        json!([action_required(&[
            ("toolu_1", "get_weather"),
            ("toolu_9", "get_weather")
        ])]),
    );
    h.answer(&chat, "toolu_1", ok(json!(1)));
    h.answer(&chat, "toolu_9", ok(json!(9)));
    assert_eq!(results_posts(&h).len(), 1);
    reply(
        &mut h,
        400,
        json!({"message":"Unexpected tool result.","detail":"No pending tool call with ID \"toolu_9\"."}),
    );
    frame(
        &mut h,
        &chat,
        json!([
            status("requires_action"),
            action_required(&[("toolu_1", "get_weather")])
        ]),
    );
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 2, "the kept answer goes at once");
    assert_eq!(
        posts[1].body,
        json!({"results":[{"tool_call_id":"toolu_1","output":1,"is_error":false}]})
    );
    assert_eq!(h.jobs.len(), 2, "nothing ran again");
    assert!(h.results.is_empty());
}

#[test]
fn a_batch_listing_one_call_twice_runs_it_once_and_submits_it_once() {
    let mut h = coder_host(None);
    let chat = paused_chat(
        &mut h,
        &[("toolu_1", "get_weather"), ("toolu_1", "get_weather")],
    );
    assert_eq!(h.jobs.len(), 1, "one run of the call");
    h.answer(&chat, "toolu_1", ok(json!(1)));
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 1);
    assert_eq!(
        posts[0].body,
        json!({"results":[{"tool_call_id":"toolu_1","output":1,"is_error":false}]})
    );
}

#[test]
fn a_results_post_failing_twice_is_reread_and_sent_again_within_a_bound() {
    let mut h = coder_host(None);
    let chat = answered_chat(&mut h);
    for round in 1..=3 {
        let streams = h.streams.len();
        reply(&mut h, 500, json!({"message":"boom"}));
        reply(&mut h, 500, json!({"message":"boom"}));
        if round == 3 {
            break;
        }
        assert_eq!(
            h.streams.len(),
            streams + 1,
            "the chat's state is read again"
        );
        assert!(h.results.is_empty());
        batch_again(&mut h, &chat);
        assert_eq!(
            results_posts(&h).len(),
            round * 2 + 1,
            "the kept answer goes again"
        );
    }
    let result = h.result();
    assert_eq!(result.status, RunStatus::Error);
    assert_eq!(result.error.as_ref().unwrap().code, "coder/http");
    assert_eq!(h.jobs.len(), 1, "never run again");
}

#[test]
fn a_results_post_that_never_answers_counts_as_failed_after_ten_seconds() {
    let mut h = coder_host(None);
    let chat = answered_chat(&mut h);
    let sent = h.now;
    assert_eq!(results_posts(&h).len(), 1);
    assert_eq!(
        h.session.poll_timeout(),
        Some(sent + 10_000),
        "the POST's deadline is the session's"
    );
    h.now = sent + 9_999;
    h.session.handle_timeout(h.now);
    h.pump();
    assert_eq!(results_posts(&h).len(), 1, "not before its deadline");
    h.now = sent + 10_000;
    h.session.handle_timeout(h.now);
    h.pump();
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 2, "counted failed: sent once more");
    assert_eq!(posts[1].body, posts[0].body);
    assert_eq!(h.session.poll_timeout(), Some(h.now + 10_000));
    // The first POST's late answer is no one's.
    h.session.handle_chat_reply(
        &chat,
        posts[0].request_id,
        SubmitReply::Http(204, String::new()),
    );
    h.pump();
    assert_eq!(results_posts(&h).len(), 2);
    // The second never answers either: the chat's state is read again; after three such
    // rounds the run ends, so it always settles.
    for round in 1..=3 {
        let streams = h.streams.len();
        h.now += 10_000;
        h.session.handle_timeout(h.now);
        h.pump();
        if round == 3 {
            break;
        }
        assert_eq!(
            h.streams.len(),
            streams + 1,
            "the chat's state is read again"
        );
        batch_again(&mut h, &chat);
        h.now += 10_000;
        h.session.handle_timeout(h.now);
        h.pump();
    }
    let result = h.result();
    assert_eq!(result.status, RunStatus::Error);
    assert_eq!(result.error.as_ref().unwrap().code, "run/network");
    assert_eq!(h.jobs.len(), 1, "never run again");
}

#[test]
fn a_results_post_is_awaited_until_answered_or_its_deadline() {
    // What the driver asks before it aborts a chat request's fetch (`awaits_chat_reply`).
    let mut h = coder_host(None);
    let chat = answered_chat(&mut h);
    let first = results_posts(&h)[0].request_id;
    assert!(h.session.awaits_chat_reply(first), "out and unanswered");
    h.now += 9_999;
    h.session.handle_timeout(h.now);
    h.pump();
    assert!(
        h.session.awaits_chat_reply(first),
        "not before its deadline"
    );
    h.now += 1;
    h.session.handle_timeout(h.now);
    h.pump();
    assert!(
        !h.session.awaits_chat_reply(first),
        "counted unanswered at its deadline"
    );
    let second = results_posts(&h)[1].request_id;
    assert_ne!(second, first);
    assert!(
        h.session.awaits_chat_reply(second),
        "the POST sent again is awaited"
    );
    h.session
        .handle_chat_reply(&chat, second, SubmitReply::Http(204, String::new()));
    h.pump();
    assert!(!h.session.awaits_chat_reply(second), "answered");
}

#[test]
fn a_reconnect_is_told_once_with_its_attempt_and_wait_and_cleared_by_a_frame() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    let _ = h.session.take_activity(&chat);
    assert_eq!(h.session.take_reconnecting(&chat), None);
    h.auto_wait = false;
    let reopen = |h: &mut Harness| {
        h.now = h.session.reconnect_deadline(&chat).unwrap();
        h.session.handle_timeout(h.now);
        h.pump();
    };
    drop_stream(&mut h, &chat);
    let (attempt, wait) = h.session.take_reconnecting(&chat).expect("a reconnect");
    assert_eq!(attempt, 1);
    assert!((700..=1_300).contains(&wait), "{wait}");
    assert_eq!(h.session.take_reconnecting(&chat), None, "told once");
    assert!(h.session.take_activity(&chat), "an activity event says it");
    reopen(&mut h);
    drop_stream(&mut h, &chat);
    assert_eq!(h.session.take_reconnecting(&chat).map(|r| r.0), Some(2));
    // A reconnect not told yet when the new stream's first frame comes: the stream is back.
    reopen(&mut h);
    drop_stream(&mut h, &chat);
    reopen(&mut h);
    frame(&mut h, &chat, json!([status("requires_action")]));
    assert_eq!(
        h.session.take_reconnecting(&chat),
        None,
        "the stream is back"
    );
}

// ---- reconnect like Coder's site (issue 36, point 4) -------------------------------------------

#[test]
fn the_stream_is_resumed_without_end_by_default_one_second_doubling_to_ten_jittered() {
    let mut h = Harness::new(SessionConfig {
        coder: Some(CoderConfig {
            base_url: "/api/v2".to_owned(),
            organization_id: "org-1".to_owned(),
            session_token: None,
            max_reconnects: None,
            create: String::new(),
        }),
        ..SessionConfig::default()
    });
    created_chat(&mut h);
    let mut waits = Vec::new();
    for _ in 0..12 {
        let at = h.now;
        drop_stream(&mut h, CHAT);
        waits.push(h.now - at);
    }
    assert!(h.results.is_empty(), "never given up");
    assert_eq!(h.streams.len(), 13);
    for (i, wait) in waits.iter().enumerate() {
        let nominal = (1_000u64 << i).min(10_000);
        assert!(
            *wait >= nominal * 7 / 10 && *wait <= nominal * 13 / 10,
            "wait {i}: {wait} ms, nominal {nominal}: {waits:?}"
        );
    }
    assert!(
        waits[5..].iter().any(|w| *w != waits[5]),
        "jittered: {waits:?}"
    );
    // Progress (a committed message) starts the count again.
    frame(
        &mut h,
        CHAT,
        json!([message(1, "user", text("hello")), status("running")]),
    );
    let at = h.now;
    drop_stream(&mut h, CHAT);
    assert!(h.now - at <= 1_300, "back to about 1 s");
}

#[test]
fn a_stream_that_closes_after_every_snapshot_backs_off_and_meets_the_bound() {
    let mut h = coder_host(None);
    created_chat(&mut h);
    let snapshot = json!([message(1, "user", text("hello")), status("running")]);
    frame(&mut h, CHAT, snapshot.clone());
    let mut waits = Vec::new();
    for _ in 0..4 {
        let at = h.now;
        drop_stream(&mut h, CHAT);
        waits.push(h.now - at);
        if h.results.is_empty() {
            frame(&mut h, CHAT, snapshot.clone());
        }
    }
    assert!(waits[2] > waits[0], "the waits grow: {waits:?}");
    let error = h.result().error.clone().unwrap();
    assert_eq!(error.code, "coder/stream");
}

// ---- why the stream failed (issue 36, point 5) -------------------------------------------------

#[test]
fn a_stream_refused_before_its_first_frame_is_asked_why_once_and_the_refusal_ends_the_turn() {
    for status in [401u16, 403, 404, 503, 400] {
        let mut h = coder_host(None);
        created_chat(&mut h);
        drop_stream(&mut h, CHAT);
        let probe = last_request(&h);
        assert_eq!(probe.method, "GET");
        assert_eq!(probe.url, format!("/api/v2/chats/{CHAT}/stream"));
        assert!(h.results.is_empty());
        reply(
            &mut h,
            status,
            json!({"message":"refused here","detail":"why"}),
        );
        let result = h.result();
        assert_eq!(result.status, RunStatus::Error);
        let error = result.error.as_ref().unwrap();
        assert_eq!(error.code, "coder/http", "{status}");
        assert_eq!(error.status, Some(status));
        assert!(error.message.contains("refused here"), "{}", error.message);
    }
}

#[test]
fn a_probe_that_finds_the_route_fine_or_coderd_away_leaves_the_reconnect_going() {
    for code in [426u16, 502] {
        let mut h = coder_host(None);
        created_chat(&mut h);
        drop_stream(&mut h, CHAT);
        reply(&mut h, code, json!({"message":"not now"}));
        assert!(h.results.is_empty(), "{code}");
        let requests = h.chat_requests.len();
        frame(&mut h, CHAT, json!([status("running")]));
        drop_stream(&mut h, CHAT);
        assert_eq!(
            h.chat_requests.len(),
            requests,
            "a stream that framed is not probed"
        );
    }
}

// ---- what Stop owes outlives the thread (issue 36, "misbehaves") -------------------------------

#[test]
fn stop_then_forget_still_sends_the_second_interrupt() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    h.session.abort(&chat);
    h.pump();
    assert!(matches!(
        h.session.forget_thread(&chat),
        chat_runtime::session::Forget::Forgotten
    ));
    assert!(h.session.messages(&chat).is_empty(), "the thread is gone");
    reply(&mut h, 200, json!({"id":CHAT,"status":"running"}));
    assert_eq!(
        last_request(&h).url,
        format!("/api/v2/chats/{CHAT}/interrupt")
    );
    assert_eq!(h.chat_requests.len(), 3, "create, interrupt, interrupt");
    reply(&mut h, 200, json!({"id":CHAT,"status":"waiting"}));
    assert_eq!(h.chat_requests.len(), 3);
}

/// The second interrupt out when the thread is forgotten is kept too: the driver aborts a fetch
/// the session no longer awaits, and this one must reach the chat.
#[test]
fn stop_then_forget_keeps_the_second_interrupt_awaited_until_its_deadline() {
    let mut h = coder_host(None);
    let chat = paused_chat(&mut h, &[("toolu_1", "get_weather")]);
    h.session.abort(&chat);
    h.pump();
    reply(&mut h, 200, json!({"id":CHAT,"status":"running"}));
    let again = last_request(&h);
    assert_eq!(again.url, format!("/api/v2/chats/{CHAT}/interrupt"));
    let sent = h.now;
    assert!(matches!(
        h.session.forget_thread(&chat),
        chat_runtime::session::Forget::Forgotten
    ));
    h.pump();
    assert!(
        h.session.awaits_chat_reply(again.request_id),
        "kept: its fetch is not aborted"
    );
    assert_eq!(h.session.poll_timeout(), Some(sent + 10_000));
    h.now = sent + 10_000;
    h.session.handle_timeout(h.now);
    h.pump();
    assert!(!h.session.awaits_chat_reply(again.request_id));
    assert_eq!(h.session.poll_timeout(), None);
}

// ---- body caps (issue 36, point 2) -------------------------------------------------------------

#[test]
fn a_results_batch_over_256_kib_answers_the_biggest_as_an_error_naming_the_limit() {
    let mut h = coder_host(None);
    let chat = paused_chat(
        &mut h,
        &[("toolu_1", "get_weather"), ("toolu_2", "get_weather")],
    );
    h.answer(&chat, "toolu_1", ok(json!("x".repeat(300_000))));
    h.answer(&chat, "toolu_2", ok(json!({"temp":21})));
    let posts = results_posts(&h);
    assert_eq!(posts.len(), 1);
    assert!(posts[0].body.to_string().len() <= 256 * 1024);
    let results = posts[0].body["results"].as_array().unwrap();
    assert_eq!(results[0]["tool_call_id"], "toolu_1");
    assert_eq!(results[0]["is_error"], true);
    let text = results[0]["output"].as_str().unwrap();
    assert!(
        text.starts_with("TOOL ERROR: TOOL_RESULT_TOO_LARGE\n"),
        "{text}"
    );
    assert!(text.contains("262144 bytes (256 KiB)"), "{text}");
    assert_eq!(
        results[1],
        json!({"tool_call_id":"toolu_2","output":{"temp":21},"is_error":false})
    );
}

#[test]
fn a_create_body_over_256_kib_is_refused_naming_the_tools_total_and_the_biggest() {
    let mut h = coder_host(None);
    let mut big = declared();
    big.push(Tool {
        name: "atlas".to_owned(),
        description: "d".repeat(300_000),
        parameters: None,
        metadata: None,
    });
    let request = RunRequest {
        messages: vec![user("u-1", "hello")],
        ..RunRequest::default()
    };
    let error = h.session.start_chat(request, tools(), big).unwrap_err();
    assert_eq!(error.code(), "run/bad-request");
    let message = error.to_string();
    assert!(
        message.contains("over Coder's 262144 (256 KiB)"),
        "{message}"
    );
    assert!(message.contains("its 3 tools take"), "{message}");
    assert!(message.contains("the biggest: atlas (300"), "{message}");
    h.pump();
    assert!(h.chat_requests.is_empty(), "nothing was sent");
}

// ---- schemas and names as coderd reads them (issue 36, point 3) --------------------------------

#[test]
fn a_builtin_name_or_an_unresolvable_ref_is_not_declared_and_a_diagnostic_says_why() {
    let mut h = coder_host(None);
    let mut more = declared();
    more.push(Tool {
        name: "read_file".to_owned(),
        description: "the page's own".to_owned(),
        parameters: None,
        metadata: None,
    });
    more.push(Tool {
        name: "refs".to_owned(),
        description: "a dangling ref".to_owned(),
        parameters: Some(
            JsonValue::parse(r##"{"type":"object","properties":{"a":{"$ref":"#/$defs/Nope"}}}"##)
                .unwrap(),
        ),
        metadata: None,
    });
    let request = RunRequest {
        messages: vec![user("u-1", "hello")],
        ..RunRequest::default()
    };
    h.session.start_chat(request, tools(), more).unwrap();
    h.pump();
    let create = last_request(&h);
    let names: Vec<&str> = create.body["unsafe_dynamic_tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get_weather", "paint"]);
    let diagnostics: Vec<(String, Option<String>)> = h
        .events
        .iter()
        .filter_map(|e| match e {
            RuntimeEvent::Diagnostic { diagnostic } => {
                Some((diagnostic.code.to_owned(), diagnostic.name.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        diagnostics,
        [
            (
                "tool/shadows-builtin".to_owned(),
                Some("read_file".to_owned())
            ),
            ("tool/coder-schema".to_owned(), Some("refs".to_owned())),
        ]
    );
}

// ---- the SDK's surface (issue 36, point 8) -----------------------------------------------------

#[test]
fn a_409_invalid_state_is_recovered_through_reconcile_invalid_once_and_the_message_posted_again() {
    let mut h = coder_host(None);
    idle_chat(&mut h);
    start(&mut h, CHAT, "again", Pending::Settle);
    frame(&mut h, CHAT, json!([status("waiting")]));
    let invalid = json!({"message":"Chat is in an invalid state."});
    reply(&mut h, 409, invalid.clone());
    assert_eq!(
        last_request(&h).url,
        format!("/api/v2/chats/{CHAT}/reconcile-invalid")
    );
    reply(&mut h, 200, json!({"id":CHAT,"status":"waiting"}));
    let post = last_request(&h);
    assert_eq!(post.url, format!("/api/v2/chats/{CHAT}/messages"));
    assert_eq!(
        post.body,
        json!({"content":[{"type":"text","text":"again"}]})
    );
    assert_eq!(h.results.len(), 1, "the turn goes on");
    // Invalid again in the same turn: not recovered twice, the turn ends with it.
    reply(&mut h, 409, invalid);
    assert_eq!(h.result().status, RunStatus::Error);
    assert_eq!(h.result().error.as_ref().unwrap().status, Some(409));
}

#[test]
fn a_message_with_a_busy_behavior_is_posted_at_once_whatever_the_chats_status() {
    let mut h = coder_host(None);
    idle_chat(&mut h);
    let request = RunRequest {
        thread_id: CHAT.to_owned(),
        messages: vec![user("u-now", "now")],
        busy_behavior: Some(chat_runtime::coder::wire::BusyBehavior::Interrupt),
        ..RunRequest::default()
    };
    h.session.start_chat(request, tools(), declared()).unwrap();
    h.pump();
    frame(&mut h, CHAT, json!([status("running")]));
    let post = last_request(&h);
    assert_eq!(post.url, format!("/api/v2/chats/{CHAT}/messages"));
    assert_eq!(
        post.body,
        json!({"content":[{"type":"text","text":"now"}],"busy_behavior":"interrupt"})
    );
}

#[test]
fn an_event_of_another_chat_is_dropped() {
    let mut h = coder_host(None);
    created_chat(&mut h);
    frame(
        &mut h,
        CHAT,
        json!([
            {"type":"message","chat_id":"c0de0000-0000-4000-8000-000000000099",
             "message":{"id":7,"role":"assistant","content":text("not yours")}},
            {"type":"message","chat_id":CHAT,"message":{"id":1,"role":"user","content":text("hello")}},
        ]),
    );
    let ids: Vec<&str> = h.session.messages(CHAT).iter().map(|m| m.id()).collect();
    assert_eq!(ids, ["1"]);
}
