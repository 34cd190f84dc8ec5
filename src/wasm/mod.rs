//! The JavaScript boundary: the only code that touches `wasm-bindgen`, `js-sys` and `web-sys`.
//! Layers, each using only the ones below it (docs/architecture.md):
//!
//! - [`class`]: the exported `ChatRuntime`; its methods convert and call the driver.
//! - `driver`: owns the state and runs the session's poll loop.
//! - `io`: plain async I/O (HTTP, tool modules and handlers, storage) that returns values.
//! - `browser`, `convert`, `script`, `error`: browser services, value conversion, the JS helpers
//!   with no binding, and the one error type.
//! - `string`: the string bridge (a crate string as the JS string it stands for, and back), the
//!   bottom floor every other file may use.
//!
//! No protocol logic lives here: the rules are in the core, with native tests.

mod browser;
mod class;
mod convert;
mod driver;
mod error;
mod io;
mod script;
mod string;

pub use class::ChatRuntime;
pub use error::Error;
pub use wasm_bindgen::prelude::*;

use crate::protocol::decode::{decode_all, DecodeOptions, Decoded};

#[wasm_bindgen(typescript_custom_section)]
const TS: &str = include_str!("types.d.ts");

#[wasm_bindgen]
extern "C" {
    /// `string | Uint8Array`: the bytes of a `text/event-stream` body.
    #[wasm_bindgen(typescript_type = "string | Uint8Array")]
    pub type JsStreamInput;
    /// `DecodeOptions` (see `types.d.ts`).
    #[wasm_bindgen(typescript_type = "DecodeOptions")]
    pub type JsDecodeOptions;
    /// `AgUiEvent[]`.
    #[wasm_bindgen(typescript_type = "AgUiEvent[]")]
    pub type JsEvents;
    /// `DecodeReport`.
    #[wasm_bindgen(typescript_type = "DecodeReport")]
    pub type JsDecodeReport;
}

// `decodeEventStream` and `decodeEventStreamReport` are documented and declared in types.d.ts:
// wasm-bindgen would copy a doc comment here into the JS glue too (see `ChatRuntime`).

// Decodes a whole AG-UI `text/event-stream` body and returns its events as plain objects equal to
// the wire JSON of each event. Throws a `ChatRuntimeError` (`code` `decode/...`, `index` of the
// event) on a malformed stream.
#[allow(missing_docs)]
#[wasm_bindgen(js_name = decodeEventStream, skip_typescript, skip_jsdoc)]
pub fn decode_event_stream(
    input: JsStreamInput,
    options: Option<JsDecodeOptions>,
) -> Result<JsEvents, Error> {
    let decoded = decode(input, options)?;
    Ok(convert::to_js(&decoded.events)?.unchecked_into())
}

// Like `decodeEventStream`, but also returns the warnings (unknown event types, legacy events
// translated) and the last SSE event id: `{ events, warnings, lastEventId }`.
#[allow(missing_docs)]
#[wasm_bindgen(js_name = decodeEventStreamReport, skip_typescript, skip_jsdoc)]
pub fn decode_event_stream_report(
    input: JsStreamInput,
    options: Option<JsDecodeOptions>,
) -> Result<JsDecodeReport, Error> {
    let decoded = decode(input, options)?;
    Ok(convert::to_js(&decoded)?.unchecked_into())
}

fn decode(input: JsStreamInput, options: Option<JsDecodeOptions>) -> Result<Decoded, Error> {
    let bytes = convert::stream_input_bytes(&input)?;
    let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
    let mut out = DecodeOptions::default();
    if options.is_object() {
        if let Some(verify) = convert::member(&options, "verify", "decode/options")? {
            out.verify = verify;
        }
        match convert::member::<u64>(&options, "maxEventBytes", "decode/options") {
            Ok(None) => {}
            Ok(Some(n)) if n >= 1 => out.max_event_bytes = n as usize,
            _ => {
                return Err(Error::new(
                    "decode/options",
                    "`maxEventBytes` must be a positive integer",
                ))
            }
        }
    }
    decode_all(&bytes, &out).map_err(|e| Error::from(&e))
}
