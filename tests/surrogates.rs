//! Lone UTF-16 surrogates (issue "Hostile inputs", point 6): an AG-UI server in JS may cut a
//! `TEXT_MESSAGE_CONTENT` or `TOOL_CALL_ARGS` delta between the two halves of an emoji, and JSON
//! then carries each half as a lone escape. The decoder must give back for every event exactly
//! what `JSON.parse` gives (lone surrogates included), and the thread must join the halves as
//! `@ag-ui/client` does when it appends the deltas.
//!
//! The streams are written here as a JS server writes them: strings sliced by UTF-16 code unit and
//! encoded as `JSON.stringify` encodes them (`js_json`, in `tests/common`).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod common;
use common::js_json::js_json;

use chat_runtime::json::Value;
use chat_runtime::protocol::decode::{decode_all, DecodeOptions};
use chat_runtime::protocol::event::Message;
use chat_runtime::protocol::thread::Thread;
use chat_runtime::protocol::wire::ToJson;

const TEXT: &str = "héllo 😀 wörld 🎉👍🏽";
const ARGS: &str = r#"{"city":"Zürich 🏔️","note":"😀😀"}"#;

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// The `data` of each event of a run whose text and arguments come in these pieces (code units).
fn stream_data(text_pieces: &[&[u16]], args_pieces: &[&[u16]]) -> Vec<String> {
    let mut data = vec![
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned(),
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#.to_owned(),
    ];
    for piece in text_pieces {
        data.push(format!(
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":{}}}"#,
            js_json(piece)
        ));
    }
    data.push(r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#.to_owned());
    data.push(
        r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"weather","parentMessageId":"m1"}"#
            .to_owned(),
    );
    for piece in args_pieces {
        data.push(format!(
            r#"{{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":{}}}"#,
            js_json(piece)
        ));
    }
    data.push(r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#.to_owned());
    data.push(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.to_owned());
    data
}

fn sse(data: &[String]) -> String {
    data.iter().map(|d| format!("data: {d}\n\n")).collect()
}

/// Every way of cutting `s` in two at a code-unit offset, and `s` cut into single code units.
fn cuts(s: &[u16]) -> Vec<Vec<&[u16]>> {
    let mut all: Vec<Vec<&[u16]>> = (0..=s.len()).map(|k| vec![&s[..k], &s[k..]]).collect();
    all.push(s.chunks(1).collect());
    all
}

/// Decodes the stream, checks that every event is written back as exactly its wire JSON, and
/// folds the events into a thread.
fn decode_and_reduce(data: &[String]) -> Thread {
    let decoded = decode_all(sse(data).as_bytes(), &DecodeOptions::default()).expect("decodes");
    assert_eq!(decoded.events.len(), data.len());
    let mut thread = Thread::new();
    for (event, wire) in decoded.events.iter().zip(data) {
        assert_eq!(
            &event.to_json(),
            wire,
            "the event is written back as it came"
        );
        thread.apply(event).expect("applies");
    }
    thread
}

fn assistant(thread: &Thread) -> (&str, &str) {
    match &thread.messages()[0] {
        Message::Assistant(m) => (
            m.content.as_deref().unwrap_or_default(),
            &m.tool_calls.as_ref().expect("a tool call")[0]
                .function
                .arguments,
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn deltas_cut_inside_a_surrogate_pair_decode_to_their_wire_json_and_reassemble() {
    let (text, args) = (units(TEXT), units(ARGS));
    let expected_args = Value::parse(ARGS).unwrap();
    for text_pieces in cuts(&text) {
        for args_pieces in [
            vec![&args[..]],
            vec![&args[..args.len() / 2], &args[args.len() / 2..]],
        ] {
            let thread = decode_and_reduce(&stream_data(&text_pieces, &args_pieces));
            assert_eq!(assistant(&thread).0, TEXT, "{text_pieces:?}");
        }
    }
    for args_pieces in cuts(&args) {
        let thread = decode_and_reduce(&stream_data(&[&text], &args_pieces));
        let (content, arguments) = assistant(&thread);
        assert_eq!(content, TEXT);
        assert_eq!(arguments, ARGS, "{args_pieces:?}");
        assert_eq!(Value::parse(arguments).unwrap(), expected_args);
    }
}

#[test]
fn the_thread_is_written_with_the_text_as_json_stringify_writes_it() {
    let text = units(TEXT);
    let k = text
        .iter()
        .position(|&u| (0xD800..0xDC00).contains(&u))
        .unwrap()
        + 1;
    let thread = decode_and_reduce(&stream_data(&[&text[..k], &text[k..]], &[]));
    let messages = thread.messages().to_json_string();
    assert!(
        messages.contains(&format!(r#""content":{}"#, js_json(&text))),
        "{messages}"
    );
}

#[test]
fn lone_surrogates_stay_lone_and_are_written_back_escaped() {
    // A high surrogate left alone, a low one alone, and a high then a high: no pair anywhere.
    let pieces: [&[u16]; 5] = [
        &[0x61, 0xD83D],
        &[0x62],
        &[0xDE00, 0x63],
        &[0xD83D],
        &[0xD83D, 0x64],
    ];
    let thread = decode_and_reduce(&stream_data(&pieces, &[]));
    let joined: Vec<u16> = pieces.concat();
    let messages = thread.messages().to_json_string();
    assert!(
        messages.contains(r#""content":"a\ud83db\ude00c\ud83d\ud83dd""#),
        "{messages}"
    );
    assert!(messages.contains(&js_json(&joined)));
}

#[test]
fn a_literal_u10ffff_round_trips() {
    // U+10FFFF is the crate's internal escape char; U+100000 its partner for U+D800.
    let s = "a\u{10FFFF}\u{100000}b\u{10FFFF}\u{10FFFF}c\u{10FFFF}";
    let text = units(s);
    for pieces in cuts(&text) {
        let thread = decode_and_reduce(&stream_data(&pieces, &[]));
        let messages = thread.messages().to_json_string();
        assert!(
            messages.contains(&format!(r#""content":"{s}""#)),
            "{pieces:?}: {messages}"
        );
    }
    // Escaped, too: `\udbff\udfff` is the same char and is written as the char.
    let data = vec![
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned(),
        "{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":[\"\\udbff\\udfff\\ud800\",\"\u{10FFFF}\"]}"
            .to_owned(),
    ];
    let decoded = decode_all(sse(&data).as_bytes(), &DecodeOptions::default()).unwrap();
    assert_eq!(
        decoded.events[1].to_json(),
        "{\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":[\"\u{10FFFF}\\ud800\",\"\u{10FFFF}\"]}"
    );
}

#[test]
fn lone_surrogates_in_every_json_position_are_written_back_as_they_came() {
    let data = [
        r#"{"type":"RUN_STARTED","threadId":"t\ud800","runId":"r\udfff"}"#,
        r#"{"type":"CUSTOM","name":"\udc00","value":{"\ud83d":["\ude00",{"k\udbff":"\udbff\udfff"}]}}"#,
        r#"{"type":"X_\ud800","a\udc00":"\ud800"}"#,
    ];
    let decoded = decode_all(
        sse(&data.map(str::to_owned)).as_bytes(),
        &DecodeOptions {
            verify: false,
            ..DecodeOptions::default()
        },
    )
    .unwrap();
    assert_eq!(decoded.events[0].to_json(), data[0]);
    assert_eq!(
        decoded.events[1].to_json(),
        r#"{"type":"CUSTOM","name":"\udc00","value":{"\ud83d":["\ude00",{"k\udbff":"#.to_owned()
            + "\"\u{10FFFF}\"}]}}"
    );
    assert_eq!(decoded.events[2].to_json(), data[2]);
    assert_eq!(decoded.warnings.len(), 1);
}

#[test]
fn a_split_emoji_in_tool_call_args_gives_the_right_arguments_value() {
    let args = units(ARGS);
    let expected = Value::parse(ARGS).unwrap();
    for (k, &unit) in args.iter().enumerate() {
        if !(0xDC00..0xE000).contains(&unit) {
            continue;
        }
        let thread = decode_and_reduce(&stream_data(&[], &[&args[..k], &args[k..]]));
        let pending = thread.pending_tool_calls();
        assert_eq!(pending[0].arguments, ARGS);
        let value = Value::parse(&pending[0].arguments).unwrap();
        assert_eq!(value, expected);
        assert_eq!(value["city"].as_str(), Some("Zürich 🏔️"));
        assert_eq!(value["note"].as_str(), Some("😀😀"));
    }
}

#[test]
fn a_lone_surrogate_in_tool_call_args_is_read_as_internal_text() {
    // The arguments JS string holds a raw lone surrogate (JSON.stringify of the delta escapes
    // it); its own JSON text is then read as internal text, not escaped again.
    let args = units(r#"{"a":"x"#)
        .into_iter()
        .chain([0xD800])
        .chain(units(r#"","b":"\ud83d"}"#))
        .collect::<Vec<_>>();
    let thread = decode_and_reduce(&stream_data(&[], &[&args[..7], &args[7..]]));
    let arguments = &thread.pending_tool_calls()[0].arguments;
    let value = chat_runtime::json::parse_internal(arguments).unwrap();
    assert_eq!(value.to_json(), r#"{"a":"x\ud800","b":"\ud83d"}"#);
    assert_eq!(
        value,
        Value::parse(r#"{"a":"x\ud800","b":"\ud83d"}"#).unwrap()
    );
    // The message keeps the arguments text as the JS string it is.
    let messages = thread.messages().to_json_string();
    assert!(
        messages.contains(r#""arguments":"{\"a\":\"x\ud800\",\"b\":\"\\ud83d\"}""#),
        "{messages}"
    );
}
