//! The AG-UI 1.0 protocol core: sans-IO, no JavaScript dependencies.

pub mod chunks;
pub mod decode;
pub mod event;
pub mod input;
pub mod sse;
pub mod thread;
pub mod verify;
pub mod wire;
