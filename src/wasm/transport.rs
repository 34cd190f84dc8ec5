//! The network: run requests streamed through `ReadableStream`, and `tools.json`.
//!
//! `fetch` is the app's (auth wrappers) or `globalThis.fetch`, always called with `globalThis`
//! as its receiver (an unbound `window.fetch` throws "Illegal invocation" otherwise).

use js_sys::{Function, Object, Reflect, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};

use super::js::describe;
use super::js::{AbortController, ReadResult, Response};
use super::runtime::{drive, mark_dirty, Shared};

/// How much of an error body is kept for `run/http` (pydantic-ai's 422 validation list, say).
const ERROR_BODY_BYTES: usize = 2048;

fn fetch_function(custom: Option<&Function>) -> Result<Function, String> {
    if let Some(f) = custom {
        return Ok(f.clone());
    }
    Reflect::get(&js_sys::global(), &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or_else(|| "there is no fetch in this environment; pass the `fetch` option".to_owned())
}

async fn call_fetch(fetch: &Function, url: &str, init: &Object) -> Result<Response, String> {
    let promise = fetch
        .call2(&js_sys::global(), &url.into(), init)
        .map_err(|e| describe(&e))?;
    let response = JsFuture::from(js_sys::Promise::resolve(&promise))
        .await
        .map_err(|e| describe(&e))?;
    if !response.is_object() {
        return Err("fetch did not return a Response".to_owned());
    }
    Ok(response.unchecked_into())
}

/// A text resource as fetched.
pub(crate) struct Fetched {
    /// The HTTP status.
    pub status: u16,
    /// The URL the body came from after redirects (`response.url`), or the one requested when
    /// the response does not say (a `Response` built by an app's own `fetch`).
    pub url: String,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The body.
    pub body: String,
}

/// GETs a text resource.
pub(crate) async fn get_text(custom: Option<&Function>, url: &str) -> Result<Fetched, String> {
    let fetch = fetch_function(custom)?;
    let init = Object::new();
    let _ = Reflect::set(&init, &"method".into(), &"GET".into());
    let response = call_fetch(&fetch, url, &init).await?;
    let status = response.status();
    let content_type = response.headers().get("content-type");
    let final_url = response
        .url()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| url.to_owned());
    let text = response.text().map_err(|e| describe(&e))?;
    let body = JsFuture::from(text).await.map_err(|e| describe(&e))?;
    Ok(Fetched {
        status,
        url: final_url,
        content_type,
        body: body.as_string().unwrap_or_default(),
    })
}

/// Sends one round's request and streams the answer into the session.
pub(crate) fn start(rc: &Shared, thread_id: String, run_id: String, url: String, body: String) {
    let rc = rc.clone();
    spawn_local(async move {
        let result = run(&rc, &thread_id, &run_id, &url, body).await;
        if let Err(message) = result {
            let still_current = rc.borrow().session.current_run_id(&thread_id) == Some(&*run_id);
            if still_current {
                rc.borrow_mut()
                    .session
                    .handle_transport_error(&thread_id, &run_id, &message);
            }
        }
        mark_dirty(&rc, &thread_id);
        drive(&rc);
    });
}

fn is_current(rc: &Shared, thread_id: &str, run_id: &str) -> bool {
    rc.borrow().session.current_run_id(thread_id) == Some(run_id)
}

async fn run(
    rc: &Shared,
    thread_id: &str,
    run_id: &str,
    url: &str,
    body: String,
) -> Result<(), String> {
    let controller = AbortController::new();
    let (fetch, headers) = {
        let mut inner = rc.borrow_mut();
        let fetch = fetch_function(inner.options.fetch.as_ref());
        let headers = Object::new();
        for (name, value) in &inner.options.headers {
            let _ = Reflect::set(&headers, &name.into(), &value.into());
        }
        let _ = Reflect::set(&headers, &"Content-Type".into(), &"application/json".into());
        let _ = Reflect::set(&headers, &"Accept".into(), &"text/event-stream".into());
        if let Some(running) = inner.running.get_mut(thread_id) {
            running.fetch = Some(controller.clone());
        }
        (fetch?, headers)
    };
    let init = Object::new();
    let _ = Reflect::set(&init, &"method".into(), &"POST".into());
    let _ = Reflect::set(&init, &"headers".into(), &headers);
    let _ = Reflect::set(&init, &"body".into(), &body.into());
    let _ = Reflect::set(&init, &"signal".into(), &controller.signal());

    let response = call_fetch(&fetch, url, &init).await?;
    if !is_current(rc, thread_id, run_id) {
        return Ok(());
    }
    let status = response.status();
    let content_type = response.headers().get("content-type");
    if !(200..300).contains(&status) {
        let text = match response.text() {
            Ok(promise) => JsFuture::from(promise)
                .await
                .ok()
                .and_then(|t| t.as_string())
                .unwrap_or_default(),
            Err(_) => String::new(),
        };
        let start: String = text.chars().take(ERROR_BODY_BYTES).collect();
        rc.borrow_mut().session.handle_response(
            thread_id,
            run_id,
            status,
            content_type.as_deref(),
            Some(&start),
        );
        return Ok(());
    }
    rc.borrow_mut().session.handle_response(
        thread_id,
        run_id,
        status,
        content_type.as_deref(),
        None,
    );
    drive(rc);
    if !is_current(rc, thread_id, run_id) {
        return Ok(());
    }
    let Some(stream) = response.body() else {
        rc.borrow_mut().session.handle_body_end(thread_id, run_id);
        return Ok(());
    };
    let reader = stream.get_reader().map_err(|e| describe(&e))?;
    loop {
        let read = reader.read().map_err(|e| describe(&e))?;
        let chunk: ReadResult = JsFuture::from(read)
            .await
            .map_err(|e| describe(&e))?
            .unchecked_into();
        if !is_current(rc, thread_id, run_id) {
            // Aborted, or the turn ended (RUN_ERROR, a decode error): stop reading.
            if let Ok(cancel) = reader.cancel() {
                let _ = JsFuture::from(cancel).await;
            }
            return Ok(());
        }
        if chunk.done() {
            rc.borrow_mut().session.handle_body_end(thread_id, run_id);
            return Ok(());
        }
        if let Some(bytes) = chunk.value() {
            let bytes: Vec<u8> = Uint8Array::to_vec(&bytes);
            rc.borrow_mut()
                .session
                .handle_bytes(thread_id, run_id, &bytes);
            mark_dirty(rc, thread_id);
            drive(rc);
        }
    }
}
