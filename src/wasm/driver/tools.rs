//! Tools and toggles: `tools.json`, code-registered tools and backend tools into the catalog, and
//! the per-thread toggles, whose storage is read before and written after each call with no
//! borrow held (the app's `getItem` and `setItem` may call back into the runtime).

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::{take_call, Driver};
use crate::json::Value;
use crate::protocol::wire::ObjWriter;
use crate::session::{RuntimeEvent, ToolSet};
use crate::tools::catalog::{check_manifest_status, parse_manifest, ManifestContext};
use crate::tools::toggles::ThreadKey;
use crate::tools::{list_tools, set_tool_enabled, Diagnostic};
use crate::wasm::browser;
use crate::wasm::convert::{parse, to_js};
use crate::wasm::error::Error;
use crate::wasm::io::http;
use crate::wasm::io::IoError;

impl Driver {
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
        let fetch_failed = |failure: IoError| {
            let error = Error::from(crate::tools::catalog::CatalogError::Fetch {
                status: http::thrown_status(&failure),
                message: crate::wasm::convert::io_message(&failure),
            });
            let cause = failure.cause();
            if cause.is_undefined() {
                error
            } else {
                error.with("cause", cause)
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
            Err(error) => Err(error),
        }
        .map_err(fetch_failed)?;
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
                if let Some(running) = state.running_mut(thread_id) {
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
    pub(super) fn load_toggles(&self, thread_id: Option<&str>) {
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
    pub(super) fn save_toggles(&self) {
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
    pub(super) fn emit_toggle_diagnostics(&self) {
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
    pub(super) fn storage_changed(&self, key: Option<&str>, value: Option<&str>) {
        let changed = self.borrow_mut().toggles.handle_storage_event(key, value);
        self.emit_toggle_diagnostics();
        let thread_id = match changed {
            None => return,
            Some(ThreadKey::Thread(id)) => Some(id),
            Some(_) => None,
        };
        self.emit(&[RuntimeEvent::TogglesChanged { thread_id }]);
    }
}
