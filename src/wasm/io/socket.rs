//! A read-only WebSocket (a Coder chat's stream): its text messages and its end, handed to one
//! Rust callback; nothing is ever sent on it.
//!
//! Every call goes through a binding that catches (a page may have replaced `WebSocket`, or its
//! `close`, with one that throws): the constructor has a binding of its own; the handlers are set
//! with `Reflect.set` and `close` is called through [`call_method`], bindings the runtime has
//! anyway. One JS function handles `message`, `close` and `error`; it is owned by JavaScript
//! (collected with the socket), so nothing is freed while it runs, and a flag the [`Socket`]
//! shares with it keeps it silent once the socket is dropped.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

use crate::wasm::browser::JsCallback;
use crate::wasm::convert::{call_method, host, js_string};

#[wasm_bindgen]
extern "C" {
    /// `WebSocket`, for the constructor binding below (`web-sys`'s needs features and adds
    /// bindings that do not catch).
    #[wasm_bindgen(js_name = WebSocket)]
    type WebSocketObject;
    /// `new WebSocket(url)`: throws for a URL it cannot use (a bad scheme, a fragment) and where
    /// there is no `WebSocket` at all.
    #[wasm_bindgen(catch, constructor, js_class = WebSocket)]
    fn new(url: &JsValue) -> Result<WebSocketObject, JsValue>;
}

/// The handlers set on the socket, each the same function.
const HANDLERS: [&str; 3] = ["onmessage", "onclose", "onerror"];

/// What the socket's callback is told.
pub(crate) enum SocketEvent {
    /// A text message (a binary one is not read: the chat's frames are JSON text).
    Text(String),
    /// The socket ended: closed (by either side), failed, or refused before it opened. Told
    /// once; nothing follows it.
    Ended,
}

/// An open socket. Dropping it closes it (code 1000) and silences its callback: nothing more is
/// told after the drop, not even [`SocketEvent::Ended`].
pub(crate) struct Socket {
    socket: JsValue,
    /// Set by the drop, or by the socket's end: the callback does nothing from then on.
    done: Rc<Cell<bool>>,
}

impl Socket {
    /// Opens a socket to `url` (an internal string; a path resolves against the page) and tells
    /// `on_event` what comes on it. `Err`: `new WebSocket` threw (the socket is closed at once:
    /// nothing will be told).
    pub(crate) fn open(
        url: &str,
        mut on_event: impl FnMut(SocketEvent) + 'static,
    ) -> Result<Socket, JsValue> {
        let socket: JsValue = WebSocketObject::new(&js_string(url))?.into();
        let done = Rc::new(Cell::new(false));
        let silenced = done.clone();
        let handler = JsCallback::new(move |event: JsValue| {
            if silenced.get() {
                return Ok(());
            }
            if host(&event, "type").as_string().as_deref() == Some("message") {
                if let Some(text) = host(&event, "data").as_string() {
                    on_event(SocketEvent::Text(text));
                }
            } else {
                // `close`, or `error` (which a `close` follows): the end, told once.
                silenced.set(true);
                on_event(SocketEvent::Ended);
            }
            Ok(())
        })
        .into_js_value();
        for name in HANDLERS {
            if Reflect::set(&socket, &name.into(), &handler) != Ok(true) {
                // A socket we cannot hear is of no use: closed, and refused like a throw.
                let socket = Socket { socket, done };
                drop(socket);
                return Err(JsValue::from_str(
                    "the WebSocket's handlers could not be set",
                ));
            }
        }
        Ok(Socket { socket, done })
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.done.set(true);
        for name in HANDLERS {
            let _ = Reflect::set(&self.socket, &name.into(), &JsValue::NULL);
        }
        let _ = call_method(&self.socket, "close", &[&1000.into()]);
    }
}
