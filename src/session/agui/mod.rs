//! The AG-UI round: a turn's runs, each a `POST` of `RunAgentInput` answered by an event stream,
//! restarted with the tool results until the agent answers (docs/architecture.md, "The loop as a
//! state machine").
//! - [`round`]: the round's state ([`AguiRound`]), as data, below the turn that holds it;
//! - this file: starting a turn ([`Session::start_run`]) and each run's request;
//! - [`stream`]: the response, folded into the thread as it streams, and resuming a cut stream;
//! - [`interrupts`]: the open interrupts and the answers a run resumes them with.

pub(super) mod interrupts;
pub(super) mod round;
mod stream;

#[cfg(feature = "coder")]
pub(super) use stream::note_applied;

use super::action::{Action, RoundRequest};
use super::body::BODY_PIECE;
use super::call_table::CallTable;
use super::config::{HistoryMode, Pending, RunRequest};
use super::error::SessionError;
use super::events::RuntimeEvent;
use super::tool_set::{CallKind, ToolSet};
use super::turn::{message_ids, unanswered_calls, Round, Turn};
use super::{Session, ThreadState};
use interrupts::{answer_interrupts, held_calls};
use round::{AguiRound, Outgoing, Phase, RunEnd};

use crate::json::Value;
use crate::lean::sorted::StrSet;
use crate::protocol::decode::{DecodeOptions, EventDecoder, Output};
use crate::protocol::event::Message;
use crate::protocol::input::RunInputBuilder;
use crate::tools::outcome::{Interruption, ToolFailure, ToolOutcome};

impl Session {
    /// Starts a turn: adds the request's messages and sends the first run.
    /// Refused, with nothing sent and nothing changed, while a turn is going on in the thread
    /// ([`SessionError::Busy`]), when the thread id cannot be one segment of the run URL
    /// ([`SessionError::BadThreadId`]), when a `resume` payload breaks its interrupt's
    /// `responseSchema` ([`SessionError::BadResume`]), or when an open interrupt that has not
    /// expired gets no answer ([`SessionError::UnansweredInterrupts`]).
    pub fn start_run(&mut self, request: RunRequest, tools: ToolSet) -> Result<(), SessionError> {
        crate::thread_id::check(&request.thread_id).map_err(SessionError::BadThreadId)?;
        if request.new_chat {
            return Err(SessionError::NotForBackend {
                member: "newChat",
                backend: "agui",
            });
        }
        let thread_id = request.thread_id.clone();
        let state = self
            .threads
            .get_or_insert_with(&thread_id, ThreadState::default);
        if state.turn.is_some() {
            return Err(SessionError::Busy { thread_id });
        }
        let resume = answer_interrupts(
            &thread_id,
            &state.interrupts,
            request.resume,
            request.now_ms,
            self.patterns.as_ref(),
        )?;
        // A history whose calls never got an answer (a reload mid-tool, a crash) is rejected by
        // providers that demand a result for every call: settle those first, or run those of
        // the last assistant message that are the browser's (`pending: "run"`). A call an open
        // interrupt names is the server's until it is resumed: it is neither settled nor run here.
        let held = held_calls(&state.interrupts);
        let mut dangling = unanswered_calls(state.thread.messages());
        dangling.retain(|id| !held.contains(id));
        let mut to_run = Vec::new();
        if request.pending == Pending::Run {
            // Calls answered in the loaded history are in `handled` (`set_messages`).
            for call in state.calls_to_run(&held) {
                let backend = matches!(
                    tools.calls.get(&call.function.name),
                    Some(CallKind::Backend)
                );
                if !backend {
                    dangling.retain(|id| *id != call.id);
                    to_run.extend(state.thread.pending_call(&call.id));
                }
            }
        }
        for tool_call_id in dangling {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::Abandoned,
                "this call was never answered (the page was closed or reloaded while it ran)",
            ));
            self.record_result(&thread_id, &tool_call_id, &outcome);
        }
        self.next_id += 1;
        let run = self.next_id;
        let state = self
            .threads
            .get_or_insert_with(&thread_id, ThreadState::default);
        state.run = run;
        let before = message_ids(state.thread.messages());
        for message in request.messages {
            if before.contains(message.id()) {
                continue;
            }
            state.unsent.push(message.id().to_owned());
            state.changes.ids.push(message.id().to_owned());
            if let Message::Tool(tool) = &message {
                state.handled.insert(tool.tool_call_id.clone());
            }
            state.thread.push_message(message);
        }
        if let Some(initial) = request.state {
            state.thread.set_state(initial);
            state.changes.state = true;
        }
        state.turn = Some(Turn {
            tools,
            before,
            held_before: held,
            round: 0,
            run_id: String::new(),
            running: CallTable::default(),
            reconnect: None,
            backend: Round::Agui(AguiRound {
                context: request.context,
                forwarded_props: request.forwarded_props,
                resume,
                // No request yet: `send_round` starts the stream, or a loaded history's calls
                // are answered first.
                phase: Phase::Answering {
                    end: RunEnd::Completed,
                    answers: Vec::new(),
                },
                reconnects: 0,
                resumed_from: None,
                outgoing: Outgoing::NotYet,
            }),
        });
        if to_run.is_empty() {
            self.send_round(&thread_id);
            return Ok(());
        }
        // The calls run first, under the run id of the request that will carry their results;
        // that request goes out once they are all answered (`maybe_advance`).
        let run_id = self.next_id("run");
        if let Some(turn) = self.turn_mut(&thread_id) {
            turn.run_id = run_id;
        }
        for call in to_run {
            self.dispatch(&thread_id, call, true);
        }
        self.maybe_advance(&thread_id);
        Ok(())
    }

    /// Sends the turn's next run: its `RunAgentInput` written from the thread.
    pub(super) fn send_round(&mut self, thread_id: &str) {
        // The first round of a turn that ran a loaded history's calls has its id already.
        let preset = self
            .turn_mut(thread_id)
            .filter(|t| t.round == 0)
            .map(|t| std::mem::take(&mut t.run_id))
            .filter(|id| !id.is_empty());
        let run_id = preset.unwrap_or_else(|| self.next_id("run"));
        let history = self.config.history;
        let options = DecodeOptions {
            max_event_bytes: self.config.max_event_bytes,
            output: Output::Both,
            resumable: true,
            ..DecodeOptions::default()
        };
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_mut() else {
            return;
        };
        // Irrefutable without the `coder` feature.
        #[allow(irrefutable_let_patterns)]
        let Round::Agui(agui) = &mut turn.backend
        else {
            return;
        };
        turn.round += 1;
        turn.run_id = run_id.clone();
        agui.phase = Phase::Streaming {
            decoder: Box::new(EventDecoder::new(&options)),
            finished: None,
        };
        agui.reconnects = 0;
        agui.resumed_from = None;
        let mut builder = RunInputBuilder::new(thread_id, run_id.clone())
            .omit(self.config.omit)
            .tools(turn.tools.wire.clone())
            .context(agui.context.clone())
            .state(request_state(state.thread.state()));
        if !agui.resume.is_empty() {
            builder = builder.resume(std::mem::take(&mut agui.resume));
        }
        if let Some(props) = &agui.forwarded_props {
            builder = builder.forwarded_props(props.clone());
        }
        // Written from the thread's own messages (no copy of them: the whole thread, for
        // `HistoryMode::Full`, at every request) into the host's sink a piece at a time: the
        // browser's body is never whole in wasm memory. One iterator for both modes (one copy
        // of the writer in the `.wasm`).
        let full = history == HistoryMode::Full;
        let unsent = StrSet::new(state.unsent.iter().map(String::as_str).collect());
        let messages = state.thread.messages().iter();
        let messages = messages.filter(|m| full || unsent.contains(m.id()));
        let sink = &mut self.body_sink;
        builder.write_body(messages, BODY_PIECE, &mut |piece| sink.push(piece));
        let body = sink.finish();
        state.unsent.clear();
        state.thread.begin_run();
        let round = turn.round;
        // The id passed `thread_id::check` in `start_run`.
        let url = crate::thread_id::fill(&self.config.run_url, thread_id);
        self.actions
            .push_back(Action::Emit(RuntimeEvent::RoundStarted {
                thread_id: thread_id.to_owned(),
                run_id: run_id.clone(),
                round,
            }));
        let mut headers: Vec<(String, String)> = Vec::new();
        for (name, value) in &self.config.headers {
            if !name.eq_ignore_ascii_case("content-type") && !name.eq_ignore_ascii_case("accept") {
                headers.push((name.clone(), value.clone()));
            }
        }
        headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
        headers.push(("Accept".to_owned(), "text/event-stream".to_owned()));
        agui.outgoing = Outgoing::Preparing(RoundRequest {
            url: url.clone(),
            headers: headers.clone(),
            body: body.clone(),
        });
        self.actions.push_back(Action::Send {
            thread_id: thread_id.to_owned(),
            run_id,
            round,
            url,
            headers,
            body,
        });
    }
}

/// The thread's AG-UI state as a request sends it: without a top-level `tools` member that holds
/// a list of tools (an array of objects, each with a string `name`, as `RunAgentInput.tools` has).
/// The request's own `tools` is the one list of the tools offered; a server that keeps a copy of
/// them in its state (ag-ui-langgraph does, and sends it back in `STATE_SNAPSHOT`) would otherwise
/// get the copy back and offer again a tool the user has just turned off (README, "Servers"). A
/// `tools` member of any other shape is the app's own and is sent. The thread keeps its state as
/// received (`state()`).
pub(super) fn request_state(state: &Value) -> Value {
    let mut state = state.clone();
    if let Some(members) = state.as_object_mut() {
        let copy_of_tools = members
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|tools| {
                tools
                    .iter()
                    .all(|tool| tool.get("name").and_then(Value::as_str).is_some())
            });
        if copy_of_tools {
            members.remove("tools");
        }
    }
    state
}
