//! The execute-and-restart loop driven by arbitrary inputs: response bytes (split anywhere),
//! tool results in any order (late, duplicated, for unknown calls), aborts, new runs on busy
//! threads, and the host's module loads: a load that finishes (the host then asks `may_call`
//! before it calls the handler), a deadline that passes during a load (the host answers
//! `TIMEOUT`), a load that never settles (a job never picked), Stop during a load. Also the
//! app's `prepareRequest` answering any round at any time (late, after Stop, twice), streams with
//! SSE ids that are cut, resumed and replayed (canned frames with ids from a small set, so ids
//! repeat), `RUN_FINISHED` with interrupts (two of one id, an `expiresAt` before 1970), and runs
//! that answer them. Properties: nothing panics; every `run` ends with exactly one `Finished`
//! (at the end every thread is stopped, and every turn must have ended); no call is ever
//! executed twice; when a turn ends, every tool call in the thread has a result; a handler is
//! called only for a call that has no outcome yet (never after Stop or its deadline), and
//! `may_call` is false for every call that has one; nothing is sent (no `Send`, no `Reconnect`)
//! for a round after Stop, and `handle_request_prepared` accepts a round's body exactly while
//! it is the current round, not yet answered, reported or stopped; a `Reconnect` re-sends
//! exactly its own round's request as it went out; the open interrupts never hold one id twice.
#![no_main]

use std::collections::{HashMap, HashSet};

use chat_runtime::json::Value;
use chat_runtime::protocol::event::{Message, ResumeEntry, ResumeStatus};
use chat_runtime::session::{
    Action, CallKind, RoundRequest, RunRequest, RuntimeEvent, Session, SessionConfig, ToolSet,
};
use chat_runtime::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};
use chat_runtime::tools::{FrontendTool, TimeLimit, ToolHandler};
use libfuzzer_sys::fuzz_target;

// The session test host of the integration tests (tests/common/session_host.rs).
#[path = "../../tests/common/session_host.rs"]
#[allow(dead_code)]
mod session_host;
use session_host::{user, Harness};

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

/// A canned AG-UI event (the JSON of an SSE frame's `data`), by `kind`; `n` picks ids and names.
fn canned(kind: u8, n: u8) -> String {
    let call = format!("c{}", n % 4);
    let name = ["get_time", "set_theme", "off", "search"][usize::from(n / 4 % 4)];
    // Sometimes naming the call: the server's then, until a run closes the interrupt.
    let named = if n & 8 == 8 { format!(r#","toolCallId":"{call}""#) } else { String::new() };
    let interrupt = |id: &str, expires: bool| {
        let expires = if expires { r#","expiresAt":"1969-12-31T23:59:59Z""# } else { "" };
        format!(r#"{{"id":"{id}","reason":"confirm","responseSchema":{{"type":"object"}}{expires}{named}}}"#)
    };
    match kind % 10 {
        0 => r#"{"type":"RUN_STARTED","threadId":"a","runId":"r"}"#.into(),
        1 => r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.into(),
        2 => r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi "}"#.into(),
        3 => r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#.into(),
        4 => format!(
            r#"{{"type":"TOOL_CALL_START","toolCallId":"{call}","toolCallName":"{name}","parentMessageId":"m"}}"#
        ),
        5 => format!(r#"{{"type":"TOOL_CALL_END","toolCallId":"{call}"}}"#),
        6 => r#"{"type":"RUN_FINISHED","threadId":"a","runId":"r"}"#.into(),
        7 => format!(
            r#"{{"type":"RUN_FINISHED","threadId":"a","runId":"r","outcome":{{"type":"interrupt","interrupts":[{},{}]}}}}"#,
            interrupt("i1", n & 1 == 1),
            interrupt(if n & 2 == 2 { "i1" } else { "i2" }, false),
        ),
        8 => format!(
            r#"{{"type":"RUN_FINISHED","threadId":"a","runId":"r","outcome":{{"type":"interrupt","interrupts":[{}]}}}}"#,
            interrupt(&format!("i{}", n % 3), n & 4 == 4),
        ),
        _ => r#"{"type":"RUN_ERROR","message":"x"}"#.into(),
    }
}

/// What the host knows of one round (run id) it was asked to send.
struct Round {
    thread: &'static str,
    /// The request as it went out so far: the `Send`'s, then the body reported.
    request: RoundRequest,
    /// Whether `handle_request_prepared` accepted a body, or an answer came in: from then on
    /// the request is what went out, and a report is refused.
    settled: bool,
    /// Whether the round was current when its thread was stopped.
    stopped: bool,
}

/// An answer to `run` comes in: if it is the thread's current round, its request went out.
fn answering(session: &Session, rounds: &mut HashMap<String, Round>, thread: &str, run: &str) {
    if session.current_run_id(thread) == Some(run) {
        if let Some(round) = rounds.get_mut(run) {
            round.settled = true;
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let mut host = Harness::new(SessionConfig { max_rounds: 3, ..SessionConfig::default() });
    // The host's clock (ms) starts at 0.
    host.now = 0;
    // Every round by run id; the thread's latest is `host.latest_run(thread)`.
    let mut rounds: HashMap<String, Round> = HashMap::new();
    let mut started = HashSet::new();
    let mut open_turns: HashMap<&str, u32> = HashMap::new();
    // The calls open interrupts named when the thread's turn started: still the server's.
    let mut held_at_start: HashMap<&str, HashSet<String>> = HashMap::new();
    let mut jobs: Vec<(String, String)> = Vec::new();
    // When the timers last ran.
    let mut last_timeout_at: u64 = 0;
    // Calls (thread, id) that got a `tool_finished`: an outcome.
    let mut settled: HashSet<(String, String)> = HashSet::new();
    let mut bytes = input.iter().copied();
    let mut n = 0u32;
    let mut ending = false;
    loop {
        let op = match bytes.next() {
            Some(op) => op,
            None if !ending => {
                // The end: Stop every thread; every turn must then have ended, once.
                ending = true;
                for thread in THREADS {
                    if let Some(run) = host.session.current_run_id(thread) {
                        if let Some(round) = rounds.get_mut(run) {
                            round.stopped = true;
                        }
                    }
                    host.session.abort(thread);
                }
                0xFF
            }
            None => break,
        };
        let thread = THREADS[usize::from(op & 1)];
        match (op >> 1) & 15 {
            _ if ending => {}
            0 | 13 => {
                n += 1;
                let user = user(&format!("u{n}"), "hi");
                // Op 13 answers every open interrupt, or none (then only expired ones are).
                let how = if op >> 1 & 15 == 13 { bytes.next().unwrap_or(0) } else { 0 };
                let resume = host
                    .session
                    .interrupts(thread)
                    .iter()
                    .filter(|_| how & 1 == 1)
                    .map(|i| ResumeEntry {
                        interrupt_id: i.id.clone(),
                        status: ResumeStatus::Cancelled,
                        payload: None,
                        metadata: None,
                    })
                    .collect();
                let request = RunRequest {
                    thread_id: thread.into(),
                    messages: vec![user],
                    resume,
                    now_ms: (how & 2 == 2).then_some(0),
                    ..Default::default()
                };
                let held: HashSet<String> = host
                    .session
                    .interrupts(thread)
                    .iter()
                    .filter_map(|i| i.tool_call_id.clone())
                    .collect();
                if host.session.start_run(request, tools()).is_ok() {
                    *open_turns.entry(thread).or_default() += 1;
                    held_at_start.insert(thread, held);
                }
            }
            1 => {
                if let Some(run) = host.latest_run(thread).as_deref() {
                    answering(&host.session, &mut rounds, thread, run);
                    host.session.handle_response(thread, run, 200, Some("text/event-stream"), None);
                }
            }
            2 | 3 => {
                let len = usize::from(bytes.next().unwrap_or(0) % 64);
                let chunk: Vec<u8> = bytes.by_ref().take(len).collect();
                if let Some(run) = host.latest_run(thread).as_deref() {
                    answering(&host.session, &mut rounds, thread, run);
                    host.session.handle_bytes(thread, run, &chunk);
                }
            }
            12 => {
                // A canned frame with an id from a small set: a resumed stream may replay it.
                let kind = bytes.next().unwrap_or(0);
                let id = bytes.next().unwrap_or(0);
                let frame = format!("id: {}\ndata: {}\n\n", id % 8, canned(kind, id));
                if let Some(run) = host.latest_run(thread).as_deref() {
                    answering(&host.session, &mut rounds, thread, run);
                    host.session.handle_bytes(thread, run, frame.as_bytes());
                }
            }
            4 => {
                if let Some(run) = host.latest_run(thread).as_deref() {
                    host.session.handle_body_end(thread, run);
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
                    host.session.handle_tool_result(&t, &call, outcome);
                }
            }
            6 => {
                if let Some(run) = host.session.current_run_id(thread) {
                    if let Some(round) = rounds.get_mut(run) {
                        round.stopped = true;
                    }
                }
                host.session.abort(thread);
            }
            7 => {
                // The app's prepareRequest answers a round, any round: maybe long after Stop,
                // maybe twice. Accepted exactly while the round is current and unsettled.
                let pick = usize::from(bytes.next().unwrap_or(0));
                let mut ids: Vec<&String> = rounds.keys().collect();
                ids.sort();
                if let Some(run) = ids.get(pick % ids.len().max(1)).map(|r| (*r).clone()) {
                    let round = rounds.get_mut(&run).unwrap();
                    let body = format!("{{\"prepared\":{pick}}}");
                    let expected = host.session.current_run_id(round.thread) == Some(run.as_str())
                        && !round.settled
                        && !round.stopped;
                    let accepted = host.session.handle_request_prepared(round.thread, &run, body.as_str());
                    assert_eq!(accepted, expected, "handle_request_prepared for {run}");
                    if accepted {
                        round.request.body = body.into();
                        round.settled = true;
                    }
                }
            }
            8 | 9 => {
                // A job's module finished loading: the host calls the handler only if the
                // session still wants it.
                let pick = usize::from(bytes.next().unwrap_or(0));
                if !jobs.is_empty() {
                    let (t, call) = jobs[pick % jobs.len()].clone();
                    if host.session.begin_call(&t, &call) {
                        assert!(!settled.contains(&(t, call)), "a handler was called after its outcome");
                    }
                }
            }
            10 | 11 => {
                // Time passes: the clock moves on by up to 64 s and the session's timers run.
                host.now += u64::from(bytes.next().unwrap_or(0)) * 256;
                if let Some(deadline) = host.session.poll_timeout() {
                    assert!(deadline > last_timeout_at, "a timer that already ran is due again");
                }
                host.session.handle_timeout(host.now);
                last_timeout_at = host.now;
                if let Some(deadline) = host.session.poll_timeout() {
                    assert!(deadline > host.now, "a passed deadline survived handle_timeout");
                }
            }
            _ => {
                if let Some(run) = host.latest_run(thread).as_deref() {
                    host.session.handle_transport_error(thread, run, "network", None);
                }
            }
        }
        // Each action is checked against the session as it is when the host takes it.
        host.pump_with(|session, action| {
            match action {
                Action::Send { thread_id, run_id, url, headers, body } => {
                    let t = THREADS.iter().find(|t| **t == *thread_id).copied().unwrap();
                    assert!(!rounds.contains_key(run_id), "run id {run_id} sent twice");
                    rounds.insert(
                        run_id.clone(),
                        Round {
                            thread: t,
                            request: RoundRequest { url: url.clone(), headers: headers.clone(), body: body.clone() },
                            settled: false,
                            stopped: false,
                        },
                    );
                }
                Action::Reconnect { run_id, request, .. } => {
                    let round = rounds.get(run_id).expect("a reconnect of a round that was sent");
                    assert!(!round.stopped, "a reconnect after Stop");
                    assert!(round.settled, "a reconnect before an answer");
                    assert_eq!(*request, round.request, "a reconnect re-sends its own round's request");
                }
                Action::Execute(job) => {
                    assert!(started.insert(job.tool_call_id.clone()), "a call ran twice");
                    assert!(session.may_call(&job.thread_id, &job.tool_call_id));
                    jobs.push((job.thread_id.clone(), job.tool_call_id.clone()));
                }
                Action::Emit(RuntimeEvent::ToolFinished { thread_id, tool_call_id, .. }) => {
                    assert!(
                        !session.may_call(thread_id, tool_call_id),
                        "a call with an outcome may still be called"
                    );
                    settled.insert((thread_id.clone(), tool_call_id.clone()));
                }
                Action::Finished(result) => {
                    let t = THREADS.iter().find(|t| **t == result.thread_id).copied().unwrap();
                    let open = open_turns.get_mut(t).expect("a turn was started");
                    assert!(*open > 0, "finished twice");
                    *open -= 1;
                    // Every call in the thread has exactly one result.
                    let mut calls = HashSet::new();
                    let mut answers: HashMap<String, usize> = HashMap::new();
                    let thread = session.messages(&result.thread_id);
                    for message in &thread[..result.message_count] {
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
                    // A call an open interrupt names, or named when the turn started, is the
                    // server's: it may have no result.
                    let mut held: HashSet<&str> = session
                        .interrupts(t)
                        .iter()
                        .filter_map(|i| i.tool_call_id.as_deref())
                        .collect();
                    held.extend(held_at_start.get(t).into_iter().flatten().map(String::as_str));
                    for call in &calls {
                        assert!(
                            held.contains(call.as_str()) || answers.get(call).copied().unwrap_or(0) >= 1,
                            "call {call} left unanswered"
                        );
                    }
                }
                _ => {}
            }
        });
        for thread in THREADS {
            let ids: Vec<&str> = host.session.interrupts(thread).iter().map(|i| i.id.as_str()).collect();
            let unique: HashSet<&&str> = ids.iter().collect();
            assert_eq!(unique.len(), ids.len(), "open interrupts with one id twice: {ids:?}");
        }
    }
    for thread in THREADS {
        assert_eq!(open_turns.get(thread).copied().unwrap_or(0), 0, "a turn of {thread} never finished");
        assert!(!host.session.is_running(thread));
    }
});
