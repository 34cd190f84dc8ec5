//! The execute-and-restart loop driven by arbitrary inputs: response bytes (split anywhere),
//! tool results in any order (late, duplicated, for unknown calls), aborts, new runs on busy
//! threads, and the host's module loads: a load that finishes (the host then asks `may_call`
//! before it calls the handler), a deadline that passes during a load (the host answers
//! `TIMEOUT`), a load that never settles (a job never picked), Stop during a load. Properties:
//! nothing panics; every `run` ends with exactly one `Finished`; no call is ever executed twice;
//! when a turn ends, every tool call in the thread has a result; a handler is called only for a
//! call that has no outcome yet (never after Stop or its deadline), and `may_call` is false for
//! every call that has one.
#![no_main]

use std::collections::{HashMap, HashSet};

use chat_runtime::protocol::event::{Content, Message, UserMessage};
use chat_runtime::session::{
    Action, CallKind, RunRequest, RuntimeEvent, Session, SessionConfig, ToolSet,
};
use chat_runtime::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};
use chat_runtime::tools::schema::NoPatterns;
use chat_runtime::tools::{FrontendTool, TimeLimit, ToolHandler};
use libfuzzer_sys::fuzz_target;
use chat_runtime::json::Value;

const THREADS: [&str; 2] = ["a", "b"];

fn tools() -> ToolSet {
    let mut set = ToolSet::default();
    for (name, follow_up) in [("get_time", true), ("set_theme", false)] {
        let tool = FrontendTool {
            name: name.into(),
            description: name.into(),
            parameters: Value::parse(r#"{"type": "object"}"#).unwrap(),
            handler: ToolHandler::Registered,
            follow_up,
            time_limit: TimeLimit::Default,
            default_enabled: false,
        };
        set.calls.insert(name.into(), CallKind::Enabled(tool));
    }
    set.calls.insert("off".into(), CallKind::Disabled);
    set.calls.insert("search".into(), CallKind::Backend);
    set
}

fuzz_target!(|input: &[u8]| {
    let mut session = Session::new(
        SessionConfig { max_rounds: 3, ..SessionConfig::default() },
        "f",
        Box::new(NoPatterns),
    );
    let mut runs: HashMap<&str, String> = HashMap::new();
    let mut started = HashSet::new();
    let mut open_turns: HashMap<&str, u32> = HashMap::new();
    let mut jobs: Vec<(String, String)> = Vec::new();
    // The host's clock (ms) and when the timers last ran.
    let mut now: u64 = 0;
    let mut last_timeout_at: u64 = 0;
    // Calls (thread, id) that got a `tool_finished`: an outcome.
    let mut settled: HashSet<(String, String)> = HashSet::new();
    let mut bytes = input.iter().copied();
    let mut n = 0u32;
    while let Some(op) = bytes.next() {
        let thread = THREADS[usize::from(op & 1)];
        match op >> 1 & 15 {
            0 => {
                n += 1;
                let user = Message::User(UserMessage {
                    id: format!("u{n}"),
                    content: Content::Text("hi".into()),
                    name: None,
                    encrypted_value: None,
                    metadata: None,
                    subagent_run_id: None,
                });
                let request = RunRequest { thread_id: thread.into(), messages: vec![user], ..Default::default() };
                if session.start_run(request, tools()).is_ok() {
                    *open_turns.entry(thread).or_default() += 1;
                }
            }
            1 => {
                if let Some(run) = runs.get(thread) {
                    session.handle_response(thread, run, 200, Some("text/event-stream"), None);
                }
            }
            2 | 3 => {
                let len = usize::from(bytes.next().unwrap_or(0) % 64);
                let chunk: Vec<u8> = bytes.by_ref().take(len).collect();
                if let Some(run) = runs.get(thread) {
                    session.handle_bytes(thread, run, &chunk);
                }
            }
            4 => {
                if let Some(run) = runs.get(thread) {
                    session.handle_body_end(thread, run);
                }
            }
            5 => {
                let pick = usize::from(bytes.next().unwrap_or(0));
                if !jobs.is_empty() {
                    let (t, call) = jobs[pick % jobs.len()].clone();
                    let outcome = if pick & 1 == 0 {
                        ToolOutcome::Value(Value::from("ok"))
                    } else {
                        ToolOutcome::Failed(ToolFailure::new(FailureCode::ToolExecutionFailed, "no"))
                    };
                    session.handle_tool_result(&t, &call, outcome);
                }
            }
            6 => session.abort(thread),
            8 | 9 => {
                // A job's module finished loading: the host calls the handler only if the
                // session still wants it.
                let pick = usize::from(bytes.next().unwrap_or(0));
                if !jobs.is_empty() {
                    let (t, call) = jobs[pick % jobs.len()].clone();
                    if session.begin_call(&t, &call) {
                        assert!(!settled.contains(&(t, call)), "a handler was called after its outcome");
                    }
                }
            }
            10 | 11 => {
                // Time passes: the clock moves on by up to 64 s and the session's timers run.
                now += u64::from(bytes.next().unwrap_or(0)) * 256;
                if let Some(deadline) = session.poll_timeout() {
                    assert!(deadline > last_timeout_at, "a timer that already ran is due again");
                }
                session.handle_timeout(now);
                last_timeout_at = now;
                if let Some(deadline) = session.poll_timeout() {
                    assert!(deadline > now, "a passed deadline survived handle_timeout");
                }
            }
            _ => {
                if let Some(run) = runs.get(thread) {
                    session.handle_transport_error(thread, run, "network", None);
                }
            }
        }
        while let Some(action) = session.poll_action(now) {
            match action {
                Action::Send { thread_id, run_id, .. } => {
                    let t = THREADS.iter().find(|t| **t == thread_id).copied().unwrap();
                    runs.insert(t, run_id);
                }
                Action::Execute(job) => {
                    assert!(started.insert(job.tool_call_id.clone()), "a call ran twice");
                    assert!(session.may_call(&job.thread_id, &job.tool_call_id));
                    jobs.push((job.thread_id, job.tool_call_id));
                }
                Action::Emit(RuntimeEvent::ToolFinished { thread_id, tool_call_id, .. }) => {
                    assert!(
                        !session.may_call(&thread_id, &tool_call_id),
                        "a call with an outcome may still be called"
                    );
                    settled.insert((thread_id, tool_call_id));
                }
                Action::Finished(result) => {
                    let t = THREADS.iter().find(|t| **t == result.thread_id).copied().unwrap();
                    let open = open_turns.get_mut(t).expect("a turn was started");
                    assert!(*open > 0, "finished twice");
                    *open -= 1;
                    // Every call in the thread has exactly one result.
                    let mut calls = HashSet::new();
                    let mut answers: HashMap<String, usize> = HashMap::new();
                    for message in &result.messages {
                        match message {
                            Message::Assistant(a) => {
                                for call in a.tool_calls.iter().flatten() {
                                    calls.insert(call.id.clone());
                                }
                            }
                            Message::Tool(tool) => *answers.entry(tool.tool_call_id.clone()).or_default() += 1,
                            _ => {}
                        }
                    }
                    for call in &calls {
                        assert!(answers.get(call).copied().unwrap_or(0) >= 1, "call {call} left unanswered");
                    }
                }
                _ => {}
            }
        }
    }
});
