//! Listeners: `subscribe` and its unsubscribe function, and events sent to the listeners that want
//! them (copied out first, so a listener may subscribe or unsubscribe while it is called).

use std::rc::Rc;

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::{upgrade, Driver, EventFilter};
use crate::session::RuntimeEvent;
use crate::wasm::browser;
use crate::wasm::convert::to_js;
use crate::wasm::error;

impl Driver {
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
    pub(super) fn sync_agui_events(&self) {
        let state = &mut *self.borrow_mut();
        let on = state
            .listeners
            .iter()
            .any(|(_, _, filter)| wants(filter, "agui"));
        state.session.set_agui_events(on);
    }

    /// The listeners, copied out so a listener may subscribe or unsubscribe while being called.
    pub(super) fn listeners(&self) -> Vec<(Function, EventFilter)> {
        self.borrow()
            .listeners
            .iter()
            .map(|(_, f, filter)| (f.clone(), filter.clone()))
            .collect()
    }

    /// Sends each event to the listeners that want it, all converted with one `JSON.parse`. An
    /// event no listener wants is never converted.
    pub(super) fn emit(&self, events: &[RuntimeEvent]) {
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
                error::promote_member(&value, &JsValue::UNDEFINED);
            }
            deliver(&listeners, event.kind(), &value);
        }
    }
}

/// Whether a listener with `filter` gets events of `kind`. Without a filter: every type but
/// `agui`, which is opt-in (one object per streamed token is the slow path; a UI renders from
/// `messages`).
pub(super) fn wants(filter: &EventFilter, kind: &str) -> bool {
    match filter {
        Some(types) => types.iter().any(|t| t == kind),
        None => kind != "agui",
    }
}

/// Calls each listener that wants `kind` with `value`; one that throws is reported and skipped.
pub(super) fn deliver(listeners: &[(Function, EventFilter)], kind: &str, value: &JsValue) {
    for (listener, filter) in listeners {
        if !wants(filter, kind) {
            continue;
        }
        if let Err(error) = listener.call1(&JsValue::UNDEFINED, value) {
            browser::console_error("chat-runtime: a subscriber threw", &error);
        }
    }
}
