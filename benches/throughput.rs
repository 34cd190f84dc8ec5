//! Native throughput of the protocol core: `text/event-stream` bytes → events (decode + verify) and
//! bytes → messages (decode + chunk expansion + verify + thread reducer), on synthetic AG-UI streams
//! shaped like real traffic. Run with `make bench` (`cargo bench --bench throughput`).
//!
//! Reported: MB/s and events/s, median of several runs, each run feeding the body in 16 KiB chunks
//! as a network would. This is a report, not a test: nothing here asserts a speed.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use chat_runtime::protocol::decode::{DecodeOptions, EventDecoder, Output};
use chat_runtime::protocol::thread::Thread;

const CHUNK: usize = 16 * 1024;
const RUNS: usize = 7;

fn frame(out: &mut String, json: &str) {
    out.push_str("data: ");
    out.push_str(json);
    out.push_str("\n\n");
}

/// 50,000 text deltas of a few characters each.
fn token_heavy() -> String {
    let mut s = String::new();
    frame(
        &mut s,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
    );
    frame(
        &mut s,
        r#"{"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}"#,
    );
    for i in 0..50_000 {
        let mut json = String::new();
        write!(
            json,
            r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"tok{i} "}}"#
        )
        .unwrap();
        frame(&mut s, &json);
    }
    frame(&mut s, r#"{"type":"TEXT_MESSAGE_END","messageId":"m1"}"#);
    frame(
        &mut s,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    );
    s
}

/// 1 MiB of tool-call arguments in 10,000 deltas.
fn args_heavy() -> String {
    let mut s = String::new();
    frame(
        &mut s,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
    );
    frame(
        &mut s,
        r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"write_file","parentMessageId":"m1"}"#,
    );
    frame(
        &mut s,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"text\":\""}"#,
    );
    let piece = "x".repeat(105);
    for _ in 0..10_000 {
        frame(
            &mut s,
            &format!(r#"{{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{piece}"}}"#),
        );
    }
    frame(
        &mut s,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"\"}"}"#,
    );
    frame(&mut s, r#"{"type":"TOOL_CALL_END","toolCallId":"c1"}"#);
    frame(
        &mut s,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    );
    s
}

/// A state snapshot then 20,000 JSON Patch deltas.
fn state_heavy() -> String {
    let mut s = String::new();
    frame(
        &mut s,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
    );
    frame(
        &mut s,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"progress":0,"items":[],"status":"start"}}"#,
    );
    for i in 0..20_000 {
        let op = match i % 4 {
            0 => format!(r#"[{{"op":"replace","path":"/progress","value":{i}}}]"#),
            1 => format!(
                r#"[{{"op":"add","path":"/items/-","value":{{"id":{i},"label":"item {i}"}}}}]"#
            ),
            2 => r#"[{"op":"replace","path":"/status","value":"working"}]"#.to_owned(),
            _ => r#"[{"op":"remove","path":"/items/0"}]"#.to_owned(),
        };
        frame(&mut s, &format!(r#"{{"type":"STATE_DELTA","delta":{op}}}"#));
    }
    frame(
        &mut s,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    );
    s
}

/// Interleaved text, tool calls with results, steps and state: 2,000 rounds.
/// `steps` interleaved steps of text, a tool call with its result and a state delta.
fn mixed(steps: usize) -> String {
    let mut s = String::new();
    frame(
        &mut s,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
    );
    frame(&mut s, r#"{"type":"STATE_SNAPSHOT","snapshot":{"n":0}}"#);
    for i in 0..steps {
        frame(
            &mut s,
            &format!(r#"{{"type":"STEP_STARTED","stepName":"s{i}"}}"#),
        );
        frame(
            &mut s,
            &format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"m{i}","role":"assistant"}}"#),
        );
        for j in 0..10 {
            frame(
                &mut s,
                &format!(
                    r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m{i}","delta":"word{j} "}}"#
                ),
            );
        }
        frame(
            &mut s,
            &format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"m{i}"}}"#),
        );
        frame(
            &mut s,
            &format!(
                r#"{{"type":"TOOL_CALL_START","toolCallId":"c{i}","toolCallName":"search","parentMessageId":"m{i}"}}"#
            ),
        );
        frame(
            &mut s,
            &format!(
                r#"{{"type":"TOOL_CALL_ARGS","toolCallId":"c{i}","delta":"{{\"query\":\"item {i}\"}}"}}"#
            ),
        );
        frame(
            &mut s,
            &format!(r#"{{"type":"TOOL_CALL_END","toolCallId":"c{i}"}}"#),
        );
        frame(
            &mut s,
            &format!(
                r#"{{"type":"TOOL_CALL_RESULT","messageId":"r{i}","toolCallId":"c{i}","content":"result {i}"}}"#
            ),
        );
        frame(
            &mut s,
            &format!(
                r#"{{"type":"STATE_DELTA","delta":[{{"op":"replace","path":"/n","value":{i}}}]}}"#
            ),
        );
        frame(
            &mut s,
            &format!(r#"{{"type":"STEP_FINISHED","stepName":"s{i}"}}"#),
        );
    }
    frame(
        &mut s,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    );
    s
}

/// Decodes (and, with `reduce`, folds into a thread) one body; returns the events seen.
fn run(body: &[u8], reduce: bool) -> usize {
    let options = DecodeOptions {
        output: if reduce {
            Output::Expanded
        } else {
            Output::Wire
        },
        ..DecodeOptions::default()
    };
    let mut decoder = EventDecoder::new(&options);
    let mut thread = Thread::new();
    let mut events = 0;
    let mut take = |decoder: &mut EventDecoder| {
        while let Some(event) = decoder.next_event() {
            events += 1;
            if reduce {
                thread
                    .apply(&event)
                    .expect("reducer accepts the synthetic stream");
            }
        }
    };
    for chunk in body.chunks(CHUNK) {
        decoder.feed(chunk).expect("synthetic stream decodes");
        take(&mut decoder);
    }
    decoder.finish().expect("synthetic stream is complete");
    take(&mut decoder);
    std::hint::black_box(thread.messages().len());
    events
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let corpora = [
        ("token-heavy", token_heavy()),
        ("args-heavy", args_heavy()),
        ("state-heavy", state_heavy()),
        ("mixed", mixed(2_000)),
    ];
    println!(
        "chat-runtime native throughput ({RUNS} runs, median, {} KiB chunks)",
        CHUNK / 1024
    );
    println!(
        "{:<12} {:>8} {:>8} | {:>22} | {:>22}",
        "corpus", "MB", "events", "decode+verify", "decode+reduce"
    );
    for (name, body) in &corpora {
        let mb = body.len() as f64 / 1e6;
        let mut cells = Vec::new();
        let mut count = 0;
        for reduce in [false, true] {
            let samples = (0..RUNS)
                .map(|_| {
                    let start = Instant::now();
                    count = run(body.as_bytes(), reduce);
                    start.elapsed()
                })
                .collect();
            let t = median(samples).as_secs_f64();
            cells.push(format!(
                "{:>7.0} MB/s {:>6.2} Mev/s",
                mb / t,
                count as f64 / t / 1e6
            ));
        }
        println!(
            "{name:<12} {mb:>8.2} {count:>8} | {} | {}",
            cells[0], cells[1]
        );
    }

    // Scaling: the mixed stream (every kind of event; messages, tool calls and their ids pile
    // up in the thread and the verifier) at 20 times the steps, decode + reduce, the two sizes
    // alternating so the machine's load falls on both alike. Linear code stays near 20x
    // (allocator and cache effects of the growing thread add some).
    let (small, large) = (mixed(1_000), mixed(20_000));
    let (mut t_small, mut t_large) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        for (body, times) in [(&small, &mut t_small), (&large, &mut t_large)] {
            let start = Instant::now();
            run(body.as_bytes(), true);
            times.push(start.elapsed());
        }
    }
    let (t_small, t_large) = (median(t_small), median(t_large));
    println!(
        "scaling, mixed decode+reduce: {:.2} MB {:.1} ms, {:.2} MB {:.1} ms: {:.1}x the time for {:.1}x the bytes",
        small.len() as f64 / 1e6,
        t_small.as_secs_f64() * 1e3,
        large.len() as f64 / 1e6,
        t_large.as_secs_f64() * 1e3,
        t_large.as_secs_f64() / t_small.as_secs_f64(),
        large.len() as f64 / small.len() as f64
    );
}
