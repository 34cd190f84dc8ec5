//! # chat-runtime
//!
//! Frontend tools for AG-UI chat apps. The crate has a sans-IO core that builds and tests natively,
//! and a thin WebAssembly adapter (`wasm/`, only on `wasm32`) that exposes it to JavaScript.
//!
//! The core (everything but `wasm`):
//! - [`protocol`]: the AG-UI 1.0 wire protocol: the `text/event-stream` decoder, the event types,
//!   chunk expansion, ordering rules, the thread reducer and the `RunAgentInput` builder.
//! - `coder` (the `coder` feature): the Coder chat backend: its wire types, the stream's translation into the
//!   thread's events, and the results submission.
//! - [`options`]: the app's options (constructor and run), their defaults and limits.
//! - [`session`]: the execute-and-restart loop as a state machine over every thread of a runtime.
//! - [`tools`]: the tool catalog, argument validation, JSON Schema patterns, per-thread toggles.
//! - [`json`]: the crate's one JSON value, parser, writer and patch.
//! - [`http`]: what a run's or `tools.json`'s status, headers and body mean.
//! - [`thread_id`]: which thread ids are accepted and how one becomes a URL segment.
//! - `lean` (private): smaller replacements for parts of `std`, each with its measured reason.
//!
//! The boundary (`wasm`, only on `wasm32`) converts between JavaScript and the core, does the I/O
//! and drives the session; it holds no policy.
//!
//! The core never does I/O and never reads a clock: bytes and values go in, events and messages come out.

#[cfg(feature = "coder")]
pub mod coder;
pub mod http;
pub mod json;
mod lean;
pub mod options;
pub mod protocol;
pub mod session;
pub mod thread_id;
pub mod tools;

pub use lean::sorted::{SortedMap, SortedSet};

#[cfg(target_arch = "wasm32")]
mod wasm;

/// The JavaScript-facing runtime (only on `wasm32`): also usable from Rust code running in a
/// browser, and how `tests/web.rs` drives it.
#[cfg(target_arch = "wasm32")]
pub use wasm::{ChatRuntime, Error as ChatRuntimeError};

/// The allocator of the wasm build: talc instead of the standard library's dlmalloc, 2.7 KB gzip
/// smaller (README, "Dependencies"). Single-threaded wasm only, which is what the package is.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
