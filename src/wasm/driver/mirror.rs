//! The per-frame mirror of messages: the threads whose messages changed are flushed once per
//! animation frame as `messages` (and `state`, `activity`) events, and each thread's messages are
//! kept as the JS objects last handed out, so an event converts only what changed and `run()`'s
//! result reuses the listeners' objects.

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;

use super::listeners::{deliver, wants};
use super::{upgrade, Driver, EventFilter, Render};
use crate::json::{self, Value};
use crate::protocol::event::Message;
use crate::protocol::wire::ToJson;
use crate::session::{
    write_messages_event, write_state_event, ChangedMessages, RunResult, RuntimeEvent,
};
use crate::wasm::browser;
use crate::wasm::convert::parse;
use crate::wasm::error::Error;
use crate::wasm::{script, string};

impl Driver {
    /// The thread's messages changed: its `messages` event goes out with the next frame.
    pub(super) fn mark_dirty(&self, thread_id: &str) {
        self.borrow_mut().render.dirty.add(thread_id);
    }

    /// Schedules one `messages` event per changed thread for the next animation frame.
    pub(super) fn schedule_flush(&self) {
        {
            let mut state = self.borrow_mut();
            if state.render.frame_scheduled || state.render.dirty.is_empty() {
                return;
            }
            state.render.frame_scheduled = true;
        }
        let weak = self.weak();
        let scheduled = browser::schedule_frame(Box::new(move || {
            let Some(driver) = upgrade(&weak) else { return };
            let threads = {
                let mut state = driver.borrow_mut();
                state.render.frame_scheduled = false;
                std::mem::take(&mut state.render.dirty)
            };
            for (thread_id, ()) in threads {
                driver.flush_thread(&thread_id);
            }
        }));
        if !scheduled {
            // No frame and no timer (a page whose timers throw): the next change asks again,
            // and the run's end flushes its thread anyway.
            self.borrow_mut().render.frame_scheduled = false;
        }
    }

    /// Emits the thread's changed messages now, if any, and keeps the thread's mirror up to date
    /// with them: the first time (or after a snapshot) the whole thread is converted and the
    /// event's messages are picked from it. Without a `messages` listener nothing is converted
    /// and the mirror is dropped.
    pub(super) fn flush_thread(&self, thread_id: &str) {
        let listeners = self.listeners();
        self.flush_messages(thread_id, &listeners);
        self.flush_state(thread_id, &listeners);
        self.flush_activity(thread_id, &listeners);
    }

    /// The `activity` event, when bytes of the thread's stream arrived since the last frame, the
    /// thread still runs (the turn's end flushes its thread outside a frame: no event then) and a
    /// listener wants it: at most one per thread and frame, however many chunks came.
    fn flush_activity(&self, thread_id: &str, listeners: &[(Function, EventFilter)]) {
        #[cfg(feature = "coder")]
        let reconnecting;
        {
            let session = &mut self.borrow_mut().session;
            if !session.take_activity(thread_id)
                || !session.is_running(thread_id)
                || !listeners.iter().any(|(_, f)| wants(f, "activity"))
            {
                return;
            }
            // A Coder chat's stream that closed and is being reconnected says so.
            #[cfg(feature = "coder")]
            {
                reconnecting = session.take_reconnecting(thread_id);
            }
        }
        self.emit(&[RuntimeEvent::Activity {
            thread_id: thread_id.to_owned(),
            at: browser::wall_clock().unwrap_or_else(browser::now),
            #[cfg(feature = "coder")]
            reconnecting: reconnecting.map(|r| i64::from(r.0)),
            #[cfg(feature = "coder")]
            delay_ms: reconnecting.map(|r| r.1 as i64),
        }]);
    }

    /// The `state` event, when the thread's state changed and a listener wants it.
    fn flush_state(&self, thread_id: &str, listeners: &[(Function, EventFilter)]) {
        let text = {
            let state = &mut *self.borrow_mut();
            if !state.session.take_state_changed(thread_id)
                || !listeners.iter().any(|(_, f)| wants(f, "state"))
            {
                return;
            }
            let mut text = String::new();
            // `take_state_changed` said the thread exists: its state is there.
            let value = state.session.state(thread_id).unwrap_or(&Value::Null);
            write_state_event(&mut text, thread_id, value);
            text
        };
        if let Ok(event) = parse(&text) {
            deliver(listeners, "state", &event);
        }
    }

    fn flush_messages(&self, thread_id: &str, listeners: &[(Function, EventFilter)]) {
        let (text, changed, full) = {
            let state = &mut *self.borrow_mut();
            state.render.dirty.remove(thread_id);
            let Some(changed) = state.session.take_changed_positions(thread_id) else {
                return;
            };
            if !listeners.iter().any(|(_, f)| wants(f, "messages")) {
                state.render.mirrors.remove(thread_id);
                return;
            }
            let full = changed.all || !state.render.mirrors.contains_key(thread_id);
            let mut text = String::new();
            // A list replaced wholesale (`all`: a snapshot, `set_messages`, a Coder chat's committed
            // copies in place of its previews) goes out whole and says so: `replace: true`.
            write_messages_event::<&Message>(&mut text, thread_id, &[], changed.all);
            (text, changed, full)
        };
        let Ok(event) = parse(&text) else { return };
        // The whole thread (the first event of a stream that gave no frame a chance, one body in
        // one chunk) crosses in batches, never as one JSON text in wasm memory.
        let count = if full {
            changed.len
        } else {
            changed.positions.len()
        };
        let positions = (!full).then_some(&changed.positions[..]);
        let Ok(list) = self.messages_to_js(thread_id, count, positions) else {
            return;
        };
        let _ = Reflect::set(&event, &"messages".into(), &list);
        if full {
            let copy = list.slice(0, list.length());
            self.borrow_mut()
                .render
                .mirrors
                .insert(thread_id.to_owned(), copy);
            if !changed.all {
                // The event carries only what changed.
                let _ = Reflect::set(&event, &"messages".into(), &pick(&list, &changed.positions));
            }
        } else {
            self.update_mirror(thread_id, &changed, &list);
        }
        deliver(listeners, "messages", &event);
    }

    /// Applies one `messages` event's objects (changed in place or appended) to the thread's
    /// mirror, or drops the mirror when they do not line up with it.
    fn update_mirror(&self, thread_id: &str, changed: &ChangedMessages, messages: &Array) {
        let mut state = self.borrow_mut();
        let Some(mirror) = state.render.mirrors.get(thread_id) else {
            return;
        };
        let mut len = mirror.length() as usize;
        let mut in_line = true;
        for (n, &at) in changed.positions.iter().enumerate() {
            let object = messages.get(n as u32);
            if at < len {
                // `Reflect.set` (a binding the runtime has anyway) rather than `Array.set`.
                let _ = Reflect::set(mirror, &JsValue::from(at as u32), &object);
            } else if at == len {
                mirror.push(&object);
                len += 1;
            } else {
                in_line = false;
                break;
            }
        }
        if !in_line || len != changed.len {
            state.render.mirrors.remove(thread_id);
        }
    }

    /// The thread's messages at `positions` (`None`: the first `count`; a position past its end
    /// is skipped) as a JS array: written as JSON in batches of about [`BATCH`] bytes, each read
    /// by `JSON.parse` (the first batch is the array), so a long thread is never one JSON text in
    /// wasm memory; their long strings (a tool call's arguments, a long answer) cross apart, each
    /// decoded once, neither escaped nor read by `JSON.parse` ([`string::long_strings_apart`]).
    /// Out of line: one copy for its three callers.
    #[inline(never)]
    pub(super) fn messages_to_js(
        &self,
        thread_id: &str,
        count: usize,
        positions: Option<&[usize]>,
    ) -> Result<Array, Error> {
        let mut list: Option<Array> = None;
        let mut next = 0;
        while next < count {
            let (text, long_at, long) = {
                let state = self.borrow();
                let all = state.session.messages(thread_id);
                // Room for a batch and the message that ends it: the text does not grow by
                // doubling (a batch took twice its size, at the run's end, when the
                // thread is largest) unless one message is that long.
                let mut text = String::with_capacity(BATCH + BATCH / 4);
                text.push('[');
                // The batch's items that handed strings apart.
                let mut long_at: Vec<u32> = Vec::new();
                let mut items = 0;
                string::long_strings_apart(true);
                while next < count && text.len() < BATCH {
                    let at = positions.map_or(next, |p| p[next]);
                    let Some(message) = all.get(at) else {
                        next += 1;
                        continue;
                    };
                    next += 1;
                    if items > 0 {
                        text.push(',');
                    }
                    let handed = json::long_strings_handed();
                    message.write_json(&mut text);
                    if json::long_strings_handed() != handed {
                        long_at.push(items);
                    }
                    items += 1;
                }
                text.push(']');
                (text, long_at, string::long_strings_apart(false))
            };
            let batch: Array = parse(&text)?.unchecked_into();
            if let Some(long) = long {
                script::fill_long(&batch, &long_at, &long)
                    .map_err(|e| Error::new("internal", script::describe(&e)))?;
            }
            match &list {
                None => list = Some(batch),
                Some(list) => {
                    // In one call, `list.push(...batch)`: a batch of about `BATCH` bytes of
                    // JSON holds far fewer items than an engine takes as arguments.
                    let appended = Reflect::get(list, &"push".into()).and_then(|push| {
                        Reflect::apply::<fn() -> JsValue>(push.unchecked_ref(), list, &batch)
                    });
                    if let Err(e) = appended {
                        return Err(Error::new("internal", script::describe(&e)));
                    }
                }
            }
        }
        Ok(list.unwrap_or_default())
    }

    /// `run()`'s value. Its `messages` are the thread's mirror (the objects the `messages` events
    /// handed out) when there is one, so a finished run does not send the thread across again;
    /// `newMessages` are taken from `messages` (same objects).
    pub(super) fn run_result_to_js(&self, result: &RunResult) -> Result<JsValue, Error> {
        let mirror = self.borrow().render.mirrors.get(&result.thread_id).cloned();
        let mirror = mirror.filter(|m| m.length() as usize == result.message_count);
        let mut text = String::new();
        {
            // The thread's messages, borrowed while they are written (no JavaScript runs here).
            let state = self.borrow();
            let thread = state.session.messages(&result.thread_id);
            result.write_json(&mut text, thread, false, false);
        }
        let value = parse(&text)?;
        let set = |key: &str, v: &JsValue| {
            Reflect::set(&value, &key.into(), v)
                .map(drop)
                .map_err(|e| Error::new("internal", script::describe(&e)))
        };
        let messages: Array = match mirror {
            Some(mirror) => {
                let messages = mirror.slice(0, mirror.length());
                set("messages", &messages)?;
                messages
            }
            None => {
                // In batches, as a `messages` event's.
                let count = {
                    let state = self.borrow();
                    let thread = state.session.messages(&result.thread_id);
                    result.message_count.min(thread.len())
                };
                let messages = self.messages_to_js(&result.thread_id, count, None)?;
                set("messages", &messages)?;
                let copy = messages.slice(0, messages.length());
                self.borrow_mut()
                    .render
                    .mirrors
                    .insert(result.thread_id.clone(), copy);
                messages
            }
        };
        set("newMessages", &pick(&messages, &result.new_positions))?;
        Ok(value)
    }
}

impl Render {
    /// Drops what the frames hold for a forgotten thread: its mirror, and its place in the next
    /// frame's `messages` events.
    pub(super) fn forget(&mut self, thread_id: &str) {
        self.mirrors.remove(thread_id);
        self.dirty.remove(thread_id);
    }
}

/// The items of `list` at `positions`, as a new array (the same objects).
fn pick(list: &Array, positions: &[usize]) -> Array {
    let picked = Array::new();
    for &at in positions {
        picked.push(&list.get(at as u32));
    }
    picked
}

/// About how many bytes of JSON a `messages` event's list is written in at a time
/// ([`Driver::messages_to_js`]): what it adds to the wasm heap when the thread is largest.
const BATCH: usize = 64 * 1024;
