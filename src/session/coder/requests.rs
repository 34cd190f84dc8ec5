//! A chat's REST calls: each `POST` (create, message, results, interrupt) and its answer; Stop;
//! a turn's end by a refused request.

use super::round::{Request, Step};
use super::routes;
use super::CoderAction;
use crate::session::action::Action;
use crate::session::events::RuntimeEvent;
use crate::session::result::{RunError, RunStatus};
use crate::session::thread::ThreadState;
use crate::session::turn::Turn;
use crate::session::Session;

use crate::coder::wire::{ApiError, ChatError};

use crate::coder::{ChatStatus, SubmitReply};
use crate::json::{Map, Value};
use crate::lean::text::{concat, decimal};

impl Session {
    /// The answer to an [`CoderAction::ChatRequest`]. An answer for a request the session does not
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
                if let Some((chat_id, ..)) = read_chat(body) {
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
                if kind == Request::Message && self.recover_invalid(thread_id, &reply) {
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
                let running = matches!(chat, Some((_, ChatStatus::Running, _)));
                self.emit_title(thread_id, chat.and_then(|c| c.2));
                if running {
                    let url = routes(self.coder_config()).interrupt(thread_id);
                    self.chat_request(thread_id, Request::InterruptAgain, url, None);
                }
            }
            // The route is fine (426: only the upgrade is missing), or coderd is away (502,
            // the network): the reconnect goes on. Anything else is why the socket was
            // refused, and the turn ends with it.
            Request::Probe => match status {
                Some(status) if !ok && !matches!(status, 426 | 408 | 429 | 500..=502 | 504..) => {
                    let error = ApiError::from_response(status, body);
                    if self.is_running(thread_id) {
                        self.fail_api(thread_id, "opening the chat's stream", error);
                    }
                }
                _ => {}
            },
            Request::Reconcile => {
                let posted = self
                    .turn_mut(thread_id)
                    .and_then(Turn::chat_mut)
                    .and_then(|round| round.posted.clone());
                match (ok, posted) {
                    (true, Some(body)) => {
                        let url = routes(self.coder_config()).messages(thread_id);
                        self.chat_request(thread_id, Request::Message, url, Some(body));
                    }
                    // A batch's chat recovered: the stream shows how the turn goes on.
                    (true, None) => {}
                    (false, _) => {
                        self.fail_request(thread_id, "reconciling the chat's invalid state", reply)
                    }
                }
            }
            Request::Status => {
                let (status, title) = match ok.then(|| read_chat(body)).flatten() {
                    Some((_, status, title)) => (Some(status), title),
                    None => (None, None),
                };
                self.emit_title(thread_id, title);
                self.status_read(thread_id, status, body);
            }
            Request::CreateStopped | Request::InterruptAgain => {}
        }
    }

    /// A 409 "Chat is in an invalid state.": coderd's recovery route is called, once per
    /// turn (then the message goes again). Whether it was.
    pub(super) fn recover_invalid(&mut self, thread_id: &str, reply: &SubmitReply) -> bool {
        let SubmitReply::Http(409, body) = reply else {
            return false;
        };
        if ApiError::from_response(409, body).message != "Chat is in an invalid state." {
            return false;
        }
        let Some(round) = self.turn_mut(thread_id).and_then(Turn::chat_mut) else {
            return false;
        };
        if std::mem::replace(&mut round.recovered, true) {
            return false;
        }
        let url = routes(self.coder_config()).reconcile_invalid(thread_id);
        self.chat_request(thread_id, Request::Reconcile, url, None);
        true
    }

    /// The turn's answer was committed with no `status` beside it: the chat's status is read,
    /// once (one read out at a time).
    pub(super) fn read_status(&mut self, thread_id: &str) {
        let Some(chat) = self.chat_mut(thread_id) else {
            return;
        };
        if chat
            .requests
            .iter()
            .any(|(_, kind)| *kind == Request::Status)
        {
            return;
        }
        let url = routes(self.coder_config()).read(thread_id);
        self.chat_request(thread_id, Request::Status, url, None);
    }

    /// The chat's status, read: `waiting` ends the turn completed, `error` in error with the
    /// chat's `last_error`; any other (or no answer) leaves the turn to the stream.
    fn status_read(&mut self, thread_id: &str, status: Option<ChatStatus>, body: &str) {
        let live = self
            .threads
            .get_mut(thread_id)
            .and_then(|s| s.turn.as_mut())
            .and_then(Turn::chat_mut)
            .is_some_and(|r| r.step == Step::Live && r.submission.is_none());
        let posted = self
            .chat_mut(thread_id)
            .is_some_and(|c| c.coder.turn_active() && c.coder.turn_posted());
        if !live || !posted {
            return;
        }
        match status {
            Some(ChatStatus::Waiting) => self.finish(thread_id, RunStatus::Completed, None),
            Some(ChatStatus::Error) => {
                let message = match Value::parse(body) {
                    Ok(Value::Object(mut chat)) => match chat.remove("last_error") {
                        Some(Value::String(text)) if !text.is_empty() => text,
                        _ => ChatError::generic().message,
                    },
                    _ => ChatError::generic().message,
                };
                self.fail(thread_id, "coder/error", message, None);
            }
            _ => {}
        }
    }

    /// Sends a `POST` and remembers what it was.
    pub(super) fn chat_request(
        &mut self,
        thread_id: &str,
        kind: Request,
        url: String,
        body: Option<String>,
    ) {
        let request_id = self.next_number();
        self.post(thread_id, request_id, kind, url, body);
    }

    /// Sends the `POST` `request_id` (a number of the session's) and remembers what it was.
    pub(super) fn post(
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
        self.actions
            .push_back(Action::Coder(CoderAction::ChatRequest {
                thread_id: thread_id.to_owned(),
                request_id,
                method: match kind {
                    Request::Status | Request::Probe => "GET",
                    _ => "POST",
                },
                url,
                headers,
                body,
            }));
    }

    /// Whether the answer to the chat request `request_id` is still awaited: `false` once it was
    /// answered, counted unanswered at its deadline (a `tool-results` POST), or its thread was
    /// forgotten. The host aborts a request it sent that is no longer awaited.
    pub fn awaits_chat_reply(&self, request_id: u64) -> bool {
        let mut chats = self.threads.values().filter_map(|t| t.chat.as_deref());
        chats.any(|chat| chat.requests.iter().any(|(id, _)| *id == request_id))
    }

    /// `POST /chats` answered: the thread takes the chat's id and the stream opens.
    pub(super) fn chat_created(&mut self, provisional: &str, body: &str) {
        let (chat_id, title) = match read_chat(body) {
            Some((chat_id, _, title)) if crate::thread_id::check(&chat_id).is_ok() => {
                (chat_id, title)
            }
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
        self.actions
            .push_back(Action::Coder(CoderAction::ThreadCreated {
                provisional: provisional.to_owned(),
                thread_id: chat_id.clone(),
            }));
        self.actions
            .push_back(Action::Emit(RuntimeEvent::ThreadCreated {
                thread_id: chat_id.clone(),
                previous_thread_id: provisional.to_owned(),
            }));
        self.emit_title(&chat_id, title);
        self.open_stream(&chat_id);
    }

    /// The chat's title, as an answer of the chat said it, for the listeners.
    fn emit_title(&mut self, thread_id: &str, title: Option<String>) {
        if let Some(title) = title {
            self.actions.push_back(Action::Emit(RuntimeEvent::Title {
                thread_id: thread_id.to_owned(),
                title,
            }));
        }
    }

    /// A create or message POST failed: the turn ends in error.
    pub(super) fn fail_request(&mut self, thread_id: &str, what: &str, reply: SubmitReply) {
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

    pub(super) fn fail_api(&mut self, thread_id: &str, what: &str, error: ApiError) {
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
    pub(in crate::session) fn stop_chat(&mut self, thread_id: &str) {
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
    pub(in crate::session) fn end_chat_turn(&mut self, thread_id: &str) {
        if let Some(chat) = self.chat_mut(thread_id) {
            // No end of this turn is due from the stream any more: the next turn starts clean.
            chat.coder.end_turn();
            if let Some(stream_id) = chat.stream.take() {
                self.actions
                    .push_back(Action::Coder(CoderAction::CloseStream {
                        thread_id: thread_id.to_owned(),
                        stream_id: Some(stream_id),
                    }));
            }
        }
    }
}

/// A `Chat` answer's body, if it is one: its `id`, `status` and `title`, the members the client
/// uses (read straight from the object: `Chat::from_json` and its `last_error` reader cost more
/// than the members are worth here).
pub(super) fn read_chat(body: &str) -> Option<(String, ChatStatus, Option<String>)> {
    let Value::Object(mut chat) = Value::parse(body).ok()? else {
        return None;
    };
    let title = match chat.remove("title") {
        Some(Value::String(title)) => Some(title),
        _ => None,
    };
    match (chat.remove("id"), chat.remove("status")) {
        (Some(Value::String(id)), Some(Value::String(status))) => {
            Some((id, ChatStatus::from_wire(&status), title))
        }
        _ => None,
    }
}

/// A chat's error as `RunError.details`: `kind`, `retryable`, `provider`, `statusCode`,
/// `detail` (absent ones left out).
pub(super) fn chat_error_details(error: ChatError) -> Value {
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
pub(super) fn api_error_details(error: ApiError) -> Value {
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
pub(super) fn member(members: &mut Vec<(String, Value)>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        members.push((key.to_owned(), value));
    }
}
