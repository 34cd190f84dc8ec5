//! The network: each round's request (the app's `prepareRequest`, then its `fetch`), the answer
//! read a slice at a time into the session, a failure reported as the round's, and the resumed
//! request of a reconnect (`Last-Event-ID`, after the session's delay).

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::AbortController;

use super::Driver;
use crate::session::{BodySink, RequestBody, RoundRequest};
use crate::wasm::convert;
use crate::wasm::io::http::{self, Body};
use crate::wasm::io::IoError;
use crate::wasm::{browser, string};

impl Driver {
    /// Sends one round's request and streams the answer into the session.
    pub(super) fn spawn_send(
        &self,
        thread_id: String,
        run_id: String,
        round: u32,
        body: RequestBody,
    ) {
        let controller = AbortController::new().ok();
        let prepare = {
            let state = &mut *self.borrow_mut();
            if let Some(running) = state.running_mut(&thread_id) {
                running.fetch = controller.clone();
            }
            state.host.prepare_request.clone()
        };
        let driver = self.clone();
        spawn_local(async move {
            if !driver.is_current(&thread_id, &run_id) {
                // Stopped before this task ran: not even `prepareRequest` is called.
                return;
            }
            if let Some(BodyThrown(thrown)) = body.get() {
                let failure = IoError::Thrown(thrown.clone());
                driver.request_failed(&thread_id, &run_id, failure, false);
                return;
            }
            let prepared = match prepare {
                Some(prepare) => match prepare_request(&prepare, &body, &thread_id, round) {
                    Ok(promise) => prepared_body(JsFuture::from(promise).await).map(Some),
                    Err(failure) => Err(failure),
                },
                None => Ok(None),
            };
            match prepared {
                Ok(prepared) => {
                    // The session keeps the body for a reconnect, and the request goes out as it
                    // has it (one copy of the body); `None`: the round was stopped (or the turn
                    // ended) while `prepareRequest` ran, and nothing is sent.
                    let request = {
                        let session = &mut driver.borrow_mut().session;
                        let body = prepared.unwrap_or(body);
                        session
                            .handle_request_prepared(&thread_id, &run_id, body)
                            .then(|| session.sent_request(&thread_id, &run_id))
                            .flatten()
                    };
                    if let Some(request) = request {
                        driver.spawn_request(thread_id, run_id, request, None, controller);
                    }
                }
                Err(failure) => {
                    driver.request_failed(&thread_id, &run_id, failure, true);
                }
            }
        });
    }

    /// Resumes a cut stream now (the session waited: its deadline passed): the same request with
    /// `Last-Event-ID`, under a new controller that Stop aborts.
    pub(super) fn spawn_reconnect(
        &self,
        thread_id: String,
        run_id: String,
        request: RoundRequest,
        id: String,
    ) {
        let controller = AbortController::new().ok();
        {
            let mut state = self.borrow_mut();
            let Some(running) = state.running_mut(&thread_id) else {
                return;
            };
            running.fetch = controller.clone();
        }
        self.spawn_request(thread_id, run_id, request, Some(id), controller);
    }

    /// Sends `request` (with `Last-Event-ID` when resuming) and streams the answer into the
    /// session, in a task of its own (one kind of future for first sends and reconnects alike).
    fn spawn_request(
        &self,
        thread_id: String,
        run_id: String,
        request: RoundRequest,
        last_event_id: Option<String>,
        controller: Option<AbortController>,
    ) {
        let driver = self.clone();
        // One async block, not one more `async fn` inside it (each is a state machine).
        spawn_local(async move {
            let mut headers = request.headers.clone();
            headers.extend(last_event_id.map(|id| ("Last-Event-ID".to_owned(), id)));
            let signal = controller.as_ref().and_then(browser::signal);
            let host = driver.host();
            let (thread_id, run_id, url) = (&thread_id[..], &run_id[..], &request.url[..]);
            // The whole exchange in this one block (not an `async fn` awaited here: each is a
            // state machine); `Ok` when it ended or the turn moved on, `Err` when it failed.
            let ended: Result<(), IoError> = 'stream: {
                let body = js_body(&request.body);
                let sent = match host
                    .fetch
                    .send("POST", url, &headers, body, signal.as_ref())
                {
                    Ok(sent) => sent,
                    Err(failure) => break 'stream Err(failure),
                };
                let answer = match http::answer(sent.await) {
                    Ok(answer) => answer,
                    Err(failure) => break 'stream Err(failure),
                };
                if !driver.is_current(thread_id, run_id) {
                    break 'stream Ok(());
                }
                let head = http::head(&answer, url);
                let error_body = if crate::http::is_success(head.status) {
                    None
                } else {
                    let text = match http::text(&answer) {
                        Ok(read) => http::text_of(read.await),
                        Err(error) => Err(error),
                    };
                    // The page's text, quoted in the error: brought into the internal form.
                    let text = text.unwrap_or_default();
                    Some(crate::json::from_js_string(&text).into_owned())
                };
                driver.borrow_mut().session.handle_response(
                    thread_id,
                    run_id,
                    head.status,
                    head.content_type.as_deref(),
                    error_body.as_deref(),
                );
                driver.drive();
                if !driver.is_current(thread_id, run_id) {
                    break 'stream Ok(());
                }
                let body = match Body::open(&answer) {
                    Ok(Some(body)) => {
                        if let Some(running) = driver.borrow_mut().running_mut(thread_id) {
                            running.body = Some(body.reader());
                        }
                        body
                    }
                    Ok(None) => {
                        driver
                            .borrow_mut()
                            .session
                            .handle_body_end(thread_id, run_id);
                        break 'stream Ok(());
                    }
                    Err(error) => break 'stream Err(error),
                };
                // The slices' buffer, kept from chunk to chunk (at most `http::SLICE` bytes).
                let mut bytes = Vec::new();
                loop {
                    let chunk = match Body::chunk(body.read().await) {
                        Ok(chunk) => chunk,
                        Err(error) => break 'stream Err(error),
                    };
                    if !driver.is_current(thread_id, run_id) {
                        // Stopped, or the turn ended (RUN_ERROR, a decode error): stop reading.
                        let _ = body.cancel().await;
                        break 'stream Ok(());
                    }
                    let Some(mut chunk) = chunk else {
                        driver
                            .borrow_mut()
                            .session
                            .handle_body_end(thread_id, run_id);
                        break 'stream Ok(());
                    };
                    // A slice at a time (`http::SLICE`): a whole body in one chunk is never in
                    // wasm memory at once, nor are all of its events. An empty chunk is fed too.
                    let mut more = match chunk.slice(&mut bytes) {
                        Ok(more) => more,
                        Err(error) => break 'stream Err(error),
                    };
                    loop {
                        driver
                            .borrow_mut()
                            .session
                            .handle_bytes(thread_id, run_id, &bytes);
                        driver.mark_dirty(thread_id);
                        driver.drive();
                        if more {
                            more = match chunk.slice(&mut bytes) {
                                Ok(more) => more,
                                Err(error) => break 'stream Err(error),
                            };
                        }
                        if !more {
                            break;
                        }
                        if !driver.is_current(thread_id, run_id) {
                            let _ = body.cancel().await;
                            break 'stream Ok(());
                        }
                    }
                }
            };
            match ended {
                Ok(()) => {
                    driver.mark_dirty(thread_id);
                    driver.drive();
                }
                Err(failure) => driver.request_failed(thread_id, run_id, failure, false),
            }
        });
    }

    /// The request could not be prepared (`prepareRequest` threw) or sent.
    fn request_failed(&self, thread_id: &str, run_id: &str, failure: IoError, preparing: bool) {
        {
            let state = &mut *self.borrow_mut();
            let session = &mut state.session;
            // A stopped round's failure (a late `prepareRequest` rejection) is no later run's.
            if session.current_run_id(thread_id) != Some(run_id) {
                return;
            }
            let message = convert::io_message(&failure);
            if preparing {
                let code = "run/prepare-request";
                session.handle_request_error(thread_id, run_id, code, &message, None);
            } else {
                let status = http::thrown_status(&failure);
                session.handle_transport_error(thread_id, run_id, &message, status);
            }
            // A resumed stream goes on: what was thrown is no cause of a later ending.
            let resumed = session.current_run_id(thread_id) == Some(run_id);
            if let (Some(running), false) = (state.running_mut(thread_id), resumed) {
                running.cause = failure.cause();
            }
        }
        self.mark_dirty(thread_id);
        self.drive();
    }

    fn is_current(&self, thread_id: &str, run_id: &str) -> bool {
        self.borrow().session.current_run_id(thread_id) == Some(run_id)
    }
}

/// Calls the app's `prepareRequest(body, { threadId, round })` over a round's JSON body: what it
/// returned, as a promise for [`prepared_body`]. Two plain functions around the one await, not an
/// `async fn` (one more state machine).
fn prepare_request(
    prepare: &Function,
    body: &RequestBody,
    thread_id: &str,
    round: u32,
) -> Result<Promise, IoError> {
    let value = match js_body(body) {
        Some(text) => string::parse_json(text),
        None => Err(JsValue::UNDEFINED),
    };
    let value = value.map_err(IoError::Thrown)?;
    let info = Object::new();
    let _ = Reflect::set(&info, &"threadId".into(), &convert::js_string(thread_id));
    let _ = Reflect::set(&info, &"round".into(), &round.into());
    let prepared = prepare
        .call2(&JsValue::UNDEFINED, &value, &info)
        .map_err(IoError::Thrown)?;
    Ok(Promise::resolve(&prepared))
}

/// The JSON text of what `prepareRequest` returned (or of what its promise resolved to), as a JS
/// string.
fn prepared_body(settled: Result<JsValue, JsValue>) -> Result<RequestBody, IoError> {
    let prepared = settled.map_err(IoError::Thrown)?;
    let is_array = browser::is_array(&prepared).map_err(IoError::Thrown)?;
    if !prepared.is_object() || is_array {
        let what = if is_array {
            "an array".to_owned()
        } else if prepared.is_null() {
            "null".to_owned()
        } else {
            prepared.js_typeof().as_string().unwrap_or_default()
        };
        return Err(IoError::NotABody {
            value: prepared,
            what,
        });
    }
    let text: JsValue = js_sys::JSON::stringify(&prepared)
        .map_err(IoError::Thrown)?
        .into();
    if !text.is_string() {
        return Err(IoError::NotJson);
    }
    Ok(RequestBody::held(text))
}

/// The browser's [`BodySink`]: each piece becomes a JS string at once, and the body is their
/// concatenation (a rope in the engine until `fetch` reads it), never whole in wasm memory
/// (whose size never shrinks: a long chat's body, the whole thread, grew the page for good).
/// A concatenation that throws (past the engine's longest string, or a page's broken
/// `String.prototype.concat`) makes the body a [`BodyThrown`]: the round fails with it, and
/// nothing is sent.
pub(crate) struct JsBodySink {
    text: JsValue,
    thrown: Option<JsValue>,
}

impl JsBodySink {
    pub(crate) fn new() -> JsBodySink {
        JsBodySink {
            text: JsValue::from_str(""),
            thrown: None,
        }
    }
}

impl BodySink for JsBodySink {
    fn push(&mut self, piece: &str) {
        if self.thrown.is_none() {
            match concat_str(&self.text, piece) {
                Ok(text) => self.text = text,
                Err(thrown) => self.thrown = Some(thrown),
            }
        }
    }

    fn finish(&mut self) -> RequestBody {
        let text = std::mem::replace(&mut self.text, JsValue::from_str(""));
        match self.thrown.take() {
            Some(thrown) => RequestBody::held(BodyThrown(thrown)),
            None => RequestBody::held(text),
        }
    }
}

/// A body the browser could not build: what its concatenation threw.
struct BodyThrown(JsValue);

/// A round's body as the JS string `fetch` sends: the sink's or `prepareRequest`'s (the
/// browser's session makes no other).
fn js_body(body: &RequestBody) -> Option<&JsValue> {
    body.get::<JsValue>()
}

#[wasm_bindgen]
extern "C" {
    /// `String.prototype.concat.call(text, piece)`, the piece handed over as a Rust `&str` (one
    /// crossing).
    #[wasm_bindgen(catch, js_namespace = ["String", "prototype", "concat"], js_name = call)]
    fn concat_str(text: &JsValue, piece: &str) -> Result<JsValue, JsValue>;
}
