//! Chunk expansion and the legacy `THINKING_*` upgrade, checked against the behaviour of the
//! TS client (`transformChunks`, `CompatibilityBoundary`).

mod common;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::protocol::chunks::{ChunkError, ChunkExpander, LegacyNotice, LegacyUpgrader};
use chat_runtime::protocol::event::{Event, Parsed};
use serde_json::Value;

/// Parses one 1.0 event.
fn ev(json: &str) -> Event {
    match Event::parse(json, 0).expect("test event parses") {
        Parsed::Event(event) => event,
        Parsed::Legacy { .. } => panic!("not a 1.0 event: {json}"),
    }
}

/// Expands `lines` (then `finish`es) and returns the output as JSON values.
fn expand(lines: &[&str]) -> Result<Vec<Value>, ChunkError> {
    let mut expander = ChunkExpander::new();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        expander.push(ev(line), i, &mut out)?;
    }
    expander.finish(&mut out);
    Ok(out.iter().map(to_serde).collect())
}

/// Parses the expected output.
fn json(lines: &[&str]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The `type`s of an output.
fn types(out: &[Value]) -> Vec<&str> {
    out.iter().map(|v| v["type"].as_str().unwrap()).collect()
}

const RUN_FINISHED: &str = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;

#[test]
fn expansion_rules_match_transform_chunks() {
    // (behaviour, input, expected output after finish)
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "first text chunk synthesizes start with assistant role, then content",
            &[r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"Hel"}"#],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hel"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            ],
        ),
        (
            "later chunks with absent or same id continue the message",
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","role":"user","name":"ann","delta":"a"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"b"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","role":"user","name":"ann","delta":"c"}"#,
            ],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"user","name":"ann"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"b"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"c"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            ],
        ),
        (
            "a chunk with a different id closes the open message and opens a new one",
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"b"}"#,
            ],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"b"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m2"}"#,
            ],
        ),
        (
            "an opening chunk without delta synthesizes only the start",
            &[r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1"}"#],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            ],
        ),
        (
            "a chunk with rawEvent but no delta yields an empty content carrying the raw event",
            &[r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","rawEvent":{"p":1}}"#],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"","rawEvent":{"p":1}}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            ],
        ),
        (
            "chunk metadata rides on start and content, never on the synthesized end",
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a","metadata":{"k":1}}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m2","delta":"b","metadata":{"k":2}}"#,
            ],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant","metadata":{"k":1}}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a","metadata":{"k":1}}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m2","role":"assistant","metadata":{"k":2}}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"b","metadata":{"k":2}}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m2"}"#,
            ],
        ),
        (
            "a metadata-only continuation yields a zero-delta content; an empty one yields nothing",
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","metadata":{"finish":"stop"}}"#,
            ],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"","metadata":{"finish":"stop"}}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            ],
        ),
        (
            "synthesized events drop the chunk's timestamp, as the TS client does",
            &[r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a","timestamp":5}"#],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
            ],
        ),
        (
            "tool call chunks expand to start, args and end with the parent message id",
            &[
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1","delta":"{\"a\""}"#,
                r#"{"type":"TOOL_CALL_CHUNK","delta":":1}"}"#,
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"}"#,
            ],
            &[
                r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"}"#,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"a\""}"#,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":":1}"}"#,
                r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
            ],
        ),
        (
            "reasoning chunks expand with the reasoning role",
            &[
                r#"{"type":"REASONING_MESSAGE_CHUNK","messageId":"r1","delta":"hm"}"#,
                r#"{"type":"REASONING_MESSAGE_CHUNK","delta":"m"}"#,
            ],
            &[
                r#"{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}"#,
                r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"hm"}"#,
                r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"m"}"#,
                r#"{"type":"REASONING_MESSAGE_END","messageId":"r1"}"#,
            ],
        ),
        (
            "a chunk of another kind in the same lane closes the open stream",
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}"#,
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"f","delta":"{}"}"#,
                r#"{"type":"REASONING_MESSAGE_CHUNK","messageId":"r1","delta":"x"}"#,
            ],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}"#,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}"#,
                r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
                r#"{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning"}"#,
                r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r1","delta":"x"}"#,
                r#"{"type":"REASONING_MESSAGE_END","messageId":"r1"}"#,
            ],
        ),
        (
            "sub-agent lanes assemble independently and ends carry the opener's subagentRunId",
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"p","delta":"1"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"s","subagentRunId":"A","delta":"2"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"3"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","subagentRunId":"A","delta":"4"}"#,
            ],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"p","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"1"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"s","role":"assistant","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"s","delta":"2","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"3"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"s","delta":"4","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"p"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"s","subagentRunId":"A"}"#,
            ],
        ),
        (
            "an untagged chunk without id continues the only lane holding its kind",
            &[
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"f","subagentRunId":"A"}"#,
                r#"{"type":"TOOL_CALL_CHUNK","delta":"{}"}"#,
            ],
            &[
                r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","subagentRunId":"A"}"#,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}","subagentRunId":"A"}"#,
                r#"{"type":"TOOL_CALL_END","toolCallId":"c1","subagentRunId":"A"}"#,
            ],
        ),
        (
            "a chunk naming an id open in a sub-agent lane continues there even untagged",
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"s","subagentRunId":"A","delta":"1"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"s","delta":"2"}"#,
            ],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"s","role":"assistant","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"s","delta":"1","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"s","delta":"2","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"s","subagentRunId":"A"}"#,
            ],
        ),
        (
            "run-level events close every lane in the order they opened",
            &[
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"f","subagentRunId":"B"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}"#,
                r#"{"type":"REASONING_MESSAGE_CHUNK","messageId":"r1","subagentRunId":"A"}"#,
                RUN_FINISHED,
            ],
            &[
                r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","subagentRunId":"B"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}"#,
                r#"{"type":"REASONING_MESSAGE_START","messageId":"r1","role":"reasoning","subagentRunId":"A"}"#,
                r#"{"type":"TOOL_CALL_END","toolCallId":"c1","subagentRunId":"B"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
                r#"{"type":"REASONING_MESSAGE_END","messageId":"r1","subagentRunId":"A"}"#,
                RUN_FINISHED,
            ],
        ),
        (
            "an explicit event closes only its own lane",
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"p","delta":"1"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"s","subagentRunId":"A","delta":"2"}"#,
                r#"{"type":"CUSTOM","name":"n","value":1,"subagentRunId":"A"}"#,
            ],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"p","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"1"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"s","role":"assistant","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"s","delta":"2","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"s","subagentRunId":"A"}"#,
                r#"{"type":"CUSTOM","name":"n","value":1,"subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"p"}"#,
            ],
        ),
        (
            "a sub-agent's terminal closes that sub-agent's lane",
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"p","delta":"1"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"s","subagentRunId":"A","delta":"2"}"#,
                r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"A"}"#,
            ],
            &[
                r#"{"type":"TEXT_MESSAGE_START","messageId":"p","role":"assistant"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"p","delta":"1"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"s","role":"assistant","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"s","delta":"2","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"s","subagentRunId":"A"}"#,
                r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"p"}"#,
            ],
        ),
    ];
    for (behaviour, input, expected) in cases {
        assert_eq!(expand(input).unwrap(), json(expected), "{behaviour}");
    }
}

#[test]
fn explicit_events_of_the_lane_close_the_pending_chunk_stream() {
    let closers = [
        r#"{"type":"TEXT_MESSAGE_START","messageId":"x"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"x","delta":""}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"x"}"#,
        r#"{"type":"TOOL_CALL_START","toolCallId":"x","toolCallName":"f"}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"x","delta":""}"#,
        r#"{"type":"TOOL_CALL_END","toolCallId":"x"}"#,
        r#"{"type":"TOOL_CALL_RESULT","messageId":"x","toolCallId":"c","content":"ok"}"#,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{}}"#,
        r#"{"type":"STATE_DELTA","delta":[]}"#,
        r#"{"type":"CUSTOM","name":"n","value":null}"#,
        r#"{"type":"STEP_STARTED","stepName":"s"}"#,
        r#"{"type":"STEP_FINISHED","stepName":"s"}"#,
        r#"{"type":"REASONING_START","messageId":"x"}"#,
        r#"{"type":"REASONING_MESSAGE_START","messageId":"x","role":"reasoning"}"#,
        r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"x","delta":""}"#,
        r#"{"type":"REASONING_MESSAGE_END","messageId":"x"}"#,
        r#"{"type":"REASONING_END","messageId":"x"}"#,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
        r#"{"type":"RUN_ERROR","message":"boom"}"#,
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[]}"#,
    ];
    for closer in closers {
        let out = expand(&[
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}"#,
            closer,
        ])
        .unwrap();
        let t = types(&out);
        assert_eq!(t[2], "TEXT_MESSAGE_END", "{closer} closes the chunk stream");
        assert_eq!(
            out[3],
            serde_json::from_str::<Value>(closer).unwrap(),
            "{closer} passes after the end"
        );
        assert_eq!(out.len(), 4, "{closer}: nothing left for finish to close");
    }
}

#[test]
fn raw_activity_encrypted_value_subagent_started_and_unknown_events_close_nothing() {
    let passers = [
        r#"{"type":"RAW","event":{"x":1}}"#,
        r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"plan","content":{}}"#,
        r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"plan","patch":[]}"#,
        r#"{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"m1","encryptedValue":"zz"}"#,
        r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"helper"}"#,
        r#"{"type":"SOMETHING_NEW","x":1}"#,
    ];
    for passer in passers {
        let out = expand(&[
            r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}"#,
            passer,
            r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"b"}"#,
        ])
        .unwrap();
        assert_eq!(
            types(&out),
            [
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                out[2]["type"].as_str().unwrap(),
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END"
            ],
            "{passer} leaves the stream open"
        );
        assert_eq!(out[2], serde_json::from_str::<Value>(passer).unwrap());
    }
}

#[test]
fn non_chunk_events_pass_through_unchanged() {
    let line = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","timestamp":7,"metadata":{"a":[1,2]},"rawEvent":{"big":"payload"}}"#;
    let mut expander = ChunkExpander::new();
    let mut out = Vec::new();
    expander.push(ev(line), 0, &mut out).unwrap();
    assert_eq!(out, vec![ev(line)]);
}

#[test]
fn finish_closes_open_streams_and_is_empty_when_nothing_is_open() {
    let mut expander = ChunkExpander::new();
    let mut out = Vec::new();
    expander.finish(&mut out);
    assert!(out.is_empty());
    expander
        .push(
            ev(r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"f"}"#),
            0,
            &mut out,
        )
        .unwrap();
    assert!(expander.has_open_stream());
    expander.finish(&mut out);
    assert_eq!(types(&json_of(&out)), ["TOOL_CALL_START", "TOOL_CALL_END"]);
    assert!(!expander.has_open_stream());
}

fn json_of(events: &[Event]) -> Vec<Value> {
    events.iter().map(to_serde).collect()
}

#[test]
fn first_chunk_without_its_id_is_fatal() {
    let cases: &[(&str, ChunkError)] = &[
        (
            r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"a"}"#,
            ChunkError::TextChunkWithoutMessageId { index: 0 },
        ),
        (
            r#"{"type":"TOOL_CALL_CHUNK","toolCallName":"f"}"#,
            ChunkError::ToolChunkWithoutToolCallId { index: 0 },
        ),
        (
            r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","delta":"{}"}"#,
            ChunkError::ToolChunkWithoutToolCallName {
                index: 0,
                tool_call_id: "c1".into(),
            },
        ),
        (
            r#"{"type":"REASONING_MESSAGE_CHUNK","delta":"a"}"#,
            ChunkError::ReasoningChunkWithoutMessageId { index: 0 },
        ),
    ];
    for (line, expected) in cases {
        assert_eq!(expand(&[line]).unwrap_err(), *expected, "{line}");
    }
}

#[test]
fn an_id_less_chunk_after_another_kind_closed_needs_an_id() {
    // The text stream is open, so a tool chunk without id has nothing to continue.
    let err = expand(&[
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}"#,
        r#"{"type":"TOOL_CALL_CHUNK","delta":"{}"}"#,
    ])
    .unwrap_err();
    assert_eq!(err, ChunkError::ToolChunkWithoutToolCallId { index: 1 });
}

#[test]
fn conflicting_repeated_fields_are_fatal() {
    let cases: &[(&[&str], &str, &str, Option<&str>)] = &[
        (
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","role":"user","delta":"b"}"#,
            ],
            "role",
            "user",
            Some("assistant"),
        ),
        (
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","name":"ann"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","name":"bob"}"#,
            ],
            "name",
            "bob",
            Some("ann"),
        ),
        (
            &[
                r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1"}"#,
                r#"{"type":"TEXT_MESSAGE_CHUNK","name":"bob"}"#,
            ],
            "name",
            "bob",
            None,
        ),
        (
            &[
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"f"}"#,
                r#"{"type":"TOOL_CALL_CHUNK","toolCallName":"g"}"#,
            ],
            "toolCallName",
            "g",
            Some("f"),
        ),
        (
            &[
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"f"}"#,
                r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","parentMessageId":"m9"}"#,
            ],
            "parentMessageId",
            "m9",
            None,
        ),
    ];
    for (lines, field, incoming, established) in cases {
        match expand(lines).unwrap_err() {
            ChunkError::ConflictingField {
                index: 1,
                field: f,
                incoming: i,
                established: e,
                ..
            } => {
                assert_eq!(
                    (f, i.as_str(), e.as_deref()),
                    (*field, *incoming, *established)
                );
            }
            other => panic!("{field}: unexpected {other:?}"),
        }
    }
}

#[test]
fn repeating_the_opener_s_values_is_allowed_including_the_default_role() {
    let out = expand(&[
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}"#,
        r#"{"type":"TEXT_MESSAGE_CHUNK","role":"assistant","delta":"b"}"#,
    ])
    .unwrap();
    assert_eq!(out.len(), 4);
}

#[test]
fn a_chunk_tagged_with_another_subagent_than_its_open_id_is_fatal() {
    let err = expand(&[
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"s","subagentRunId":"A","delta":"1"}"#,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"s","subagentRunId":"B","delta":"2"}"#,
    ])
    .unwrap_err();
    assert_eq!(
        err,
        ChunkError::SubagentConflict {
            index: 1,
            chunk_type: "TEXT_MESSAGE_CHUNK",
            entity_id: "s".into(),
            subagent_run_id: "B".into(),
            owner: Some("A".into()),
        }
    );
    assert_eq!(
        err.to_string(),
        "event 1 (TEXT_MESSAGE_CHUNK): cannot continue 's': subagentRunId 'B' does not match the open stream's subagent 'A'"
    );
}

#[test]
fn an_untagged_id_less_chunk_with_several_candidate_lanes_is_ambiguous() {
    let err = expand(&[
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"a","subagentRunId":"A"}"#,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"b","subagentRunId":"B"}"#,
        r#"{"type":"TEXT_MESSAGE_CHUNK","delta":"?"}"#,
    ])
    .unwrap_err();
    assert_eq!(
        err,
        ChunkError::AmbiguousChunk {
            index: 2,
            chunk_type: "TEXT_MESSAGE_CHUNK",
            open_lanes: 2
        }
    );
}

#[test]
fn an_error_appends_nothing_and_leaves_the_stream_open() {
    let mut expander = ChunkExpander::new();
    let mut out = Vec::new();
    expander
        .push(
            ev(r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"f"}"#),
            0,
            &mut out,
        )
        .unwrap();
    let before = out.len();
    let err = expander.push(
        ev(r#"{"type":"TOOL_CALL_CHUNK","toolCallName":"g"}"#),
        1,
        &mut out,
    );
    assert_eq!(err.unwrap_err().index(), 1);
    assert_eq!(out.len(), before);
    assert!(expander.has_open_stream());
}

// --- legacy THINKING_* -------------------------------------------------------------------------

fn upgrade_all(upgrader: &mut LegacyUpgrader, lines: &[&str]) -> Vec<Value> {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let event = upgrader.upgrade(Event::parse(l, i).unwrap());
            to_serde(&event)
        })
        .collect()
}

fn notices(upgrader: &mut LegacyUpgrader) -> Vec<LegacyNotice> {
    std::iter::from_fn(|| upgrader.poll_notice()).collect()
}

#[test]
fn legacy_thinking_sequence_becomes_reasoning_with_deterministic_ids() {
    let mut upgrader = LegacyUpgrader::new();
    let out = upgrade_all(
        &mut upgrader,
        &[
            r#"{"type":"THINKING_START","title":"plan","timestamp":1}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_END"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_END"}"#,
            r#"{"type":"THINKING_END","timestamp":2}"#,
        ],
    );
    assert_eq!(
        out,
        json(&[
            r#"{"type":"REASONING_START","messageId":"thinking-1","timestamp":1}"#,
            r#"{"type":"REASONING_MESSAGE_START","messageId":"thinking-2","role":"reasoning"}"#,
            r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"thinking-2","delta":"hmm"}"#,
            r#"{"type":"REASONING_MESSAGE_END","messageId":"thinking-2"}"#,
            r#"{"type":"REASONING_MESSAGE_START","messageId":"thinking-3","role":"reasoning"}"#,
            r#"{"type":"REASONING_MESSAGE_END","messageId":"thinking-3"}"#,
            r#"{"type":"REASONING_END","messageId":"thinking-1","timestamp":2}"#,
        ])
    );
    assert_eq!(upgrader.translated(), 7);
    let notices = notices(&mut upgrader);
    assert_eq!(
        notices[..2],
        [
            LegacyNotice::Translated {
                from: "THINKING_START",
                to: "REASONING_START"
            },
            LegacyNotice::TitleDropped {
                title: "plan".into()
            },
        ]
    );
    assert_eq!(
        notices.len(),
        8,
        "one per translation plus the dropped title"
    );
}

#[test]
fn legacy_continuation_without_opener_mints_a_fresh_id_and_says_so() {
    let mut upgrader = LegacyUpgrader::new();
    let out = upgrade_all(
        &mut upgrader,
        &[
            r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"a"}"#,
            r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"b"}"#,
            r#"{"type":"THINKING_END"}"#,
        ],
    );
    let ids: Vec<_> = out
        .iter()
        .map(|v| v["messageId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["thinking-1", "thinking-2", "thinking-3"]);
    let minted: Vec<_> = notices(&mut upgrader)
        .into_iter()
        .filter_map(|n| match n {
            LegacyNotice::MintedId { from, id } => Some((from, id)),
            _ => None,
        })
        .collect();
    assert_eq!(
        minted,
        [
            ("THINKING_TEXT_MESSAGE_CONTENT", "thinking-1".to_owned()),
            ("THINKING_TEXT_MESSAGE_CONTENT", "thinking-2".to_owned()),
            ("THINKING_END", "thinking-3".to_owned()),
        ]
    );
}

#[test]
fn one_point_zero_events_pass_the_upgrader_untouched() {
    let mut upgrader = LegacyUpgrader::new();
    let line = r#"{"type":"REASONING_START","messageId":"r"}"#;
    assert_eq!(upgrader.upgrade(Event::parse(line, 0).unwrap()), ev(line));
    assert_eq!(upgrader.translated(), 0);
    assert_eq!(upgrader.poll_notice(), None);
}
