//! Turns: starting one ([`Session::start_run`]), each round's request, restarting when the
//! round's calls are answered, and ending it (completed, aborted, failed).

use std::rc::Rc;

use super::action::{Action, RoundRequest};
use super::config::{HistoryMode, Pending, RunRequest};
use super::error::SessionError;
use super::events::RuntimeEvent;
use super::interrupts::{answer_interrupts, held_calls};
use super::result::{RunError, RunResult, RunStatus};
use super::tool_set::{CallKind, ToolSet};
use super::{Outgoing, RoundPhase, RunEnd, Session, ThreadState, Turn};

use crate::lean::hash::HashSet;
use crate::lean::sorted::{SortedMap, StrSet};

use crate::json::Value;

use crate::protocol::decode::{DecodeOptions, EventDecoder, Output};
use crate::protocol::event::Message;
use crate::protocol::input::RunInputBuilder;
use crate::tools::outcome::{FailureCode, Interruption, ToolFailure, ToolOutcome};

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
        let last = state.thread.messages().iter().rev().find_map(|m| match m {
            Message::Assistant(a) if request.pending == Pending::Run => Some(a),
            _ => None,
        });
        // Calls answered in the loaded history are in `handled` (`set_messages`).
        for call in last
            .and_then(|a| a.tool_calls.as_ref())
            .into_iter()
            .flatten()
        {
            let backend = matches!(
                tools.calls.get(&call.function.name),
                Some(CallKind::Backend)
            );
            if !backend && !state.handled.contains(&call.id) && !held.contains(&call.id) {
                dangling.retain(|id| *id != call.id);
                to_run.extend(state.thread.pending_call(&call.id));
            }
        }
        for tool_call_id in dangling {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::Abandoned,
                "this call was never answered (the page was closed or reloaded while it ran)",
            ));
            self.record_result(&thread_id, &tool_call_id, &outcome);
        }
        let state = self
            .threads
            .get_or_insert_with(&thread_id, ThreadState::default);
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
            context: request.context,
            forwarded_props: request.forwarded_props,
            before,
            held_before: held,
            round: 0,
            run_id: String::new(),
            // No request yet: `send_round` starts the stream, or a loaded history's calls are
            // answered first.
            phase: RoundPhase::Answering {
                end: RunEnd::Completed,
                answers: Vec::new(),
            },
            reconnects: 0,
            resumed_from: None,
            running: SortedMap::new(),
            resume,
            outgoing: Outgoing::NotYet,
            reconnect: None,
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

    /// Aborts the thread's turn: the fetch and the handlers are cancelled, no restart happens,
    /// and every call of the turn that got no result is settled with an `INTERRUPTED` result.
    pub fn abort(&mut self, thread_id: &str) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(turn) = state.turn.as_mut() else {
            return;
        };
        let run_id = turn.run_id.clone();
        let running: Vec<(String, String)> = turn
            .running
            .drain()
            .map(|(id, call)| (id, call.tool_name))
            .collect();
        self.actions.push_back(Action::Cancel {
            thread_id: thread_id.to_owned(),
        });
        self.stop_chat(thread_id);
        for (id, name) in running {
            let outcome = ToolOutcome::Failed(ToolFailure::interrupted(
                Interruption::Stopped,
                format!("the run was stopped before {name} finished"),
            ));
            self.emit_tool_finished(thread_id, &run_id, &id, &name, &outcome);
        }
        self.finish(thread_id, RunStatus::Aborted, None);
    }

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
        turn.round += 1;
        turn.run_id = run_id.clone();
        turn.phase = RoundPhase::Streaming {
            decoder: Box::new(EventDecoder::new(&options)),
            finished: None,
        };
        turn.reconnects = 0;
        turn.resumed_from = None;
        let mut builder = RunInputBuilder::new(thread_id, run_id.clone())
            .tools(turn.tools.wire.clone())
            .context(turn.context.clone())
            .state(request_state(state.thread.state()));
        if !turn.resume.is_empty() {
            builder = builder.resume(std::mem::take(&mut turn.resume));
        }
        if let Some(props) = &turn.forwarded_props {
            builder = builder.forwarded_props(props.clone());
        }
        // Written from the thread's own messages: no copy of them (the whole thread, for
        // `HistoryMode::Full`, at every request).
        let body: Rc<String> = match history {
            HistoryMode::Full => builder.body(state.thread.messages()).into(),
            HistoryMode::New => {
                let unsent = StrSet::new(state.unsent.iter().map(String::as_str).collect());
                let messages = state.thread.messages().iter();
                builder
                    .body(messages.filter(|m| unsent.contains(m.id())))
                    .into()
            }
        };
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
        turn.outgoing = Outgoing::Preparing(RoundRequest {
            url: url.clone(),
            headers: headers.clone(),
            body: Rc::clone(&body),
        });
        self.actions.push_back(Action::Send {
            thread_id: thread_id.to_owned(),
            run_id,
            url,
            headers,
            body,
        });
    }

    /// Restarts when every follow-up call of the round is answered, or ends the turn.
    pub(super) fn maybe_advance(&mut self, thread_id: &str) {
        let Some(turn) = self.turn_mut(thread_id) else {
            return;
        };
        if !turn.running.is_empty() {
            return;
        }
        let answers = match &mut turn.phase {
            RoundPhase::Streaming { .. } => return,
            RoundPhase::Chat(round) => {
                if round.batch_ready() {
                    self.submit_batch(thread_id);
                }
                return;
            }
            RoundPhase::Answering { end, answers } if answers.is_empty() => {
                let status = match end {
                    RunEnd::Completed => RunStatus::Completed,
                    RunEnd::Interrupted => RunStatus::Interrupted,
                };
                self.finish(thread_id, status, None);
                return;
            }
            RoundPhase::Answering { answers, .. } => std::mem::take(answers),
        };
        for (call, outcome) in answers {
            let outcome = outcome.unwrap_or_else(|| {
                ToolOutcome::Failed(ToolFailure::new(
                    FailureCode::ToolExecutionFailed,
                    "the tool produced no result",
                ))
            });
            self.record_result(thread_id, &call.tool_call_id, &outcome);
        }
        self.send_round(thread_id);
    }

    pub(super) fn fail(
        &mut self,
        thread_id: &str,
        code: &str,
        message: String,
        status: Option<u16>,
    ) {
        let error = RunError {
            code: code.to_owned(),
            message,
            status,
            details: None,
        };
        self.finish(thread_id, RunStatus::Error, Some(error));
    }

    /// Ends the turn: settles every call of the turn still without a result, then reports.
    pub(super) fn finish(&mut self, thread_id: &str, status: RunStatus, error: Option<RunError>) {
        let Some(state) = self.threads.get_mut(thread_id) else {
            return;
        };
        let Some(mut turn) = state.turn.take() else {
            return;
        };
        let (why, reason) = match status {
            RunStatus::Aborted => (
                Interruption::Stopped,
                "the run was stopped before this call was answered",
            ),
            _ => (
                Interruption::RunEnded,
                "the run ended before this call was answered",
            ),
        };
        // A call an open interrupt names, or named when the turn started, stays the server's: no
        // answer from here.
        let mut held = held_calls(&state.interrupts);
        held.append(&mut turn.held_before);
        // Results gathered for a restart that will not happen are real answers: keep them. A
        // call still without one (it may be a loaded history's, `Pending::Run`) gets one below.
        let mut settle: Vec<(String, ToolOutcome)> = Vec::new();
        let chat = matches!(turn.phase, RoundPhase::Chat(_));
        let answers = match turn.phase {
            RoundPhase::Streaming { .. } => Vec::new(),
            RoundPhase::Answering { answers, .. } => answers,
            // A chat's calls are the server's to settle (its interrupt, its deadline).
            RoundPhase::Chat(_) => {
                held.extend(unanswered_calls(state.thread.messages()));
                Vec::new()
            }
        };
        for (call, outcome) in answers {
            if outcome.is_none() && held.contains(&call.tool_call_id) {
                continue;
            }
            let outcome = outcome
                .unwrap_or_else(|| ToolOutcome::Failed(ToolFailure::interrupted(why, reason)));
            settle.push((call.tool_call_id, outcome));
        }
        // Every other call without an answer gets one, so the next turn is valid for providers
        // that demand a result for every call. The turn started with none but the held ones
        // (`start_run` settled or ran the others), so each is this turn's, whichever message it
        // joined: a call may name an earlier turn's message as its parent.
        for id in unanswered_calls(state.thread.messages()) {
            if !held.contains(&id) && !settle.iter().any(|(s, _)| *s == id) {
                let outcome = ToolOutcome::Failed(ToolFailure::interrupted(why, reason));
                settle.push((id, outcome));
            }
        }
        for (tool_call_id, outcome) in &settle {
            self.record_result(thread_id, tool_call_id, outcome);
        }
        if chat {
            self.end_chat_turn(thread_id);
        }
        let Some(state) = self.threads.get(thread_id) else {
            return;
        };
        let messages = state.thread.messages();
        let new_positions = (0..messages.len())
            .filter(|&at| !turn.before.contains(messages[at].id()))
            .collect();
        let interrupts = (status == RunStatus::Interrupted).then(|| state.interrupts.clone());
        let result = RunResult {
            thread_id: thread_id.to_owned(),
            status,
            rounds: turn.round,
            message_count: messages.len(),
            new_positions,
            state: state.thread.state().clone(),
            error: error.clone(),
            interrupts: interrupts.clone(),
        };
        self.actions
            .push_back(Action::Emit(RuntimeEvent::RunFinished {
                thread_id: thread_id.to_owned(),
                status,
                rounds: turn.round,
                error,
                interrupts,
            }));
        self.actions.push_back(Action::Finished(Box::new(result)));
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

/// The ids of tool calls that no tool message answers, in thread order.
pub(super) fn unanswered_calls(messages: &[Message]) -> Vec<String> {
    let mut answered = Vec::new();
    for message in messages {
        if let Message::Tool(t) = message {
            answered.push(t.tool_call_id.as_str());
        }
    }
    let answered = StrSet::new(answered);
    let mut ids = Vec::new();
    for message in messages {
        let Message::Assistant(a) = message else {
            continue;
        };
        for call in a.tool_calls.iter().flatten() {
            if !answered.contains(call.id.as_str()) {
                ids.push(call.id.clone());
            }
        }
    }
    ids
}

/// The ids of the thread's messages: what a turn's `before` holds (for `newMessages`).
pub(super) fn message_ids(messages: &[Message]) -> HashSet<String> {
    messages.iter().map(|m| m.id().to_owned()).collect()
}
