//! The session's Coder inputs, as a router (only with the `coder` feature): each finds its
//! thread and hands the Coder round (`coder/`) the shared context and that thread; a reply that
//! may move a thread to another id (a new chat's) takes the threads.

use super::coder::{self, requests, stream};
use super::config::RunRequest;
use super::error::SessionError;
use super::thread::ThreadState;
use super::tool_set::ToolSet;
use super::Session;

use crate::coder::SubmitReply;
use crate::protocol::event::Tool;

impl Session {
    /// Starts a Coder chat's turn: `request.thread_id` empty, or [`RunRequest::new_chat`],
    /// creates a chat (with `declared`, every frontend tool in its wire form, as its dynamic
    /// tools: a chat's tools are fixed when it is created) and the turn runs under a provisional
    /// id (the request's, else one of the session's) until
    /// [`CoderAction::ThreadCreated`](coder::CoderAction::ThreadCreated); otherwise the message is
    /// posted to that chat, once its stream says it is idle. Returns the id the turn runs under.
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
        let thread_id = coder::chat_thread_id(&mut self.shared, &request)?;
        coder::check_chat_messages(self.threads.get(&thread_id), &request)?;
        let state = self
            .threads
            .get_or_insert_with(&thread_id, ThreadState::default);
        coder::start_chat(&mut self.shared, thread_id, state, request, tools, declared)
    }

    /// The answer to an [`CoderAction::ChatRequest`](coder::CoderAction::ChatRequest). An answer
    /// for a request the session does not know (of a thread forgotten since) is ignored.
    pub fn handle_chat_reply(&mut self, thread_id: &str, request_id: u64, reply: SubmitReply) {
        requests::chat_reply(
            &mut self.shared,
            &mut self.threads,
            thread_id,
            request_id,
            reply,
        );
    }

    /// One text message of the stream opened by
    /// [`CoderAction::OpenStream`](coder::CoderAction::OpenStream) `stream_id`. A message of
    /// another stream (closed since) is ignored.
    pub fn handle_stream_frame(&mut self, thread_id: &str, stream_id: u64, text: &str) {
        if let Some(state) = self.threads.get_mut(thread_id) {
            stream::stream_frame(&mut self.shared, thread_id, state, stream_id, text);
        }
    }

    /// The stream opened by [`CoderAction::OpenStream`](coder::CoderAction::OpenStream)
    /// `stream_id` ended (closed by the server, dropped, or refused before it opened). A turn
    /// going on resumes it after a wait (the session's deadline, as for a cut AG-UI stream), from
    /// the last committed message; after
    /// [`SessionConfig::max_reconnects`](crate::session::SessionConfig::max_reconnects) ends in a
    /// row without a frame, the turn ends in error (`coder/stream`).
    pub fn handle_stream_closed(&mut self, thread_id: &str, stream_id: u64) {
        if let Some(state) = self.threads.get_mut(thread_id) {
            stream::stream_closed(&mut self.shared, thread_id, state, stream_id);
        }
    }

    /// Whether the answer to the chat request `request_id` is still awaited: `false` once it was
    /// answered, counted unanswered at its deadline (a `tool-results` POST), or its thread was
    /// forgotten. The host aborts a request it sent that is no longer awaited.
    pub fn awaits_chat_reply(&self, request_id: u64) -> bool {
        requests::awaits_reply(&self.threads, request_id)
    }

    /// The reconnect the thread's stream started since the last call (its attempt, from 1, and
    /// its wait in ms), for the coalesced [`RuntimeEvent::Activity`](super::RuntimeEvent::Activity)
    /// of that moment.
    pub fn take_reconnecting(&mut self, thread_id: &str) -> Option<(u32, u64)> {
        stream::take_reconnecting(self.threads.get_mut(thread_id)?)
    }
}
