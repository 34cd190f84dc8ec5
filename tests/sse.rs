//! Behaviour of the `text/event-stream` decoder (`chat_runtime::protocol::sse`).
//!
//! The edge cases follow the eventsource-parser test suite (rexxars/eventsource-parser,
//! `test/parse.test.ts` and its fixtures) and the WHATWG HTML "9.2.6 Interpreting an event
//! stream" rules. Most tables go through [`check`], which also asserts that feeding the input
//! whole, one byte at a time, and split in two at every byte position all give the same outcome.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use chat_runtime::protocol::sse::{SseDecoder, SseError, SseEvent, DEFAULT_MAX_EVENT_BYTES};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// An event of the default type with `data` and no id or retry.
fn ev(data: &str) -> SseEvent {
    SseEvent {
        event: None,
        data: data.to_owned(),
        id: None,
        retry: None,
    }
}

/// Builder methods for expected events.
trait EventExt {
    fn typed(self, event: &str) -> Self;
    fn with_id(self, id: &str) -> Self;
    fn with_retry(self, retry: u64) -> Self;
}

impl EventExt for SseEvent {
    fn typed(mut self, event: &str) -> Self {
        self.event = Some(event.to_owned());
        self
    }
    fn with_id(mut self, id: &str) -> Self {
        self.id = Some(id.to_owned());
        self
    }
    fn with_retry(mut self, retry: u64) -> Self {
        self.retry = Some(retry);
        self
    }
}

/// Everything a decoder produced for one input: the events, and how the input ended (the first
/// error from `feed`, or else the result of `finish`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    events: Vec<SseEvent>,
    end: Result<(), SseError>,
}

fn truncated(partial: SseEvent) -> Result<(), SseError> {
    Err(SseError::Truncated { partial })
}

/// Feeds `chunks` in order into `decoder`, then finishes, and collects the events. Events are
/// drained after every chunk as well, to exercise `next_event` between feeds.
fn run_with<'a>(mut decoder: SseDecoder, chunks: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
    let mut events = Vec::new();
    for chunk in chunks {
        let fed = decoder.feed(chunk);
        while let Some(event) = decoder.next_event() {
            events.push(event);
        }
        if let Err(err) = fed {
            return Outcome {
                events,
                end: Err(err),
            };
        }
    }
    let end = decoder.finish();
    while let Some(event) = decoder.next_event() {
        events.push(event);
    }
    Outcome { events, end }
}

fn run<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Outcome {
    run_with(SseDecoder::new(), chunks)
}

fn whole(input: &[u8]) -> Outcome {
    run([input])
}

fn bytewise(input: &[u8]) -> Outcome {
    run(input.chunks(1))
}

/// Decodes `input` whole and asserts that one-byte chunks and every two-chunk split agree.
fn decode_any_chunking(input: &[u8]) -> Outcome {
    let expected = whole(input);
    assert_eq!(
        bytewise(input),
        expected,
        "one-byte chunks of {:?}",
        lossy(input)
    );
    for at in 0..=input.len() {
        let (a, b) = input.split_at(at);
        assert_eq!(run([a, b]), expected, "split at {at} of {:?}", lossy(input));
    }
    expected
}

/// Asserts the outcome of `input` (under every chunking) for one table row.
fn check(name: &str, input: impl AsRef<[u8]>, events: &[SseEvent], end: Result<(), SseError>) {
    let outcome = decode_any_chunking(input.as_ref());
    assert_eq!(
        outcome,
        Outcome {
            events: events.to_vec(),
            end
        },
        "case {name:?}"
    );
}

/// A table row that must end cleanly.
fn check_ok(name: &str, input: impl AsRef<[u8]>, events: &[SseEvent]) {
    check(name, input, events, Ok(()));
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A tiny deterministic xorshift64 generator, so chunkings are reproducible without dependencies.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A value in `1..=max`.
    fn size(&mut self, max: usize) -> usize {
        1 + (self.next() % max as u64) as usize
    }
}

/// Splits `input` into pseudo-random chunks of 1 to `max` bytes.
fn random_chunks<'a>(input: &'a [u8], rng: &mut XorShift, max: usize) -> Vec<&'a [u8]> {
    let mut chunks = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(rng.size(max).min(rest.len()));
        chunks.push(chunk);
        rest = tail;
    }
    chunks
}

/// The mixed-comments fixture of eventsource-parser, as one byte string.
fn mixed_comments_stream() -> Vec<u8> {
    let long = "x".repeat(2 * 1024 + 1);
    format!(
        "data:1\r\r:\0\n:\r\ndata:2\n\n:{long}\rdata:3\n\n:data:fail\r:{long}\ndata:4\n\ndata:5"
    )
    .into_bytes()
}

/// Streams that exercise most rules at once, for the chunking properties.
fn representative_streams() -> Vec<Vec<u8>> {
    vec![
        b"\xEF\xBB\xBFdata: bom\r\n\r\nid: 7\nevent: e\ndata: a\rdata: b\r\r: comment \xE2\x99\xA5\n\
          retry: 250\ndata: \xF0\x9F\xA5\x8C caf\xC3\xA9\n\n"
            .to_vec(),
        mixed_comments_stream(),
        "event: stock\r\ndata: YHOO\r\ndata: +2\r\ndata: 10\r\n\r\nid: \u{1F3B5}\ndata: 我現在都看實況不玩遊戲\n\n"
            .as_bytes()
            .to_vec(),
        b"data: \xE2\x82\n\n\xFF\n\xEF\xBB\xBFdata: mid-stream bom\n\ndata:\n\ndata\ndata\n\nid: a\0b\ndata: x\n\n".to_vec(),
        b"\xEF\xBBdata: not a bom\n\ndata: y\r\n\r\ndata: a\n\r\ndata: b\r\r\n\r\n\r\r".to_vec(),
        b"\r\n\r\n\n\r: just comments\r\n:\n".to_vec(),
        b"id: 1\nretry: 5\ndata: 1\n\ndata: 2\n\nevent: end\ndata: tail".to_vec(),
        b"data: 0123456789abcdef0123456789abcdef\ndata: x\n\n".to_vec(),
    ]
}

// ---------------------------------------------------------------------------------------------
// Line ends
// ---------------------------------------------------------------------------------------------

#[test]
fn lf_cr_and_crlf_each_end_a_line() {
    let table: &[(&str, &str, &[&str])] = &[
        (
            "lf",
            "data: cow\ndata: moo\n\ndata: horse\ndata: neigh\n\n",
            &["cow\nmoo", "horse\nneigh"],
        ),
        (
            "cr",
            "data: dog\rdata: bark\r\rdata: cat\rdata: meow\r\r",
            &["dog\nbark", "cat\nmeow"],
        ),
        (
            "crlf",
            "data: sheep\r\ndata: bleat\r\n\r\ndata: pig\r\ndata: oink\r\n\r\n",
            &["sheep\nbleat", "pig\noink"],
        ),
        (
            "mixed in one event",
            "data: a\rdata: b\ndata: c\r\n\r\n",
            &["a\nb\nc"],
        ),
        ("lf then crlf blank line", "data: a\n\r\n", &["a"]),
        ("crlf then cr blank line", "data: a\r\n\r", &["a"]),
        (
            "lf then cr blank line",
            "data: a\n\rdata: b\n\n",
            &["a", "b"],
        ),
        ("cr then crlf blank line", "data: a\r\r\n", &["a"]),
        ("lf cr is two line ends", "data: a\n\r", &["a"]),
        (
            "extra blank lines",
            "\n\r\n\rdata: a\n\n\n\r\n\rdata: b\n\n",
            &["a", "b"],
        ),
    ];
    for (name, input, data) in table {
        let events: Vec<_> = data.iter().map(|d| ev(d)).collect();
        check_ok(name, input, &events);
    }
}

#[test]
fn crlf_split_across_chunks_is_one_line_break() {
    let table: &[(&str, &[&str], &[&str])] = &[
        // eventsource-parser issue #17: the CR ending a chunk is half of a CRLF.
        (
            "data lines",
            &["data: A\r\n", "data: B\r", "\n", "data: C\r\n", "\n"],
            &["A\nB\nC"],
        ),
        ("blank line", &["data: one\r", "\r", "\n"], &["one"]),
        (
            "empty chunk between cr and lf",
            &["data: a\r", "", "\n", "", "\n"],
            &["a"],
        ),
        (
            "comment line",
            &["data: one\n:", "ignored\r", "\ndata: two\n\n"],
            &["one\ntwo"],
        ),
        (
            "comment arriving with its cr",
            &["data: one\n:ignored\r", "\ndata: two\n\n"],
            &["one\ntwo"],
        ),
        (
            "bare field line",
            &["data: one\ndata\r", "\ndata: two\n\n"],
            &["one\n\ntwo"],
        ),
    ];
    for (name, chunks, data) in table {
        let events: Vec<_> = data.iter().map(|d| ev(d)).collect();
        let outcome = run(chunks.iter().map(|c| c.as_bytes()));
        assert_eq!(
            outcome,
            Outcome {
                events,
                end: Ok(())
            },
            "case {name:?}"
        );
    }
}

#[test]
fn cr_at_chunk_end_followed_by_another_byte_is_a_complete_line_break() {
    let table: &[(&str, &[&str], &[&str])] = &[
        (
            "data follows",
            &["data: dog\r", "data: bark\r\r"],
            &["dog\nbark"],
        ),
        (
            "comment then data",
            &["data: one\n:ignored\r", "data: two\n\n"],
            &["one\ntwo"],
        ),
        (
            "cr blank line then data",
            &["data: a\r\r", "data: b\r\r"],
            &["a", "b"],
        ),
    ];
    for (name, chunks, data) in table {
        let events: Vec<_> = data.iter().map(|d| ev(d)).collect();
        let outcome = run(chunks.iter().map(|c| c.as_bytes()));
        assert_eq!(
            outcome,
            Outcome {
                events,
                end: Ok(())
            },
            "case {name:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Byte order mark
// ---------------------------------------------------------------------------------------------

#[test]
fn leading_bom_is_skipped_whole_or_split() {
    let input = b"\xEF\xBB\xBFdata: bomful 1\n\ndata: bomless 2\n\n";
    let expected = [ev("bomful 1"), ev("bomless 2")];
    check_ok("bom", input, &expected);
    for chunks in [
        &[
            &b"\xEF"[..],
            b"\xBB",
            b"\xBF",
            b"data: bomful 1\n\ndata: bomless 2\n\n",
        ][..],
        &[
            b"",
            b"\xEF\xBB",
            b"",
            b"\xBFdata: bomful 1\n\n",
            b"data: bomless 2\n\n",
        ],
    ] {
        let outcome = run(chunks.iter().copied());
        assert_eq!(outcome.events, expected);
        assert_eq!(outcome.end, Ok(()));
    }
}

#[test]
fn bom_is_only_skipped_at_stream_start() {
    check_ok(
        "second bom makes an unknown field",
        b"\xEF\xBB\xBFdata: bomful 1\n\n\xEF\xBB\xBFdata: bomful 2\n\ndata: bomless 3\n\n",
        &[ev("bomful 1"), ev("bomless 3")],
    );
    check_ok(
        "only one bom is skipped",
        b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\ndata: y\n\n",
        &[ev("y")],
    );
    check_ok(
        "bom inside a value is data",
        b"data: \xEF\xBB\xBFx\n\n",
        &[ev("\u{FEFF}x")],
    );
    check_ok(
        "bom then blank lines and comments",
        b"\xEF\xBB\xBF\n: c\n\ndata: x\n\n",
        &[ev("x")],
    );
    check_ok("only a bom", b"\xEF\xBB\xBF", &[]);
}

#[test]
fn partial_bom_prefix_is_kept_as_content() {
    check_ok(
        "two bom bytes",
        b"\xEF\xBBdata: not a bom\n\ndata: y\n\n",
        &[ev("y")],
    );
    check_ok(
        "one bom byte",
        b"\xEFdata: not a bom\n\ndata: y\n\n",
        &[ev("y")],
    );
    check("bom prefix alone", b"\xEF\xBB", &[], truncated(ev("")));
    check_ok(
        "bom prefix then line end",
        b"\xEF\xBB\n\ndata: y\n\n",
        &[ev("y")],
    );
}

// ---------------------------------------------------------------------------------------------
// Comments and fields
// ---------------------------------------------------------------------------------------------

#[test]
fn comment_lines_are_ignored() {
    let colons = ":".repeat(300);
    let emoji_comment = format!(": {} :", "🥌 ✔ ♥ ".repeat(100));
    let table: Vec<(&str, String, Vec<SseEvent>)> = vec![
        (
            "comment block",
            ": Hello\n\ndata: First\n\n".into(),
            vec![ev("First")],
        ),
        (
            "long colon run",
            format!("{colons}\ndata: x\n\n"),
            vec![ev("x")],
        ),
        (
            "non-ascii comment",
            ": Первый: 第二\n: ثالث\n:നാലാമത്തെ\ndata: Second\n\n".into(),
            vec![ev("Second")],
        ),
        (
            "emoji comment",
            format!("{emoji_comment}\ndata: Fifth\n\n"),
            vec![ev("Fifth")],
        ),
        (
            "comment between data lines",
            "data: a\n: between\ndata: b\n\n".into(),
            vec![ev("a\nb")],
        ),
        (
            "nul and empty comments",
            ":\0\n:\r\ndata:2\n\n".into(),
            vec![ev("2")],
        ),
        ("commented-out field", ":data: fail\n\n".into(), vec![]),
        (
            "heartbeats",
            ": ♥\n\ndata: A\n\n: ♥\n\ndata: B\n\n".into(),
            vec![ev("A"), ev("B")],
        ),
        (
            "trailing unterminated comment",
            "data: x\n\n: bye".into(),
            vec![ev("x")],
        ),
    ];
    for (name, input, events) in table {
        check_ok(name, input, &events);
    }
}

#[test]
fn mixed_comment_fixture_keeps_complete_events_and_reports_the_unterminated_one() {
    check(
        "mixed comments",
        mixed_comments_stream(),
        &[ev("1"), ev("2"), ev("3"), ev("4")],
        truncated(ev("5")),
    );
}

#[test]
fn multi_line_data_is_joined_with_lf() {
    check_ok(
        "stock",
        "event: stock\ndata: YHOO\ndata: +2\ndata: 10\n\nevent: stock\ndata: GOOG\ndata: -8\ndata: 1881\n\n",
        &[ev("YHOO\n+2\n10").typed("stock"), ev("GOOG\n-8\n1881").typed("stock")],
    );
    check_ok(
        "value with lf-like text",
        "data: a\\nb\ndata: c\n\n",
        &[ev("a\\nb\nc")],
    );
}

#[test]
fn only_one_leading_space_after_the_colon_is_stripped() {
    let table = [
        ("no space", "data:x\n\n", "x"),
        ("one space", "data: x\n\n", "x"),
        ("two spaces", "data:  x\n\n", " x"),
        ("tab is kept", "data:\tx\n\n", "\tx"),
        ("trailing space kept", "data: x \n\n", "x "),
        ("second colon is value", "data::x\n\n", ":x"),
        ("colon inside value", "data: a:b\n\n", "a:b"),
        ("space-only value", "data: \n\n", ""),
    ];
    for (name, input, data) in table {
        check_ok(name, input, &[ev(data)]);
    }
}

#[test]
fn empty_data_lines_still_make_a_non_empty_data_buffer() {
    // `data:` appends "" + LF, so the buffer is not empty and the event is dispatched with
    // data "" (eventsource-parser "oddly shaped data field").
    let table = [
        ("empty value", "data:\n\n", ""),
        ("two lines without colon", "data\ndata\n\n", "\n"),
        ("two empty values", "data:\ndata:\n\n", "\n"),
        (
            "empty between values",
            "data: a\ndata:\ndata: b\n\n",
            "a\n\nb",
        ),
    ];
    for (name, input, data) in table {
        check_ok(name, input, &[ev(data)]);
    }
    check_ok(
        "fixture",
        "data:\n\ndata\ndata\n\ndata:test\n\n",
        &[ev(""), ev("\n"), ev("test")],
    );
}

#[test]
fn line_without_colon_is_a_field_with_empty_value() {
    check_ok("data", "data\n\n", &[ev("")]);
    check_ok(
        "event resets type",
        "event: a\nevent\ndata: x\n\n",
        &[ev("x")],
    );
    check_ok(
        "id resets last event id",
        "id: 1\ndata: a\n\nid\ndata: b\n\n",
        &[ev("a").with_id("1"), ev("b")],
    );
    check_ok(
        "retry without value is ignored",
        "retry\ndata: x\n\n",
        &[ev("x")],
    );
}

#[test]
fn unknown_and_misspelled_fields_are_ignored() {
    check_ok(
        "fixture",
        "data:abc\n data\ndata\nfoobar:xxx\njustsometext\n:thisisacommentyay\ndata:123\n\n",
        &[ev("abc\n\n123")],
    );
    check_ok(
        "field names are case-sensitive",
        "Data: x\nDATA: y\nEvent: e\nID: 1\n\ndata: z\n\n",
        &[ev("z")],
    );
    check_ok(
        "json body line",
        "{\"error\":\"Internal Server Error\"}\n\ndata: ok\n\n",
        &[ev("ok")],
    );
}

#[test]
fn event_field_sets_the_type_of_one_event() {
    check_ok(
        "type does not carry over",
        "event: a\ndata: 1\n\ndata: 2\n\n",
        &[ev("1").typed("a"), ev("2")],
    );
    check_ok(
        "empty type is the default",
        "event:\ndata: Hello 1\n\nevent:\n\nevent: done\ndata: ✔\n\n",
        &[ev("Hello 1"), ev("✔").typed("done")],
    );
    check_ok(
        "a block without data resets the type",
        "event: a\n\ndata: 2\n\n",
        &[ev("2")],
    );
    check_ok(
        "last event line wins",
        "event: a\nevent: b\ndata: x\n\n",
        &[ev("x").typed("b")],
    );
}

#[test]
fn id_persists_across_events_until_changed() {
    check_ok(
        "persists",
        "id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n",
        &[
            ev("a").with_id("1"),
            ev("b").with_id("1"),
            ev("c").with_id("2"),
        ],
    );
    check_ok(
        "empty id resets",
        "id: 1\ndata: a\n\nid:\ndata: b\n\n",
        &[ev("a").with_id("1"), ev("b")],
    );
    check_ok(
        "leading space stripped once",
        "id:  x\ndata: a\n\n",
        &[ev("a").with_id(" x")],
    );
    check_ok(
        "identified ticks with retry",
        "event: tick\nid: 1337\nretry: 50\ndata: 1337\n\nevent: tick\nid: 1338\nretry: 50\ndata: 1338\n\n",
        &[
            ev("1337").typed("tick").with_id("1337").with_retry(50),
            ev("1338").typed("tick").with_id("1338").with_retry(50),
        ],
    );
}

#[test]
fn id_containing_nul_is_ignored() {
    check_ok(
        "keeps previous id",
        "id: 123\nid: bad\0id\ndata: hello\n\n",
        &[ev("hello").with_id("123")],
    );
    check_ok("no previous id", "id: \0\ndata: hello\n\n", &[ev("hello")]);
}

#[test]
fn id_from_a_block_without_data_updates_the_last_event_id() {
    check_ok(
        "id-only block",
        "id: 42\n\ndata: x\n\n",
        &[ev("x").with_id("42")],
    );
    check_ok("cr", "id: 42\r\rdata: x\r\r", &[ev("x").with_id("42")]);
    check_ok(
        "crlf",
        "id: 42\r\n\r\ndata: x\r\n\r\n",
        &[ev("x").with_id("42")],
    );

    let mut decoder = SseDecoder::new();
    decoder.feed(b"id: 42\n").unwrap();
    // Read, not yet committed: the block has not ended.
    assert_eq!(decoder.last_event_id(), None);
    decoder.feed(b"\n").unwrap();
    // The blank line commits it, though the block has no data (9.2.6 dispatch step 1).
    assert_eq!(decoder.last_event_id(), Some("42"));
    decoder.feed(b"id: bad\0id\n\n").unwrap();
    assert_eq!(decoder.last_event_id(), Some("42"));
    decoder.feed(b"id:\n\n").unwrap();
    assert_eq!(decoder.last_event_id(), None);
    assert_eq!(decoder.next_event(), None);
    assert_eq!(decoder.finish(), Ok(()));
}

#[test]
fn an_id_inside_an_event_that_never_completes_is_not_committed() {
    let mut decoder = SseDecoder::new();
    decoder.feed(b"id: 1\ndata: a\n\nid: 2\ndata: b").unwrap();
    assert_eq!(decoder.next_event(), Some(ev("a").with_id("1")));
    // `id: 2` was read inside an event that has no blank line yet: the last event ID a client
    // sends on reconnect is still 1.
    assert_eq!(decoder.last_event_id(), Some("1"));
    assert!(matches!(
        decoder.finish(),
        Err(SseError::Truncated { partial }) if partial.id.as_deref() == Some("2")
    ));
    assert_eq!(decoder.last_event_id(), Some("1"));

    // An empty `id:` inside an unfinished block does not reset the committed id either.
    let mut decoder = SseDecoder::new();
    decoder.feed(b"id: 7\n\nid:\ndata: x\n").unwrap();
    assert_eq!(decoder.last_event_id(), Some("7"));
    decoder.feed(b"\n").unwrap();
    assert_eq!(decoder.last_event_id(), None);
}

#[test]
fn reconnect_keeps_the_committed_id_and_drops_the_partial_event() {
    let mut decoder = SseDecoder::new();
    decoder
        .feed(b"retry: 40\nid: 1\ndata: a\n\nid: 2\nevent: e\ndata: half")
        .unwrap();
    assert_eq!(
        decoder.next_event(),
        Some(ev("a").with_id("1").with_retry(40))
    );
    decoder.reconnect();
    assert_eq!(decoder.last_event_id(), Some("1"));
    assert_eq!(decoder.reconnection_time(), Some(40));
    // The new connection starts a fresh stream: its own BOM is skipped, nothing of `half` or of
    // `event: e` is left, and events without an `id:` carry the committed one.
    decoder
        .feed(b"\xEF\xBB\xBFdata: b\n\nid: 3\ndata: c\n\n")
        .unwrap();
    assert_eq!(decoder.next_event(), Some(ev("b").with_id("1")));
    assert_eq!(decoder.next_event(), Some(ev("c").with_id("3")));
    assert_eq!(decoder.last_event_id(), Some("3"));
    assert_eq!(decoder.finish(), Ok(()));

    // A stream cut inside a comment or a CRLF pair starts clean too.
    let mut decoder = SseDecoder::new();
    decoder.feed(b"id: 1\r\n\r\n: a comm").unwrap();
    decoder.reconnect();
    decoder.feed(b"data: x\r").unwrap();
    decoder.reconnect();
    decoder.feed(b"\ndata: y\n\n").unwrap();
    assert_eq!(decoder.next_event(), Some(ev("y").with_id("1")));
}

#[test]
fn retry_is_kept_only_when_it_is_ascii_digits() {
    let table: &[(&str, &str, Option<u64>)] = &[
        ("digits", "retry: 1000", Some(1000)),
        ("no space", "retry:1000", Some(1000)),
        ("leading zeros", "retry: 007", Some(7)),
        ("zero", "retry: 0", Some(0)),
        (
            "huge saturates",
            "retry: 99999999999999999999999",
            Some(u64::MAX),
        ),
        ("trailing junk", "retry:2000x", None),
        ("empty", "retry:", None),
        ("no colon", "retry", None),
        ("negative", "retry: -1", None),
        ("plus sign", "retry: +5", None),
        ("decimal", "retry: 1.5", None),
        ("two spaces", "retry:  5", None),
        ("trailing space", "retry: 5 ", None),
        ("fullwidth digit", "retry: ５", None),
    ];
    for (name, line, retry) in table {
        let mut expected = ev("x");
        expected.retry = *retry;
        check_ok(name, format!("{line}\ndata: x\n\n"), &[expected]);
    }
    check_ok(
        "invalid does not clear valid",
        "retry: 1000\nretry: 2000x\ndata: x\n\n",
        &[ev("x").with_retry(1000)],
    );
}

#[test]
fn retry_belongs_to_its_block_and_also_sets_the_reconnection_time() {
    check_ok(
        "per block",
        "retry: 5\ndata: a\n\ndata: b\n\n",
        &[ev("a").with_retry(5), ev("b")],
    );
    check_ok(
        "retry-only block is not dispatched",
        "retry: 5\n\ndata: b\n\n",
        &[ev("b")],
    );

    let mut decoder = SseDecoder::new();
    assert_eq!(decoder.reconnection_time(), None);
    decoder.feed(b"retry: 500\n\n").unwrap();
    assert_eq!(decoder.next_event(), None);
    assert_eq!(decoder.reconnection_time(), Some(500));
    decoder.feed(b"retry: 50x\ndata: x\n\n").unwrap();
    assert_eq!(decoder.next_event(), Some(ev("x")));
    assert_eq!(decoder.reconnection_time(), Some(500));
}

#[test]
fn blocks_without_data_are_not_dispatched() {
    let table = [
        ("event only", "event: e\n\n"),
        ("id only", "id: 1\n\n"),
        ("retry only", "retry: 5\n\n"),
        ("unknown field only", "foo: bar\n\n"),
        ("blank lines", "\n\n\r\n\r"),
        ("comment", ": c\n\n"),
        ("misspelled data", "dat: x\ndata : y\n\n"),
    ];
    for (name, input) in table {
        check_ok(name, input, &[]);
    }
}

// ---------------------------------------------------------------------------------------------
// UTF-8
// ---------------------------------------------------------------------------------------------

#[test]
fn multibyte_characters_split_at_every_byte_boundary_decode_correctly() {
    let input = "id: 🎵\ndata: 我現在都看實況不玩遊戲\n\nevent: 🥌\ndata: ✔ é 🧹\n\n".as_bytes();
    let expected = Outcome {
        events: vec![
            ev("我現在都看實況不玩遊戲").with_id("🎵"),
            ev("✔ é 🧹").typed("🥌").with_id("🎵"),
        ],
        end: Ok(()),
    };
    assert_eq!(decode_any_chunking(input), expected);
    // Every split into three chunks as well.
    for i in 0..=input.len() {
        for j in i..=input.len() {
            let outcome = run([&input[..i], &input[i..j], &input[j..]]);
            assert_eq!(outcome, expected, "splits at {i} and {j}");
        }
    }
}

#[test]
fn invalid_utf8_becomes_replacement_characters() {
    let table: &[(&str, &[u8], &str)] = &[
        ("lone continuation", b"data: \xFF\n\n", "\u{FFFD}"),
        (
            "truncated sequence is one replacement",
            b"data: \xE2\x82\n\n",
            "\u{FFFD}",
        ),
        ("valid sequence", b"data: a\xE2\x82\xACb\n\n", "a\u{20AC}b"),
        ("overlong", b"data: \xC0\x80\n\n", "\u{FFFD}\u{FFFD}"),
        (
            "surrogate",
            b"data: \xED\xA0\x80\n\n",
            "\u{FFFD}\u{FFFD}\u{FFFD}",
        ),
        (
            "truncated before line end",
            b"data: x\xF0\x9F\x98\ndata: y\n\n",
            "x\u{FFFD}\ny",
        ),
    ];
    for (name, input, data) in table {
        check_ok(name, input, &[ev(data)]);
    }
    check_ok(
        "invalid id",
        b"id: \xFF\ndata: x\n\n",
        &[ev("x").with_id("\u{FFFD}")],
    );
    check_ok(
        "invalid field name is unknown",
        b"\xFFdata: x\n\ndata: y\n\n",
        &[ev("y")],
    );
}

// ---------------------------------------------------------------------------------------------
// End of input
// ---------------------------------------------------------------------------------------------

#[test]
fn finish_with_only_comments_or_blank_lines_pending_is_ok() {
    let table = [
        "",
        "\n",
        ": heartbeat",
        ": heartbeat\n",
        "\n\n\n",
        "\r",
        "data: x\n\n: bye",
        "data: x\n\n\r\n",
    ];
    for input in table {
        let outcome = decode_any_chunking(input.as_bytes());
        assert_eq!(outcome.end, Ok(()), "input {input:?}");
    }
}

#[test]
fn input_ending_inside_an_event_is_truncated_with_the_partial_event() {
    let table: Vec<(&str, &str, Vec<SseEvent>, SseEvent)> = vec![
        ("no newline at all", "data: x", vec![], ev("x")),
        ("no blank line", "data: x\n", vec![], ev("x")),
        ("cr but no blank line", "data: x\r", vec![], ev("x")),
        ("crlf but no blank line", "data: x\r\n", vec![], ev("x")),
        ("two lines", "data: a\ndata: b", vec![], ev("a\nb")),
        (
            "after a complete event",
            "data: 1\n\ndata: 2",
            vec![ev("1")],
            ev("2"),
        ),
        (
            "all fields",
            "id: 1\nevent: e\ndata: a\nretry: 5",
            vec![],
            ev("a").typed("e").with_id("1").with_retry(5),
        ),
        (
            "id carried from an earlier event",
            "id: 9\ndata: 1\n\ndata: 2\n",
            vec![ev("1").with_id("9")],
            ev("2").with_id("9"),
        ),
        (
            "event type without data",
            "event: e\n",
            vec![],
            ev("").typed("e"),
        ),
        ("unterminated field name", "data", vec![], ev("")),
        ("comment after a field", "data: a\n: c", vec![], ev("a")),
        (
            "unknown field",
            "{\"error\":\"Internal Server Error\"}\n",
            vec![],
            ev(""),
        ),
        (
            "unterminated junk",
            "Well, this is not what I expected",
            vec![],
            ev(""),
        ),
    ];
    for (name, input, events, partial) in table {
        check(name, input, &events, truncated(partial));
    }
}

#[test]
fn next_event_still_returns_queued_events_after_finish() {
    let mut decoder = SseDecoder::new();
    decoder.feed(b"data: 1\n\ndata: 2\n\ndata: 3").unwrap();
    assert_eq!(decoder.finish(), truncated(ev("3")));
    assert_eq!(decoder.next_event(), Some(ev("1")));
    assert_eq!(decoder.next_event(), Some(ev("2")));
    assert_eq!(decoder.next_event(), None);

    let mut decoder = SseDecoder::new();
    decoder.feed(b"data: 1\n\n").unwrap();
    assert_eq!(decoder.finish(), Ok(()));
    assert_eq!(decoder.finish(), Ok(()));
    assert_eq!(decoder.next_event(), Some(ev("1")));
    assert_eq!(decoder.next_event(), None);
}

#[test]
fn decoder_stays_failed_after_an_error() {
    let too_large = Err(SseError::EventTooLarge { limit: 8 });
    let mut decoder = SseDecoder::with_max_event_bytes(8);
    assert_eq!(
        decoder.feed(b"data: ok\n\ndata: this is too long"),
        too_large
    );
    assert_eq!(decoder.feed(b"\n\ndata: hello\n\n"), too_large);
    assert_eq!(decoder.finish(), too_large);
    assert_eq!(decoder.feed(b"data: hello\n\n"), too_large);
    assert_eq!(decoder.next_event(), Some(ev("ok")));
    assert_eq!(decoder.next_event(), None);

    let mut decoder = SseDecoder::new();
    decoder.feed(b"data: x").unwrap();
    let end = truncated(ev("x"));
    assert_eq!(decoder.finish(), end);
    assert_eq!(decoder.feed(b"\n\ndata: y\n\n"), end);
    assert_eq!(decoder.finish(), end);
    assert_eq!(decoder.next_event(), None);
}

// ---------------------------------------------------------------------------------------------
// Size cap
// ---------------------------------------------------------------------------------------------

#[test]
fn event_larger_than_the_cap_fails_with_event_too_large() {
    let limit = 64;
    let too_large = Err(SseError::EventTooLarge { limit });
    let long = "x".repeat(limit);
    let table: Vec<(&str, String, Vec<SseEvent>)> = vec![
        ("one long line", format!("data: {long}\n\n"), vec![]),
        ("unterminated long line", format!("data: {long}"), vec![]),
        ("long unknown field", format!("foo: {long}\n\n"), vec![]),
        (
            "after a small event",
            format!("data: ok\n\ndata: {long}\n\n"),
            vec![ev("ok")],
        ),
        (
            "many lines add up",
            "data: 0123456789abcdef\n".repeat(4) + "\n",
            vec![],
        ),
    ];
    for (name, input, events) in table {
        let input = input.as_bytes();
        let whole = run_with(SseDecoder::with_max_event_bytes(limit), [input]);
        assert_eq!(
            whole,
            Outcome {
                events,
                end: too_large.clone()
            },
            "case {name:?}"
        );
        assert_eq!(
            run_with(SseDecoder::with_max_event_bytes(limit), input.chunks(1)),
            whole,
            "case {name:?} bytewise"
        );
        assert_eq!(
            run_with(SseDecoder::with_max_event_bytes(limit), input.chunks(7)),
            whole,
            "case {name:?} 7-byte chunks"
        );
    }
}

#[test]
fn event_just_under_the_cap_passes() {
    let limit = 64;
    // The line being read counts with its field name but without its line end.
    let exact = format!("data: {}\r\n\r\n", "x".repeat(limit - 6));
    let just_over = format!("data: {}\r\n\r\n", "x".repeat(limit - 5));
    // Two lines: 30 bytes of data, then a 34-byte line.
    let two_lines = format!("data: {}\ndata: {}\n\n", "a".repeat(24), "b".repeat(28));
    for (name, input, ok) in [
        ("exact", &exact, true),
        ("one over", &just_over, false),
        ("two lines", &two_lines, true),
    ] {
        for size in [1, 3, input.len()] {
            let outcome = run_with(
                SseDecoder::with_max_event_bytes(limit),
                input.as_bytes().chunks(size),
            );
            assert_eq!(
                outcome.end.is_ok(),
                ok,
                "case {name:?} in {size}-byte chunks: {outcome:?}"
            );
            assert_eq!(outcome.events.len(), usize::from(ok), "case {name:?}");
        }
    }
}

#[test]
fn cap_applies_per_event_not_per_stream() {
    let input = "data: 0123456789\n\n".repeat(100);
    let outcome = run_with(SseDecoder::with_max_event_bytes(16), [input.as_bytes()]);
    assert_eq!(outcome.end, Ok(()));
    assert_eq!(outcome.events.len(), 100);
}

#[test]
fn comments_are_discarded_and_do_not_count_towards_the_cap() {
    let input = format!("data: ok\n:{}\ndata: ok\n\n", "-".repeat(1000));
    for size in [1, 5, input.len()] {
        let outcome = run_with(
            SseDecoder::with_max_event_bytes(16),
            input.as_bytes().chunks(size),
        );
        assert_eq!(
            outcome,
            Outcome {
                events: vec![ev("ok\nok")],
                end: Ok(())
            },
            "{size}-byte chunks"
        );
    }
}

#[test]
fn replacement_characters_count_towards_the_cap() {
    // A 10-byte line whose 4 invalid bytes decode to 12 bytes of U+FFFD.
    let input = b"data: \xFF\xFF\xFF\xFF\n\n";
    let outcome = run_with(SseDecoder::with_max_event_bytes(10), [&input[..]]);
    assert_eq!(outcome.end, Err(SseError::EventTooLarge { limit: 10 }));
    let outcome = run_with(SseDecoder::with_max_event_bytes(12), [&input[..]]);
    assert_eq!(outcome.events, [ev("\u{FFFD}".repeat(4).as_str())]);
}

#[test]
fn default_cap_is_sixteen_mib() {
    assert_eq!(DEFAULT_MAX_EVENT_BYTES, 16 * 1024 * 1024);
    let mut line = b"data: ".to_vec();
    line.resize(DEFAULT_MAX_EVENT_BYTES, b'x');
    line.extend_from_slice(b"\n\n");
    let outcome = run([&line[..]]);
    assert_eq!(outcome.end, Ok(()));
    assert_eq!(outcome.events[0].data.len(), DEFAULT_MAX_EVENT_BYTES - 6);

    let mut decoder = SseDecoder::default();
    assert_eq!(decoder.feed(&line[..DEFAULT_MAX_EVENT_BYTES]), Ok(()));
    assert_eq!(
        decoder.feed(b"x"),
        Err(SseError::EventTooLarge {
            limit: DEFAULT_MAX_EVENT_BYTES
        })
    );
}

// ---------------------------------------------------------------------------------------------
// Chunking and scale
// ---------------------------------------------------------------------------------------------

#[test]
fn bytes_consumed_counts_every_fed_byte() {
    let mut decoder = SseDecoder::with_max_event_bytes(16);
    assert_eq!(decoder.bytes_consumed(), 0);
    decoder.feed(b"\xEF\xBB").unwrap();
    decoder.feed(b"\xBFdata: a\r").unwrap();
    decoder.feed(b"").unwrap();
    decoder.feed(b"\n\n").unwrap();
    assert_eq!(decoder.bytes_consumed(), 13);
    assert!(decoder.feed(b"data: far too long for the cap\n\n").is_err());
    assert_eq!(decoder.bytes_consumed(), 45);
    assert!(decoder.feed(b"more").is_err());
    assert_eq!(decoder.bytes_consumed(), 45);
}

#[test]
fn one_byte_chunks_of_a_long_stream_equal_feeding_it_whole() {
    let mut input = String::from("\u{FEFF}: start\n\n");
    for i in 0..2000 {
        match i % 5 {
            0 => input.push_str(&format!("id: {i}\nevent: tick\ndata: {i}\n\n")),
            1 => input.push_str(&format!("data: line {i}\r\ndata: ✔ {i}\r\n\r\n")),
            2 => input.push_str(&format!(": keep-alive {i}\rretry: {i}\rdata: {i}\r\r")),
            3 => input.push_str("data:\n\nid: x\n\n"),
            _ => input.push_str(&format!("data: {}\n\n", "我".repeat(i % 40))),
        }
    }
    let whole = whole(input.as_bytes());
    assert_eq!(whole.end, Ok(()));
    assert_eq!(whole.events.len(), 2000);
    assert_eq!(bytewise(input.as_bytes()), whole);
}

#[test]
fn one_mib_event_fed_one_byte_per_chunk_finishes() {
    let mut input = b"data: ".to_vec();
    input.extend((0..1024 * 1024).map(|i| b'a' + (i % 26) as u8));
    input.extend_from_slice(b"\ndata: tail\n\n");
    let mut decoder = SseDecoder::new();
    for byte in input.chunks(1) {
        decoder.feed(byte).unwrap();
    }
    decoder.finish().unwrap();
    let event = decoder.next_event().unwrap();
    assert_eq!(event.data.len(), 1024 * 1024 + 5);
    assert!(
        event.data.ends_with("tuv\ntail"),
        "{:?}",
        &event.data[event.data.len() - 10..]
    );
    assert_eq!(decoder.next_event(), None);
}

#[test]
fn one_mib_of_short_lines_in_one_event_fed_one_byte_per_chunk_finishes() {
    let input = "data: 0123456789\r\n".repeat(64 * 1024) + "\r\n";
    let mut decoder = SseDecoder::new();
    for byte in input.as_bytes().chunks(1) {
        decoder.feed(byte).unwrap();
    }
    decoder.finish().unwrap();
    let event = decoder.next_event().unwrap();
    assert_eq!(event.data.len(), 64 * 1024 * 11 - 1);
}

#[test]
fn every_two_chunk_split_gives_the_same_events_as_feeding_whole() {
    for stream in representative_streams() {
        decode_any_chunking(&stream);
    }
}

#[test]
fn pseudo_random_chunkings_give_the_same_events_as_feeding_whole() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for stream in representative_streams() {
        let expected = whole(&stream);
        for round in 0..200 {
            let max = 1 + round % 16;
            let chunks = random_chunks(&stream, &mut rng, max);
            assert_eq!(
                run(chunks.iter().copied()),
                expected,
                "round {round} of {:?}",
                lossy(&stream)
            );
        }
    }
}

#[test]
fn representative_streams_decode_as_expected() {
    // Pins the whole-feed result the chunking properties compare against.
    let streams = representative_streams();
    assert_eq!(
        whole(&streams[0]),
        Outcome {
            events: vec![
                ev("bom"),
                ev("a\nb").typed("e").with_id("7"),
                ev("🥌 café").with_id("7").with_retry(250),
            ],
            end: Ok(()),
        }
    );
    assert_eq!(
        whole(&streams[3]).events,
        [ev("\u{FFFD}"), ev(""), ev("\n"), ev("x")]
    );
    assert_eq!(
        whole(&streams[6]),
        Outcome {
            events: vec![ev("1").with_id("1").with_retry(5), ev("2").with_id("1")],
            end: truncated(ev("tail").typed("end").with_id("1")),
        }
    );
}
