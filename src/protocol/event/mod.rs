//! AG-UI 1.0 events and messages, in wire form.
//!
//! Wire conventions (see `docs/protocol.md`): field names are camelCase, optional fields are *omitted*
//! (never serialized as `null`), and the TS client's legacy `null`s on input are read as "absent".
//! Parsing is liberal on the unknown and strict on the known: an unknown `type` becomes
//! [`Event::Unknown`] (kept with its JSON), unknown fields of a known event are ignored, and a
//! malformed known field is an [`EventError::Field`] naming the event index, type and field.
//!
//! Every type here is read and written by hand through [`super::wire`] (one JSON parser, no
//! per-type deserializer code); each struct declares its JSON names once.
//!
//! # Rooms
//! - `table.rs`: the events table (`events!`): the payload structs and the [`Event`] enum.
//! - `read.rs`: one event read from an SSE frame's `data` ([`Event::parse`]) and written back.
//! - `message.rs`: the messages table (`messages!`) and the message structs.
//! - `request.rs`: the run request body, [`RunAgentInput`].
//! - `fields.rs`: the types of their fields (literals, outcomes, content, tool calls).
//! - `typescript.rs` (tests): `src/wasm/types.d.ts` checked against the tables.

mod fields;
mod message;
mod read;
mod request;
mod table;
#[cfg(test)]
mod typescript;

pub use fields::*;
pub use message::*;
pub use read::*;
pub use request::*;
pub use table::*;
