//! A request body: written by the session a piece at a time into the host's [`BodySink`], and
//! held by the host as one [`RequestBody`].

use std::any::Any;
use std::fmt;
use std::rc::Rc;

/// About how long a body's pieces are (a piece ends after a message, so one longer message is
/// a piece of its own): what the session's buffer holds of a body at most, besides that message.
pub const BODY_PIECE: usize = 16 * 1024;

/// A round's request body as the host holds it, shared by the [`Action::Send`](super::Action::Send)
/// and the round's [`RoundRequest`](super::RoundRequest) (which a reconnect sends again). The
/// browser's is a JS string, written there in pieces ([`BodySink`]): a body that carries the
/// whole thread is never whole in wasm memory, which never shrinks (docs/numbers.md, "A long
/// chat as users live it"). The session's own sink ([`TextSink`]) and a body made from a string
/// hold the text ([`RequestBody::text`]).
#[derive(Clone)]
pub struct RequestBody(Rc<dyn Any>);

impl RequestBody {
    /// A body the host holds as `held` (the browser's: a `JsValue`, a JS string).
    pub fn held<T: Any>(held: T) -> RequestBody {
        RequestBody(Rc::new(held))
    }

    /// The host's body, when it holds it as a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }

    /// The body's text, when it is held as text (the [`TextSink`]'s, or made from a string).
    pub fn text(&self) -> Option<&str> {
        self.get::<String>().map(String::as_str)
    }
}

impl From<String> for RequestBody {
    fn from(text: String) -> RequestBody {
        RequestBody::held(text)
    }
}

impl From<&str> for RequestBody {
    fn from(text: &str) -> RequestBody {
        RequestBody::held(text.to_owned())
    }
}

/// The same body, or two bodies of the same text.
impl PartialEq for RequestBody {
    fn eq(&self, other: &RequestBody) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
            || matches!((self.text(), other.text()), (Some(a), Some(b)) if a == b)
    }
}

impl Eq for RequestBody {}

/// The text, or that the host holds it.
impl fmt::Debug for RequestBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text().unwrap_or("(a body the host holds)"))
    }
}

/// Where the session writes a request body: a piece at a time (each about [`BODY_PIECE`] bytes,
/// or one message), then [`finish`](Self::finish) for the whole. The browser's host makes each
/// piece a JS string at once and joins them there; [`TextSink`] (the default) keeps the text.
pub trait BodySink {
    /// The body's next piece.
    fn push(&mut self, piece: &str);
    /// The pieces pushed since the last `finish`, as one body.
    fn finish(&mut self) -> RequestBody;
}

/// The session's default sink: the body's text, in memory (a native host's, the tests').
#[derive(Debug, Default)]
pub struct TextSink(String);

impl BodySink for TextSink {
    fn push(&mut self, piece: &str) {
        self.0.push_str(piece);
    }

    fn finish(&mut self) -> RequestBody {
        RequestBody::from(std::mem::take(&mut self.0))
    }
}
