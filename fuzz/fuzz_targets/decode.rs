//! Decoder + chunk expansion + verifier + thread reducer over arbitrary bytes, fed in chunks whose
//! sizes come from the input itself. Properties: nothing panics, and chunking never changes the
//! outcome (the same events, or the same error code, as feeding the body whole).
#![no_main]

use chat_runtime::protocol::decode::{decode_all, DecodeOptions, EventDecoder, Output};
use chat_runtime::protocol::thread::Thread;
use chat_runtime::protocol::wire::ToJson;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some((&split_seed, body)) = input.split_first() else { return };
    let options = DecodeOptions {
        max_event_bytes: 1 << 16,
        ..DecodeOptions::default()
    };
    let whole = decode_all(body, &options);

    let mut decoder = EventDecoder::new(&options);
    let mut events = Vec::new();
    let step = usize::from(split_seed % 17) + 1;
    let mut chunked = Ok(());
    for chunk in body.chunks(step) {
        chunked = decoder.feed(chunk);
        if chunked.is_err() {
            break;
        }
        while let Some(event) = decoder.next_event() {
            events.push(event);
        }
    }
    if chunked.is_ok() {
        chunked = decoder.finish();
        while let Some(event) = decoder.next_event() {
            events.push(event);
        }
    }
    match (&whole, &chunked) {
        (Ok(decoded), Ok(())) => assert_eq!(decoded.events, events),
        (Err(a), Err(b)) => assert_eq!(a.code(), b.code()),
        _ => panic!("chunking changed the outcome: {whole:?} vs {chunked:?}"),
    }

    // The expanded stream (what a reducer folds) is accepted exactly when the wire stream is,
    // and the reducer takes whatever the decoder let through without panicking.
    let expanded = decode_all(
        body,
        &DecodeOptions {
            output: Output::Expanded,
            ..options
        },
    );
    assert_eq!(whole.is_ok(), expanded.is_ok());
    if let Ok(decoded) = expanded {
        let mut thread = Thread::new();
        for event in &decoded.events {
            let _ = thread.apply(event);
        }
        let _ = thread.pending_tool_calls();
        let _ = thread.messages().to_json_string();
    }
});
