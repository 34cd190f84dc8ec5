//! The `RunAgentInput` builder, against request bodies captured from `@ag-ui/client` 1.0.

mod common;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::json::Value as JsonValue;
use chat_runtime::protocol::event::{
    Context, Event, Message, Parsed, ResumeEntry, ResumeStatus, Tool,
};
use chat_runtime::protocol::input::{
    History, Omitted, RunInputBuilder, OMITTABLE, PROTOCOL_VERSION,
};
use chat_runtime::protocol::thread::Thread;
use serde_json::{json, Value};

/// Splits a captured `text/event-stream` body into events.
fn sse(body: &str) -> Vec<Event> {
    body.split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .enumerate()
        .map(|(i, frame)| {
            let data = frame.trim().strip_prefix("data: ").expect("a data frame");
            match Event::parse(data, i) {
                Ok(Parsed::Event(e)) => e,
                other => panic!("frame {i}: {other:?}"),
            }
        })
        .collect()
}

fn body(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn tools_of(body: &Value) -> Vec<Tool> {
    from_serde(body["tools"].clone())
}

fn messages_of(body: &Value) -> Vec<Message> {
    from_serde(body["messages"].clone())
}

fn msg(value: Value) -> Message {
    from_serde(value)
}

/// Replays a first run and the browser's tool results, then builds the second request.
fn second_request(first: &Value, stream: &str, results: &[(&str, &str)], second: &Value) -> Value {
    let mut thread = Thread::with_messages(messages_of(first));
    for event in sse(stream) {
        thread.apply(&event).unwrap();
    }
    for (call, content) in results {
        thread.push_message(msg(json!({
            "id": format!("tool-result-{call}"), "role": "tool", "toolCallId": call, "content": content
        })));
    }
    let input = RunInputBuilder::new("thread-1", second["runId"].as_str().unwrap())
        .tools(tools_of(second))
        .build_for(&thread);
    serde_json::from_str(&input.to_json()).unwrap()
}

#[test]
fn first_request_matches_the_captured_ts_client_body() {
    for captured in [
        include_str!("fixtures/agui-real/pydantic-ai/run1.json"),
        include_str!("fixtures/agui-real/pydantic-ai/parallel-run1.json"),
    ] {
        let expected = body(captured);
        let thread = Thread::with_messages(messages_of(&expected));
        let input = RunInputBuilder::new("thread-1", expected["runId"].as_str().unwrap())
            .tools(tools_of(&expected))
            .build_for(&thread);
        assert_eq!(body(&input.to_json()), expected);
    }
}

#[test]
fn restart_after_a_frontend_call_matches_the_captured_ts_client_body() {
    let first = body(include_str!("fixtures/agui-real/pydantic-ai/run1.json"));
    let second = body(include_str!("fixtures/agui-real/pydantic-ai/run2.json"));
    let built = second_request(
        &first,
        include_str!("fixtures/agui-real/pydantic-ai/run1.sse"),
        &[("call_frontend_1", "2026-01-01T12:00:00Z")],
        &second,
    );
    assert_eq!(built, second);
}

#[test]
fn restart_after_parallel_frontend_calls_matches_the_captured_ts_client_body() {
    let first = body(include_str!(
        "fixtures/agui-real/pydantic-ai/parallel-run1.json"
    ));
    let second = body(include_str!(
        "fixtures/agui-real/pydantic-ai/parallel-run2.json"
    ));
    let built = second_request(
        &first,
        include_str!("fixtures/agui-real/pydantic-ai/parallel-run1.sse"),
        &[
            ("call_frontend_1", "2026-01-01T12:00:00Z"),
            ("call_frontend_2", "2026-01-01T12:00:00Z"),
        ],
        &second,
    );
    assert_eq!(built, second);
}

#[test]
fn restart_after_a_call_without_parent_matches_the_captured_body() {
    let second = body(include_str!(
        "fixtures/agui-real/ag-ui-server-starter/hitl-run2.json"
    ));
    let mut thread = Thread::with_messages(vec![msg(
        json!({ "id": "u1", "role": "user", "content": "What time is it in my browser?" }),
    )]);
    for event in sse(include_str!(
        "fixtures/agui-real/ag-ui-server-starter/hitl-run1.sse"
    )) {
        thread.apply(&event).unwrap();
    }
    thread.push_message(msg(json!({
        "id": "t1", "role": "tool", "toolCallId": "cd89cafc-58b0-4a0d-90b4-7ce2834c125f", "content": "approved"
    })));
    let input = RunInputBuilder::new("thread-1", "run-2")
        .tools(tools_of(&second))
        .build_for(&thread);
    assert_eq!(body(&input.to_json()), second);
}

#[test]
fn defaults_are_sent_as_empty_objects_and_arrays_never_null() {
    let input = RunInputBuilder::new("t", "r").build(&[]);
    assert_eq!(
        input.to_json(),
        r#"{"threadId":"t","runId":"r","protocolVersion":"1.0","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}"#
    );
    assert_eq!(PROTOCOL_VERSION, "1.0");
    let with_nulls = RunInputBuilder::new("t", "r")
        .state(JsonValue::Null)
        .forwarded_props(JsonValue::Null)
        .build(&[]);
    assert_eq!(with_nulls, input);
}

#[test]
fn activity_messages_are_not_sent() {
    let messages = vec![
        msg(json!({ "id": "u1", "role": "user", "content": "hi" })),
        msg(json!({ "id": "act", "role": "activity", "activityType": "plan", "content": {} })),
        msg(json!({ "id": "a1", "role": "assistant", "content": "hello" })),
    ];
    let input = RunInputBuilder::new("t", "r").build(&messages);
    let ids: Vec<&str> = input.messages.iter().map(Message::id).collect();
    assert_eq!(ids, ["u1", "a1"]);
}

#[test]
fn new_history_sends_only_the_messages_the_server_has_not_seen() {
    let messages: Vec<Message> = (0..4)
        .map(|i| msg(json!({ "id": format!("m{i}"), "role": "user", "content": "x" })))
        .collect();
    let ids = |history| {
        RunInputBuilder::new("t", "r")
            .history(history)
            .build(&messages)
            .messages
            .iter()
            .map(|m| m.id().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(History::Full), ["m0", "m1", "m2", "m3"]);
    assert_eq!(ids(History::New { first_unseen: 2 }), ["m2", "m3"]);
    assert_eq!(ids(History::New { first_unseen: 4 }), Vec::<String>::new());
    assert_eq!(ids(History::New { first_unseen: 9 }), Vec::<String>::new());
}

#[test]
fn the_threads_state_is_sent_unless_the_caller_overrides_it() {
    let mut thread = Thread::new();
    thread.set_state(value!({ "count": 3 }));
    let from_thread = RunInputBuilder::new("t", "r").build_for(&thread);
    assert_eq!(from_thread.state, Some(value!({ "count": 3 })));
    let overridden = RunInputBuilder::new("t", "r")
        .state(value!({ "count": 9 }))
        .build_for(&thread);
    assert_eq!(overridden.state, Some(value!({ "count": 9 })));
}

/// A builder with a context, forwarded props, a parent run and a resume answer.
fn with_everything(builder: RunInputBuilder) -> RunInputBuilder {
    builder
        .context(vec![Context {
            description: "user locale".into(),
            value: "fr-FR".into(),
        }])
        .forwarded_props(value!({ "model": "small" }))
        .parent_run_id("r0")
        .resume(vec![ResumeEntry {
            interrupt_id: "i1".into(),
            status: ResumeStatus::Resolved,
            payload: Some(value!({ "ok": true })),
            metadata: None,
        }])
}

#[test]
fn context_forwarded_props_parent_run_and_resume_are_sent_when_given() {
    let input = with_everything(RunInputBuilder::new("t", "r")).build(&[]);
    assert_eq!(
        body(&input.to_json()),
        json!({
            "threadId": "t", "runId": "r", "protocolVersion": "1.0", "parentRunId": "r0",
            "state": {}, "messages": [], "tools": [],
            "context": [{ "description": "user locale", "value": "fr-FR" }],
            "forwardedProps": { "model": "small" },
            "resume": [{ "interruptId": "i1", "status": "resolved", "payload": { "ok": true } }]
        })
    );
}

#[test]
fn the_body_written_from_borrowed_messages_is_the_inputs_json() {
    let messages = vec![
        msg(json!({ "id": "u1", "role": "user", "content": "hi" })),
        msg(json!({ "id": "act", "role": "activity", "activityType": "plan", "content": {} })),
        msg(json!({ "id": "a1", "role": "assistant", "content": "hello",
                    "toolCalls": [{ "id": "c1", "type": "function",
                                    "function": { "name": "f", "arguments": "{}" } }] })),
        msg(json!({ "id": "tr1", "role": "tool", "toolCallId": "c1", "content": "ok" })),
    ];
    let bare = RunInputBuilder::new("t", "r");
    let full = with_everything(RunInputBuilder::new("t", "r")).state(value!({ "count": 3 }));
    for builder in [bare, full] {
        assert_eq!(builder.body(&messages), builder.build(&messages).to_json());
        assert_eq!(builder.body(&messages[..0]), builder.build(&[]).to_json());
    }
}

#[test]
fn omitted_members_are_left_out_of_the_body_and_messages_stay() {
    let messages = vec![msg(json!({ "id": "u1", "role": "user", "content": "hi" }))];
    let omitted = Omitted::from_names(["runId", "parentRunId", "state"]).unwrap();
    let builder = with_everything(RunInputBuilder::new("t", "r")).omit(omitted);
    assert_eq!(
        body(&builder.body(&messages)),
        json!({
            "threadId": "t", "protocolVersion": "1.0",
            "messages": [{ "id": "u1", "role": "user", "content": "hi" }], "tools": [],
            "context": [{ "description": "user locale", "value": "fr-FR" }],
            "forwardedProps": { "model": "small" },
            "resume": [{ "interruptId": "i1", "status": "resolved", "payload": { "ok": true } }]
        })
    );
    // Every omittable member at once leaves `messages` (and `resume`, when answering).
    let all = Omitted::from_names(OMITTABLE).unwrap();
    let builder = RunInputBuilder::new("t", "r").omit(all);
    assert_eq!(
        body(&builder.body(&messages)),
        json!({ "messages": [{ "id": "u1", "role": "user", "content": "hi" }] })
    );
}

#[test]
fn only_run_agent_input_members_other_than_messages_and_resume_can_be_omitted() {
    // Each name of the table is its own bit, in the table's order.
    for (index, name) in OMITTABLE.iter().enumerate() {
        let one = Omitted::default().with(name).unwrap();
        let builder = with_everything(RunInputBuilder::new("t", "r")).omit(one);
        let written = body(&builder.body(&[]));
        let members: Vec<&str> = written
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert!(!members.contains(name), "{name} left out: {members:?}");
        // Ten members with everything given, less this one.
        assert_eq!(members.len(), 9, "{index} {name}: {members:?}");
    }
    assert_eq!(Omitted::from_names(["state", "messages"]), Err("messages"));
    assert_eq!(Omitted::from_names(["resume"]), Err("resume"));
    assert_eq!(Omitted::from_names(["runid"]), Err("runid"));
    assert_eq!(Omitted::from_names([]), Ok(Omitted::default()));
}
