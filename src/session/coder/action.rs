//! What a Coder chat asks the host to do: [`CoderAction`], carried by the one
//! `Action::Coder` variant of the session's actions.

/// A Coder chat's work for the host (inside [`Action::Coder`](crate::session::Action::Coder)).
/// Every string is in the JSON layer's internal form, as for every action.
#[derive(Debug, Clone, PartialEq)]
pub enum CoderAction {
    /// `method` (`POST`; `GET` to read the chat) to `url` with `headers` (and `Content-Type: application/json` when there
    /// is a body); hand the answer (status and body text, or a network failure) to
    /// [`Session::handle_chat_reply`](crate::session::Session::handle_chat_reply) with `request_id`. A
    /// request is never cancelled by [`Action::Cancel`](crate::session::Action::Cancel): a create, a message or the results a
    /// server may have taken must be answered, and an interrupt is what Stop sends.
    ChatRequest {
        /// The thread (for a new chat, its provisional id until [`CoderAction::ThreadCreated`]).
        thread_id: String,
        /// Pass it back with the answer.
        request_id: u64,
        /// `"POST"` or `"GET"`.
        method: &'static str,
        /// The URL.
        url: String,
        /// The request headers (the session token, when configured).
        headers: Vec<(String, String)>,
        /// The JSON body (`None`: no body, as for an interrupt).
        body: Option<String>,
    },
    /// Open the chat's stream, a WebSocket at `url` (a path resolves against the page; an
    /// `http(s)` URL is `ws(s)` already). Never send on it. Hand each text message to
    /// [`Session::handle_stream_frame`](crate::session::Session::handle_stream_frame) and its end (closed,
    /// failed, refused) to [`Session::handle_stream_closed`](crate::session::Session::handle_stream_closed),
    /// with `stream_id`. A thread has at most one stream open: the session closes the one this
    /// replaces first ([`CoderAction::CloseStream`]), so a host may key streams by their id.
    OpenStream {
        /// The thread.
        thread_id: String,
        /// Pass it back with the frames and the end.
        stream_id: u64,
        /// The WebSocket URL.
        url: String,
    },
    /// Close the stream `stream_id` (the turn is over, or it is opened anew); nothing more of it
    /// is read.
    CloseStream {
        /// The thread.
        thread_id: String,
        /// The stream's id, as [`CoderAction::OpenStream`] gave it (`None`: none is open, as
        /// the session knows: one that ended already).
        stream_id: Option<u64>,
    },
    /// A new chat was created for a turn started under the provisional id
    /// [`Session::start_chat`](crate::session::Session::start_chat) returned: the thread and its turn
    /// are under `thread_id` from now on. The turn keeps its handle
    /// ([`Session::run_handle`](crate::session::Session::run_handle)): what the host keeps by it
    /// stays; what it keeps by thread id (a mirror of the messages, the toggles) moves (the new
    /// chat's toggles are the no-thread defaults).
    ThreadCreated {
        /// The id the turn started under.
        provisional: String,
        /// The chat's id.
        thread_id: String,
    },
}
