//! Ordering rules (TS `verifyEvents`), and the whole parse → upgrade → expand → verify pipeline
//! on hand-written streams and on real server captures.

mod common;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::protocol::chunks::{ChunkExpander, LegacyUpgrader};
use chat_runtime::protocol::event::{Event, Parsed, RunAgentInput};
use chat_runtime::protocol::verify::{EntityKind, OpenKind, OrderError, RunState, Verifier};

/// Parses one 1.0 event.
fn ev(json: &str, index: usize) -> Event {
    match Event::parse(json, index).expect("test event parses") {
        Parsed::Event(event) => event,
        Parsed::Legacy { .. } => panic!("not a 1.0 event: {json}"),
    }
}

/// Verifies `lines` directly (no expansion).
fn verify(lines: &[&str]) -> Result<Verifier, OrderError> {
    let mut verifier = Verifier::new();
    for (i, line) in lines.iter().enumerate() {
        verifier.check(&ev(line, i), i)?;
    }
    Ok(verifier)
}

/// The whole pipeline on `data` payloads: parse, upgrade legacy, expand chunks, verify.
/// Returns the verifier and the expanded events.
fn pipeline<'a>(
    payloads: impl IntoIterator<Item = &'a str>,
) -> Result<(Verifier, Vec<Event>), String> {
    let mut upgrader = LegacyUpgrader::new();
    let mut expander = ChunkExpander::new();
    let mut verifier = Verifier::new();
    let mut expanded = Vec::new();
    let mut checked = 0;
    for (i, data) in payloads.into_iter().enumerate() {
        let parsed = Event::parse(data, i).map_err(|e| e.to_string())?;
        let event = upgrader.upgrade(parsed);
        expander
            .push(event, i, &mut expanded)
            .map_err(|e| e.to_string())?;
        for event in &expanded[checked..] {
            verifier.check(event, i).map_err(|e| e.to_string())?;
        }
        checked = expanded.len();
    }
    expander.finish(&mut expanded);
    for event in &expanded[checked..] {
        verifier
            .check(event, usize::MAX)
            .map_err(|e| e.to_string())?;
    }
    Ok((verifier, expanded))
}

/// A tiny SSE splitter for the captures: frames end at a blank line, `data:` lines are joined
/// with `\n`, one space after the colon is dropped, other fields and comments are ignored.
fn sse_data(text: &str) -> Vec<String> {
    text.split("\n\n")
        .filter_map(|frame| {
            let data: Vec<&str> = frame
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|rest| rest.strip_prefix(' ').unwrap_or(rest))
                .collect();
            (!data.is_empty()).then(|| data.join("\n"))
        })
        .collect()
}

const RS: &str = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}"#;
const RF: &str = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r1"}"#;
const RE: &str = r#"{"type":"RUN_ERROR","message":"boom"}"#;

#[test]
fn every_ordering_violation_is_reported_at_the_offending_event() {
    // (behaviour, stream whose last event is the violation, expected variant)
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "rule 1: a stream must open with RUN_STARTED",
            &[r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#],
            "FirstEventNotRunStarted",
        ),
        (
            "rule 2: no RUN_STARTED inside a run",
            &[RS, RS],
            "RunAlreadyStarted",
        ),
        (
            "rule 2: after RUN_FINISHED only RUN_ERROR or RUN_STARTED",
            &[RS, RF, r#"{"type":"CUSTOM","name":"n","value":1}"#],
            "EventAfterRunFinished",
        ),
        (
            "rule 2: RUN_FINISHED twice",
            &[RS, RF, RF],
            "EventAfterRunFinished",
        ),
        (
            "rule 2: after RUN_ERROR only RUN_STARTED",
            &[RS, RE, RF],
            "EventAfterRunError",
        ),
        (
            "rule 2: RUN_ERROR after RUN_ERROR",
            &[RE, RE],
            "EventAfterRunError",
        ),
        (
            "rule 3: text message opened twice",
            &[
                RS,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
            ],
            "TextMessageAlreadyOpen",
        ),
        (
            "rule 3: text content without start",
            &[
                RS,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}"#,
            ],
            "TextMessageNotOpen",
        ),
        (
            "rule 3: text end after end",
            &[
                RS,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
                r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
            ],
            "TextMessageNotOpen",
        ),
        (
            "rule 3: tool call opened twice",
            &[
                RS,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#,
            ],
            "ToolCallAlreadyOpen",
        ),
        (
            "rule 3: tool args without start",
            &[
                RS,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{}"}"#,
            ],
            "ToolCallNotOpen",
        ),
        (
            "rule 3: tool end without start",
            &[RS, r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#],
            "ToolCallNotOpen",
        ),
        (
            "rule 3: reasoning span opened twice",
            &[
                RS,
                r#"{"type":"REASONING_START","messageId":"r"}"#,
                r#"{"type":"REASONING_START","messageId":"r"}"#,
            ],
            "ReasoningSpanAlreadyOpen",
        ),
        (
            "rule 3: reasoning span end without start",
            &[RS, r#"{"type":"REASONING_END","messageId":"r"}"#],
            "ReasoningSpanNotOpen",
        ),
        (
            "rule 3: reasoning message opened twice",
            &[
                RS,
                r#"{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}"#,
                r#"{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}"#,
            ],
            "ReasoningMessageAlreadyOpen",
        ),
        (
            "rule 3: reasoning content without start (a span is not a message)",
            &[
                RS,
                r#"{"type":"REASONING_START","messageId":"r"}"#,
                r#"{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"x"}"#,
            ],
            "ReasoningMessageNotOpen",
        ),
        (
            "rule 3: reasoning message end without start",
            &[RS, r#"{"type":"REASONING_MESSAGE_END","messageId":"r"}"#],
            "ReasoningMessageNotOpen",
        ),
        (
            "rule 4: step started twice by the same owner",
            &[
                RS,
                r#"{"type":"STEP_STARTED","stepName":"s"}"#,
                r#"{"type":"STEP_STARTED","stepName":"s"}"#,
            ],
            "StepAlreadyActive",
        ),
        (
            "rule 4: step finished without start",
            &[RS, r#"{"type":"STEP_FINISHED","stepName":"s"}"#],
            "StepNotStarted",
        ),
        (
            "rule 4: step finished by another owner than the one that started it",
            &[
                RS,
                r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"a"}"#,
                r#"{"type":"STEP_STARTED","stepName":"s","subagentRunId":"A"}"#,
                r#"{"type":"STEP_FINISHED","stepName":"s"}"#,
            ],
            "StepOwnedByOther",
        ),
        (
            "rule 5: run finished with a text message open",
            &[RS, r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#, RF],
            "RunFinishedWithOpen",
        ),
        (
            "rule 7: continuation tagged with another subagent than its opener",
            &[
                RS,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"A"}"#,
                r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","subagentRunId":"B"}"#,
            ],
            "SubagentMismatch",
        ),
        (
            "rule 7: tool call arguments tagged with another subagent than the call's opener",
            &[
                RS,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","subagentRunId":"A"}"#,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{"}"#,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"}","subagentRunId":"B"}"#,
            ],
            "SubagentMismatch",
        ),
        (
            "rule 7: tool call tagged unlike its parent message",
            &[
                RS,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"A"}"#,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"m","subagentRunId":"B"}"#,
            ],
            "ToolCallParentMismatch",
        ),
        (
            "rule 7: untagged tool call re-opened under a parent owned by someone else",
            &[
                RS,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","subagentRunId":"A"}"#,
                r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"m"}"#,
            ],
            "ToolCallOwnerConflict",
        ),
        (
            "rule 7: subagent started twice",
            &[
                RS,
                r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"a"}"#,
                r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"a"}"#,
            ],
            "SubagentAlreadyActive",
        ),
        (
            "rule 7: subagent id reused within a run",
            &[
                RS,
                r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"a"}"#,
                r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"A"}"#,
                r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"a"}"#,
            ],
            "SubagentIdReused",
        ),
        (
            "rule 7: subagent parent not started in this run",
            &[
                RS,
                r#"{"type":"SUBAGENT_STARTED","subagentRunId":"B","name":"b","parentSubagentRunId":"A"}"#,
            ],
            "SubagentParentNotStarted",
        ),
        (
            "rule 7: subagent finished without start",
            &[RS, r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"A"}"#],
            "SubagentNotActive",
        ),
        (
            "rule 7: subagent error without start",
            &[
                RS,
                r#"{"type":"SUBAGENT_ERROR","subagentRunId":"A","message":"x"}"#,
            ],
            "SubagentNotActive",
        ),
    ];
    for (behaviour, lines, variant) in cases {
        let err = match verify(lines) {
            Ok(_) => panic!("{behaviour}: accepted"),
            Err(err) => err,
        };
        let last = lines.len() - 1;
        assert!(
            format!("{err:?}").starts_with(variant),
            "{behaviour}: got {err:?}"
        );
        assert_eq!(err.index(), last, "{behaviour}: index");
        assert_eq!(
            err.event_type(),
            ev(lines[last], last).type_name(),
            "{behaviour}: type"
        );
        let message = err.to_string();
        let text = message
            .split_once("): ")
            .map(|(_, text)| text)
            .unwrap_or_default();
        assert!(
            text.starts_with(char::is_lowercase),
            "{behaviour}: lower-case message: {message}"
        );
    }
}

#[test]
fn error_messages_are_lower_case_and_name_the_event() {
    let err = verify(&[RS, r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "event 1 (TEXT_MESSAGE_END): no active text message with id 'm'"
    );
}

#[test]
fn run_finished_reports_what_is_still_open_in_ts_order() {
    // Steps are reported before anything else, even when opened last.
    let err = verify(&[
        RS,
        r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m2"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
        r#"{"type":"STEP_STARTED","stepName":"s"}"#,
        RF,
    ])
    .unwrap_err();
    assert!(matches!(
        &err,
        OrderError::RunFinishedWithOpen { index: 5, what: OpenKind::Step, ids, .. } if ids == &["s"]
    ));

    let cases: &[(&[&str], OpenKind, &[&str])] = &[
        (
            &[
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m2"}"#,
                r#"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
            ],
            OpenKind::TextMessage,
            &["m1", "m2"],
        ),
        (
            &[
                r#"{"type":"REASONING_START","messageId":"s"}"#,
                r#"{"type":"REASONING_MESSAGE_START","messageId":"r","role":"reasoning"}"#,
            ],
            OpenKind::ReasoningMessage,
            &["r"],
        ),
        (
            &[r#"{"type":"REASONING_START","messageId":"s"}"#],
            OpenKind::ReasoningSpan,
            &["s"],
        ),
        (
            &[r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#],
            OpenKind::ToolCall,
            &["c"],
        ),
        (
            &[r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"a"}"#],
            OpenKind::Subagent,
            &["A"],
        ),
        (
            &[
                r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"a"}"#,
                r#"{"type":"STEP_STARTED","stepName":"s","subagentRunId":"A"}"#,
            ],
            OpenKind::Step,
            &["s (subagent 'A')"],
        ),
    ];
    for (open, expected_what, expected_ids) in cases {
        let mut lines = vec![RS];
        lines.extend_from_slice(open);
        lines.push(RF);
        match verify(&lines).unwrap_err() {
            OrderError::RunFinishedWithOpen { what, ids, .. } => {
                assert_eq!(
                    (what, ids.as_slice()),
                    (
                        *expected_what,
                        &expected_ids
                            .iter()
                            .map(|s| s.to_string())
                            .collect::<Vec<_>>()[..]
                    )
                );
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[test]
fn subagent_mismatch_names_the_entity_and_both_owners() {
    let cases: &[(&[&str], EntityKind, &str, Option<&str>)] = &[
        (
            &[
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f"}"#,
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"","subagentRunId":"A"}"#,
            ],
            EntityKind::ToolCall,
            "c",
            None,
        ),
        (
            &[
                r#"{"type":"REASONING_START","messageId":"r","subagentRunId":"A"}"#,
                r#"{"type":"REASONING_END","messageId":"r","subagentRunId":"B"}"#,
            ],
            EntityKind::ReasoningMessage,
            "r",
            Some("A"),
        ),
        (
            &[
                r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"p","content":{},"subagentRunId":"A"}"#,
                r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"p","patch":[]}"#,
                r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"p","patch":[],"subagentRunId":"B"}"#,
            ],
            EntityKind::Activity,
            "a",
            Some("A"),
        ),
        (
            &[
                r#"{"type":"TOOL_CALL_RESULT","messageId":"tm","toolCallId":"c","content":"ok","subagentRunId":"A"}"#,
                r#"{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"tm","encryptedValue":"z","subagentRunId":"B"}"#,
            ],
            EntityKind::Message,
            "tm",
            Some("A"),
        ),
        (
            &[
                r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m","role":"assistant","subagentRunId":"A","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#,
                r#"{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c","encryptedValue":"z","subagentRunId":"B"}"#,
            ],
            EntityKind::ToolCall,
            "c",
            Some("A"),
        ),
    ];
    for (body, entity_kind, id, expected_owner) in cases {
        let mut lines = vec![RS];
        lines.extend_from_slice(body);
        assert_subagent_mismatch(&lines, *entity_kind, id, *expected_owner);
    }
}

/// `lines` fail verification at their last line with a `SubagentMismatch` on `id`, an entity of
/// kind `kind` that `owner` opened (`None`: the agent itself).
fn assert_subagent_mismatch(lines: &[&str], kind: EntityKind, id: &str, owner: Option<&str>) {
    match verify(lines).unwrap_err() {
        OrderError::SubagentMismatch {
            entity,
            entity_id,
            owner: opened_by,
            index,
            ..
        } => {
            assert_eq!(
                (entity, entity_id.as_str(), opened_by.as_deref()),
                (kind, id, owner),
                "{lines:?}"
            );
            assert_eq!(index, lines.len() - 1);
        }
        other => panic!("unexpected {other:?} for {lines:?}"),
    }
}

/// Rule 7 across a run's many ids (the owner maps keep them end to end, `src/lean/ids.rs`): what
/// the agent itself opened before any sub-agent is involved, re-opened or not, is still its own
/// for the first sub-agent event that names it, and an id nobody opened is still free.
#[test]
fn what_the_agent_opened_before_any_sub_agent_stays_its_own() {
    let many: Vec<String> = (0..300)
        .flat_map(|i| {
            [
                format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"n{i}"}}"#),
                format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"n{i}"}}"#),
            ]
        })
        .collect();
    let mut opened: Vec<&str> = vec![
        RS,
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"s","role":"user","content":"hi"}]}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"f","parentMessageId":"m"}"#,
        r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#,
        r#"{"type":"TOOL_CALL_RESULT","messageId":"tm","toolCallId":"c","content":"ok"}"#,
        r#"{"type":"REASONING_START","messageId":"r"}"#,
        r#"{"type":"REASONING_END","messageId":"r"}"#,
        r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"p","content":{}}"#,
    ];
    opened.extend(many.iter().map(String::as_str));
    let cases: &[(&str, EntityKind, &str)] = &[
        (
            r#"{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"A"}"#,
            EntityKind::Message,
            "m",
        ),
        (
            r#"{"type":"TEXT_MESSAGE_START","messageId":"n299","subagentRunId":"A"}"#,
            EntityKind::Message,
            "n299",
        ),
        (
            r#"{"type":"REASONING_ENCRYPTED_VALUE","subtype":"tool-call","entityId":"c","encryptedValue":"z","subagentRunId":"A"}"#,
            EntityKind::ToolCall,
            "c",
        ),
        (
            r#"{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"tm","encryptedValue":"z","subagentRunId":"A"}"#,
            EntityKind::Message,
            "tm",
        ),
        (
            r#"{"type":"REASONING_ENCRYPTED_VALUE","subtype":"message","entityId":"s","encryptedValue":"z","subagentRunId":"A"}"#,
            EntityKind::Message,
            "s",
        ),
        (
            r#"{"type":"REASONING_START","messageId":"r","subagentRunId":"A"}"#,
            EntityKind::ReasoningMessage,
            "r",
        ),
        (
            r#"{"type":"ACTIVITY_DELTA","messageId":"a","activityType":"p","patch":[],"subagentRunId":"A"}"#,
            EntityKind::Activity,
            "a",
        ),
    ];
    for (tagged, entity_kind, id) in cases {
        let mut lines = opened.clone();
        lines.push(tagged);
        assert_subagent_mismatch(&lines, *entity_kind, id, None);
    }
    let mut lines = opened.clone();
    lines.push(r#"{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"f","parentMessageId":"m","subagentRunId":"A"}"#);
    assert!(matches!(
        verify(&lines).unwrap_err(),
        OrderError::ToolCallParentMismatch { owner: None, .. }
    ));
    let mut lines = opened.clone();
    lines.push(r#"{"type":"TEXT_MESSAGE_START","messageId":"fresh","subagentRunId":"A"}"#);
    lines.push(r#"{"type":"TEXT_MESSAGE_END","messageId":"fresh","subagentRunId":"A"}"#);
    lines.push(RF);
    verify(&lines).unwrap();
}

#[test]
fn untagged_continuations_and_tool_results_for_unknown_calls_pass() {
    verify(&[
        RS,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m","subagentRunId":"A"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        r#"{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"never-started","content":"ok"}"#,
        RF,
    ])
    .unwrap();
}

#[test]
fn unknown_events_pass_anywhere_even_first_or_after_the_run() {
    let unknown = r#"{"type":"SOMETHING_NEW"}"#;
    let verifier = verify(&[unknown, RS, unknown, RF, unknown]).unwrap();
    assert!(verifier.finished());
}

#[test]
fn run_state_tells_a_stream_that_ended_mid_run() {
    let verifier = verify(&[RS, r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#]).unwrap();
    assert!(verifier.is_run_active());
    assert!(!verifier.finished());
    assert_eq!(verifier.state(), RunState::Active);

    assert_eq!(Verifier::new().state(), RunState::NotStarted);
    assert_eq!(verify(&[RS, RF]).unwrap().state(), RunState::Finished);
    assert_eq!(verify(&[RS, RF, RE]).unwrap().state(), RunState::Errored);
    assert_eq!(
        verify(&[RE]).unwrap().state(),
        RunState::Errored,
        "RUN_ERROR may come first"
    );
}

#[test]
fn a_new_run_after_a_terminal_forgets_the_previous_run() {
    // The message id and subagent id of run 1 are free again in run 2.
    verify(&[
        RS,
        r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"a"}"#,
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"A"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
        RE,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r2"}"#,
        r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"a"}"#,
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"A"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r2"}"#,
    ])
    .unwrap();
}

#[test]
fn steps_are_keyed_by_owner_and_name() {
    verify(&[
        RS,
        r#"{"type":"SUBAGENT_STARTED","subagentRunId":"A","name":"a"}"#,
        r#"{"type":"STEP_STARTED","stepName":"s"}"#,
        r#"{"type":"STEP_STARTED","stepName":"s","subagentRunId":"A"}"#,
        r#"{"type":"STEP_FINISHED","stepName":"s","subagentRunId":"A"}"#,
        r#"{"type":"STEP_FINISHED","stepName":"s"}"#,
        r#"{"type":"SUBAGENT_FINISHED","subagentRunId":"A"}"#,
        RF,
    ])
    .unwrap();
}

// --- the pipeline: happy paths -------------------------------------------------------------

#[test]
fn interleaved_text_messages_and_tool_calls_pass() {
    pipeline([
        RS,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m1"}"#,
        r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f","parentMessageId":"m1"}"#,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m2"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a"}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}"#,
        r#"{"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"g"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m2","delta":"b"}"#,
        r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#,
        r#"{"type":"TOOL_CALL_END","toolCallId":"c2"}"#,
        r#"{"type":"TEXT_MESSAGE_END","messageId":"m2"}"#,
        r#"{"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"c1","content":"ok"}"#,
        RF,
    ])
    .unwrap();
}

#[test]
fn several_runs_in_one_stream_pass() {
    let (verifier, _) = pipeline([
        RS,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"a"}"#,
        RF,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r2"}"#,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m1","delta":"b"}"#,
        r#"{"type":"RUN_ERROR","message":"boom"}"#,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r3"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r3"}"#,
    ])
    .unwrap();
    assert!(verifier.finished());
}

#[test]
fn a_tool_call_with_state_and_custom_events_inside_passes() {
    let (_, events) = pipeline([
        RS,
        r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}"#,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"n":1}}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{"}"#,
        r#"{"type":"STATE_DELTA","delta":[{"op":"replace","path":"/n","value":2}]}"#,
        r#"{"type":"CUSTOM","name":"progress","value":0.5}"#,
        r#"{"type":"RAW","event":{}}"#,
        r#"{"type":"MESSAGES_SNAPSHOT","messages":[]}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"}"}"#,
        r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#,
        RF,
    ])
    .unwrap();
    assert_eq!(events.len(), 11);
}

#[test]
fn chunked_tool_call_interrupted_by_state_is_closed_and_verifies() {
    let (_, events) = pipeline([
        RS,
        r#"{"type":"TOOL_CALL_CHUNK","toolCallId":"c1","toolCallName":"f","delta":"{}"}"#,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{}}"#,
        RF,
    ])
    .unwrap();
    let types: Vec<_> = events.iter().map(Event::type_name).collect();
    assert_eq!(
        types,
        [
            "RUN_STARTED",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "STATE_SNAPSHOT",
            "RUN_FINISHED"
        ]
    );
}

#[test]
fn legacy_thinking_sequence_upgraded_passes_verification() {
    let (_, events) = pipeline([
        RS,
        r#"{"type":"THINKING_START","title":"t"}"#,
        r#"{"type":"THINKING_TEXT_MESSAGE_START"}"#,
        r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}"#,
        r#"{"type":"THINKING_TEXT_MESSAGE_END"}"#,
        r#"{"type":"THINKING_END"}"#,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"answer"}"#,
        RF,
    ])
    .unwrap();
    let types: Vec<_> = events.iter().map(Event::type_name).collect();
    assert_eq!(
        types,
        [
            "RUN_STARTED",
            "REASONING_START",
            "REASONING_MESSAGE_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_MESSAGE_END",
            "REASONING_END",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
}

#[test]
fn legacy_content_without_opener_fails_verification_as_in_ts() {
    let err = pipeline([
        RS,
        r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"x"}"#,
    ])
    .unwrap_err();
    assert_eq!(
        err,
        "event 1 (REASONING_MESSAGE_CONTENT): no active reasoning message with id 'thinking-1'"
    );
}

#[test]
fn a_stream_ending_mid_chunk_is_closed_by_finish_but_still_mid_run() {
    let (verifier, events) = pipeline([
        RS,
        r#"{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"a"}"#,
    ])
    .unwrap();
    assert_eq!(
        events.last().map(Event::type_name),
        Some("TEXT_MESSAGE_END")
    );
    assert!(verifier.is_run_active());
}

// --- real captures -------------------------------------------------------------------------

/// (capture, its request body if one was recorded)
const CAPTURES: &[(&str, &str, Option<&str>)] = &[
    (
        "ag-ui-server-starter/hitl-run1.sse",
        include_str!("fixtures/agui-real/ag-ui-server-starter/hitl-run1.sse"),
        None,
    ),
    (
        "ag-ui-server-starter/hitl-run2.sse",
        include_str!("fixtures/agui-real/ag-ui-server-starter/hitl-run2.sse"),
        Some(include_str!(
            "fixtures/agui-real/ag-ui-server-starter/hitl-run2.json"
        )),
    ),
    (
        "pydantic-ai/missing-result.sse",
        include_str!("fixtures/agui-real/pydantic-ai/missing-result.sse"),
        Some(include_str!(
            "fixtures/agui-real/pydantic-ai/missing-result.json"
        )),
    ),
    (
        "pydantic-ai/parallel-run1.sse",
        include_str!("fixtures/agui-real/pydantic-ai/parallel-run1.sse"),
        Some(include_str!(
            "fixtures/agui-real/pydantic-ai/parallel-run1.json"
        )),
    ),
    (
        "pydantic-ai/parallel-run2.sse",
        include_str!("fixtures/agui-real/pydantic-ai/parallel-run2.sse"),
        Some(include_str!(
            "fixtures/agui-real/pydantic-ai/parallel-run2.json"
        )),
    ),
    (
        "pydantic-ai/run1.sse",
        include_str!("fixtures/agui-real/pydantic-ai/run1.sse"),
        Some(include_str!("fixtures/agui-real/pydantic-ai/run1.json")),
    ),
    (
        "pydantic-ai/run2.sse",
        include_str!("fixtures/agui-real/pydantic-ai/run2.sse"),
        Some(include_str!("fixtures/agui-real/pydantic-ai/run2.json")),
    ),
    (
        "pydantic-ai/textfirst-run1.sse",
        include_str!("fixtures/agui-real/pydantic-ai/textfirst-run1.sse"),
        None,
    ),
    (
        "pydantic-ai/textfirst-run2.sse",
        include_str!("fixtures/agui-real/pydantic-ai/textfirst-run2.sse"),
        None,
    ),
    (
        "pydantic-ai/tool-error.sse",
        include_str!("fixtures/agui-real/pydantic-ai/tool-error.sse"),
        Some(include_str!(
            "fixtures/agui-real/pydantic-ai/tool-error.json"
        )),
    ),
];

#[test]
fn real_server_captures_expand_and_verify() {
    for (name, sse, request) in CAPTURES {
        let frames = sse_data(sse);
        assert!(frames.len() >= 3, "{name}: frames found");
        let (verifier, events) =
            pipeline(frames.iter().map(String::as_str)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(verifier.finished(), "{name}: the run ends");
        assert_eq!(
            events.len(),
            frames.len(),
            "{name}: no chunks, nothing synthesized"
        );
        if let Some(request) = request {
            let input: RunAgentInput =
                parse_as(request).unwrap_or_else(|e| panic!("{name} request: {e}"));
            assert_eq!(input.protocol_version.as_deref(), Some("1.0"), "{name}");
        }
    }
}

#[test]
fn the_bad_input_capture_is_a_json_error_body_not_sse() {
    let body = include_str!("fixtures/agui-real/pydantic-ai/bad-input.sse");
    assert!(sse_data(body).is_empty());
    let request = include_str!("fixtures/agui-real/pydantic-ai/bad-input.json");
    assert!(parse_as::<RunAgentInput>(request).is_err());
}
