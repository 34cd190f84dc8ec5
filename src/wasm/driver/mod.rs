//! The driver: owns the runtime's state (session, catalog, toggles, listeners, the JS side of each
//! running turn) and runs the session's poll loop, handing its actions to the I/O in [`super::io`]
//! and feeding what comes back into the session.
//!
//! **Re-entrancy.** All state is in one `RefCell`, private to this folder. It is borrowed only by
//! short blocks that call no JavaScript: the app's `fetch`, `importModule`, handlers, `storage`
//! and listeners are always called with no borrow held (values are taken out, the borrow ends,
//! then JS runs), so any of them may call back into the runtime (docs/architecture.md, "The
//! boundary and re-entrancy").
//!
//! This file holds the state and its lifecycle (`new`, `free`); each job is a file of its own,
//! one more `impl Driver` block:
//!
//! - [`tools`]: `tools.json`, registered and backend tools, the per-thread toggles.
//! - [`threads`]: a thread's messages, state and interrupts; `run` and `abort`.
//! - [`listeners`]: `subscribe`, and events to the listeners that want them.
//! - [`drive`]: the loop over the session's actions, and its deadline timer.
//! - [`network`]: each round's request, the answer streamed into the session, reconnects.
//! - [`calls`]: tool calls, the module cache, each call's `AbortController`.
//! - [`chat`]: Coder chats' REST calls and streams, and a new chat's id.
//! - [`mirror`]: the per-frame `messages` events and each thread's mirror of JS objects.

mod calls;
#[cfg(feature = "coder")]
mod chat;
#[cfg(feature = "coder")]
pub(crate) use chat::csrf_source;
mod drive;
mod listeners;
mod mirror;
mod network;
mod threads;
mod tools;

pub(crate) use network::JsBodySink;

use std::cell::{Ref, RefCell, RefMut};
use std::rc::{Rc, Weak};

use js_sys::{Array, Function, Promise};
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

use super::browser::{self, StorageEvents, Timer};
use super::error::Error;
use super::io::http::{self, Fetch};
use super::io::storage::Store;
use crate::lean::sorted::{SortedMap, SortedSet};
use crate::session::Session;
use crate::tools::catalog::Catalog;
use crate::tools::toggles::{DeferredStore, Toggles};

/// What the app configured that the core does not keep.
pub(crate) struct HostConfig {
    /// `toolsUrl`; `None` when there is no manifest.
    pub tools_url: Option<String>,
    /// The app's `fetch`, or the global one.
    pub fetch: Fetch,
    /// The app's `importModule`; `None` means dynamic `import()`.
    pub import_module: Option<Function>,
    /// Foreign origins tool modules may come from.
    pub allowed_import_origins: Vec<String>,
    /// The app's storage (or `localStorage`, or none).
    pub storage: Store,
    /// The app's `prepareRequest(body, { threadId, round })`: what it returns is sent.
    pub prepare_request: Option<Function>,
    /// Coder, cookie mode: where the `X-CSRF-TOKEN` of each POST comes from.
    #[cfg(feature = "coder")]
    pub csrf: chat::Csrf,
}

/// What [`Driver::read`] reads.
#[derive(Clone, Copy)]
pub(crate) enum ThreadRead {
    Messages,
    State,
    Interrupts,
    PendingCalls,
}

/// The event types a listener asked for; `None`: all of them.
type EventFilter = Option<Rc<[String]>>;

/// The JS side of a thread's running turn.
struct Running {
    /// Settle the `run` promise.
    resolve: Function,
    reject: Function,
    /// Aborts the current fetch.
    fetch: Option<AbortController>,
    /// The reader of the current round's body: cancelled on Stop too, since an app's `fetch`
    /// may ignore the signal and hand over a body that never ends.
    body: Option<JsValue>,
    /// Each running call's controller (its `ctx.signal`), by call id.
    calls: Vec<(String, AbortController)>,
    /// The caller's `signal` and our listener on it, removed when the turn ends.
    signal: Option<(AbortSignal, Function)>,
    /// What the app's `fetch` or `prepareRequest` threw, for `result.error.cause`.
    cause: JsValue,
    /// `forgetThread` was called while the turn was ending (a `run_finished` or `messages`
    /// listener): the thread is forgotten once `run()`'s value is built from it.
    forget: bool,
}

/// Per thread: its messages as the JS objects last handed out, by position, so a `messages` event
/// converts only what changed and `run()`'s result reuses the listeners' objects.
#[derive(Default)]
struct Render {
    /// Threads whose messages changed since the last `messages` event.
    dirty: SortedSet,
    mirrors: SortedMap<Array>,
    /// Whether a frame is scheduled to send the `messages` events.
    frame_scheduled: bool,
}

struct State {
    session: Session,
    catalog: Catalog,
    toggles: Toggles<DeferredStore>,
    /// Toggle keys being read from storage right now (a nested call does not read them again).
    reading: SortedSet,
    host: Rc<HostConfig>,
    /// Subscribers in subscription order: id, function, filter.
    listeners: Vec<(u32, Function, EventFilter)>,
    next_listener: u32,
    /// Code-registered tools' handlers, by name.
    handlers: SortedMap<Function>,
    /// Imported tool modules (promises), by URL: each module is imported once.
    modules: SortedMap<Promise>,
    /// Each running turn's JS side, by the handle the session gave the turn
    /// ([`Session::run_handle`]): a new Coder chat taking its id moves none of it.
    running: Vec<(u64, Running)>,
    /// Each Coder chat's open stream (its id is the session's).
    #[cfg(feature = "coder")]
    streams: Vec<chat::Stream>,
    /// Each Coder chat request out whose answer the session awaits: its id (the session's) and
    /// its fetch's controller, fired when the session stops awaiting it ([`Driver::abort_unawaited`]).
    #[cfg(feature = "coder")]
    chat_fetches: Vec<(u64, web_sys::AbortController)>,
    render: Render,
    /// The timer for the session's next deadline, and that deadline.
    timer: Option<(u64, Timer)>,
    storage_events: Option<StorageEvents>,
    /// `free()` ran: every method refuses (`runtime/freed`), late I/O changes nothing.
    freed: bool,
}

/// The runtime's state and loop. Cloning shares it.
#[derive(Clone)]
pub(crate) struct Driver {
    state: Rc<RefCell<State>>,
}

impl Driver {
    /// A driver over a new session; listens to other tabs' toggle changes.
    pub(crate) fn new(session: Session, catalog: Catalog, host: HostConfig) -> Self {
        let driver = Driver {
            state: Rc::new(RefCell::new(State {
                session,
                catalog,
                toggles: Toggles::new(DeferredStore::default()),
                reading: SortedSet::new(),
                host: Rc::new(host),
                listeners: Vec::new(),
                next_listener: 0,
                handlers: SortedMap::new(),
                modules: SortedMap::new(),
                running: Vec::new(),
                #[cfg(feature = "coder")]
                streams: Vec::new(),
                #[cfg(feature = "coder")]
                chat_fetches: Vec::new(),
                render: Render::default(),
                timer: None,
                storage_events: None,
                freed: false,
            })),
        };
        driver.sync_agui_events();
        let weak = driver.weak();
        let events = StorageEvents::listen(move |key, value| {
            if let Some(driver) = upgrade(&weak) {
                driver.storage_changed(key.as_deref(), value.as_deref());
            }
        });
        driver.borrow_mut().storage_events = events;
        driver
    }

    /// The state, to read. Every borrow goes through this and [`Driver::borrow_mut`]: one panic
    /// location each, not one per call site.
    fn borrow(&self) -> Ref<'_, State> {
        self.state.borrow()
    }

    /// The state, to change.
    fn borrow_mut(&self) -> RefMut<'_, State> {
        self.state.borrow_mut()
    }

    fn weak(&self) -> Weak<RefCell<State>> {
        Rc::downgrade(&self.state)
    }

    fn host(&self) -> Rc<HostConfig> {
        self.borrow().host.clone()
    }

    /// `free()`: every turn is stopped as by `abort` (its `run()` promise resolves `aborted`,
    /// its fetch and handlers' signals are cancelled, a module still loading never reaches its
    /// handler), then the listeners, handlers, modules, Coder chats' sockets and the storage
    /// listener are dropped.
    /// From then on every method throws `runtime/freed` ([`Driver::check_live`]); a second call
    /// does nothing.
    pub(crate) fn free(&self) {
        let threads: Vec<String> = {
            let Ok(mut state) = self.state.try_borrow_mut() else {
                return;
            };
            if state.freed {
                return;
            }
            state.freed = true;
            state.session.running_threads()
        };
        for thread_id in &threads {
            self.borrow_mut().session.abort(thread_id);
            self.mark_dirty(thread_id);
        }
        self.drive();
        let (events, timer, running) = {
            let state = &mut *self.borrow_mut();
            state.listeners.clear();
            state.handlers = SortedMap::new();
            state.modules = SortedMap::new();
            state.render = Render::default();
            (
                state.storage_events.take(),
                state.timer.take(),
                std::mem::take(&mut state.running),
            )
        };
        // The sockets close as they are dropped, with no borrow held.
        #[cfg(feature = "coder")]
        drop(std::mem::take(&mut self.borrow_mut().streams));
        drop((events, timer));
        for (_, running) in running {
            cancel_all(running.fetch, running.body, running.calls);
        }
    }

    /// `Err(runtime/freed)` once [`Driver::free`] ran.
    pub(crate) fn check_live(&self) -> Result<(), Error> {
        if self.borrow().freed {
            return Err(Error::new(
                "runtime/freed",
                "the runtime was freed (free() was called); make a new ChatRuntime",
            ));
        }
        Ok(())
    }
}

impl State {
    /// The JS side of the thread's turn, found by the turn's handle, which the session keeps
    /// under the thread's id of now.
    #[inline(never)]
    fn running_mut(&mut self, thread_id: &str) -> Option<&mut Running> {
        let run = self.session.run_handle(thread_id)?;
        self.running
            .iter_mut()
            .find(|(r, _)| *r == run)
            .map(|(_, running)| running)
    }

    /// Takes out the JS side of the turn `run`.
    fn take_running(&mut self, run: u64) -> Option<Running> {
        let at = self.running.iter().position(|(r, _)| *r == run)?;
        Some(self.running.swap_remove(at).1)
    }
}

fn upgrade(weak: &Weak<RefCell<State>>) -> Option<Driver> {
    weak.upgrade().map(|state| Driver { state })
}

/// Removes a call's controller from a turn's list.
fn take_call(calls: &mut Vec<(String, AbortController)>, id: &str) -> Option<AbortController> {
    let at = calls.iter().position(|(call, _)| call == id)?;
    Some(calls.swap_remove(at).1)
}

/// Cancels a turn's fetch and its body's reader, and fires its calls' signals.
fn cancel_all(
    fetch: Option<AbortController>,
    body: Option<JsValue>,
    calls: Vec<(String, AbortController)>,
) {
    let reason = JsValue::from(Error::new("run/aborted", "the run was aborted"));
    if let Some(fetch) = fetch {
        browser::abort(&fetch, &reason);
    }
    if let Some(reader) = body {
        http::cancel_reader(&reader, &reason);
    }
    for (_, call) in calls {
        browser::abort(&call, &reason);
    }
}
