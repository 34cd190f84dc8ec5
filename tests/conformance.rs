//! Conformance: the corpus written by the official `@ag-ui/encoder` (validated with the official
//! `@ag-ui/core` schemas, see `tests/fixtures/conformance/README.md`) must decode to exactly the
//! events the encoder wrote, wire JSON for wire JSON, natively and on wasm32 in a browser.

mod common;
use common::*;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::protocol::decode::{decode_all, DecodeOptions};
use serde_json::Value;

macro_rules! corpus {
    ($($name:literal),* $(,)?) => {
        &[$((
            $name,
            include_str!(concat!("fixtures/conformance/", $name, ".sse")),
            include_str!(concat!("fixtures/conformance/", $name, ".json")),
        )),*]
    };
}

/// (name, SSE body, expected events).
const CASES: &[(&str, &str, &str)] = corpus![
    "text-basic",
    "text-roles",
    "text-chunks",
    "tool-calls-parallel",
    "tool-call-chunks",
    "state",
    "messages-snapshot",
    "activity",
    "reasoning",
    "subagents",
    "run-error",
    "outcomes-interrupt",
    "outcomes-cancelled",
    "multi-run",
    "raw-custom",
    "unicode",
];

#[test]
fn the_corpus_index_lists_exactly_the_cases_tested_here() {
    let index: Vec<String> =
        serde_json::from_str(include_str!("fixtures/conformance/index.json")).unwrap();
    let tested: Vec<&str> = CASES.iter().map(|(name, _, _)| *name).collect();
    assert_eq!(index, tested);
}

#[test]
fn every_corpus_case_decodes_to_the_official_encoders_events() {
    for (name, sse, expected) in CASES {
        let decoded = decode_all(sse.as_bytes(), &DecodeOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let actual = to_serde(&decoded.events);
        let expected: Value = serde_json::from_str(expected).unwrap();
        assert_eq!(actual, expected, "{name}");
        assert!(
            decoded.warnings.is_empty(),
            "{name}: {:?}",
            decoded.warnings
        );
    }
}

#[test]
fn the_corpus_covers_all_31_event_types() {
    let mut seen = std::collections::BTreeSet::new();
    for (_, _, expected) in CASES {
        let events: Vec<Value> = serde_json::from_str(expected).unwrap();
        for event in events {
            seen.insert(event["type"].as_str().unwrap().to_owned());
        }
    }
    assert_eq!(seen.len(), 31, "{seen:?}");
}

#[test]
fn every_corpus_case_decodes_the_same_fed_one_byte_at_a_time() {
    use chat_runtime::protocol::decode::EventDecoder;
    for (name, sse, _) in CASES {
        let whole = decode_all(sse.as_bytes(), &DecodeOptions::default()).unwrap();
        let mut decoder = EventDecoder::new(&DecodeOptions::default());
        let mut events = Vec::new();
        for byte in sse.as_bytes() {
            decoder.feed(std::slice::from_ref(byte)).unwrap();
            events.extend(std::iter::from_fn(|| decoder.next_event()));
        }
        decoder.finish().unwrap();
        events.extend(std::iter::from_fn(|| decoder.next_event()));
        assert_eq!(events, whole.events, "{name}");
    }
}

#[test]
fn both_views_interleave_exactly_the_wire_and_the_expanded_streams() {
    use chat_runtime::protocol::decode::{EventDecoder, Output};
    let with = |output| DecodeOptions {
        output,
        ..DecodeOptions::default()
    };
    for (name, sse, _) in CASES {
        let wire = decode_all(sse.as_bytes(), &with(Output::Wire))
            .unwrap()
            .events;
        let expanded = decode_all(sse.as_bytes(), &with(Output::Expanded))
            .unwrap()
            .events;
        let mut decoder = EventDecoder::new(&with(Output::Both));
        decoder.feed(sse.as_bytes()).unwrap();
        decoder.finish().unwrap();
        let items: Vec<_> = std::iter::from_fn(|| decoder.next_item()).collect();
        let wire_view: Vec<_> = items
            .iter()
            .filter(|i| i.wire)
            .map(|i| i.event.clone())
            .collect();
        let expanded_view: Vec<_> = items
            .iter()
            .filter(|i| i.expanded)
            .map(|i| i.event.clone())
            .collect();
        assert_eq!(wire_view, wire, "{name}: wire view");
        assert_eq!(expanded_view, expanded, "{name}: expanded view");
        assert!(
            expanded.iter().all(|e| !e.type_name().ends_with("_CHUNK")),
            "{name}: no chunk survives expansion"
        );
    }
}
