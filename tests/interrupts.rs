//! AG-UI 1.0 interrupts in the loop: a run that ends with `RUN_FINISHED.outcome` `interrupt`
//! resolves `interrupted`, and the next run answers every open interrupt in `resume`.

mod common;
use common::session_host::*;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::protocol::event::{Message, ResumeEntry};
use chat_runtime::session::{CallKind, RunRequest, RunStatus, SessionError, ToolSet};
use chat_runtime::tools::outcome::ToolOutcome;
use chat_runtime::tools::{FrontendTool, TimeLimit, ToolHandler};
use serde_json::{json, Value};

/// The `responseSchema` pydantic-ai's AGUIAdapter sends with a tool-approval interrupt.
fn approval_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "approved": {"type": "boolean"},
            "editedArgs": {"type": "object"},
            "reason": {"type": "string"}
        },
        "required": ["approved"]
    })
}

fn approval(call: &str) -> Value {
    json!({
        "id": format!("int-{call}"),
        "reason": "tool_call",
        "message": "Approve delete_notes({})?",
        "toolCallId": call,
        "responseSchema": approval_schema()
    })
}

fn resume(entries: Value) -> Vec<ResumeEntry> {
    from_serde(entries)
}

fn request(messages: Vec<Message>, answers: Value) -> RunRequest {
    RunRequest {
        thread_id: "t".to_owned(),
        messages,
        resume: resume(answers),
        now_ms: Some(NOW),
        ..RunRequest::default()
    }
}

/// 2026-01-01T00:00:00Z.
const NOW: u64 = 1_767_225_600_000;

/// A run whose assistant message `a1` says a word and calls `delete_notes` as `c1`, finished
/// with `outcome`.
fn calling_run(outcome: Value) -> String {
    sse(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r1"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"a1","role":"assistant"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Let me."}),
        json!({"type":"TEXT_MESSAGE_END","messageId":"a1"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"delete_notes","parentMessageId":"a1"}),
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}),
        json!({"type":"TOOL_CALL_END","toolCallId":"c1"}),
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":outcome}),
    ])
}

fn interrupted_run() -> String {
    calling_run(json!({"type":"interrupt","interrupts":[approval("c1")]}))
}

/// The server runs the approved call and answers.
fn resumed_run() -> String {
    sse(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r2"}),
        json!({"type":"TOOL_CALL_RESULT","messageId":"m2","toolCallId":"c1","content":"deleted 3 notes"}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"a2","role":"assistant"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a2","delta":"Done."}),
        json!({"type":"TEXT_MESSAGE_END","messageId":"a2"}),
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r2","outcome":{"type":"success"}}),
    ])
}

fn confirm_tool() -> FrontendTool {
    FrontendTool {
        name: "confirm_action".to_owned(),
        description: "ask".to_owned(),
        parameters: value!({"type":"object","properties":{}}),
        handler: ToolHandler::Module {
            url: "http://127.0.0.1/tools/confirm.js".to_owned(),
            entrypoint: "run".to_owned(),
        },
        follow_up: true,
        time_limit: TimeLimit::Default,
        default_enabled: false,
    }
}

/// `delete_notes` is the server's; `confirm_action` a browser tool.
fn tools() -> ToolSet {
    let mut set = ToolSet::default();
    set.calls
        .insert("delete_notes".to_owned(), CallKind::Backend);
    set.calls.insert(
        "confirm_action".to_owned(),
        CallKind::Enabled(confirm_tool()),
    );
    set
}

/// A host whose runs offer [`tools`].
fn host() -> Harness {
    let mut h = harness();
    h.tools = tools();
    h
}

impl Harness {
    /// The thread interrupted by `delete_notes` (call `c1`).
    fn interrupted() -> Self {
        let mut h = host();
        h.try_start(request(vec![user("u1", "delete my notes")], json!([])))
            .unwrap();
        h.respond("t", interrupted_run());
        h
    }
}

#[test]
fn an_interrupt_outcome_ends_the_turn_interrupted_and_nothing_restarts() {
    let h = Harness::interrupted();
    let result = h.result();
    assert_eq!(result.status, RunStatus::Interrupted);
    assert_eq!(result.rounds, 1);
    assert_eq!(h.sent.len(), 1, "nothing restarts");
    assert_eq!(to_serde(result.interrupts.clone()), json!([approval("c1")]));
    assert_eq!(to_serde(h.session.interrupts("t")), json!([approval("c1")]));
    let json = h.result_json(result);
    assert_eq!(json["status"], "interrupted");
    assert_eq!(json["interrupts"], json!([approval("c1")]));
    let finished = h
        .events
        .iter()
        .find(|e| e.kind() == "run_finished")
        .unwrap();
    assert_eq!(to_serde(finished)["interrupts"], json!([approval("c1")]));
    assert_eq!(to_serde(finished)["status"], "interrupted");
}

#[test]
fn a_later_run_of_the_stream_that_finishes_without_an_interrupt_completes_the_turn() {
    let mut h = host();
    h.try_start(request(vec![user("u1", "delete my notes")], json!([])))
        .unwrap();
    let both = format!("{}{}", interrupted_run(), resumed_run());
    h.respond("t", both);
    let result = h.result();
    assert_eq!(
        result.status,
        RunStatus::Completed,
        "the last run says how it ended"
    );
    assert_eq!(result.interrupts, None);
    assert!(h.session.interrupts("t").is_empty(), "its run closed them");
}

#[test]
fn the_call_an_interrupt_names_gets_no_tool_message_from_the_runtime() {
    let h = Harness::interrupted();
    assert_eq!(
        tool_messages(&h.result_messages(h.result())),
        Vec::<Value>::new()
    );
    assert_eq!(h.jobs.len(), 0);
}

#[test]
fn a_call_no_interrupt_names_is_still_settled_when_the_turn_ends() {
    let mut h = host();
    h.try_start(request(vec![user("u1", "x")], json!([])))
        .unwrap();
    let body = calling_run(json!({"type":"interrupt","interrupts":[approval("other")]}));
    h.respond("t", &body);
    let tools = tool_messages(&h.result_messages(h.result()));
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["toolCallId"], "c1");
    assert!(tools[0]["content"]
        .as_str()
        .unwrap()
        .starts_with("TOOL ERROR: INTERRUPTED"));
}

#[test]
fn resume_goes_into_the_next_run_and_the_turn_goes_on() {
    let mut h = Harness::interrupted();
    let answer = json!([{"interruptId":"int-c1","status":"resolved","payload":{"approved":true}}]);
    h.try_start(request(vec![], answer.clone())).unwrap();
    assert_eq!(h.sent.len(), 2);
    assert_eq!(h.body(1)["resume"], answer);
    // The interrupted call goes back unanswered: the server owns it.
    let sent = h.roles_sent(1);
    assert_eq!(sent, ["user", "assistant"]);
    // Still open until the resumed run finishes.
    assert_eq!(h.session.interrupts("t").len(), 1);
    h.respond("t", resumed_run());
    let result = h.result();
    assert_eq!(result.status, RunStatus::Completed);
    assert_eq!(result.interrupts, None);
    assert!(h.result_json(result).get("interrupts").is_none());
    assert!(h.session.interrupts("t").is_empty());
    let tools = tool_messages(&h.result_messages(result));
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["content"], "deleted 3 notes");
    // The next turn needs no resume and carries none.
    h.try_start(request(vec![user("u2", "thanks")], json!([])))
        .unwrap();
    assert!(h.body(2).get("resume").is_none());
}

#[test]
fn resume_may_come_with_a_new_user_message_and_is_sent_once_per_turn() {
    let mut h = Harness::interrupted();
    let answer = json!([{"interruptId":"int-c1","status":"cancelled"}]);
    h.try_start(request(vec![user("u2", "never mind")], answer.clone()))
        .unwrap();
    assert_eq!(h.body(1)["resume"], answer);
    let last = h.messages_sent(1).last().unwrap().clone();
    assert_eq!(last["id"], "u2");
    // The server asks the browser for a tool: the restart carries no resume.
    h.respond("t", sse(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r2"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c2","toolCallName":"confirm_action","parentMessageId":"a2"}),
        json!({"type":"TOOL_CALL_END","toolCallId":"c2"}),
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r2"}),
    ]));
    assert_eq!(h.jobs.len(), 1);
    h.answer("t", "c2", ToolOutcome::Value(value!("ok")));
    assert_eq!(h.sent.len(), 3);
    assert!(h.body(2).get("resume").is_none());
}

#[test]
fn a_payload_off_the_response_schema_is_refused_and_nothing_is_sent() {
    let mut h = Harness::interrupted();
    let before = h.session.messages("t").to_vec();
    let answer = json!([{"interruptId":"int-c1","status":"resolved","payload":{"approved":"yes"}}]);
    let error = h
        .try_start(request(vec![user("u2", "yes")], answer))
        .unwrap_err();
    assert_eq!(error.code(), "input/invalid");
    match &error {
        SessionError::BadResume {
            interrupt_id,
            violation: Some(v),
            ..
        } => {
            assert_eq!(interrupt_id, "int-c1");
            assert_eq!(v.pointer, "/approved");
            assert_eq!(v.rule, "type");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(error.to_string().contains("\"/approved\""), "{error}");
    // A missing payload breaks `required`.
    let error = h
        .try_start(request(
            vec![],
            json!([{"interruptId":"int-c1","status":"resolved"}]),
        ))
        .unwrap_err();
    assert_eq!(error.code(), "input/invalid");
    assert_eq!(h.sent.len(), 1, "nothing was sent");
    assert_eq!(h.session.messages("t"), &before[..], "nothing changed");
    assert_eq!(h.session.interrupts("t").len(), 1);
    assert!(!h.session.is_running("t"));
    // A cancelled answer needs no payload; answering twice is refused.
    let twice = json!([
        {"interruptId":"int-c1","status":"cancelled"},
        {"interruptId":"int-c1","status":"resolved","payload":{"approved":true}}
    ]);
    assert_eq!(
        h.try_start(request(vec![], twice)).unwrap_err().code(),
        "input/invalid"
    );
    h.try_start(request(
        vec![],
        json!([{"interruptId":"int-c1","status":"cancelled"}]),
    ))
    .unwrap();
    assert_eq!(h.sent.len(), 2);
}

#[test]
fn a_run_that_leaves_an_open_interrupt_unanswered_is_refused() {
    let mut h = Harness::interrupted();
    let error = h
        .try_start(request(vec![user("u2", "hello?")], json!([])))
        .unwrap_err();
    assert_eq!(error.code(), "run/unanswered-interrupts");
    assert!(error.to_string().contains("\"int-c1\""), "{error}");
    // An answer to some other interrupt does not answer this one.
    let error = h
        .try_start(request(
            vec![],
            json!([{"interruptId":"int-zz","status":"cancelled"}]),
        ))
        .unwrap_err();
    assert_eq!(error.code(), "run/unanswered-interrupts");
    assert_eq!(h.sent.len(), 1, "nothing was sent");
    assert_eq!(
        h.session.messages("t").len(),
        2,
        "the user message was not added"
    );
}

#[test]
fn an_expired_interrupt_is_answered_cancelled_unless_the_app_answers_first() {
    // Past: 2025-12-31T23:59:59.999Z, also written with an offset.
    for at in ["2025-12-31T23:59:59.999Z", "2026-01-01T00:59:59+01:00"] {
        let mut h = interrupted_with_expiry(at);
        h.try_start(request(vec![user("u2", "later")], json!([])))
            .unwrap();
        assert_eq!(
            h.body(1)["resume"],
            json!([{"interruptId":"int-c1","status":"cancelled"}]),
            "{at}"
        );
    }
    // The app answers first: its answer goes out.
    let mut h = interrupted_with_expiry("2020-01-01T00:00:00Z");
    let answer = json!([{"interruptId":"int-c1","status":"resolved","payload":{"approved":false}}]);
    h.try_start(request(vec![], answer.clone())).unwrap();
    assert_eq!(h.body(1)["resume"], answer);
    // Not yet expired (exactly now is expired; a millisecond later is not), or not a date, or
    // no clock: refused.
    for at in [
        "2026-01-01T00:00:00.001Z",
        "2026-01-01T01:00:00+00:30",
        "soon",
    ] {
        let mut h = interrupted_with_expiry(at);
        let error = h.try_start(request(vec![], json!([]))).unwrap_err();
        assert_eq!(error.code(), "run/unanswered-interrupts", "{at}");
    }
    let mut h = interrupted_with_expiry("2026-01-01T00:00:00Z");
    h.try_start(request(vec![], json!([]))).unwrap();
    let mut h = interrupted_with_expiry("2020-01-01T00:00:00Z");
    let no_clock = RunRequest {
        now_ms: None,
        ..request(vec![], json!([]))
    };
    assert_eq!(
        h.try_start(no_clock).unwrap_err().code(),
        "run/unanswered-interrupts"
    );
}

#[test]
fn a_resumed_run_that_fails_keeps_the_interrupts_open() {
    let mut h = Harness::interrupted();
    let answer = json!([{"interruptId":"int-c1","status":"resolved","payload":{"approved":true}}]);
    h.try_start(request(vec![], answer.clone())).unwrap();
    h.respond(
        "t",
        sse(&[
            json!({"type":"RUN_STARTED","threadId":"t","runId":"r2"}),
            json!({"type":"RUN_ERROR","message":"the payload does not match"}),
        ]),
    );
    assert_eq!(h.result().status, RunStatus::Error);
    assert_eq!(h.session.interrupts("t").len(), 1);
    assert_eq!(
        tool_messages(&h.result_messages(h.result())),
        Vec::<Value>::new(),
        "the call is still the server's"
    );
    // Answer again.
    h.try_start(request(vec![], answer)).unwrap();
    h.respond("t", resumed_run());
    assert_eq!(h.result().status, RunStatus::Completed);
}

#[test]
fn an_interrupt_without_a_call_and_a_new_interrupt_after_a_resume() {
    let mut h = host();
    h.try_start(request(vec![user("u1", "x")], json!([])))
        .unwrap();
    let ask = |id: &str| json!({"id": id, "reason": "confirm", "message": "Sure?"});
    h.respond("t", sse(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r1"}),
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":{"type":"interrupt","interrupts":[ask("i1")]}}),
    ]));
    assert_eq!(h.result().status, RunStatus::Interrupted);
    // No schema: any payload goes.
    h.try_start(request(
        vec![],
        json!([{"interruptId":"i1","status":"resolved","payload":[1,2]}]),
    ))
    .unwrap();
    h.respond("t", sse(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r2"}),
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r2","outcome":{"type":"interrupt","interrupts":[ask("i2")]}}),
    ]));
    assert_eq!(h.result().status, RunStatus::Interrupted);
    assert_eq!(to_serde(h.session.interrupts("t")), json!([ask("i2")]));
}

#[test]
fn pending_run_leaves_a_browser_call_an_interrupt_names_to_the_server() {
    // The demo's interrupt mode: the browser tool's call is the one the interrupt names.
    let mut h = host();
    h.try_start(request(vec![user("u1", "delete my notes")], json!([])))
        .unwrap();
    let body = sse(&[
        json!({"type":"RUN_STARTED","threadId":"t","runId":"r1"}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"confirm_action","parentMessageId":"a1"}),
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}),
        json!({"type":"TOOL_CALL_END","toolCallId":"c1"}),
        json!({"type":"RUN_FINISHED","threadId":"t","runId":"r1",
            "outcome":{"type":"interrupt","interrupts":[approval("c1")]}}),
    ]);
    h.respond("t", &body);
    assert_eq!(h.result().status, RunStatus::Interrupted);
    assert_eq!(h.jobs.len(), 0, "the held call does not run");
    assert!(
        h.session.pending_calls("t").is_empty(),
        "a held call is not one a pending run runs"
    );
    let mut next = request(
        vec![],
        json!([{"interruptId":"int-c1","status":"resolved","payload":{"approved":true}}]),
    );
    next.pending = chat_runtime::session::Pending::Run;
    h.try_start(next).unwrap();
    assert_eq!(h.jobs.len(), 0, "pending: run leaves it to the server too");
    assert_eq!(h.sent.len(), 2, "the resumed run went out at once");
    let sent = h.messages_sent(1);
    assert!(
        sent.iter().all(|m| m["role"] != "tool"),
        "no tool message for the held call: {sent:?}"
    );
    assert_eq!(h.body(1)["resume"][0]["interruptId"], "int-c1");
}

#[test]
fn two_interrupts_with_one_id_end_the_run_with_a_decode_error_naming_the_id() {
    // The second one forbids what the first allows: read as one, a payload it forbids went out.
    let mut strict = approval("c1");
    strict["responseSchema"] = json!({
        "type": "object",
        "properties": {"approved": {"const": false}},
        "required": ["approved"]
    });
    let mut h = host();
    h.try_start(request(vec![user("u1", "delete my notes")], json!([])))
        .unwrap();
    h.respond(
        "t",
        calling_run(json!({"type":"interrupt","interrupts":[approval("c1"), strict]})),
    );
    let result = h.result();
    assert_eq!(result.status, RunStatus::Error);
    let error = result.error.as_ref().unwrap();
    assert_eq!(error.code, "decode/field");
    assert!(
        error.message.contains("outcome.interrupts[1].id") && error.message.contains("int-c1"),
        "{}",
        error.message
    );
    assert!(result.interrupts.is_none());
    assert!(h.session.interrupts("t").is_empty(), "nothing is left open");
    // So no answer to it can be sent: the next run goes out without `resume`.
    let approve = json!([{"interruptId":"int-c1","status":"resolved","payload":{"approved":true}}]);
    h.try_start(request(vec![user("u2", "again")], approve.clone()))
        .unwrap();
    assert_eq!(h.sent.len(), 2);
    assert_eq!(
        h.body(1)["resume"],
        approve,
        "an unheld answer is sent as it is"
    );
}

/// A thread whose run ended with one approval interrupt (`int-c1`) that expires at `at`.
fn interrupted_with_expiry(at: &str) -> Harness {
    let mut h = host();
    h.try_start(request(vec![user("u1", "x")], json!([])))
        .unwrap();
    let mut interrupt = approval("c1");
    interrupt["expiresAt"] = json!(at);
    h.respond(
        "t",
        calling_run(json!({"type":"interrupt","interrupts":[interrupt]})),
    );
    h
}

#[test]
fn an_expires_at_before_1970_has_expired() {
    for at in [
        "1969-12-31T23:59:59Z",
        "1969-12-31T23:59:59.999Z",
        "0001-01-01T00:00:00Z",
        "1900-02-28T12:00:00-05:00",
        "0000-01-01T00:00:00Z",
        "2000-01-01T00:00:00Z",
    ] {
        let mut h = interrupted_with_expiry(at);
        h.try_start(request(vec![user("u2", "later")], json!([])))
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        assert_eq!(
            h.body(1)["resume"],
            json!([{"interruptId":"int-c1","status":"cancelled"}]),
            "{at}"
        );
    }
    // Any other text is still no date: such an interrupt never expires.
    for at in [
        "-0001-01-01T00:00:00Z",
        "1969-13-01T00:00:00Z",
        "1969-12-31T23:59:59",
    ] {
        let mut h = interrupted_with_expiry(at);
        let error = h.try_start(request(vec![], json!([]))).unwrap_err();
        assert_eq!(error.code(), "run/unanswered-interrupts", "{at}");
    }
}
