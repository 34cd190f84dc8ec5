//! Plain async I/O for the driver: HTTP, a read-only WebSocket, tool modules and handlers,
//! storage. Each function takes values and returns values; none sees the session or the driver's
//! state, so none can hold a borrow while the app's JavaScript (its `fetch`, `importModule`,
//! handlers, `storage`) runs.

use wasm_bindgen::JsValue;

pub(crate) mod http;
#[cfg(feature = "coder")]
pub(crate) mod socket;
pub(crate) mod storage;
pub(crate) mod tools;

/// Why an I/O step failed, as a value. It is put into words in one place, `convert::io_message`;
/// what the app's code threw is kept for the app as `error.cause` ([`IoError::cause`]).
pub(crate) enum IoError {
    /// The app's code (its `fetch`, `prepareRequest`, `importModule`) or the network threw or
    /// rejected with this value: described, and kept as the cause.
    Thrown(JsValue),
    /// The platform failed with this value (reading a body, `text()`, `JSON.parse`, a handler's
    /// call): described, not kept.
    Failed(JsValue),
    /// There is no `fetch` in this environment and the app gave none.
    NoFetch,
    /// `fetch` gave something that is not a `Response`.
    NotAResponse,
    /// The response body was already read (by the app's `fetch`?).
    BodyUsed,
    /// A read of the body gave a chunk that is not a `Uint8Array`.
    ChunkNotBytes,
    /// A chunk's `subarray` gave something that is not a `Uint8Array`.
    SubarrayNotBytes,
    /// A chunk's `subarray` gave a `Uint8Array` of another length than asked.
    SubarrayLength,
    /// `prepareRequest` returned this, which is not an object (`what` it is: `"an array"`,
    /// `"null"`, its `typeof`): kept as the cause.
    NotABody {
        /// What it returned.
        value: JsValue,
        /// What that is, in words.
        what: String,
    },
    /// `prepareRequest` returned a value `JSON.stringify` cannot encode.
    NotJson,
}

impl IoError {
    /// What to keep as the app's `error.cause`: the value its code threw or returned, else
    /// `undefined`.
    pub(crate) fn cause(&self) -> JsValue {
        match self {
            IoError::Thrown(value) | IoError::NotABody { value, .. } => value.clone(),
            _ => JsValue::UNDEFINED,
        }
    }
}
