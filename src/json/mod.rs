//! A small JSON value, parser and writer: the crate's only JSON layer.
//!
//! Why not serde: serde's per-type (de)serializers were most of the `.wasm` (about 370 KiB of
//! 890 KiB before `wasm-opt`, measured with `twiggy`), and every event type paid for them. This
//! module is one parser and one writer for one [`Value`] type; typed data is read from and written
//! to it by hand ([`crate::protocol::wire`]).
//!
//! Semantics follow the browser's `JSON.parse` / `JSON.stringify`, which are what an AG-UI client
//! compares against:
//! - Objects keep their keys in the order they were written ([`Map`] is an ordered list); a
//!   repeated key keeps its first position and its last value, as `JSON.parse` does.
//! - Numbers keep their text ([`Number`]): nothing is rounded through `f64` on the way through,
//!   so `JSON.parse` of what we write gives exactly what `JSON.parse` of the input gave.
//! - Strings are JS strings: a lone UTF-16 surrogate survives the round trip (below).
//! - Strings are written escaped as `JSON.stringify` escapes them (`"`, `\`, control characters,
//!   and lone surrogates as `\udXXX`).
//!
//! # Lone surrogates: the internal form of strings
//!
//! A JS string is a sequence of UTF-16 code units, and `JSON.parse` keeps a lone surrogate escape
//! (`"\ud83d"`) as a lone code unit. AG-UI servers written in JS cut streamed deltas by code unit,
//! so a `TEXT_MESSAGE_CONTENT` or `TOOL_CALL_ARGS` delta may end between the two halves of an
//! emoji (`"\ud83d"`, then `"\ude00..."`), and `@ag-ui/client` joins the halves back when it
//! appends the deltas. A Rust `String` cannot hold a lone surrogate, so the strings of this crate's
//! [`Value`]s (and everything read from them: ids, deltas, message contents, tool-call arguments)
//! are in an *internal form* that can, built on a Unicode noncharacter (reserved by Unicode for
//! process-internal use, never meaningful in interchange):
//!
//! - [`ESCAPE`] `E` = U+10FFFF (UTF-8 `F4 8F BF BF`) starts a two-char escape.
//! - A lone surrogate `S` (0xD800..=0xDFFF) is `E` followed by `X` = U+100000 + (S - 0xD800)
//!   (U+100000..=U+1007FF, UTF-8 `F4 80 80 80`..=`F4 80 9F BF`).
//! - A literal U+10FFFF is `E E`.
//! - Every other char is itself. The mapping is injective: nothing is lost, and two internal
//!   strings are equal exactly when the JS strings are. An internal string never holds a high
//!   `E X` directly followed by a low `E X` (the halves of a pair are the real char), so it is
//!   canonical too.
//!
//! Where the form is made and undone:
//! - [`parse`] reads *wire text* (bytes from the network, `JSON.stringify` output, what [`write_str`]
//!   wrote): a lone surrogate escape becomes `E X`, a literal U+10FFFF (raw or as
//!   `\udbff\udfff`) becomes `E E`; `\ud83d\ude00` is the real char as always.
//! - [`parse_internal`] reads JSON text *assembled from internal strings* without the writer (the
//!   concatenated `arguments` of a tool call): there raw `E X` / `E E` are copied as they are.
//! - [`write_str`] (and so [`Value::to_json`]) writes `E X` as the escape `\udXXX` (lower-case, as
//!   `JSON.stringify` writes it) and `E E` as the literal char U+10FFFF, so `JSON.parse` in JS of
//!   what we write gives exactly the JS string `JSON.parse` gave for the wire text.
//! - [`push_str`] appends a streamed delta: a high `E X` at the end and a low `E X` at the start
//!   become the real astral char, as JS string concatenation joins them.
//! - [`to_js_string`] / [`from_js_string`]: for strings that cross the wasm boundary directly
//!   (through `wasm-bindgen`'s UTF-8 `String`, not as JSON text). A string holding a lone surrogate
//!   cannot cross that way (`wasm-bindgen` turns a lone surrogate into U+FFFD): it must cross as
//!   JSON text ([`to_js_string`] says so with `None`).
//! - [`find_lone_surrogate`] says whether and where an internal string holds a lone surrogate,
//!   and [`to_utf16`] gives the code units of the JS string it stands for: what every exit of the
//!   boundary must hand to JavaScript (or refuse), and what the tests compare exits with.
//!
//! **Nothing of the internal form leaves the crate.** Every string the wasm boundary hands to
//! JavaScript is either JSON text written by [`write_str`] (read back with `JSON.parse`) or goes
//! through one helper (`js_string` in `src/wasm/string.rs`) that makes the JS string itself,
//! lone surrogates restored; docs/architecture.md lists the exits. Text that comes from
//! JavaScript other than as JSON (a thrown error's message, a storage event's key) is brought
//! into the internal form on the way in, so a literal U+10FFFF in it is never misread as a
//! private escape.
//!
//! Raw U+10FFFF is rare in text, so the cost is one more byte value (0xF4, the lead byte of
//! plane 16) in the 8-bytes-at-a-time scans of the parser and the writer.
//!
//! # Rooms
//!
//! One job a file; each uses only the ones listed after it (and `crate::lean`):
//! - `parse.rs`: the parser ([`parse`], [`parse_internal`], [`parse_tagged_object`], which reads
//!   a `STATE_DELTA`'s patch straight into `patch.rs`'s operations, and [`parse_string_members`],
//!   an object of string members only: a text or args delta read straight).
//! - `patch.rs`: JSON Patch (RFC 6902, atomic) and JSON Pointer ([`Value::pointer`]).
//! - `write.rs`: the writer ([`Value::to_json`], [`write_str`], [`quoted`]).
//! - `value.rs`: [`Value`], [`Number`], [`Map`]: the types, their reads and their building.
//! - `js_string.rs`: the internal form of strings ([`push_str`], and the JS string an internal
//!   string stands for: [`to_js_string`], [`find_lone_surrogate`], [`to_utf16`]).
//! - `scan.rs`: the 8-bytes-at-a-time scan the parser and the writer share.

mod js_string;
mod parse;
pub mod patch;
mod scan;
mod value;
mod write;

pub use js_string::{
    find_lone_surrogate, from_js_string, push_str, to_js_string, to_utf16, ESCAPE,
};
pub use parse::{
    parse, parse_internal, parse_string_members, parse_tagged_object, BorrowedMembers, JsonError,
    TaggedObject,
};
pub use value::{Map, Number, Value};
pub use write::{
    long_strings, long_strings_handed, quoted, write_str, write_value_str, LONG_STRING,
};

/// Lives in `lean::text`; re-exported here for `tools/schema.rs` and `coder/wire.rs`, which
/// still name it by this path.
pub(crate) use crate::lean::text::push_i64;
