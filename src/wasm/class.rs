//! `ChatRuntime`, the exported class. Each method converts its arguments ([`super::convert`]),
//! calls the [`Driver`] and converts back; errors are [`Error`]s, thrown as `ChatRuntimeError`s.

use std::borrow::Cow;

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{
    from_js, host, json_members, member, string_from_js, thread_id as thread_id_arg,
    thread_id_for_write, toggles_thread,
};
#[cfg(feature = "coder")]
use super::driver::csrf_source;
use super::driver::{Driver, HostConfig, ThreadRead};
use super::error::Error;
use super::io::http::Fetch;
use super::io::storage::Store;
use crate::json::Value;
use crate::options::{RunInput, RuntimeOptions, RUNTIME_OPTION_KEYS, RUN_REQUEST_KEYS};
use crate::protocol::event::Message;
use crate::session::Session;
use crate::tools::pattern::Patterns;

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
    /// `BackendTools`: `ToolSchema[] | { items?: ToolSchema[] } | null | undefined`.
    #[wasm_bindgen(typescript_type = "BackendTools")]
    pub type JsBackendTools;
    /// `FrontendTool`.
    #[wasm_bindgen(typescript_type = "FrontendTool")]
    pub type JsFrontendTool;
    /// `Message[]`.
    #[wasm_bindgen(typescript_type = "Message[]")]
    pub type JsMessages;
    /// `Interrupt[]`.
    #[wasm_bindgen(typescript_type = "Interrupt[]")]
    pub type JsInterrupts;
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

fn options_error(message: &'static str) -> Error {
    Error::new("options/invalid", message)
}

/// An error about one field: `code` with `message`, and `field`. One copy for every such error.
#[inline(never)]
fn field_error(code: &'static str, field: &str, message: Cow<'static, str>) -> Error {
    Error::new(code, message).with("field", field)
}

/// `options/invalid` about `field`.
fn invalid(field: &str, message: impl Into<Cow<'static, str>>) -> Error {
    field_error("options/invalid", field, message.into())
}

/// An option `key`: a string, or absent.
fn string(object: &JsValue, key: &str) -> Result<Option<String>, Error> {
    member(object, key, "options/invalid")
}

/// A function option: `undefined` / `null` are `None`.
fn function(value: JsValue, key: &str) -> Result<Option<Function>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value
        .dyn_into::<Function>()
        .map(Some)
        .map_err(|_| invalid(key, format!("`{key}` must be a function")))
}

#[cfg(feature = "coder")]
/// `backend.csrfToken` when it is a function (`JSON.stringify` leaves a function out, so the
/// data the core reads never holds it; a string goes through the core). Only a coder backend
/// takes one.
fn csrf_function(options: &JsValue) -> Result<Option<Function>, Error> {
    let backend = host(options, "backend");
    let value = host(&backend, "csrfToken");
    if !value.is_function() {
        return Ok(None);
    }
    if host(&backend, "type").as_string().as_deref() != Some("coder") {
        return Err(invalid("backend", "`backend` has no member \"csrfToken\""));
    }
    function(value, "backend.csrfToken")
}

/// The runtime: tools, toggles, runs and the execute-and-restart loop for one agent endpoint.
#[wasm_bindgen]
pub struct ChatRuntime {
    driver: Driver,
}

// The methods are documented and declared in types.d.ts (`interface ChatRuntime`), not with doc
// comments: wasm-bindgen copies a method's doc comment into the JS glue as well as into the
// declarations, so the package would ship each one twice (1.8 KB gzip of comments in the glue).
#[allow(missing_docs)]
#[wasm_bindgen]
impl ChatRuntime {
    /// Creates a runtime. Throws a `ChatRuntimeError` (`options/invalid`) for bad options.
    #[wasm_bindgen(constructor, skip_jsdoc)]
    pub fn new(options: JsChatRuntimeOptions) -> Result<ChatRuntime, Error> {
        let options: JsValue = options.into();
        if !options.is_object() {
            return Err(options_error("options must be an object with a `runUrl`"));
        }
        // The data members are read and checked in the core (`crate::options`); functions and
        // host objects are taken here as they are.
        // `backend.csrfToken` may be a function: taken here, as `fetch` is.
        #[cfg(feature = "coder")]
        let csrf_function = csrf_function(&options)?;
        let json = json_members(&options, RUNTIME_OPTION_KEYS, "options/invalid")?;
        let runtime_options = RuntimeOptions::from_json(json)?;
        #[cfg(feature = "coder")]
        {
            let page_origin = host(&host(&js_sys::global(), "location"), "origin").as_string();
            runtime_options.check_token_origin(page_origin.as_deref())?;
        }
        let RuntimeOptions {
            config,
            catalog,
            tools_url,
            allowed_import_origins,
            #[cfg(feature = "coder")]
            coder_auth,
        } = runtime_options;
        #[cfg(feature = "coder")]
        let csrf = csrf_source(csrf_function, coder_auth);
        let fetch = function(host(&options, "fetch"), "fetch")?;
        let import_module = function(host(&options, "importModule"), "importModule")?;
        let storage = Store::from_option(&host(&options, "storage"));
        let prepare_request = function(host(&options, "prepareRequest"), "prepareRequest")?;
        #[cfg(feature = "coder")]
        if prepare_request.is_some() && config.coder.is_some() {
            // It shapes an AG-UI request's body: with a Coder chat it would do nothing.
            return Err(invalid(
                "prepareRequest",
                "`prepareRequest` is an AG-UI option: the coder backend does not use it",
            ));
        }
        let host = HostConfig {
            tools_url,
            fetch: Fetch::new(fetch),
            import_module,
            allowed_import_origins,
            storage,
            prepare_request,
            #[cfg(feature = "coder")]
            csrf,
        };
        let session = Session::with_body_sink(
            config,
            random_prefix(),
            Box::new(Patterns::new()),
            Box::new(super::driver::JsBodySink::new()),
        );
        Ok(ChatRuntime {
            driver: Driver::new(session, catalog, host),
        })
    }

    // Fetches and validates `tools.json` (`toolsUrl`). Bad entries are skipped and reported in
    // `diagnostics`; the whole file fails (`tools/fetch`, `tools/not-json`, ...) only when it
    // cannot be used at all.
    #[wasm_bindgen(js_name = loadTools, skip_typescript, skip_jsdoc)]
    pub fn load_tools(&self) -> JsCatalogPromise {
        if let Err(error) = self.driver.check_live() {
            return Promise::reject(&error.into()).unchecked_into();
        }
        let driver = self.driver.clone();
        let (promise, resolve, reject) = super::browser::new_promise();
        wasm_bindgen_futures::spawn_local(async move {
            let _ = match driver.load_tools().await {
                Ok(report) => resolve.call1(&JsValue::UNDEFINED, &report),
                Err(error) => reject.call1(&JsValue::UNDEFINED, &error.into()),
            };
        });
        promise.unchecked_into()
    }

    // Registers a tool defined in code: `{ name, description, parameters?, handler, followUp?,
    // timeoutMs?, defaultEnabled? }` (`timeoutMs: null`: no deadline). Throws a
    // `ChatRuntimeError` with the diagnostic's code when it is invalid.
    #[wasm_bindgen(js_name = registerTool, skip_typescript, skip_jsdoc)]
    pub fn register_tool(&self, tool: JsFrontendTool) -> Result<(), Error> {
        self.driver.check_live()?;
        let tool: JsValue = tool.into();
        let handler = function(host(&tool, "handler"), "handler")?
            .ok_or_else(|| options_error("a registered tool needs a `handler` function"))?;
        let name = string(&tool, "name")?.unwrap_or_default();
        // The options as JSON, checked in the core by the manifest's rules (`tool/bad-option`
        // with `toolName`).
        let options = json_members(
            &tool,
            &["followUp", "timeoutMs", "defaultEnabled"],
            "tool/bad-option",
        )
        .map_err(|e| e.with("toolName", name.as_str()))?;
        self.driver.register_tool(
            &name,
            &string(&tool, "description")?.unwrap_or_default(),
            member(&tool, "parameters", "options/invalid")?,
            handler,
            &options,
        )
    }

    // Removes a code-registered tool. Returns whether there was one.
    #[wasm_bindgen(js_name = unregisterTool, skip_typescript, skip_jsdoc)]
    pub fn unregister_tool(&self, name: JsValue) -> Result<bool, Error> {
        self.driver.check_live()?;
        Ok(self.driver.unregister_tool(&tool_name(&name)))
    }

    // Sets the agent's own tools (its `capabilities.tools`, an array or `{ items }`): listed,
    // locked, always on.
    #[wasm_bindgen(js_name = setBackendTools, skip_typescript, skip_jsdoc)]
    pub fn set_backend_tools(&self, tools: JsBackendTools) -> Result<(), Error> {
        self.driver.check_live()?;
        let tools: JsValue = tools.into();
        // `agent.capabilities?.tools` may be `undefined`: no backend tools, as `null`.
        let tools: Value = if tools.is_undefined() {
            Value::Null
        } else {
            from_js(&tools)?
        };
        self.driver.set_backend_tools(&tools);
        Ok(())
    }

    // The tool selector's rows for a thread (`null`: a new chat): frontend tools with their
    // toggle, then the locked backend tools.
    #[wasm_bindgen(js_name = listTools, skip_typescript, skip_jsdoc)]
    pub fn list_tools(&self, thread_id: Option<JsThreadIdOrNull>) -> Result<JsToolEntries, Error> {
        self.driver.check_live()?;
        let thread_id = toggles_thread(thread_id.map(JsValue::from))?;
        Ok(self
            .driver
            .list_tools(thread_id.as_deref())?
            .unchecked_into())
    }

    // Turns a frontend tool on or off for a thread (`null`: the default for new chats), saved in
    // `localStorage` under `chat:tools:{threadId}`. Backend tools are locked (`tools/locked`).
    #[wasm_bindgen(js_name = setToolEnabled, skip_typescript, skip_jsdoc)]
    pub fn set_tool_enabled(
        &self,
        thread_id: Option<JsThreadIdOrNull>,
        name: JsValue,
        enabled: bool,
    ) -> Result<(), Error> {
        self.driver.check_live()?;
        let thread_id = toggles_thread(thread_id.map(JsValue::from))?;
        self.driver
            .set_tool_enabled(thread_id, &tool_name(&name), enabled)
    }

    // The tool schemas a run of this thread would send (the enabled frontend tools).
    #[wasm_bindgen(js_name = activeTools, skip_typescript, skip_jsdoc)]
    pub fn active_tools(
        &self,
        thread_id: Option<JsThreadIdOrNull>,
    ) -> Result<JsToolSchemas, Error> {
        self.driver.check_live()?;
        let thread_id = toggles_thread(thread_id.map(JsValue::from))?;
        Ok(self
            .driver
            .active_tools(thread_id.as_deref())?
            .unchecked_into())
    }

    // Seeds a loaded thread's history (refused with `run/busy` while it runs).
    #[wasm_bindgen(js_name = setMessages, skip_typescript, skip_jsdoc)]
    pub fn set_messages(&self, thread_id: JsThreadId, messages: JsMessages) -> Result<(), Error> {
        self.driver.check_live()?;
        let thread_id = thread_id_for_write(&thread_id.into())?;
        let messages: Vec<Message> = from_js(&messages.into())?;
        self.driver.set_messages(&thread_id, messages)
    }

    // Drops the thread from memory (messages, state, interrupts, its mirror) and keeps its
    // toggles; `run/busy` while it runs; `false` when there was nothing to drop.
    #[wasm_bindgen(js_name = forgetThread, skip_typescript, skip_jsdoc)]
    pub fn forget_thread(&self, thread_id: JsThreadId) -> Result<bool, Error> {
        self.driver.check_live()?;
        // An id no thread can have has nothing to drop.
        match thread_id_arg(&thread_id.into()) {
            Ok(thread_id) => self.driver.forget_thread(&thread_id),
            Err(_) => Ok(false),
        }
    }

    // The backend the runtime was made for, `"agui"` or `"coder"` (the `backend` option): for
    // code handed a runtime it did not make (the React adapter's `runtime` prop). A fact of the
    // options, so it is read after `free()` too, where the methods throw `runtime/freed`.
    #[wasm_bindgen(getter, skip_typescript, skip_jsdoc)]
    pub fn backend(&self) -> JsValue {
        // A `JsValue` made here, not a `String`: the glue then has nothing to copy and free.
        JsValue::from_str(if self.driver.is_coder() {
            "coder"
        } else {
            "agui"
        })
    }

    // The thread's messages (none for an unknown thread, or an id no thread can have).
    #[wasm_bindgen(skip_typescript, skip_jsdoc)]
    pub fn messages(&self, thread_id: JsThreadId) -> Result<JsMessages, Error> {
        Ok(self.read(thread_id, ThreadRead::Messages)?.unchecked_into())
    }

    // The thread's AG-UI state (`STATE_SNAPSHOT` / `STATE_DELTA`), `undefined` for an unknown
    // thread.
    #[wasm_bindgen(skip_typescript, skip_jsdoc)]
    pub fn state(&self, thread_id: JsThreadId) -> Result<JsUnknown, Error> {
        Ok(self.read(thread_id, ThreadRead::State)?.unchecked_into())
    }

    // The thread's open interrupts, as the server sent them (`RUN_FINISHED.outcome.interrupts`);
    // the next `run` answers each in `resume`. None for an unknown thread.
    #[wasm_bindgen(skip_typescript, skip_jsdoc)]
    pub fn interrupts(&self, thread_id: JsThreadId) -> Result<JsInterrupts, Error> {
        Ok(self
            .read(thread_id, ThreadRead::Interrupts)?
            .unchecked_into())
    }

    // The thread's calls that a run with `pending: "run"` runs: those of its last assistant
    // message without a result that no open interrupt holds. None for an unknown thread.
    #[wasm_bindgen(js_name = pendingCalls, skip_typescript, skip_jsdoc)]
    pub fn pending_calls(&self, thread_id: JsThreadId) -> Result<JsValue, Error> {
        self.read(thread_id, ThreadRead::PendingCalls)
    }

    // Whether a run is going on in the thread.
    #[wasm_bindgen(js_name = isRunning, skip_typescript, skip_jsdoc)]
    pub fn is_running(&self, thread_id: JsThreadId) -> Result<bool, Error> {
        self.driver.check_live()?;
        Ok(thread_id_arg(&thread_id.into()).is_ok_and(|id| self.driver.is_running(&id)))
    }

    // Sends the thread's new messages and drives the loop until the agent answers without
    // needing the browser. Resolves with a `RunResult` for every ending (completed, aborted,
    // max_rounds, error, interrupted); rejects only for programmer errors (`run/busy`, a malformed request,
    // a `resume` that does not answer the open interrupts or is off their schema).
    #[wasm_bindgen(skip_typescript, skip_jsdoc)]
    pub fn run(&self, request: JsRunRequest, options: Option<JsRunOptions>) -> JsRunPromise {
        match self.start(
            request.into(),
            options.map_or(JsValue::UNDEFINED, JsValue::from),
        ) {
            Ok(promise) => promise,
            Err(error) => Promise::reject(&error.into()),
        }
        .unchecked_into()
    }

    // Aborts the thread's run: the fetch is cancelled, the handlers' `signal` fires, nothing
    // restarts, and unanswered calls get an `INTERRUPTED` result.
    #[wasm_bindgen(skip_typescript, skip_jsdoc)]
    pub fn abort(&self, thread_id: JsThreadId) -> Result<(), Error> {
        self.driver.check_live()?;
        // An id no thread can have has nothing to stop.
        if let Ok(thread_id) = thread_id_arg(&thread_id.into()) {
            self.driver.abort(&thread_id);
        }
        Ok(())
    }

    // `free()`: stops every run (each `run()` resolves `aborted`, handlers' signals fire, nothing
    // more is sent or called) and lets go of listeners, handlers and modules. Every method then
    // throws `runtime/freed`; calling `free` again does nothing. scripts/merge-package.mjs makes
    // the glue's `free()` call this instead of destroying the object, which would leave later
    // calls failing with a plain "null pointer passed to rust" (wasm-bindgen keeps its own `free`
    // when a method has that name); the Rust object itself is released when JavaScript collects
    // the runtime (wasm-bindgen's `FinalizationRegistry`, then `Drop`).
    #[wasm_bindgen(js_name = __free, skip_typescript, skip_jsdoc)]
    pub fn free_runtime(&self) {
        self.driver.free();
    }

    // Calls `listener` with every `RuntimeEvent`, or with the types listed in
    // `options.events` (e.g. `["messages", "run_finished"]`: events nobody asked for are never
    // converted to JS, which matters for the per-token `agui` events of a long stream). Returns
    // the function that unsubscribes. A listener that throws is reported on the console and does
    // not disturb the run.
    #[wasm_bindgen(skip_typescript, skip_jsdoc)]
    pub fn subscribe(
        &self,
        listener: JsListener,
        options: Option<JsSubscribeOptions>,
    ) -> Result<JsUnsubscribe, Error> {
        self.driver.check_live()?;
        let listener = function(listener.into(), "listener")?
            .ok_or_else(|| options_error("subscribe needs a function"))?;
        let options = options.map_or(JsValue::UNDEFINED, JsValue::from);
        let events = if options.is_object() {
            member(&options, "events", "options/invalid")?
        } else {
            None
        };
        Ok(self.driver.subscribe(listener, events).unchecked_into())
    }
}

impl ChatRuntime {
    /// `messages`, `state` or `interrupts` (one copy of the three): an id no thread can have
    /// reads as an unknown thread.
    fn read(&self, thread_id: JsThreadId, what: ThreadRead) -> Result<JsValue, Error> {
        self.driver.check_live()?;
        let thread_id = thread_id_arg(&thread_id.into()).ok();
        self.driver.read(thread_id.as_deref(), what)
    }

    fn start(&self, request: JsValue, options: JsValue) -> Result<Promise, Error> {
        self.driver.check_live()?;
        if !request.is_object() {
            return Err(Error::new(
                "run/bad-request",
                "the request must be an object with a `threadId`",
            ));
        }
        let thread_id = host(&request, "threadId");
        // With the coder backend no thread id (absent, `null`, `""`) is a new chat.
        let new_chat = self.driver.is_coder()
            && (thread_id.is_undefined() || thread_id.is_null() || thread_id == "");
        let thread_id = if new_chat {
            String::new()
        } else {
            thread_id_arg(&thread_id).map_err(|m| {
                field_error(
                    "run/bad-request",
                    "threadId",
                    format!("`threadId`: {m}").into(),
                )
            })?
        };
        let request =
            RunInput::from_json(json_members(&request, RUN_REQUEST_KEYS, "run/bad-request")?)?
                .into_request(thread_id, super::browser::wall_clock());
        let signal = if options.is_object() {
            host(&options, "signal")
        } else {
            JsValue::UNDEFINED
        };
        let signal = if signal.is_undefined() || signal.is_null() {
            None
        } else {
            Some(
                signal
                    .dyn_into::<web_sys::AbortSignal>()
                    .map_err(|_| invalid("signal", "`signal` must be an AbortSignal"))?,
            )
        };
        self.driver.run(request, signal)
    }
}

impl Drop for ChatRuntime {
    fn drop(&mut self) {
        self.driver.free();
    }
}

/// A tool name argument, exactly (a backend tool's name may hold a lone surrogate or U+10FFFF,
/// which a `&str` argument would lose or misread); anything but a string names no tool.
fn tool_name(name: &JsValue) -> String {
    string_from_js(name).unwrap_or_default()
}

/// A per-runtime id prefix (random bits and the clock's low bits): with the session's counter it
/// makes run and tool-message ids unique across tabs and reloads.
fn random_prefix() -> String {
    let random = (super::browser::random() * 4_294_967_296.0) as u64;
    let now = super::browser::wall_clock().unwrap_or_default();
    format!("{:08x}{:04x}", random, now & 0xffff)
}
