//! Demo mode: the RunAgentInput check (422), the server-side thread store, the built-in docs
//! corpus behind the backend tool `search_docs`, and the deterministic rule-based planner.
//!
//! The planner is pure: [`plan`] takes the merged thread and the offered tools and returns the
//! events of the run (and appends what the run says to the thread). Streaming is done by the caller.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Map, Value};

// ---- ids -----------------------------------------------------------------------------------------

/// `msg-<n>`, `call-<n>` and `run-<n>`, unique per server.
#[derive(Debug, Default)]
pub struct Ids {
    msg: AtomicU64,
    call: AtomicU64,
    run: AtomicU64,
}

impl Ids {
    /// The next `msg-<n>` (from 1).
    pub fn msg(&self) -> String {
        format!("msg-{}", self.msg.fetch_add(1, Ordering::Relaxed) + 1)
    }
    /// The next `call-<n>` (from 1).
    pub fn call(&self) -> String {
        format!("call-{}", self.call.fetch_add(1, Ordering::Relaxed) + 1)
    }
    /// The next `run-<n>` (from 1): the id of a run whose request named none.
    pub fn run(&self) -> String {
        format!("run-{}", self.run.fetch_add(1, Ordering::Relaxed) + 1)
    }
}

// ---- RunAgentInput -------------------------------------------------------------------------------

/// The parts of a RunAgentInput the agent uses (checked by [`validate`]).
#[derive(Debug, Clone)]
pub struct RunInput {
    /// `threadId`
    pub thread_id: String,
    /// `runId`; empty when the request has none (a client may leave naming the run to the
    /// server: the caller fills it in with [`Ids::run`]).
    pub run_id: String,
    /// `messages`, as sent.
    pub messages: Vec<Value>,
    /// `tools`, as sent (each has a string `name`).
    pub tools: Vec<Value>,
    /// `context`, as sent.
    pub context: Vec<Value>,
    /// `forwardedProps.approvals == "interrupt"`: the interrupt mode ([`plan`]).
    pub interrupts: bool,
    /// `resume`, as sent.
    pub resume: Vec<Value>,
}

impl RunInput {
    /// Whether the browser offered a tool of this name.
    pub fn offers(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t["name"] == name)
    }
}

const ROLES: [&str; 7] = [
    "developer",
    "system",
    "user",
    "assistant",
    "tool",
    "activity",
    "reasoning",
];

fn problem(kind: &str, loc: &[Value], msg: impl Into<String>) -> Value {
    let mut full = vec![json!("body")];
    full.extend_from_slice(loc);
    json!({ "type": kind, "loc": full, "msg": msg.into() })
}

/// Checks a request body; on failure returns the list of problems, pydantic style
/// (`[{type, loc, msg}]`, answered as `422 {"detail": [...]}`).
pub fn validate(body: &[u8]) -> Result<RunInput, Vec<Value>> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Err(vec![problem(
                "json_invalid",
                &[],
                format!("JSON decode error: {e}"),
            )])
        }
    };
    let Value::Object(obj) = value else {
        return Err(vec![problem(
            "model_type",
            &[],
            "Input should be an object (a RunAgentInput)",
        )]);
    };
    let mut errors = Vec::new();
    let string_field = |name: &str, errors: &mut Vec<Value>| match obj.get(name) {
        Some(Value::String(s)) => s.clone(),
        Some(_) => {
            errors.push(problem(
                "string_type",
                &[json!(name)],
                "Input should be a valid string",
            ));
            String::new()
        }
        None => {
            errors.push(problem("missing", &[json!(name)], "Field required"));
            String::new()
        }
    };
    let thread_id = string_field("threadId", &mut errors);
    // Optional: a client may leave naming the run to the server.
    let run_id = match obj.get("runId") {
        None => String::new(),
        Some(_) => string_field("runId", &mut errors),
    };
    let messages = match obj.get("messages") {
        Some(Value::Array(list)) => {
            for (i, m) in list.iter().enumerate() {
                let at = |f: &str| [json!("messages"), json!(i), json!(f)];
                if !m.is_object() {
                    errors.push(problem(
                        "model_type",
                        &[json!("messages"), json!(i)],
                        "Input should be a message object",
                    ));
                    continue;
                }
                if !m["id"].is_string() {
                    errors.push(problem("missing", &at("id"), "Field required (string)"));
                }
                match m["role"].as_str() {
                    Some(r) if ROLES.contains(&r) => {
                        if r == "tool" && !m["toolCallId"].is_string() {
                            errors.push(problem(
                                "missing",
                                &at("toolCallId"),
                                "Field required (string) on a tool message",
                            ));
                        }
                        if matches!(r, "user" | "tool" | "system" | "developer")
                            && !(m["content"].is_string() || m["content"].is_array())
                        {
                            errors.push(problem(
                                "missing",
                                &at("content"),
                                "Field required (string or content parts)",
                            ));
                        }
                    }
                    _ => errors.push(problem(
                        "union_tag_invalid",
                        &at("role"),
                        format!("role should be one of {}", ROLES.join(", ")),
                    )),
                }
            }
            list.clone()
        }
        Some(_) => {
            errors.push(problem(
                "list_type",
                &[json!("messages")],
                "Input should be a valid list",
            ));
            Vec::new()
        }
        None => {
            errors.push(problem("missing", &[json!("messages")], "Field required"));
            Vec::new()
        }
    };
    let tools = match obj.get("tools") {
        None => Vec::new(),
        Some(Value::Array(list)) => {
            for (i, t) in list.iter().enumerate() {
                if !t["name"].is_string() {
                    errors.push(problem(
                        "missing",
                        &[json!("tools"), json!(i), json!("name")],
                        "Field required (string)",
                    ));
                }
            }
            list.clone()
        }
        Some(_) => {
            errors.push(problem(
                "list_type",
                &[json!("tools")],
                "Input should be a valid list",
            ));
            Vec::new()
        }
    };
    let context = match obj.get("context") {
        None => Vec::new(),
        Some(Value::Array(list)) => list.clone(),
        Some(_) => {
            errors.push(problem(
                "list_type",
                &[json!("context")],
                "Input should be a valid list",
            ));
            Vec::new()
        }
    };
    let interrupts = obj
        .get("forwardedProps")
        .is_some_and(|p| p["approvals"] == "interrupt");
    let resume = match obj.get("resume") {
        Some(Value::Array(list)) => list.clone(),
        _ => Vec::new(),
    };
    if errors.is_empty() {
        Ok(RunInput {
            thread_id,
            run_id,
            messages,
            tools,
            context,
            interrupts,
            resume,
        })
    } else {
        Err(errors)
    }
}

/// Merges the request's messages into the stored thread by `id`: known ids are not duplicated
/// (the stored copy is kept), new ones are appended in order. Works for whole threads and for
/// "only what is new" alike.
pub fn merge(thread: &mut Vec<Value>, incoming: &[Value]) {
    for m in incoming {
        let known = m["id"]
            .as_str()
            .is_some_and(|id| thread.iter().any(|t| t["id"] == id));
        if !known {
            thread.push(m.clone());
        }
    }
}

/// The text of a message's `content` (a string, or the `text` of its text parts joined by spaces).
pub fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

// ---- the docs corpus and search_docs -------------------------------------------------------------

/// The built-in corpus: (title, paragraph).
pub const DOCS: [(&str, &str); 8] = [
    ("Frontend tools", "Frontend tools are JavaScript functions that run in the browser, not on the agent. The page sends their JSON schemas with every run; when the model calls one, the browser executes it and sends the result back."),
    ("tools.json", "The tools.json file lists the frontend tools: each entry has a tool schema (name, description, parameters), an importPath to a JavaScript module and the entrypoint function to call. Bad entries are skipped with a diagnostic."),
    ("Tool toggles", "Every frontend tool can be switched on or off per thread in the Tools menu. The toggles are saved in localStorage; a tool that is off is not offered to the agent, so the agent cannot call it."),
    ("The execute-and-restart loop", "When a run finishes with pending tool calls, chat-runtime executes them in the browser, appends one tool message per call and restarts the run, until the agent answers without calling a tool."),
    ("AG-UI", "AG-UI is the protocol between the page and the agent: the page POSTs a RunAgentInput and reads a stream of server-sent events such as RUN_STARTED, TEXT_MESSAGE_CONTENT, TOOL_CALL_START and RUN_FINISHED."),
    ("Abort", "A run can be aborted at any time with the Stop button: the stream is cut, running tools get an abort signal, and calls without a result are recorded as interrupted so the next turn stays valid."),
    ("Backend tools", "Backend tools such as search_docs run on the agent itself. The agent streams their calls and results, so the page shows them, but the browser never executes them."),
    ("Tool errors", "A frontend tool that throws, times out or gets invalid arguments returns a TOOL ERROR result with a code, a message and a recovery hint, so the model can explain the problem or try again."),
];

const STOPWORDS: [&str; 30] = [
    "the",
    "and",
    "for",
    "are",
    "what",
    "how",
    "does",
    "with",
    "that",
    "this",
    "from",
    "can",
    "you",
    "about",
    "docs",
    "documentation",
    "search",
    "find",
    "tell",
    "into",
    "when",
    "where",
    "which",
    "who",
    "why",
    "is",
    "it",
    "do",
    "an",
    "of",
];

fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.len() > 1 && !STOPWORDS.contains(w))
        .map(|w| {
            // Crude stemming so "toggle" meets "toggles".
            let w = w.strip_suffix('s').filter(|s| s.len() > 2).unwrap_or(w);
            w.to_string()
        })
        .collect()
}

/// The best 1-2 paragraphs for `query` by word overlap (ties keep corpus order); empty: no match.
pub fn search_docs(query: &str) -> Vec<(&'static str, &'static str)> {
    let q = words(query);
    let mut scored: Vec<(usize, usize)> = DOCS
        .iter()
        .enumerate()
        .map(|(i, (title, text))| {
            let doc = words(&format!("{title} {text}"));
            let score = q.iter().filter(|w| doc.contains(w)).count();
            (score, i)
        })
        .filter(|(score, _)| *score > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(2).map(|(_, i)| DOCS[i]).collect()
}

/// The `TOOL_CALL_RESULT` content of `search_docs`.
pub fn search_docs_content(hits: &[(&str, &str)]) -> String {
    if hits.is_empty() {
        return "No matching documentation.".into();
    }
    hits.iter()
        .map(|(t, p)| format!("{t}: {p}"))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The `search_docs` tool as listed in `/api/agents` and offered to an LLM.
pub fn search_docs_tool() -> Value {
    json!({
        "name": "search_docs",
        "description": "Search the chat-runtime documentation (frontend tools, tools.json, toggles, the tool loop, AG-UI, abort). Returns the best matching paragraphs.",
        "parameters": {
            "type": "object",
            "properties": { "query": { "type": "string", "description": "What to look for" } },
            "required": ["query"]
        }
    })
}

// ---- intents -------------------------------------------------------------------------------------

/// What the latest user message asks for, in message order.
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    /// `get_browser_time`
    Time,
    /// `get_weather` with the city
    Weather(String),
    /// `calculate` with the expression
    Calculate(String),
    /// `set_theme` with `dark` / `light`
    Theme(&'static str),
    /// `confirm_action` with the action
    Confirm(String),
    /// `search_docs` (backend) with the query
    Docs(String),
}

impl Intent {
    /// The tool this intent calls.
    pub fn tool(&self) -> &'static str {
        match self {
            Intent::Time => "get_browser_time",
            Intent::Weather(_) => "get_weather",
            Intent::Calculate(_) => "calculate",
            Intent::Theme(_) => "set_theme",
            Intent::Confirm(_) => "confirm_action",
            Intent::Docs(_) => "search_docs",
        }
    }

    /// The call's arguments.
    pub fn args(&self) -> Value {
        match self {
            Intent::Time => json!({}),
            Intent::Weather(city) => json!({ "city": city }),
            Intent::Calculate(e) => json!({ "expression": e }),
            Intent::Theme(t) => json!({ "theme": t }),
            Intent::Confirm(a) => json!({ "action": a }),
            Intent::Docs(q) => json!({ "query": q }),
        }
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Byte offset of the first whole-word occurrence of `needle` (which may contain spaces).
fn find_word(hay: &str, needle: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let start = from + i;
        let end = start + needle.len();
        let before = hay[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !is_word_char(c));
        let after = hay[end..].chars().next().is_none_or(|c| !is_word_char(c));
        if before && after {
            return Some(start);
        }
        from = start + needle.len().max(1);
    }
    None
}

fn first_of(hay: &str, needles: &[&str]) -> Option<usize> {
    needles.iter().filter_map(|n| find_word(hay, n)).min()
}

/// The capitalized word(s) after the first "in" (after `from` if possible).
fn city_after_in(original: &str, from: usize) -> Option<String> {
    let tokens: Vec<(usize, &str)> = original
        .split_whitespace()
        .map(|t| (t.as_ptr() as usize - original.as_ptr() as usize, t))
        .collect();
    let pick = |min: usize| -> Option<String> {
        for (k, (pos, tok)) in tokens.iter().enumerate() {
            if *pos < min || !tok.eq_ignore_ascii_case("in") {
                continue;
            }
            let mut city = Vec::new();
            for (_, t) in &tokens[k + 1..] {
                let clean = t.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'');
                let clean = clean.strip_suffix("'s").unwrap_or(clean);
                if !clean.chars().next().is_some_and(char::is_uppercase) {
                    break;
                }
                city.push(clean.to_string());
                if clean.len() != t.len() && !t.ends_with("'s") {
                    break; // punctuation ends the name ("Paris?", "Paris,")
                }
            }
            if !city.is_empty() {
                return Some(city.join(" "));
            }
        }
        None
    };
    pick(from).or_else(|| pick(0))
}

const EXPR_CHARS: &str = "0123456789+-*/().^% ";

/// `calculate X` / `what is X` with X made of digits and operators: (position, X).
fn calculation(lower: &str) -> Option<(usize, String)> {
    for key in ["calculate", "what is", "what's", "whats"] {
        let mut from = 0;
        while let Some(i) = lower[from..].find(key) {
            let start = from + i;
            let rest = &lower[start + key.len()..];
            let expr: String = rest
                .trim_start()
                .chars()
                .take_while(|c| EXPR_CHARS.contains(*c) || *c == '.')
                .collect();
            let expr = expr.trim().trim_end_matches('.').trim().to_string();
            let digit = expr.chars().any(|c| c.is_ascii_digit());
            let op = expr.chars().any(|c| "+-*/^%()".contains(c));
            if digit && op {
                return Some((start, expr));
            }
            from = start + key.len();
        }
    }
    None
}

/// The sentence of `original` holding byte `pos`, trimmed, without end punctuation or "please".
fn sentence_at(original: &str, pos: usize) -> String {
    let start = original[..pos]
        .rfind(['.', '!', '?', '\n'])
        .map_or(0, |i| i + 1);
    let end = original[pos..]
        .find(['.', '!', '?', '\n'])
        .map_or(original.len(), |i| pos + i);
    let s = original[start..end].trim();
    let lower = s.to_lowercase();
    let s = if lower.starts_with("please ") {
        s[7..].trim_start()
    } else {
        s
    };
    let s = s.strip_suffix(" please").unwrap_or(s);
    s.trim_end_matches([',', ' ']).to_string()
}

/// The intents of a user message, in the order they appear in it (each at most once).
pub fn intents(message: &str) -> Vec<Intent> {
    let lower = message.to_lowercase();
    let mut found: Vec<(usize, Intent)> = Vec::new();
    if let Some(p) = first_of(&lower, &["time", "clock"]) {
        found.push((p, Intent::Time));
    }
    if let Some(p) = find_word(&lower, "weather") {
        let city = city_after_in(message, p).unwrap_or_else(|| "Berlin".into());
        found.push((p, Intent::Weather(city)));
    }
    if let Some((p, expr)) = calculation(&lower) {
        found.push((p, Intent::Calculate(expr)));
    }
    let dark = first_of(&lower, &["dark mode", "dark theme"]);
    let light = first_of(&lower, &["light mode", "light theme"]);
    match (dark, light) {
        (Some(d), Some(l)) if l < d => found.push((l, Intent::Theme("light"))),
        (Some(d), _) => found.push((d, Intent::Theme("dark"))),
        (None, Some(l)) => found.push((l, Intent::Theme("light"))),
        (None, None) => {}
    }
    if let Some(p) = first_of(&lower, &["delete", "confirm", "reset"]) {
        found.push((p, Intent::Confirm(sentence_at(message, p))));
    }
    if let Some(p) = first_of(&lower, &["docs", "documentation", "how do i", "search"]) {
        let q = message.trim().trim_end_matches(['?', '.', '!']).trim();
        found.push((p, Intent::Docs(q.to_string())));
    }
    found.sort_by_key(|(p, _)| *p);
    found.into_iter().map(|(_, i)| i).collect()
}

/// The sentence for a frontend tool the message needs but the browser did not offer.
pub fn turned_off(tool: &str) -> String {
    let what = match tool {
        "get_browser_time" => "check the time",
        "get_weather" => "check the weather",
        "calculate" => "calculate that",
        "set_theme" => "switch the theme",
        "confirm_action" => "ask for your confirmation",
        _ => "do that",
    };
    format!("I can't {what}: the {tool} tool is turned off. Turn it on in the Tools menu and ask again.")
}

/// The answer when the message asks for nothing the planner knows.
pub const HELP: &str = "Hi! I'm the chat-runtime demo agent. I can tell the time (get_browser_time), check the weather in a city (get_weather), calculate an expression (calculate), switch to dark or light mode (set_theme), delete or reset something after asking you (confirm_action) and search the docs (search_docs). Turn tools on and off in the Tools menu and see how my answers change.";

/// The lead-in text of an assistant message that calls tools.
pub const LEAD_IN: &str = "Let me check.";

// ---- follow-up answers ---------------------------------------------------------------------------

fn find_call<'a>(thread: &'a [Value], call_id: &str) -> Option<&'a Value> {
    thread
        .iter()
        .rev()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["toolCalls"].as_array())
        .flatten()
        .find(|c| c["id"] == call_id)
}

fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

fn first_key<'a>(obj: &'a Value, keys: &[&str]) -> Option<&'a Value> {
    keys.iter()
        .filter_map(|k| obj.get(*k))
        .find(|v| !v.is_null())
}

/// The sentence answering one tool result (`None`: no text, e.g. set_theme).
pub fn answer(tool: &str, args: &Value, content: &str, error: Option<&str>) -> Option<String> {
    if let Some(rest) = content.strip_prefix("TOOL ERROR:") {
        let line = rest.lines().nth(1).unwrap_or("").trim();
        return Some(format!("The {tool} tool failed: {line}"));
    }
    if let Some(e) = error {
        return Some(format!("The {tool} tool failed: {e}"));
    }
    let parsed: Option<Value> = serde_json::from_str(content).ok();
    match tool {
        "set_theme" | "search_docs" => None,
        "get_browser_time" => {
            let value = match &parsed {
                Some(o @ Value::Object(_)) => first_key(
                    o,
                    &[
                        "time",
                        "localTime",
                        "local",
                        "now",
                        "iso",
                        "datetime",
                        "value",
                    ],
                )
                .map(scalar_text)
                .unwrap_or_else(|| content.to_string()),
                Some(Value::String(s)) => s.clone(),
                _ => content.trim().to_string(),
            };
            Some(format!("Your browser says it is {value}."))
        }
        "get_weather" => {
            let o = parsed.unwrap_or(Value::Null);
            let city = first_key(&o, &["city", "location", "name"])
                .map(scalar_text)
                .or_else(|| args["city"].as_str().map(str::to_string))
                .unwrap_or_else(|| "Berlin".into());
            let temp = first_key(
                &o,
                &[
                    "temperature",
                    "temp",
                    "temperatureC",
                    "temperature_c",
                    "tempC",
                ],
            )
            .map(scalar_text)
            .unwrap_or_else(|| "?".into());
            let conditions = first_key(
                &o,
                &[
                    "conditions",
                    "condition",
                    "description",
                    "summary",
                    "weather",
                ],
            )
            .map(scalar_text)
            .unwrap_or_else(|| "unknown conditions".into());
            Some(format!("In {city} it is {temp}°C and {conditions}."))
        }
        "calculate" => {
            let expr = args["expression"].as_str().unwrap_or("?");
            let result = match &parsed {
                Some(o @ Value::Object(_)) => first_key(o, &["result", "value", "answer"])
                    .map(scalar_text)
                    .unwrap_or_else(|| content.to_string()),
                Some(v) => scalar_text(v),
                None => content.trim().to_string(),
            };
            Some(format!("{expr} = {result}."))
        }
        "confirm_action" => {
            let action = args["action"].as_str().unwrap_or("that");
            let confirmed = match &parsed {
                Some(o @ Value::Object(_)) => o["confirmed"] == true,
                Some(Value::Bool(b)) => *b,
                _ => false,
            };
            Some(if confirmed {
                format!("Done: {action}.")
            } else {
                format!("OK, I did not {action}.")
            })
        }
        other => Some(format!("The {other} tool returned: {}", content.trim())),
    }
}

// ---- the planner ---------------------------------------------------------------------------------

/// One event of a run; `paced` events wait `--pace-ms` before they are sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Wait the pace before sending.
    pub paced: bool,
    /// The AG-UI event.
    pub event: Value,
}

/// Builds events and the messages they add to the thread.
pub struct Out<'a> {
    /// The events so far.
    pub steps: Vec<Step>,
    ids: &'a Ids,
}

impl<'a> Out<'a> {
    /// An empty run.
    pub fn new(ids: &'a Ids) -> Self {
        Out {
            steps: Vec::new(),
            ids,
        }
    }

    /// Appends an unpaced event.
    pub fn push(&mut self, event: Value) {
        self.steps.push(Step {
            paced: false,
            event,
        });
    }

    fn paced(&mut self, event: Value) {
        self.steps.push(Step { paced: true, event });
    }

    /// Streams `text` into the open message `id`, one word (plus its following space) per event.
    pub fn tokens(&mut self, id: &str, text: &str) {
        for token in tokenize(text) {
            self.paced(json!({ "type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": token }));
        }
    }

    /// A whole assistant text message (START, tokens, END); returns its id.
    pub fn text_message(&mut self, text: &str) -> String {
        let id = self.ids.msg();
        self.push(json!({ "type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant" }));
        self.tokens(&id, text);
        self.push(json!({ "type": "TEXT_MESSAGE_END", "messageId": id }));
        id
    }

    /// TOOL_CALL_START, the arguments in 2-3 deltas, TOOL_CALL_END.
    pub fn tool_call(&mut self, call_id: &str, name: &str, parent: &str, args: &str) {
        self.push(json!({ "type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name, "parentMessageId": parent }));
        for delta in split_args(args) {
            self.paced(json!({ "type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": delta }));
        }
        self.push(json!({ "type": "TOOL_CALL_END", "toolCallId": call_id }));
    }
}

/// Words with their following whitespace: concatenated they give `text` back.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            in_space = true;
        } else if in_space {
            out.push(std::mem::take(&mut cur));
            in_space = false;
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// JSON text in 2 (short) or 3 pieces at char boundaries.
pub fn split_args(args: &str) -> Vec<String> {
    let chars: Vec<char> = args.chars().collect();
    let n = chars.len();
    let parts = if n >= 6 { 3 } else { 2.min(n.max(1)) };
    let mut out = Vec::new();
    for k in 0..parts {
        let a = n * k / parts;
        let b = n * (k + 1) / parts;
        out.push(chars[a..b].iter().collect());
    }
    out
}

/// A tool call's assistant-message entry.
pub fn tool_call_entry(id: &str, name: &str, args: &str) -> Value {
    json!({ "id": id, "type": "function", "function": { "name": name, "arguments": args } })
}

/// The run's RUN_FINISHED (`pendingToolCallIds` only when some are pending).
pub fn run_finished(input: &RunInput, pending: &[String]) -> Value {
    let mut outcome = json!({ "type": "success" });
    if !pending.is_empty() {
        outcome["pendingToolCallIds"] = json!(pending);
    }
    json!({ "type": "RUN_FINISHED", "threadId": input.thread_id, "runId": input.run_id, "outcome": outcome })
}

/// The run's RUN_STARTED.
pub fn run_started(input: &RunInput) -> Value {
    json!({ "type": "RUN_STARTED", "threadId": input.thread_id, "runId": input.run_id })
}

fn assistant(id: &str, content: Option<&str>, calls: Vec<Value>) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), json!(id));
    m.insert("role".into(), json!("assistant"));
    if let Some(c) = content {
        m.insert("content".into(), json!(c));
    }
    if !calls.is_empty() {
        m.insert("toolCalls".into(), Value::Array(calls));
    }
    Value::Object(m)
}

// ---- the interrupt mode --------------------------------------------------------------------------

/// The `responseSchema` of the demo's approval interrupts.
fn approval_schema() -> Value {
    json!({ "type": "object", "properties": { "approved": { "type": "boolean" } }, "required": ["approved"] })
}

/// The run's RUN_FINISHED with an interrupt outcome that asks the user to approve each call.
fn run_interrupted(input: &RunInput, calls: &[(String, String)]) -> Value {
    let interrupts: Vec<Value> = calls
        .iter()
        .map(|(call_id, action)| {
            json!({
                "id": format!("int-{call_id}"),
                "reason": "tool_call",
                "message": format!("Approve: {action}?"),
                "toolCallId": call_id,
                "responseSchema": approval_schema(),
            })
        })
        .collect();
    json!({ "type": "RUN_FINISHED", "threadId": input.thread_id, "runId": input.run_id,
            "outcome": { "type": "interrupt", "interrupts": interrupts } })
}

/// Interrupt mode, a run that resumes: each `resume` entry settles the `confirm_action` call its
/// interrupt named (`int-<callId>`) with `{"confirmed": approved}` (a `TOOL_CALL_RESULT` from the
/// agent, which owns the call) and the agent says what it did. `None` when the run resumes nothing.
fn plan_resume(thread: &mut Vec<Value>, input: &RunInput, out: &mut Out<'_>) -> Option<()> {
    let mut sentences = Vec::new();
    for entry in &input.resume {
        let Some(call_id) = entry["interruptId"]
            .as_str()
            .and_then(|id| id.strip_prefix("int-"))
        else {
            continue;
        };
        let Some(call) = find_call(thread, call_id).cloned() else {
            continue;
        };
        let approved = entry["status"] == "resolved" && entry["payload"]["approved"] == true;
        let content = json!({ "confirmed": approved }).to_string();
        let msg_id = out.ids.msg();
        out.push(json!({ "type": "TOOL_CALL_RESULT", "messageId": msg_id, "toolCallId": call_id, "content": content, "role": "tool" }));
        thread.push(
            json!({ "id": msg_id, "role": "tool", "toolCallId": call_id, "content": content }),
        );
        let args = call["function"]["arguments"]
            .as_str()
            .and_then(|a| serde_json::from_str(a).ok())
            .unwrap_or_else(|| json!({}));
        sentences.extend(answer("confirm_action", &args, &content, None));
    }
    if sentences.is_empty() {
        return None;
    }
    let text = sentences.join(" ");
    let id = out.text_message(&text);
    thread.push(assistant(&id, Some(&text), vec![]));
    out.push(run_finished(input, &[]));
    Some(())
}

/// Plans one run over the (already merged) `thread`; appends what the run says to it.
///
/// In the interrupt mode (the request's `forwardedProps.approvals` is `"interrupt"`), a request to
/// delete, confirm or reset is the agent's own `confirm_action` call (offered or not): the run ends
/// with the AG-UI 1.0 interrupt outcome naming it, and the next run's `resume` answers it
/// ([`plan_resume`]).
pub fn plan(thread: &mut Vec<Value>, input: &RunInput, ids: &Ids) -> Vec<Step> {
    let mut out = Out::new(ids);
    out.push(run_started(input));
    if input.interrupts && plan_resume(thread, input, &mut out).is_some() {
        return out.steps;
    }
    let trailing_tools: Vec<Value> = thread
        .iter()
        .rev()
        .take_while(|m| m["role"] == "tool")
        .cloned()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    if !trailing_tools.is_empty() {
        // A run that follows tool results: answer from them.
        let sentences: Vec<String> = trailing_tools
            .iter()
            .filter_map(|m| {
                let call_id = m["toolCallId"].as_str().unwrap_or("");
                let call = find_call(thread, call_id);
                let name = call
                    .and_then(|c| c["function"]["name"].as_str())
                    .unwrap_or("unknown");
                let args = call
                    .and_then(|c| c["function"]["arguments"].as_str())
                    .and_then(|a| serde_json::from_str(a).ok())
                    .unwrap_or_else(|| json!({}));
                answer(name, &args, &text_of(&m["content"]), m["error"].as_str())
            })
            .collect();
        if !sentences.is_empty() {
            let text = sentences.join(" ");
            let id = out.text_message(&text);
            thread.push(assistant(&id, Some(&text), vec![]));
        }
        out.push(run_finished(input, &[]));
        return out.steps;
    }

    let latest = thread
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| text_of(&m["content"]))
        .unwrap_or_default();
    let wanted = intents(&latest);
    if wanted.is_empty() {
        let id = out.text_message(HELP);
        thread.push(assistant(&id, Some(HELP), vec![]));
        out.push(run_finished(input, &[]));
        return out.steps;
    }
    let mut missing = Vec::new();
    let mut calls: Vec<(String, Intent)> = Vec::new();
    for intent in wanted {
        let servers = matches!(intent, Intent::Docs(_))
            || (input.interrupts && matches!(intent, Intent::Confirm(_)));
        if servers || input.offers(intent.tool()) {
            calls.push((ids.call(), intent));
        } else {
            missing.push(turned_off(intent.tool()));
        }
    }
    if calls.is_empty() {
        let text = missing.join(" ");
        let id = out.text_message(&text);
        thread.push(assistant(&id, Some(&text), vec![]));
        out.push(run_finished(input, &[]));
        return out.steps;
    }
    // One assistant message: lead-in text (the turned-off sentences first), then every call.
    missing.push(LEAD_IN.to_string());
    let lead = missing.join(" ");
    let parent = out.text_message(&lead);
    let mut entries = Vec::new();
    for (call_id, intent) in &calls {
        let args = intent.args().to_string();
        out.tool_call(call_id, intent.tool(), &parent, &args);
        entries.push(tool_call_entry(call_id, intent.tool(), &args));
    }
    thread.push(assistant(&parent, Some(&lead), entries));
    // Backend results, then the text the run can already say.
    let mut after = Vec::new();
    let mut pending = Vec::new();
    let mut approvals = Vec::new();
    for (call_id, intent) in &calls {
        match intent {
            Intent::Confirm(action) if input.interrupts => {
                approvals.push((call_id.clone(), action.clone()))
            }
            Intent::Docs(query) => {
                let hits = search_docs(query);
                let content = search_docs_content(&hits);
                let msg_id = ids.msg();
                out.push(json!({ "type": "TOOL_CALL_RESULT", "messageId": msg_id, "toolCallId": call_id, "content": content, "role": "tool" }));
                thread.push(json!({ "id": msg_id, "role": "tool", "toolCallId": call_id, "content": content }));
                after.push(if hits.is_empty() {
                    "I found nothing in the docs about that.".to_string()
                } else {
                    let paras: Vec<&str> = hits.iter().map(|(_, p)| *p).collect();
                    format!("From the docs: {}", paras.join(" "))
                });
            }
            Intent::Theme(theme) => after.push(format!("Switched to the {theme} theme.")),
            _ => pending.push(call_id.clone()),
        }
    }
    if !after.is_empty() {
        let text = after.join(" ");
        let id = out.text_message(&text);
        thread.push(assistant(&id, Some(&text), vec![]));
    }
    if approvals.is_empty() {
        out.push(run_finished(input, &pending));
    } else {
        // An interrupted run hands the browser no call: the runtime settles any other call of
        // this run itself; the approvals wait for the next run's `resume`.
        out.push(run_interrupted(input, &approvals));
    }
    out.steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intents_in_message_order() {
        assert_eq!(
            intents("What time is it and what's the weather in New York?"),
            vec![Intent::Time, Intent::Weather("New York".into())]
        );
        assert_eq!(
            intents("weather please"),
            vec![Intent::Weather("Berlin".into())]
        );
        assert_eq!(
            intents("calculate 12 * (3 + 4)?"),
            vec![Intent::Calculate("12 * (3 + 4)".into())]
        );
        assert_eq!(
            intents("What is 2^10 - 1?"),
            vec![Intent::Calculate("2^10 - 1".into())]
        );
        assert_eq!(intents("what is love"), vec![]);
        assert_eq!(intents("sometimes"), vec![]);
        assert_eq!(
            intents("Switch to light mode please"),
            vec![Intent::Theme("light")]
        );
        assert_eq!(
            intents("Please delete all my notes."),
            vec![Intent::Confirm("delete all my notes".into())]
        );
        assert_eq!(
            intents("Reset the counter, please!"),
            vec![Intent::Confirm("Reset the counter".into())]
        );
        assert_eq!(
            intents("How do I add a tool?"),
            vec![Intent::Docs("How do I add a tool".into())]
        );
    }

    #[test]
    fn interrupt_mode_asks_through_an_interrupt_and_resume_answers_it() {
        let ids = Ids::default();
        let body = |extra: &str| {
            format!(
                r#"{{"threadId":"t","runId":"r","messages":[{{"id":"u1","role":"user","content":"Delete my notes"}}],"forwardedProps":{{"approvals":"interrupt"}}{extra}}}"#
            )
        };
        let input = validate(body("").as_bytes()).unwrap();
        assert!(input.interrupts);
        let mut thread = input.messages.clone();
        let steps = plan(&mut thread, &input, &ids);
        let last = &steps.last().unwrap().event;
        assert_eq!(last["outcome"]["type"], "interrupt");
        let interrupt = &last["outcome"]["interrupts"][0];
        let call_id = interrupt["toolCallId"].as_str().unwrap().to_owned();
        assert_eq!(interrupt["id"], format!("int-{call_id}"));
        assert_eq!(interrupt["responseSchema"], approval_schema());
        assert!(find_call(&thread, &call_id).is_some());
        assert!(!thread.iter().any(|m| m["role"] == "tool"));

        for (payload, says) in [
            ("true", "Done: Delete my notes."),
            ("false", "OK, I did not Delete my notes."),
        ] {
            let mut thread = thread.clone();
            let resume = format!(
                r#","resume":[{{"interruptId":"int-{call_id}","status":"resolved","payload":{{"approved":{payload}}}}}]"#
            );
            let input = validate(body(&resume).as_bytes()).unwrap();
            let steps = plan(&mut thread, &input, &ids);
            let result = steps
                .iter()
                .find(|s| s.event["type"] == "TOOL_CALL_RESULT")
                .unwrap();
            assert_eq!(result.event["toolCallId"], call_id.as_str());
            assert_eq!(
                result.event["content"],
                format!(r#"{{"confirmed":{payload}}}"#)
            );
            assert_eq!(thread.last().unwrap()["content"], says);
            assert_eq!(steps.last().unwrap().event["outcome"]["type"], "success");
        }
        // Without the switch: the frontend tool, as before.
        let input = validate(br#"{"threadId":"t","runId":"r","messages":[{"id":"u1","role":"user","content":"Delete my notes"}],"tools":[{"name":"confirm_action"}]}"#).unwrap();
        let mut thread = input.messages.clone();
        let steps = plan(&mut thread, &input, &ids);
        assert_eq!(steps.last().unwrap().event["outcome"]["type"], "success");
        assert_eq!(
            steps.last().unwrap().event["outcome"]["pendingToolCallIds"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn tokens_and_args_split() {
        assert_eq!(tokenize("Hi there,  you."), ["Hi ", "there,  ", "you."]);
        assert_eq!(split_args("{}"), ["{", "}"]);
        assert_eq!(split_args(r#"{"a":1}"#).len(), 3);
        assert_eq!(split_args(r#"{"a":1}"#).concat(), r#"{"a":1}"#);
    }

    #[test]
    fn docs_search_finds_toggles() {
        let hits = search_docs("how do the tool toggles work?");
        assert_eq!(hits[0].0, "Tool toggles");
        assert!(hits.len() <= 2);
        assert!(search_docs("zebra").is_empty());
    }

    #[test]
    fn validation_lists_problems() {
        let e = validate(br#"{"threadId":1,"messages":[{"role":"bot"}]}"#).unwrap_err();
        let locs: Vec<String> = e.iter().map(|p| p["loc"].to_string()).collect();
        assert!(
            locs.contains(&r#"["body","threadId"]"#.to_string()),
            "{locs:?}"
        );
        assert!(
            !locs.contains(&r#"["body","runId"]"#.to_string()),
            "runId is optional"
        );
        assert!(locs.contains(&r#"["body","messages",0,"role"]"#.to_string()));
        let e = validate(br#"{"threadId":"t","runId":5,"messages":[]}"#).unwrap_err();
        assert_eq!(e[0]["loc"], json!(["body", "runId"]));
        assert!(validate(b"nope").is_err());
        assert!(validate(br#"{"threadId":"t","runId":"r","messages":[]}"#).is_ok());
        assert_eq!(
            validate(br#"{"threadId":"t","messages":[]}"#)
                .unwrap()
                .run_id,
            ""
        );
    }
}
