//! A size probe, not part of the package (`scripts/size-probe.sh` copies it into a scratch copy of
//! the crate as `src/wasm/probe.rs`, in place of `class.rs`, `driver/` and `io/`): the core behind
//! a thin JSON-in / JSON-out export, as it would be if the I/O driver (fetch, streams, timers,
//! signals, listeners, module import, storage) were JavaScript. Every core entry point the driver
//! uses is reachable from here, so what the build keeps is the core and a minimal boundary.
#![allow(missing_docs, dead_code)]

use wasm_bindgen::prelude::*;

use super::browser::BrowserUrl;
use super::convert::{parse, thread_id};
use super::error::Error;
use crate::json::Value;
use crate::protocol::event::{Context, Message, ResumeEntry};
use crate::protocol::wire::{Fields, FromJson, ObjWriter, ToJson};
use crate::session::{Action, HistoryMode, Pending, RunRequest, Session, SessionConfig, ToolSet};
use crate::tools::catalog::{check_manifest_status, parse_manifest, Catalog, ManifestContext};
use crate::tools::outcome::{FailureCode, ToolFailure, ToolOutcome};
use crate::tools::pattern::Patterns;
use crate::tools::toggles::{DeferredStore, StoreError, ThreadKey, Toggles};
use crate::tools::{list_tools, set_tool_enabled, TimeLimit, ToolHandler};

#[wasm_bindgen]
pub struct Core {
    session: Session,
    catalog: Catalog,
    toggles: Toggles<DeferredStore>,
}

fn bad(code: &'static str, e: crate::protocol::wire::FieldError) -> Error {
    Error::new(code, format!("`{}`: {}", e.path, e.message))
}

fn json(text: &str, code: &'static str) -> Result<Value, Error> {
    crate::json::parse(text).map_err(|e| Error::new(code, e.to_string()))
}

#[wasm_bindgen]
impl Core {
    /// `options`: the JSON of the plain options (functions stay in JS).
    #[wasm_bindgen(constructor)]
    pub fn new(options: &str) -> Result<Core, Error> {
        let mut f = Fields::of(json(options, "options/invalid")?)
            .map_err(|e| bad("options/invalid", e))?;
        let defaults = SessionConfig::default();
        let run_url: String = f.get("runUrl");
        let history: Option<String> = f.get("history");
        let headers: Option<crate::json::Map> = f.get("headers");
        let max_rounds: Option<u64> = f.get("maxRounds");
        let tool_timeout_ms: Option<u64> = f.get("toolTimeoutMs");
        let max_bytes: Option<u64> = f.get("maxToolResultBytes");
        let prefix: Option<String> = f.get("toolNamePrefix");
        f.check().map_err(|e| bad("options/invalid", e))?;
        let history = match history.as_deref() {
            None | Some("full") => HistoryMode::Full,
            Some("new") => HistoryMode::New,
            Some(_) => return Err(Error::new("options/invalid", "`history`")),
        };
        let mut pairs = Vec::new();
        for (name, value) in headers.unwrap_or_default() {
            let value = value
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| Error::new("options/invalid", format!("header `{name}`")))?;
            pairs.push((name, value));
        }
        let config = SessionConfig {
            run_url,
            max_tool_result_bytes: max_bytes.map_or(defaults.max_tool_result_bytes, |n| n as usize),
            history,
            max_rounds: max_rounds.map_or(defaults.max_rounds, |n| n as u32),
            tool_timeout_ms: tool_timeout_ms.map_or(defaults.tool_timeout_ms, |n| n as u32),
            max_event_bytes: defaults.max_event_bytes,
            headers: pairs,
            max_reconnects: defaults.max_reconnects,
            reconnect_delay_ms: defaults.reconnect_delay_ms,
            coder: None,
        };
        let catalog = match prefix {
            Some(p) => Catalog::with_prefix(&p)?,
            None => Catalog::new(),
        };
        Ok(Core {
            session: Session::new(config, random_prefix(), Box::new(Patterns::new())),
            catalog,
            toggles: Toggles::new(DeferredStore::default()),
        })
    }

    /// tools.json fetched by JS: status, final URL, content type, body; returns the diagnostics.
    #[wasm_bindgen(js_name = setManifest)]
    pub fn set_manifest(
        &mut self,
        status: u16,
        url: String,
        content_type: Option<String>,
        body: &[u8],
        page_origin: String,
        allowed: &str,
    ) -> Result<String, Error> {
        check_manifest_status(status, &url)?;
        let allowed: Vec<String> = Vec::from_json(json(allowed, "options/invalid")?)
            .map_err(|e| bad("options/invalid", e))?;
        let context = ManifestContext {
            manifest_url: url,
            page_origin,
            allowed_import_origins: allowed,
        };
        let manifest = parse_manifest(body, content_type.as_deref(), &context, &BrowserUrl)?;
        let mut diagnostics = manifest.diagnostics;
        diagnostics.extend(self.catalog.set_manifest(manifest.tools));
        Ok(diagnostics.to_json_string())
    }

    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(
        &mut self,
        name: &str,
        description: &str,
        parameters: Option<String>,
        follow_up: Option<bool>,
        timeout: Option<f64>,
        no_timeout: bool,
        default_enabled: bool,
    ) -> Result<(), Error> {
        let parameters = match parameters {
            Some(p) => Some(json(&p, "tool/invalid")?),
            None => None,
        };
        let time_limit = match (timeout, no_timeout) {
            (_, true) => TimeLimit::Never,
            (Some(ms), _) => TimeLimit::Ms(ms as u32),
            _ => TimeLimit::Default,
        };
        self.catalog
            .register(name, description, parameters, follow_up, time_limit, default_enabled)
            .map_err(|d| Error::new(d.code, d.message).with("toolName", name))
    }

    #[wasm_bindgen(js_name = unregisterTool)]
    pub fn unregister_tool(&mut self, name: &str) -> bool {
        self.catalog.unregister(name)
    }

    #[wasm_bindgen(js_name = setBackendTools)]
    pub fn set_backend_tools(&mut self, tools: &str) -> Result<String, Error> {
        let tools = json(tools, "options/invalid")?;
        Ok(self.catalog.set_backend_tools(&tools).to_json_string())
    }

    /// The storage keys JS must read (and hand in with `supply`) before a toggles call.
    #[wasm_bindgen(js_name = keysToLoad)]
    pub fn keys_to_load(&self, thread: Option<String>) -> String {
        self.toggles.keys_to_load(thread.as_deref()).to_json_string()
    }

    pub fn supply(&mut self, key: &str, value: Option<String>, error: Option<String>) {
        let read = match error {
            Some(e) => Err(StoreError(e)),
            None => Ok(value),
        };
        self.toggles.supply(key, read);
    }

    /// The queued storage writes, `[[key, value, name|null], ...]`.
    #[wasm_bindgen(js_name = takeWrites)]
    pub fn take_writes(&mut self) -> String {
        let writes = std::mem::take(&mut self.toggles.store_mut().writes);
        let mut out = String::from("[");
        for (i, (key, value, name)) in writes.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('[');
            key.write_json(&mut out);
            out.push(',');
            value.write_json(&mut out);
            out.push(',');
            name.write_json(&mut out);
            out.push(']');
        }
        out.push(']');
        out
    }

    #[wasm_bindgen(js_name = writeFailed)]
    pub fn write_failed(&mut self, key: &str, name: Option<String>, error: String) {
        self.toggles.write_failed(key, name.as_deref(), StoreError(error));
    }

    #[wasm_bindgen(js_name = storageEvent)]
    pub fn storage_event(&mut self, key: Option<String>, value: Option<String>) -> JsValue {
        match self.toggles.handle_storage_event(key.as_deref(), value.as_deref()) {
            None => JsValue::FALSE,
            Some(ThreadKey::Thread(id)) => JsValue::from(id),
            Some(_) => JsValue::NULL,
        }
    }

    #[wasm_bindgen(js_name = pollDiagnostics)]
    pub fn poll_diagnostics(&mut self) -> String {
        let mut all = Vec::new();
        while let Some(d) = self.toggles.poll_diagnostic() {
            all.push(d);
        }
        all.to_json_string()
    }

    #[wasm_bindgen(js_name = listTools)]
    pub fn list_tools(&mut self, thread: Option<String>) -> String {
        list_tools(&self.catalog, &mut self.toggles, thread.as_deref()).to_json_string()
    }

    #[wasm_bindgen(js_name = setToolEnabled)]
    pub fn set_tool_enabled(
        &mut self,
        thread: Option<String>,
        name: &str,
        enabled: bool,
    ) -> Result<(), Error> {
        set_tool_enabled(&self.catalog, &mut self.toggles, thread.as_deref(), name, enabled)
            .map_err(|e| Error::new(e.code(), e.to_string()).with("toolName", name))
    }

    #[wasm_bindgen(js_name = activeTools)]
    pub fn active_tools(&mut self, thread: Option<String>) -> String {
        ToolSet::for_thread(&self.catalog, &mut self.toggles, thread.as_deref())
            .wire
            .to_json_string()
    }

    #[wasm_bindgen(js_name = setMessages)]
    pub fn set_messages(&mut self, thread: &str, messages: &str) -> Result<(), Error> {
        let messages: Vec<Message> = Vec::from_json(json(messages, "messages/invalid")?)
            .map_err(|e| bad("messages/invalid", e))?;
        Ok(self.session.set_messages(thread, messages)?)
    }

    /// 0 messages, 1 interrupts, 2 state.
    pub fn read(&self, thread: &str, what: u8) -> Option<String> {
        match what {
            0 => Some(self.session.messages(thread).to_json_string()),
            1 => Some(self.session.interrupts(thread).to_json_string()),
            _ => self.session.state(thread).map(|s| s.to_json_string()),
        }
    }

    #[wasm_bindgen(js_name = isRunning)]
    pub fn is_running(&self, thread: &str) -> bool {
        self.session.is_running(thread)
    }

    /// `request`: the JSON of the run request (threadId checked by JS's `thread_id`).
    #[wasm_bindgen(js_name = startRun)]
    pub fn start_run(&mut self, thread: JsValue, request: &str, now_ms: f64) -> Result<(), Error> {
        let thread_id = thread_id(&thread).map_err(|m| Error::new("run/bad-request", m))?;
        let mut f =
            Fields::of(json(request, "run/bad-request")?).map_err(|e| bad("run/bad-request", e))?;
        let messages: Vec<Message> = f.get_or_default("messages");
        let context: Vec<Context> = f.get_or_default("context");
        let resume: Vec<ResumeEntry> = f.get_or_default("resume");
        let state: Option<Value> = f.get("state");
        let forwarded_props: Option<Value> = f.get("forwardedProps");
        let pending: Option<String> = f.get("pending");
        f.check().map_err(|e| bad("run/bad-request", e))?;
        let request = RunRequest {
            thread_id: thread_id.clone(),
            messages,
            context,
            state,
            forwarded_props,
            resume,
            now_ms: Some(now_ms as u64),
            pending: match pending.as_deref() {
                None | Some("settle") => Pending::Settle,
                Some("run") => Pending::Run,
                Some(_) => return Err(Error::new("run/bad-request", "`pending`")),
            },
        };
        self.toggles.begin_run(&thread_id);
        let tools = ToolSet::for_thread(&self.catalog, &mut self.toggles, Some(&thread_id));
        Ok(self.session.start_run(request, tools)?)
    }

    pub fn abort(&mut self, thread: &str) {
        self.session.abort(thread);
    }

    #[wasm_bindgen(js_name = setAguiEvents)]
    pub fn set_agui_events(&mut self, on: bool) {
        self.session.set_agui_events(on);
    }

    /// The next action as JSON (`{"kind":"send",...}`); `None` when there is none.
    #[wasm_bindgen(js_name = pollAction)]
    pub fn poll_action(&mut self, now: f64) -> Option<String> {
        let action = self.session.poll_action(now as u64)?;
        let mut out = String::new();
        let mut w = ObjWriter::new(&mut out);
        match action {
            Action::Send {
                thread_id,
                run_id,
                url,
                headers,
                body,
            } => {
                w.field("kind", "send");
                w.field("threadId", &thread_id);
                w.field("runId", &run_id);
                w.field("url", &url);
                let headers: Vec<Vec<String>> =
                    headers.into_iter().map(|(k, v)| vec![k, v]).collect();
                w.field("headers", &headers);
                w.field("body", &body);
            }
            Action::Reconnect {
                thread_id,
                run_id,
                last_event_id,
                delay_ms,
            } => {
                w.field("kind", "reconnect");
                w.field("threadId", &thread_id);
                w.field("runId", &run_id);
                w.field("lastEventId", &last_event_id);
                w.field("delayMs", &delay_ms);
            }
            Action::Execute(job) => {
                w.field("kind", "execute");
                w.field("threadId", &job.thread_id);
                w.field("runId", &job.run_id);
                w.field("toolCallId", &job.tool_call_id);
                w.field("toolName", &job.tool.name);
                if let ToolHandler::Module { url, entrypoint } = &job.tool.handler {
                    w.field("url", url);
                    w.field("entrypoint", entrypoint);
                }
                w.field("args", &job.args);
                w.field("timeoutMs", &job.timeout_ms);
            }
            Action::Cancel { thread_id } => {
                w.field("kind", "cancel");
                w.field("threadId", &thread_id);
            }
            Action::CancelCall {
                thread_id,
                tool_call_id,
            } => {
                w.field("kind", "cancelCall");
                w.field("threadId", &thread_id);
                w.field("toolCallId", &tool_call_id);
            }
            Action::Emit(event) => {
                w.field("kind", "emit");
                w.field("event", &event);
            }
            Action::Finished(result) => {
                w.field("kind", "finished");
                let mut text = String::new();
                result.write_json_with(&mut text, true, false);
                w.field("result", &json(&text, "x").unwrap_or(Value::Null));
            }
            _ => {}
        }
        w.end();
        Some(out)
    }

    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.session.poll_timeout().map(|t| t as f64)
    }

    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self, now: f64) {
        self.session.handle_timeout(now as u64);
    }

    #[wasm_bindgen(js_name = handleResponse)]
    pub fn handle_response(
        &mut self,
        thread: &str,
        run: &str,
        status: u16,
        content_type: Option<String>,
        error_body: Option<String>,
    ) {
        self.session
            .handle_response(thread, run, status, content_type.as_deref(), error_body.as_deref());
    }

    #[wasm_bindgen(js_name = handleBytes)]
    pub fn handle_bytes(&mut self, thread: &str, run: &str, bytes: &[u8]) {
        self.session.handle_bytes(thread, run, bytes);
    }

    #[wasm_bindgen(js_name = handleBodyEnd)]
    pub fn handle_body_end(&mut self, thread: &str, run: &str) {
        self.session.handle_body_end(thread, run);
    }

    #[wasm_bindgen(js_name = handleTransportError)]
    pub fn handle_transport_error(&mut self, thread: &str, run: &str, message: &str, status: Option<u16>) {
        self.session.handle_transport_error(thread, run, message, status);
    }

    #[wasm_bindgen(js_name = handleRequestError)]
    pub fn handle_request_error(&mut self, thread: &str, run: &str, message: &str) {
        self.session
            .handle_request_error(thread, run, "run/prepare", message, None);
    }

    #[wasm_bindgen(js_name = beginCall)]
    pub fn begin_call(&mut self, thread: &str, id: &str) -> bool {
        self.session.begin_call(thread, id)
    }

    #[wasm_bindgen(js_name = mayCall)]
    pub fn may_call(&self, thread: &str, id: &str) -> bool {
        self.session.may_call(thread, id)
    }

    #[wasm_bindgen(js_name = currentRunId)]
    pub fn current_run_id(&self, thread: &str) -> Option<String> {
        self.session.current_run_id(thread).map(str::to_owned)
    }

    /// `result`: the handler's value as JSON text (JS's `JSON.stringify`), or `failure` (code
    /// 0 load, 1 execution, 2 not JSON) with its message.
    #[wasm_bindgen(js_name = toolResult)]
    pub fn tool_result(
        &mut self,
        thread: &str,
        id: &str,
        result: Option<String>,
        failure: u8,
        message: String,
    ) {
        let outcome = match result {
            Some(text) => match crate::json::parse(&text) {
                Ok(v) => ToolOutcome::Value(v),
                Err(e) => ToolOutcome::Failed(ToolFailure::new(
                    FailureCode::ToolExecutionFailed,
                    e.to_string(),
                )),
            },
            None => ToolOutcome::Failed(ToolFailure::new(
                match failure {
                    0 => FailureCode::ToolLoadFailed,
                    _ => FailureCode::ToolExecutionFailed,
                },
                message,
            )),
        };
        self.session.handle_tool_result(thread, id, outcome);
    }

    /// The thread's changed messages since the last call: `{all, positions, messages: [...]}`.
    #[wasm_bindgen(js_name = takeChanged)]
    pub fn take_changed(&mut self, thread: &str) -> Option<String> {
        let state = self.session.take_state_changed(thread);
        let changed = self.session.take_changed_positions(thread);
        if changed.is_none() && !state {
            return None;
        }
        let mut out = String::new();
        let mut w = ObjWriter::new(&mut out);
        if state {
            w.field("state", &self.session.state(thread));
        }
        if let Some(changed) = changed {
            let all = self.session.messages(thread);
            let picked: Vec<&Message> = changed.positions.iter().filter_map(|&i| all.get(i)).collect();
            w.field("all", &changed.all);
            w.field("len", &changed.len);
            w.field("positions", &changed.positions);
            w.field("messages", &picked);
        }
        w.end();
        Some(out)
    }
}

fn random_prefix() -> String {
    let random = (js_sys::Math::random() * 4_294_967_296.0) as u64;
    let now = js_sys::Date::now() as u64;
    format!("{:08x}{:04x}", random, now & 0xffff)
}

/// Keeps `parse` (JSON text to a JS value) in, as the real boundary would use it.
#[wasm_bindgen(js_name = parseJson)]
pub fn parse_json(text: &str) -> Result<JsValue, Error> {
    parse(text)
}
