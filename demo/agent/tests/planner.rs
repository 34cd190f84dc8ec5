//! Demo mode: the rule-based planner over HTTP (in-process server, `pace_ms: 0`).

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use chat_runtime_agent::{spawn, Config, Server};
use common::*;
use serde_json::{json, Value};

const ALL: [&str; 5] = [
    "get_browser_time",
    "get_weather",
    "calculate",
    "set_theme",
    "confirm_action",
];

async fn start() -> Server {
    spawn(Config::default(), 0).await.unwrap()
}

fn tools(names: &[&str]) -> Value {
    Value::Array(
        names
            .iter()
            .map(|n| json!({ "name": n, "description": format!("the {n} tool"), "parameters": { "type": "object", "properties": {} } }))
            .collect(),
    )
}

fn input(thread: &str, run: &str, messages: Value, offered: &[&str]) -> Value {
    json!({
        "threadId": thread, "runId": run, "protocolVersion": "1.0", "state": {},
        "messages": messages, "tools": tools(offered), "context": [], "forwardedProps": {}
    })
}

fn user(id: &str, text: &str) -> Value {
    json!({ "id": id, "role": "user", "content": text })
}

fn tool_msg(id: &str, call: &str, content: &str) -> Value {
    json!({ "id": id, "role": "tool", "toolCallId": call, "content": content })
}

fn finished(events: &[Value]) -> &Value {
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_FINISHED");
    last
}

fn pending(events: &[Value]) -> Option<Vec<String>> {
    let outcome = &finished(events)["outcome"];
    assert_eq!(outcome["type"], "success");
    outcome.get("pendingToolCallIds").map(|p| {
        p.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    })
}

/// One user message on a fresh thread: (events, calls, texts).
async fn ask(
    a: SocketAddr,
    thread: &str,
    text: &str,
    offered: &[&str],
) -> (
    Vec<Value>,
    Vec<(String, String, String, String)>,
    Vec<String>,
) {
    let (status, events) = run_events(
        a,
        thread,
        input(thread, "r1", json!([user("u1", text)]), offered),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        events[0],
        json!({ "type": "RUN_STARTED", "threadId": thread, "runId": "r1" })
    );
    let c = calls(&events);
    let t = texts(&events);
    (events, c, t)
}

/// The assistant and tool messages a client builds from a run's events (for full-history runs).
fn history_from(events: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for e in events {
        match e["type"].as_str().unwrap() {
            "TEXT_MESSAGE_START" => {
                out.push(json!({ "id": e["messageId"], "role": "assistant", "content": "" }))
            }
            "TEXT_MESSAGE_CONTENT" => {
                let m = out.iter_mut().find(|m| m["id"] == e["messageId"]).unwrap();
                let text = format!("{}{}", m["content"].as_str().unwrap(), e["delta"].as_str().unwrap());
                m["content"] = json!(text);
            }
            "TOOL_CALL_START" => {
                let m = out.iter_mut().find(|m| m["id"] == e["parentMessageId"]).unwrap();
                let mut list = m.get("toolCalls").cloned().unwrap_or(json!([]));
                list.as_array_mut().unwrap().push(json!({ "id": e["toolCallId"], "type": "function", "function": { "name": e["toolCallName"], "arguments": "" } }));
                m["toolCalls"] = list;
            }
            "TOOL_CALL_ARGS" => {
                for m in out.iter_mut() {
                    if let Some(list) = m.get_mut("toolCalls").and_then(Value::as_array_mut) {
                        for c in list.iter_mut().filter(|c| c["id"] == e["toolCallId"]) {
                            let args = format!("{}{}", c["function"]["arguments"].as_str().unwrap(), e["delta"].as_str().unwrap());
                            c["function"]["arguments"] = json!(args);
                        }
                    }
                }
            }
            "TOOL_CALL_RESULT" => out.push(json!({ "id": e["messageId"], "role": "tool", "toolCallId": e["toolCallId"], "content": e["content"] })),
            _ => {}
        }
    }
    out
}

#[tokio::test]
async fn each_intent_calls_its_tool() {
    let server = start().await;
    let a = server.addr;
    let cases: [(&str, &str, Value); 9] = [
        ("What time is it?", "get_browser_time", json!({})),
        ("Look at the clock", "get_browser_time", json!({})),
        (
            "How is the weather in New York today?",
            "get_weather",
            json!({ "city": "New York" }),
        ),
        ("weather?", "get_weather", json!({ "city": "Berlin" })),
        (
            "calculate (3 + 4) * 12",
            "calculate",
            json!({ "expression": "(3 + 4) * 12" }),
        ),
        (
            "What is 2^10 - 24 / 3?",
            "calculate",
            json!({ "expression": "2^10 - 24 / 3" }),
        ),
        (
            "Please delete all my notes.",
            "confirm_action",
            json!({ "action": "delete all my notes" }),
        ),
        (
            "Reset the counter",
            "confirm_action",
            json!({ "action": "Reset the counter" }),
        ),
        (
            "confirm the order",
            "confirm_action",
            json!({ "action": "confirm the order" }),
        ),
    ];
    for (i, (text, tool, args)) in cases.into_iter().enumerate() {
        let (events, c, t) = ask(a, &format!("intent{i}"), text, &ALL).await;
        assert_eq!(c.len(), 1, "{text}: {c:?}");
        assert_eq!(c[0].1, tool, "{text}");
        let got: Value = serde_json::from_str(&c[0].3).unwrap();
        assert_eq!(got, args, "{text}");
        assert_eq!(t, ["Let me check."], "{text}");
        // The call belongs to the lead-in message; it is pending for the browser.
        let start = events
            .iter()
            .find(|e| e["type"] == "TEXT_MESSAGE_START")
            .unwrap();
        assert_eq!(start["role"], "assistant");
        assert_eq!(c[0].2, start["messageId"].as_str().unwrap());
        assert_eq!(pending(&events), Some(vec![c[0].0.clone()]));
        let arg_events = events
            .iter()
            .filter(|e| e["type"] == "TOOL_CALL_ARGS")
            .count();
        assert!(
            (2..=3).contains(&arg_events),
            "{text}: {arg_events} ARGS deltas"
        );
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn ids_and_exact_event_sequence() {
    let server = start().await;
    let a = server.addr;
    let (events, _, _) = ask(a, "seq", "time?", &ALL).await;
    assert_eq!(
        events,
        vec![
            json!({"type":"RUN_STARTED","threadId":"seq","runId":"r1"}),
            json!({"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"Let "}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"me "}),
            json!({"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-1","delta":"check."}),
            json!({"type":"TEXT_MESSAGE_END","messageId":"msg-1"}),
            json!({"type":"TOOL_CALL_START","toolCallId":"call-1","toolCallName":"get_browser_time","parentMessageId":"msg-1"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"call-1","delta":"{"}),
            json!({"type":"TOOL_CALL_ARGS","toolCallId":"call-1","delta":"}"}),
            json!({"type":"TOOL_CALL_END","toolCallId":"call-1"}),
            json!({"type":"RUN_FINISHED","threadId":"seq","runId":"r1","outcome":{"type":"success","pendingToolCallIds":["call-1"]}}),
        ]
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_request_without_run_id_or_state_is_answered_and_the_agent_names_the_run() {
    // What an app that shapes its requests (chat-runtime's `prepareRequest`) may send: no
    // `runId`, `state`, `parentRunId` or `protocolVersion`.
    let server = start().await;
    let a = server.addr;
    let body = json!({
        "threadId": "norun", "messages": [user("u1", "time?")], "tools": tools(&ALL),
        "context": [], "forwardedProps": {}
    });
    let (status, events) = run_events(a, "norun", body).await;
    assert_eq!(status, 200, "{events:?}");
    assert_eq!(
        events[0],
        json!({"type":"RUN_STARTED","threadId":"norun","runId":"run-1"})
    );
    assert_eq!(finished(&events)["runId"], "run-1");
    assert_eq!(pending(&events).unwrap().len(), 1);
    // The next such run gets the next name; a run that names itself keeps its name.
    let body = json!({ "threadId": "norun", "messages": [user("u2", "hello")] });
    let (_, events) = run_events(a, "norun", body).await;
    assert_eq!(events[0]["runId"], "run-2");
    let (_, events) = run_events(
        a,
        "norun",
        input("norun", "mine", json!([user("u3", "hi")]), &[]),
    )
    .await;
    assert_eq!(events[0]["runId"], "mine");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn set_theme_is_fire_and_forget_with_text_in_the_same_run() {
    let server = start().await;
    let a = server.addr;
    for (text, theme) in [
        ("Switch to dark mode", "dark"),
        ("use the light theme please", "light"),
    ] {
        let (events, c, t) = ask(a, &format!("theme-{theme}"), text, &ALL).await;
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].1, "set_theme");
        assert_eq!(c[0].3, format!(r#"{{"theme":"{theme}"}}"#));
        assert_eq!(
            t,
            [
                "Let me check.".to_string(),
                format!("Switched to the {theme} theme.")
            ]
        );
        assert_eq!(pending(&events), None, "set_theme is never pending");
    }
    // With another call: that one stays pending, the theme text still comes.
    let (events, c, t) = ask(a, "theme-mixed", "dark mode and the weather in Rome", &ALL).await;
    let names: Vec<&str> = c.iter().map(|c| c.1.as_str()).collect();
    assert_eq!(names, ["set_theme", "get_weather"]);
    assert_eq!(t[1], "Switched to the dark theme.");
    assert_eq!(pending(&events), Some(vec![c[1].0.clone()]));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_tool_that_is_off_is_not_called() {
    let server = start().await;
    let a = server.addr;
    let (events, c, t) = ask(
        a,
        "off1",
        "What's the weather in Paris?",
        &["get_browser_time"],
    )
    .await;
    assert!(c.is_empty());
    assert_eq!(
        t,
        ["I can't check the weather: the get_weather tool is turned off. Turn it on in the Tools menu and ask again."]
    );
    assert_eq!(pending(&events), None);
    assert!(!types(&events).contains(&"TOOL_CALL_START".to_string()));
    // Other intents still proceed; the sentence leads the tool-calling message.
    let (events, c, t) = ask(
        a,
        "off2",
        "what time is it and what's the weather in Paris?",
        &["get_browser_time"],
    )
    .await;
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].1, "get_browser_time");
    assert_eq!(
        t,
        ["I can't check the weather: the get_weather tool is turned off. Turn it on in the Tools menu and ask again. Let me check."]
    );
    assert_eq!(pending(&events), Some(vec![c[0].0.clone()]));
    // Every frontend tool off.
    let (_, c, t) = ask(a, "off3", "time, calculate 1+1, dark mode, delete it", &[]).await;
    assert!(c.is_empty());
    assert_eq!(t.len(), 1);
    for tool in [
        "get_browser_time",
        "calculate",
        "set_theme",
        "confirm_action",
    ] {
        assert!(
            t[0].contains(&format!("the {tool} tool is turned off.")),
            "{}",
            t[0]
        );
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn parallel_intents_are_parallel_calls_with_one_parent() {
    let server = start().await;
    let a = server.addr;
    let (events, c, _) = ask(
        a,
        "par",
        "What's the weather in Paris and what time is it? Also calculate 6*7",
        &ALL,
    )
    .await;
    let names: Vec<&str> = c.iter().map(|c| c.1.as_str()).collect();
    assert_eq!(names, ["get_weather", "get_browser_time", "calculate"]);
    assert!(c.iter().all(|x| x.2 == c[0].2), "one parentMessageId");
    assert_eq!(c[0].3, r#"{"city":"Paris"}"#);
    assert_eq!(c[2].3, r#"{"expression":"6*7"}"#);
    let ids: Vec<String> = c.iter().map(|c| c.0.clone()).collect();
    assert_eq!(pending(&events), Some(ids));
    // Every call's START..END comes before the next call's START.
    let t = types(&events);
    let starts: Vec<usize> = t
        .iter()
        .enumerate()
        .filter(|(_, x)| *x == "TOOL_CALL_START")
        .map(|(i, _)| i)
        .collect();
    let ends: Vec<usize> = t
        .iter()
        .enumerate()
        .filter(|(_, x)| *x == "TOOL_CALL_END")
        .map(|(i, _)| i)
        .collect();
    assert!(starts.iter().zip(&ends).all(|(s, e)| s < e));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn follow_up_runs_answer_from_tool_results() {
    let server = start().await;
    let a = server.addr;
    let cases: [(&str, &str, &str); 8] = [
        ("what time is it", "\"2026-11-22 10:42:07\"", "Your browser says it is 2026-11-22 10:42:07."),
        ("what time is it", r#"{"time":"10:42"}"#, "Your browser says it is 10:42."),
        ("weather in Paris", r#"{"city":"Paris","temperature":18,"conditions":"light rain"}"#, "In Paris it is 18°C and light rain."),
        ("calculate 2 * (3 + 4)", "14", "2 * (3 + 4) = 14."),
        ("please delete my notes", r#"{"confirmed":true}"#, "Done: delete my notes."),
        ("please delete my notes", r#"{"confirmed":false}"#, "OK, I did not delete my notes."),
        (
            "weather in Oslo",
            "TOOL ERROR: TOOL_EXECUTION_FAILED\nweather service unreachable\nRECOVERY HINT: try again later",
            "The get_weather tool failed: weather service unreachable",
        ),
        ("Switch to dark mode", r#"{"ok":true}"#, ""),
    ];
    for (i, (question, result, answer)) in cases.into_iter().enumerate() {
        let thread = format!("follow{i}");
        let (_, c, _) = ask(a, &thread, question, &ALL).await;
        let (status, events) = run_events(
            a,
            &thread,
            input(
                &thread,
                "r2",
                json!([tool_msg(&format!("t{i}"), &c[0].0, result)]),
                &ALL,
            ),
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(pending(&events), None);
        let t = texts(&events);
        if answer.is_empty() {
            assert!(t.is_empty(), "set_theme results need no text: {t:?}");
        } else {
            assert_eq!(t, [answer], "{question} / {result}");
        }
        assert!(calls(&events).is_empty());
    }
    // Several results in one follow-up: one text, in call order.
    let (_, c, _) = ask(a, "follow-many", "time and weather in Rome", &ALL).await;
    let (_, events) = run_events(
        a,
        "follow-many",
        input(
            "follow-many",
            "r2",
            json!([
                tool_msg("x1", &c[0].0, "\"9:00\""),
                tool_msg(
                    "x2",
                    &c[1].0,
                    r#"{"temperature":25.5,"conditions":"sunny"}"#
                )
            ]),
            &ALL,
        ),
    )
    .await;
    assert_eq!(
        texts(&events),
        ["Your browser says it is 9:00. In Rome it is 25.5°C and sunny."]
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn search_docs_runs_on_the_server_and_emits_its_result() {
    let server = start().await;
    let a = server.addr;
    let (events, c, t) = ask(a, "docs", "How do I turn tool toggles on and off?", &[]).await;
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].1, "search_docs");
    assert_eq!(
        c[0].3,
        r#"{"query":"How do I turn tool toggles on and off"}"#
    );
    let results: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "TOOL_CALL_RESULT")
        .collect();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["toolCallId"], c[0].0.as_str());
    assert_eq!(results[0]["role"], "tool");
    assert!(results[0]["messageId"]
        .as_str()
        .unwrap()
        .starts_with("msg-"));
    let content = results[0]["content"].as_str().unwrap();
    assert!(content.starts_with("Tool toggles: "), "{content}");
    assert_eq!(t.len(), 2);
    assert_eq!(t[0], "Let me check.");
    assert!(
        t[1].starts_with("From the docs: Every frontend tool can be switched on or off"),
        "{}",
        t[1]
    );
    assert_eq!(pending(&events), None, "backend calls are never pending");
    // The result comes after the call ended, before the final text.
    let ty = types(&events);
    let end = ty.iter().position(|x| x == "TOOL_CALL_END").unwrap();
    let res = ty.iter().position(|x| x == "TOOL_CALL_RESULT").unwrap();
    let last_start = ty.iter().rposition(|x| x == "TEXT_MESSAGE_START").unwrap();
    assert!(end < res && res < last_start);
    // Nothing matches: still a result and a text.
    let (events, _, t) = ask(a, "docs-none", "search for zebras", &[]).await;
    let r = events
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_RESULT")
        .unwrap();
    assert_eq!(r["content"], "No matching documentation.");
    assert_eq!(t[1], "I found nothing in the docs about that.");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn no_intent_lists_what_it_can_do() {
    let server = start().await;
    let a = server.addr;
    let (events, c, t) = ask(a, "hello", "Hello there!", &ALL).await;
    assert!(c.is_empty());
    assert_eq!(t.len(), 1);
    for tool in ALL.iter().chain(&["search_docs"]) {
        assert!(t[0].contains(tool), "{tool} in {}", t[0]);
    }
    assert_eq!(pending(&events), None);
    // Content parts are read too; no user message at all is the same help.
    let (_, events) = run_events(
        a,
        "parts",
        input("parts", "r1", json!([{ "id": "u", "role": "user", "content": [{ "type": "text", "text": "what time is it" }] }]), &ALL),
    )
    .await;
    assert_eq!(calls(&events)[0].1, "get_browser_time");
    let (_, events) = run_events(a, "empty", input("empty", "r1", json!([]), &ALL)).await;
    assert_eq!(texts(&events), t);
    server.stop().await.unwrap();
}

/// The same conversation sent as whole threads and as new messages only gives the same answers.
#[tokio::test]
async fn full_and_new_history_give_the_same_answers() {
    let server = start().await;
    let a = server.addr;
    let turns = [
        "What's the weather in Lisbon and what time is it?",
        "search the docs for the restart loop",
        "please delete my drafts",
    ];
    let results = |call: &(String, String, String, String)| match call.1.as_str() {
        "get_weather" => r#"{"temperature":21,"conditions":"clear"}"#.to_string(),
        "get_browser_time" => "\"12:00\"".to_string(),
        "confirm_action" => r#"{"confirmed":true}"#.to_string(),
        other => panic!("unexpected {other}"),
    };
    let mut transcripts = Vec::new();
    for full in [true, false] {
        let thread = if full { "hist-full" } else { "hist-new" };
        let mut history: Vec<Value> = Vec::new();
        let mut said: Vec<String> = Vec::new();
        let mut n = 0;
        for (k, text) in turns.iter().enumerate() {
            let mut new = vec![user(&format!("u{k}"), text)];
            loop {
                history.extend(new.iter().cloned());
                let messages = if full { history.clone() } else { new.clone() };
                n += 1;
                let (status, events) = run_events(
                    a,
                    thread,
                    input(thread, &format!("r{n}"), Value::Array(messages), &ALL),
                )
                .await;
                assert_eq!(status, 200);
                said.extend(texts(&events));
                history.extend(history_from(&events));
                let pend = pending(&events).unwrap_or_default();
                if pend.is_empty() {
                    break;
                }
                let c = calls(&events);
                new = pend
                    .iter()
                    .enumerate()
                    .map(|(j, id)| {
                        let call = c.iter().find(|x| &x.0 == id).unwrap();
                        tool_msg(&format!("t{n}-{j}"), id, &results(call))
                    })
                    .collect();
            }
        }
        transcripts.push(said);
    }
    assert_eq!(transcripts[0], transcripts[1]);
    assert!(
        transcripts[0].contains(
            &"In Lisbon it is 21°C and clear. Your browser says it is 12:00.".to_string()
        ),
        "{:?}",
        transcripts[0]
    );
    assert!(transcripts[0].contains(&"Done: delete my drafts.".to_string()));
    // Re-sending known messages does not duplicate them: the same follow-up again answers the same.
    server.stop().await.unwrap();
}

#[tokio::test]
async fn bad_input_is_422_json() {
    let server = start().await;
    let a = server.addr;
    let cases = [
        json!({}),
        json!({ "threadId": "t", "runId": "r" }),
        json!({ "threadId": "t", "runId": "r", "messages": {} }),
        json!({ "threadId": "t", "runId": "r", "messages": [{ "id": "u", "role": "robot", "content": "x" }] }),
        json!({ "threadId": "t", "runId": "r", "messages": [{ "role": "user", "content": "x" }] }),
        json!({ "threadId": "t", "runId": "r", "messages": [{ "id": "x", "role": "tool", "content": "x" }] }),
        json!({ "threadId": "t", "runId": 5, "messages": [], "tools": [{ "description": "no name" }] }),
        json!([1, 2]),
        json!("hello"),
    ];
    for body in cases {
        let (status, got) = run_events(a, "t", body.clone()).await;
        assert_eq!(status, 422, "{body}");
        let detail = got[0]["detail"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}: {got:?}"));
        assert!(!detail.is_empty());
        for d in detail {
            assert!(
                d["msg"].is_string() && d["type"].is_string() && d["loc"][0] == "body",
                "{d}"
            );
            assert_no_null(d, "detail");
        }
    }
    let mut c = Conn::open(
        a,
        "POST",
        "/api/threads/t/runs",
        &[("Content-Type", "application/json")],
        b"{not json",
    )
    .await;
    assert_eq!(c.status, 422);
    assert_eq!(c.header("content-type"), Some("application/json"));
    assert_eq!(c.json().await["detail"][0]["type"], "json_invalid");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn agents_list_search_docs_and_scripted_responses_still_come_first() {
    let server = start().await;
    let a = server.addr;
    let got = get(a, "/api/agents").await.json().await;
    assert_eq!(got["agents"][0]["name"], "demo");
    let items = got["agents"][0]["capabilities"]["tools"]["items"]
        .as_array()
        .unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["name"], "search_docs");
    assert_eq!(items[0]["parameters"]["required"], json!(["query"]));
    // A queued scripted response wins over the planner for its thread.
    script(a, "s", json!([{ "events": [{ "type": "RUN_STARTED", "threadId": "s", "runId": "x" }, { "type": "RUN_FINISHED", "threadId": "s", "runId": "x" }] }])).await;
    let (_, events) = run_events(a, "s", input("s", "r1", json!([user("u", "time?")]), &ALL)).await;
    assert_eq!(events.len(), 2);
    let (_, events) =
        run_events(a, "s", input("s", "r2", json!([user("u2", "time?")]), &ALL)).await;
    assert_eq!(calls(&events)[0].1, "get_browser_time");
    // Runs are recorded in demo mode too.
    let recorded = get(a, "/test/requests?threadId=s").await.json().await;
    assert_eq!(recorded.as_array().unwrap().len(), 2);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn tokens_are_paced() {
    let server = spawn(
        Config {
            pace_ms: 10,
            ..Config::default()
        },
        0,
    )
    .await
    .unwrap();
    let a = server.addr;
    let t0 = Instant::now();
    let (events, _, _) = ask(a, "pace", "hi", &ALL).await;
    let tokens = events
        .iter()
        .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
        .count();
    assert!(tokens > 20);
    assert!(
        t0.elapsed() >= Duration::from_millis(10 * tokens as u64),
        "{:?}",
        t0.elapsed()
    );
    server.stop().await.unwrap();
}
