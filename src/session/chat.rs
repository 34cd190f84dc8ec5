//! Coder chats: the execute-and-submit loop on the same turn, calls and results.
//!
//! (Being written: the signatures are the seam the driver uses.)

use super::config::RunRequest;
use super::error::SessionError;
use super::tool_set::ToolSet;
use super::Session;

use crate::coder::SubmitReply;
use crate::protocol::event::Tool;

impl Session {
    /// Starts a Coder chat's turn: `request.thread_id` empty creates a chat (with `declared`,
    /// every frontend tool, as its dynamic tools) and the turn runs under a provisional id until
    /// [`Action::ThreadCreated`](super::Action::ThreadCreated); otherwise the message is posted to
    /// that chat. Returns the id the turn runs under.
    pub fn start_chat(
        &mut self,
        request: RunRequest,
        tools: ToolSet,
        declared: Vec<Tool>,
    ) -> Result<String, SessionError> {
        let _ = (request, tools, declared);
        todo!()
    }

    /// The answer to an [`Action::ChatRequest`](super::Action::ChatRequest).
    pub fn handle_chat_reply(&mut self, thread_id: &str, request_id: u64, reply: SubmitReply) {
        let _ = (thread_id, request_id, reply);
        todo!()
    }

    /// One text message of an [`Action::OpenStream`](super::Action::OpenStream)'s socket.
    pub fn handle_stream_frame(&mut self, thread_id: &str, stream_id: u64, text: &str) {
        let _ = (thread_id, stream_id, text);
        todo!()
    }

    /// The socket of an [`Action::OpenStream`](super::Action::OpenStream) ended (closed by the
    /// server, dropped, or refused before it opened).
    pub fn handle_stream_closed(&mut self, thread_id: &str, stream_id: u64) {
        let _ = (thread_id, stream_id);
        todo!()
    }
}
