//! The Coder chat backend, sans-IO: the second protocol chat-runtime speaks, beside AG-UI.
//!
//! A Coder chat (Coder's "chatd", `/api/v2/chats`) is a resource on the server, not a run: it
//! is created once with the client's tools declared (`unsafe_dynamic_tools`), takes user
//! messages by `POST`, and streams its events over a long-lived WebSocket (`/stream`, resumed
//! with `?after_id=`). When the model calls one of the client's tools the chat pauses
//! (`requires_action`); the client runs the calls and answers every one of them in a single
//! `POST .../tool-results`, and the same turn resumes. The turn ends when the chat is `waiting`
//! again, or `error`.
//!
//! This module turns that into what the runtime already has, so the execute-and-restart loop
//! stays one loop: "deliver the results" is the one step that differs (restart a run for
//! AG-UI, submit for Coder).
//!
//! - [`options`]: `backend: {type: "coder", ...}` read and checked (the options' Coder room).
//! - [`wire`]: the JSON the client reads (chat, messages and parts, stream events, one
//!   WebSocket frame in every framing the server has used, error bodies), the bodies it
//!   writes (create, post a message, tool results) and the routes it calls.
//! - [`translate`]: [`CoderThread`], the stream in; AG-UI events for the runtime's thread
//!   reducer, the committed history, the chat's status, the calls to run (each once, however
//!   often the server re-sends its batch) and the end of the turn out.
//! - [`submit`]: the one `tool-results` body of a batch from the calls' outcomes, and what each
//!   answer to it means (done, someone answered first, resend once, refresh, give up).
//!
//! No I/O, no clock, no JavaScript: the host opens the socket, POSTs, and feeds back what came.
//! The module is not linked into the `.wasm` until the boundary uses it.

pub mod options;
pub mod schema;
pub mod submit;
pub mod translate;
pub mod wire;

pub use submit::{ResultsBatch, Submission, SubmitReply, SubmitStep};
pub use translate::{CoderThread, TurnEnd, Update};
pub use wire::{decode_frame, ChatError, ChatStatus, Frame, Routes, StreamEvent};
