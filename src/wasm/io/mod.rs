//! Plain async I/O for the driver: HTTP, tool modules and handlers, storage. Each function takes
//! values and returns values; none sees the session or the driver's state, so none can hold a
//! borrow while the app's JavaScript (its `fetch`, `importModule`, handlers, `storage`) runs.

pub(crate) mod http;
pub(crate) mod storage;
pub(crate) mod tools;
