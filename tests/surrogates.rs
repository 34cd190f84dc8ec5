//! Lone UTF-16 surrogates (docs/guarantees.md): an AG-UI server in JS may cut a
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
use common::whatwg::{usv, Whatwg};

use chat_runtime::json::{find_lone_surrogate, from_js_string, to_js_string, to_utf16, Value};
use chat_runtime::protocol::decode::{decode_all, DecodeOptions};
use chat_runtime::protocol::event::Message;
use chat_runtime::protocol::thread::Thread;
use chat_runtime::protocol::wire::ToJson;
use chat_runtime::session::{Action, CallKind, RunRequest, Session, SessionConfig, ToolSet};
use chat_runtime::tools::catalog::{parse_manifest, ManifestContext};
use chat_runtime::tools::schema::NoPatterns;
use chat_runtime::tools::url::{resolve, ParsedUrl, UrlParser};
use chat_runtime::tools::{FrontendTool, TimeLimit, ToolHandler};

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

// ---- Exits: nothing of the internal form leaves the core --------------------------------------
// docs/guarantees.md (nothing of the private form reaches a URL, a header, a storage key...) and
// docs/architecture.md, "Strings at the boundary". The core hands the host strings in the internal
// form (a lone surrogate as two private chars); each exit must be, read as a JS string
// (`json::to_utf16`), exactly the JS string that came in. The strings are made of these pieces at random (a fixed seed): lone halves, pairs,
// U+10FFFF and the plane-16 chars the internal form uses, and plain text.

const PLAIN: &[&str] = &[
    "a",
    "Z",
    "0",
    "-",
    "é",
    "日",
    "😀",
    "\u{10FFFF}",
    "\u{100000}",
    "\u{1007FF}",
    "\u{10FFFE}",
    "\u{FFFD}",
    "%",
    " ",
];
const LONE: &[u16] = &[0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xD83D, 0xDE00];

/// xorshift32: the same strings on every run.
struct Strings(u32);

impl Strings {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0 as usize
    }

    /// A JS string of 1 to 9 pieces: with at least one lone surrogate when `lone`, else with
    /// none but at least one U+10FFFF or U+100000.
    fn string(&mut self, lone: bool) -> Vec<u16> {
        let mut out = Vec::new();
        let n = 1 + self.next() % 8;
        let extra = self.next() % (n + 1);
        for k in 0..=n {
            if k == extra {
                let must = if lone {
                    vec![LONE[self.next() % LONE.len()]]
                } else {
                    ["\u{10FFFF}", "\u{100000}"][self.next() % 2]
                        .encode_utf16()
                        .collect()
                };
                out.extend(must);
            } else if lone && self.next() % 3 == 0 {
                out.push(LONE[self.next() % LONE.len()]);
            } else {
                out.extend(PLAIN[self.next() % PLAIN.len()].encode_utf16());
            }
        }
        out
    }
}

/// The internal string the JSON layer makes of the JS string `units` (as its parser reads it).
fn internal(units: &[u16]) -> String {
    Value::parse(&js_json(units))
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned()
}

/// The first lone surrogate of a JS string: its index and code unit.
fn first_lone(units: &[u16]) -> Option<(usize, u16)> {
    let mut at = 0;
    for c in char::decode_utf16(units.iter().copied()) {
        match c {
            Ok(c) => at += c.len_utf16(),
            Err(e) => return Some((at, e.unpaired_surrogate())),
        }
    }
    None
}

fn samples(seed: u32, count: usize) -> Vec<Vec<u16>> {
    let mut strings = Strings(seed);
    (0..count).map(|n| strings.string(n % 3 != 0)).collect()
}

#[test]
fn the_private_form_is_found_and_undone_for_every_string() {
    let mut lone = 0;
    for units in samples(0x5eed, 3000) {
        let s = internal(&units);
        assert_eq!(to_utf16(&s), units, "{s:?}");
        match first_lone(&units) {
            Some((k, unit)) => {
                lone += 1;
                let (at, found) = find_lone_surrogate(&s).expect("found");
                assert_eq!(found, unit);
                assert_eq!(to_utf16(&s[..at]), &units[..k]);
                assert_eq!(to_js_string(&s), None);
            }
            None => {
                assert_eq!(find_lone_surrogate(&s), None);
                let text = String::from_utf16(&units).unwrap();
                assert_eq!(to_js_string(&s).as_deref(), Some(text.as_str()));
                assert_eq!(from_js_string(&text), s);
            }
        }
    }
    assert!(lone > 1500, "{lone}");
}

const MANIFEST_URL: &str = "https://app.example/tools/tools.json";

#[test]
fn an_import_path_with_a_lone_surrogate_resolves_as_the_browser_resolves_it() {
    // `import("/x\ud800.js")` on a page of https://app.example loads /x%EF%BF%BD.js.
    let reference = internal(
        &"/x"
            .encode_utf16()
            .chain([0xD800])
            .chain(".js".encode_utf16())
            .collect::<Vec<_>>(),
    );
    let url = resolve(&reference, MANIFEST_URL, &Whatwg).unwrap();
    assert_eq!(url.href, "https://app.example/x%EF%BF%BD.js");
}

/// A [`UrlParser`] that records the JS strings it is asked to parse, then parses with [`Whatwg`].
#[derive(Default)]
struct Recording(std::cell::RefCell<Vec<Vec<u16>>>);

impl UrlParser for Recording {
    fn parse(&self, input: &str, base: Option<&str>) -> Result<ParsedUrl, String> {
        self.0.borrow_mut().push(to_utf16(input));
        Whatwg.parse(input, base)
    }
}

#[test]
fn every_import_path_reaches_the_url_parser_as_the_js_string_and_loads_what_the_browser_loads() {
    let paths: Vec<Vec<u16>> = samples(0xfeed, 200)
        .into_iter()
        .map(|s| {
            "/p/"
                .encode_utf16()
                .chain(s)
                .chain(".js".encode_utf16())
                .collect()
        })
        .collect();
    let entries: Vec<String> = paths
        .iter()
        .enumerate()
        .map(|(n, path)| {
            format!(
                r#"{{"tool":{{"name":"t{n}","description":"d"}},"importPath":{},"entrypoint":"f"}}"#,
                js_json(path)
            )
        })
        .collect();
    let body = format!("[{}]", entries.join(","));
    let context = ManifestContext {
        manifest_url: MANIFEST_URL.into(),
        page_origin: "https://app.example".into(),
        allowed_import_origins: Vec::new(),
    };
    let parser = Recording::default();
    let report =
        parse_manifest(body.as_bytes(), Some("application/json"), &context, &parser).unwrap();
    assert_eq!(report.diagnostics, []);
    let base = url::Url::parse(MANIFEST_URL).unwrap();
    for (tool, path) in report.tools.iter().zip(&paths) {
        assert!(parser.0.borrow().contains(path), "{path:?}");
        let ToolHandler::Module { url, .. } = &tool.handler else {
            panic!("a module tool")
        };
        let expected = base.join(&String::from_utf16_lossy(path)).unwrap();
        assert_eq!(url, expected.as_str());
        assert_eq!(url, &usv(url), "a URL is ASCII: no private form");
    }
}

fn tool_set(name: &str) -> ToolSet {
    let mut set = ToolSet::default();
    let tool = FrontendTool {
        name: name.to_owned(),
        description: "d".to_owned(),
        parameters: Value::parse(r#"{"type":"object","properties":{}}"#).unwrap(),
        handler: ToolHandler::Module {
            url: "https://app.example/t.js".to_owned(),
            entrypoint: "f".to_owned(),
        },
        follow_up: true,
        time_limit: TimeLimit::Default,
        default_enabled: false,
    };
    set.calls.insert(name.to_owned(), CallKind::Enabled(tool));
    set
}

/// A session on `config`, started on thread `t` with the tool `t`: it and its first action.
fn started(config: SessionConfig) -> (Session, Action) {
    let mut session = Session::new(config, "x", Box::new(NoPatterns));
    let request = RunRequest {
        thread_id: "t".to_owned(),
        ..RunRequest::default()
    };
    session.start_run(request, tool_set("t")).unwrap();
    let send = std::iter::from_fn(|| session.poll_action(0))
        .find(|a| matches!(a, Action::Send { .. }))
        .expect("a request");
    (session, send)
}

#[test]
fn the_run_url_and_headers_reach_the_host_as_the_app_wrote_them() {
    let strings = samples(0xbeef, 300);
    for (n, units) in strings.iter().enumerate() {
        let header = &strings[(n * 7 + 1) % strings.len()];
        let template: Vec<u16> = "http://x/api/"
            .encode_utf16()
            .chain(units.iter().copied())
            .chain("/{threadId}".encode_utf16())
            .collect();
        let config = SessionConfig {
            run_url: internal(&template),
            headers: vec![(internal(header), internal(units))],
            ..SessionConfig::default()
        };
        let (_, send) = started(config);
        let Action::Send { url, headers, .. } = send else {
            unreachable!()
        };
        let expected: Vec<u16> = "http://x/api/"
            .encode_utf16()
            .chain(units.iter().copied())
            .chain("/t".encode_utf16())
            .collect();
        assert_eq!(to_utf16(&url), expected);
        assert_eq!(to_utf16(&headers[0].0), *header);
        assert_eq!(to_utf16(&headers[0].1), *units);
    }
}

#[test]
fn a_reconnect_sends_the_sse_id_as_the_stream_wrote_it() {
    // SSE is UTF-8 text: an id holds no lone surrogate, but may hold U+10FFFF and U+100000.
    for units in samples(0xcafe, 300)
        .into_iter()
        .filter(|u| first_lone(u).is_none())
    {
        let id = String::from_utf16(&units).unwrap();
        let (mut session, send) = started(SessionConfig::default());
        let Action::Send { run_id, .. } = send else {
            unreachable!()
        };
        let body = format!(
            "retry: 1\nid: {id}\ndata: {{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}}\n\n"
        );
        session.handle_response("t", &run_id, 200, Some("text/event-stream"), None);
        session.handle_bytes("t", &run_id, body.as_bytes());
        session.handle_body_end("t", &run_id);
        // The wait (`retry: 1`) is the session's deadline: the host's timer fires at it.
        while session.poll_action(0).is_some() {}
        let deadline = session.reconnect_deadline("t").expect("a reconnect waits");
        session.handle_timeout(deadline);
        let last_event_id = std::iter::from_fn(|| session.poll_action(deadline))
            .find_map(|a| match a {
                Action::Reconnect { last_event_id, .. } => Some(last_event_id),
                _ => None,
            })
            .expect("a reconnect");
        assert_eq!(to_utf16(&last_event_id), units, "{id:?}");
    }
}

#[test]
fn a_tool_call_reaches_the_host_with_the_server_s_id() {
    for units in samples(0xd00d, 300) {
        let (mut session, send) = started(SessionConfig::default());
        let Action::Send { run_id, .. } = send else {
            unreachable!()
        };
        let id = js_json(&units);
        let body = [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned(),
            format!(
                r#"{{"type":"TOOL_CALL_START","toolCallId":{id},"toolCallName":"t","parentMessageId":"m"}}"#
            ),
            format!(r#"{{"type":"TOOL_CALL_ARGS","toolCallId":{id},"delta":"{{}}"}}"#),
            format!(r#"{{"type":"TOOL_CALL_END","toolCallId":{id}}}"#),
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.to_owned(),
        ];
        session.handle_response("t", &run_id, 200, Some("text/event-stream"), None);
        session.handle_bytes("t", &run_id, sse(&body).as_bytes());
        session.handle_body_end("t", &run_id);
        let job = std::iter::from_fn(|| session.poll_action(0))
            .find_map(|a| match a {
                Action::Execute(job) => Some(job),
                _ => None,
            })
            .expect("a call");
        assert_eq!(to_utf16(&job.tool_call_id), units);
    }
}
