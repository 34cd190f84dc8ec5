//! The thread reducer, on real captures and on every rule of `@ag-ui/client`'s `defaultApplyEvents`.

mod common;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::protocol::event::{Content, Event, Message, Parsed, ToolMessage};
use chat_runtime::protocol::thread::{
    Applied, PendingCall, ReduceError, Thread, FORWARDED_PLACEHOLDER,
};
use serde_json::{json, Value};

/// Splits a captured `text/event-stream` body into events (captures use `\n\n` and one `data:`
/// line per frame).
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

/// One event from its wire JSON.
fn ev(value: Value) -> Event {
    match Event::parse(&value.to_string(), 0) {
        Ok(Parsed::Event(e)) => e,
        other => panic!("{value}: {other:?}"),
    }
}

fn apply_all(thread: &mut Thread, events: &[Event]) {
    for (i, e) in events.iter().enumerate() {
        thread
            .apply(e)
            .unwrap_or_else(|err| panic!("event {i}: {err}"));
    }
}

fn messages_json(thread: &Thread) -> Value {
    to_serde(thread.messages())
}

fn msg(value: Value) -> Message {
    from_serde(value)
}

fn user(id: &str, text: &str) -> Message {
    msg(json!({ "id": id, "role": "user", "content": text }))
}

fn pending_ids(thread: &Thread) -> Vec<String> {
    thread
        .pending_tool_calls()
        .into_iter()
        .map(|p| p.tool_call_id)
        .collect()
}

fn start_tool(id: &str, name: &str, parent: Option<&str>) -> Event {
    let mut v = json!({ "type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name });
    if let Some(parent) = parent {
        v["parentMessageId"] = json!(parent);
    }
    ev(v)
}

fn args(id: &str, delta: &str) -> Event {
    ev(json!({ "type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": delta }))
}

fn end_tool(id: &str) -> Event {
    ev(json!({ "type": "TOOL_CALL_END", "toolCallId": id }))
}

fn result(message_id: &str, call: &str, content: &str) -> Event {
    ev(
        json!({ "type": "TOOL_CALL_RESULT", "messageId": message_id, "toolCallId": call, "content": content }),
    )
}

fn text(id: &str, content: &str) -> Vec<Event> {
    vec![
        ev(json!({ "type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant" })),
        ev(json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": content })),
        ev(json!({ "type": "TEXT_MESSAGE_END", "messageId": id })),
    ]
}

fn run_started() -> Event {
    ev(json!({ "type": "RUN_STARTED", "threadId": "t", "runId": "r" }))
}

fn run_finished(outcome: Option<Value>) -> Event {
    let mut v = json!({ "type": "RUN_FINISHED", "threadId": "t", "runId": "r" });
    if let Some(outcome) = outcome {
        v["outcome"] = outcome;
    }
    ev(v)
}

// ---- real captures ----

#[test]
fn pydantic_run1_puts_the_frontend_call_on_the_empty_assistant_message() {
    let mut thread = Thread::with_messages(vec![user("u1", "What time is it in my browser?")]);
    apply_all(
        &mut thread,
        &sse(include_str!("fixtures/agui-real/pydantic-ai/run1.sse")),
    );
    assert_eq!(
        messages_json(&thread),
        json!([
            { "id": "u1", "role": "user", "content": "What time is it in my browser?" },
            {
                "id": "25633a19-3614-4979-b63a-6405a67ed635",
                "role": "assistant",
                "content": "",
                "toolCalls": [{
                    "id": "call_frontend_1",
                    "type": "function",
                    "function": { "name": "get_browser_time", "arguments": "{\"format\": \"iso\"}" }
                }]
            }
        ])
    );
    assert!(thread.run_finished());
    assert_eq!(
        thread.pending_tool_calls(),
        vec![PendingCall {
            tool_call_id: "call_frontend_1".into(),
            tool_name: "get_browser_time".into(),
            arguments: "{\"format\": \"iso\"}".into(),
            parent_message_id: "25633a19-3614-4979-b63a-6405a67ed635".into(),
        }]
    );
}

#[test]
fn pydantic_parallel_calls_share_one_parent_and_are_both_pending_in_order() {
    let mut thread = Thread::with_messages(vec![user("u1", "Do this in parallel please")]);
    apply_all(
        &mut thread,
        &sse(include_str!(
            "fixtures/agui-real/pydantic-ai/parallel-run1.sse"
        )),
    );
    let call = |id: &str| {
        json!({
            "id": id,
            "type": "function",
            "function": { "name": "get_browser_time", "arguments": "{\"format\": \"iso\"}" }
        })
    };
    assert_eq!(
        messages_json(&thread),
        json!([
            { "id": "u1", "role": "user", "content": "Do this in parallel please" },
            {
                "id": "5324bf76-d648-4762-ab33-cb9e8bdc191a",
                "role": "assistant",
                "content": "",
                "toolCalls": [call("call_frontend_1"), call("call_frontend_2")]
            }
        ])
    );
    let pending = thread.pending_tool_calls();
    assert_eq!(pending_ids(&thread), ["call_frontend_1", "call_frontend_2"]);
    assert!(pending
        .iter()
        .all(|p| p.parent_message_id == "5324bf76-d648-4762-ab33-cb9e8bdc191a"));
}

#[test]
fn pydantic_text_then_tool_call_land_on_one_assistant_message() {
    let mut thread = Thread::with_messages(vec![user("u1", "What time is it?")]);
    apply_all(
        &mut thread,
        &sse(include_str!(
            "fixtures/agui-real/pydantic-ai/textfirst-run1.sse"
        )),
    );
    assert_eq!(
        messages_json(&thread),
        json!([
            { "id": "u1", "role": "user", "content": "What time is it?" },
            {
                "id": "1590f0f8-9c21-4142-8cba-ab01acd14f14",
                "role": "assistant",
                "content": "Let me check your browser. ",
                "toolCalls": [{
                    "id": "call_frontend_1",
                    "type": "function",
                    "function": { "name": "get_browser_time", "arguments": "{\"format\": \"iso\"}" }
                }]
            }
        ])
    );
    assert_eq!(pending_ids(&thread), ["call_frontend_1"]);
}

#[test]
fn server_starter_call_without_parent_gets_an_assistant_message_keyed_by_the_call_id() {
    let mut thread = Thread::with_messages(vec![user("u1", "What time is it in my browser?")]);
    apply_all(
        &mut thread,
        &sse(include_str!(
            "fixtures/agui-real/ag-ui-server-starter/hitl-run1.sse"
        )),
    );
    let id = "cd89cafc-58b0-4a0d-90b4-7ce2834c125f";
    let steps: Vec<String> = (1..=10)
        .map(|n| format!("{{\"description\": \"Step {n}\", \"status\": \"enabled\"}}"))
        .collect();
    let arguments = format!("{{\"steps\":[{}]}}", steps.join(","));
    // No `content` key: the message was made by TOOL_CALL_START, not TEXT_MESSAGE_START.
    assert_eq!(
        messages_json(&thread),
        json!([
            { "id": "u1", "role": "user", "content": "What time is it in my browser?" },
            {
                "id": id,
                "role": "assistant",
                "toolCalls": [{
                    "id": id,
                    "type": "function",
                    "function": { "name": "generate_task_steps", "arguments": arguments }
                }]
            }
        ])
    );
    // RUN_FINISHED has no outcome: the pending list comes from the stream.
    assert_eq!(
        thread.pending_tool_calls(),
        vec![PendingCall {
            tool_call_id: id.into(),
            tool_name: "generate_task_steps".into(),
            arguments,
            parent_message_id: id.into(),
        }]
    );
}

// ---- text messages ----

#[test]
fn text_message_start_creates_a_message_of_its_role_with_empty_content() {
    let cases = [
        (
            json!({ "type": "TEXT_MESSAGE_START", "messageId": "m" }),
            json!({ "id": "m", "role": "assistant", "content": "" }),
        ),
        (
            json!({ "type": "TEXT_MESSAGE_START", "messageId": "m", "role": "user", "name": "ann" }),
            json!({ "id": "m", "role": "user", "content": "", "name": "ann" }),
        ),
        (
            json!({ "type": "TEXT_MESSAGE_START", "messageId": "m", "role": "system" }),
            json!({ "id": "m", "role": "system", "content": "" }),
        ),
        (
            json!({ "type": "TEXT_MESSAGE_START", "messageId": "m", "role": "developer", "subagentRunId": "s1" }),
            json!({ "id": "m", "role": "developer", "content": "", "subagentRunId": "s1" }),
        ),
    ];
    for (event, expected) in cases {
        let mut thread = Thread::new();
        assert_eq!(
            thread.apply(&ev(event.clone())),
            Ok(Applied::Added(0)),
            "{event}"
        );
        assert_eq!(messages_json(&thread), json!([expected]), "{event}");
    }
}

#[test]
fn text_message_content_appends_and_end_changes_nothing() {
    let mut thread = Thread::new();
    thread
        .apply(&ev(
            json!({ "type": "TEXT_MESSAGE_START", "messageId": "m" }),
        ))
        .unwrap();
    for delta in ["Hel", "", "lo"] {
        let applied = thread
            .apply(&ev(
                json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": delta }),
            ))
            .unwrap();
        assert_eq!(applied, Applied::Message(0));
    }
    assert_eq!(
        thread.apply(&ev(json!({ "type": "TEXT_MESSAGE_END", "messageId": "m" }))),
        Ok(Applied::None)
    );
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "m", "role": "assistant", "content": "Hello" }])
    );
}

#[test]
fn deltas_follow_their_message_and_call_when_a_tool_result_moves_them_down() {
    // Deltas to one target in a row skip the index (a one-entry cache); a result placed after
    // its call's message moves the later messages down, and the next deltas must follow them.
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            start_tool("c1", "first", Some("a")),
            end_tool("c1"),
            ev(json!({ "type": "TEXT_MESSAGE_START", "messageId": "b", "role": "assistant" })),
            ev(json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": "b", "delta": "Hel" })),
            start_tool("c2", "second", Some("b")),
            args("c2", "{\"x\":"),
            result("r1", "c1", "done"),
            ev(json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": "b", "delta": "lo" })),
            args("c2", "1}"),
        ],
    );
    let messages = messages_json(&thread);
    assert_eq!(
        messages
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].clone())
            .collect::<Vec<_>>(),
        [json!("a"), json!("r1"), json!("b")]
    );
    assert_eq!(messages[1]["content"], json!("done"));
    assert_eq!(messages[2]["content"], json!("Hello"));
    assert_eq!(
        messages[2]["toolCalls"][0]["function"]["arguments"],
        json!("{\"x\":1}")
    );
}

#[test]
fn deltas_alternating_between_two_messages_each_land_on_their_own() {
    let mut thread = Thread::new();
    let mut events = Vec::new();
    for id in ["m1", "m2"] {
        events.push(ev(json!({ "type": "TEXT_MESSAGE_START", "messageId": id })));
    }
    for (id, delta) in [
        ("m1", "a"),
        ("m2", "x"),
        ("m1", "b"),
        ("m1", "c"),
        ("m2", "y"),
    ] {
        events.push(ev(
            json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta }),
        ));
    }
    apply_all(&mut thread, &events);
    let messages = messages_json(&thread);
    assert_eq!(messages[0]["content"], json!("abc"));
    assert_eq!(messages[1]["content"], json!("xy"));
}

#[test]
fn text_content_for_an_unknown_message_is_an_error_and_changes_nothing() {
    let mut thread = Thread::new();
    let err = thread
        .apply(&ev(
            json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": "nope", "delta": "x" }),
        ))
        .unwrap_err();
    assert_eq!(
        err,
        ReduceError::UnknownMessage {
            event_type: "TEXT_MESSAGE_CONTENT".into(),
            message_id: "nope".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "TEXT_MESSAGE_CONTENT: no message with id `nope`"
    );
    assert!(thread.messages().is_empty());
}

#[test]
fn text_message_start_reuses_the_assistant_message_a_tool_call_created() {
    let mut thread = Thread::new();
    thread.apply(&start_tool("c1", "f", Some("a1"))).unwrap();
    thread
        .apply(&ev(
            json!({ "type": "TEXT_MESSAGE_START", "messageId": "a1" }),
        ))
        .unwrap();
    thread
        .apply(&ev(
            json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "hi" }),
        ))
        .unwrap();
    assert_eq!(
        messages_json(&thread),
        json!([{
            "id": "a1", "role": "assistant", "content": "hi",
            "toolCalls": [{ "id": "c1", "type": "function", "function": { "name": "f", "arguments": "" } }]
        }])
    );
}

#[test]
fn text_content_replaces_content_parts_like_the_ts_client() {
    let mut thread = Thread::with_messages(vec![msg(json!({
        "id": "u", "role": "user", "content": [{ "type": "text", "text": "old" }]
    }))]);
    thread
        .apply(&ev(
            json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": "u", "delta": "new" }),
        ))
        .unwrap();
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "u", "role": "user", "content": "new" }])
    );
}

#[test]
fn text_and_reasoning_events_on_an_activity_id_are_dropped_with_an_error() {
    let mut thread = Thread::new();
    thread
        .apply(&ev(json!({ "type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "plan", "content": { "n": 1 } })))
        .unwrap();
    let before = messages_json(&thread);
    for event in [
        json!({ "type": "TEXT_MESSAGE_START", "messageId": "a" }),
        json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": "x" }),
        json!({ "type": "TEXT_MESSAGE_END", "messageId": "a" }),
        json!({ "type": "REASONING_MESSAGE_START", "messageId": "a", "role": "reasoning" }),
        json!({ "type": "REASONING_MESSAGE_CONTENT", "messageId": "a", "delta": "x" }),
    ] {
        let err = thread.apply(&ev(event.clone())).unwrap_err();
        assert!(
            matches!(err, ReduceError::ActivityIdReused { .. }),
            "{event}: {err}"
        );
    }
    assert_eq!(messages_json(&thread), before);
}

// ---- tool calls ----

#[test]
fn tool_call_with_unknown_parent_creates_an_assistant_message_with_the_parent_id() {
    let mut thread = Thread::with_messages(vec![user("u1", "hi")]);
    assert_eq!(
        thread.apply(&start_tool("c1", "f", Some("p1"))),
        Ok(Applied::Added(1))
    );
    assert_eq!(
        messages_json(&thread)[1],
        json!({ "id": "p1", "role": "assistant",
                "toolCalls": [{ "id": "c1", "type": "function", "function": { "name": "f", "arguments": "" } }] })
    );
}

#[test]
fn tool_call_whose_parent_is_not_an_assistant_message_gets_a_message_keyed_by_the_call_id() {
    let mut thread = Thread::with_messages(vec![user("u1", "hi")]);
    thread.apply(&start_tool("c1", "f", Some("u1"))).unwrap();
    assert_eq!(messages_json(&thread)[1]["id"], json!("c1"));
    assert_eq!(thread.messages().len(), 2);
}

#[test]
fn tool_call_without_parent_is_not_attached_to_the_last_assistant_message() {
    let mut thread = Thread::new();
    apply_all(&mut thread, &text("a1", "hello"));
    thread.apply(&start_tool("c1", "f", None)).unwrap();
    thread.apply(&start_tool("c2", "g", Some(""))).unwrap();
    let json = messages_json(&thread);
    assert_eq!(
        json[0],
        json!({ "id": "a1", "role": "assistant", "content": "hello" })
    );
    assert_eq!(json[1]["id"], json!("c1"));
    assert_eq!(
        json[2]["id"],
        json!("c2"),
        "an empty parentMessageId counts as none"
    );
}

#[test]
fn tool_call_start_copies_the_subagent_run_id_onto_a_created_parent() {
    let mut thread = Thread::new();
    thread
        .apply(&ev(json!({ "type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f", "subagentRunId": "s1" })))
        .unwrap();
    assert_eq!(messages_json(&thread)[0]["subagentRunId"], json!("s1"));
}

#[test]
fn repeated_tool_call_start_is_idempotent_and_renames_the_call() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[start_tool("c1", "f", Some("a1")), args("c1", "{}")],
    );
    assert_eq!(
        thread.apply(&start_tool("c1", "g", Some("a1"))),
        Ok(Applied::Message(0))
    );
    assert_eq!(
        thread.apply(&start_tool("c1", "g", Some("other"))),
        Ok(Applied::None)
    );
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "a1", "role": "assistant",
                 "toolCalls": [{ "id": "c1", "type": "function", "function": { "name": "g", "arguments": "{}" } }] }])
    );
}

#[test]
fn tool_call_args_and_end_for_an_unknown_call_are_errors() {
    let mut thread = Thread::new();
    assert_eq!(
        thread.apply(&args("nope", "{")),
        Err(ReduceError::UnknownToolCall {
            event_type: "TOOL_CALL_ARGS".into(),
            tool_call_id: "nope".into()
        })
    );
    assert!(matches!(
        thread.apply(&end_tool("nope")),
        Err(ReduceError::UnknownToolCall { .. })
    ));
}

#[test]
fn args_stream_into_a_call_of_a_seeded_history() {
    let mut thread = Thread::with_messages(vec![msg(json!({
        "id": "a1", "role": "assistant",
        "toolCalls": [{ "id": "c1", "type": "function", "function": { "name": "f", "arguments": "{\"a\":" } }]
    }))]);
    thread.apply(&args("c1", "1}")).unwrap();
    assert_eq!(
        thread.tool_call("c1").unwrap().function.arguments,
        "{\"a\":1}"
    );
}

#[test]
fn one_mebibyte_of_arguments_in_ten_thousand_deltas_is_linear() {
    // Many messages and calls before it, so a scan per delta would show.
    let mut history = Vec::new();
    for i in 0..2_000 {
        history.push(msg(json!({
            "id": format!("a{i}"), "role": "assistant",
            "toolCalls": [{ "id": format!("old{i}"), "type": "function", "function": { "name": "f", "arguments": "{}" } }]
        })));
    }
    let mut thread = Thread::with_messages(history);
    thread
        .apply(&start_tool("big", "f", Some("a1999")))
        .unwrap();
    let delta = "x".repeat(105); // 105 * 10,000 bytes > 1 MiB
    let deltas = 10_000;
    let mut expected = String::with_capacity(deltas * delta.len());
    for _ in 0..deltas {
        let event = args("big", &delta);
        thread.apply(&event).unwrap();
        expected.push_str(&delta);
    }
    assert!(expected.len() >= 1 << 20);
    assert_eq!(
        thread.tool_call("big").unwrap().function.arguments,
        expected
    );
}

// ---- tool results ----

#[test]
fn tool_result_goes_after_its_assistant_message_and_earlier_results_before_later_text() {
    let mut thread = Thread::with_messages(vec![user("u1", "hi")]);
    apply_all(
        &mut thread,
        &[
            start_tool("c1", "f", Some("a1")),
            end_tool("c1"),
            start_tool("c2", "f", Some("a1")),
            end_tool("c2"),
        ],
    );
    apply_all(&mut thread, &text("a2", "follow-up"));
    assert_eq!(
        thread.apply(&result("r1", "c1", "one")),
        Ok(Applied::Added(2))
    );
    assert_eq!(
        thread.apply(&result("r2", "c2", "two")),
        Ok(Applied::Added(3))
    );
    let ids: Vec<&str> = thread.messages().iter().map(Message::id).collect();
    assert_eq!(ids, ["u1", "a1", "r1", "r2", "a2"]);
    assert_eq!(
        messages_json(&thread)[3],
        json!({ "id": "r2", "role": "tool", "toolCallId": "c2", "content": "two" })
    );
    // Indexes follow the move: text still streams into a2.
    thread
        .apply(&ev(
            json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": "a2", "delta": "!" }),
        ))
        .unwrap();
    assert_eq!(messages_json(&thread)[4]["content"], json!("follow-up!"));
}

#[test]
fn tool_result_for_an_unknown_call_is_appended() {
    let mut thread = Thread::with_messages(vec![user("u1", "hi")]);
    assert_eq!(
        thread.apply(&result("r1", "ghost", "x")),
        Ok(Applied::Added(1))
    );
    assert_eq!(messages_json(&thread)[1]["toolCallId"], json!("ghost"));
}

#[test]
fn tool_result_keeps_content_parts_and_metadata() {
    let mut thread = Thread::new();
    thread
        .apply(&ev(json!({
            "type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "c", "role": "tool",
            "content": [{ "type": "text", "text": "hi" }], "metadata": { "k": 1 }
        })))
        .unwrap();
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "r1", "role": "tool", "toolCallId": "c",
                 "content": [{ "type": "text", "text": "hi" }], "metadata": { "k": 1 } }])
    );
}

// ---- pending calls ----

#[test]
fn a_call_without_tool_call_end_is_not_pending() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            run_started(),
            start_tool("c1", "f", Some("a")),
            args("c1", "{"),
            run_finished(None),
        ],
    );
    assert!(thread.pending_tool_calls().is_empty());
    assert!(thread.ended_tool_calls_this_run().is_empty());
}

#[test]
fn an_answered_call_is_not_pending_but_a_forwarded_placeholder_is_no_answer() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            run_started(),
            start_tool("c1", "backend", Some("a")),
            end_tool("c1"),
            result("r1", "c1", "done"),
            start_tool("c2", "frontend", Some("a")),
            end_tool("c2"),
            result("r2", "c2", FORWARDED_PLACEHOLDER),
            run_finished(Some(json!({ "type": "success" }))),
        ],
    );
    assert_eq!(pending_ids(&thread), ["c2"]);
    assert_eq!(thread.ended_tool_calls_this_run(), ["c1", "c2"]);
}

#[test]
fn pushing_the_real_result_replaces_the_forwarded_placeholder_in_place() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            start_tool("c1", "f", Some("a")),
            end_tool("c1"),
            result("r1", "c1", FORWARDED_PLACEHOLDER),
        ],
    );
    apply_all(&mut thread, &text("a2", "later"));
    let real = Message::Tool(ToolMessage {
        id: "t1".into(),
        content: Content::Text("42".into()),
        tool_call_id: "c1".into(),
        rare: None,
    });
    assert_eq!(thread.push_message(real), 1);
    let ids: Vec<&str> = thread.messages().iter().map(Message::id).collect();
    assert_eq!(ids, ["a", "t1", "a2"]);
    assert_eq!(thread.position("t1"), Some(1));
    assert_eq!(thread.position("r1"), None);
}

#[test]
fn push_message_appends_the_callers_own_messages() {
    let mut thread = Thread::new();
    assert_eq!(thread.push_message(user("u1", "hi")), 0);
    assert_eq!(thread.push_message(user("u2", "again")), 1);
    assert_eq!(thread.position("u2"), Some(1));
}

#[test]
fn server_named_pending_ids_win_over_the_tally() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            run_started(),
            start_tool("c1", "f", Some("a")),
            end_tool("c1"),
            start_tool("c2", "g", Some("a")),
            end_tool("c2"),
            run_finished(Some(
                json!({ "type": "success", "pendingToolCallIds": ["c2", "unknown", "c2"] }),
            )),
        ],
    );
    // Ids the thread does not hold are skipped; duplicates dropped.
    assert_eq!(pending_ids(&thread), ["c2"]);
}

#[test]
fn an_empty_pending_list_from_the_server_falls_back_to_the_stream() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            run_started(),
            start_tool("c1", "f", Some("a")),
            end_tool("c1"),
            run_finished(Some(json!({ "type": "success", "pendingToolCallIds": [] }))),
        ],
    );
    assert_eq!(pending_ids(&thread), ["c1"]);
}

#[test]
fn interrupted_and_cancelled_runs_leave_nothing_pending() {
    for outcome in [
        json!({ "type": "interrupt", "interrupts": [{ "id": "i1", "reason": "approval" }] }),
        json!({ "type": "cancelled" }),
    ] {
        let mut thread = Thread::new();
        apply_all(
            &mut thread,
            &[
                run_started(),
                start_tool("c1", "f", Some("a")),
                end_tool("c1"),
                run_finished(Some(outcome.clone())),
            ],
        );
        assert!(thread.pending_tool_calls().is_empty(), "{outcome}");
    }
}

#[test]
fn a_new_run_forgets_the_calls_of_the_previous_one() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            run_started(),
            start_tool("c1", "f", Some("a")),
            end_tool("c1"),
            run_finished(None),
        ],
    );
    assert_eq!(pending_ids(&thread), ["c1"]);
    thread.apply(&run_started()).unwrap();
    assert!(!thread.run_finished());
    assert!(thread.pending_tool_calls().is_empty());
    thread.begin_run();
    assert!(thread.pending_tool_calls().is_empty());
}

#[test]
fn run_started_input_messages_are_added_when_missing() {
    let mut thread = Thread::with_messages(vec![user("u1", "local")]);
    let applied = thread
        .apply(&ev(json!({
            "type": "RUN_STARTED", "threadId": "t", "runId": "r",
            "input": { "threadId": "t", "runId": "r", "messages": [
                { "id": "u1", "role": "user", "content": "echoed" },
                { "id": "u2", "role": "user", "content": "new" }
            ] }
        })))
        .unwrap();
    assert_eq!(applied, Applied::Messages);
    assert_eq!(
        messages_json(&thread),
        json!([
            { "id": "u1", "role": "user", "content": "local" },
            { "id": "u2", "role": "user", "content": "new" }
        ])
    );
}

// ---- snapshots and state ----

#[test]
fn messages_snapshot_updates_in_place_drops_the_missing_and_appends_the_new() {
    let mut thread = Thread::with_messages(vec![
        user("u1", "one"),
        user("u2", "two"),
        user("u3", "three"),
    ]);
    let applied = thread
        .apply(&ev(json!({ "type": "MESSAGES_SNAPSHOT", "messages": [
            { "id": "n1", "role": "user", "content": "new" },
            { "id": "u3", "role": "user", "content": "THREE" },
            { "id": "u1", "role": "user", "content": "ONE" },
            { "id": "a1", "role": "assistant",
              "toolCalls": [{ "id": "c1", "type": "function", "function": { "name": "f", "arguments": "" } }] }
        ] })))
        .unwrap();
    assert_eq!(applied, Applied::Messages);
    let ids: Vec<&str> = thread.messages().iter().map(Message::id).collect();
    assert_eq!(
        ids,
        ["u1", "u3", "n1", "a1"],
        "local order kept, new ones appended"
    );
    assert_eq!(messages_json(&thread)[1]["content"], json!("THREE"));
    // Indexes rebuilt: the snapshot's call takes arguments.
    thread.apply(&args("c1", "{}")).unwrap();
    assert_eq!(thread.tool_call("c1").unwrap().function.arguments, "{}");
}

#[test]
fn messages_snapshot_keeps_client_only_reasoning_and_activity_it_does_not_mention() {
    let local = vec![
        user("u1", "hi"),
        msg(json!({ "id": "r1", "role": "reasoning", "content": "thinking" })),
        msg(json!({ "id": "act", "role": "activity", "activityType": "plan", "content": {} })),
    ];
    let mut thread = Thread::with_messages(local.clone());
    thread
        .apply(&ev(json!({ "type": "MESSAGES_SNAPSHOT", "messages": [{ "id": "u1", "role": "user", "content": "hi" }] })))
        .unwrap();
    let ids: Vec<&str> = thread.messages().iter().map(Message::id).collect();
    assert_eq!(ids, ["u1", "r1", "act"]);

    // A snapshot that carries reasoning and activity is the source of truth for them.
    let mut thread = Thread::with_messages(local.clone());
    thread
        .apply(&ev(json!({ "type": "MESSAGES_SNAPSHOT", "messages": [
            { "id": "u1", "role": "user", "content": "hi" },
            { "id": "r2", "role": "reasoning", "content": "other" },
            { "id": "act2", "role": "activity", "activityType": "search", "content": {} }
        ] })))
        .unwrap();
    let ids: Vec<&str> = thread.messages().iter().map(Message::id).collect();
    assert_eq!(ids, ["u1", "r2", "act2"]);

    // Declared authority over some activity types only.
    let mut thread = Thread::with_messages(local);
    thread
        .apply(&ev(json!({ "type": "MESSAGES_SNAPSHOT",
            "metadata": { "@ag-ui/client": { "authoritativeActivityTypes": ["search"] } },
            "messages": [{ "id": "u1", "role": "user", "content": "hi" }] })))
        .unwrap();
    let ids: Vec<&str> = thread.messages().iter().map(Message::id).collect();
    assert_eq!(
        ids,
        ["u1", "r1", "act"],
        "a `plan` activity is not the snapshot's to delete"
    );
}

#[test]
fn state_snapshot_replaces_and_state_delta_patches() {
    let mut thread = Thread::new();
    assert_eq!(thread.state(), &value!({}));
    assert_eq!(
        thread.apply(&ev(
            json!({ "type": "STATE_SNAPSHOT", "snapshot": { "n": 1, "list": [] } })
        )),
        Ok(Applied::State)
    );
    thread
        .apply(&ev(json!({ "type": "STATE_DELTA", "delta": [
            { "op": "replace", "path": "/n", "value": 2 },
            { "op": "add", "path": "/list/-", "value": "x" }
        ] })))
        .unwrap();
    assert_eq!(thread.state(), &value!({ "n": 2, "list": ["x"] }));
}

#[test]
fn a_failed_state_delta_is_an_error_and_leaves_the_state_unchanged() {
    let mut thread = Thread::new();
    thread.set_state(value!({ "n": 1 }));
    let err = thread
        .apply(&ev(json!({ "type": "STATE_DELTA", "delta": [
            { "op": "replace", "path": "/n", "value": 2 },
            { "op": "test", "path": "/n", "value": 99 }
        ] })))
        .unwrap_err();
    assert!(matches!(err, ReduceError::StatePatch { .. }), "{err}");
    assert!(err
        .to_string()
        .starts_with("state patch failed, state unchanged: "));
    assert_eq!(thread.state(), &value!({ "n": 1 }));
}

// ---- activity ----

fn activity_snapshot(content: Value, replace: Option<bool>) -> Event {
    let mut v = json!({ "type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "plan", "content": content });
    if let Some(replace) = replace {
        v["replace"] = json!(replace);
    }
    ev(v)
}

#[test]
fn activity_snapshot_creates_then_replaces_unless_replace_is_false() {
    let mut thread = Thread::new();
    assert_eq!(
        thread.apply(&activity_snapshot(json!({ "step": 1 }), None)),
        Ok(Applied::Added(0))
    );
    thread
        .apply(&ev(
            json!({ "type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "plan",
                          "content": { "step": 2 }, "metadata": { "a": 1 } }),
        ))
        .unwrap();
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "act", "role": "activity", "activityType": "plan", "content": { "step": 2 }, "metadata": { "a": 1 } }])
    );
    // replace: false leaves the content; metadata still merges.
    thread
        .apply(&ev(
            json!({ "type": "ACTIVITY_SNAPSHOT", "messageId": "act", "activityType": "plan",
                          "content": { "step": 3 }, "replace": false, "metadata": { "b": 2 } }),
        ))
        .unwrap();
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "act", "role": "activity", "activityType": "plan", "content": { "step": 2 }, "metadata": { "a": 1, "b": 2 } }])
    );
}

#[test]
fn activity_snapshot_replaces_a_non_activity_message_only_when_replace_is_true() {
    let mut thread = Thread::with_messages(vec![user("act", "hi")]);
    assert_eq!(
        thread.apply(&activity_snapshot(json!({}), Some(false))),
        Ok(Applied::None)
    );
    assert_eq!(messages_json(&thread)[0]["role"], json!("user"));
    assert_eq!(
        thread.apply(&activity_snapshot(json!({ "x": 1 }), None)),
        Ok(Applied::Message(0))
    );
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "act", "role": "activity", "activityType": "plan", "content": { "x": 1 } }])
    );
}

#[test]
fn activity_delta_patches_the_content() {
    let mut thread = Thread::new();
    thread
        .apply(&activity_snapshot(json!({ "done": [] }), None))
        .unwrap();
    let applied = thread
        .apply(&ev(
            json!({ "type": "ACTIVITY_DELTA", "messageId": "act", "activityType": "plan2",
                          "patch": [{ "op": "add", "path": "/done/-", "value": 1 }] }),
        ))
        .unwrap();
    assert_eq!(applied, Applied::Message(0));
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "act", "role": "activity", "activityType": "plan2", "content": { "done": [1] } }])
    );
}

#[test]
fn activity_delta_for_an_unknown_id_is_ignored_and_for_a_non_activity_message_is_an_error() {
    let mut thread = Thread::with_messages(vec![user("u1", "hi")]);
    let delta = |id: &str| {
        ev(json!({ "type": "ACTIVITY_DELTA", "messageId": id, "activityType": "p", "patch": [] }))
    };
    assert_eq!(thread.apply(&delta("nope")), Ok(Applied::None));
    assert_eq!(
        thread.apply(&delta("u1")),
        Err(ReduceError::NotActivity {
            message_id: "u1".into()
        })
    );
}

#[test]
fn a_failed_activity_delta_keeps_the_content_but_merges_the_metadata() {
    let mut thread = Thread::new();
    thread
        .apply(&activity_snapshot(json!({ "n": 1 }), None))
        .unwrap();
    let err = thread
        .apply(&ev(
            json!({ "type": "ACTIVITY_DELTA", "messageId": "act", "activityType": "other",
                          "metadata": { "usage": 3 },
                          "patch": [{ "op": "remove", "path": "/missing" }] }),
        ))
        .unwrap_err();
    assert!(matches!(err, ReduceError::ActivityPatch { .. }), "{err}");
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "act", "role": "activity", "activityType": "plan", "content": { "n": 1 }, "metadata": { "usage": 3 } }])
    );
}

// ---- reasoning ----

#[test]
fn reasoning_messages_are_created_and_filled() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            ev(json!({ "type": "REASONING_START", "messageId": "span" })),
            ev(
                json!({ "type": "REASONING_MESSAGE_START", "messageId": "r1", "role": "reasoning" }),
            ),
            ev(
                json!({ "type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "Let me " }),
            ),
            ev(
                json!({ "type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "think." }),
            ),
            ev(
                json!({ "type": "REASONING_MESSAGE_END", "messageId": "r1", "metadata": { "tokens": 4 } }),
            ),
            ev(json!({ "type": "REASONING_END", "messageId": "span" })),
        ],
    );
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "r1", "role": "reasoning", "content": "Let me think.", "metadata": { "tokens": 4 } }])
    );
}

#[test]
fn encrypted_values_attach_to_tool_calls_and_messages_but_not_activity() {
    let mut thread = Thread::new();
    apply_all(&mut thread, &[start_tool("c1", "f", Some("a1"))]);
    thread.apply(&activity_snapshot(json!({}), None)).unwrap();
    let enc = |subtype: &str, id: &str| {
        ev(
            json!({ "type": "REASONING_ENCRYPTED_VALUE", "subtype": subtype, "entityId": id,
                   "encryptedValue": format!("enc-{id}"), "metadata": { "ignored": true } }),
        )
    };
    assert_eq!(
        thread.apply(&enc("tool-call", "c1")),
        Ok(Applied::Message(0))
    );
    assert_eq!(thread.apply(&enc("message", "a1")), Ok(Applied::Message(0)));
    assert_eq!(thread.apply(&enc("message", "act")), Ok(Applied::None));
    assert_eq!(thread.apply(&enc("tool-call", "nope")), Ok(Applied::None));
    assert_eq!(
        messages_json(&thread),
        json!([
            { "id": "a1", "role": "assistant", "encryptedValue": "enc-a1",
              "toolCalls": [{ "id": "c1", "type": "function", "function": { "name": "f", "arguments": "" }, "encryptedValue": "enc-c1" }] },
            { "id": "act", "role": "activity", "activityType": "plan", "content": {} }
        ])
    );
}

// ---- metadata ----

#[test]
fn metadata_merges_key_by_key_last_write_wins_onto_messages() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            ev(
                json!({ "type": "TEXT_MESSAGE_START", "messageId": "m", "metadata": { "a": 1, "nested": { "x": 1 } } }),
            ),
            ev(
                json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi", "metadata": { "a": 2 } }),
            ),
            ev(
                json!({ "type": "TEXT_MESSAGE_END", "messageId": "m", "metadata": { "nested": { "y": 2 } } }),
            ),
        ],
    );
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "m", "role": "assistant", "content": "hi", "metadata": { "a": 2, "nested": { "y": 2 } } }])
    );
}

#[test]
fn tool_call_metadata_goes_on_the_call_not_its_message() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            ev(
                json!({ "type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f",
                       "parentMessageId": "a1", "metadata": { "a": 1 } }),
            ),
            ev(
                json!({ "type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}", "metadata": { "b": 2 } }),
            ),
            ev(json!({ "type": "TOOL_CALL_END", "toolCallId": "c1", "metadata": { "a": 3 } })),
        ],
    );
    assert_eq!(
        messages_json(&thread),
        json!([{ "id": "a1", "role": "assistant", "toolCalls": [{
            "id": "c1", "type": "function", "function": { "name": "f", "arguments": "{}" },
            "metadata": { "a": 3, "b": 2 }
        }] }])
    );
}

// ---- events with no effect ----

#[test]
fn chunks_and_notification_events_change_nothing() {
    let mut thread = Thread::with_messages(vec![user("u1", "hi")]);
    let before = messages_json(&thread);
    for event in [
        json!({ "type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x" }),
        json!({ "type": "TOOL_CALL_CHUNK", "toolCallId": "c", "toolCallName": "f" }),
        json!({ "type": "REASONING_MESSAGE_CHUNK", "messageId": "r", "delta": "x" }),
        json!({ "type": "STEP_STARTED", "stepName": "s" }),
        json!({ "type": "STEP_FINISHED", "stepName": "s" }),
        json!({ "type": "CUSTOM", "name": "n", "value": 1 }),
        json!({ "type": "RAW", "event": {} }),
        json!({ "type": "RUN_ERROR", "message": "boom" }),
        json!({ "type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n" }),
        json!({ "type": "SOMETHING_NEW", "x": 1 }),
    ] {
        assert_eq!(
            thread.apply(&ev(event.clone())),
            Ok(Applied::None),
            "{event}"
        );
    }
    assert_eq!(messages_json(&thread), before);
}

#[test]
fn into_parts_returns_messages_and_state() {
    let mut thread = Thread::with_messages(vec![user("u1", "hi")]);
    thread
        .apply(&ev(json!({ "type": "STATE_SNAPSHOT", "snapshot": [1] })))
        .unwrap();
    let (messages, state) = thread.into_parts();
    assert_eq!(messages.len(), 1);
    assert_eq!(state, value!([1]));
}

/// Issue 38 (memory): an assistant message's list of tool calls made room for four at its first
/// call (a `Vec`'s first push), three empty calls held for the thread's life: the mixed corpus's
/// largest cost after the messages. A second call still lands, in order.
#[test]
fn a_message_with_one_tool_call_holds_no_empty_call_slots() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            start_tool("c1", "search", Some("m1")),
            args("c1", r#"{"q":1}"#),
            end_tool("c1"),
        ],
    );
    let calls = |thread: &Thread| match &thread.messages()[0] {
        Message::Assistant(a) => a.tool_calls.clone().unwrap(),
        other => panic!("{other:?}"),
    };
    let Message::Assistant(a) = &thread.messages()[0] else {
        panic!("an assistant message");
    };
    assert_eq!(a.tool_calls.as_ref().unwrap().capacity(), 1);
    apply_all(
        &mut thread,
        &[start_tool("c2", "search", Some("m1")), end_tool("c2")],
    );
    let ids: Vec<String> = calls(&thread).into_iter().map(|c| c.id).collect();
    assert_eq!(ids, ["c1", "c2"]);
    assert_eq!(pending_ids(&thread), ["c1", "c2"]);
}

/// The run's tally holds each call once with what happened to it: a call ended and answered in
/// the run is not pending, one answered without a start in this run does not become pending, a
/// call ended twice or started twice counts once, and an end without a start counts for nothing.
#[test]
fn the_run_tally_counts_each_call_once_with_its_start_end_and_answer() {
    let mut thread = Thread::new();
    apply_all(
        &mut thread,
        &[
            run_started(),
            start_tool("a", "t", Some("m1")),
            start_tool("b", "t", Some("m1")),
            start_tool("a", "t", Some("m1")),
            end_tool("a"),
            end_tool("a"),
            end_tool("b"),
            result("r-b", "b", "done"),
            result("r-x", "x", "an answer to a call this run never started"),
        ],
    );
    assert_eq!(pending_ids(&thread), ["a"]);
    assert_eq!(thread.ended_tool_calls_this_run(), ["a", "b"]);
    // `b` answered: not pending; a result with the placeholder is no answer.
    apply_all(
        &mut thread,
        &[
            start_tool("c", "t", Some("m1")),
            end_tool("c"),
            result("r-c", "c", FORWARDED_PLACEHOLDER),
        ],
    );
    assert_eq!(pending_ids(&thread), ["a", "c"]);
}
