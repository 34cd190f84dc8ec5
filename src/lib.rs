//! # chat-runtime
//!
//! Frontend tools for AG-UI chat apps. The crate has a sans-IO core that builds and tests natively,
//! and a thin WebAssembly adapter (`wasm/`, only on `wasm32`) that exposes it to JavaScript.
//!
//! - [`protocol`]: the AG-UI 1.0 wire protocol: the `text/event-stream` decoder, the event types,
//!   chunk expansion, ordering rules, the thread reducer and the `RunAgentInput` builder.
//!
//! The core never does I/O and never reads a clock: bytes and values go in, events and messages come out.

pub mod hash;
pub mod http;
pub mod json;
pub mod protocol;
pub mod session;
pub(crate) mod sort;
pub mod sorted;
pub(crate) mod text;
pub mod thread_id;
pub mod tools;

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
