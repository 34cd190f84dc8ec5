//! Each run's request: the turn's next `RunAgentInput`, written from the thread into the host's
//! body sink, and the `Action::Send` that carries it. Below the AG-UI round's inputs and the
//! turn's restart (`advance.rs`), which send it.

use super::round::{Outgoing, Phase};
use crate::session::action::{Action, RoundRequest};
use crate::session::body::BODY_PIECE;
use crate::session::config::HistoryMode;
use crate::session::events::RuntimeEvent;
use crate::session::shared::Shared;
use crate::session::thread::ThreadState;
use crate::session::turn::Round;

use crate::json::Value;
use crate::lean::sorted::StrSet;
use crate::protocol::decode::{DecodeOptions, EventDecoder, Output};
use crate::protocol::input::RunInputBuilder;

/// Sends the turn's next run: its `RunAgentInput` written from the thread.
pub(in crate::session) fn send_round(sh: &mut Shared, thread_id: &str, state: &mut ThreadState) {
    // The first round of a turn that ran a loaded history's calls has its id already.
    let preset = state
        .turn
        .as_mut()
        .filter(|t| t.round == 0)
        .map(|t| std::mem::take(&mut t.run_id))
        .filter(|id| !id.is_empty());
    let run_id = preset.unwrap_or_else(|| sh.next_id("run"));
    let history = sh.config.history;
    let options = DecodeOptions {
        max_event_bytes: sh.config.max_event_bytes,
        output: Output::Both,
        resumable: true,
        ..DecodeOptions::default()
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
        .omit(sh.config.omit)
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
    let sink = &mut sh.body_sink;
    builder.write_body(messages, BODY_PIECE, &mut |piece| sink.push(piece));
    let body = sink.finish();
    state.unsent.clear();
    state.thread.begin_run();
    let round = turn.round;
    // The id passed `thread_id::check` in `start_run`.
    let url = crate::thread_id::fill(&sh.config.run_url, thread_id);
    sh.actions
        .push_back(Action::Emit(RuntimeEvent::RoundStarted {
            thread_id: thread_id.to_owned(),
            run_id: run_id.clone(),
            round,
        }));
    let mut headers: Vec<(String, String)> = Vec::new();
    for (name, value) in &sh.config.headers {
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
    sh.actions.push_back(Action::Send {
        thread_id: thread_id.to_owned(),
        run_id,
        round,
        url,
        headers,
        body,
    });
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
