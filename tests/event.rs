//! Event parsing: liberal on the unknown, strict on the known, wire JSON out.

mod common;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::protocol::event::{Event, EventError, LegacyThinking, Parsed};
use serde_json::json;

fn event(json: &str) -> Event {
    match Event::parse(json, 0).expect("parses") {
        Parsed::Event(event) => event,
        other => panic!("not a 1.0 event: {other:?}"),
    }
}

fn field_error(json: &str) -> (String, String) {
    match Event::parse(json, 7) {
        Err(EventError::Field {
            index,
            event_type,
            field,
            message,
        }) => {
            assert_eq!(index, 7);
            assert!(!message.contains(" at line "), "{message}");
            (event_type, field)
        }
        other => panic!("expected a field error, got {other:?}"),
    }
}

#[test]
fn malformed_fields_are_named_by_their_json_path() {
    let cases = [
        (
            r#"{"type":"TEXT_MESSAGE_START","messageId":42}"#,
            "TEXT_MESSAGE_START",
            "messageId",
        ),
        (
            r#"{"type":"RUN_STARTED","threadId":"t"}"#,
            "RUN_STARTED",
            "runId",
        ),
        (
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":["a",5]}}"#,
            "RUN_FINISHED",
            "outcome.pendingToolCallIds[1]",
        ),
        (
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i"}]}}"#,
            "RUN_FINISHED",
            "outcome.interrupts[0].reason",
        ),
        (
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"robot"}"#,
            "TEXT_MESSAGE_START",
            "role",
        ),
        (
            r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":{"a":1}}"#,
            "TOOL_CALL_ARGS",
            "delta",
        ),
        (
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":"hi"},{"id":"2","role":"tool","content":"x"}]}"#,
            "MESSAGES_SNAPSHOT",
            "messages[1].toolCallId",
        ),
        (
            r#"{"type":"CUSTOM","name":"n","value":1,"timestamp":"yesterday"}"#,
            "CUSTOM",
            "timestamp",
        ),
        (
            r#"{"type":"STATE_DELTA","delta":[{"op":"jump","path":"/a"}]}"#,
            "STATE_DELTA",
            "delta[0].op",
        ),
    ];
    for (json, event_type, field) in cases {
        assert_eq!(
            field_error(json),
            (event_type.to_owned(), field.to_owned()),
            "{json}"
        );
    }
}

#[test]
fn with_several_bad_fields_the_first_in_declaration_order_is_named() {
    // Struct readers take every field and report the first error once (`Fields::get`); the
    // order of the struct's fields decides, not the order of the members in the text.
    let cases = [
        (
            r#"{"type":"TEXT_MESSAGE_CONTENT","delta":7,"messageId":1}"#,
            "messageId",
        ),
        (r#"{"type":"TEXT_MESSAGE_CONTENT","delta":7}"#, "messageId"),
        (
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","timestamp":"x","delta":null}"#,
            "delta",
        ),
        (
            r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"role":"user","id":"u"},{"role":"tool","id":1}]}"#,
            "messages[0].content",
        ),
    ];
    for (json, field) in cases {
        assert_eq!(field_error(json).1, field, "{json}");
    }
}

#[test]
fn unknown_event_types_are_kept_whole() {
    let json = r#"{"type":"FUTURE_THING","x":[1,2],"y":{"z":null}}"#;
    let Event::Unknown(unknown) = event(json) else {
        panic!("not unknown")
    };
    assert_eq!(unknown.type_name(), "FUTURE_THING");
    assert_eq!(
        to_serde(Event::Unknown(unknown)),
        serde_json::from_str::<serde_json::Value>(json).unwrap()
    );
}

#[test]
fn unknown_fields_on_known_events_are_ignored() {
    let e = event(r#"{"type":"TEXT_MESSAGE_END","messageId":"m","shiny":true}"#);
    assert_eq!(
        e.to_json(),
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#
    );
}

#[test]
fn legacy_nulls_read_as_absent_and_are_never_written() {
    let e = event(
        r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":null,"rawEvent":null}"#,
    );
    assert_eq!(
        e.to_json(),
        r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#
    );
    let e = event(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":null}"#);
    assert_eq!(
        e.to_json(),
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#
    );
}

#[test]
fn payload_nulls_inside_values_are_kept() {
    let e = event(r#"{"type":"CUSTOM","name":"n","value":{"a":null}}"#);
    assert_eq!(
        to_serde(&e),
        json!({"type":"CUSTOM","name":"n","value":{"a":null}})
    );
}

#[test]
fn not_json_and_missing_type_have_their_own_errors() {
    assert!(matches!(
        Event::parse("{nope", 3),
        Err(EventError::Json { index: 3, .. })
    ));
    assert!(matches!(
        Event::parse("[1,2]", 4),
        Err(EventError::NoType { index: 4 })
    ));
    assert!(matches!(
        Event::parse(r#"{"type":""}"#, 5),
        Err(EventError::NoType { index: 5 })
    ));
    assert!(matches!(
        Event::parse(r#"{"type":7}"#, 6),
        Err(EventError::NoType { index: 6 })
    ));
    assert!(matches!(
        Event::parse(r#""RUN_STARTED""#, 1),
        Err(EventError::NoType { index: 1 })
    ));
}

#[test]
fn legacy_thinking_events_parse_as_legacy() {
    let parsed = Event::parse(
        r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hm","timestamp":5}"#,
        0,
    )
    .unwrap();
    assert_eq!(
        parsed,
        Parsed::Legacy {
            event: LegacyThinking::TextMessageContent { delta: "hm".into() },
            timestamp: Some(5)
        }
    );
    assert!(matches!(
        Event::parse(r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT"}"#, 2),
        Err(EventError::Field { index: 2, ref field, .. }) if field == "delta"
    ));
    let legacy = |json: &str| match Event::parse(json, 0).unwrap() {
        Parsed::Legacy { event, .. } => event,
        other => panic!("not legacy: {other:?}"),
    };
    assert_eq!(
        legacy(r#"{"type":"THINKING_START","title":"t"}"#),
        LegacyThinking::Start {
            title: Some("t".into())
        }
    );
    assert_eq!(legacy(r#"{"type":"THINKING_END"}"#), LegacyThinking::End);
    assert_eq!(
        legacy(r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#),
        LegacyThinking::TextMessageStart
    );
    assert_eq!(
        legacy(r#"{"type":"THINKING_TEXT_MESSAGE_END"}"#),
        LegacyThinking::TextMessageEnd
    );
    // A type that only starts like a legacy one is an unknown event, kept whole.
    assert!(matches!(
        Event::parse(r#"{"type":"THINKING_STARTED"}"#, 0).unwrap(),
        Parsed::Event(Event::Unknown(_))
    ));
}

#[test]
fn every_event_serializes_with_type_first() {
    let e = event(r#"{"runId":"r","threadId":"t","type":"RUN_STARTED"}"#);
    assert!(e.to_json().starts_with(r#"{"type":"RUN_STARTED""#));
    assert_eq!(e.type_name(), "RUN_STARTED");
}

#[test]
fn the_type_is_found_wherever_it_stands_and_however_it_is_written() {
    let first = event(r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#);
    let last = event(r#"{"messageId":"m","type":"TEXT_MESSAGE_END"}"#);
    let spaced = event(r#"{ "type" : "TEXT_MESSAGE_END", "messageId": "m" }"#);
    let escaped = event(r#"{"type":"TEXT_MESSAGE_\u0045ND","messageId":"m"}"#);
    assert_eq!(first, last);
    assert_eq!(first, spaced);
    assert_eq!(first, escaped);
}

#[test]
fn broken_json_after_a_leading_type_is_still_a_json_error() {
    assert!(matches!(
        Event::parse(r#"{"type":"TEXT_MESSAGE_END","messageId":"m""#, 9),
        Err(EventError::Json { index: 9, .. })
    ));
    assert!(matches!(
        Event::parse(r#"{"type":"TEXT_MESSAGE_END","messageId":}"#, 9),
        Err(EventError::Json { index: 9, .. })
    ));
}

#[test]
fn outcome_types_read_and_unknown_ones_are_named() {
    let outcome_error = |json: &str| match Event::parse(json, 2) {
        Err(EventError::Field { field, message, .. }) => (field, message),
        other => panic!("expected a field error, got {other:?}"),
    };
    assert_eq!(
        outcome_error(
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"done"}}"#
        ),
        (
            "outcome.type".to_owned(),
            "unknown outcome type `done`, expected `success`, `interrupt` or `cancelled`"
                .to_owned()
        )
    );
    assert_eq!(
        outcome_error(
            r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"A","outcome":{"type":"cancelled"}}"#
        ),
        (
            "outcome.type".to_owned(),
            "unknown outcome type `cancelled`, expected `success` or `suspended`".to_owned()
        )
    );
    for (outcome, expected) in [
        (r#"{"type":"cancelled"}"#, r#"{"type":"cancelled"}"#),
        (
            r#"{"type":"success","pendingToolCallIds":["a"]}"#,
            r#"{"type":"success","pendingToolCallIds":["a"]}"#,
        ),
    ] {
        let json =
            format!(r#"{{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{outcome}}}"#);
        assert!(event(&json).to_json().contains(expected), "{json}");
    }
    let json = r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"A","outcome":{"type":"suspended","interruptIds":["i"]}}"#;
    assert!(event(json)
        .to_json()
        .contains(r#"{"type":"suspended","interruptIds":["i"]}"#));
}

#[test]
fn the_base_fields_are_written_after_the_own_ones_in_one_order() {
    // Read in any order, written in the struct's: the event's own fields, then `timestamp`,
    // `rawEvent`, `metadata`, then a scoped event's `subagentRunId`. A `SUBAGENT_*` event's
    // `subagentRunId` is its own first field; a run-level event has none.
    let scoped = event(
        r#"{"subagentRunId":"s","metadata":{"m":1},"rawEvent":{"r":2},"timestamp":3,"delta":"d","messageId":"m","type":"TEXT_MESSAGE_CONTENT"}"#,
    );
    assert_eq!(
        scoped.to_json(),
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","timestamp":3,"rawEvent":{"r":2},"metadata":{"m":1},"subagentRunId":"s"}"#
    );
    let subagent = event(
        r#"{"metadata":{"m":1},"timestamp":3,"message":"x","subagentRunId":"s","type":"SUBAGENT_ERROR","rawEvent":{"r":2}}"#,
    );
    assert_eq!(
        subagent.to_json(),
        r#"{"type":"SUBAGENT_ERROR","subagentRunId":"s","message":"x","timestamp":3,"rawEvent":{"r":2},"metadata":{"m":1}}"#
    );
    let run = event(
        r#"{"timestamp":3,"runId":"r","metadata":{"m":1},"threadId":"t","type":"RUN_STARTED"}"#,
    );
    assert_eq!(
        run.to_json(),
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","timestamp":3,"metadata":{"m":1}}"#
    );
}

/// A message's rare fields (`name`, `error`, `encryptedValue`, `metadata`, `subagentRunId`), and
/// a tool call's (`encryptedValue`, `metadata`), are held apart, boxed together only when one is
/// present: each kind reads them from anywhere in the object and writes them after its own
/// fields, in the one order of its declaration.
#[test]
fn every_message_kind_writes_its_rare_fields_in_wire_order() {
    let cases = [
        (
            r#"{"subagentRunId":"s","metadata":{"m":1},"encryptedValue":"e","name":"n","content":"c","id":"d","role":"developer"}"#,
            r#"{"role":"developer","id":"d","content":"c","name":"n","encryptedValue":"e","metadata":{"m":1},"subagentRunId":"s"}"#,
        ),
        (
            r#"{"role":"system","metadata":{"m":1},"id":"s","content":"c"}"#,
            r#"{"role":"system","id":"s","content":"c","metadata":{"m":1}}"#,
        ),
        (
            r#"{"role":"user","subagentRunId":"s","name":"n","id":"u","content":[{"type":"text","text":"t"}]}"#,
            r#"{"role":"user","id":"u","content":[{"type":"text","text":"t"}],"name":"n","subagentRunId":"s"}"#,
        ),
        (
            r#"{"role":"assistant","encryptedValue":"e","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}],"name":"n","id":"a","content":"c"}"#,
            r#"{"role":"assistant","id":"a","content":"c","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}],"name":"n","encryptedValue":"e"}"#,
        ),
        (
            r#"{"role":"assistant","id":"a","toolCalls":[{"metadata":{"k":1},"function":{"arguments":"{}","name":"f"},"encryptedValue":"x","type":"function","id":"c"},{"id":"d","type":"function","function":{"name":"g","arguments":""},"metadata":null}]}"#,
            r#"{"role":"assistant","id":"a","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"encryptedValue":"x","metadata":{"k":1}},{"id":"d","type":"function","function":{"name":"g","arguments":""}}]}"#,
        ),
        (
            r#"{"role":"tool","subagentRunId":"s","error":"boom","toolCallId":"c","content":"x","id":"t","metadata":{"m":1},"encryptedValue":"e"}"#,
            r#"{"role":"tool","id":"t","content":"x","toolCallId":"c","error":"boom","encryptedValue":"e","metadata":{"m":1},"subagentRunId":"s"}"#,
        ),
        (
            r#"{"role":"activity","subagentRunId":"s","metadata":{"m":1},"content":{"p":1},"activityType":"PLAN","id":"p"}"#,
            r#"{"role":"activity","id":"p","activityType":"PLAN","content":{"p":1},"metadata":{"m":1},"subagentRunId":"s"}"#,
        ),
        (
            r#"{"role":"reasoning","subagentRunId":"s","encryptedValue":"e","id":"r","content":"c"}"#,
            r#"{"role":"reasoning","id":"r","content":"c","encryptedValue":"e","subagentRunId":"s"}"#,
        ),
    ];
    for (input, written) in cases {
        let e = event(&format!(
            r#"{{"type":"MESSAGES_SNAPSHOT","messages":[{input}]}}"#
        ));
        assert_eq!(
            e.to_json(),
            format!(r#"{{"type":"MESSAGES_SNAPSHOT","messages":[{written}]}}"#),
            "{input}"
        );
    }
}

#[test]
fn a_message_without_rare_fields_holds_no_box_and_one_with_them_reads_them() {
    use chat_runtime::protocol::event::Message;
    let e = event(
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[
            {"role":"user","id":"u","content":"hi","name":null,"metadata":null},
            {"role":"tool","id":"t","content":"x","toolCallId":"c","error":"boom"},
            {"role":"assistant","id":"a","subagentRunId":"s","toolCalls":[
                {"id":"c","type":"function","function":{"name":"f","arguments":""}},
                {"id":"d","type":"function","function":{"name":"f","arguments":""},"metadata":{"k":1}}
            ]}
        ]}"#,
    );
    let Event::MessagesSnapshot(snapshot) = e else {
        panic!("not a snapshot: {e:?}");
    };
    let [Message::User(user), Message::Tool(tool), Message::Assistant(assistant)] =
        &snapshot.messages[..]
    else {
        panic!("unexpected messages: {:?}", snapshot.messages);
    };
    assert!(user.rare.is_none(), "nulls read as absent: {user:?}");
    assert_eq!(user.name(), None);
    assert_eq!(tool.error().map(String::as_str), Some("boom"));
    assert_eq!(tool.metadata(), None);
    assert_eq!(assistant.subagent_run_id().map(String::as_str), Some("s"));
    assert_eq!(assistant.name(), None);
    let calls = assistant.tool_calls.as_deref().unwrap_or_default();
    assert!(calls[0].rare.is_none(), "{:?}", calls[0]);
    assert_eq!(calls[1].metadata().map(|m| m.len()), Some(1));
    assert_eq!(calls[1].encrypted_value(), None);
}
