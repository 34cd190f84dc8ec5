//! The JavaScript boundary: the only code that touches `wasm-bindgen` and `js-sys`.
//!
//! Functions here convert, call the sans-IO core, and convert back; no protocol logic lives here.

mod convert;
mod error;
mod host;
mod js;
mod runtime;
mod storage;
mod transport;

pub use runtime::ChatRuntime;

use wasm_bindgen::prelude::*;

use crate::protocol::decode::{decode_all, DecodeOptions};

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

/// Decodes a whole AG-UI `text/event-stream` body and returns its events as plain objects equal to
/// the wire JSON of each event. Throws a `ChatRuntimeError` (`code` `decode/...`, `index` of the
/// event) on a malformed stream.
#[wasm_bindgen(js_name = decodeEventStream)]
pub fn decode_event_stream(
    input: JsStreamInput,
    options: Option<JsDecodeOptions>,
) -> Result<JsEvents, JsValue> {
    let decoded = decode(input, options)?;
    Ok(convert::to_js(&decoded.events)?.unchecked_into())
}

/// Like `decodeEventStream`, but also returns the warnings (unknown event types, legacy events
/// translated) and the last SSE event id: `{ events, warnings, lastEventId }`.
#[wasm_bindgen(js_name = decodeEventStreamReport)]
pub fn decode_event_stream_report(
    input: JsStreamInput,
    options: Option<JsDecodeOptions>,
) -> Result<JsDecodeReport, JsValue> {
    let decoded = decode(input, options)?;
    Ok(convert::to_js(&decoded)?.unchecked_into())
}

fn decode(
    input: JsStreamInput,
    options: Option<JsDecodeOptions>,
) -> Result<crate::protocol::decode::Decoded, JsValue> {
    let bytes = convert::stream_input_bytes(&input)?;
    let options: DecodeOptions = convert::options_from_js(options.map(JsValue::from))?;
    decode_all(&bytes, &options).map_err(|e| error::decode_error(&e))
}
