//! Coder chats: the execute-and-submit loop, on the same turns, calls, results and listeners as
//! AG-UI's execute-and-restart (docs/architecture.md, "Two backends, one loop").
//!
//! A turn of a Coder chat differs from an AG-UI run in three places, and only there:
//! - **what starts it**: a `POST` that creates the chat (no thread id yet: the turn runs under a
//!   provisional id until [`Action::ThreadCreated`]) or posts the user's message, after the
//!   chat's stream is open;
//! - **what it reads**: the chat's WebSocket ([`Action::OpenStream`]), translated by
//!   [`CoderThread`] into the AG-UI events the thread reducer folds, whole committed histories,
//!   the calls to run and the end of the turn;
//! - **how results go back**: one `POST .../tool-results` per `action_required` batch
//!   ([`results_body`], [`Submission`]), where AG-UI restarts the run. The turn goes on on the
//!   same stream.
//!
//! The calls themselves are dispatched, validated, timed out, removed and reported exactly as for
//! AG-UI ([`Session::dispatch`], [`Session::handle_tool_result`]).
//!
//! A turn on a chat this page already streamed resumes the stream after the last committed
//! message; on any other (a reload) it reads the whole history. Either way the message is posted
//! only once the stream's snapshot says the chat is idle: a chat found waiting on calls
//! (`requires_action`) first has them run or settled, as the `pending` option says.

use crate::session::action::Action;
use crate::session::config::{CoderConfig, Pending, RunRequest};
use crate::session::error::SessionError;
use crate::session::events::RuntimeEvent;
use crate::session::result::{RunError, RunStatus};
use crate::session::stream::note_applied;
use crate::session::tool_set::ToolSet;
use crate::session::turn::message_ids;
use crate::session::{ReconnectWait, RoundPhase, Session, ThreadState, Turn};

use crate::coder::submit::results_body;
use crate::coder::wire::{
    input_texts, post_message_body, ApiError, ChatError, CreateChat, DynamicTool,
};
use crate::coder::{
    decode_frame, ChatStatus, CoderThread, Routes, Submission, SubmitReply, SubmitStep, TurnEnd,
    Update,
};
use crate::json::Value as JsonValue;
use crate::json::{Map, Value};
use crate::lean::sorted::SortedMap;
use crate::lean::text::{concat, decimal};
use crate::protocol::event::{Content, Message, Tool};
use crate::protocol::thread::PendingCall;
use crate::tools::outcome::{Interruption, ToolFailure, ToolOutcome};

/// What a thread keeps of its Coder chat across turns.
#[derive(Default)]
pub(super) struct ChatState {
    /// The stream, translated: the committed history, the calls handed out, the last id.
    coder: CoderThread,
    /// The requests out, by id, and what each is.
    requests: Vec<(u64, Request)>,
    /// The stream open, if any.
    stream: Option<u64>,
}

/// What a [`Action::ChatRequest`] was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Request {
    /// `POST /chats`.
    Create,
    /// `POST /chats` of a turn stopped before it was answered: the chat is interrupted.
    CreateStopped,
    /// `POST .../messages`.
    Message,
    /// `POST .../tool-results`.
    Results,
    /// `POST .../interrupt` (the first of a Stop: a chat it finds in `requires_action` goes on
    /// `running`, and is interrupted once more).
    Interrupt,
    /// The second interrupt of a Stop.
    InterruptAgain,
}

/// A Coder turn's round: where the turn is, and the batch being answered.
pub(super) struct ChatRound {
    step: Step,
    /// What the turn does with calls a chat found in `requires_action` owes (before its message).
    pending: Pending,
    /// The calls of the batch being answered that this turn dispatched, in call order, and
    /// their outcomes once known (what AG-UI's answering phase holds).
    pub(super) answers: Vec<(PendingCall, Option<ToolOutcome>)>,
    /// Every outcome this turn produced, by call id: a batch taken afresh (a refused submission)
    /// reuses them rather than run a call twice.
    outcomes: Vec<(String, ToolOutcome)>,
    /// The submission out, if any.
    submission: Option<(u64, Submission)>,
    /// The stream's ends in a row without a frame between them.
    reconnects: u32,
    /// The turn's own messages (the user's), shown after the committed history until it holds
    /// the message posted: a history replaced meanwhile would otherwise hide them.
    local: Vec<Message>,
    /// The last committed message id when the message was posted: a user message after it is
    /// the one posted.
    posted_after: Option<i64>,
}

/// Where a Coder turn is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// `POST /chats` is out.
    Creating,
    /// The stream is opening: the message (this body) goes out once it says the chat is idle.
    Waiting(String),
    /// The message went out (or the chat was created with it): the turn ends with the chat's.
    Live,
}

impl Session {
    /// Starts a Coder chat's turn: `request.thread_id` empty, or [`RunRequest::new_chat`],
    /// creates a chat (with `declared`, every frontend tool in its wire form, as its dynamic
    /// tools: a chat's tools are fixed when it is created) and the turn runs under a provisional
    /// id (the request's, else one of the session's) until [`Action::ThreadCreated`]; otherwise
    /// the message is posted to that chat, once its stream says it is idle. Returns the id the
    /// turn runs under.
    ///
    /// The request's messages are the user's message: their text is what is posted. `context`,
    /// `state`, `forwardedProps` and `resume` are AG-UI's: a request with one is refused
    /// ([`SessionError::NotForBackend`]).
    pub fn start_chat(
        &mut self,
        request: RunRequest,
        tools: ToolSet,
        declared: Vec<Tool>,
    ) -> Result<String, SessionError> {
        let Some(coder) = self.config.coder.clone() else {
            // An AG-UI session's turns start with `start_run`.
            return Err(SessionError::NotForBackend {
                member: "backend",
                backend: "agui",
            });
        };
        let unsent = [
            ("context", !request.context.is_empty()),
            ("state", request.state.is_some()),
            ("forwardedProps", request.forwarded_props.is_some()),
            ("resume", !request.resume.is_empty()),
        ];
        if let Some((member, _)) = unsent.iter().find(|(_, given)| *given) {
            return Err(SessionError::NotForBackend {
                member,
                backend: "coder",
            });
        }
        let new_chat = request.thread_id.is_empty() || request.new_chat;
        let thread_id = if request.thread_id.is_empty() {
            self.next_id("chat")
        } else {
            crate::thread_id::check(&request.thread_id).map_err(SessionError::BadThreadId)?;
            request.thread_id.clone()
        };
        // A chat takes the user's text: anything else would be shown here and never sent.
        for (index, message) in request.messages.iter().enumerate() {
            let message = match message {
                Message::User(user) => match &user.content {
                    Content::Parts(parts)
                        if parts
                            .iter()
                            .any(|p| p.get("type").and_then(JsonValue::as_str) != Some("text")) =>
                    {
                        "a Coder chat takes text parts only"
                    }
                    _ => continue,
                },
                _ => "a Coder chat's run takes the user's messages only",
            };
            let known = self
                .threads
                .get(&thread_id)
                .is_some_and(|t| t.thread.position(request.messages[index].id()).is_some());
            if !known {
                return Err(SessionError::NotForChat { index, message });
            }
        }
        let state = self
            .threads
            .get_or_insert_with(&thread_id, ThreadState::default);
        if state.turn.is_some() {
            return Err(SessionError::Busy { thread_id });
        }
        let before = message_ids(state.thread.messages());
        let mut local = request.messages;
        local.retain(|m| !before.contains(m.id()));
        for message in &local {
            // A new chat's messages show under its id, once it has one.
            if !new_chat {
                state.changes.ids.push(message.id().to_owned());
            }
            state.thread.push_message(message.clone());
        }
        // The text posted: borrowed from the turn's own messages, which it keeps.
        let mut texts: Vec<&str> = Vec::new();
        for message in &local {
            if let Message::User(user) = message {
                texts.extend(input_texts(&user.content));
            }
        }
        let run_id = self.next_id("run");
        let (step, body) = if new_chat {
            let tools: Vec<DynamicTool> = declared.into_iter().map(dynamic_tool).collect();
            let body = CreateChat {
                organization_id: &coder.organization_id,
                content: texts,
                tools: &tools,
                ..CreateChat::default()
            }
            .body();
            (Step::Creating, body)
        } else {
            (
                Step::Waiting(post_message_body(&texts, None, None)),
                String::new(),
            )
        };
        let state = self
            .threads
            .get_or_insert_with(&thread_id, ThreadState::default);
        state.turn = Some(Turn {
            tools,
            context: Vec::new(),
            forwarded_props: None,
            before,
            held_before: Vec::new(),
            round: 1,
            run_id: run_id.clone(),
            phase: RoundPhase::Chat(Box::new(ChatRound {
                step,
                pending: request.pending,
                answers: Vec::new(),
                outcomes: Vec::new(),
                submission: None,
                reconnects: 0,
                local,
                posted_after: None,
            })),
            reconnects: 0,
            resumed_from: None,
            running: SortedMap::new(),
            resume: Vec::new(),
            outgoing: crate::session::Outgoing::NotYet,
            reconnect: None,
        });
        let chat = state.chat.get_or_insert_with(Box::default);
        if new_chat {
            chat.coder.begin_turn();
        }
        self.actions
            .push_back(Action::Emit(RuntimeEvent::RoundStarted {
                thread_id: thread_id.clone(),
                run_id,
                round: 1,
            }));
        if new_chat {
            let url = routes(&coder).create();
            self.chat_request(&thread_id, Request::Create, url, Some(body));
        } else {
            self.open_stream(&thread_id);
        }
        Ok(thread_id)
    }

    /// The answer to an [`Action::ChatRequest`]. An answer for a request the session does not
    /// know (of a thread forgotten since) is ignored.
    pub fn handle_chat_reply(&mut self, thread_id: &str, request_id: u64, reply: SubmitReply) {
        let Some(chat) = self.chat_mut(thread_id) else {
            return;
        };
        let Some(at) = chat.requests.iter().position(|(id, _)| *id == request_id) else {
            return;
        };
        let (_, kind) = chat.requests.remove(at);
        let (status, body) = match &reply {
            SubmitReply::Http(status, body) => (Some(*status), body.as_str()),
            SubmitReply::Network => (None, ""),
        };
        let ok = status.is_some_and(crate::http::is_success);
        match kind {
            Request::Create if ok => self.chat_created(thread_id, body),
            Request::CreateStopped if ok => {
                // The run was stopped while the chat was being created: it is interrupted, and
                // nothing of it is kept here.
                if let Some((chat_id, _)) = read_chat(body) {
                    let url = routes(self.coder_config()).interrupt(&chat_id);
                    self.threads.remove(thread_id);
                    let state = self
                        .threads
                        .get_or_insert_with(&chat_id, ThreadState::default);
                    state.chat = Some(Box::default());
                    self.chat_request(&chat_id, Request::Interrupt, url, None);
                }
            }
            Request::Create | Request::Message => {
                if ok {
                    return;
                }
                let what = if kind == Request::Create {
                    "creating the chat"
                } else {
                    "posting the message"
                };
                self.fail_request(thread_id, what, reply);
            }
            Request::Results => self.results_answered(thread_id, request_id, reply),
            Request::Interrupt => {
                // A chat interrupted in `requires_action` goes on `running` (the model sees the
                // calls interrupted): once more stops it.
                let chat = status
                    .filter(|s| crate::http::is_success(*s))
                    .and_then(|_| read_chat(body));
                if chat.is_some_and(|(_, status)| status == ChatStatus::Running) {
                    let url = routes(self.coder_config()).interrupt(thread_id);
                    self.chat_request(thread_id, Request::InterruptAgain, url, None);
                }
            }
            Request::CreateStopped | Request::InterruptAgain => {}
        }
    }

    /// One text message of the stream opened by [`Action::OpenStream`] `stream_id`. A message of
    /// another stream (closed since) is ignored.
    pub fn handle_stream_frame(&mut self, thread_id: &str, stream_id: u64, text: &str) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(chat) = state.chat.as_mut().filter(|c| c.stream == Some(stream_id)) else {
            return;
        };
        state.active = true;
        let frame = match decode_frame(text) {
            Ok(frame) => frame,
            Err(error) => {
                self.chat_diagnostic(
                    "coder/bad-frame",
                    concat(&["a stream message was skipped: ", &error.to_string()]),
                );
                return;
            }
        };
        let updates = chat.coder.handle_frame(frame);
        if let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) {
            round.reconnects = 0;
        }
        for update in updates {
            self.chat_update(thread_id, update);
        }
        self.maybe_advance(thread_id);
    }

    /// The stream opened by [`Action::OpenStream`] `stream_id` ended (closed by the server,
    /// dropped, or refused before it opened). A turn going on resumes it after a wait (the
    /// session's deadline, as for a cut AG-UI stream), from the last committed message; after
    /// [`SessionConfig::max_reconnects`](crate::session::SessionConfig::max_reconnects) ends in a row
    /// without a frame, the turn ends in error (`coder/stream`).
    pub fn handle_stream_closed(&mut self, thread_id: &str, stream_id: u64) {
        let base = self.config.reconnect_delay_ms;
        let max = self.config.max_reconnects;
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(chat) = state.chat.as_mut().filter(|c| c.stream == Some(stream_id)) else {
            return;
        };
        chat.stream = None;
        let Some(turn) = state.turn.as_mut() else {
            return;
        };
        let Some(round) = turn.chat_mut() else {
            return;
        };
        if round.reconnects >= max {
            let message = concat(&[
                "the chat's stream closed ",
                &decimal(i64::from(round.reconnects) + 1),
                " times in a row without a message",
            ]);
            self.fail(thread_id, "coder/stream", message, None);
            return;
        }
        let delay_ms = base.saturating_mul(1 << round.reconnects.min(16));
        round.reconnects += 1;
        turn.reconnect = Some(ReconnectWait {
            last_event_id: String::new(),
            delay_ms,
            deadline: None,
        });
        self.unstamped_waits = true;
    }

    // ---- internals ----------------------------------------------------------------------

    /// The turn's stream is opened (again): after the last committed message this page holds,
    /// or from the start.
    pub(super) fn open_stream(&mut self, thread_id: &str) {
        let stream_id = self.next_number();
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let (Some(coder), Some(chat)) = (self.config.coder.as_ref(), state.chat.as_mut()) else {
            return;
        };
        chat.stream = Some(stream_id);
        let after = chat.coder.last_message_id();
        let mut url = routes(coder).stream(thread_id, after);
        if let Some(token) = &coder.session_token {
            // A browser WebSocket sends no headers: the token goes in the query.
            url.push(if after.is_some() { '&' } else { '?' });
            url.push_str("coder_session_token=");
            url.push_str(&crate::thread_id::path_segment(token));
        }
        self.actions.push_back(Action::OpenStream {
            thread_id: thread_id.to_owned(),
            stream_id,
            url,
        });
    }

    /// Sends a `POST` and remembers what it was.
    fn chat_request(&mut self, thread_id: &str, kind: Request, url: String, body: Option<String>) {
        let request_id = self.next_number();
        self.post(thread_id, request_id, kind, url, body);
    }

    /// Sends the `POST` `request_id` (a number of the session's) and remembers what it was.
    fn post(
        &mut self,
        thread_id: &str,
        request_id: u64,
        kind: Request,
        url: String,
        body: Option<String>,
    ) {
        let mut headers = Vec::new();
        if let Some(token) = self
            .config
            .coder
            .as_ref()
            .and_then(|c| c.session_token.clone())
        {
            headers.push(("Coder-Session-Token".to_owned(), token));
        }
        if let Some(chat) = self.chat_mut(thread_id) {
            chat.requests.push((request_id, kind));
        }
        self.actions.push_back(Action::ChatRequest {
            thread_id: thread_id.to_owned(),
            request_id,
            url,
            headers,
            body,
        });
    }

    /// `POST /chats` answered: the thread takes the chat's id and the stream opens.
    fn chat_created(&mut self, provisional: &str, body: &str) {
        let chat_id = match read_chat(body) {
            Some((chat_id, _)) if crate::thread_id::check(&chat_id).is_ok() => chat_id,
            _ => {
                let message = concat(&[
                    "creating the chat: the answer is not a chat with a usable id: ",
                    crate::http::error_excerpt(body).unwrap_or("(empty)"),
                ]);
                return self.fail(provisional, "coder/http", message, None);
            }
        };
        let Some(mut state) = self.threads.remove(provisional) else {
            return;
        };
        // Every message shows under the chat's id from now on.
        state.changes.all = true;
        if let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) {
            round.step = Step::Live;
        }
        self.threads.insert(chat_id.clone(), state);
        self.actions.push_back(Action::ThreadCreated {
            provisional: provisional.to_owned(),
            thread_id: chat_id.clone(),
        });
        self.actions
            .push_back(Action::Emit(RuntimeEvent::ThreadCreated {
                thread_id: chat_id.clone(),
                previous_thread_id: provisional.to_owned(),
            }));
        self.open_stream(&chat_id);
    }

    /// What one translated change of the stream does.
    fn chat_update(&mut self, thread_id: &str, update: Update) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        match update {
            Update::Event(event) => {
                let applied = state.thread.fold(&event).ok();
                note_applied(&state.thread, &mut state.changes, applied);
            }
            Update::Replace => {
                let Some(chat) = state.chat.as_ref() else {
                    return;
                };
                let mut messages = chat.coder.messages().to_vec();
                if let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) {
                    let posted = matches!(round.step, Step::Live)
                        && chat.coder.has_user_message_after(round.posted_after);
                    if posted {
                        round.local.clear();
                    }
                    messages.extend(round.local.iter().cloned());
                }
                for message in &messages {
                    if let Message::Tool(tool) = message {
                        state.handled.insert(tool.tool_call_id.clone());
                    }
                }
                state.thread.set_messages(messages);
                state.changes.all = true;
            }
            Update::Status(status) => {
                let idle = matches!(status, ChatStatus::Waiting | ChatStatus::Error);
                let waiting = state
                    .turn
                    .as_mut()
                    .and_then(Turn::chat_mut)
                    .filter(|round| idle && round.submission.is_none())
                    .filter(|round| matches!(round.step, Step::Waiting(_)))
                    .and_then(|round| {
                        round.posted_after =
                            state.chat.as_ref().and_then(|c| c.coder.last_message_id());
                        // The body moves out: the step is `Live` from now on.
                        match std::mem::replace(&mut round.step, Step::Live) {
                            Step::Waiting(body) => Some(body),
                            _ => None,
                        }
                    });
                if let Some(body) = waiting {
                    if let Some(chat) = state.chat.as_mut() {
                        chat.coder.begin_turn();
                    }
                    let url = routes(self.coder_config()).messages(thread_id);
                    self.chat_request(thread_id, Request::Message, url, Some(body));
                }
            }
            Update::Retry(retry) => {
                self.actions.push_back(Action::Emit(RuntimeEvent::Retry {
                    thread_id: thread_id.to_owned(),
                    attempt: retry.attempt,
                    delay_ms: retry.delay_ms,
                    error: retry.error,
                    kind: retry.kind,
                    provider: retry.provider,
                    status_code: retry.status_code,
                    retrying_at: retry.retrying_at,
                }));
            }
            Update::Queue(_) => {}
            Update::ActionRequired(calls) => self.calls_required(thread_id, calls),
            Update::TurnEnded(end) => {
                let (code, message, details) = match end {
                    TurnEnd::Completed => {
                        return self.finish(thread_id, RunStatus::Completed, None);
                    }
                    TurnEnd::Error(error) => {
                        let message = error.message.clone();
                        ("coder/error", message, Some(chat_error_details(error)))
                    }
                    TurnEnd::StreamError(message) => ("coder/stream", message, None),
                };
                let error = RunError {
                    code: code.to_owned(),
                    message,
                    status: None,
                    details,
                };
                self.finish(thread_id, RunStatus::Error, Some(error));
            }
            Update::Invalid {
                event_type,
                message,
            } => self.chat_diagnostic(
                "coder/bad-event",
                concat(&[
                    "a ",
                    &event_type,
                    " event of the chat's stream was skipped: ",
                    &message,
                ]),
            ),
        }
    }

    /// An `action_required` batch handed out these calls: each runs (or is answered at once, as
    /// a disabled or unknown tool's call is); a turn that found them owed before posting its
    /// message follows its `pending` option.
    fn calls_required(&mut self, thread_id: &str, calls: Vec<PendingCall>) {
        let Some(round) = self.turn_mut(thread_id).and_then(Turn::chat_mut) else {
            return;
        };
        let settle = matches!(round.step, Step::Waiting(_)) && round.pending == Pending::Settle;
        for call in calls {
            if settle {
                let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                    Interruption::Abandoned,
                    "this call was never answered (the page was closed or reloaded while it ran)",
                ));
                if let Some(round) = self.turn_mut(thread_id).and_then(Turn::chat_mut) {
                    round.answers.push((call, Some(outcome)));
                }
            } else {
                self.dispatch(thread_id, call, true);
            }
        }
    }

    /// Every call of the batch is answered: its one submission goes out.
    pub(super) fn submit_batch(&mut self, thread_id: &str) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let (Some(turn), Some(chat)) = (state.turn.as_mut(), state.chat.as_ref()) else {
            return;
        };
        let round_number = turn.round;
        let Some(round) = turn.chat_mut() else {
            return;
        };
        for (call, outcome) in std::mem::take(&mut round.answers) {
            let outcome = outcome.unwrap_or_else(|| {
                ToolOutcome::Failed(ToolFailure::new(
                    crate::tools::outcome::FailureCode::ToolExecutionFailed,
                    "the tool produced no result",
                ))
            });
            round.outcomes.push((call.tool_call_id, outcome));
        }
        // The server's pending set: the batch (each id once), less what the history answers
        // already. A call handed out to this page before and answered by no one since is not
        // run twice: its result is lost.
        let lost = ToolOutcome::Failed(ToolFailure::interrupted(
            Interruption::RunEnded,
            "this call was handed out before and its result was lost",
        ));
        let mut results: Vec<(&str, &ToolOutcome)> = Vec::new();
        for call in chat.coder.batch() {
            let id = call.tool_call_id.as_str();
            if chat.coder.is_answered(id) || results.iter().any(|&(have, _)| have == id) {
                continue;
            }
            let outcome = round.outcomes.iter().find(|(done, _)| done == id);
            results.push((id, outcome.map_or(&lost, |(_, outcome)| outcome)));
        }
        if results.is_empty() {
            return;
        }
        let body = results_body(&results);
        let submission = Submission::new(body.clone());
        let request_id = self.next_number();
        let run_id = self.next_id("run");
        let Some(turn) = self.turn_mut(thread_id) else {
            return;
        };
        turn.round = round_number + 1;
        turn.run_id = run_id.clone();
        if let Some(round) = turn.chat_mut() {
            round.submission = Some((request_id, submission));
        }
        self.actions
            .push_back(Action::Emit(RuntimeEvent::RoundStarted {
                thread_id: thread_id.to_owned(),
                run_id,
                round: round_number + 1,
            }));
        self.send_results(thread_id, request_id, body);
    }

    fn send_results(&mut self, thread_id: &str, request_id: u64, body: String) {
        let url = routes(self.coder_config()).tool_results(thread_id);
        self.post(thread_id, request_id, Request::Results, url, Some(body));
    }

    /// The answer to a `tool-results` POST.
    fn results_answered(&mut self, thread_id: &str, request_id: u64, reply: SubmitReply) {
        let Some(round) = self.turn_mut(thread_id).and_then(Turn::chat_mut) else {
            // The turn is over (stopped): whatever the answer, nothing more is sent.
            return;
        };
        let Some((id, submission)) = round.submission.as_mut() else {
            return;
        };
        if *id != request_id {
            return;
        }
        match submission.handle_reply(reply) {
            // Taken, or answered first by someone else (the server's deadline, another tab, an
            // interrupt): the stream tells how the turn goes on.
            SubmitStep::Done | SubmitStep::Superseded(_) | SubmitStep::Reconcile(_) => {
                round.submission = None;
            }
            SubmitStep::Resend => {
                let body = submission.body().to_owned();
                let request_id = self.next_number();
                if let Some((id, _)) = self
                    .turn_mut(thread_id)
                    .and_then(Turn::chat_mut)
                    .and_then(|r| r.submission.as_mut())
                {
                    *id = request_id;
                }
                self.send_results(thread_id, request_id, body);
            }
            // The pending set is not the one answered: the next `action_required` (sent on
            // every reconnect) says what is; the calls already answered are not run again.
            SubmitStep::Refresh(_) => {
                round.submission = None;
                if let Some(chat) = self.chat_mut(thread_id) {
                    chat.stream = None;
                }
                self.actions.push_back(Action::CloseStream {
                    thread_id: thread_id.to_owned(),
                });
                self.open_stream(thread_id);
            }
            SubmitStep::Failed(error) => {
                round.submission = None;
                self.fail_api(thread_id, "submitting the tool results", error);
            }
        }
    }

    /// A create or message POST failed: the turn ends in error.
    fn fail_request(&mut self, thread_id: &str, what: &str, reply: SubmitReply) {
        match reply {
            SubmitReply::Http(status, body) => {
                self.fail_api(thread_id, what, ApiError::from_response(status, &body))
            }
            SubmitReply::Network => self.fail(
                thread_id,
                "run/network",
                concat(&["no answer from the server ", what]),
                None,
            ),
        }
    }

    fn fail_api(&mut self, thread_id: &str, what: &str, error: ApiError) {
        let status = error.status;
        let message = concat(&[
            what,
            ": HTTP ",
            &decimal(status.into()),
            ": ",
            &error.message,
        ]);
        let error = RunError {
            code: "coder/http".to_owned(),
            message,
            status: Some(status),
            details: Some(api_error_details(error)),
        };
        self.finish(thread_id, RunStatus::Error, Some(error));
    }

    /// Stop of a chat's turn: the stream closes and the chat is interrupted (when it may be
    /// busy); the create of a new chat not answered yet is interrupted once it is.
    pub(super) fn stop_chat(&mut self, thread_id: &str) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(chat) = state.chat.as_mut() else {
            return;
        };
        let creating = chat
            .requests
            .iter_mut()
            .find(|(_, kind)| *kind == Request::Create);
        if let Some((_, kind)) = creating {
            *kind = Request::CreateStopped;
            return;
        }
        let posted = matches!(
            state
                .turn
                .as_mut()
                .and_then(Turn::chat_mut)
                .map(|r| &r.step),
            Some(Step::Live)
        );
        let busy = matches!(
            chat.coder.status(),
            Some(ChatStatus::Running | ChatStatus::RequiresAction)
        );
        if posted || busy {
            let url = routes(self.coder_config()).interrupt(thread_id);
            self.chat_request(thread_id, Request::Interrupt, url, None);
        }
    }

    /// The end of a chat's turn: its stream closes.
    pub(super) fn end_chat_turn(&mut self, thread_id: &str) {
        if let Some(chat) = self.chat_mut(thread_id) {
            if chat.stream.take().is_some() {
                self.actions.push_back(Action::CloseStream {
                    thread_id: thread_id.to_owned(),
                });
            }
        }
    }

    fn chat_mut(&mut self, thread_id: &str) -> Option<&mut ChatState> {
        self.threads.get_mut(thread_id)?.chat.as_deref_mut()
    }

    fn coder_config(&self) -> &CoderConfig {
        // Only a session with a Coder backend has chats.
        self.config.coder.as_ref().unwrap_or(&NO_CODER)
    }

    fn chat_diagnostic(&mut self, code: &'static str, message: String) {
        self.actions
            .push_back(Action::Emit(RuntimeEvent::Diagnostic {
                diagnostic: crate::tools::Diagnostic {
                    index: None,
                    name: None,
                    code,
                    message,
                },
            }));
    }

    /// A number for a request or a stream, unique in the session.
    fn next_number(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

static NO_CODER: CoderConfig = CoderConfig {
    base_url: String::new(),
    organization_id: String::new(),
    session_token: None,
};

impl Turn {
    /// The Coder round, for a chat's turn.
    pub(super) fn chat_mut(&mut self) -> Option<&mut ChatRound> {
        match &mut self.phase {
            RoundPhase::Chat(round) => Some(round),
            _ => None,
        }
    }
}

impl ChatRound {
    /// Whether the batch is complete and no submission is out: it goes out now.
    pub(super) fn batch_ready(&self) -> bool {
        !self.answers.is_empty()
            && self.submission.is_none()
            && self.answers.iter().all(|(_, outcome)| outcome.is_some())
    }
}

/// A `Chat` answer's body, if it is one: its `id` and `status`, the two members the client
/// uses (read straight from the object: `Chat::from_json` and its `last_error` reader cost more
/// than the members are worth here).
fn read_chat(body: &str) -> Option<(String, ChatStatus)> {
    let Value::Object(mut chat) = Value::parse(body).ok()? else {
        return None;
    };
    match (chat.remove("id"), chat.remove("status")) {
        (Some(Value::String(id)), Some(Value::String(status))) => {
            Some((id, ChatStatus::from_wire(&status)))
        }
        _ => None,
    }
}

fn routes(coder: &CoderConfig) -> Routes {
    let base = coder.base_url.strip_suffix('/').unwrap_or(&coder.base_url);
    Routes::new(&concat(&[base, "/chats"]))
}

/// A frontend tool as a chat's dynamic tool.
fn dynamic_tool(tool: Tool) -> DynamicTool {
    DynamicTool {
        name: tool.name,
        description: tool.description,
        input_schema: tool.parameters.unwrap_or_else(|| {
            let mut schema = Map::new();
            schema.insert("type".to_owned(), Value::String("object".to_owned()));
            Value::Object(schema)
        }),
    }
}

/// A chat's error as `RunError.details`: `kind`, `retryable`, `provider`, `statusCode`,
/// `detail` (absent ones left out).
fn chat_error_details(error: ChatError) -> Value {
    let mut details = Vec::new();
    member(&mut details, "kind", error.kind.map(Value::String));
    member(
        &mut details,
        "retryable",
        Some(Value::Bool(error.retryable)),
    );
    member(&mut details, "provider", error.provider.map(Value::String));
    member(
        &mut details,
        "statusCode",
        error.status_code.map(Value::from),
    );
    member(&mut details, "detail", error.detail.map(Value::String));
    Value::Object(Map::from_unique(details))
}

/// Coder's error body as `RunError.details`: `message`, `detail`, `validations`.
fn api_error_details(error: ApiError) -> Value {
    let mut details = Vec::new();
    member(&mut details, "message", Some(Value::String(error.message)));
    member(&mut details, "detail", error.detail.map(Value::String));
    if !error.validations.is_empty() {
        let items = error.validations.into_iter().map(|(field, detail)| {
            let mut item = Vec::new();
            member(&mut item, "field", Some(Value::String(field)));
            member(&mut item, "detail", Some(Value::String(detail)));
            Value::Object(Map::from_unique(item))
        });
        member(
            &mut details,
            "validations",
            Some(Value::Array(items.collect())),
        );
    }
    Value::Object(Map::from_unique(details))
}

/// Adds `key: value` to an object's members being built (keys unique by construction), or
/// nothing when the value is absent: one copy of the push, where a `Map::insert` per member
/// inlined its key search and its owned key each time.
#[inline(never)]
fn member(members: &mut Vec<(String, Value)>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        members.push((key.to_owned(), value));
    }
}
