//! The Coder backend's core (`chat_runtime::coder`): frames written from the Coder chat API
//! (`tests/fixtures/coder/*.jsonl`, one WebSocket text frame a line) through the translation
//! into the runtime's own thread reducer, the request bodies, and the submission rules.
#![cfg(feature = "coder")]

mod common;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::coder::submit::{result, tool_off};
use chat_runtime::coder::wire::{
    post_message_body, tool_results_body, ApiError, BusyBehavior, CreateChat, DynamicTool,
    ToolResult,
};
use chat_runtime::coder::{
    decode_frame, ChatError, ChatStatus, CoderThread, Frame, ResultsBatch, Routes, StreamEvent,
    Submission, SubmitReply, SubmitStep, TurnEnd, Update,
};
use chat_runtime::json::Value;
use chat_runtime::protocol::event::{Event, Message, Parsed};
use chat_runtime::protocol::thread::{PendingCall, Thread};
use chat_runtime::protocol::verify::Verifier;
use chat_runtime::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};
use serde_json::json;

const TURN: &str = include_str!("fixtures/coder/turn.jsonl");
const RESUME: &str = include_str!("fixtures/coder/resume.jsonl");
const RECONNECT: &str = include_str!("fixtures/coder/reconnect.jsonl");
const LEGACY: &str = include_str!("fixtures/coder/legacy.jsonl");
const PREVIEW_RESET: &str = include_str!("fixtures/coder/preview-reset.jsonl");
const HISTORY_RESET: &str = include_str!("fixtures/coder/history-reset.jsonl");
const ERROR: &str = include_str!("fixtures/coder/error.jsonl");
const UNKNOWN: &str = include_str!("fixtures/coder/unknown.jsonl");

/// A chat as the runtime would hold it: the translation and the one thread reducer it feeds.
struct Chat {
    coder: CoderThread,
    thread: Thread,
}

impl Chat {
    fn new() -> Chat {
        let mut coder = CoderThread::new();
        coder.begin_turn();
        Chat {
            coder,
            thread: Thread::new(),
        }
    }

    /// Feeds every frame of a fixture (one a line), applying the updates as the host would.
    fn feed(&mut self, frames: &str) -> Vec<Update> {
        frames
            .lines()
            .filter(|line| !line.trim().is_empty())
            .flat_map(|line| self.frame(line))
            .collect()
    }

    fn frame(&mut self, line: &str) -> Vec<Update> {
        let frame = decode_frame(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let updates = self.coder.handle_frame(frame);
        for update in &updates {
            match update {
                Update::Event(event) => {
                    self.thread
                        .apply(event)
                        .unwrap_or_else(|e| panic!("{e}: {event:?}"));
                }
                Update::Replace => self.thread.set_messages(self.coder.messages().to_vec()),
                _ => {}
            }
        }
        updates
    }

    fn messages(&self) -> serde_json::Value {
        to_serde(self.thread.messages().to_vec())
    }
}

fn calls(updates: &[Update]) -> Vec<PendingCall> {
    updates
        .iter()
        .filter_map(|u| match u {
            Update::ActionRequired(calls) => Some(calls.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn turn_ends(updates: &[Update]) -> Vec<TurnEnd> {
    updates
        .iter()
        .filter_map(|u| match u {
            Update::TurnEnded(end) => Some(end.clone()),
            _ => None,
        })
        .collect()
}

fn call(id: &str, name: &str, arguments: &str, parent: &str) -> PendingCall {
    PendingCall {
        tool_call_id: id.into(),
        tool_name: name.into(),
        arguments: arguments.into(),
        parent_message_id: parent.into(),
    }
}

/// The thread after `turn.jsonl`: the committed history, the deltas replaced.
fn paused_thread() -> serde_json::Value {
    json!([
        { "role": "user", "id": "1", "content": "Weather here?" },
        { "role": "reasoning", "id": "2-reasoning", "content": "The user wants the weather." },
        { "role": "assistant", "id": "2", "content": "Let me check.", "toolCalls": [
            { "id": "call_ls", "type": "function",
              "function": { "name": "execute", "arguments": "{\"command\":\"date\"}" } },
            { "id": "toolu_01A", "type": "function",
              "function": { "name": "get_weather", "arguments": "{\"city\":\"Paris\"}" } },
            { "id": "toolu_01B", "type": "function",
              "function": { "name": "get_browser_location", "arguments": "{}" } }
        ] },
        { "role": "tool", "id": "3", "toolCallId": "call_ls",
          "content": "{\"output\":\"Sun Sep 20 10:00:03 UTC 2026\",\"exit_code\":0}" }
    ])
}

// ---------------------------------------------------------------------------------------------
// The stream, translated into the thread
// ---------------------------------------------------------------------------------------------

#[test]
fn deltas_stream_into_the_thread_as_they_arrive() {
    let mut chat = Chat::new();
    let lines: Vec<&str> = TURN.lines().collect();
    for line in &lines[..4] {
        chat.frame(line);
    }
    assert_eq!(
        chat.messages(),
        json!([
            { "role": "user", "id": "1", "content": "Weather here?" },
            { "role": "reasoning", "id": "coder-1-1-reasoning", "content": "The user wants the weather." },
            { "role": "assistant", "id": "coder-1-1", "content": "Let me check." }
        ])
    );
    chat.frame(lines[4]);
    chat.frame(lines[5]);
    let call = chat
        .thread
        .tool_call("toolu_01A")
        .expect("the streamed call");
    assert_eq!(call.function.arguments, "{\"city\":\"Paris\"}");
    let builtin = chat.thread.tool_call("call_ls").expect("the built-in call");
    assert_eq!(builtin.function.arguments, "{\"command\":\"date\"}");
}

#[test]
fn a_full_turn_pauses_on_its_two_dynamic_calls_never_the_builtin() {
    let mut chat = Chat::new();
    let updates = chat.feed(TURN);
    assert_eq!(chat.messages(), paused_thread());
    assert_eq!(
        calls(&updates),
        vec![
            call("toolu_01A", "get_weather", "{\"city\":\"Paris\"}", "2"),
            call("toolu_01B", "get_browser_location", "{}", "2"),
        ]
    );
    assert_eq!(chat.coder.batch().len(), 2);
    assert_eq!(chat.coder.status(), Some(&ChatStatus::RequiresAction));
    assert!(
        turn_ends(&updates).is_empty(),
        "requires_action pauses the turn"
    );
    assert!(chat.coder.turn_active());
    assert_eq!(chat.coder.last_message_id(), Some(3));
}

#[test]
fn the_same_turn_resumes_after_the_results_and_ends_completed() {
    let mut chat = Chat::new();
    chat.feed(TURN);
    let updates = chat.feed(RESUME);
    assert_eq!(turn_ends(&updates), vec![TurnEnd::Completed]);
    assert!(!chat.coder.turn_active());
    assert!(calls(&updates).is_empty());
    let mut expected = paused_thread();
    let list = expected.as_array_mut().unwrap();
    list.push(
        json!({ "role": "tool", "id": "4", "toolCallId": "toolu_01A",
        "content": "{\"temp_c\":18,\"sky\":\"cloudy\"}" }),
    );
    let off = "TOOL ERROR: TOOL_NOT_AVAILABLE\nthe tool get_browser_location is disabled in this chat\nRECOVERY HINT: Do not call this tool again; answer without it or ask the user to enable it.";
    list.push(
        json!({ "role": "tool", "id": "5", "toolCallId": "toolu_01B",
        "content": off, "error": off }),
    );
    list.push(
        json!({ "role": "assistant", "id": "6", "content": "It is 18 °C and cloudy in Paris." }),
    );
    assert_eq!(chat.messages(), expected);
    assert_eq!(chat.coder.last_message_id(), Some(6));
    assert_eq!(chat.coder.status(), Some(&ChatStatus::Waiting));
}

#[test]
fn a_batch_sent_again_on_reconnect_hands_out_no_call_twice() {
    let mut chat = Chat::new();
    let first = chat.feed(TURN);
    assert_eq!(calls(&first).len(), 2);
    // The socket drops; the client reconnects with ?after_id=3 and the snapshot re-sends the
    // batch, twice over two reconnects.
    assert_eq!(chat.coder.last_message_id(), Some(3));
    let again = chat.feed(RECONNECT);
    let third = chat.feed(RECONNECT);
    assert!(calls(&again).is_empty() && calls(&third).is_empty());
    assert_eq!(
        chat.coder.batch().len(),
        2,
        "the batch's ids are kept whole"
    );
    assert_eq!(chat.messages(), paused_thread());
}

#[test]
fn a_batch_whose_calls_the_history_answers_hands_out_nothing() {
    // A fresh page (nothing handed out) joins a chat whose results already landed.
    let mut chat = Chat::new();
    let lines: Vec<&str> = TURN.lines().collect();
    for line in &lines[..8] {
        chat.frame(line);
    }
    chat.frame(RESUME.lines().next().unwrap());
    let updates = chat.feed(RECONNECT);
    assert!(calls(&updates).is_empty());
    assert!(chat.coder.is_answered("toolu_01A") && chat.coder.is_answered("toolu_01B"));
}

#[test]
fn the_pending_calls_can_be_derived_from_history_without_the_batch() {
    let mut chat = Chat::new();
    let lines: Vec<&str> = TURN.lines().collect();
    for line in &lines[..8] {
        chat.frame(line);
    }
    let pending = chat.coder.pending_from_history(|name| name != "execute");
    assert_eq!(
        pending,
        vec![
            call("toolu_01A", "get_weather", "{\"city\":\"Paris\"}", "2"),
            call("toolu_01B", "get_browser_location", "{}", "2"),
        ]
    );
    // Handed out from history, the batch that comes later hands them out no more.
    chat.coder
        .mark_handed_out(pending.iter().map(|c| c.tool_call_id.as_str()));
    assert!(calls(&chat.frame(lines[8])).is_empty());
}

#[test]
fn a_provider_executed_call_is_never_handed_out() {
    let mut chat = Chat::new();
    chat.feed(concat!(
        r#"[{"type":"message","message":{"id":2,"role":"assistant","content":[{"type":"tool-call","tool_call_id":"srv_1","tool_name":"web_search","args":{"q":"x"},"provider_executed":true},{"type":"tool-result","tool_call_id":"srv_1","tool_name":"web_search","result":"found","provider_executed":true},{"type":"tool-call","tool_call_id":"toolu_9","tool_name":"get_weather","args":{}}]}}]"#,
        "\n"
    ));
    assert_eq!(
        chat.messages(),
        json!([
            { "role": "assistant", "id": "2", "toolCalls": [
                { "id": "srv_1", "type": "function", "function": { "name": "web_search", "arguments": "{\"q\":\"x\"}" } },
                { "id": "toolu_9", "type": "function", "function": { "name": "get_weather", "arguments": "{}" } }
            ] },
            { "role": "tool", "id": "2-1", "toolCallId": "srv_1", "content": "found" }
        ])
    );
    let updates = chat.feed(concat!(
        r#"[{"type":"action_required","action_required":{"tool_calls":[{"tool_call_id":"srv_1","tool_name":"web_search","args":"{}"},{"tool_call_id":"toolu_9","tool_name":"get_weather","args":"{}"}]}}]"#,
        "\n"
    ));
    assert_eq!(
        calls(&updates),
        vec![call("toolu_9", "get_weather", "{}", "2")]
    );
    assert!(chat.coder.pending_from_history(|_| true).len() == 1);
}

#[test]
fn preview_reset_drops_the_abandoned_attempt_reasoning_included() {
    let mut chat = Chat::new();
    let lines: Vec<&str> = PREVIEW_RESET.lines().collect();
    chat.frame(lines[0]);
    assert_eq!(
        chat.thread.messages().len(),
        2,
        "reasoning and text, streaming"
    );
    let updates = chat.frame(lines[1]);
    assert_eq!(chat.messages(), json!([]), "the reset drops both at once");
    chat.frame(lines[2]);
    assert_eq!(
        chat.messages(),
        json!([{ "role": "assistant", "id": "coder-1-2", "content": "A whole answer." }])
    );
    assert!(updates.iter().any(|u| matches!(u,
        Update::Retry(r) if r.attempt == 1 && r.kind.as_deref() == Some("overloaded")
            && r.status_code == Some(529))));
}

#[test]
fn a_commit_replaces_the_deltas_it_was_streamed_from() {
    let mut chat = Chat::new();
    let lines: Vec<&str> = TURN.lines().collect();
    for line in &lines[..7] {
        chat.frame(line);
    }
    let updates = chat.frame(lines[7]);
    // The generation's open message and reasoning close before the replace.
    let kinds: Vec<&str> = updates
        .iter()
        .map(|u| match u {
            Update::Event(e) => e.known_type_name().unwrap(),
            Update::Replace => "replace",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["REASONING_MESSAGE_END", "TEXT_MESSAGE_END", "replace"]
    );
    assert!(chat
        .thread
        .messages()
        .iter()
        .all(|m| !m.id().starts_with("coder-")));
}

#[test]
fn the_deltas_keep_the_agui_ordering_rules() {
    // Inside one run, the events the translation emits pass the verifier the AG-UI path uses:
    // every message and call opened is closed, nothing continues what is not open.
    let mut chat = Chat::new();
    let mut verifier = Verifier::new();
    let run = |json: serde_json::Value| match Event::parse(&json.to_string(), 0) {
        Ok(Parsed::Event(e)) => e,
        other => panic!("{other:?}"),
    };
    let mut events = vec![run(
        json!({ "type": "RUN_STARTED", "threadId": "t", "runId": "r" }),
    )];
    // The last turn ends while its answer streams: the end closes what is open. (A turn ends
    // only once its posted message is committed: a `waiting` before it is stale.)
    let waiting = concat!(
        "[{\"type\":\"message\",\"message\":{\"id\":99,\"role\":\"user\",",
        "\"content\":[{\"type\":\"text\",\"text\":\"next\"}]}},",
        "{\"type\":\"status\",\"status\":{\"status\":\"waiting\"}}]"
    );
    for fixture in [TURN, RESUME, PREVIEW_RESET, waiting] {
        if fixture == PREVIEW_RESET {
            chat.coder.begin_turn();
        }
        for update in chat.feed(fixture) {
            if let Update::Event(e) = update {
                events.push(e);
            }
        }
    }
    events.push(run(
        json!({ "type": "RUN_FINISHED", "threadId": "t", "runId": "r" }),
    ));
    for (i, event) in events.iter().enumerate() {
        verifier
            .check(event, i)
            .unwrap_or_else(|e| panic!("{e}: {event:?}"));
    }
}

#[test]
fn a_message_sent_again_is_upserted_in_place() {
    let mut chat = Chat::new();
    chat.feed(TURN);
    chat.feed(concat!(
        r#"[{"type":"message","message":{"id":2,"role":"assistant","content":[{"type":"text","text":"Edited."}]}}]"#,
        "\n"
    ));
    let messages = chat.messages();
    let list = messages.as_array().unwrap();
    assert_eq!(list.len(), 3, "the reasoning went with the old revision");
    assert_eq!(
        list[1],
        json!({ "role": "assistant", "id": "2", "content": "Edited." })
    );
    assert_eq!(list[2]["id"], "3");
}

#[test]
fn a_user_message_after_an_id_is_found_by_its_coder_id() {
    let mut chat = Chat::new();
    assert!(!chat.coder.has_user_message_after(None), "no history yet");
    chat.feed(TURN);
    // The user's message is 1; 2 (assistant) and 3 (tool) are not the user's.
    assert!(chat.coder.has_user_message_after(None));
    assert!(chat.coder.has_user_message_after(Some(0)));
    assert!(!chat.coder.has_user_message_after(Some(1)));
    chat.feed(concat!(
        r#"[{"type":"message","message":{"id":12,"role":"user","content":[{"type":"text","text":"And tomorrow?"}]}}]"#,
        "\n"
    ));
    assert!(chat.coder.has_user_message_after(Some(3)));
    assert!(chat.coder.has_user_message_after(Some(11)));
    assert!(!chat.coder.has_user_message_after(Some(12)));
}

#[test]
fn history_reset_replaces_the_transcript() {
    let mut chat = Chat::new();
    chat.feed(TURN);
    let updates = chat.feed(HISTORY_RESET);
    assert_eq!(
        chat.messages(),
        json!([{ "role": "user", "id": "1", "content": "Weather in Berlin?" }])
    );
    assert_eq!(
        updates
            .iter()
            .filter(|u| matches!(u, Update::Replace))
            .count(),
        1,
        "one replace per frame"
    );
}

#[test]
fn an_error_event_ends_the_turn_with_its_fields() {
    let mut chat = Chat::new();
    let updates = chat.feed(ERROR);
    assert_eq!(
        turn_ends(&updates),
        vec![TurnEnd::Error(ChatError {
            message: "Provider overloaded".into(),
            detail: Some("anthropic: 529 overloaded_error".into()),
            kind: Some("overloaded".into()),
            provider: Some("anthropic".into()),
            retryable: true,
            status_code: Some(529),
        })]
    );
}

#[test]
fn a_status_error_without_an_error_event_ends_with_the_generic_error() {
    let mut chat = Chat::new();
    let updates = chat.feed("[{\"type\":\"status\",\"status\":{\"status\":\"error\"}}]\n");
    assert_eq!(
        turn_ends(&updates),
        vec![TurnEnd::Error(ChatError::generic())]
    );
    // No turn going on: no end is reported.
    let updates = chat.feed("[{\"type\":\"status\",\"status\":{\"status\":\"waiting\"}}]\n");
    assert!(turn_ends(&updates).is_empty());
}

#[test]
fn unknown_event_types_statuses_and_parts_are_tolerated() {
    let mut chat = Chat::new();
    let updates = chat.feed(UNKNOWN);
    assert!(updates.contains(&Update::Status(ChatStatus::Other("paused".into()))));
    assert!(updates
        .iter()
        .any(|u| matches!(u, Update::Queue(q) if q.len() == 1)));
    assert!(updates.iter().any(|u| matches!(u,
        Update::Invalid { event_type, message } if event_type == "message"
            && message.starts_with("message.id"))));
    assert!(turn_ends(&updates).is_empty());
    assert!(chat.coder.turn_active());
    assert_eq!(chat.messages(), json!([]));
}

#[test]
fn legacy_envelope_frames_build_the_same_thread() {
    let mut chat = Chat::new();
    let lines: Vec<&str> = LEGACY.lines().collect();
    for line in &lines[..5] {
        chat.frame(line);
    }
    assert_eq!(
        chat.messages(),
        json!([
            { "role": "user", "id": "1", "content": "Hi" },
            { "role": "assistant", "id": "coder-0-0", "content": "Hello!" }
        ])
    );
    let updates = chat.frame(lines[5]);
    assert_eq!(turn_ends(&updates), vec![TurnEnd::Completed]);
    assert_eq!(
        chat.messages(),
        json!([
            { "role": "user", "id": "1", "content": "Hi" },
            { "role": "assistant", "id": "2", "content": "Hello!" }
        ])
    );
}

#[test]
fn a_part_sent_again_is_not_appended_twice() {
    let mut chat = Chat::new();
    let part = r#"[{"type":"message_part","message_part":{"part":{"type":"text","text":"Hi"},"history_version":3,"generation_attempt":1,"seq":1}}]"#;
    chat.frame(part);
    chat.frame(part);
    assert_eq!(
        chat.messages(),
        json!([{ "role": "assistant", "id": "coder-3-1", "content": "Hi" }])
    );
}

#[test]
fn an_envelope_error_frame_ends_the_turn_with_its_message() {
    let mut chat = Chat::new();
    let updates =
        chat.frame(r#"{"type":"error","data":{"message":"Chat streaming is not available."}}"#);
    assert_eq!(
        turn_ends(&updates),
        vec![TurnEnd::StreamError(
            "Chat streaming is not available.".into()
        )]
    );
}

// ---------------------------------------------------------------------------------------------
// Frames and bodies
// ---------------------------------------------------------------------------------------------

#[test]
fn a_frame_is_an_array_an_envelope_one_event_or_a_ping() {
    let status = |s: &str| StreamEvent::Status(ChatStatus::from_wire(s));
    let cases: &[(&str, Frame)] = &[
        (
            "[{\"type\":\"status\",\"status\":{\"status\":\"running\"}}]\n",
            Frame::Events(vec![status("running")]),
        ),
        (
            r#"{"type":"data","data":[{"type":"status","status":{"status":"waiting"}}]}"#,
            Frame::Events(vec![status("waiting")]),
        ),
        (
            r#"{"type":"data","data":{"type":"preview_reset"}}"#,
            Frame::Events(vec![StreamEvent::PreviewReset]),
        ),
        (
            r#"{"type":"history_reset","chat_id":"C"}"#,
            Frame::Events(vec![StreamEvent::HistoryReset]),
        ),
        (r#"{"type":"ping"}"#, Frame::Ping),
        (
            r#"{"type":"error","data":{"message":"no"}}"#,
            Frame::Error("no".into()),
        ),
        ("[]", Frame::Events(vec![])),
    ];
    for (text, expected) in cases {
        assert_eq!(&decode_frame(text).unwrap(), expected, "{text}");
    }
    assert!(decode_frame("not json").is_err());
    assert!(decode_frame("42").is_err());
    // A bare `error` event (not the envelope) is an event.
    assert!(matches!(
        decode_frame(r#"{"type":"error","chat_id":"C","error":{"message":"x","retryable":false}}"#),
        Ok(Frame::Events(events)) if matches!(&events[..], [StreamEvent::Error(e)] if e.message == "x")
    ));
}

#[test]
fn the_create_body_declares_every_tool_as_an_unsafe_dynamic_tool() {
    let tools = [
        DynamicTool {
            name: "get_weather".into(),
            description: "Get the weather".into(),
            // Keys in the order written (`json!` would sort them).
            input_schema: Value::parse(
                r#"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#,
            )
            .unwrap(),
        },
        DynamicTool {
            name: "ping".into(),
            description: String::new(),
            input_schema: Value::parse(r#"{"type":"object","properties":{}}"#).unwrap(),
        },
    ];
    let body = CreateChat {
        organization_id: "7c60d51f-b44e-4682-87d6-449835ea4de6",
        content: vec!["What's the weather?"],
        client_type: Some("api"),
        tools: &tools,
        ..CreateChat::default()
    }
    .body();
    assert_eq!(
        body,
        concat!(
            r#"{"organization_id":"7c60d51f-b44e-4682-87d6-449835ea4de6","#,
            r#""content":[{"type":"text","text":"What's the weather?"}],"client_type":"api","#,
            r#""unsafe_dynamic_tools":[{"name":"get_weather","description":"Get the weather","#,
            r#""input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},"#,
            r#"{"name":"ping","input_schema":{"type":"object","properties":{}}}]}"#
        )
    );
    let bare = CreateChat {
        organization_id: "o",
        content: vec!["Hi"],
        ..CreateChat::default()
    }
    .body();
    assert_eq!(
        bare,
        r#"{"organization_id":"o","content":[{"type":"text","text":"Hi"}]}"#
    );
}

#[test]
fn the_routes_hang_off_the_base_with_the_chat_id_as_one_segment() {
    let routes = Routes::new("https://coder.example/api/v2/chats/");
    assert_eq!(routes.create(), "https://coder.example/api/v2/chats");
    assert_eq!(
        routes.messages("3f0c6a2e"),
        "https://coder.example/api/v2/chats/3f0c6a2e/messages"
    );
    assert_eq!(
        routes.tool_results("a/b"),
        "https://coder.example/api/v2/chats/a%2Fb/tool-results"
    );
    assert_eq!(
        routes.interrupt("c"),
        "https://coder.example/api/v2/chats/c/interrupt"
    );
    assert_eq!(
        routes.stream("c", Some(44)),
        "wss://coder.example/api/v2/chats/c/stream?after_id=44"
    );
    let local = Routes::new("/api/experimental/chats");
    assert_eq!(local.stream("c", None), "/api/experimental/chats/c/stream");
    assert_eq!(
        Routes::new("http://127.0.0.1:3000/api/v2/chats").stream("c", None),
        "ws://127.0.0.1:3000/api/v2/chats/c/stream"
    );
}

#[test]
fn the_message_body_sends_text_parts_and_the_busy_behavior() {
    assert_eq!(
        post_message_body(&["And in Berlin?"], Some(BusyBehavior::Queue), None),
        r#"{"content":[{"type":"text","text":"And in Berlin?"}],"busy_behavior":"queue"}"#
    );
    assert_eq!(
        post_message_body(&["a", "b"], Some(BusyBehavior::Interrupt), Some("m")),
        r#"{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"model_config_id":"m","busy_behavior":"interrupt"}"#
    );
    assert_eq!(
        post_message_body(&["x"], None, None),
        r#"{"content":[{"type":"text","text":"x"}]}"#
    );
}

#[test]
fn the_results_body_is_exact() {
    let body = tool_results_body(&[
        ToolResult {
            tool_call_id: "toolu_01A".into(),
            output: ours(json!({ "temp_c": 18 })),
            is_error: false,
        },
        ToolResult {
            tool_call_id: "toolu_01B".into(),
            output: Value::String("denied".into()),
            is_error: true,
        },
    ]);
    assert_eq!(
        body,
        r#"{"results":[{"tool_call_id":"toolu_01A","output":{"temp_c":18},"is_error":false},{"tool_call_id":"toolu_01B","output":"denied","is_error":true}]}"#
    );
}

#[test]
fn a_rest_error_keeps_message_detail_validations_and_status() {
    let error = ApiError::from_response(
        400,
        r#"{"message":"Duplicate dynamic tool name.","detail":"Tool \"x\" appears more than once.","validations":[{"field":"unsafe_dynamic_tools","detail":"duplicate"}]}"#,
    );
    assert_eq!(
        error,
        ApiError {
            status: 400,
            message: "Duplicate dynamic tool name.".into(),
            detail: Some("Tool \"x\" appears more than once.".into()),
            validations: vec![("unsafe_dynamic_tools".into(), "duplicate".into())],
        }
    );
    let proxy = ApiError::from_response(502, "<html>Bad gateway</html>\n");
    assert_eq!(proxy.message, "<html>Bad gateway</html>");
    assert_eq!(ApiError::from_response(503, "").message, "HTTP 503");
}

// ---------------------------------------------------------------------------------------------
// Delivering the results
// ---------------------------------------------------------------------------------------------

#[test]
fn a_batch_answers_every_id_in_one_body() {
    let mut batch = ResultsBatch::new(["toolu_01A", "toolu_01B", "toolu_01C", "toolu_01A"]);
    assert!(batch.set(
        "toolu_01A",
        ToolOutcome::Value(ours(json!({ "temp_c": 18 })))
    ));
    assert!(
        batch.body().is_none(),
        "no body before every id has an outcome"
    );
    assert_eq!(
        batch.missing().collect::<Vec<_>>(),
        ["toolu_01B", "toolu_01C"]
    );
    assert!(batch.set("toolu_01B", tool_off("get_browser_location")));
    assert!(batch.set(
        "toolu_01C",
        ToolOutcome::Value(Value::String("Sunny \"today\"".into()))
    ));
    assert!(
        !batch.set("toolu_01C", ToolOutcome::Value(Value::Null)),
        "the first stays"
    );
    assert!(!batch.set("toolu_zzz", ToolOutcome::Value(Value::Null)));
    assert!(batch.is_complete());
    let off = "TOOL ERROR: TOOL_NOT_AVAILABLE\\nthe tool get_browser_location is disabled in this chat\\nRECOVERY HINT: Do not call this tool again; answer without it or ask the user to enable it.";
    assert_eq!(
        batch.body().unwrap(),
        format!(
            r#"{{"results":[{{"tool_call_id":"toolu_01A","output":{{"temp_c":18}},"is_error":false}},{{"tool_call_id":"toolu_01B","output":"{off}","is_error":true}},{{"tool_call_id":"toolu_01C","output":"Sunny \"today\"","is_error":false}}]}}"#
        )
    );
}

#[test]
fn every_failure_is_an_error_result_with_its_text() {
    for code in [
        FailureCode::ToolExecutionFailed,
        FailureCode::InvalidToolArguments,
        FailureCode::Timeout,
        FailureCode::Interrupted,
        FailureCode::ToolResultTooLarge,
    ] {
        let failure = ToolFailure::new(code, "what happened");
        let r = result("id", &ToolOutcome::Failed(failure.clone()));
        assert!(r.is_error);
        assert_eq!(r.output, Value::String(failure.content()));
    }
    assert!(!result("id", &ToolOutcome::Value(Value::Null)).is_error);
}

#[test]
fn each_answer_to_a_submission_says_what_comes_next() {
    let error = |status: u16, message: &str| {
        ApiError::from_response(status, &format!("{{\"message\":\"{message}\"}}"))
    };
    let once = |reply: SubmitReply| Submission::new("{}".into()).handle_reply(reply);
    assert_eq!(
        once(SubmitReply::Http(204, String::new())),
        SubmitStep::Done
    );
    let conflict = r#"{"message":"Chat is not waiting for tool results.","detail":"chat status is \"running\", expected \"requires_action\""}"#;
    assert!(matches!(
        once(SubmitReply::Http(409, conflict.into())),
        SubmitStep::Superseded(e) if e.detail.as_deref().unwrap().contains("running")
    ));
    for message in ["Missing tool result.", "Unexpected tool result."] {
        assert_eq!(
            once(SubmitReply::Http(
                400,
                format!("{{\"message\":\"{message}\"}}")
            )),
            SubmitStep::Refresh(error(400, message))
        );
    }
    for (status, message) in [
        (400, "Duplicate tool_call_id in results."),
        (400, "Tool result output must be valid JSON."),
        (403, "Only the chat owner may submit tool results."),
        (
            404,
            "Resource not found or you do not have access to this resource",
        ),
    ] {
        assert_eq!(
            once(SubmitReply::Http(
                status,
                format!("{{\"message\":\"{message}\"}}")
            )),
            SubmitStep::Failed(error(status, message))
        );
    }
    // Network and 5xx: the same body once more, then reconcile from history.
    let mut submission = Submission::new("{\"results\":[]}".into());
    assert_eq!(
        submission.handle_reply(SubmitReply::Network),
        SubmitStep::Resend
    );
    assert_eq!(submission.body(), "{\"results\":[]}");
    let internal = "{\"message\":\"Internal error submitting tool results.\"}";
    assert_eq!(
        submission.handle_reply(SubmitReply::Http(500, internal.into())),
        SubmitStep::Reconcile(Some(error(500, "Internal error submitting tool results.")))
    );
    let mut submission = Submission::new(String::new());
    assert_eq!(
        submission.handle_reply(SubmitReply::Http(503, String::new())),
        SubmitStep::Resend
    );
    assert_eq!(
        submission.handle_reply(SubmitReply::Network),
        SubmitStep::Reconcile(None)
    );
}

#[test]
fn a_reconcile_reads_the_results_from_history() {
    // After a resend without an answer, the results landed if the history answers every id.
    let mut chat = Chat::new();
    chat.feed(TURN);
    assert!(!chat.coder.is_answered("toolu_01A"));
    chat.frame(RESUME.lines().next().unwrap());
    assert!(["toolu_01A", "toolu_01B"]
        .iter()
        .all(|id| chat.coder.is_answered(id)));
    let _: &[Message] = chat.coder.messages();
}

#[test]
fn a_late_part_of_an_abandoned_attempt_is_dropped_not_streamed() {
    let mut chat = Chat::new();
    let part = |attempt: i64, seq: i64, text: &str| {
        json!([{"type":"message_part","message_part":{"part":{"type":"text","text":text},
            "history_version":1,"generation_attempt":attempt,"seq":seq}}])
        .to_string()
    };
    chat.frame(&part(1, 1, "Old "));
    chat.frame(r#"[{"type":"preview_reset"}]"#);
    chat.frame(&part(2, 1, "New "));
    let late = chat.frame(&part(1, 2, "stale"));
    assert!(
        late.is_empty(),
        "the abandoned attempt's part changes nothing: {late:?}"
    );
    chat.frame(&part(2, 2, "answer."));
    assert_eq!(
        chat.messages(),
        json!([{ "role": "assistant", "id": "coder-1-2", "content": "New answer." }])
    );
}

#[test]
fn a_batch_listing_one_id_twice_hands_it_out_once() {
    let mut chat = Chat::new();
    let call = json!({"tool_call_id":"toolu_1","tool_name":"get_weather","args":"{}"});
    let batch = json!([{"type":"action_required","action_required":{"tool_calls":[call, call]}}]);
    let updates = chat.frame(&batch.to_string());
    assert_eq!(calls(&updates).len(), 1);
    assert_eq!(chat.coder.batch().len(), 2, "the batch is kept as sent");
}

#[test]
fn local_refs_are_resolved_into_the_schema_or_refused() {
    use chat_runtime::coder::schema::resolve_refs;
    let parse = |v: serde_json::Value| Value::parse(&v.to_string()).unwrap();
    let read = |v: Value| serde_json::from_str::<serde_json::Value>(&v.to_json()).unwrap();
    let place =
        json!({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]});
    let schema = json!({"type":"object","required":["where"],
        "properties":{"where":{"$ref":"#/$defs/Place","description":"the place"},
                      "also":{"type":"array","items":{"$ref":"#/definitions/Place"}}},
        "$defs":{"Place":place},"definitions":{"Place":place}});
    assert_eq!(
        read(resolve_refs(parse(schema)).unwrap()),
        json!({"type":"object","required":["where"],
            "properties":{"where":{"description":"the place","type":"object","properties":{"city":{"type":"string"}},"required":["city"]},
                          "also":{"type":"array","items":place}}})
    );
    // A top-level $ref: its target's properties are the schema's.
    assert_eq!(
        read(
            resolve_refs(parse(
                json!({"$ref":"#/$defs/Place","$defs":{"Place":place}})
            ))
            .unwrap()
        ),
        place
    );
    for bad in [
        json!({"properties":{"a":{"$ref":"https://example.com/a.json"}}}),
        json!({"properties":{"a":{"$ref":"#/$defs/Missing"}},"$defs":{}}),
        json!({"properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"properties":{"b":{"$ref":"#/$defs/A"}}}}}),
    ] {
        assert!(resolve_refs(parse(bad.clone())).is_err(), "{bad}");
    }
}
