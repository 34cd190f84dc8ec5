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
//! AG-UI (the call table's `dispatch` and `tool_result`, `calls.rs`).
//!
//! A turn on a chat this page already streamed resumes the stream after the last committed
//! message; on any other (a reload) it reads the whole history. Either way the message is posted
//! only once the stream's snapshot says the chat is idle: a chat found waiting on calls
//! (`requires_action`) first has them run or settled, as the `pending` option says.

pub mod action;
mod fail;
pub(super) mod requests;
pub(super) mod round;
pub(in crate::session) mod send;
pub(super) mod stream;
pub(super) mod submit;

use crate::session::action::Action;
use crate::session::config::RunRequest;

use crate::session::call_table::CallTable;
use crate::session::error::SessionError;
use crate::session::events::RuntimeEvent;
use crate::session::shared::Shared;
use crate::session::thread::ThreadState;
use crate::session::tool_set::ToolSet;
use crate::session::turn::Turn;
use crate::session::turn::{message_ids, Round};
use round::{ChatRound, ChatState, Request, Step};
use send::{biggest, chat_request, open_stream, routes, MAX_BODY_BYTES};

pub use action::CoderAction;

use crate::coder::wire::{input_texts, post_message_body, CreateChat, DynamicTool};
use crate::json::Value as JsonValue;
use crate::json::{Map, Value};
use crate::lean::sorted::SortedMap;
use crate::lean::text::{concat, decimal};
use crate::protocol::event::{Content, Message, Tool};

/// What refuses a chat's run before its thread is looked at (a session without a Coder backend,
/// a member only AG-UI sends, a thread id that cannot be a URL segment), and the id the turn runs
/// under: the request's, or a provisional one of the session's for a new chat.
pub(in crate::session) fn chat_thread_id(
    sh: &mut Shared,
    request: &RunRequest,
) -> Result<String, SessionError> {
    if sh.config.coder.is_none() {
        // An AG-UI session's turns start with `start_run`.
        return Err(SessionError::NotForBackend {
            member: "backend",
            backend: "agui",
        });
    }
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
    if request.thread_id.is_empty() {
        return Ok(sh.next_id("chat"));
    }
    crate::thread_id::check(&request.thread_id).map_err(SessionError::BadThreadId)?;
    Ok(request.thread_id.clone())
}

/// A chat takes the user's text: a message of anything else, new to the thread (`known`: the
/// thread the turn runs in, if the session has it), would be shown here and never sent.
pub(in crate::session) fn check_chat_messages(
    known: Option<&ThreadState>,
    request: &RunRequest,
) -> Result<(), SessionError> {
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
        let known =
            known.is_some_and(|t| t.thread.position(request.messages[index].id()).is_some());
        if !known {
            return Err(SessionError::NotForChat { index, message });
        }
    }
    Ok(())
}

/// Starts a Coder chat's turn in the thread `thread_id` (`state`), once [`chat_thread_id`] and
/// [`check_chat_messages`] passed (the session's `start_chat`).
pub(in crate::session) fn start_chat(
    sh: &mut Shared,
    thread_id: String,
    state: &mut ThreadState,
    request: RunRequest,
    tools: ToolSet,
    declared: Vec<Tool>,
) -> Result<String, SessionError> {
    let Some(coder) = sh.config.coder.clone() else {
        return Err(SessionError::NotForBackend {
            member: "backend",
            backend: "agui",
        });
    };
    let new_chat = request.thread_id.is_empty() || request.new_chat;
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
        // Added at the end: new to the next take (`Changes::seen`).
        state.thread.push_message(message.clone());
    }
    if new_chat {
        // A new chat's messages show under its id, once it has one, not under this one.
        state.changes.seen = state.thread.messages().len();
    }
    // The text posted: borrowed from the turn's own messages, which it keeps.
    let mut texts: Vec<&str> = Vec::new();
    for message in &local {
        if let Message::User(user) = message {
            texts.extend(input_texts(&user.content));
        }
    }
    for (code, name, message) in refused {
        sh.actions.push_back(Action::Emit(RuntimeEvent::Diagnostic {
            diagnostic: crate::tools::Diagnostic {
                index: None,
                name: Some(name),
                code,
                message,
            },
        }));
    }
    let run_id = sh.next_id("run");
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
    state.run = sh.next_number();
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
    sh.actions
        .push_back(Action::Emit(RuntimeEvent::RoundStarted {
            thread_id: thread_id.clone(),
            run_id,
            round: 1,
        }));
    if new_chat {
        let url = routes(&coder).create();
        chat_request(sh, &thread_id, state, Request::Create, url, Some(body));
    } else {
        open_stream(sh, &thread_id, state);
    }
    Ok(thread_id)
}

/// A forgotten thread's chat requests that Stop owes an answer to (an interrupt, a stopped
/// create) stay, in an empty thread of their own, until they are answered.
pub(in crate::session) fn keep_owed(
    threads: &mut SortedMap<ThreadState>,
    thread_id: &str,
    forgotten: Option<ThreadState>,
) {
    let Some(mut chat) = forgotten.and_then(|state| state.chat) else {
        return;
    };
    chat.requests
        .retain(|(_, kind)| kind.stops() || *kind == Request::CreateStopped);
    if !chat.requests.is_empty() {
        let owed = ChatState {
            requests: std::mem::take(&mut chat.requests),
            stop_by: chat.stop_by,
            ..ChatState::default()
        };
        let state = threads.get_or_insert_with(thread_id, ThreadState::default);
        state.chat = Some(Box::new(owed));
    }
}

/// A diagnostic of the chat's (a frame or an event skipped), for the listeners.
pub(super) fn chat_diagnostic(sh: &mut Shared, code: &'static str, message: String) {
    sh.actions.push_back(Action::Emit(RuntimeEvent::Diagnostic {
        diagnostic: crate::tools::Diagnostic {
            index: None,
            name: None,
            code,
            message,
        },
    }));
}

impl Turn {
    /// The Coder round, for a chat's turn.
    pub(in crate::session) fn chat_mut(&mut self) -> Option<&mut ChatRound> {
        match &mut self.backend {
            Round::Coder(round) => Some(round),
            Round::Agui(_) => None,
        }
    }
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
