//! `--mode gateway`: answers runs the way the Jaeger AI gateway of its RFC 0002 streams them
//! (docs/assistant-ui.md): one turn that calls a backend tool (`search_traces`, its
//! `TOOL_CALL_RESULT` in the stream) and a contextual UI tool the page offered (`show_flamegraph`,
//! `highlight_span` or `set_filter`: `TOOL_CALL_START/ARGS/END`, no result, the turn goes on without
//! waiting), then more text in a message of its own, and `RUN_FINISHED`. The UI tool's argument is
//! taken from the tool's own schema (its `enum`), which the page writes for the view it shows.
//! A request whose last message is a tool result (a browser tool the client answered, e.g. one of
//! tools.json) gets a short text that quotes it: nothing asks for the browser again.

use serde_json::{json, Value};

use crate::demo::{self, Ids, Out, RunInput, Step};

/// The backend tool the gateway runs itself (Jaeger's MCP `search_traces`).
pub const BACKEND_TOOL: &str = "search_traces";

/// The UI tools of RFC 0002, in the order the gateway prefers them when the words say nothing.
const UI_TOOLS: [&str; 3] = ["highlight_span", "show_flamegraph", "set_filter"];

/// The first `enum` value of `tool.parameters.properties[prop]` that `text` names, else its first.
fn pick(tool: &Value, prop: &str, text: &str) -> Option<String> {
    let values = tool["parameters"]["properties"][prop]["enum"].as_array()?;
    let names: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
    names
        .iter()
        .find(|v| text.contains(&v.to_lowercase()))
        .or(names.first())
        .map(|s| s.to_string())
}

/// Which UI tool the user's words ask for, among those offered, and its arguments.
fn ui_call(input: &RunInput, text: &str) -> Option<(String, Value)> {
    let offered = |name: &str| input.tools.iter().find(|t| t["name"] == name);
    let wanted = if text.contains("flame") {
        "show_flamegraph"
    } else if text.contains("filter") || text.contains("error") {
        "set_filter"
    } else if text.contains("span") || text.contains("slow") || text.contains("highlight") {
        "highlight_span"
    } else {
        UI_TOOLS.into_iter().find(|n| offered(n).is_some())?
    };
    let tool = offered(wanted)?;
    let args = match wanted {
        "show_flamegraph" => json!({ "trace_id": pick(tool, "trace_id", text)? }),
        "highlight_span" => json!({ "span_id": pick(tool, "span_id", text)? }),
        _ => json!({ "service": pick(tool, "service", text)? }),
    };
    Some((wanted.to_string(), args))
}

/// A browser tool of tools.json the words name (`get_browser_time` for "time"), when offered.
fn browser_call(input: &RunInput, text: &str) -> Option<(String, Value)> {
    (text.contains("time") && input.offers("get_browser_time"))
        .then(|| ("get_browser_time".to_string(), json!({})))
}

/// The traces `search_traces` finds (the demo page shows the same ones).
fn search_result() -> String {
    json!({ "traces": [
        { "traceId": "checkout-7f3a", "rootService": "frontend", "spans": 6, "durationMs": 842, "errors": 1 },
        { "traceId": "login-19bc", "rootService": "auth", "spans": 4, "durationMs": 121, "errors": 0 }
    ] })
    .to_string()
}

/// The messages the run's events say (what the gateway keeps of the turn for the thread's
/// history): a text message is an assistant message, a tool call joins the assistant message it
/// names (`parentMessageId`) with its streamed arguments, a `TOOL_CALL_RESULT` is a tool message.
pub fn messages_of(steps: &[Step]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let find = |out: &mut Vec<Value>, id: &str| -> usize {
        match out.iter().position(|m| m["id"] == id) {
            Some(i) => i,
            None => {
                out.push(json!({ "id": id, "role": "assistant", "content": "" }));
                out.len() - 1
            }
        }
    };
    for step in steps {
        let e = &step.event;
        let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
        match e["type"].as_str().unwrap_or("") {
            "TEXT_MESSAGE_START" => {
                find(&mut out, &s("messageId"));
            }
            "TEXT_MESSAGE_CONTENT" => {
                let i = find(&mut out, &s("messageId"));
                let text = format!("{}{}", out[i]["content"].as_str().unwrap_or(""), s("delta"));
                out[i]["content"] = Value::String(text);
            }
            "TOOL_CALL_START" => {
                let i = find(&mut out, &s("parentMessageId"));
                let call = demo::tool_call_entry(&s("toolCallId"), &s("toolCallName"), "");
                match out[i]["toolCalls"].as_array_mut() {
                    Some(calls) => calls.push(call),
                    None => out[i]["toolCalls"] = json!([call]),
                }
            }
            "TOOL_CALL_ARGS" => {
                let id = s("toolCallId");
                for m in out.iter_mut() {
                    for c in m["toolCalls"].as_array_mut().into_iter().flatten() {
                        if c["id"] == id.as_str() {
                            let args = c["function"]["arguments"].as_str().unwrap_or("");
                            c["function"]["arguments"] = Value::String(format!("{args}{}", s("delta")));
                        }
                    }
                }
            }
            "TOOL_CALL_RESULT" => out.push(json!({
                "id": s("messageId"), "role": "tool", "toolCallId": s("toolCallId"), "content": s("content")
            })),
            _ => {}
        }
    }
    out
}

/// The run's events.
pub fn plan(input: &RunInput, ids: &Ids) -> Vec<Step> {
    let mut out = Out::new(ids);
    out.push(demo::run_started(input));
    let last = input.messages.last();
    if last.is_some_and(|m| m["role"] == "tool") {
        let content = last
            .map(|m| demo::text_of(&m["content"]))
            .unwrap_or_default();
        out.text_message(&format!("The browser answered: {}", content.trim()));
        out.push(demo::run_finished(input, &[]));
        return out.steps;
    }
    let text = input
        .messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| demo::text_of(&m["content"]).to_lowercase())
        .unwrap_or_default();
    if let Some((name, args)) = browser_call(input, &text) {
        let intro = out.text_message("Let me ask your browser.");
        let call = ids.call();
        out.tool_call(&call, &name, &intro, &args.to_string());
        out.push(demo::run_finished(input, std::slice::from_ref(&call)));
        return out.steps;
    }
    let intro = out.text_message("Looking at the traces of the last hour.");
    let search = ids.call();
    out.tool_call(&search, BACKEND_TOOL, &intro, r#"{"lookback":"1h"}"#);
    out.push(json!({
        "type": "TOOL_CALL_RESULT", "messageId": ids.msg(), "toolCallId": search,
        "content": search_result(), "role": "tool"
    }));
    let summary = match ui_call(input, &text) {
        Some((name, args)) => {
            let call = ids.call();
            out.tool_call(&call, &name, &intro, &args.to_string());
            // The turn goes on at once: the browser runs the call from the events, no result.
            let target = args
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            match name.as_str() {
                "show_flamegraph" => format!("I opened the flame graph of {target}."),
                "highlight_span" => format!("I highlighted span {target}: it is the slowest one."),
                _ => format!("I filtered the list to {target}."),
            }
        }
        None => "Two traces: checkout-7f3a (842 ms, 1 error) and login-19bc (121 ms).".to_string(),
    };
    out.text_message(&summary);
    out.push(demo::run_finished(input, &[]));
    out.steps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(tools: Value, messages: Value) -> RunInput {
        let body = json!({ "threadId": "t", "runId": "r", "messages": messages, "tools": tools, "context": [] });
        demo::validate(body.to_string().as_bytes()).expect("valid")
    }

    fn types(steps: &[Step]) -> Vec<&str> {
        steps
            .iter()
            .map(|s| s.event["type"].as_str().unwrap_or(""))
            .collect()
    }

    #[test]
    fn a_ui_call_inside_a_turn_that_goes_on() {
        let tools = json!([{ "name": "highlight_span", "description": "d",
            "parameters": { "type": "object", "properties": { "span_id": { "type": "string", "enum": ["s1", "s2"] } } } }]);
        let steps = plan(
            &input(
                tools,
                json!([{ "id": "u", "role": "user", "content": "highlight the slow span s2" }]),
            ),
            &Ids::default(),
        );
        let t = types(&steps);
        let ui = steps
            .iter()
            .position(|s| s.event["toolCallName"] == "highlight_span")
            .expect("the UI call");
        assert_eq!(
            steps[ui + 1].event["delta"]
                .as_str()
                .map(|d| d.starts_with('{')),
            Some(true)
        );
        let args: String = steps
            .iter()
            .filter(|s| {
                s.event["type"] == "TOOL_CALL_ARGS"
                    && s.event["toolCallId"] == steps[ui].event["toolCallId"]
            })
            .map(|s| s.event["delta"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(args, r#"{"span_id":"s2"}"#);
        // The backend tool's result is in the stream; the UI call gets none and text follows it.
        assert!(t.contains(&"TOOL_CALL_RESULT"));
        let results = steps
            .iter()
            .filter(|s| s.event["type"] == "TOOL_CALL_RESULT")
            .count();
        assert_eq!(results, 1);
        let after = &t[ui..];
        assert!(after.contains(&"TEXT_MESSAGE_CONTENT"));
        assert_eq!(t.last(), Some(&"RUN_FINISHED"));
        assert!(steps
            .last()
            .is_some_and(|s| s.event["outcome"].get("pendingToolCallIds").is_none()));
    }

    #[test]
    fn the_turn_kept_as_messages() {
        let tools = json!([{ "name": "set_filter", "description": "d",
            "parameters": { "type": "object", "properties": { "service": { "type": "string", "enum": ["payments"] } } } }]);
        let steps = plan(
            &input(
                tools,
                json!([{ "id": "u", "role": "user", "content": "filter payments" }]),
            ),
            &Ids::default(),
        );
        let messages = messages_of(&steps);
        let roles: Vec<&str> = messages
            .iter()
            .map(|m| m["role"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(roles, ["assistant", "tool", "assistant"]);
        assert_eq!(
            messages[0]["content"],
            "Looking at the traces of the last hour."
        );
        let calls = messages[0]["toolCalls"]
            .as_array()
            .expect("the intro's calls");
        assert_eq!(calls[0]["function"]["name"], BACKEND_TOOL);
        assert_eq!(calls[0]["function"]["arguments"], r#"{"lookback":"1h"}"#);
        assert_eq!(calls[1]["function"]["name"], "set_filter");
        assert_eq!(
            calls[1]["function"]["arguments"],
            r#"{"service":"payments"}"#
        );
        assert_eq!(messages[1]["toolCallId"], calls[0]["id"]);
        assert_eq!(messages[2]["content"], "I filtered the list to payments.");
    }

    #[test]
    fn no_ui_tool_offered_no_ui_call() {
        let steps = plan(
            &input(
                json!([]),
                json!([{ "id": "u", "role": "user", "content": "flame graph" }]),
            ),
            &Ids::default(),
        );
        assert_eq!(
            steps
                .iter()
                .filter(|s| s.event["type"] == "TOOL_CALL_START")
                .count(),
            1
        );
    }

    #[test]
    fn a_tool_result_is_answered_with_text_only() {
        let messages = json!([
            { "id": "u", "role": "user", "content": "time?" },
            { "id": "a", "role": "assistant", "toolCalls": [{ "id": "c", "type": "function", "function": { "name": "get_browser_time", "arguments": "{}" } }] },
            { "id": "t", "role": "tool", "toolCallId": "c", "content": "12:00" }
        ]);
        let steps = plan(&input(json!([]), messages), &Ids::default());
        assert!(!types(&steps).contains(&"TOOL_CALL_START"));
        assert!(steps.iter().any(|s| s.event["delta"]
            .as_str()
            .is_some_and(|d| d.contains("12:00"))));
    }
}
