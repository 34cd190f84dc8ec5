//! Stream resume for the planner's runs: every event goes out with an SSE `id:` (its position in
//! the run, from 0; the first frame also carries `retry:`), and a re-POST of the same run (same
//! thread, same `runId`) with `Last-Event-ID: n` is answered with the events after `n`, from a log
//! of the recent runs kept in memory. The run goes on producing into its log when the client goes
//! away, so a client that reconnects misses nothing.
//!
//! For the browser tests, `POST /test/cut` may also make the thread's re-POSTs start again at
//! `n` or from the first event ([`ResumeMode`]), as some servers do, and it makes the next
//! responses of a thread stop part-way
//! ([`Cut`]): after `byte` bytes of frame `frame`, with a clean end, or with a network error once
//! `POST /test/break` says so. A client only keeps the bytes it read before the error (a fetch
//! body stream drops what it had queued), so the test breaks the connection after the page has
//! seen the events it expects.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::response::Response;
use serde::Deserialize;
use tokio::sync::watch;

/// The reconnection time the streams ask for (`retry:`), in ms.
pub const RETRY_MS: u64 = 100;

/// How many runs' logs are kept (the oldest is dropped first).
const KEPT_RUNS: usize = 32;

/// Where a response stops (`POST /test/cut`, one per response, in order).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cut {
    /// The frame (event position in the run, from 0) the cut is in.
    pub frame: usize,
    /// How many bytes of that frame go out: taken modulo the frame's length, so 0 cuts right
    /// before the frame (between events) and any other value inside it.
    pub byte: usize,
    /// End the body normally at the cut instead of breaking the connection (at the next
    /// `POST /test/break`).
    #[serde(default)]
    pub clean: bool,
}

/// One run's frames so far, and whether the run is over.
#[derive(Default)]
struct Frames {
    frames: Vec<Bytes>,
    done: bool,
}

/// A run's log: its producer appends, any number of responses read.
pub struct RunLog {
    frames: Mutex<Frames>,
    changed: watch::Sender<()>,
}

impl RunLog {
    fn new() -> Self {
        Self {
            frames: Mutex::default(),
            changed: watch::channel(()).0,
        }
    }

    /// Appends event number `n` as an SSE frame with its id.
    pub fn push(&self, event: &serde_json::Value) {
        let mut frames = self.frames.lock().unwrap_or_else(|e| e.into_inner());
        let n = frames.frames.len();
        let retry = if n == 0 {
            format!("retry: {RETRY_MS}\n")
        } else {
            String::new()
        };
        frames
            .frames
            .push(Bytes::from(format!("{retry}id: {n}\ndata: {event}\n\n")));
        drop(frames);
        self.changed.send_replace(());
    }

    /// The run is over: readers end once they have sent every frame.
    pub fn close(&self) {
        self.frames.lock().unwrap_or_else(|e| e.into_inner()).done = true;
        self.changed.send_replace(());
    }

    /// Whether the run is over (its producer wrote its last event).
    pub fn done(&self) -> bool {
        self.frames.lock().unwrap_or_else(|e| e.into_inner()).done
    }

    /// Waits until the run is over.
    pub async fn finished(&self) {
        let mut changed = self.changed.subscribe();
        while !self.done() {
            if changed.changed().await.is_err() {
                return;
            }
        }
    }

    /// Frame `n`, waiting for it; `None` once the run ended before it.
    async fn frame(&self, n: usize) -> Option<Bytes> {
        let mut changed = self.changed.subscribe();
        loop {
            {
                let frames = self.frames.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(frame) = frames.frames.get(n) {
                    return Some(frame.clone());
                }
                if frames.done {
                    return None;
                }
            }
            if changed.changed().await.is_err() {
                return None;
            }
        }
    }
}

/// The logs of the recent runs, by thread and run id.
#[derive(Default)]
pub struct Runs {
    logs: Mutex<VecDeque<(String, String, Arc<RunLog>)>>,
}

impl Runs {
    /// A new log for the run, replacing an older one of the same ids.
    pub fn start(&self, thread_id: &str, run_id: &str) -> Arc<RunLog> {
        let log = Arc::new(RunLog::new());
        let mut logs = self.logs.lock().unwrap_or_else(|e| e.into_inner());
        logs.retain(|(t, r, _)| !(t == thread_id && r == run_id));
        if logs.len() >= KEPT_RUNS {
            logs.pop_front();
        }
        logs.push_back((thread_id.to_owned(), run_id.to_owned(), log.clone()));
        log
    }

    /// The run's log, if it is kept.
    pub fn find(&self, thread_id: &str, run_id: &str) -> Option<Arc<RunLog>> {
        let logs = self.logs.lock().unwrap_or_else(|e| e.into_inner());
        logs.iter()
            .find(|(t, r, _)| t == thread_id && r == run_id)
            .map(|(_, _, log)| log.clone())
    }

    /// The thread's kept runs that are still going on.
    pub fn open(&self, thread_id: &str) -> Vec<Arc<RunLog>> {
        let logs = self.logs.lock().unwrap_or_else(|e| e.into_inner());
        logs.iter()
            .filter(|(t, _, log)| t == thread_id && !log.done())
            .map(|(_, _, log)| log.clone())
            .collect()
    }

    /// Forgets every run.
    pub fn clear(&self) {
        self.logs.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// Where a re-POST with `Last-Event-ID: n` starts (`POST /test/cut`'s `resume`): the SSE spec's
/// way, or one of the ways of servers that send again what the client has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ResumeMode {
    /// The events after `n`.
    #[default]
    After,
    /// Event `n` again, then the rest.
    At,
    /// The run's events from the first.
    Start,
}

/// Where a re-POST resumes: the frame after `Last-Event-ID` (`None`: not a number), or as `mode`
/// says.
pub fn resume_from(last_event_id: &str, mode: ResumeMode) -> Option<usize> {
    let n = last_event_id.trim().parse::<usize>().ok()?;
    match mode {
        ResumeMode::After => n.checked_add(1),
        ResumeMode::At => Some(n),
        ResumeMode::Start => Some(0),
    }
}

/// What a response still has to do.
struct Reader {
    log: Arc<RunLog>,
    /// Changes at each `POST /test/break`.
    breaks: watch::Receiver<u64>,
    next: usize,
    cut: Option<Cut>,
    /// The connection breaks at the next poll (the cut was made).
    broken: bool,
}

/// The `text/event-stream` response of frames `from..` of `log`, stopped at `cut` if given.
pub fn response(
    log: Arc<RunLog>,
    from: usize,
    cut: Option<Cut>,
    breaks: watch::Receiver<u64>,
) -> Response {
    let reader = Reader {
        log,
        breaks,
        next: from,
        cut,
        broken: false,
    };
    let stream = futures_util::stream::unfold(reader, |mut r| async move {
        if r.broken {
            // An error from the body stream makes the server drop the connection mid-body (while
            // the body waits, what was written goes out).
            let _ = r.breaks.changed().await;
            r.broken = false;
            r.next = usize::MAX;
            let error = std::io::Error::other("cut by /test/cut");
            return Some((Err::<Bytes, std::io::Error>(error), r));
        }
        if r.next == usize::MAX {
            return None;
        }
        let frame = r.log.frame(r.next).await?;
        let n = r.next;
        r.next += 1;
        match r.cut {
            Some(cut) if cut.frame == n => {
                let keep = cut.byte % frame.len();
                r.broken = !cut.clean;
                if cut.clean {
                    r.next = usize::MAX;
                }
                Some((Ok(frame.slice(..keep)), r))
            }
            _ => Some((Ok(frame), r)),
        }
    });
    crate::event_stream_response(Body::from_stream(stream))
}
