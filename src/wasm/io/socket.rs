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
use crate::wasm::convert::{call_method, host};
use crate::wasm::string::js_string;

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

/// The wrapper over the browser's own `WebSocket` (headless Chromium, `make test-wasm`): what it
/// tells for a socket that cannot be made, one that is refused, and one that is dropped. Its
/// frames, from the Coder mock's stream, are the end-to-end tests' (tests/e2e).
#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use std::cell::RefCell;

    use js_sys::{Function, Promise};
    use wasm_bindgen_futures::JsFuture;
    use wasm_bindgen_test::{wasm_bindgen_test as test, wasm_bindgen_test_configure};

    use super::*;

    wasm_bindgen_test_configure!(run_in_browser);

    /// What a socket told, as `"text:..."` and `"ended"`.
    type Told = Rc<RefCell<Vec<String>>>;

    fn open(url: &str) -> (Result<Socket, JsValue>, Told) {
        let told: Told = Rc::default();
        let sink = told.clone();
        let socket = Socket::open(url, move |event| {
            sink.borrow_mut().push(match event {
                SocketEvent::Text(text) => format!("text:{text}"),
                SocketEvent::Ended => "ended".to_owned(),
            })
        });
        (socket, told)
    }

    async fn sleep(ms: i32) {
        let wait = Promise::new(&mut |resolve, _| {
            let set_timeout: Function = Reflect::get(&js_sys::global(), &"setTimeout".into())
                .unwrap()
                .into();
            set_timeout
                .call2(&JsValue::NULL, &resolve, &ms.into())
                .unwrap();
        });
        JsFuture::from(wait).await.unwrap();
    }

    #[test]
    fn a_url_websocket_refuses_is_an_error_at_once() {
        for url in ["ftp://example.com/stream", "ws://[::1/stream"] {
            let (socket, told) = open(url);
            assert!(socket.is_err(), "{url}");
            assert!(told.borrow().is_empty());
        }
    }

    #[test]
    fn a_page_whose_websocket_throws_is_an_error_not_a_trap() {
        let global = js_sys::global();
        let real = Reflect::get(&global, &"WebSocket".into()).unwrap();
        let throwing = Function::new_no_args("throw new Error('no sockets on this page')");
        Reflect::set(&global, &"WebSocket".into(), &throwing).unwrap();
        let (socket, told) = open("ws://127.0.0.1:9/stream");
        Reflect::set(&global, &"WebSocket".into(), &real).unwrap();
        let error = socket.err().expect("refused");
        assert!(js_sys::Error::from(error)
            .message()
            .as_string()
            .unwrap()
            .contains("no sockets"));
        assert!(told.borrow().is_empty());
    }

    #[test]
    async fn a_refused_connection_ends_once() {
        // Port 9 (discard) has no listener: `error`, then `close`, are told as one end.
        let (socket, told) = open("ws://127.0.0.1:9/stream");
        let socket = socket.expect("a WebSocket is made before it connects");
        for _ in 0..100 {
            if !told.borrow().is_empty() {
                break;
            }
            sleep(50).await;
        }
        sleep(200).await;
        assert_eq!(*told.borrow(), ["ended"]);
        drop(socket);
        sleep(100).await;
        assert_eq!(*told.borrow(), ["ended"]);
    }

    #[test]
    async fn a_dropped_socket_tells_nothing_more() {
        let (socket, told) = open("ws://127.0.0.1:9/stream");
        drop(socket.expect("made"));
        sleep(500).await;
        assert!(told.borrow().is_empty(), "{:?}", told.borrow());
    }
}
