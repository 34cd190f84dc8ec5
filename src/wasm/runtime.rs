//! `ChatRuntime`: the exported class. Its methods convert, call the core (catalog, toggles,
//! session) and convert back; the I/O the session asks for runs in `transport` and `host`.
//!
//! Re-entrancy: all state is in `Rc<RefCell<Inner>>`. No borrow is held across an `.await` or
//! while JavaScript runs (listeners, tool handlers, `fetch`): actions are taken out of the
//! session under a short borrow, the borrow is released, then JS is called.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::{Rc, Weak};

use crate::hash::HashMap;

use crate::json::Value;
use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{from_js, to_js};
use super::error::chat_runtime_error;
use super::js::{self, AbortController, AbortSignal};
use super::storage::JsStore;
use super::{host, transport};
use crate::protocol::event::{Context, Message};
use crate::protocol::wire::ObjWriter;
use crate::session::{
    write_messages_event, Action, ChangedMessages, HistoryMode, RunRequest, RunResult,
    RuntimeEvent, Session, SessionConfig, ToolSet,
};
use crate::thread_id::ThreadIdError;
use crate::tools::catalog::{parse_manifest, Catalog, CatalogError, ManifestContext};
use crate::tools::toggles::{DeferredStore, ThreadKey, Toggles};
use crate::tools::{list_tools, Diagnostic};

#[wasm_bindgen]
extern "C" {
    /// `ChatRuntimeOptions`.
    #[wasm_bindgen(typescript_type = "ChatRuntimeOptions")]
    pub type JsChatRuntimeOptions;
    /// `RunRequest`.
    #[wasm_bindgen(typescript_type = "RunRequest")]
    pub type JsRunRequest;
    /// `RunOptions`.
    #[wasm_bindgen(typescript_type = "RunOptions")]
    pub type JsRunOptions;
    /// `Promise<RunResult>`.
    #[wasm_bindgen(typescript_type = "Promise<RunResult>")]
    pub type JsRunPromise;
    /// `Promise<ToolCatalogReport>`.
    #[wasm_bindgen(typescript_type = "Promise<ToolCatalogReport>")]
    pub type JsCatalogPromise;
    /// `ToolEntry[]`.
    #[wasm_bindgen(typescript_type = "ToolEntry[]")]
    pub type JsToolEntries;
    /// `ToolSchema[]`.
    #[wasm_bindgen(typescript_type = "ToolSchema[]")]
    pub type JsToolSchemas;
    /// `ToolSchema[] | { items: ToolSchema[] } | null`.
    #[wasm_bindgen(typescript_type = "ToolSchema[] | { items: ToolSchema[] } | null")]
    pub type JsBackendTools;
    /// `FrontendTool`.
    #[wasm_bindgen(typescript_type = "FrontendTool")]
    pub type JsFrontendTool;
    /// `Message[]`.
    #[wasm_bindgen(typescript_type = "Message[]")]
    pub type JsMessages;
    /// `unknown`.
    #[wasm_bindgen(typescript_type = "unknown")]
    pub type JsUnknown;
    /// `(event: RuntimeEvent) => void`.
    #[wasm_bindgen(typescript_type = "(event: RuntimeEvent) => void")]
    pub type JsListener;
    /// `() => void`.
    #[wasm_bindgen(typescript_type = "() => void")]
    pub type JsUnsubscribe;
    /// `SubscribeOptions`.
    #[wasm_bindgen(typescript_type = "SubscribeOptions")]
    pub type JsSubscribeOptions;
    /// `string`: a thread id (see `crate::thread_id` for the rule).
    #[wasm_bindgen(typescript_type = "string")]
    pub type JsThreadId;
    /// `string | null`: a thread id, or `null` for the default toggles of new chats.
    #[wasm_bindgen(typescript_type = "string | null")]
    pub type JsThreadIdOrNull;
}

/// A thread id argument that keeps the rule of [`crate::thread_id`]; `Err` says why not. A string
/// with a lone surrogate is refused here, before it becomes a Rust string (where it would turn
/// into U+FFFD and share a thread with every other id cut inside the same emoji).
fn thread_id_arg(value: &JsValue) -> Result<String, String> {
    let Some(text) = value.dyn_ref::<js_sys::JsString>() else {
        return Err("a thread id must be a string".to_owned());
    };
    if !js::is_well_formed(text) {
        return Err(ThreadIdError::NotWellFormed.to_string());
    }
    let id = String::from(text);
    crate::thread_id::check(&id).map_err(|e| e.to_string())?;
    Ok(id)
}

/// A thread id for a method that changes the thread: refused with `input/invalid`.
fn thread_id_for_write(value: &JsValue) -> Result<String, JsValue> {
    thread_id_arg(value)
        .map_err(|m| chat_runtime_error("input/invalid", &m, &[("field", "threadId".into())]))
}

/// The `string | null` thread of a toggle method, its toggles read from storage: `null` (or
/// `undefined`) is the default state; an id that breaks the rule is refused with `input/invalid`.
fn toggles_thread(
    rc: &Shared,
    thread_id: Option<JsThreadIdOrNull>,
) -> Result<Option<String>, JsValue> {
    let value = thread_id.map_or(JsValue::NULL, JsValue::from);
    let thread_id = if value.is_null() || value.is_undefined() {
        None
    } else {
        Some(thread_id_for_write(&value)?)
    };
    load_toggles(rc, thread_id.as_deref());
    Ok(thread_id)
}

/// What the app configured, beyond what the core keeps.
pub(crate) struct Options {
    /// `toolsUrl`, resolved against the page; `None` when there is no manifest.
    pub tools_url: Option<String>,
    /// The app's `fetch` (auth wrappers); `None` means `globalThis.fetch`.
    pub fetch: Option<Function>,
    /// Extra request headers.
    pub headers: Vec<(String, String)>,
    /// The app's `importModule`; `None` means dynamic `import()`.
    pub import_module: Option<Function>,
    /// Foreign origins tool modules may come from.
    pub allowed_import_origins: Vec<String>,
}

/// A thread's running turn, as far as the JS side is concerned.
#[derive(Default)]
pub(crate) struct Running {
    /// Resolves the `run` promise.
    pub resolve: Option<Function>,
    /// Aborts the current fetch.
    pub fetch: Option<AbortController>,
    /// Fire the running handlers' `ctx.signal`.
    pub tools: Vec<AbortController>,
    /// The caller's `signal` and our listener on it, removed when the turn ends.
    pub signal: Option<(AbortSignal, Function)>,
}

pub(crate) struct Inner {
    pub options: Options,
    pub catalog: Catalog,
    pub toggles: Toggles<DeferredStore>,
    /// The app's storage, called only with no borrow held ([`load_toggles`], [`save_toggles`]).
    storage: Rc<JsStore>,
    /// Toggle keys being read from `storage` right now (a nested call does not read them again).
    reading: BTreeSet<String>,
    pub session: Session,
    /// Subscribers, in subscription order.
    listeners: Vec<Listener>,
    next_listener: u32,
    /// Code-registered tools' handlers, by name.
    pub handlers: HashMap<String, Function>,
    /// Imported tool modules (promises), by URL: each module is imported once.
    pub modules: HashMap<String, Promise>,
    /// Per thread: the JS side of its running turn.
    pub running: HashMap<String, Running>,
    /// Threads whose messages changed since the last `messages` event.
    dirty: BTreeSet<String>,
    /// Per thread: its messages as the JS objects last handed out, by position (see
    /// [`flush_thread`]); absent when not known to be current.
    mirrors: HashMap<String, Array>,
    /// Whether a frame is scheduled to send the `messages` events.
    frame_scheduled: bool,
    /// The window's `storage` listener, removed on `free()`.
    storage_listener: Option<Function>,
}

impl Inner {
    /// Tells the session whether any listener wants `agui` events (none: the stream costs no
    /// per-event action).
    fn sync_agui_events(&mut self) {
        let on = self
            .listeners
            .iter()
            .any(|(_, _, filter)| wants(filter, "agui"));
        self.session.set_agui_events(on);
    }
}

pub(crate) type Shared = Rc<RefCell<Inner>>;

/// The event types a listener asked for; `None`: all of them.
type EventFilter = Option<Rc<[String]>>;

/// A subscriber: its id (for unsubscribe), its function, and what it wants.
type Listener = (u32, Function, EventFilter);

/// The runtime: tools, toggles, runs and the execute-and-restart loop for one agent endpoint.
#[wasm_bindgen]
pub struct ChatRuntime {
    inner: Shared,
}

fn options_error(message: &str) -> JsValue {
    chat_runtime_error("options/invalid", message, &[])
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn optional_string(object: &JsValue, key: &str) -> Result<Option<String>, JsValue> {
    let value = get(object, key);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .as_string()
        .map(Some)
        .ok_or_else(|| options_error(&format!("`{key}` must be a string")))
}

fn optional_function(object: &JsValue, key: &str) -> Result<Option<Function>, JsValue> {
    let value = get(object, key);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<Function>()
        .map(Some)
        .map_err(|_| options_error(&format!("`{key}` must be a function")))
}

fn optional_positive(object: &JsValue, key: &str, max: u32) -> Result<Option<u32>, JsValue> {
    let value = get(object, key);
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    match value.as_f64() {
        Some(n) if n >= 1.0 && n <= f64::from(max) && n.fract() == 0.0 => Ok(Some(n as u32)),
        _ => Err(options_error(&format!(
            "`{key}` must be a positive integer up to {max}"
        ))),
    }
}

/// Resolves `url` against the page (when there is one).
fn resolve_against_page(url: &str) -> Result<String, JsValue> {
    let resolved = match js::page_href() {
        Some(page) => js::Url::new_with_base(url, &page),
        None => js::Url::new(url),
    };
    resolved
        .map(|u| u.href())
        .map_err(|_| options_error(&format!("`{url}` is not a URL (relative URLs need a page)")))
}

#[wasm_bindgen]
impl ChatRuntime {
    /// Creates a runtime. Throws a `ChatRuntimeError` (`options/invalid`) for bad options.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsChatRuntimeOptions) -> Result<ChatRuntime, JsValue> {
        let options: JsValue = options.into();
        if !options.is_object() {
            return Err(options_error("options must be an object with a `runUrl`"));
        }
        let run_url = optional_string(&options, "runUrl")?
            .ok_or_else(|| options_error("`runUrl` is required"))?;
        let tools_url = match get(&options, "toolsUrl") {
            v if v.is_undefined() => Some("/tools/tools.json".to_owned()),
            v if v.is_null() => None,
            v => Some(
                v.as_string()
                    .ok_or_else(|| options_error("`toolsUrl` must be a string or null"))?,
            ),
        };
        let history = match optional_string(&options, "history")?.as_deref() {
            None | Some("full") => HistoryMode::Full,
            Some("new") => HistoryMode::New,
            Some(other) => {
                return Err(options_error(&format!(
                    "`history` must be \"full\" or \"new\", not {other:?}"
                )))
            }
        };
        let defaults = SessionConfig::default();
        let config = SessionConfig {
            run_url,
            max_tool_result_bytes: optional_positive(&options, "maxToolResultBytes", 1 << 28)?
                .map_or(defaults.max_tool_result_bytes, |n| n as usize),
            history,
            max_rounds: optional_positive(&options, "maxRounds", 1000)?
                .unwrap_or(defaults.max_rounds),
            tool_timeout_ms: optional_positive(&options, "toolTimeoutMs", 3_600_000)?
                .unwrap_or(defaults.tool_timeout_ms),
            max_event_bytes: defaults.max_event_bytes,
        };
        let catalog = match optional_string(&options, "toolNamePrefix")? {
            Some(prefix) => Catalog::with_prefix(&prefix)
                .map_err(|e| chat_runtime_error(e.code(), &e.to_string(), &[]))?,
            None => Catalog::new(),
        };
        let headers = match get(&options, "headers") {
            v if v.is_undefined() || v.is_null() => Vec::new(),
            v if v.is_object() => {
                let mut headers = Vec::new();
                for entry in Object::entries(v.unchecked_ref()).iter() {
                    let pair: Array = entry.unchecked_into();
                    let name = pair.get(0).as_string().unwrap_or_default();
                    let value = pair.get(1).as_string().ok_or_else(|| {
                        options_error(&format!("header `{name}` must be a string"))
                    })?;
                    headers.push((name, value));
                }
                headers
            }
            _ => return Err(options_error("`headers` must be an object of strings")),
        };
        let allowed_import_origins = match get(&options, "allowedImportOrigins") {
            v if v.is_undefined() || v.is_null() => Vec::new(),
            v if Array::is_array(&v) => Array::from(&v)
                .iter()
                .map(|o| {
                    o.as_string()
                        .ok_or_else(|| options_error("`allowedImportOrigins` must hold strings"))
                })
                .collect::<Result<_, _>>()?,
            _ => return Err(options_error("`allowedImportOrigins` must be an array")),
        };
        let mut inner = Inner {
            options: Options {
                tools_url,
                fetch: optional_function(&options, "fetch")?,
                headers,
                import_module: optional_function(&options, "importModule")?,
                allowed_import_origins,
            },
            catalog,
            toggles: Toggles::new(DeferredStore::default()),
            storage: Rc::new(JsStore::from_option(&get(&options, "storage"))),
            reading: BTreeSet::new(),
            session: Session::new(
                config,
                random_prefix(),
                Box::new(host::RegExpMatcher::default()),
            ),
            listeners: Vec::new(),
            next_listener: 0,
            handlers: HashMap::default(),
            modules: HashMap::default(),
            running: HashMap::default(),
            dirty: BTreeSet::new(),
            mirrors: HashMap::default(),
            frame_scheduled: false,
            storage_listener: None,
        };
        inner.sync_agui_events();
        let runtime = ChatRuntime {
            inner: Rc::new(RefCell::new(inner)),
        };
        runtime.listen_to_other_tabs();
        Ok(runtime)
    }

    /// Fetches and validates `tools.json` (`toolsUrl`). Bad entries are skipped and reported in
    /// `diagnostics`; the whole file fails (`tools/fetch`, `tools/not-json`, ...) only when it
    /// cannot be used at all.
    #[wasm_bindgen(js_name = loadTools)]
    pub fn load_tools(&self) -> JsCatalogPromise {
        let rc = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move { load_tools(&rc).await })
            .unchecked_into()
    }

    /// Registers a tool defined in code: `{ name, description, parameters?, handler, followUp?,
    /// timeoutMs? }`. Throws a `ChatRuntimeError` with the diagnostic's code when it is invalid.
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, tool: JsFrontendTool) -> Result<(), JsValue> {
        let tool: JsValue = tool.into();
        let name = optional_string(&tool, "name")?.unwrap_or_default();
        let description = optional_string(&tool, "description")?.unwrap_or_default();
        let handler = optional_function(&tool, "handler")?
            .ok_or_else(|| options_error("a registered tool needs a `handler` function"))?;
        let parameters = match get(&tool, "parameters") {
            v if v.is_undefined() || v.is_null() => None,
            v => Some(from_js::<Value>(&v)?),
        };
        let follow_up = match get(&tool, "followUp") {
            v if v.is_undefined() || v.is_null() => None,
            v => Some(
                v.as_bool()
                    .ok_or_else(|| options_error("`followUp` must be a boolean"))?,
            ),
        };
        let timeout_ms = optional_positive(&tool, "timeoutMs", 600_000)?;
        let result = {
            let mut inner = self.inner.borrow_mut();
            let result =
                inner
                    .catalog
                    .register(&name, &description, parameters, follow_up, timeout_ms);
            if result.is_ok() {
                inner.handlers.insert(name.clone(), handler);
            }
            result
        };
        match result {
            Ok(()) => {
                emit(&self.inner, &[RuntimeEvent::ToolsChanged {}]);
                Ok(())
            }
            Err(diagnostic) => Err(chat_runtime_error(
                diagnostic.code,
                &diagnostic.message,
                &[("toolName", name.into())],
            )),
        }
    }

    /// Removes a code-registered tool. Returns whether there was one.
    #[wasm_bindgen(js_name = unregisterTool)]
    pub fn unregister_tool(&self, name: &str) -> bool {
        let removed = {
            let mut inner = self.inner.borrow_mut();
            inner.handlers.remove(name);
            inner.catalog.unregister(name)
        };
        if removed {
            emit(&self.inner, &[RuntimeEvent::ToolsChanged {}]);
        }
        removed
    }

    /// Sets the agent's own tools (its `capabilities.tools`, an array or `{ items }`): listed,
    /// locked, always on.
    #[wasm_bindgen(js_name = setBackendTools)]
    pub fn set_backend_tools(&self, tools: JsBackendTools) -> Result<(), JsValue> {
        let tools: Value = from_js(&tools.into())?;
        let diagnostics = self.inner.borrow_mut().catalog.set_backend_tools(&tools);
        let mut events: Vec<RuntimeEvent> = diagnostics
            .into_iter()
            .map(|diagnostic| RuntimeEvent::Diagnostic { diagnostic })
            .collect();
        events.push(RuntimeEvent::ToolsChanged {});
        emit(&self.inner, &events);
        Ok(())
    }

    /// The tool selector's rows for a thread (`null`: a new chat): frontend tools with their
    /// toggle, then the locked backend tools.
    #[wasm_bindgen(js_name = listTools)]
    pub fn list_tools(
        &self,
        thread_id: Option<JsThreadIdOrNull>,
    ) -> Result<JsToolEntries, JsValue> {
        let thread_id = toggles_thread(&self.inner, thread_id)?;
        let entries = {
            let mut inner = self.inner.borrow_mut();
            let Inner {
                catalog, toggles, ..
            } = &mut *inner;
            list_tools(catalog, toggles, thread_id.as_deref())
        };
        emit_toggle_diagnostics(&self.inner);
        Ok(to_js(&entries)?.unchecked_into())
    }

    /// Turns a frontend tool on or off for a thread (`null`: the default for new chats), saved in
    /// `localStorage` under `chat:tools:{threadId}`. Backend tools are locked (`tools/locked`).
    #[wasm_bindgen(js_name = setToolEnabled)]
    pub fn set_tool_enabled(
        &self,
        thread_id: Option<JsThreadIdOrNull>,
        name: &str,
        enabled: bool,
    ) -> Result<(), JsValue> {
        let thread_id = toggles_thread(&self.inner, thread_id)?;
        {
            let mut inner = self.inner.borrow_mut();
            if inner.catalog.is_backend(name) && inner.catalog.frontend(name).is_none() {
                return Err(chat_runtime_error(
                    "tools/locked",
                    &format!("{name} is a backend tool: it is always on"),
                    &[("toolName", name.into())],
                ));
            }
            inner
                .toggles
                .set_enabled(thread_id.as_deref(), name, enabled);
        }
        save_toggles(&self.inner);
        emit_toggle_diagnostics(&self.inner);
        emit(&self.inner, &[RuntimeEvent::TogglesChanged { thread_id }]);
        Ok(())
    }

    /// The tool schemas a run of this thread would send (the enabled frontend tools).
    #[wasm_bindgen(js_name = activeTools)]
    pub fn active_tools(
        &self,
        thread_id: Option<JsThreadIdOrNull>,
    ) -> Result<JsToolSchemas, JsValue> {
        let thread_id = toggles_thread(&self.inner, thread_id)?;
        let tools = {
            let mut inner = self.inner.borrow_mut();
            let Inner {
                catalog, toggles, ..
            } = &mut *inner;
            let names: Vec<String> = catalog.frontend_tools().map(|t| t.name.clone()).collect();
            let on: BTreeSet<String> = names
                .into_iter()
                .filter(|n| toggles.is_enabled(thread_id.as_deref(), n))
                .collect();
            catalog.wire_tools(|name| on.contains(name))
        };
        emit_toggle_diagnostics(&self.inner);
        Ok(to_js(&tools)?.unchecked_into())
    }

    /// Seeds a loaded thread's history (refused with `run/busy` while it runs).
    #[wasm_bindgen(js_name = setMessages)]
    pub fn set_messages(&self, thread_id: JsThreadId, messages: JsMessages) -> Result<(), JsValue> {
        let thread_id = thread_id_for_write(&thread_id.into())?;
        let messages: Vec<Message> = from_js(&messages.into())?;
        self.inner
            .borrow_mut()
            .session
            .set_messages(&thread_id, messages)
            .map_err(|e| chat_runtime_error(e.code(), &e.to_string(), &[]))?;
        mark_dirty(&self.inner, &thread_id);
        Ok(())
    }

    /// The thread's messages (none for an unknown thread, or an id no thread can have).
    pub fn messages(&self, thread_id: JsThreadId) -> Result<JsMessages, JsValue> {
        let Ok(thread_id) = thread_id_arg(&thread_id.into()) else {
            return Ok(js_sys::Array::new().unchecked_into());
        };
        let inner = self.inner.borrow();
        Ok(to_js(inner.session.messages(&thread_id))?.unchecked_into())
    }

    /// The thread's AG-UI state (`STATE_SNAPSHOT` / `STATE_DELTA`), `undefined` for an unknown
    /// thread.
    pub fn state(&self, thread_id: JsThreadId) -> Result<JsUnknown, JsValue> {
        let Ok(thread_id) = thread_id_arg(&thread_id.into()) else {
            return Ok(JsValue::UNDEFINED.unchecked_into());
        };
        let inner = self.inner.borrow();
        match inner.session.state(&thread_id) {
            Some(state) => Ok(to_js(state)?.unchecked_into()),
            None => Ok(JsValue::UNDEFINED.unchecked_into()),
        }
    }

    /// Whether a run is going on in the thread.
    #[wasm_bindgen(js_name = isRunning)]
    pub fn is_running(&self, thread_id: JsThreadId) -> bool {
        thread_id_arg(&thread_id.into()).is_ok_and(|id| self.inner.borrow().session.is_running(&id))
    }

    /// Sends the thread's new messages and drives the loop until the agent answers without
    /// needing the browser. Resolves with a `RunResult` for every ending (completed, aborted,
    /// max_rounds, error); rejects only for programmer errors (`run/busy`, a malformed request).
    pub fn run(&self, request: JsRunRequest, options: Option<JsRunOptions>) -> JsRunPromise {
        match self.start(request.into(), options.map(JsValue::from)) {
            Ok(promise) => promise,
            Err(error) => Promise::reject(&error).into(),
        }
        .unchecked_into()
    }

    /// Aborts the thread's run: the fetch is cancelled, the handlers' `signal` fires, nothing
    /// restarts, and unanswered calls get an `INTERRUPTED` result.
    pub fn abort(&self, thread_id: JsThreadId) {
        // An id no thread can have has nothing to stop.
        if let Ok(thread_id) = thread_id_arg(&thread_id.into()) {
            self.abort_thread(&thread_id);
        }
    }

    /// Calls `listener` with every `RuntimeEvent`, or with the types listed in
    /// `options.events` (e.g. `["messages", "run_finished"]`: events nobody asked for are never
    /// converted to JS, which matters for the per-token `agui` events of a long stream). Returns
    /// the function that unsubscribes. A listener that throws is reported on the console and does
    /// not disturb the run.
    pub fn subscribe(
        &self,
        listener: JsListener,
        options: Option<JsSubscribeOptions>,
    ) -> Result<JsUnsubscribe, JsValue> {
        let listener: Function = JsValue::from(listener)
            .dyn_into()
            .map_err(|_| options_error("subscribe needs a function"))?;
        let filter = match options.map(JsValue::from).map(|o| get(&o, "events")) {
            None => None,
            Some(v) if v.is_undefined() || v.is_null() => None,
            Some(v) if Array::is_array(&v) => Some(
                Array::from(&v)
                    .iter()
                    .map(|t| {
                        t.as_string()
                            .ok_or_else(|| options_error("`events` must hold event type strings"))
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(_) => return Err(options_error("`events` must be an array of event types")),
        };
        let id = {
            let mut inner = self.inner.borrow_mut();
            inner.next_listener += 1;
            let id = inner.next_listener;
            inner.listeners.push((id, listener, filter.map(Rc::from)));
            inner.sync_agui_events();
            id
        };
        let weak = Rc::downgrade(&self.inner);
        let unsubscribe = Closure::<dyn Fn()>::new(move || {
            if let Some(rc) = weak.upgrade() {
                let mut inner = rc.borrow_mut();
                inner.listeners.retain(|(n, _, _)| *n != id);
                inner.sync_agui_events();
            }
        });
        Ok(unsubscribe.into_js_value().unchecked_into())
    }
}

impl ChatRuntime {
    fn abort_thread(&self, thread_id: &str) {
        self.inner.borrow_mut().session.abort(thread_id);
        mark_dirty(&self.inner, thread_id);
        drive(&self.inner);
    }

    fn start(&self, request: JsValue, options: Option<JsValue>) -> Result<JsValue, JsValue> {
        if !request.is_object() {
            return Err(bad_request(
                "the request must be an object with a `threadId`",
            ));
        }
        let thread_id = thread_id_arg(&get(&request, "threadId"))
            .map_err(|m| bad_request(&format!("`threadId`: {m}")))?;
        let messages: Vec<Message> = match get(&request, "messages") {
            v if v.is_undefined() || v.is_null() => Vec::new(),
            v => from_js(&v).map_err(|e| bad_request_from(&e, "messages"))?,
        };
        let context: Vec<Context> = match get(&request, "context") {
            v if v.is_undefined() || v.is_null() => Vec::new(),
            v => from_js(&v).map_err(|e| bad_request_from(&e, "context"))?,
        };
        let state = match get(&request, "state") {
            v if v.is_undefined() => None,
            v => Some(from_js::<Value>(&v)?),
        };
        let forwarded_props = match get(&request, "forwardedProps") {
            v if v.is_undefined() => None,
            v => Some(from_js::<Value>(&v)?),
        };
        let signal = options
            .map(|o| get(&o, "signal"))
            .filter(|s| !s.is_undefined() && !s.is_null())
            .map(|s| s.unchecked_into::<AbortSignal>());

        load_toggles(&self.inner, Some(&thread_id));
        let mut resolve_slot = None;
        let promise = Promise::new(&mut |resolve, _reject| resolve_slot = Some(resolve));
        {
            let mut inner = self.inner.borrow_mut();
            if inner.session.is_running(&thread_id) {
                return Err(chat_runtime_error(
                    "run/busy",
                    &format!("a run is already in progress on thread {thread_id}"),
                    &[],
                ));
            }
            let Inner {
                catalog, toggles, ..
            } = &mut *inner;
            toggles.begin_run(&thread_id);
            let tools =
                ToolSet::from_catalog(catalog, |name| toggles.is_enabled(Some(&thread_id), name));
            let run_request = RunRequest {
                thread_id: thread_id.clone(),
                messages,
                context,
                state,
                forwarded_props,
            };
            inner
                .session
                .start_run(run_request, tools)
                .map_err(|e| chat_runtime_error(e.code(), &e.to_string(), &[]))?;
            inner.running.insert(
                thread_id.clone(),
                Running {
                    resolve: resolve_slot,
                    ..Running::default()
                },
            );
        }
        save_toggles(&self.inner);
        if let Some(signal) = signal {
            self.follow_signal(&thread_id, signal);
        }
        emit_toggle_diagnostics(&self.inner);
        mark_dirty(&self.inner, &thread_id);
        drive(&self.inner);
        Ok(promise.into())
    }

    /// Aborts the thread's turn when the caller's `signal` fires.
    fn follow_signal(&self, thread_id: &str, signal: AbortSignal) {
        if signal.aborted() {
            self.abort_thread(thread_id);
            return;
        }
        let weak: Weak<RefCell<Inner>> = Rc::downgrade(&self.inner);
        let thread = thread_id.to_owned();
        let listener = Closure::<dyn Fn()>::new(move || {
            if let Some(rc) = weak.upgrade() {
                rc.borrow_mut().session.abort(&thread);
                mark_dirty(&rc, &thread);
                drive(&rc);
            }
        })
        .into_js_value()
        .unchecked_into::<Function>();
        let once = Object::new();
        let _ = Reflect::set(&once, &"once".into(), &true.into());
        signal.add_event_listener("abort", &listener, &once);
        if let Some(running) = self.inner.borrow_mut().running.get_mut(thread_id) {
            running.signal = Some((signal, listener));
        }
    }

    /// Picks up toggle changes made in other tabs (`storage` events).
    fn listen_to_other_tabs(&self) {
        let global = js_sys::global();
        let Ok(add) = Reflect::get(&global, &"addEventListener".into())
            .and_then(|f| f.dyn_into::<Function>())
        else {
            return;
        };
        let weak = Rc::downgrade(&self.inner);
        let listener = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
            let Some(rc) = weak.upgrade() else { return };
            let event: js::StorageEvent = event.unchecked_into();
            let (key, value) = (event.key(), event.new_value());
            let changed = rc
                .borrow_mut()
                .toggles
                .handle_storage_event(key.as_deref(), value.as_deref());
            emit_toggle_diagnostics(&rc);
            let thread_id = match changed {
                None => return,
                Some(ThreadKey::Thread(id)) => Some(id),
                Some(_) => None,
            };
            emit(&rc, &[RuntimeEvent::TogglesChanged { thread_id }]);
        })
        .into_js_value()
        .unchecked_into::<Function>();
        if add.call2(&global, &"storage".into(), &listener).is_ok() {
            self.inner.borrow_mut().storage_listener = Some(listener);
        }
    }
}

impl Drop for ChatRuntime {
    fn drop(&mut self) {
        let (listener, running) = {
            let Ok(mut inner) = self.inner.try_borrow_mut() else {
                return;
            };
            (
                inner.storage_listener.take(),
                std::mem::take(&mut inner.running),
            )
        };
        if let Some(listener) = listener {
            let global = js_sys::global();
            if let Ok(remove) = Reflect::get(&global, &"removeEventListener".into()) {
                if let Ok(remove) = remove.dyn_into::<Function>() {
                    let _ = remove.call2(&global, &"storage".into(), &listener);
                }
            }
        }
        // Freed mid-run: stop the network and the handlers.
        for (_, running) in running {
            cancel(running.fetch, running.tools);
        }
    }
}

fn bad_request(message: &str) -> JsValue {
    chat_runtime_error("run/bad-request", message, &[])
}

fn bad_request_from(error: &JsValue, field: &str) -> JsValue {
    let detail = Reflect::get(error, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_default();
    bad_request(&format!("`{field}` is malformed: {detail}"))
}

/// A per-runtime id prefix (random bits and the clock's low bits): with the session's counter it
/// makes run and tool-message ids unique across tabs and reloads.
fn random_prefix() -> String {
    let random = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    let now = js_sys::Date::now() as u64;
    format!("{:08x}{:04x}", random, now & 0xffff)
}

/// Cancels a turn's fetch and fires its handlers' signals.
pub(crate) fn cancel(fetch: Option<AbortController>, tools: Vec<AbortController>) {
    let reason = chat_runtime_error("run/aborted", "the run was aborted", &[]);
    if let Some(fetch) = fetch {
        fetch.abort(&reason);
    }
    for tool in tools {
        tool.abort(&reason);
    }
}

pub(crate) fn mark_dirty(rc: &Shared, thread_id: &str) {
    rc.borrow_mut().dirty.insert(thread_id.to_owned());
}

/// Runs every action the session has queued. Never holds a borrow while JS runs.
pub(crate) fn drive(rc: &Shared) {
    // Events are handed to listeners in batches: one look at the listener list per batch, not
    // per streamed token. A batch is flushed before any other action, so the order holds.
    let mut events = Vec::new();
    loop {
        let action = rc.borrow_mut().session.poll_action();
        let Some(action) = action else { break };
        if let Action::Emit(event) = action {
            events.push(event);
            continue;
        }
        if !events.is_empty() {
            emit(rc, &std::mem::take(&mut events));
        }
        match action {
            Action::Send {
                thread_id,
                run_id,
                url,
                body,
            } => transport::start(rc, thread_id, run_id, url, body),
            Action::Execute(job) => host::start(rc, job),
            Action::Cancel { thread_id } => {
                let parts = rc
                    .borrow_mut()
                    .running
                    .get_mut(&thread_id)
                    .map(|r| (r.fetch.take(), std::mem::take(&mut r.tools)));
                if let Some((fetch, tools)) = parts {
                    cancel(fetch, tools);
                }
            }
            Action::Emit(_) => {}
            Action::Finished(result) => {
                // The final messages go out before the promise settles; the result's messages
                // are then the objects the listeners already have.
                flush_thread(rc, &result.thread_id);
                let value = run_result_to_js(rc, &result);
                let running = rc.borrow_mut().running.remove(&result.thread_id);
                let Some(running) = running else { continue };
                cancel(running.fetch, running.tools);
                if let Some((signal, listener)) = running.signal {
                    let _ = Reflect::get(&signal, &"removeEventListener".into())
                        .ok()
                        .and_then(|f| f.dyn_into::<Function>().ok())
                        .map(|f| f.call2(&signal, &"abort".into(), &listener));
                }
                if let Some(resolve) = running.resolve {
                    match value {
                        Ok(value) => {
                            let _ = resolve.call1(&JsValue::UNDEFINED, &value);
                        }
                        Err(error) => {
                            let _ = resolve.call1(&JsValue::UNDEFINED, &error);
                        }
                    }
                }
            }
        }
    }
    if !events.is_empty() {
        emit(rc, &events);
    }
    schedule_flush(rc);
}

/// `run()`'s value. Its `messages` are the thread's mirror (the objects the `messages` events
/// handed out, kept by [`flush_thread`]) when there is one, so a finished run does not send the
/// thread across again; and `newMessages` are taken from `messages` (same objects).
fn run_result_to_js(rc: &Shared, result: &RunResult) -> Result<JsValue, JsValue> {
    let mirror = rc.borrow().mirrors.get(&result.thread_id).cloned();
    let mirror = mirror.filter(|m| m.length() as usize == result.messages.len());
    let Some(positions) = result.new_message_positions() else {
        return to_js(result);
    };
    let mut text = String::new();
    result.write_json_with(&mut text, mirror.is_none(), false);
    let value = js_sys::JSON::parse(&text)?;
    let messages: Array = match mirror {
        Some(mirror) => {
            let messages = mirror.slice(0, mirror.length());
            Reflect::set(&value, &"messages".into(), &messages)?;
            messages
        }
        None => {
            let messages: Array = Reflect::get(&value, &"messages".into())?.unchecked_into();
            let copy = messages.slice(0, messages.length());
            rc.borrow_mut()
                .mirrors
                .insert(result.thread_id.clone(), copy);
            messages
        }
    };
    Reflect::set(&value, &"newMessages".into(), &pick(&messages, &positions))?;
    Ok(value)
}

/// The items of `list` at `positions`, as a new array (the same objects).
fn pick(list: &Array, positions: &[usize]) -> Array {
    let picked = Array::new_with_length(positions.len() as u32);
    for (n, &at) in positions.iter().enumerate() {
        picked.set(n as u32, list.get(at as u32));
    }
    picked
}

/// The listeners, copied out so a listener may subscribe or unsubscribe while being called.
fn listeners(rc: &Shared) -> Vec<(Function, EventFilter)> {
    rc.borrow()
        .listeners
        .iter()
        .map(|(_, f, filter)| (f.clone(), filter.clone()))
        .collect()
}

fn wants(filter: &EventFilter, kind: &str) -> bool {
    filter
        .as_ref()
        .is_none_or(|types| types.iter().any(|t| t == kind))
}

/// Calls each listener that wants `kind` with `value`; one that throws is reported and skipped.
fn deliver(listeners: &[(Function, EventFilter)], kind: &str, value: &JsValue) {
    for (listener, filter) in listeners {
        if !wants(filter, kind) {
            continue;
        }
        if let Err(error) = listener.call1(&JsValue::UNDEFINED, value) {
            js::console_error("chat-runtime: a subscriber threw", &error);
        }
    }
}

/// Sends each event to the listeners that want it. A listener that throws is reported and
/// skipped. An event no listener wants is never converted.
pub(crate) fn emit(rc: &Shared, events: &[RuntimeEvent]) {
    let listeners = listeners(rc);
    if listeners.is_empty() {
        return;
    }
    let wanted: Vec<&RuntimeEvent> = events
        .iter()
        .filter(|event| listeners.iter().any(|(_, f)| wants(f, event.kind())))
        .collect();
    if wanted.is_empty() {
        return;
    }
    // One JSON text and one `JSON.parse` for the whole batch.
    let Ok(values) = to_js(&wanted) else { return };
    let values: Array = values.unchecked_into();
    for (n, event) in wanted.iter().enumerate() {
        deliver(&listeners, event.kind(), &values.get(n as u32));
    }
}

/// Reads from the app's storage the toggle keys a call for this thread (`None`: the default
/// state) may need and the toggles have not cached, with no borrow held: the app's `getItem` may
/// call back into the runtime. A key an outer call is reading is left to it (the nested call sees
/// the thread as holding nothing saved, and caches nothing).
pub(crate) fn load_toggles(rc: &Shared, thread_id: Option<&str>) {
    let (keys, storage) = {
        let mut inner = rc.borrow_mut();
        let keys: Vec<String> = inner
            .toggles
            .keys_to_load(thread_id)
            .into_iter()
            .filter(|key| !inner.reading.contains(key))
            .collect();
        inner.reading.extend(keys.iter().cloned());
        (keys, inner.storage.clone())
    };
    if keys.is_empty() {
        return;
    }
    let reads: Vec<_> = keys
        .into_iter()
        .map(|key| {
            let read = storage.get_item(&key);
            (key, read)
        })
        .collect();
    let mut inner = rc.borrow_mut();
    for (key, read) in reads {
        inner.reading.remove(&key);
        inner.toggles.supply(&key, read);
    }
}

/// Writes what the toggles queued to the app's storage, with no borrow held; a write that throws
/// goes back to the toggles (a diagnostic, and the key is written again with the next change).
pub(crate) fn save_toggles(rc: &Shared) {
    loop {
        let (writes, storage) = {
            let mut inner = rc.borrow_mut();
            let writes = std::mem::take(&mut inner.toggles.store_mut().writes);
            (writes, inner.storage.clone())
        };
        if writes.is_empty() {
            return;
        }
        for (key, value, name) in writes {
            if let Err(err) = storage.set_item(&key, &value) {
                rc.borrow_mut()
                    .toggles
                    .write_failed(&key, name.as_deref(), err);
            }
        }
    }
}

/// Emits the toggles' diagnostics (storage that threw, corrupt values).
pub(crate) fn emit_toggle_diagnostics(rc: &Shared) {
    let mut events = Vec::new();
    {
        let mut inner = rc.borrow_mut();
        while let Some(diagnostic) = inner.toggles.poll_diagnostic() {
            events.push(RuntimeEvent::Diagnostic { diagnostic });
        }
    }
    emit(rc, &events);
}

/// Schedules one `messages` event per changed thread for the next animation frame.
fn schedule_flush(rc: &Shared) {
    {
        let mut inner = rc.borrow_mut();
        if inner.frame_scheduled || inner.dirty.is_empty() {
            return;
        }
        inner.frame_scheduled = true;
    }
    let weak = Rc::downgrade(rc);
    let callback = Closure::once_into_js(move || {
        let Some(rc) = weak.upgrade() else { return };
        let threads = {
            let mut inner = rc.borrow_mut();
            inner.frame_scheduled = false;
            std::mem::take(&mut inner.dirty)
        };
        for thread_id in threads {
            flush_thread(&rc, &thread_id);
        }
    });
    js::schedule_frame(callback.unchecked_ref());
}

/// Emits the thread's changed messages now, if any, and keeps the thread's mirror (its messages
/// as JS objects, by position) up to date with them: the first time (or after a snapshot) the
/// whole thread is converted and the event's messages are picked from it. Without a `messages`
/// listener nothing is converted and the mirror is dropped.
fn flush_thread(rc: &Shared, thread_id: &str) {
    let listeners = listeners(rc);
    let (text, changed, full) = {
        let mut inner = rc.borrow_mut();
        inner.dirty.remove(thread_id);
        let Some(changed) = inner.session.take_changed_positions(thread_id) else {
            return;
        };
        if !listeners.iter().any(|(_, f)| wants(f, "messages")) {
            inner.mirrors.remove(thread_id);
            return;
        }
        let full = changed.all || !inner.mirrors.contains_key(thread_id);
        let all = inner.session.messages(thread_id);
        let list: Vec<&Message> = if full {
            all.iter().collect()
        } else {
            changed.positions.iter().map(|&at| &all[at]).collect()
        };
        let mut text = String::new();
        write_messages_event(&mut text, thread_id, &list);
        (text, changed, full)
    };
    let Ok(event) = js_sys::JSON::parse(&text) else {
        return;
    };
    let Ok(list) = Reflect::get(&event, &"messages".into()) else {
        return;
    };
    let list: Array = list.unchecked_into();
    if full {
        let copy = list.slice(0, list.length());
        rc.borrow_mut().mirrors.insert(thread_id.to_owned(), copy);
        if !changed.all {
            // The event carries only what changed.
            let _ = Reflect::set(&event, &"messages".into(), &pick(&list, &changed.positions));
        }
    } else {
        update_mirror(rc, thread_id, &changed, &list);
    }
    deliver(&listeners, "messages", &event);
}

/// Applies one `messages` event's objects (changed in place or appended) to the thread's mirror,
/// or drops the mirror when they do not line up with it.
fn update_mirror(rc: &Shared, thread_id: &str, changed: &ChangedMessages, messages: &Array) {
    let mut inner = rc.borrow_mut();
    let Some(mirror) = inner.mirrors.get(thread_id) else {
        return;
    };
    let mut len = mirror.length() as usize;
    let mut in_line = true;
    for (n, &at) in changed.positions.iter().enumerate() {
        let object = messages.get(n as u32);
        if at < len {
            mirror.set(at as u32, object);
        } else if at == len {
            mirror.push(&object);
            len += 1;
        } else {
            in_line = false;
            break;
        }
    }
    if !in_line || len != changed.len {
        inner.mirrors.remove(thread_id);
    }
}

/// `loadTools()`.
async fn load_tools(rc: &Shared) -> Result<JsValue, JsValue> {
    let (url, fetch) = {
        let inner = rc.borrow();
        (inner.options.tools_url.clone(), inner.options.fetch.clone())
    };
    let Some(url) = url else {
        return report(rc, Vec::new());
    };
    let url = resolve_against_page(&url)?;
    let catalog_error =
        |e: CatalogError| chat_runtime_error(e.code(), &e.to_string(), &status_field(e.status()));
    let fetched = transport::get_text(fetch.as_ref(), &url).await;
    let transport::Fetched {
        status,
        url,
        content_type,
        body,
    } = match fetched {
        Ok(fetched) => fetched,
        Err(message) => {
            return Err(catalog_error(CatalogError::Fetch {
                status: None,
                message,
            }))
        }
    };
    if !(200..300).contains(&status) {
        return Err(catalog_error(CatalogError::Fetch {
            status: Some(status),
            message: format!("{url} answered HTTP {status}"),
        }));
    }
    let page_origin = js::page_href()
        .and_then(|href| js::Url::new(&href).ok())
        .map(|u| u.origin())
        .or_else(|| js::Url::new(&url).ok().map(|u| u.origin()))
        .unwrap_or_default();
    let context = ManifestContext {
        manifest_url: url,
        page_origin,
        allowed_import_origins: rc.borrow().options.allowed_import_origins.clone(),
    };
    let manifest = parse_manifest(body.as_bytes(), content_type.as_deref(), &context)
        .map_err(catalog_error)?;
    let mut diagnostics = manifest.diagnostics;
    diagnostics.extend(rc.borrow_mut().catalog.set_manifest(manifest.tools));
    report(rc, diagnostics)
}

fn status_field(status: Option<u16>) -> Vec<(&'static str, JsValue)> {
    status
        .map(|s| vec![("status", JsValue::from(s))])
        .unwrap_or_default()
}

/// `{ tools, diagnostics }`, and the matching events.
fn report(rc: &Shared, diagnostics: Vec<Diagnostic>) -> Result<JsValue, JsValue> {
    load_toggles(rc, None);
    let tools = {
        let mut inner = rc.borrow_mut();
        let Inner {
            catalog, toggles, ..
        } = &mut *inner;
        list_tools(catalog, toggles, None)
    };
    let mut text = String::new();
    let mut w = ObjWriter::new(&mut text);
    w.field("tools", &tools);
    w.field("diagnostics", &diagnostics);
    w.end();
    let value = js_sys::JSON::parse(&text)?;
    let mut events: Vec<RuntimeEvent> = diagnostics
        .into_iter()
        .map(|diagnostic| RuntimeEvent::Diagnostic { diagnostic })
        .collect();
    events.push(RuntimeEvent::ToolsChanged {});
    emit(rc, &events);
    emit_toggle_diagnostics(rc);
    Ok(value)
}
