//! The driver: owns the runtime's state (session, catalog, toggles, listeners, the JS side of each
//! running turn) and runs the session's poll loop, handing its actions to the I/O in [`super::io`]
//! and feeding what comes back into the session.
//!
//! **Re-entrancy.** All state is in one `RefCell`, private to this file. It is borrowed only by
//! short blocks that call no JavaScript: the app's `fetch`, `importModule`, handlers, `storage`
//! and listeners are always called with no borrow held (values are taken out, the borrow ends,
//! then JS runs), so any of them may call back into the runtime (docs/architecture.md, "The
//! re-entrancy rule").

use std::cell::{Ref, RefCell, RefMut};
use std::rc::{Rc, Weak};

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{AbortController, AbortSignal};

use super::browser::{self, StorageEvents, Timer};
use super::convert::{parse, to_js};
use super::error::Error;
use super::io::http::{self, Body, Failure, Fetch};
use super::io::storage::Store;
use super::io::tools;
use crate::json::Value;
use crate::lean::sorted::{SortedMap, SortedSet};
use crate::protocol::event::Message;
use crate::protocol::wire::{ObjWriter, ToJson};
use crate::session::{
    write_messages_event, Action, ChangedMessages, RoundRequest, RunRequest, RunResult,
    RuntimeEvent, Session, ToolCallJob, ToolSet,
};
use crate::tools::catalog::{check_manifest_status, parse_manifest, Catalog, ManifestContext};
use crate::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};
use crate::tools::toggles::{DeferredStore, ThreadKey, Toggles};
use crate::tools::{list_tools, set_tool_enabled, Diagnostic, ToolHandler};

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
}

/// What [`Driver::read`] reads.
#[derive(Clone, Copy)]
pub(crate) enum ThreadRead {
    Messages,
    State,
    Interrupts,
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
    /// Requests sent so far (`prepareRequest`'s `round`).
    rounds: u32,
    /// What the app's `fetch` or `prepareRequest` threw, for `result.error.cause`.
    cause: JsValue,
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
    running: SortedMap<Running>,
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
                running: SortedMap::new(),
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
    /// handler), then the listeners, handlers, modules and the storage listener are dropped.
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
            state.running.keys().cloned().collect()
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

    // ---- tools and toggles ---------------------------------------------------------------

    /// `loadTools()`: fetches and checks `tools.json`, then reports.
    pub(crate) async fn load_tools(&self) -> Result<JsValue, Error> {
        let host = self.host();
        let Some(url) = host.tools_url.clone() else {
            return self.report(Vec::new());
        };
        let url = match browser::page_href() {
            Some(page) => browser::parse_url(&url, Some(&page)),
            None => browser::parse_url(&url, None),
        }
        .map(|u| u.get("href"))
        .map_err(|_| {
            Error::new(
                "options/invalid",
                format!("`{url}` is not a URL (relative URLs need a page)"),
            )
        })?;
        let fetch_failed = |failure: Failure| {
            let error = Error::from(crate::tools::catalog::CatalogError::Fetch {
                status: failure.status(),
                message: failure.message,
            });
            if failure.cause.is_undefined() {
                error
            } else {
                error.with("cause", failure.cause)
            }
        };
        let answer = match host.fetch.send("GET", &url, &[], None, None) {
            Ok(sent) => http::answer(sent.await),
            Err(failure) => Err(failure),
        }
        .map_err(fetch_failed)?;
        // Freed while the manifest loaded: nothing of it is kept, the promise says so.
        self.check_live()?;
        let head = http::head(&answer, &url);
        check_manifest_status(head.status, &head.url)?;
        let body = match http::text(&answer) {
            Ok(read) => http::text_of(read.await),
            Err(message) => Err(message),
        }
        .map_err(|message| fetch_failed(message.into()))?;
        self.check_live()?;
        let page_origin = browser::page_href()
            .and_then(|href| browser::parse_url(&href, None).ok())
            .or_else(|| browser::parse_url(&head.url, None).ok())
            .map(|u| u.get("origin"))
            .unwrap_or_default();
        let context = ManifestContext {
            manifest_url: head.url,
            page_origin,
            allowed_import_origins: host.allowed_import_origins.clone(),
        };
        let manifest = parse_manifest(
            body.as_bytes(),
            head.content_type.as_deref(),
            &context,
            &browser::BrowserUrl,
        )?;
        let mut diagnostics = manifest.diagnostics;
        diagnostics.extend(self.borrow_mut().catalog.set_manifest(manifest.tools));
        self.report(diagnostics)
    }

    /// `{ tools, diagnostics }`, and the matching events.
    fn report(&self, diagnostics: Vec<Diagnostic>) -> Result<JsValue, Error> {
        self.load_toggles(None);
        let tools = {
            let state = &mut *self.borrow_mut();
            list_tools(&state.catalog, &mut state.toggles, None)
        };
        let mut text = String::new();
        let mut w = ObjWriter::new(&mut text);
        w.field("tools", &tools);
        w.field("diagnostics", &diagnostics);
        w.end();
        let value = parse(&text)?;
        self.emit_tools_changed(diagnostics);
        self.emit_toggle_diagnostics();
        Ok(value)
    }

    /// The catalog's diagnostics, then `tools_changed`.
    fn emit_tools_changed(&self, diagnostics: Vec<Diagnostic>) {
        let mut events: Vec<RuntimeEvent> = diagnostics
            .into_iter()
            .map(|diagnostic| RuntimeEvent::Diagnostic { diagnostic })
            .collect();
        events.push(RuntimeEvent::ToolsChanged {});
        self.emit(&events);
    }

    /// `registerTool`: the catalog checks the definition and its options; the handler is kept by
    /// name.
    pub(crate) fn register_tool(
        &self,
        name: &str,
        description: &str,
        parameters: Option<Value>,
        handler: Function,
        options: &crate::json::Map,
    ) -> Result<(), Error> {
        {
            let mut state = self.borrow_mut();
            state
                .catalog
                .register_with_options(name, description, parameters, options)
                .map_err(|d| Error::new(d.code, d.message).with("toolName", name))?;
            state.handlers.insert(name.to_owned(), handler);
        }
        self.emit(&[RuntimeEvent::ToolsChanged {}]);
        Ok(())
    }

    /// `unregisterTool`: whether there was one. Its running calls are answered `INTERRUPTED`
    /// (the session's [`Session::remove_tool`]) and their signals fire: a handler that waits for
    /// a person (`timeoutMs: null`) whose card is gone does not hold the run forever.
    pub(crate) fn unregister_tool(&self, name: &str) -> bool {
        let (removed, controllers) = {
            let state = &mut *self.borrow_mut();
            state.handlers.remove(name);
            let removed = state.catalog.unregister(name);
            let calls = if removed {
                state.session.remove_tool(name)
            } else {
                Vec::new()
            };
            let mut controllers = Vec::new();
            for (thread_id, tool_call_id) in &calls {
                state.render.dirty.add(thread_id.as_str());
                if let Some(running) = state.running.get_mut(thread_id) {
                    controllers.extend(take_call(&mut running.calls, tool_call_id));
                }
            }
            (removed, controllers)
        };
        if !controllers.is_empty() {
            let reason = JsValue::from(Error::new(
                "tool/removed",
                format!("{name} was removed while it ran"),
            ));
            for controller in controllers {
                browser::abort(&controller, &reason);
            }
        }
        if removed {
            self.emit(&[RuntimeEvent::ToolsChanged {}]);
            // The answered calls may complete a round: its restart goes out now.
            self.drive();
        }
        removed
    }

    /// `setBackendTools`.
    pub(crate) fn set_backend_tools(&self, tools: &Value) {
        let diagnostics = self.borrow_mut().catalog.set_backend_tools(tools);
        self.emit_tools_changed(diagnostics);
    }

    /// `listTools`.
    pub(crate) fn list_tools(&self, thread_id: Option<&str>) -> Result<JsValue, Error> {
        self.load_toggles(thread_id);
        let entries = {
            let state = &mut *self.borrow_mut();
            list_tools(&state.catalog, &mut state.toggles, thread_id)
        };
        self.emit_toggle_diagnostics();
        to_js(&entries)
    }

    /// `setToolEnabled`.
    pub(crate) fn set_tool_enabled(
        &self,
        thread_id: Option<String>,
        name: &str,
        enabled: bool,
    ) -> Result<(), Error> {
        self.load_toggles(thread_id.as_deref());
        {
            let state = &mut *self.borrow_mut();
            set_tool_enabled(
                &state.catalog,
                &mut state.toggles,
                thread_id.as_deref(),
                name,
                enabled,
            )
            .map_err(|e| Error::new(e.code(), e.to_string()).with("toolName", name))?;
        }
        self.save_toggles();
        self.emit_toggle_diagnostics();
        self.emit(&[RuntimeEvent::TogglesChanged { thread_id }]);
        Ok(())
    }

    /// `activeTools`: what a run of the thread would send.
    pub(crate) fn active_tools(&self, thread_id: Option<&str>) -> Result<JsValue, Error> {
        self.load_toggles(thread_id);
        let tools = {
            let state = &mut *self.borrow_mut();
            ToolSet::for_thread(&state.catalog, &mut state.toggles, thread_id).wire
        };
        self.emit_toggle_diagnostics();
        to_js(&tools)
    }

    /// Reads from the app's storage the toggle keys a call for this thread (`None`: the default
    /// state) may need and the toggles have not cached, with no borrow held: the app's `getItem`
    /// may call back into the runtime. A key an outer call is reading is left to it (the nested
    /// call sees the thread as holding nothing saved, and caches nothing).
    fn load_toggles(&self, thread_id: Option<&str>) {
        let (keys, host) = {
            let state = &mut *self.borrow_mut();
            let keys: Vec<String> = state
                .toggles
                .keys_to_load(thread_id)
                .into_iter()
                .filter(|key| !state.reading.contains_key(key))
                .collect();
            for key in &keys {
                state.reading.add(key.as_str());
            }
            (keys, state.host.clone())
        };
        if keys.is_empty() {
            return;
        }
        let reads: Vec<_> = keys
            .into_iter()
            .map(|key| {
                let read = host.storage.get_item(&key);
                (key, read)
            })
            .collect();
        let mut state = self.borrow_mut();
        for (key, read) in reads {
            state.reading.remove(&key);
            state.toggles.supply(&key, read);
        }
    }

    /// Writes what the toggles queued to the app's storage, with no borrow held; a write that
    /// throws goes back to the toggles (a diagnostic, and the key is written again with the next
    /// change).
    fn save_toggles(&self) {
        loop {
            let (writes, host) = {
                let mut state = self.borrow_mut();
                let writes = std::mem::take(&mut state.toggles.store_mut().writes);
                (writes, state.host.clone())
            };
            if writes.is_empty() {
                return;
            }
            for (key, value, name) in writes {
                if let Err(err) = host.storage.set_item(&key, &value) {
                    self.borrow_mut()
                        .toggles
                        .write_failed(&key, name.as_deref(), err);
                }
            }
        }
    }

    /// Emits the toggles' diagnostics (storage that threw, corrupt values).
    fn emit_toggle_diagnostics(&self) {
        let mut events = Vec::new();
        {
            let mut state = self.borrow_mut();
            while let Some(diagnostic) = state.toggles.poll_diagnostic() {
                events.push(RuntimeEvent::Diagnostic { diagnostic });
            }
        }
        self.emit(&events);
    }

    /// Another tab changed `localStorage`.
    fn storage_changed(&self, key: Option<&str>, value: Option<&str>) {
        let changed = self.borrow_mut().toggles.handle_storage_event(key, value);
        self.emit_toggle_diagnostics();
        let thread_id = match changed {
            None => return,
            Some(ThreadKey::Thread(id)) => Some(id),
            Some(_) => None,
        };
        self.emit(&[RuntimeEvent::TogglesChanged { thread_id }]);
    }

    // ---- threads -------------------------------------------------------------------------

    /// `setMessages`.
    pub(crate) fn set_messages(
        &self,
        thread_id: &str,
        messages: Vec<Message>,
    ) -> Result<(), Error> {
        self.borrow_mut()
            .session
            .set_messages(thread_id, messages)?;
        self.mark_dirty(thread_id);
        Ok(())
    }

    /// `messages`, `state` or `interrupts` of a thread; `None`: an id no thread can have, read
    /// as an unknown thread (no messages, no interrupts, `undefined` state).
    pub(crate) fn read(&self, thread_id: Option<&str>, what: ThreadRead) -> Result<JsValue, Error> {
        let text = {
            let state = self.borrow();
            let session = &state.session;
            match (what, thread_id) {
                (ThreadRead::Messages, Some(id)) => Some(session.messages(id).to_json_string()),
                (ThreadRead::Interrupts, Some(id)) => Some(session.interrupts(id).to_json_string()),
                (ThreadRead::State, Some(id)) => session.state(id).map(|s| s.to_json_string()),
                (ThreadRead::State, None) => None,
                (_, None) => Some("[]".to_owned()),
            }
        };
        text.map_or(Ok(JsValue::UNDEFINED), |t| parse(&t))
    }

    /// `isRunning`.
    pub(crate) fn is_running(&self, thread_id: &str) -> bool {
        self.borrow().session.is_running(thread_id)
    }

    /// `run`: starts the turn; the promise settles when it ends.
    pub(crate) fn run(
        &self,
        request: RunRequest,
        signal: Option<AbortSignal>,
    ) -> Result<Promise, Error> {
        let thread_id = request.thread_id.clone();
        self.load_toggles(Some(&thread_id));
        let (promise, resolve, reject) = browser::new_promise();
        {
            let state = &mut *self.borrow_mut();
            // A busy thread is refused by `start_run` (`run/busy`); it has run before, so
            // `begin_run` changes nothing for it.
            state.toggles.begin_run(&thread_id);
            let tools = ToolSet::for_thread(&state.catalog, &mut state.toggles, Some(&thread_id));
            state.session.start_run(request, tools)?;
            state.running.insert(
                thread_id.clone(),
                Running {
                    resolve,
                    reject,
                    fetch: None,
                    body: None,
                    calls: Vec::new(),
                    signal: None,
                    rounds: 0,
                    cause: JsValue::UNDEFINED,
                },
            );
        }
        self.save_toggles();
        if let Some(signal) = signal {
            self.follow_signal(&thread_id, signal);
        }
        self.emit_toggle_diagnostics();
        self.mark_dirty(&thread_id);
        self.drive();
        Ok(promise)
    }

    /// `abort`.
    pub(crate) fn abort(&self, thread_id: &str) {
        self.borrow_mut().session.abort(thread_id);
        self.mark_dirty(thread_id);
        self.drive();
    }

    /// Aborts the thread's turn when the caller's `signal` fires.
    fn follow_signal(&self, thread_id: &str, signal: AbortSignal) {
        if browser::is_aborted(&signal) {
            self.abort(thread_id);
            return;
        }
        let weak = self.weak();
        let thread = thread_id.to_owned();
        let listener = browser::once_function(Box::new(move || {
            if let Some(driver) = upgrade(&weak) {
                driver.abort(&thread);
            }
        }));
        let _ = signal.add_event_listener_with_callback("abort", &listener);
        if let Some(running) = self.borrow_mut().running.get_mut(thread_id) {
            running.signal = Some((signal, listener));
        }
    }

    // ---- listeners -----------------------------------------------------------------------

    /// `subscribe`: the function that unsubscribes.
    pub(crate) fn subscribe(&self, listener: Function, filter: Option<Vec<String>>) -> Function {
        let id = {
            let mut state = self.borrow_mut();
            state.next_listener += 1;
            let id = state.next_listener;
            state.listeners.push((id, listener, filter.map(Rc::from)));
            id
        };
        self.sync_agui_events();
        let weak = self.weak();
        // A once-function (one kind of closure glue): a second call would find nothing to remove.
        browser::once_function(Box::new(move || {
            if let Some(driver) = upgrade(&weak) {
                driver.borrow_mut().listeners.retain(|(n, _, _)| *n != id);
                driver.sync_agui_events();
            }
        }))
    }

    /// Tells the session whether any listener wants `agui` events (none: the stream costs no
    /// per-event action).
    fn sync_agui_events(&self) {
        let state = &mut *self.borrow_mut();
        let on = state
            .listeners
            .iter()
            .any(|(_, _, filter)| wants(filter, "agui"));
        state.session.set_agui_events(on);
    }

    /// The listeners, copied out so a listener may subscribe or unsubscribe while being called.
    fn listeners(&self) -> Vec<(Function, EventFilter)> {
        self.borrow()
            .listeners
            .iter()
            .map(|(_, f, filter)| (f.clone(), filter.clone()))
            .collect()
    }

    /// Sends each event to the listeners that want it, all converted with one `JSON.parse`. An
    /// event no listener wants is never converted.
    fn emit(&self, events: &[RuntimeEvent]) {
        let listeners = self.listeners();
        let wanted: Vec<&RuntimeEvent> = events
            .iter()
            .filter(|event| listeners.iter().any(|(_, f)| wants(f, event.kind())))
            .collect();
        if wanted.is_empty() {
            return;
        }
        let Ok(values) = to_js(&wanted) else { return };
        let values: Array = values.unchecked_into();
        for (n, event) in wanted.iter().enumerate() {
            let value = values.get(n as u32);
            if let RuntimeEvent::RunFinished { error: Some(_), .. } = event {
                // `run_finished`'s `error` is the same shape as `RunResult.error`.
                super::error::promote_member(&value, &JsValue::UNDEFINED);
            }
            deliver(&listeners, event.kind(), &value);
        }
    }

    // ---- the loop ------------------------------------------------------------------------

    fn mark_dirty(&self, thread_id: &str) {
        self.borrow_mut().render.dirty.add(thread_id);
    }

    /// Runs every action the session has queued, then sets the deadline timer and schedules the
    /// next frame's `messages` events.
    fn drive(&self) {
        // Events go to listeners in batches: one look at the listener list per batch, not per
        // streamed token. A batch is flushed before any other action, so the order holds.
        let mut events = Vec::new();
        loop {
            let action = self.borrow_mut().session.poll_action(browser::now());
            let Some(action) = action else { break };
            if let Action::Emit(event) = action {
                events.push(event);
                continue;
            }
            if !events.is_empty() {
                self.emit(&std::mem::take(&mut events));
            }
            match action {
                Action::Send {
                    thread_id,
                    run_id,
                    url,
                    headers,
                    body,
                } => self.spawn_send(thread_id, run_id, url, headers, body),
                Action::Reconnect {
                    thread_id,
                    run_id,
                    request,
                    last_event_id,
                    delay_ms,
                } => self.spawn_reconnect(thread_id, run_id, request, last_event_id, delay_ms),
                Action::Execute(job) => self.spawn_call(job),
                Action::Cancel { thread_id } => {
                    let parts = self
                        .borrow_mut()
                        .running
                        .get_mut(&thread_id)
                        .map(|r| (r.fetch.take(), r.body.take(), std::mem::take(&mut r.calls)));
                    if let Some((fetch, body, calls)) = parts {
                        cancel_all(fetch, body, calls);
                    }
                }
                Action::CancelCall {
                    thread_id,
                    tool_call_id,
                } => {
                    let controller = self
                        .borrow_mut()
                        .running
                        .get_mut(&thread_id)
                        .and_then(|r| take_call(&mut r.calls, &tool_call_id));
                    if let Some(controller) = controller {
                        browser::abort(&controller, &browser::timeout_reason());
                    }
                }
                Action::Finished(result) => self.finish(&result),
                _ => {}
            }
        }
        if !events.is_empty() {
            self.emit(&events);
        }
        self.arm_timer();
        self.schedule_flush();
    }

    /// Keeps one timer, for the session's earliest deadline.
    fn arm_timer(&self) {
        let replaced = {
            let mut state = self.borrow_mut();
            let deadline = state.session.poll_timeout();
            if state.timer.as_ref().map(|(at, _)| *at) == deadline {
                return;
            }
            // A `setTimeout` that threw leaves no timer: the next `drive` tries again.
            let timer = deadline.and_then(|at| {
                let weak = self.weak();
                let timer = browser::timer(
                    at.saturating_sub(browser::now()),
                    Box::new(move || {
                        if let Some(driver) = upgrade(&weak) {
                            let timer = driver.borrow_mut().timer.take();
                            drop(timer);
                            driver.borrow_mut().session.handle_timeout(browser::now());
                            driver.drive();
                        }
                    }),
                )?;
                Some((at, timer))
            });
            std::mem::replace(&mut state.timer, timer)
        };
        drop(replaced);
    }

    /// The turn is over: the final messages go out before the promise settles (the result's
    /// messages are then the objects the listeners already have).
    fn finish(&self, result: &RunResult) {
        self.flush_thread(&result.thread_id);
        let value = self.run_result_to_js(result);
        let running = self.borrow_mut().running.remove(&result.thread_id);
        let Some(running) = running else { return };
        if let (Ok(value), true) = (&value, result.error.is_some()) {
            // One error shape: `result.error` is a `ChatRuntimeError`, like every rejection, with
            // what the app threw (its `fetch`, `prepareRequest`) as `cause`.
            super::error::promote_member(value, &running.cause);
        }
        cancel_all(running.fetch, running.body, running.calls);
        if let Some((signal, listener)) = running.signal {
            let _ = signal.remove_event_listener_with_callback("abort", &listener);
        }
        let _ = match value {
            Ok(value) => running.resolve.call1(&JsValue::UNDEFINED, &value),
            Err(error) => running
                .reject
                .call1(&JsValue::UNDEFINED, &JsValue::from(error)),
        };
    }

    /// Sends one round's request and streams the answer into the session.
    fn spawn_send(
        &self,
        thread_id: String,
        run_id: String,
        url: String,
        headers: Vec<(String, String)>,
        body: String,
    ) {
        let controller = AbortController::new().ok();
        let (prepare, round) = {
            let state = &mut *self.borrow_mut();
            let round = match state.running.get_mut(&thread_id) {
                Some(running) => {
                    running.fetch = controller.clone();
                    running.rounds += 1;
                    running.rounds
                }
                None => 1,
            };
            (state.host.prepare_request.clone(), round)
        };
        let driver = self.clone();
        spawn_local(async move {
            if !driver.is_current(&thread_id, &run_id) {
                // Stopped before this task ran: not even `prepareRequest` is called.
                return;
            }
            let body = match prepare {
                Some(prepare) => match prepare_request(&prepare, &body, &thread_id, round) {
                    Ok(promise) => prepared_body(JsFuture::from(promise).await),
                    Err(failure) => Err(failure),
                },
                None => Ok(body),
            };
            match body {
                Ok(body) => {
                    // The session keeps the body for a reconnect; `false`: the round was stopped
                    // (or the turn ended) while `prepareRequest` ran, and nothing is sent.
                    let sent = (driver.borrow_mut().session)
                        .handle_request_prepared(&thread_id, &run_id, &body);
                    if sent {
                        let request = RoundRequest { url, headers, body };
                        driver.spawn_request(thread_id, run_id, request, None, controller);
                    }
                }
                Err(failure) => {
                    driver.request_failed(&thread_id, &run_id, failure, true);
                }
            }
        });
    }

    /// Sends the round's `request` again with `Last-Event-ID` after `delay_ms` (the session's
    /// [`Action::Reconnect`]), unless the turn has ended or moved on by then.
    fn spawn_reconnect(
        &self,
        thread_id: String,
        run_id: String,
        request: RoundRequest,
        id: String,
        delay_ms: u64,
    ) {
        let controller = AbortController::new().ok();
        {
            let mut state = self.borrow_mut();
            let Some(running) = state.running.get_mut(&thread_id) else {
                return;
            };
            // Stop aborts the wait too: the session then has no turn, so nothing is sent.
            running.fetch = controller.clone();
        }
        let weak = self.weak();
        let reconnect: browser::Callback = Box::new(move || {
            let Some(driver) = upgrade(&weak) else { return };
            if driver.is_current(&thread_id, &run_id) {
                driver.spawn_request(thread_id, run_id, request, Some(id), controller);
            }
        });
        // A `setTimeout` that throws must not strand the turn: reconnect without the wait.
        if let Err(reconnect) = browser::timer_detached(delay_ms, reconnect) {
            reconnect();
        }
    }

    /// Sends `request` (with `Last-Event-ID` when resuming) and streams the answer into the
    /// session, in a task of its own (one kind of future for first sends and reconnects alike).
    fn spawn_request(
        &self,
        thread_id: String,
        run_id: String,
        request: RoundRequest,
        last_event_id: Option<String>,
        controller: Option<AbortController>,
    ) {
        let driver = self.clone();
        // One async block, not one more `async fn` inside it (each is a state machine).
        spawn_local(async move {
            let mut headers = request.headers.clone();
            headers.extend(last_event_id.map(|id| ("Last-Event-ID".to_owned(), id)));
            let signal = controller.as_ref().and_then(browser::signal);
            let host = driver.host();
            let (thread_id, run_id, url) = (&thread_id[..], &run_id[..], &request.url[..]);
            // The whole exchange in this one block (not an `async fn` awaited here: each is a
            // state machine); `Ok` when it ended or the turn moved on, `Err` when it failed.
            let ended: Result<(), Failure> = 'stream: {
                let body = Some(&request.body[..]);
                let sent = match host
                    .fetch
                    .send("POST", url, &headers, body, signal.as_ref())
                {
                    Ok(sent) => sent,
                    Err(failure) => break 'stream Err(failure),
                };
                let answer = match http::answer(sent.await) {
                    Ok(answer) => answer,
                    Err(failure) => break 'stream Err(failure),
                };
                if !driver.is_current(thread_id, run_id) {
                    break 'stream Ok(());
                }
                let head = http::head(&answer, url);
                let error_body = if crate::http::is_success(head.status) {
                    None
                } else {
                    let text = match http::text(&answer) {
                        Ok(read) => http::text_of(read.await),
                        Err(message) => Err(message),
                    };
                    // The page's text, quoted in the error: brought into the internal form.
                    let text = text.unwrap_or_default();
                    Some(crate::json::from_js_string(&text).into_owned())
                };
                driver.borrow_mut().session.handle_response(
                    thread_id,
                    run_id,
                    head.status,
                    head.content_type.as_deref(),
                    error_body.as_deref(),
                );
                driver.drive();
                if !driver.is_current(thread_id, run_id) {
                    break 'stream Ok(());
                }
                let body = match Body::open(&answer) {
                    Ok(Some(body)) => {
                        if let Some(running) = driver.borrow_mut().running.get_mut(thread_id) {
                            running.body = Some(body.reader());
                        }
                        body
                    }
                    Ok(None) => {
                        driver
                            .borrow_mut()
                            .session
                            .handle_body_end(thread_id, run_id);
                        break 'stream Ok(());
                    }
                    Err(message) => break 'stream Err(message.into()),
                };
                loop {
                    let chunk = match Body::chunk(body.read().await) {
                        Ok(chunk) => chunk,
                        Err(message) => break 'stream Err(message.into()),
                    };
                    if !driver.is_current(thread_id, run_id) {
                        // Stopped, or the turn ended (RUN_ERROR, a decode error): stop reading.
                        let _ = body.cancel().await;
                        break 'stream Ok(());
                    }
                    let Some(mut chunk) = chunk else {
                        driver
                            .borrow_mut()
                            .session
                            .handle_body_end(thread_id, run_id);
                        break 'stream Ok(());
                    };
                    // A slice at a time (`http::SLICE`): a whole body in one chunk is never in
                    // wasm memory at once, nor are all of its events. An empty chunk is fed too.
                    let mut bytes = Vec::new();
                    let mut more = match chunk.slice(&mut bytes) {
                        Ok(more) => more,
                        Err(message) => break 'stream Err(message.into()),
                    };
                    loop {
                        driver
                            .borrow_mut()
                            .session
                            .handle_bytes(thread_id, run_id, &bytes);
                        driver.mark_dirty(thread_id);
                        driver.drive();
                        if more {
                            more = match chunk.slice(&mut bytes) {
                                Ok(more) => more,
                                Err(message) => break 'stream Err(message.into()),
                            };
                        }
                        if !more {
                            break;
                        }
                        if !driver.is_current(thread_id, run_id) {
                            let _ = body.cancel().await;
                            break 'stream Ok(());
                        }
                    }
                }
            };
            match ended {
                Ok(()) => {
                    driver.mark_dirty(thread_id);
                    driver.drive();
                }
                Err(failure) => driver.request_failed(thread_id, run_id, failure, false),
            }
        });
    }

    /// The request could not be prepared (`prepareRequest` threw) or sent.
    fn request_failed(&self, thread_id: &str, run_id: &str, failure: Failure, preparing: bool) {
        {
            let state = &mut *self.borrow_mut();
            let session = &mut state.session;
            // A stopped round's failure (a late `prepareRequest` rejection) is no later run's.
            if session.current_run_id(thread_id) != Some(run_id) {
                return;
            }
            if preparing {
                let code = "run/prepare-request";
                session.handle_request_error(thread_id, run_id, code, &failure.message, None);
            } else {
                let status = failure.status();
                session.handle_transport_error(thread_id, run_id, &failure.message, status);
            }
            // A resumed stream goes on: what was thrown is no cause of a later ending.
            let resumed = session.current_run_id(thread_id) == Some(run_id);
            if let (Some(running), false) = (state.running.get_mut(thread_id), resumed) {
                running.cause = failure.cause;
            }
        }
        self.mark_dirty(thread_id);
        self.drive();
    }

    fn is_current(&self, thread_id: &str, run_id: &str) -> bool {
        self.borrow().session.current_run_id(thread_id) == Some(run_id)
    }

    /// Starts a tool call; its outcome goes back into the session when it settles. The session's
    /// deadline (an [`Action::CancelCall`]) or Stop fires the call's signal, which ends whichever
    /// wait is going on: then nothing is reported (the session has settled the call already).
    fn spawn_call(&self, job: ToolCallJob) {
        let controller = AbortController::new();
        let signal = controller.as_ref().ok().and_then(browser::signal);
        let (Ok(controller), Some(signal)) = (controller, signal) else {
            // No signal for `ctx.signal` (a page whose `AbortController` throws): the call is
            // answered, never left waiting.
            let outcome = failure(
                FailureCode::ToolExecutionFailed,
                "the browser could not make the call's AbortSignal (AbortController threw)"
                    .to_owned(),
            );
            // Called from `drive`, whose loop takes the actions this queues.
            self.borrow_mut().session.handle_tool_result(
                &job.thread_id,
                &job.tool_call_id,
                outcome,
            );
            self.mark_dirty(&job.thread_id);
            return;
        };
        {
            let mut state = self.borrow_mut();
            if let Some(running) = state.running.get_mut(&job.thread_id) {
                running
                    .calls
                    .push((job.tool_call_id.clone(), controller.clone()));
            }
        }
        spawn_local(self.clone().call(job, signal));
    }

    /// Runs the call and reports its outcome to the session; nothing when its signal fired
    /// first. The whole task is this one `async fn` (one state machine, not one awaiting another).
    async fn call(self, job: ToolCallJob, signal: AbortSignal) {
        let signal = &signal;
        let job = &job;
        let outcome: Option<ToolOutcome> = 'outcome: {
            // The handler at once, or after its module loads: plain functions around the await.
            let handler = match self.handler(job) {
                Err(Ok(handler)) => Ok(handler),
                Err(Err(message)) => Err(message),
                Ok(promise) => {
                    let settled = match tools::race_abort(&promise, signal) {
                        Some(race) => tools::unless_aborted(race.await, signal),
                        None => None,
                    };
                    match self.module_loaded(job, &promise, settled) {
                        Some(handler) => handler,
                        None => break 'outcome None,
                    }
                }
            };
            let handler = match handler {
                Ok(handler) => handler,
                Err(message) => break 'outcome Some(failure(FailureCode::ToolLoadFailed, message)),
            };
            let mut ctx = String::new();
            let mut w = ObjWriter::new(&mut ctx);
            w.field("toolCallId", &job.tool_call_id);
            w.field("toolName", &job.tool.name);
            w.field("threadId", &job.thread_id);
            w.field("runId", &job.run_id);
            w.end();
            // Nothing awaits between this check and the call: a stopped or timed-out call never
            // reaches its handler, however late its module arrived.
            let wanted = self
                .borrow_mut()
                .session
                .begin_call(&job.thread_id, &job.tool_call_id);
            if browser::is_aborted(signal) || !wanted {
                break 'outcome None;
            }
            let promise = match tools::call(&handler, &job.args.to_string(), &ctx, signal) {
                Ok(promise) => promise,
                Err(message) => {
                    break 'outcome Some(failure(FailureCode::ToolExecutionFailed, message))
                }
            };
            let limit = self.borrow().session.config().max_tool_result_bytes;
            let Some(race) = tools::race_abort(&promise, signal) else {
                break 'outcome None;
            };
            match tools::unless_aborted(race.await, signal) {
                Some(Ok(value)) => Some(tools::to_outcome(&value, &job.tool.name, limit)),
                Some(Err(error)) => Some(failure(
                    FailureCode::ToolExecutionFailed,
                    super::script::describe(&error),
                )),
                None => None,
            }
        };
        let Some(outcome) = outcome else { return };
        {
            let mut state = self.borrow_mut();
            if let Some(running) = state.running.get_mut(&job.thread_id) {
                take_call(&mut running.calls, &job.tool_call_id);
            }
            state
                .session
                .handle_tool_result(&job.thread_id, &job.tool_call_id, outcome);
        }
        self.mark_dirty(&job.thread_id);
        self.drive();
    }

    /// The tool's function: `Err(Ok)`, a registered handler or a module's export already had;
    /// `Err(Err)`: it cannot be had; `Ok`: the module's import (started once per URL) to wait
    /// for, then [`Driver::module_loaded`].
    fn handler(&self, job: &ToolCallJob) -> Result<Promise, Result<Function, String>> {
        let name = &job.tool.name;
        let url = match &job.tool.handler {
            ToolHandler::Registered => {
                let handler = self.borrow().handlers.get(name).cloned();
                return Err(handler.ok_or_else(|| format!("{name} has no registered handler")));
            }
            ToolHandler::Module { url, .. } => url,
        };
        let cached = self.borrow().modules.get(url).cloned();
        if let Some(promise) = cached {
            return Ok(promise);
        }
        let custom = self.host().import_module.clone();
        let promise =
            tools::import(custom.as_ref(), url).map_err(|e| Err(import_failed(url, &e)))?;
        self.borrow_mut()
            .modules
            .insert(url.clone(), promise.clone());
        Ok(promise)
    }

    /// The tool's function from what its module's import settled to. `None`: the signal fired
    /// while the module loaded; `Some(Err)`: it cannot be had.
    fn module_loaded(
        &self,
        job: &ToolCallJob,
        promise: &Promise,
        settled: Option<Result<JsValue, JsValue>>,
    ) -> Option<Result<Function, String>> {
        let ToolHandler::Module { url, entrypoint } = &job.tool.handler else {
            return None;
        };
        let Some(settled) = settled else {
            // A load that was stopped (or timed out) is not kept: the next call imports again.
            self.forget_module(url, promise);
            return None;
        };
        let module = match settled {
            Ok(module) if module.is_object() => module,
            Ok(_) => {
                self.forget_module(url, promise);
                return Some(Err(import_failed(
                    url,
                    "importModule did not give a module object",
                )));
            }
            Err(error) => {
                self.forget_module(url, promise);
                return Some(Err(import_failed(url, &super::script::describe(&error))));
            }
        };
        Some(
            tools::export(&module, entrypoint)
                .ok_or_else(|| format!("{url} has no exported function named {entrypoint}")),
        )
    }

    /// Drops a failed or abandoned import from the cache, unless a newer one replaced it.
    fn forget_module(&self, url: &str, promise: &Promise) {
        let mut state = self.borrow_mut();
        if state
            .modules
            .get(url)
            .is_some_and(|p| JsValue::from(p) == JsValue::from(promise))
        {
            state.modules.remove(url);
        }
    }

    // ---- messages to listeners -----------------------------------------------------------

    /// Schedules one `messages` event per changed thread for the next animation frame.
    fn schedule_flush(&self) {
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
    fn flush_thread(&self, thread_id: &str) {
        let listeners = self.listeners();
        self.flush_messages(thread_id, &listeners);
        self.flush_state(thread_id, &listeners);
        self.flush_activity(thread_id, &listeners);
    }

    /// The `activity` event, when bytes of the thread's stream arrived since the last frame, the
    /// thread still runs (the turn's end flushes its thread outside a frame: no event then) and a
    /// listener wants it: at most one per thread and frame, however many chunks came.
    fn flush_activity(&self, thread_id: &str, listeners: &[(Function, EventFilter)]) {
        {
            let session = &mut self.borrow_mut().session;
            if !session.take_activity(thread_id)
                || !session.is_running(thread_id)
                || !listeners.iter().any(|(_, f)| wants(f, "activity"))
            {
                return;
            }
        }
        self.emit(&[RuntimeEvent::Activity {
            thread_id: thread_id.to_owned(),
            at: browser::wall_clock().unwrap_or_else(browser::now),
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
            let mut w = ObjWriter::new(&mut text);
            w.field("type", "state");
            w.field("threadId", thread_id);
            w.field("state", &state.session.state(thread_id));
            w.end();
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
            write_messages_event::<&Message>(&mut text, thread_id, &[]);
            (text, changed, full)
        };
        let Ok(event) = parse(&text) else { return };
        let Ok(list) = Reflect::get(&event, &"messages".into()) else {
            return;
        };
        let list: Array = list.unchecked_into();
        // The messages cross in batches of about `BATCH` bytes of JSON: the whole thread (the
        // first event of a stream that gave no frame a chance, one body in one chunk) is never
        // one JSON text in wasm memory.
        let count = if full {
            changed.len
        } else {
            changed.positions.len()
        };
        let mut next = 0;
        while next < count {
            let text = {
                let state = self.borrow();
                let all = state.session.messages(thread_id);
                let mut text = String::from("[");
                while next < count && text.len() < BATCH {
                    let at = if full { next } else { changed.positions[next] };
                    next += 1;
                    let Some(message) = all.get(at) else { continue };
                    if text.len() > 1 {
                        text.push(',');
                    }
                    message.write_json(&mut text);
                }
                text.push(']');
                text
            };
            let Ok(batch) = parse(&text) else { return };
            let batch: Array = batch.unchecked_into();
            for at in 0..batch.length() {
                list.push(&batch.get(at));
            }
        }
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

    /// `run()`'s value. Its `messages` are the thread's mirror (the objects the `messages` events
    /// handed out) when there is one, so a finished run does not send the thread across again;
    /// `newMessages` are taken from `messages` (same objects).
    fn run_result_to_js(&self, result: &RunResult) -> Result<JsValue, Error> {
        let mirror = self.borrow().render.mirrors.get(&result.thread_id).cloned();
        let mirror = mirror.filter(|m| m.length() as usize == result.messages.len());
        let mut text = String::new();
        result.write_json_with(&mut text, mirror.is_none(), false);
        let value = parse(&text)?;
        let set = |key: &str, v: &JsValue| {
            Reflect::set(&value, &key.into(), v)
                .map(drop)
                .map_err(|e| Error::new("internal", super::script::describe(&e)))
        };
        let messages: Array = match mirror {
            Some(mirror) => {
                let messages = mirror.slice(0, mirror.length());
                set("messages", &messages)?;
                messages
            }
            None => {
                let messages: Array = Reflect::get(&value, &"messages".into())
                    .unwrap_or_default()
                    .unchecked_into();
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

/// Calls the app's `prepareRequest(body, { threadId, round })` over a round's JSON body: what it
/// returned, as a promise for [`prepared_body`]. Two plain functions around the one await, not an
/// `async fn` (one more state machine).
fn prepare_request(
    prepare: &Function,
    body: &str,
    thread_id: &str,
    round: u32,
) -> Result<Promise, Failure> {
    let value = js_sys::JSON::parse(body).map_err(Failure::thrown)?;
    let info = Object::new();
    let _ = Reflect::set(
        &info,
        &"threadId".into(),
        &super::convert::js_string(thread_id),
    );
    let _ = Reflect::set(&info, &"round".into(), &round.into());
    let prepared = prepare
        .call2(&JsValue::UNDEFINED, &value, &info)
        .map_err(Failure::thrown)?;
    Ok(Promise::resolve(&prepared))
}

/// The JSON text of what `prepareRequest` returned (or of what its promise resolved to).
fn prepared_body(settled: Result<JsValue, JsValue>) -> Result<String, Failure> {
    let prepared = settled.map_err(Failure::thrown)?;
    let is_array = browser::is_array(&prepared).map_err(Failure::thrown)?;
    if !prepared.is_object() || is_array {
        return Err(Failure {
            message: format!(
                "prepareRequest must return the request body, an object, not {}",
                if is_array {
                    "an array".to_owned()
                } else if prepared.is_null() {
                    "null".to_owned()
                } else {
                    prepared.js_typeof().as_string().unwrap_or_default()
                }
            ),
            cause: prepared,
        });
    }
    js_sys::JSON::stringify(&prepared)
        .map_err(Failure::thrown)?
        .as_string()
        .ok_or_else(|| {
            "prepareRequest returned a value JSON cannot encode"
                .to_owned()
                .into()
        })
}

/// `could not import {url}: {detail}` (one copy of the message for every way an import fails).
#[inline(never)]
fn import_failed(url: &str, detail: &str) -> String {
    format!("could not import {url}: {detail}")
}

fn upgrade(weak: &Weak<RefCell<State>>) -> Option<Driver> {
    weak.upgrade().map(|state| Driver { state })
}

fn failure(code: FailureCode, message: String) -> ToolOutcome {
    ToolOutcome::Failed(ToolFailure::new(code, message))
}

/// Whether a listener with `filter` gets events of `kind`. Without a filter: every type but
/// `agui`, which is opt-in (one object per streamed token is the slow path; a UI renders from
/// `messages`).
fn wants(filter: &EventFilter, kind: &str) -> bool {
    match filter {
        Some(types) => types.iter().any(|t| t == kind),
        None => kind != "agui",
    }
}

/// Calls each listener that wants `kind` with `value`; one that throws is reported and skipped.
fn deliver(listeners: &[(Function, EventFilter)], kind: &str, value: &JsValue) {
    for (listener, filter) in listeners {
        if !wants(filter, kind) {
            continue;
        }
        if let Err(error) = listener.call1(&JsValue::UNDEFINED, value) {
            browser::console_error("chat-runtime: a subscriber threw", &error);
        }
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
/// ([`Driver::flush_messages`]).
const BATCH: usize = 256 * 1024;

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
