//! HTTP through the app's `fetch` (auth wrappers) or the global one.
//!
//! A request goes out as `fetch(url, init)` with a plain `init` (`method`, `headers` as a plain
//! object, `body`, `signal`): an app's wrapper that adds a header with
//! `fetch(url, { ...init, headers: { ...init.headers, Authorization } })` keeps ours. Handing it a
//! `Request` instead would not: the Fetch standard replaces a `Request`'s headers wholesale when
//! `init.headers` is given. The answer is read through `web-sys`'s `Response` directly (status,
//! headers, URL, body stream, text): `gloo-net`'s wrapper adds nothing but `unwrap_throw`s (its
//! `text()` would abort the module on the `TypeError` of a body the app's wrapper already read).

use js_sys::{Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use super::IoError;
use crate::wasm::convert::{call_method, host};
use crate::wasm::string::js_string;

/// The HTTP status an [`IoError::Thrown`] value carries (`status`, an integer 100-599, own or
/// inherited), as an auth wrapper's `FetchError(401)` does.
pub(crate) fn thrown_status(error: &IoError) -> Option<u16> {
    let IoError::Thrown(cause) = error else {
        return None;
    };
    if !cause.is_object() {
        return None;
    }
    let status = Reflect::get(cause, &"status".into()).ok()?.as_f64()?;
    (status.fract() == 0.0 && (100.0..=599.0).contains(&status)).then_some(status as u16)
}

/// The `fetch` to call, and how.
#[derive(Clone)]
pub(crate) struct Fetch {
    function: Option<Function>,
}

impl Fetch {
    /// The app's `fetch`, or `globalThis.fetch` (looked up at each call, so a page that installs
    /// one later, a test stub, is seen).
    pub(crate) fn new(custom: Option<Function>) -> Self {
        Self { function: custom }
    }

    fn function(&self) -> Result<Function, IoError> {
        if let Some(f) = &self.function {
            return Ok(f.clone());
        }
        Reflect::get(&js_sys::global(), &"fetch".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
            .ok_or(IoError::NoFetch)
    }

    /// Sends a request: the future of the response head, for [`answer`] (two plain functions
    /// around the caller's await, not an `async fn`: one more state machine). `Err`: there is no
    /// `fetch`, or it threw (what it threw is the failure's `cause`).
    ///
    /// `url` and `headers` are internal strings (`crate::json`): `fetch` gets the JS strings they
    /// stand for ([`js_string`]; the app's `headers` option cannot hold a lone surrogate,
    /// `convert::headers`). `body` is a JS string (a round's body, written to JavaScript in
    /// pieces: `session::BodySink`).
    pub(crate) fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: Option<&JsValue>,
        signal: Option<&AbortSignal>,
    ) -> Result<JsFuture, IoError> {
        self.request(method, url, headers, body, signal, None)
    }

    /// [`Fetch::send`] with `init.credentials` (`"omit"`: no cookies go, none are kept) when
    /// given; the Fetch default (`"same-origin"`) otherwise, and `body` JSON text (which holds no
    /// private form).
    #[cfg(feature = "coder")]
    pub(crate) fn send_with(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: Option<&str>,
        signal: Option<&AbortSignal>,
        credentials: Option<&str>,
    ) -> Result<JsFuture, IoError> {
        let body = body.map(JsValue::from_str);
        self.request(method, url, headers, body.as_ref(), signal, credentials)
    }

    /// The request, its body a JS value.
    fn request(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: Option<&JsValue>,
        signal: Option<&AbortSignal>,
        credentials: Option<&str>,
    ) -> Result<JsFuture, IoError> {
        let fetch = self.function()?;
        // A plain object set with `Reflect.set`, which the headers need anyway (`RequestInit`'s
        // setters would each be a binding of their own).
        let init = Object::new();
        let set = |key: &str, value: &JsValue| {
            let _ = Reflect::set(&init, &key.into(), value);
        };
        set("method", &method.into());
        if !headers.is_empty() {
            let object = Object::new();
            for (name, value) in headers {
                let _ = Reflect::set(&object, &js_string(name), &js_string(value));
            }
            set("headers", &object);
        }
        if let Some(body) = body {
            set("body", body);
        }
        if let Some(signal) = signal {
            set("signal", signal);
        }
        if let Some(credentials) = credentials {
            set("credentials", &credentials.into());
        }
        // `globalThis` as the receiver: an unbound `window.fetch` throws "Illegal invocation".
        let promise = fetch
            .call2(&js_sys::global(), &js_string(url), &init)
            .map_err(IoError::Thrown)?;
        Ok(JsFuture::from(Promise::resolve(&promise)))
    }
}

/// The response a [`Fetch::send`] future settled to. `Err`: the network failed (what was thrown
/// is the failure's `cause`), or `fetch` gave something that is not a `Response`.
pub(crate) fn answer(settled: Result<JsValue, JsValue>) -> Result<Answer, IoError> {
    let response = settled.map_err(IoError::Thrown)?;
    // A look-alike object would make every getter a guess: only a real `Response` is read.
    let raw = response
        .dyn_into::<web_sys::Response>()
        .map_err(|_| IoError::NotAResponse)?;
    Ok(Answer(raw))
}

/// A response.
pub(crate) struct Answer(web_sys::Response);

/// The parts of a response head the core's rules look at.
pub(crate) struct Head {
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The URL the body came from after redirects, or `requested` when the response does not
    /// say (a `Response` built by an app's own `fetch`).
    pub url: String,
}

/// Reads the head of `answer`.
pub(crate) fn head(answer: &Answer, requested: &str) -> Head {
    // `status` and `url` through `Reflect.get` (a binding the runtime has anyway): a `Response`'s
    // `status` is always an integer 0-999, its `url` a string.
    let response = &answer.0;
    let url = host(response, "url").as_string().unwrap_or_default();
    Head {
        status: host(response, "status").as_f64().unwrap_or_default() as u16,
        // `headers` and its `get` through bindings that catch: an app's `Response` subclass may
        // throw from either.
        content_type: call_method(&host(response, "headers"), "get", &[&"content-type".into()])
            .ok()
            .and_then(|v| v.as_string()),
        url: if url.is_empty() {
            requested.to_owned()
        } else {
            url
        },
    }
}

/// Reads the whole body: the future of `text()`, for [`text_of`] (`Err`: `text()` threw). Two
/// plain functions around the caller's await, not an `async fn` (one more state machine).
pub(crate) fn text(answer: &Answer) -> Result<JsFuture, IoError> {
    answer.0.text().map(JsFuture::from).map_err(IoError::Failed)
}

/// The body as text, from what [`text`]'s future settled to (`Err`: it could not be read).
pub(crate) fn text_of(settled: Result<JsValue, JsValue>) -> Result<String, IoError> {
    let text = settled.map_err(IoError::Failed)?;
    Ok(text.as_string().unwrap_or_default())
}

/// The body, chunk by chunk. Every call on the stream and the reader goes through bindings
/// that catch ([`call_method`]): an app's `fetch` may hand over a `Response` whose body or reader
/// throws.
pub(crate) struct Body {
    reader: JsValue,
}

impl Body {
    /// The body's reader; `Ok(None)` for a response without a body.
    pub(crate) fn open(answer: &Answer) -> Result<Option<Self>, IoError> {
        let stream = js_sys::Reflect::get(&answer.0, &"body".into()).map_err(IoError::Failed)?;
        if stream.is_null() || stream.is_undefined() {
            return Ok(None);
        }
        // `getReader()` throws on a locked stream (the app's wrapper read the body).
        if host(&stream, "locked") == JsValue::TRUE {
            return Err(IoError::BodyUsed);
        }
        let reader = call_method(&stream, "getReader", &[]).map_err(IoError::Failed)?;
        Ok(Some(Self { reader }))
    }

    /// Reads the next chunk: [`Body::chunk`] of what the future gives (two plain functions, not
    /// an `async fn`, which would be one more state machine).
    pub(crate) fn read(&self) -> JsFuture {
        // A `read` that throws is a read that failed: the future rejects with what was thrown.
        let read =
            call_method(&self.reader, "read", &[]).unwrap_or_else(|e| Promise::reject(&e).into());
        JsFuture::from(Promise::resolve(&read))
    }

    /// The chunk a [`Body::read`] gave; `Ok(None)` at the end. It stays in JavaScript memory:
    /// [`Chunk::slice`] copies it into wasm a slice at a time.
    pub(crate) fn chunk(read: Result<JsValue, JsValue>) -> Result<Option<Chunk>, IoError> {
        let chunk = read.map_err(IoError::Failed)?;
        // Anything but `false` ends the stream (`!= FALSE`: no glue of its own for a boolean read).
        let done = Reflect::get(&chunk, &"done".into()).map_or(true, |d| d != JsValue::FALSE);
        if done {
            return Ok(None);
        }
        let value = Reflect::get(&chunk, &"value".into()).unwrap_or(JsValue::UNDEFINED);
        let Ok(bytes) = value.dyn_into::<Uint8Array>() else {
            return Err(IoError::ChunkNotBytes);
        };
        Ok(Some(Chunk { bytes, at: 0 }))
    }

    /// The reader, for [`cancel_reader`] from outside the task that reads.
    pub(crate) fn reader(&self) -> JsValue {
        self.reader.clone()
    }

    /// Stops reading (the run was stopped or is over): a future to await (not an `async fn`,
    /// which would be one more state machine for one call).
    pub(crate) fn cancel(self) -> JsFuture {
        let cancel =
            call_method(&self.reader, "cancel", &[]).unwrap_or_else(|e| Promise::reject(&e).into());
        JsFuture::from(Promise::resolve(&cancel))
    }
}

/// The most of a chunk copied into wasm memory and decoded at a time. A buffering proxy or a
/// cache hands the whole body over as one chunk (20 MB and more): copied at once, it would sit in
/// wasm memory beside all of its decoded events, and the heap (which never shrinks) would grow by
/// several times the body. A slice at a time, the heap holds one slice and what it decodes to.
pub(crate) const SLICE: u32 = 64 * 1024;

/// A chunk of the body, in JavaScript memory until [`Chunk::slice`] copies it.
pub(crate) struct Chunk {
    bytes: Uint8Array,
    at: u32,
}

impl Chunk {
    /// Copies the chunk's next at most [`SLICE`] bytes into `into` (replacing what it held):
    /// `Ok(false)` when none are left. A chunk whose buffer was transferred away (detached) reads
    /// as empty, so nothing is copied from it (copying would throw). `subarray` goes through a
    /// binding that catches: it calls the species constructor of an app's `Uint8Array` subclass.
    pub(crate) fn slice(&mut self, into: &mut Vec<u8>) -> Result<bool, IoError> {
        let length = self.bytes.length();
        if self.at >= length {
            return Ok(false);
        }
        let end = length.min(self.at + SLICE);
        into.clear();
        into.resize((end - self.at) as usize, 0);
        if self.at == 0 && end == length {
            // The whole chunk in one slice (a network's chunks are smaller than `SLICE`): copied
            // as it is, with no `subarray` of it.
            self.bytes.copy_to(into);
        } else {
            let part = call_method(&self.bytes, "subarray", &[&self.at.into(), &end.into()])
                .map_err(IoError::Failed)?;
            let part = part
                .dyn_into::<Uint8Array>()
                .map_err(|_| IoError::SubarrayNotBytes)?;
            if part.length() != end - self.at {
                return Err(IoError::SubarrayLength);
            }
            part.copy_to(into);
        }
        self.at = end;
        Ok(true)
    }
}

/// Cancels a body's reader (Stop, `free`): a pending `read()` ends, the connection is let go,
/// whatever the app's `fetch` did with the signal. What `cancel` returns or throws is of no use.
pub(crate) fn cancel_reader(reader: &JsValue, reason: &JsValue) {
    if let Ok(promise) = call_method(reader, "cancel", &[reason]) {
        // Awaited in a task of its own: a rejected cancel is no unhandled rejection.
        let cancelled = JsFuture::from(Promise::resolve(&promise));
        wasm_bindgen_futures::spawn_local(async move {
            let _ = cancelled.await;
        });
    }
}
