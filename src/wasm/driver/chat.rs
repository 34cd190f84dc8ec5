//! Coder chats' I/O: the REST calls (create, message, tool results, interrupt) through the app's
//! `fetch`, each chat's stream (a read-only WebSocket, one per thread), and a new chat's move from
//! its provisional id to the chat's id.

use wasm_bindgen_futures::spawn_local;

use js_sys::Function;
use web_sys::AbortController;

use super::{upgrade, Driver};
use crate::coder::options::{check_chat_texts, CoderAuth};
use crate::coder::wire::input_texts;
use crate::coder::SubmitReply as ChatReply;
use crate::protocol::event::Message;
use crate::session::coder::CoderAction;
use crate::session::Session;
use crate::wasm::browser;
use crate::wasm::error::Error;
use crate::wasm::io::http;
use crate::wasm::io::socket::{Socket, SocketEvent};
use crate::wasm::io::IoError;

/// A Coder chat's stream: the session's id for it, the handle of the turn it serves (whose
/// thread the session knows, under the chat's id once a new chat has one), and its socket
/// (closed when dropped).
pub(super) struct Stream {
    id: u64,
    run: u64,
    /// Held for its drop, which closes it.
    _socket: Socket,
}

/// The `X-CSRF-TOKEN` source of a Coder chat's POSTs in cookie mode (no `sessionToken`):
/// `backend.csrfToken`, or the page's `<meta property="csrf-token">` as Coder's own site reads it.
pub(crate) enum Csrf {
    /// The page's meta tag, read at each request.
    Meta,
    /// `backend.csrfToken`, a string.
    Fixed(String),
    /// `backend.csrfToken`, a function called at each request.
    Function(Function),
}

/// What coderd would refuse (an empty or blank text) is refused before anything is sent: the
/// texts of a run's new user messages (`run/bad-request`). Messages of other roles are the
/// session's to refuse.
pub(super) fn check_new_texts(
    session: &Session,
    thread_id: &str,
    messages: &[Message],
) -> Result<(), Error> {
    let known = session.messages(thread_id);
    let mut texts: Vec<(usize, &str)> = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if known.iter().any(|k| k.id() == message.id()) {
            continue;
        }
        match message {
            Message::User(user) => {
                texts.extend(input_texts(&user.content).into_iter().map(|t| (index, t)))
            }
            _ => return Ok(()),
        }
    }
    check_chat_texts(&texts)?;
    Ok(())
}

/// Where the `X-CSRF-TOKEN` comes from: `backend.csrfToken` as a function (taken by the
/// boundary, as `fetch` is), else as a string, else the page's meta tag.
pub(crate) fn csrf_source(function: Option<Function>, auth: CoderAuth) -> Csrf {
    match (function, auth.csrf_token) {
        (Some(f), _) => Csrf::Function(f),
        (None, Some(token)) => Csrf::Fixed(token),
        (None, None) => Csrf::Meta,
    }
}

/// The `X-CSRF-TOKEN` of one request: `Ok(None)` when there is none (no meta tag, or the
/// function gave no non-empty string); `Err`: what the app's function threw.
fn csrf_token(csrf: &Csrf) -> Result<Option<String>, wasm_bindgen::JsValue> {
    use crate::wasm::convert::{call_method, host};
    let value = match csrf {
        Csrf::Fixed(token) => return Ok(Some(token.clone())),
        Csrf::Function(f) => f.call0(&wasm_bindgen::JsValue::UNDEFINED)?,
        Csrf::Meta => {
            let document = host(&js_sys::global(), "document");
            if !document.is_object() {
                return Ok(None);
            }
            let selector = "meta[property=\"csrf-token\"]".into();
            match call_method(&document, "querySelector", &[&selector]) {
                Ok(meta) if meta.is_object() => host(&meta, "content"),
                _ => return Ok(None),
            }
        }
    };
    Ok(value.as_string().filter(|t| !t.is_empty()))
}

impl Driver {
    /// A Coder chat's action ([`CoderAction`]), from the drive loop.
    pub(super) fn coder_action(&self, action: CoderAction) {
        match action {
            CoderAction::ChatRequest {
                thread_id,
                request_id,
                method,
                url,
                headers,
                body,
            } => self.spawn_chat_request(thread_id, request_id, method, url, headers, body),
            CoderAction::OpenStream {
                thread_id,
                stream_id,
                url,
            } => self.open_stream(thread_id, stream_id, &url),
            CoderAction::CloseStream { stream_id, .. } => {
                if let Some(stream_id) = stream_id {
                    self.close_stream(stream_id);
                }
            }
            CoderAction::ThreadCreated {
                provisional,
                thread_id,
            } => self.thread_created(&provisional, &thread_id),
        }
    }

    /// A [`CoderAction::ChatRequest`]: a `POST` through the
    /// app's `fetch` (or the global one); the status and whole body, or the network's failure,
    /// go back to the session. Aborted only once the session no longer awaits it (a `tool-results`
    /// POST or one of Stop's interrupts unanswered at its deadline: [`Driver::abort_unawaited`]),
    /// so it keeps no connection; Stop is an interrupt the session sends, not an abort.
    ///
    /// Auth, as coderd checks it: with a session token (the session's `Coder-Session-Token`
    /// header) the request carries no cookies (`credentials: "omit"`), so a Coder cookie of the
    /// page can neither disagree with the header (coderd's CSRF check refuses that) nor stand in
    /// for it; without one (cookie mode) it carries `X-CSRF-TOKEN` ([`Csrf`]), which coderd
    /// requires of every cookie-carrying POST. A `csrfToken` function that throws fails the
    /// request as the app's `fetch` throwing would.
    pub(super) fn spawn_chat_request(
        &self,
        thread_id: String,
        request_id: u64,
        method: &'static str,
        url: String,
        mut headers: Vec<(String, String)>,
        body: Option<String>,
    ) {
        if body.is_some() {
            headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
        }
        // A request the session awaits gets a controller (none when `AbortController` threw).
        let controller = {
            let state = &mut *self.borrow_mut();
            let awaited = state.session.awaits_chat_reply(request_id);
            let controller = awaited.then(AbortController::new).and_then(Result::ok);
            if let Some(controller) = &controller {
                state.chat_fetches.push((request_id, controller.clone()));
            }
            controller
        };
        let signal = controller.as_ref().and_then(browser::signal);
        let driver = self.clone();
        spawn_local(async move {
            let host = driver.host();
            let reply: Result<ChatReply, IoError> = 'reply: {
                let token_mode = headers.iter().any(|(n, _)| n == "Coder-Session-Token");
                if !token_mode && method == "POST" {
                    match csrf_token(&host.csrf) {
                        Ok(Some(token)) => headers.push(("X-CSRF-TOKEN".to_owned(), token)),
                        Ok(None) => {}
                        Err(thrown) => break 'reply Err(IoError::Thrown(thrown)),
                    }
                }
                let credentials = token_mode.then_some("omit");
                let sent = match host.fetch.send_with(
                    method,
                    &url,
                    &headers,
                    body.as_deref(),
                    signal.as_ref(),
                    credentials,
                ) {
                    Ok(sent) => sent,
                    Err(failure) => break 'reply Err(failure),
                };
                let answer = match http::answer(sent.await) {
                    Ok(answer) => answer,
                    Err(failure) => break 'reply Err(failure),
                };
                let status = http::head(&answer, &url).status;
                let text = match http::text(&answer) {
                    Ok(read) => http::text_of(read.await),
                    Err(error) => Err(error),
                };
                match text {
                    // The server's text, brought into the internal form.
                    Ok(text) => Ok(ChatReply::Http(
                        status,
                        crate::json::from_js_string(&text).into_owned(),
                    )),
                    Err(failure) => Err(failure),
                }
            };
            if controller.is_some() {
                let fetches = &mut driver.borrow_mut().chat_fetches;
                match fetches.iter().position(|(id, _)| *id == request_id) {
                    Some(at) => drop(fetches.swap_remove(at)),
                    // Aborted: the session counted it unanswered already.
                    None => return,
                }
            }
            // After `free()` the session still hears the answer: what Stop owes the server (the
            // second interrupt at `requires_action`, the interrupt of a chat whose create was
            // out) is sent all the same. Every turn is over, so nothing else can follow.
            let freed = driver.borrow().freed;
            {
                let state = &mut *driver.borrow_mut();
                let cause = reply.as_ref().err().map(IoError::cause);
                state.session.handle_chat_reply(
                    &thread_id,
                    request_id,
                    reply.unwrap_or(ChatReply::Network),
                );
                // What the app's `fetch` threw is the cause of the turn's end when this ended it
                // (`run/network`); a failure the session retries past is no later error's cause.
                if let (Some(cause), false) = (cause, state.session.is_running(&thread_id)) {
                    if let Some(running) = state.running_mut(&thread_id) {
                        running.cause = cause;
                    }
                }
            }
            if !freed {
                driver.mark_dirty(&thread_id);
            }
            driver.drive();
        });
    }

    /// Aborts each chat request out whose answer the session no longer awaits (after its clock
    /// moved: a `tool-results` POST or an interrupt unanswered at its deadline counts as failed
    /// there), so its connection is let go rather than kept until the server or a proxy closes
    /// it. Called before the next `drive`: an interrupt given up is aborted before the message it
    /// held is sent. Its late answer would be ignored; the abort's rejection is not told at all.
    pub(super) fn abort_unawaited(&self) {
        // One at a time, without a list of them (as the session finds its due submissions).
        loop {
            let unawaited = {
                let state = &mut *self.borrow_mut();
                let session = &state.session;
                let fetches = &mut state.chat_fetches;
                let at = fetches
                    .iter()
                    .position(|(id, _)| !session.awaits_chat_reply(*id));
                at.map(|at| fetches.swap_remove(at).1)
            };
            let Some(controller) = unawaited else { return };
            browser::abort(&controller, &wasm_bindgen::JsValue::UNDEFINED);
        }
    }

    /// A [`CoderAction::OpenStream`]: the thread's socket (the session closed any it had
    /// first). A socket that cannot be made is over at once.
    pub(super) fn open_stream(&self, thread_id: String, stream_id: u64, url: &str) {
        let weak = self.weak();
        let opened = Socket::open(url, move |event| {
            if let Some(driver) = upgrade(&weak) {
                driver.stream_event(stream_id, event);
            }
        });
        match opened {
            Ok(socket) => {
                let state = &mut *self.borrow_mut();
                let run = state.session.run_handle(&thread_id).unwrap_or_default();
                state.streams.push(Stream {
                    id: stream_id,
                    run,
                    _socket: socket,
                });
            }
            // Called from `drive`, whose loop takes the actions this queues.
            Err(_) => {
                self.borrow_mut()
                    .session
                    .handle_stream_closed(&thread_id, stream_id);
                self.mark_dirty(&thread_id);
            }
        }
    }

    /// A [`CoderAction::CloseStream`]: the stream's socket is closed (as it is dropped, with no
    /// borrow held); nothing more of it is told.
    pub(super) fn close_stream(&self, stream_id: u64) {
        let stream = {
            let streams = &mut self.borrow_mut().streams;
            let at = streams.iter().position(|s| s.id == stream_id);
            at.map(|at| streams.swap_remove(at))
        };
        drop(stream);
    }

    /// What a stream's socket told: a frame for the session, or its end (the socket is let go).
    /// The stream is found by its id, its thread by its turn's handle: the session says which
    /// thread the turn is of now (the chat's id, once a new chat has one).
    fn stream_event(&self, stream_id: u64, event: SocketEvent) {
        let thread_id = {
            let state = self.borrow();
            if state.freed {
                return;
            }
            let found = state.streams.iter().find(|s| s.id == stream_id);
            match found.and_then(|s| state.session.run_thread(s.run)) {
                Some(thread_id) => thread_id.to_owned(),
                None => return,
            }
        };
        match event {
            SocketEvent::Text(text) => {
                self.borrow_mut()
                    .session
                    .handle_stream_frame(&thread_id, stream_id, &text);
            }
            SocketEvent::Ended => {
                self.close_stream(stream_id);
                self.borrow_mut()
                    .session
                    .handle_stream_closed(&thread_id, stream_id);
            }
        }
        self.mark_dirty(&thread_id);
        self.drive();
    }

    /// A [`CoderAction::ThreadCreated`]: the session moved the thread (and with it its turn's
    /// handle, by which the driver keeps the turn's promise, fetches, calls, stream and the
    /// caller's `signal`: none of them moves). What the driver keeps by thread moves: the frames'
    /// mirror, and the toggles the provisional id shows (those the app set under it with
    /// `newChat`, else a copy of the defaults, `chat:tools:default`, as a new AG-UI thread gets
    /// at its first run), so what the user chose before the chat had an id is its own from now
    /// on.
    pub(super) fn thread_created(&self, provisional: &str, thread_id: &str) {
        {
            let render = &mut self.borrow_mut().render;
            if render.dirty.remove(provisional).is_some() {
                render.dirty.add(thread_id);
            }
            if let Some(mirror) = render.mirrors.remove(provisional) {
                render.mirrors.insert(thread_id.to_owned(), mirror);
            }
        }
        self.load_toggles(Some(provisional));
        self.load_toggles(Some(thread_id));
        self.borrow_mut().toggles.adopt(provisional, thread_id);
        self.save_toggles();
        self.emit_toggle_diagnostics();
        self.mark_dirty(thread_id);
    }
}
