//! An incremental, sans-IO decoder for WHATWG `text/event-stream` bytes.
//!
//! Implements the parsing rules of the HTML Standard, "9.2.5 Parsing an event stream" (the grammar:
//! optional leading BOM, LF / CR / CRLF line ends) and "9.2.6 Interpreting an event stream" (UTF-8
//! decoding, comment and field processing, and the "dispatch the event" steps).
//!
//! The decoder does no I/O: the caller pushes bytes in with [`SseDecoder::feed`], pulls complete
//! events out with [`SseDecoder::next_event`], and tells it the input ended with
//! [`SseDecoder::finish`]. Chunks may be split anywhere (inside a CRLF pair, inside the BOM, inside a
//! multi-byte UTF-8 character); the events are the same however the input is chunked.
//!
//! Work is linear in the input: every byte is scanned for a line end once, bytes of a line that is
//! complete within one chunk are parsed straight from that chunk, and only the unterminated tail of
//! a chunk is copied into the decoder.
//!
//! ```
//! use chat_runtime::protocol::sse::SseDecoder;
//!
//! let mut decoder = SseDecoder::new();
//! decoder.feed(b"event: greeting\ndata: hel").unwrap();
//! assert!(decoder.next_event().is_none());
//! decoder.feed(b"lo\r\n\r\n").unwrap();
//! decoder.finish().unwrap();
//! let event = decoder.next_event().unwrap();
//! assert_eq!(event.event.as_deref(), Some("greeting"));
//! assert_eq!(event.data, "hello");
//! ```

use std::borrow::Cow;
use std::collections::VecDeque;

/// The default cap on the size of one event, see [`SseDecoder::with_max_event_bytes`]: 16 MiB.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// The UTF-8 encoding of U+FEFF, skipped once at the start of the stream (9.2.5: `stream = [ bom ] *event`).
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// A carried line buffer whose capacity grew past this is dropped after use instead of being
/// reused, so one huge line does not pin its allocation for the rest of the stream.
const LINE_CAPACITY_TO_KEEP: usize = 64 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field if one was given with a non-empty value; `None` means the default type
    /// `"message"`.
    pub event: Option<String>,
    /// The values of the event's `data:` lines, joined with `"\n"`.
    pub data: String,
    /// The last event ID in force when this event was dispatched. Per WHATWG it persists across
    /// events until another `id:` field changes it; `None` if no `id:` field was seen yet or the
    /// last one had an empty value (which resets the last event ID).
    pub id: Option<String>,
    /// The value of a valid `retry:` field (ASCII digits only) in this event's block, else `None`.
    /// Values too large for a `u64` saturate to `u64::MAX`.
    pub retry: Option<u64>,
}

/// Why decoding failed. Once [`SseDecoder::feed`] or [`SseDecoder::finish`] returned an error the
/// decoder stays failed and keeps returning that error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// One event (its data buffer plus the line being read) grew past the cap.
    ///
    /// The size counted is the bytes of the event's decoded data buffer plus the raw bytes of the
    /// line currently being read, without its line terminator. Comment lines are discarded as they
    /// arrive and never count.
    #[error("event exceeds the limit of {limit} bytes")]
    EventTooLarge {
        /// The cap that was exceeded, in bytes.
        limit: usize,
    },
    /// The input ended inside an event: it has no terminating blank line. Carries what was
    /// buffered so nothing is lost silently.
    #[error("stream ended inside an event that has no terminating blank line")]
    Truncated {
        /// The event as it would have been dispatched, with an unterminated last line processed
        /// as if it had been terminated (so `data: x` with no newline gives `data == "x"`).
        partial: SseEvent,
    },
}

/// Where the decoder is in matching the optional UTF-8 BOM at the start of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BomState {
    /// This many leading bytes of the stream (0 to 2) matched the BOM so far; they are held back
    /// until the BOM either completes (and is dropped) or mismatches (and they are replayed).
    Matching(u8),
    /// The BOM was skipped or ruled out; later U+FEFF bytes are ordinary content.
    Done,
}

/// An incremental `text/event-stream` decoder: bytes in, [`SseEvent`]s out.
///
/// See the [module documentation](self) for an example.
#[derive(Debug, Clone)]
pub struct SseDecoder {
    /// The cap on one event's size; bounds memory against a server that never ends an event or a line.
    limit: usize,
    /// Total bytes handed to `feed`, so callers can report where in the stream an error happened.
    bytes_consumed: u64,
    /// The first error; kept so every later `feed` / `finish` reports it again instead of
    /// decoding garbage after a failure.
    failed: Option<SseError>,
    /// Progress through an optional BOM that may be split across the first chunks (9.2.6: "One
    /// leading U+FEFF BYTE ORDER MARK character must be ignored if any are present").
    bom: BomState,
    /// The bytes of the current line that arrived in earlier chunks and have no line end yet. Only
    /// the unterminated tail of a chunk is copied here; a line that is complete inside one chunk is
    /// parsed from the chunk directly. It never holds a line end, so it is never rescanned.
    line: Vec<u8>,
    /// The current (unterminated) line is a comment: its bytes are dropped as they arrive rather
    /// than buffered, since 9.2.6 ignores lines starting with `:`.
    in_comment: bool,
    /// The last chunk ended with CR: if the next byte is LF it is the second half of the same CRLF
    /// line end and is skipped, so a CRLF split across chunks counts as one line break (9.2.5).
    after_cr: bool,
    /// The data buffer (9.2.6), without the spec's trailing LF: lines are joined with LF as they
    /// come, which equals "append value and LF, remove the last LF at dispatch" without a copy.
    data: String,
    /// Whether any `data` field was seen in this block. Stands in for "the data buffer is not
    /// empty" (9.2.6 dispatch step 2), which `data` alone cannot tell: `data:` adds an empty line.
    has_data: bool,
    /// The event type buffer (9.2.6); empty means the default type `message`.
    event_type: String,
    /// The last event ID buffer (9.2.6), never reset at dispatch; `None` stands for "".
    last_event_id: Option<String>,
    /// The "last event ID string" (9.2.6 dispatch step 1): the buffer as it was at the last
    /// blank line. An `id` read inside a block that never ends is not committed.
    committed_id: Option<String>,
    /// A valid `retry` value seen in this block, reported on the event dispatched from the block.
    retry: Option<u64>,
    /// The stream's reconnection time (9.2.6 `retry` field): the latest valid `retry` value,
    /// which per the spec takes effect at once, even in a block that is never dispatched.
    reconnection_time: Option<u64>,
    /// A non-comment line was processed since the last blank line, i.e. an event is in progress;
    /// `finish` reports `Truncated` when the input ends in that state.
    in_block: bool,
    /// Complete events not yet taken with `next_event`, oldest first.
    queue: VecDeque<SseEvent>,
    /// An `id` field was read in the block being read. An event's `id` may be inherited from an
    /// earlier block; a resumed stream's replay check (`EventDecoder`) needs to know whether the
    /// event carried one of its own.
    block_has_id: bool,
    /// For each event of `queue`, whether its block had an `id` field of its own.
    own_ids: VecDeque<bool>,
    /// Whether the event [`next_event`](Self::next_event) returned last had one.
    last_had_own_id: bool,
    /// Emptied data buffers handed back with [`recycle`](Self::recycle), reused for the next
    /// events' data instead of allocating one per event.
    spare: Vec<String>,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl SseDecoder {
    /// A decoder whose events may be up to [`DEFAULT_MAX_EVENT_BYTES`] long.
    pub fn new() -> Self {
        Self::with_max_event_bytes(DEFAULT_MAX_EVENT_BYTES)
    }

    /// A decoder that fails with [`SseError::EventTooLarge`] once one event (its decoded data plus
    /// the raw bytes of the line being read) is larger than `limit` bytes.
    pub fn with_max_event_bytes(limit: usize) -> Self {
        Self {
            limit,
            bytes_consumed: 0,
            failed: None,
            bom: BomState::Matching(0),
            line: Vec::new(),
            in_comment: false,
            after_cr: false,
            data: String::new(),
            has_data: false,
            event_type: String::new(),
            last_event_id: None,
            committed_id: None,
            retry: None,
            reconnection_time: None,
            in_block: false,
            queue: VecDeque::new(),
            block_has_id: false,
            own_ids: VecDeque::new(),
            last_had_own_id: false,
            spare: Vec::new(),
        }
    }

    /// Parses `chunk` as far as possible, queueing every event it completes; the unterminated rest
    /// is kept for the next call.
    ///
    /// On error, the events completed before the failing point stay available from
    /// [`next_event`](Self::next_event), and every later call returns the same error.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), SseError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let result = self.feed_once(chunk);
        self.keep(result)
    }

    /// [`feed`](Self::feed) for a caller that stops at the first error (the
    /// [`EventDecoder`](super::decode::EventDecoder), which keeps its own): the error is not kept,
    /// so it is not cloned. Not to be called after an error (until a
    /// [`reconnect`](Self::reconnect)).
    pub(crate) fn feed_once(&mut self, chunk: &[u8]) -> Result<(), SseError> {
        self.bytes_consumed += chunk.len() as u64;
        let chunk = match self.skip_bom(chunk) {
            Some(rest) => rest,
            None => return Ok(()),
        };
        self.scan(chunk)
    }

    /// Pops the oldest complete event, if any. Keeps working after [`finish`](Self::finish) and
    /// after an error.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.last_had_own_id = self.own_ids.pop_front().unwrap_or(false);
        self.queue.pop_front()
    }

    /// Whether the event [`next_event`](Self::next_event) returned last had an `id` field in its
    /// own block (its `id` is not only inherited from an earlier event's).
    pub fn had_own_id(&self) -> bool {
        self.last_had_own_id
    }

    /// Hands back an event's `data` once it has been read, so its memory carries the data of a
    /// later event (a stream of small events then allocates no buffer per event). Optional.
    pub fn recycle(&mut self, mut data: String) {
        const KEEP: usize = 64;
        const LARGEST: usize = 4096;
        if self.spare.len() < KEEP && data.capacity() <= LARGEST {
            data.clear();
            self.spare.push(data);
        }
    }

    /// Signals the end of the input.
    ///
    /// Returns [`SseError::Truncated`] if an event was in progress: a field line was read since the
    /// last blank line, or an unterminated line other than a comment is pending. Pending comments
    /// and blank lines are fine (9.2.6: at end of file "any pending data must be discarded").
    /// Queued events stay available from [`next_event`](Self::next_event).
    ///
    /// When it returns `Ok`, the decoder is left unchanged (a repeated `finish` returns `Ok`
    /// again); when it returns an error, the decoder is failed.
    pub fn finish(&mut self) -> Result<(), SseError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let result = self.finish_once();
        self.keep(result)
    }

    /// [`finish`](Self::finish) for a caller that stops at the first error (see
    /// [`feed_once`](Self::feed_once)).
    pub(crate) fn finish_once(&mut self) -> Result<(), SseError> {
        let pending_bom = match self.bom {
            BomState::Matching(n) => usize::from(n),
            BomState::Done => 0,
        };
        if !self.in_block && self.line.is_empty() && pending_bom == 0 {
            return Ok(());
        }
        // The stream ends inside an event. Build the event as it would have been dispatched,
        // treating the unterminated last line (including held-back BOM bytes, which turned out
        // not to be a BOM) as complete.
        let mut line = std::mem::take(&mut self.line);
        if pending_bom > 0 {
            line.splice(0..0, BOM[..pending_bom].iter().copied());
            self.bom = BomState::Done;
        }
        if !line.is_empty() {
            self.process_field(&line);
        }
        let partial = SseEvent {
            event: non_empty(std::mem::take(&mut self.event_type)),
            data: std::mem::take(&mut self.data),
            id: self.last_event_id.clone(),
            retry: self.retry.take(),
        };
        Err(SseError::Truncated { partial })
    }

    /// Total bytes passed to [`feed`](Self::feed), including a leading BOM and the chunk that
    /// failed, but not chunks passed after a failure.
    pub fn bytes_consumed(&self) -> u64 {
        self.bytes_consumed
    }

    /// The stream's reconnection time in milliseconds: the latest valid `retry` field anywhere in
    /// the stream so far. Unlike [`SseEvent::retry`] this also sees `retry` fields of blocks that
    /// carry no data and so are never dispatched (9.2.6 applies `retry` immediately).
    pub fn reconnection_time(&self) -> Option<u64> {
        self.reconnection_time
    }

    /// The last event ID string: the value of the latest `id` field without U+0000 in a block
    /// that ended with a blank line (with or without data), `None` if there was none or it was
    /// empty. An `id` read in a block still being read, or cut off by the end of the input, is
    /// not committed (9.2.6: dispatch sets it). This is what a client sends as `Last-Event-ID`
    /// on reconnect.
    pub fn last_event_id(&self) -> Option<&str> {
        self.committed_id.as_deref()
    }

    /// Starts over on a new connection of the same stream (a reconnect): the event being read,
    /// a carried line and the BOM state are dropped, the last event ID string and the
    /// reconnection time are kept (the id buffer restarts from the committed id), and a failure
    /// is cleared. Queued events stay.
    pub fn reconnect(&mut self) {
        self.failed = None;
        self.bom = BomState::Matching(0);
        self.line.clear();
        self.in_comment = false;
        self.after_cr = false;
        self.data.clear();
        self.has_data = false;
        self.event_type.clear();
        self.last_event_id.clone_from(&self.committed_id);
        self.retry = None;
        self.in_block = false;
        self.block_has_id = false;
    }

    /// Records an error of `result` as the decoder's permanent failure; returns `result`.
    fn keep(&mut self, result: Result<(), SseError>) -> Result<(), SseError> {
        if let Err(err) = &result {
            self.failed = Some(err.clone());
        }
        result
    }

    /// Fails with `EventTooLarge` if the data buffer plus a line of `line_len` bytes is over the cap.
    fn check_size(&self, line_len: usize) -> Result<(), SseError> {
        if self.data.len().saturating_add(line_len) > self.limit {
            return Err(SseError::EventTooLarge { limit: self.limit });
        }
        Ok(())
    }

    /// 9.2.6: "One leading U+FEFF BYTE ORDER MARK character must be ignored if any are present."
    /// Matches the BOM bytes at the very start of the stream, across chunks if it is split.
    /// Returns the bytes of `chunk` left to scan, or `None` if all of them were held back.
    fn skip_bom<'a>(&mut self, chunk: &'a [u8]) -> Option<&'a [u8]> {
        let BomState::Matching(matched) = self.bom else {
            return Some(chunk);
        };
        let mut matched = usize::from(matched);
        let mut taken = 0;
        while matched < BOM.len() && taken < chunk.len() && chunk[taken] == BOM[matched] {
            matched += 1;
            taken += 1;
        }
        if matched == BOM.len() {
            self.bom = BomState::Done;
            return Some(&chunk[taken..]);
        }
        if taken == chunk.len() {
            // Still a BOM prefix (or an empty chunk): wait for more bytes.
            self.bom = BomState::Matching(matched as u8);
            return None;
        }
        // Not a BOM: the held-back prefix is ordinary content, and starts the first line. The
        // prefix has no line ends, so it simply becomes the start of the carried line.
        self.bom = BomState::Done;
        self.line.extend_from_slice(&BOM[..matched]);
        Some(&chunk[taken..])
    }

    /// Splits `buf` into lines (9.2.5: `end-of-line = ( cr lf / cr / lf )`) and processes each
    /// complete one; the unterminated tail is carried to the next chunk. Every byte is scanned once.
    fn scan(&mut self, buf: &[u8]) -> Result<(), SseError> {
        let mut pos = 0;
        if self.after_cr && !buf.is_empty() {
            self.after_cr = false;
            if buf[0] == b'\n' {
                pos = 1;
            }
        }
        while pos < buf.len() {
            let rest = &buf[pos..];
            let Some(end) = find_line_end(rest) else {
                return self.carry(rest);
            };
            self.end_line(&rest[..end])?;
            pos += end + 1;
            if rest[end] == b'\r' {
                match buf.get(pos) {
                    Some(b'\n') => pos += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        Ok(())
    }

    /// Keeps `tail` (non-empty, no line end) as the start or continuation of the current line.
    fn carry(&mut self, tail: &[u8]) -> Result<(), SseError> {
        if self.in_comment {
            return Ok(());
        }
        if self.line.is_empty() && tail[0] == b':' {
            // 9.2.6: a line starting with a colon is ignored, so there is nothing to keep.
            self.in_comment = true;
            return Ok(());
        }
        self.check_size(self.line.len() + tail.len())?;
        self.line.extend_from_slice(tail);
        Ok(())
    }

    /// A line end was found; `tail` is the part of the line in the current chunk.
    fn end_line(&mut self, tail: &[u8]) -> Result<(), SseError> {
        if self.in_comment {
            self.in_comment = false;
            return Ok(());
        }
        if self.line.is_empty() {
            // The whole line is in this chunk: parse it in place, no copy.
            return self.process_line(tail);
        }
        self.line.extend_from_slice(tail);
        let mut line = std::mem::take(&mut self.line);
        let result = self.process_line(&line);
        if line.capacity() <= LINE_CAPACITY_TO_KEEP {
            line.clear();
            self.line = line;
        }
        result
    }

    /// 9.2.6: processes one complete line (without its line end).
    fn process_line(&mut self, line: &[u8]) -> Result<(), SseError> {
        match line.first() {
            // "If the line is empty (a blank line): Dispatch the event."
            None => {
                self.dispatch();
                Ok(())
            }
            // "If the line starts with a U+003A COLON character (:): Ignore the line."
            Some(b':') => Ok(()),
            Some(_) => {
                self.check_size(line.len())?;
                self.process_field(line);
                // Lossy decoding can grow the data (one bad byte becomes a 3-byte U+FFFD).
                self.check_size(0)
            }
        }
    }

    /// 9.2.6: splits a non-empty, non-comment line into field name and value and processes the
    /// field. Works on bytes: `:` and space are ASCII, which the UTF-8 decoder never folds into a
    /// replacement character, so splitting before decoding gives the same result as after.
    fn process_field(&mut self, line: &[u8]) {
        self.in_block = true;
        // "If the line contains a U+003A COLON character (:): Collect the characters on the line
        // before the first colon ... field name ... after the first colon ... value. If value
        // starts with a U+0020 SPACE character, remove it from value."
        // "Otherwise, the string is not empty but does not contain a colon: process the field
        // using the whole line as the field name, and the empty string as the field value."
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        // "Process the field" (9.2.6), by field name:
        match name {
            // "Append the field value to the data buffer, then append a single U+000A LINE FEED
            // (LF) character to the data buffer." (Joined on the fly, see `data`.)
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.has_data = true;
                self.data.push_str(&decode(value));
            }
            // "Set the event type buffer to the field value."
            b"event" => {
                self.event_type.clear();
                self.event_type.push_str(&decode(value));
            }
            // "If the field value does not contain U+0000 NULL, then set the last event ID buffer
            // to the field value. Otherwise, ignore the field."
            b"id" if !value.contains(&0) => {
                self.last_event_id = non_empty(decode(value).into_owned());
                self.block_has_id = true;
            }
            // "If the field value consists of only ASCII digits, then interpret the field value as
            // an integer in base ten, and set the event stream's reconnection time to that
            // integer. Otherwise, ignore the field." An empty value is ignored too.
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let ms = value.iter().fold(0u64, |acc, &d| {
                    acc.saturating_mul(10).saturating_add(u64::from(d - b'0'))
                });
                self.retry = Some(ms);
                self.reconnection_time = Some(ms);
            }
            // "Otherwise: The field is ignored." (So are `id` with U+0000 and invalid `retry`.)
            _ => {}
        }
    }

    /// 9.2.6 "dispatch the event", run on a blank line.
    fn dispatch(&mut self) {
        self.in_block = false;
        // Step 1: "set the last event ID string to the last event ID buffer" (the buffer is
        // never reset).
        if self.committed_id != self.last_event_id {
            self.committed_id.clone_from(&self.last_event_id);
        }
        // Step 2: "If the data buffer is an empty string, set the data buffer and the event type
        // buffer to the empty string and return."
        let retry = self.retry.take();
        let own_id = std::mem::take(&mut self.block_has_id);
        if !self.has_data {
            self.event_type.clear();
            return;
        }
        // Step 3 (remove the data buffer's trailing LF) is implicit: lines are joined, not
        // terminated. Steps 4-6: create the event with type (default "message"), data and last
        // event ID; then reset the data and event type buffers.
        self.has_data = false;
        let fresh = self.spare.pop().unwrap_or_default();
        let event = SseEvent {
            event: non_empty(std::mem::take(&mut self.event_type)),
            data: std::mem::replace(&mut self.data, fresh),
            id: self.last_event_id.clone(),
            retry,
        };
        self.queue.push_back(event);
        self.own_ids.push_back(own_id);
    }
}

/// The position of the first LF or CR in `hay`, if any.
///
/// Checks eight bytes per step with the "has a zero byte" word trick (`x - 0x01.. & !x & 0x80..`
/// flags zero bytes of `x`; false flags only appear above a real zero, so the lowest flag is
/// exact), since data lines can be megabytes long. No `unsafe`, no dependency.
fn find_line_end(hay: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const LF: u64 = LO * b'\n' as u64;
    const CR: u64 = LO * b'\r' as u64;
    let mut words = hay.chunks_exact(8);
    let mut offset = 0;
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().expect("chunks_exact yields 8 bytes"));
        let lf = w ^ LF;
        let cr = w ^ CR;
        let zero = ((lf.wrapping_sub(LO) & !lf) | (cr.wrapping_sub(LO) & !cr)) & HI;
        if zero != 0 {
            return Some(offset + (zero.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map(|i| offset + i)
}

/// 9.2.6: the stream is decoded with "UTF-8 decode", which replaces invalid sequences with
/// U+FFFD; `from_utf8_lossy` does the same (maximal subparts) and borrows when the bytes are valid.
fn decode(bytes: &[u8]) -> Cow<'_, str> {
    // `from_utf8` checks ASCII a word at a time; the lossy decoder walks byte by byte, so it only
    // runs when there is something to replace.
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// `None` for the empty string, which the spec uses as "not set".
fn non_empty(s: String) -> Option<String> {
    if s.is_empty() {
        None
    } else {
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::find_line_end;

    #[test]
    fn find_line_end_matches_a_naive_search() {
        // Every position in and around the 8-byte words, with neighbours one above and below the
        // terminator and the other terminator's neighbours around it, to catch false flags.
        for len in 0..40 {
            for at in 0..len {
                for eol in [b'\n', b'\r'] {
                    let mut hay: Vec<u8> = (0..len)
                        .map(|i| [0x09, 0x0B, 0x0C, 0x0E, 0x80][i % 5])
                        .collect();
                    hay[at] = eol;
                    for start in 0..=at {
                        assert_eq!(
                            find_line_end(&hay[start..]),
                            Some(at - start),
                            "len {len} at {at}"
                        );
                    }
                    hay[at] = eol + 1;
                    assert_eq!(find_line_end(&hay), None);
                }
            }
        }
        let all: Vec<u8> = (0..=255u8).rev().collect();
        assert_eq!(find_line_end(&all), Some(255 - 13));
        let no_eol: Vec<u8> = (0..=255u8).filter(|&b| b != b'\n' && b != b'\r').collect();
        assert_eq!(find_line_end(&no_eol), None);
    }
}
