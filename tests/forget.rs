//! `Session::forget_thread`: a thread that is not running is dropped whole (messages, state, open
//! interrupts, the calls it answered, its pending changes) and its next run starts from an empty
//! thread; a running thread and an unknown one are left as they are.

mod common;
use common::session_host::{harness, sse, user, Harness};
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::protocol::event::{Message, ToolMessage};
use chat_runtime::session::{CallKind, Forget, RunRequest, RunStatus, ToolSet};
use chat_runtime::tools::{FrontendTool, TimeLimit, ToolHandler};
use serde_json::{json, Value};

fn request(thread: &str, messages: Vec<Message>) -> RunRequest {
    RunRequest {
        thread_id: thread.to_owned(),
        messages,
        ..RunRequest::default()
    }
}

/// A run that sets the state and answers `a1`.
fn answer(thread: &str, run: &str) -> String {
    sse(&[
        json!({"type":"RUN_STARTED","threadId":thread,"runId":run}),
        json!({"type":"STATE_SNAPSHOT","snapshot":{"step":1}}),
        json!({"type":"TEXT_MESSAGE_START","messageId":"a1","role":"assistant"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":"Hello."}),
        json!({"type":"TEXT_MESSAGE_END","messageId":"a1"}),
        json!({"type":"RUN_FINISHED","threadId":thread,"runId":run}),
    ])
}

/// A run that ends with an interrupt on the server's call `c1`.
fn interrupted(thread: &str, run: &str) -> String {
    sse(&[
        json!({"type":"RUN_STARTED","threadId":thread,"runId":run}),
        json!({"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"delete_notes","parentMessageId":"a1"}),
        json!({"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{}"}),
        json!({"type":"TOOL_CALL_END","toolCallId":"c1"}),
        json!({"type":"RUN_FINISHED","threadId":thread,"runId":run,"outcome":{
            "type":"interrupt",
            "interrupts":[{"id":"int-c1","reason":"tool_call","toolCallId":"c1"}]
        }}),
    ])
}

/// A run whose assistant calls the browser tool `ping` as `call`.
fn calling(thread: &str, run: &str, call: &str) -> String {
    sse(&[
        json!({"type":"RUN_STARTED","threadId":thread,"runId":run}),
        json!({"type":"TOOL_CALL_START","toolCallId":call,"toolCallName":"ping","parentMessageId":"a1"}),
        json!({"type":"TOOL_CALL_ARGS","toolCallId":call,"delta":"{}"}),
        json!({"type":"TOOL_CALL_END","toolCallId":call}),
        json!({"type":"RUN_FINISHED","threadId":thread,"runId":run}),
    ])
}

fn tools() -> ToolSet {
    let mut set = ToolSet::default();
    set.calls
        .insert("delete_notes".to_owned(), CallKind::Backend);
    set.calls.insert(
        "ping".to_owned(),
        CallKind::Enabled(FrontendTool {
            name: "ping".to_owned(),
            description: "answers".to_owned(),
            parameters: value!({"type":"object","properties":{}}),
            handler: ToolHandler::Module {
                url: "http://127.0.0.1/tools/ping.js".to_owned(),
                entrypoint: "run".to_owned(),
            },
            follow_up: true,
            time_limit: TimeLimit::Default,
            default_enabled: true,
        }),
    );
    set
}

/// The steps these tests take, on the one session host (tests/common/session_host.rs).
trait Turns {
    /// Starts a run of `thread` with `messages` and the test's tools.
    fn begin(&mut self, thread: &str, messages: Vec<Message>);
    /// Answers the last request with `body` (given its thread and run id).
    fn reply(&mut self, body: impl FnOnce(&str, &str) -> String);
    /// One finished turn of `thread`: a user message, an answer and a state.
    fn turn(&mut self, thread: &str, user_id: &str);
    /// The body of the last request.
    fn last_body(&self) -> &Value;
    /// `(thread, call)` of every call handed out.
    fn calls(&self) -> Vec<(String, String)>;
}

impl Turns for Harness {
    fn begin(&mut self, thread: &str, messages: Vec<Message>) {
        self.start(request(thread, messages), tools());
    }

    fn reply(&mut self, body: impl FnOnce(&str, &str) -> String) {
        let (thread, run, _) = self.sent.last().expect("a request was sent").clone();
        let body = body(&thread, &run);
        self.respond(&thread, body);
    }

    fn turn(&mut self, thread: &str, user_id: &str) {
        self.begin(thread, vec![user(user_id, "hi")]);
        self.reply(answer);
        assert_eq!(self.results.last().unwrap().status, RunStatus::Completed);
    }

    fn last_body(&self) -> &Value {
        &self.sent.last().unwrap().2
    }

    fn calls(&self) -> Vec<(String, String)> {
        let calls = self.jobs.iter();
        calls
            .map(|j| (j.thread_id.clone(), j.tool_call_id.clone()))
            .collect()
    }
}

fn ids<'a>(messages: impl IntoIterator<Item = &'a Message>) -> Vec<&'a str> {
    messages.into_iter().map(Message::id).collect()
}

#[test]
fn a_finished_thread_is_forgotten_whole() {
    let mut h = harness();
    h.turn("t", "u1");
    assert_eq!(ids(h.session.messages("t")), ["u1", "a1"]);
    assert!(h.session.state("t").is_some());

    assert_eq!(h.session.forget_thread("t"), Forget::Forgotten);
    assert!(h.session.messages("t").is_empty());
    assert_eq!(h.session.state("t"), None, "as for a thread never seen");
    assert!(h.session.interrupts("t").is_empty());
    assert!(!h.session.is_running("t"));
}

#[test]
fn forgetting_drops_the_pending_changes_too() {
    let mut h = harness();
    h.turn("t", "u1");
    // The host has not taken the turn's changes yet (no frame came).
    assert_eq!(h.session.forget_thread("t"), Forget::Forgotten);
    assert!(h.session.take_changed("t").is_none());
    assert!(h.session.take_changed_positions("t").is_none());
    assert!(!h.session.take_state_changed("t"));
    assert!(!h.session.take_activity("t"));
}

#[test]
fn an_unknown_thread_is_unknown_and_nothing_changes() {
    let mut h = harness();
    h.turn("t", "u1");
    assert_eq!(h.session.forget_thread("other"), Forget::Unknown);
    assert_eq!(ids(h.session.messages("t")), ["u1", "a1"]);
    assert_eq!(h.session.forget_thread("t"), Forget::Forgotten);
    assert_eq!(
        h.session.forget_thread("t"),
        Forget::Unknown,
        "a second forget finds nothing"
    );
}

#[test]
fn other_threads_are_kept() {
    let mut h = harness();
    h.turn("t", "u1");
    h.turn("s", "u2");
    assert_eq!(h.session.forget_thread("t"), Forget::Forgotten);
    assert_eq!(ids(h.session.messages("s")), ["u2", "a1"]);
    assert_eq!(to_serde(h.session.state("s").unwrap()), json!({"step":1}));
}

#[test]
fn a_running_thread_is_busy_and_kept() {
    let mut h = harness();
    h.begin("t", vec![user("u1", "hi")]);
    assert_eq!(h.session.forget_thread("t"), Forget::Busy);
    assert!(h.session.is_running("t"));
    assert_eq!(ids(h.session.messages("t")), ["u1"]);
    // The turn goes on and ends as it would have.
    h.reply(answer);
    assert_eq!(h.results.last().unwrap().status, RunStatus::Completed);
    assert_eq!(ids(h.session.messages("t")), ["u1", "a1"]);
}

#[test]
fn a_thread_whose_calls_run_is_busy() {
    let mut h = harness();
    h.begin("t", vec![user("u1", "hi")]);
    h.reply(|t, r| calling(t, r, "c1"));
    assert_eq!(h.calls(), [("t".to_owned(), "c1".to_owned())]);
    assert_eq!(h.session.forget_thread("t"), Forget::Busy);
    assert!(h.session.may_call("t", "c1"), "the call still runs");
}

#[test]
fn an_aborted_thread_can_be_forgotten() {
    let mut h = harness();
    h.begin("t", vec![user("u1", "hi")]);
    h.session.abort("t");
    h.pump();
    assert_eq!(h.results.last().unwrap().status, RunStatus::Aborted);
    assert_eq!(h.session.forget_thread("t"), Forget::Forgotten);
    assert!(h.session.messages("t").is_empty());
}

#[test]
fn the_next_run_starts_from_an_empty_thread() {
    let mut h = harness();
    h.turn("t", "u1");
    h.session.forget_thread("t");
    h.begin("t", vec![user("u2", "again")]);
    assert_eq!(
        h.last_body()["messages"],
        json!([{"id":"u2","role":"user","content":"again"}])
    );
    assert_eq!(
        h.last_body()["state"],
        json!({}),
        "the old state is not sent"
    );
    h.reply(answer);
    assert_eq!(ids(h.session.messages("t")), ["u2", "a1"]);
    let result = h.results.last().unwrap();
    assert_eq!(
        ids(result.new_messages(h.session.messages("t"))),
        ["u2", "a1"]
    );
}

#[test]
fn open_interrupts_are_forgotten_and_the_next_run_needs_no_resume() {
    let mut h = harness();
    h.begin("t", vec![user("u1", "delete my notes")]);
    h.reply(interrupted);
    assert_eq!(h.results.last().unwrap().status, RunStatus::Interrupted);
    assert_eq!(h.session.interrupts("t").len(), 1);

    assert_eq!(h.session.forget_thread("t"), Forget::Forgotten);
    assert!(h.session.interrupts("t").is_empty());
    // Without the forget this run is refused (`run/unanswered-interrupts`).
    h.session
        .start_run(request("t", vec![user("u2", "hi")]), tools())
        .unwrap();
}

#[test]
fn a_re_seeded_history_is_the_thread_again() {
    let mut h = harness();
    h.turn("t", "u1");
    let kept: Vec<Message> = h.session.messages("t").to_vec();
    h.session.forget_thread("t");
    h.session.set_messages("t", kept).unwrap();
    assert_eq!(ids(h.session.messages("t")), ["u1", "a1"]);
    h.begin("t", vec![user("u2", "more")]);
    assert_eq!(
        h.last_body()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["u1", "a1", "u2"]
    );
}

#[test]
fn a_call_answered_before_forget_is_not_run_again_once_its_result_is_re_seeded() {
    let mut h = harness();
    h.begin("t", vec![user("u1", "hi")]);
    h.reply(|t, r| calling(t, r, "c1"));
    h.session.abort("t");
    h.pump();
    let kept: Vec<Message> = h.session.messages("t").to_vec();
    assert!(kept.iter().any(
        |m| matches!(m, Message::Tool(ToolMessage { tool_call_id, .. }) if tool_call_id == "c1")
    ));
    assert_eq!(h.session.forget_thread("t"), Forget::Forgotten);
    h.session.set_messages("t", kept).unwrap();
    h.jobs.clear();
    h.begin("t", vec![user("u2", "again")]);
    h.reply(|t, r| calling(t, r, "c1"));
    assert!(h.jobs.is_empty(), "c1 has its result in the history");
}
