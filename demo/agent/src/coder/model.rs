//! The mock's "LLM": one [`Step`] per model call. A chat set up with `turns` takes its steps
//! from that script; a chat without one is answered by the demo rules (the demo planner's
//! intents, `search_docs` as the server's built-in tool).

use serde_json::{json, Value};

use super::chat::{parts, Chat};
use crate::demo;

/// One model call: streamed text, then tool calls (or a failure).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Step {
    /// Pause before the step starts (a slow model).
    pub delay_ms: u64,
    /// Text chunks, each one `message_part` delta.
    pub text: Vec<String>,
    /// Append a quote of the tool results the model got since its last assistant message.
    pub quote: bool,
    /// Tool calls, in order.
    pub calls: Vec<Call>,
    /// The step fails with this `ChatError` (status `error`, an `error` event).
    pub error: Option<Value>,
}

/// One tool call of a step.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// `tool_call_id`; the mock names it `toolu_<n>` when absent.
    pub id: Option<String>,
    /// `tool_name`.
    pub name: String,
    /// `args`.
    pub args: Value,
    /// Run by the server even if the name is a dynamic tool's (a built-in wins a collision).
    pub builtin: bool,
    /// A built-in's result (default: `search_docs` searches the demo corpus, else `{"ok":true}`).
    pub result: Option<Value>,
    /// A built-in's `is_error`.
    pub is_error: bool,
}

impl Step {
    /// A step of a `turns` script:
    /// `{text?: string | [chunk...], quote?, calls?: [{name, args?, id?, builtin?, result?,
    /// isError?}], error?: {message, kind?, retryable?, provider?, statusCode?, detail?},
    /// delayMs?}`. A string `text` streams word by word.
    pub fn parse(v: &Value) -> Result<Step, String> {
        let Some(o) = v.as_object() else {
            return Err("a step is an object".into());
        };
        let text = match o.get("text") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(s)) => demo::tokenize(s),
            Some(Value::Array(a)) => a
                .iter()
                .map(|c| c.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or("text chunks are strings")?,
            Some(_) => return Err("text is a string or an array of strings".into()),
        };
        let mut calls = Vec::new();
        for (i, c) in o
            .get("calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let name = c["name"]
                .as_str()
                .ok_or(format!("calls[{i}].name (string) is required"))?;
            calls.push(Call {
                id: c["id"].as_str().map(str::to_string),
                name: name.into(),
                args: c.get("args").cloned().unwrap_or(json!({})),
                builtin: c["builtin"] == true,
                result: c.get("result").cloned(),
                is_error: c["isError"] == true,
            });
        }
        let error = match o.get("error") {
            None | Some(Value::Null) => None,
            Some(e) => Some(chat_error(e)?),
        };
        Ok(Step {
            delay_ms: o.get("delayMs").and_then(Value::as_u64).unwrap_or(0),
            text,
            quote: o.get("quote") == Some(&Value::Bool(true)),
            calls,
            error,
        })
    }
}

/// A `ChatError` from a script's `{message, kind?, retryable?, provider?, statusCode?, detail?}`
/// (or its snake_case spelling).
pub fn chat_error(e: &Value) -> Result<Value, String> {
    let message = e["message"]
        .as_str()
        .ok_or("error.message (string) is required")?;
    let mut out = json!({
        "message": message,
        "kind": e["kind"].as_str().unwrap_or("generic"),
        "retryable": e["retryable"] == true,
    });
    if let Some(p) = e["provider"].as_str() {
        out["provider"] = json!(p);
    }
    if let Some(d) = e["detail"].as_str() {
        out["detail"] = json!(d);
    }
    if let Some(s) = e
        .get("statusCode")
        .or(e.get("status_code"))
        .and_then(Value::as_u64)
    {
        out["status_code"] = json!(s);
    }
    Ok(out)
}

/// The tool results after the chat's last assistant message: (call id, tool, result, is_error).
fn latest_results(chat: &Chat) -> Vec<(String, String, Value, bool)> {
    let last = chat
        .messages
        .iter()
        .rposition(|m| m["role"] == "assistant")
        .map_or(0, |i| i + 1);
    chat.messages[last..]
        .iter()
        .filter(|m| m["role"] == "tool")
        .flat_map(parts)
        .filter(|p| p["type"] == "tool-result")
        .map(|p| {
            (
                p["tool_call_id"].as_str().unwrap_or("").to_string(),
                p["tool_name"].as_str().unwrap_or("").to_string(),
                p.get("result").cloned().unwrap_or(Value::Null),
                p["is_error"] == true,
            )
        })
        .collect()
}

/// Whether the chat's history ends with tool results (the model continues after tools).
fn after_tools(chat: &Chat) -> bool {
    chat.messages.last().is_some_and(|m| m["role"] == "tool")
}

/// The quote of the latest results, `I got: get_weather(toolu_1) = {"temp":18}; get_time(toolu_2)
/// failed: "Tool execution timed out".` (results as compact JSON, in commit order).
pub fn quote(chat: &Chat) -> String {
    let items: Vec<String> = latest_results(chat)
        .into_iter()
        .map(|(id, tool, result, is_error)| {
            let verb = if is_error { " failed:" } else { " =" };
            format!("{tool}({id}){verb} {result}")
        })
        .collect();
    if items.is_empty() {
        "I got no tool results.".into()
    } else {
        format!("I got: {}.", items.join("; "))
    }
}

/// The next step of a chat: its script's next one, or when the script is used up a final text
/// (the quote after tool results, else `Done.`); without a script, the demo rules.
pub fn next_step(chat: &mut Chat) -> Step {
    let after = after_tools(chat);
    if let Some(turns) = chat.setup.turns.as_mut() {
        return turns.pop_front().unwrap_or(Step {
            text: if after {
                Vec::new()
            } else {
                vec!["Done.".into()]
            },
            quote: after,
            ..Step::default()
        });
    }
    if after {
        return Step {
            text: demo::tokenize(&demo_answer(chat)),
            ..Step::default()
        };
    }
    let text = chat
        .messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| super::chat::first_text(m.get("content")))
        .unwrap_or_default();
    demo_plan(chat, &text)
}

/// The demo rules for a user message: each intent calls its tool if the chat declared it
/// (`search_docs` is the server's built-in), else a sentence says the tool is not there.
fn demo_plan(chat: &Chat, text: &str) -> Step {
    let intents = demo::intents(text);
    if intents.is_empty() {
        return Step {
            text: demo::tokenize(demo::HELP),
            ..Step::default()
        };
    }
    let mut sentences = Vec::new();
    let mut calls = Vec::new();
    for intent in intents {
        let tool = intent.tool();
        if tool == "search_docs" {
            calls.push(Call {
                id: None,
                name: tool.into(),
                args: intent.args(),
                builtin: true,
                result: None,
                is_error: false,
            });
        } else if chat.dynamic.contains(tool) {
            calls.push(Call {
                id: None,
                name: tool.into(),
                args: intent.args(),
                builtin: false,
                result: None,
                is_error: false,
            });
        } else {
            sentences.push(demo::turned_off(tool));
        }
    }
    if !calls.is_empty() {
        sentences.push(demo::LEAD_IN.into());
    }
    Step {
        text: demo::tokenize(&sentences.join(" ")),
        calls,
        ..Step::default()
    }
}

/// The demo's final sentences for the latest results (the planner's follow-up answers;
/// `search_docs` quotes the docs).
fn demo_answer(chat: &Chat) -> String {
    let call_args = |id: &str| -> Value {
        chat.messages
            .iter()
            .rev()
            .flat_map(parts)
            .find(|p| p["type"] == "tool-call" && p["tool_call_id"] == id)
            .and_then(|p| p.get("args").cloned())
            .unwrap_or(json!({}))
    };
    let sentences: Vec<String> = latest_results(chat)
        .into_iter()
        .filter_map(|(id, tool, result, is_error)| {
            let content = match &result {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if tool == "search_docs" {
                return Some(format!("From the docs: {content}"));
            }
            let error = is_error.then_some(content.as_str());
            demo::answer(&tool, &call_args(&id), &content, error)
        })
        .collect();
    if sentences.is_empty() {
        "Done.".into()
    } else {
        sentences.join(" ")
    }
}

/// A built-in call's result: the step's, else `search_docs` over the demo corpus, else
/// `{"ok": true}`.
pub fn builtin_result(call: &Call) -> Value {
    if let Some(r) = &call.result {
        return r.clone();
    }
    if call.name == "search_docs" {
        let q = call.args["query"].as_str().unwrap_or("");
        return json!(demo::search_docs_content(&demo::search_docs(q)));
    }
    json!({ "ok": true })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_step() {
        let s = Step::parse(&json!({
            "text": ["Let me ", "check."],
            "calls": [{"name": "get_weather", "args": {"city": "Paris"}},
                      {"name": "search_docs", "builtin": true, "result": "x"}],
            "delayMs": 5
        }))
        .unwrap();
        assert_eq!(s.text, ["Let me ", "check."]);
        assert_eq!(s.calls.len(), 2);
        assert!(s.calls[1].builtin && !s.calls[0].builtin);
        assert_eq!(s.delay_ms, 5);
        assert_eq!(
            Step::parse(&json!({"text": "a b"})).unwrap().text,
            ["a ", "b"]
        );
        assert!(Step::parse(&json!({"calls": [{}]})).is_err());
        assert!(Step::parse(&json!({"error": {}})).is_err());
    }

    #[test]
    fn chat_errors_take_both_spellings() {
        let e = chat_error(
            &json!({"message": "m", "kind": "overloaded", "retryable": true,
            "provider": "anthropic", "statusCode": 529}),
        )
        .unwrap();
        assert_eq!(
            e,
            json!({"message": "m", "kind": "overloaded", "retryable": true,
                "provider": "anthropic", "status_code": 529})
        );
        assert_eq!(
            chat_error(&json!({"message": "m"})).unwrap(),
            json!({"message": "m", "kind": "generic", "retryable": false})
        );
    }
}
