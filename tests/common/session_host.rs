//! The one session test host: drives a `chat_runtime::session::Session` as the browser driver
//! does and records every action it asks for. Used by tests/session.rs, tests/interrupts.rs and
//! the fuzz target fuzz/fuzz_targets/session.rs (which includes this file by path), so it
//! depends only on `chat_runtime` and `serde_json`, not on the rest of tests/common.
//!
//! The step methods (`open`, `feed`, `end`, `fail`, `respond`, ...) act on the thread's latest
//! round (the run id of its last `Send`) and pump the actions afterwards. A host that checks
//! each action as it comes (the fuzz target) calls `pump_with` and the `Session` methods itself.

use chat_runtime::protocol::event::{Content, Message, Tool, UserMessage};
#[cfg(feature = "coder")]
use chat_runtime::session::coder::CoderAction;
use chat_runtime::session::{
    Action, CallKind, RoundRequest, RunRequest, RunResult, RuntimeEvent, Session, SessionConfig,
    SessionError, ToolCallJob, ToolSet,
};
use chat_runtime::tools::outcome::ToolOutcome;
use chat_runtime::tools::schema::NoPatterns;
use chat_runtime::tools::{FrontendTool, TimeLimit, ToolHandler};
use serde_json::{json, Value};

/// The content type `respond` answers with.
pub const EVENT_STREAM: &str = "text/event-stream; charset=utf-8";

/// Drives a session and records everything it asked for.
pub struct Harness {
    pub session: Session,
    /// `(thread, run, body)` of every [`Action::Send`].
    pub sent: Vec<(String, String, Value)>,
    pub urls: Vec<String>,
    pub headers: Vec<Vec<(String, String)>>,
    pub jobs: Vec<ToolCallJob>,
    pub events: Vec<RuntimeEvent>,
    pub results: Vec<RunResult>,
    /// The thread of every [`Action::Cancel`].
    pub cancels: Vec<String>,
    /// `(thread, call)` of every [`Action::CancelCall`].
    pub call_cancels: Vec<(String, String)>,
    /// `(thread, run, Last-Event-ID, delay)` of every [`Action::Reconnect`].
    pub reconnects: Vec<(String, String, String, u64)>,
    /// The request each [`Action::Reconnect`] sends again.
    pub resent: Vec<RoundRequest>,
    /// The tools `try_start` starts a run with.
    pub tools: ToolSet,
    /// The host's clock, in ms.
    pub now: u64,
    /// Whether `pump` waits out a cut stream's reconnect delay as a host's timer would (the
    /// clock jumps to the session's deadline, then `handle_timeout`); `false` leaves the wait
    /// to the test.
    pub auto_wait: bool,
    /// The wait the last jump made, recorded with the `Reconnect` it let out.
    waited: u64,
    /// Every [`CoderAction::ChatRequest`] (Coder), in order.
    pub chat_requests: Vec<ChatRequest>,
    /// `(thread, stream, url)` of every [`CoderAction::OpenStream`] (Coder).
    pub streams: Vec<(String, u64, String)>,
    /// The thread of every [`CoderAction::CloseStream`] (Coder).
    pub closed_streams: Vec<String>,
    /// `(provisional, chat id)` of every [`CoderAction::ThreadCreated`] (Coder).
    pub created: Vec<(String, String)>,
}

/// A Coder `POST` the session asked for.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    pub thread_id: String,
    pub request_id: u64,
    /// `POST` or `GET`.
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    /// The body, parsed (`Null`: none).
    pub body: Value,
}

/// A host on the default config.
pub fn harness() -> Harness {
    Harness::new(SessionConfig::default())
}

impl Harness {
    pub fn new(config: SessionConfig) -> Self {
        Self {
            session: Session::new(config, "x", Box::new(NoPatterns)),
            sent: Vec::new(),
            urls: Vec::new(),
            headers: Vec::new(),
            jobs: Vec::new(),
            events: Vec::new(),
            results: Vec::new(),
            cancels: Vec::new(),
            call_cancels: Vec::new(),
            reconnects: Vec::new(),
            resent: Vec::new(),
            tools: ToolSet::default(),
            now: 1_000,
            auto_wait: true,
            waited: 0,
            chat_requests: Vec::new(),
            streams: Vec::new(),
            closed_streams: Vec::new(),
            created: Vec::new(),
        }
    }

    /// Takes every queued action and records it.
    pub fn pump(&mut self) {
        self.pump_with(|_, _| {});
    }

    /// [`pump`](Self::pump), showing each action to `check` first, with the session as it is
    /// when the action is taken.
    pub fn pump_with(&mut self, mut check: impl FnMut(&Session, &Action)) {
        loop {
            while let Some(action) = self.session.poll_action(self.now) {
                check(&self.session, &action);
                self.record(action);
            }
            // A cut stream waits for its deadline: the host's timer fires then.
            let Some(deadline) = self.auto_wait.then(|| self.reconnect_deadline()).flatten() else {
                return;
            };
            self.waited = deadline.saturating_sub(self.now);
            self.now = self.now.max(deadline);
            self.session.handle_timeout(self.now);
        }
    }

    /// The earliest reconnect deadline of the threads this host sent runs for or opened
    /// streams of.
    pub fn reconnect_deadline(&self) -> Option<u64> {
        let threads = self.sent.iter().map(|(thread, _, _)| thread);
        threads
            .chain(self.streams.iter().map(|(thread, _, _)| thread))
            .filter_map(|thread| self.session.reconnect_deadline(thread))
            .min()
    }

    /// The messages of a finished run: the thread's first `message_count`.
    pub fn result_messages(&self, result: &RunResult) -> Vec<Message> {
        self.session.messages(&result.thread_id)[..result.message_count].to_vec()
    }

    /// `run()`'s value as JSON, as the host writes it.
    pub fn result_json(&self, result: &RunResult) -> Value {
        let mut text = String::new();
        result.write_json(
            &mut text,
            self.session.messages(&result.thread_id),
            true,
            true,
        );
        serde_json::from_str(&text).unwrap()
    }

    fn record(&mut self, action: Action) {
        match action {
            Action::Send {
                thread_id,
                run_id,
                url,
                headers,
                body,
                ..
            } => {
                let body = body.text().expect("the default sink's body is text");
                let body = serde_json::from_str(body)
                    .unwrap_or_else(|e| panic!("the session sent invalid JSON ({e}): {body}"));
                self.urls.push(url);
                self.headers.push(headers);
                self.sent.push((thread_id, run_id, body));
            }
            Action::Execute(job) => self.jobs.push(job),
            Action::Cancel { thread_id } => self.cancels.push(thread_id),
            Action::CancelCall {
                thread_id,
                tool_call_id,
            } => self.call_cancels.push((thread_id, tool_call_id)),
            Action::Emit(event) => self.events.push(event),
            Action::Finished(result) => self.results.push(*result),
            Action::Reconnect {
                thread_id,
                run_id,
                request,
                last_event_id,
            } => {
                self.resent.push(request);
                let waited = std::mem::take(&mut self.waited);
                self.reconnects
                    .push((thread_id, run_id, last_event_id, waited));
            }
            #[cfg(feature = "coder")]
            Action::Coder(CoderAction::ChatRequest {
                thread_id,
                request_id,
                method,
                url,
                headers,
                body,
            }) => self.chat_requests.push(ChatRequest {
                thread_id,
                request_id,
                method,
                url,
                headers,
                body: body.map_or(Value::Null, |b| serde_json::from_str(&b).unwrap()),
            }),
            #[cfg(feature = "coder")]
            Action::Coder(CoderAction::OpenStream {
                thread_id,
                stream_id,
                url,
            }) => self.streams.push((thread_id, stream_id, url)),
            #[cfg(feature = "coder")]
            Action::Coder(CoderAction::CloseStream { thread_id, .. }) => {
                self.closed_streams.push(thread_id)
            }
            #[cfg(feature = "coder")]
            Action::Coder(CoderAction::ThreadCreated {
                provisional,
                thread_id,
            }) => self.created.push((provisional, thread_id)),
            other => panic!("unexpected action {other:?}"),
        }
    }

    /// Moves the clock on by `ms` and tells the session.
    pub fn advance(&mut self, ms: u64) {
        self.now += ms;
        self.session.handle_timeout(self.now);
        self.pump();
    }

    /// Starts a run with `tools`; panics if the session refuses it.
    pub fn start(&mut self, request: RunRequest, tools: ToolSet) {
        self.session.start_run(request, tools).unwrap();
        self.pump();
    }

    /// Starts a run with [`tools`](Self::tools); the session's refusal is returned.
    pub fn try_start(&mut self, request: RunRequest) -> Result<(), SessionError> {
        let started = self.session.start_run(request, self.tools.clone());
        self.pump();
        started
    }

    /// The run id of the thread's latest round, if one was sent.
    pub fn latest_run(&self, thread: &str) -> Option<String> {
        self.sent
            .iter()
            .rev()
            .find(|(t, _, _)| t == thread)
            .map(|(_, run, _)| run.clone())
    }

    /// The run id of the thread's latest round.
    pub fn last_run(&self, thread: &str) -> String {
        self.latest_run(thread).expect("a request was sent")
    }

    /// The latest round's response arrives: `status`, `content_type` and, for an error, an
    /// excerpt of its body.
    pub fn open_with(
        &mut self,
        thread: &str,
        status: u16,
        content_type: Option<&str>,
        body: Option<&str>,
    ) {
        let run = self.last_run(thread);
        self.session
            .handle_response(thread, &run, status, content_type, body);
        self.pump();
    }

    /// The latest round's response arrives: 200, `text/event-stream`.
    pub fn open(&mut self, thread: &str) {
        self.open_with(thread, 200, Some("text/event-stream"), None);
    }

    /// Bytes of the latest round's body arrive.
    pub fn feed(&mut self, thread: &str, bytes: impl AsRef<[u8]>) {
        let run = self.last_run(thread);
        self.session.handle_bytes(thread, &run, bytes.as_ref());
        self.pump();
    }

    /// The latest round's body ends.
    pub fn end(&mut self, thread: &str) {
        let run = self.last_run(thread);
        self.session.handle_body_end(thread, &run);
        self.pump();
    }

    /// The latest round's connection fails with `message` (and the status fetch threw with).
    pub fn fail(&mut self, thread: &str, message: &str, status: Option<u16>) {
        let run = self.last_run(thread);
        self.session
            .handle_transport_error(thread, &run, message, status);
        self.pump();
    }

    /// The latest round is answered 200 with `body`, which streams in and ends.
    pub fn respond(&mut self, thread: &str, body: impl AsRef<[u8]>) {
        self.open_with(thread, 200, Some(EVENT_STREAM), None);
        self.feed(thread, body);
        self.end(thread);
    }

    /// A tool call's outcome comes back from the host.
    pub fn answer(&mut self, thread: &str, call: &str, outcome: ToolOutcome) {
        self.session.handle_tool_result(thread, call, outcome);
        self.pump();
    }

    /// The last turn's result.
    pub fn result(&self) -> &RunResult {
        self.results.last().expect("the turn finished")
    }

    /// The body of the `n`th request sent.
    pub fn body(&self, n: usize) -> &Value {
        &self.sent[n].2
    }

    /// The `messages` of the `n`th request sent.
    pub fn messages_sent(&self, n: usize) -> &Vec<Value> {
        self.body(n)["messages"]
            .as_array()
            .expect("a request's messages are an array")
    }

    /// The `role: "tool"` messages of the `n`th request sent.
    pub fn tools_sent(&self, n: usize) -> Vec<Value> {
        self.messages_sent(n)
            .iter()
            .filter(|m| m["role"] == "tool")
            .cloned()
            .collect()
    }

    /// The roles of the `messages` of the `n`th request sent.
    pub fn roles_sent(&self, n: usize) -> Vec<String> {
        self.messages_sent(n)
            .iter()
            .map(|m| m["role"].as_str().expect("a message has a role").to_owned())
            .collect()
    }
}

// ---- what the tests feed the host -------------------------------------------------------------

/// A user message.
pub fn user(id: &str, text: &str) -> Message {
    Message::User(UserMessage {
        id: id.to_owned(),
        content: Content::Text(text.to_owned()),
        rare: None,
    })
}

/// A browser tool `name` with `parameters`, loaded from `http://127.0.0.1/tools/{name}.js`.
pub fn tool(name: &str, parameters: Value) -> FrontendTool {
    FrontendTool {
        name: name.to_owned(),
        description: format!("the {name} tool"),
        parameters: chat_runtime::json::Value::parse(&parameters.to_string())
            .expect("serde_json writes valid JSON"),
        handler: ToolHandler::Module {
            url: format!("http://127.0.0.1/tools/{name}.js"),
            entrypoint: "run".to_owned(),
        },
        follow_up: true,
        time_limit: TimeLimit::Default,
        default_enabled: false,
    }
}

/// The tools of a run: `enabled` (offered), `disabled` and `backend` (known, not offered).
pub fn tool_set(enabled: &[FrontendTool], disabled: &[&str], backend: &[&str]) -> ToolSet {
    let mut set = ToolSet::default();
    for t in enabled {
        set.wire.push(Tool {
            name: t.name.clone(),
            description: t.description.clone(),
            parameters: Some(t.parameters.clone()),
            metadata: None,
        });
        set.calls
            .insert(t.name.clone(), CallKind::Enabled(t.clone()));
    }
    for name in disabled {
        set.calls.insert((*name).to_owned(), CallKind::Disabled);
    }
    for name in backend {
        set.calls.insert((*name).to_owned(), CallKind::Backend);
    }
    set
}

/// SSE body from JSON event lines.
pub fn sse(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

pub fn started(run: &str) -> Value {
    json!({"type":"RUN_STARTED","threadId":"t","runId":run})
}

pub fn finished(run: &str) -> Value {
    json!({"type":"RUN_FINISHED","threadId":"t","runId":run})
}

/// A tool call `id` of `name` with `args`, on assistant message `parent`.
pub fn call(id: &str, name: &str, args: &str, parent: &str) -> Vec<Value> {
    vec![
        json!({"type":"TOOL_CALL_START","toolCallId":id,"toolCallName":name,"parentMessageId":parent}),
        json!({"type":"TOOL_CALL_ARGS","toolCallId":id,"delta":args}),
        json!({"type":"TOOL_CALL_END","toolCallId":id}),
    ]
}

/// An assistant message `id` saying `words`.
pub fn text(id: &str, words: &str) -> Vec<Value> {
    vec![
        json!({"type":"TEXT_MESSAGE_START","messageId":id,"role":"assistant"}),
        json!({"type":"TEXT_MESSAGE_CONTENT","messageId":id,"delta":words}),
        json!({"type":"TEXT_MESSAGE_END","messageId":id}),
    ]
}

/// Run `r` with `body` between its start and its end, as SSE.
pub fn run_with(body: Vec<Vec<Value>>) -> String {
    let mut events = vec![started("r")];
    events.extend(body.into_iter().flatten());
    events.push(finished("r"));
    sse(&events)
}
