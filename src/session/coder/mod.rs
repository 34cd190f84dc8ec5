//! Coder chats: the execute-and-submit loop, on the same turns, calls, results and listeners as
//! AG-UI's execute-and-restart (docs/architecture.md, "Two backends, one loop").
//!
//! A turn of a Coder chat differs from an AG-UI run in three places, and only there:
//! - **what starts it**: a `POST` that creates the chat (no thread id yet: the turn runs under a
//!   provisional id until [`CoderAction::ThreadCreated`]) or posts the user's message, after the
//!   chat's stream is open;
//! - **what it reads**: the chat's WebSocket ([`CoderAction::OpenStream`]), translated by
//!   [`CoderThread`](crate::coder::CoderThread) into the AG-UI events the thread reducer folds, whole committed histories,
//!   the calls to run and the end of the turn;
//! - **how results go back**: one `POST .../tool-results` per `action_required` batch
//!   ([`results_body`](crate::coder::submit::results_body), [`Submission`](crate::coder::Submission)), where AG-UI restarts the run. The turn goes on on the
//!   same stream.
//!
//! The calls themselves are dispatched, validated, timed out, removed and reported exactly as for
//! AG-UI (`Session::dispatch`, [`Session::handle_tool_result`]).
//!
//! A turn on a chat this page already streamed resumes the stream after the last committed
//! message; on any other (a reload) it reads the whole history. Either way the message is posted
//! only once the stream's snapshot says the chat is idle: a chat found waiting on calls
//! (`requires_action`) first has them run or settled, as the `pending` option says.

pub mod action;
mod requests;
pub(super) mod round;
mod stream;
mod submit;

use crate::session::action::Action;
use crate::session::config::RunRequest;

use crate::coder::options::CoderConfig;
use crate::session::call_table::CallTable;
use crate::session::error::SessionError;
use crate::session::events::RuntimeEvent;
use crate::session::thread::ThreadState;
use crate::session::tool_set::ToolSet;
use crate::session::turn::Turn;
use crate::session::turn::{message_ids, Round};
use crate::session::Session;
use round::{ChatRound, ChatState, Request, Step};

pub use action::CoderAction;

use crate::coder::wire::{input_texts, post_message_body, CreateChat, DynamicTool};
use crate::coder::Routes;
use crate::json::Value as JsonValue;
use crate::json::{Map, Value};
use crate::lean::text::{concat, decimal};
use crate::protocol::event::{Content, Message, Tool};

impl Session {
    /// Starts a Coder chat's turn: `request.thread_id` empty, or [`RunRequest::new_chat`],
    /// creates a chat (with `declared`, every frontend tool in its wire form, as its dynamic
    /// tools: a chat's tools are fixed when it is created) and the turn runs under a provisional
    /// id (the request's, else one of the session's) until [`CoderAction::ThreadCreated`]; otherwise
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
        // A chat's tools go in its create body, which coderd takes up to 256 KiB: over it, the
        // run is refused here, before anything is shown or sent.
        let mut refused: Vec<(&'static str, String, String)> = Vec::new();
        let declared: Vec<DynamicTool> = if new_chat {
            let tools = coder_tools(declared, &mut refused);
            let mut texts: Vec<&str> = Vec::new();
            for message in &request.messages {
                if let Message::User(user) = message {
                    texts.extend(input_texts(&user.content));
                }
            }
            let body = CreateChat {
                organization_id: &coder.organization_id,
                content: texts,
                tools: &tools,
                ..CreateChat::default()
            }
            .body();
            let body = with_create_options(body, &coder.create);
            if body.len() > MAX_BODY_BYTES {
                return Err(SessionError::CreateTooLarge(too_large(body.len(), &tools)));
            }
            tools
        } else {
            Vec::new()
        };
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
        for (code, name, message) in refused {
            self.actions
                .push_back(Action::Emit(RuntimeEvent::Diagnostic {
                    diagnostic: crate::tools::Diagnostic {
                        index: None,
                        name: Some(name),
                        code,
                        message,
                    },
                }));
        }
        let run_id = self.next_id("run");
        let (step, body) = if new_chat {
            let body = CreateChat {
                organization_id: &coder.organization_id,
                content: texts,
                tools: &declared,
                ..CreateChat::default()
            }
            .body();
            let body = with_create_options(body, &coder.create);
            (Step::Creating, body)
        } else {
            (
                Step::Waiting(post_message_body(&texts, request.busy_behavior, None)),
                String::new(),
            )
        };
        let run = self.next_number();
        let state = self
            .threads
            .get_or_insert_with(&thread_id, ThreadState::default);
        state.run = run;
        state.turn = Some(Turn {
            tools,
            before,
            held_before: Vec::new(),
            round: 1,
            run_id: run_id.clone(),
            running: CallTable::default(),
            reconnect: None,
            backend: Round::Coder(Box::new(ChatRound {
                step,
                pending: request.pending,
                busy: request.busy_behavior.is_some(),
                answers: Vec::new(),
                outcomes: Vec::new(),
                submission: None,
                answer_by: None,
                reconnects: 0,
                reconciles: 0,
                posted: None,
                recovered: false,
                local,
                posted_after: None,
            })),
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

    /// A forgotten thread's chat requests that Stop owes an answer to (an interrupt, a stopped
    /// create) stay, in an empty thread of their own, until they are answered.
    pub(super) fn keep_owed(&mut self, thread_id: &str, forgotten: Option<ThreadState>) {
        let Some(mut chat) = forgotten.and_then(|state| state.chat) else {
            return;
        };
        chat.requests
            .retain(|(_, kind)| matches!(kind, Request::Interrupt | Request::CreateStopped));
        if !chat.requests.is_empty() {
            let owed = ChatState {
                requests: std::mem::take(&mut chat.requests),
                ..ChatState::default()
            };
            let state = self
                .threads
                .get_or_insert_with(thread_id, ThreadState::default);
            state.chat = Some(Box::new(owed));
        }
    }

    pub(super) fn chat_mut(&mut self, thread_id: &str) -> Option<&mut ChatState> {
        self.threads.get_mut(thread_id)?.chat.as_deref_mut()
    }

    pub(super) fn coder_config(&self) -> &CoderConfig {
        // Only a session with a Coder backend has chats.
        self.config.coder.as_ref().unwrap_or(&NO_CODER)
    }

    pub(super) fn chat_diagnostic(&mut self, code: &'static str, message: String) {
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
    pub(super) fn next_number(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

/// coderd's cap on a create or tool-results body (`httpapi.ReadLimit`): 256 KiB; over it, 413.
pub(super) const MAX_BODY_BYTES: usize = 256 * 1024;

static NO_CODER: CoderConfig = CoderConfig {
    base_url: String::new(),
    organization_id: String::new(),
    session_token: None,
    max_reconnects: None,
    create: String::new(),
};

impl Turn {
    /// The Coder round, for a chat's turn.
    pub(in crate::session) fn chat_mut(&mut self) -> Option<&mut ChatRound> {
        match &mut self.backend {
            Round::Coder(round) => Some(round),
            Round::Agui(_) => None,
        }
    }
}

pub(super) fn routes(coder: &CoderConfig) -> Routes {
    let base = coder.base_url.strip_suffix('/').unwrap_or(&coder.base_url);
    Routes::new(&concat(&[base, "/chats"]))
}

/// The tools a new chat declares: a name chatd has a built-in of is left out (the server would
/// run its own), and so is a schema whose `$ref`s cannot be resolved; each one left out is in
/// `refused`, `(name, why)`.
fn coder_tools(
    declared: Vec<Tool>,
    refused: &mut Vec<(&'static str, String, String)>,
) -> Vec<DynamicTool> {
    let mut tools = Vec::new();
    for mut tool in declared {
        if crate::coder::schema::BUILTINS.contains(&tool.name.as_str()) {
            let why = concat(&[
                "the tool ",
                &tool.name,
                " is not declared to the Coder chat: chatd has a built-in ",
                &tool.name,
                ", which the server runs instead; give the page's tools a toolNamePrefix",
            ]);
            refused.push(("tool/shadows-builtin", tool.name, why));
            continue;
        }
        if let Some(schema) = tool.parameters.take() {
            match crate::coder::schema::resolve_refs(schema) {
                Ok(schema) => tool.parameters = Some(schema),
                Err(why) => {
                    let why = concat(&[
                        "the tool ",
                        &tool.name,
                        " is not declared to the Coder chat: ",
                        why,
                    ]);
                    refused.push(("tool/coder-schema", tool.name, why));
                    continue;
                }
            }
        }
        tools.push(dynamic_tool(tool));
    }
    tools
}

/// A create body with the backend's `CreateChatRequest` options (`,"member":…` text) added.
fn with_create_options(mut body: String, create: &str) -> String {
    if !create.is_empty() && body.ends_with('}') {
        body.pop();
        body.push_str(create);
        body.push('}');
    }
    body
}

/// Why a create body of `bytes` is refused: the tools' total and the three biggest.
fn too_large(bytes: usize, tools: &[DynamicTool]) -> String {
    let mut sizes: Vec<usize> = tools
        .iter()
        .map(|t| crate::protocol::wire::ToJson::to_json_string(t).len())
        .collect();
    let total: usize = sizes.iter().sum();
    let mut message = concat(&[
        "the new chat's create body would be ",
        &decimal(bytes as i64),
        " bytes, over Coder's 262144 (256 KiB): its ",
        &decimal(tools.len() as i64),
        " tools take ",
        &decimal(total as i64),
        " bytes; the biggest: ",
    ]);
    for n in 0..tools.len().min(3) {
        let at = biggest(&sizes);
        if n > 0 {
            message.push_str(", ");
        }
        message.push_str(&tools[at].name);
        message.push_str(" (");
        message.push_str(&decimal(std::mem::take(&mut sizes[at]) as i64));
        message.push_str(" bytes)");
    }
    message
}

/// A frontend tool as a chat's dynamic tool.
pub(super) fn dynamic_tool(tool: Tool) -> DynamicTool {
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

/// The position of the biggest size (the first of equals; 0 when empty).
pub(super) fn biggest(sizes: &[usize]) -> usize {
    let mut at = 0;
    for (n, size) in sizes.iter().enumerate() {
        if *size > sizes[at] {
            at = n;
        }
    }
    at
}
