//! The TypeScript declarations of `src/wasm/types.d.ts` that come from the tables: the
//! `AgUiEvent` union (from `events!`, `table.rs`), `MessageOf` (from `messages!`, `message.rs`)
//! and the interfaces of plain wire structs. A test compares them with the file;
//! `UPDATE_TYPES=1 cargo test --lib types_d_ts` rewrites the file's blocks.

use super::fields::*;
use super::message::MESSAGE_TABLE;
use super::request::*;
use super::table::EVENT_TABLE;

/// The TypeScript type of a field's Rust type (as `stringify!` spells it).
fn ts_type(rust: &str, part: &str) -> String {
    let rust: String = rust.chars().filter(|c| !c.is_whitespace()).collect();
    let literals = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    if let Some(inner) = rust.strip_prefix("Vec<").and_then(|r| r.strip_suffix('>')) {
        let item = ts_type(inner, part);
        return if item.contains(' ') {
            format!("({item})[]")
        } else {
            format!("{item}[]")
        };
    }
    if let Some(inner) = rust.strip_prefix("Box<").and_then(|r| r.strip_suffix('>')) {
        return ts_type(inner, part);
    }
    match rust.as_str() {
        "String" => "string".into(),
        "bool" => "boolean".into(),
        "i64" | "u64" => "number".into(),
        "Value" => "JsonValue".into(),
        "JsonObject" => "JsonObject".into(),
        "JsonPatch" => "JsonPatchOperation[]".into(),
        "Content" => format!("string | {part}[]"),
        "FunctionCall" => format!("{{ {} }}", members(FunctionCall::WIRE_FIELDS, part)),
        "FunctionKind" => literals(FunctionKind::WIRE_NAMES),
        "SubagentOutcome" => {
            "{ type: \"success\" } | { type: \"suspended\"; interruptIds?: string[] }".into()
        }
        "TextMessageRole" => literals(TextMessageRole::WIRE_NAMES),
        "ToolRole" => literals(ToolRole::WIRE_NAMES),
        "ReasoningRole" => literals(ReasoningRole::WIRE_NAMES),
        "EncryptedValueSubtype" => literals(EncryptedValueSubtype::WIRE_NAMES),
        "RunFinishedOutcome" | "TokenUsage" | "Message" | "RunAgentInput" | "Interrupt"
        | "ToolCall" => rust,
        other => panic!("no TypeScript type for `{other}`: add it to ts_type"),
    }
}

/// `name: type` or `name?: type` (for an `Option`).
fn ts_member(wire: &str, rust: &str, part: &str) -> String {
    let rust: String = rust.chars().filter(|c| !c.is_whitespace()).collect();
    match rust
        .strip_prefix("Option<")
        .and_then(|r| r.strip_suffix('>'))
    {
        Some(inner) => format!("{wire}?: {}", ts_type(inner, part)),
        None => format!("{wire}: {}", ts_type(&rust, part)),
    }
}

/// `a: T; b?: U`.
fn members(fields: &[(&str, &str)], part: &str) -> String {
    let members: Vec<String> = fields
        .iter()
        .map(|(wire, rust)| ts_member(wire, rust, part))
        .collect();
    members.join("; ")
}

/// `MessageOf<Part>`: a message with the base fields (`MessageBase`) is written on it; one
/// without (`activity` has no `encryptedValue`) spells out all its fields.
fn message_union() -> String {
    const BASE: [&str; 4] = ["id", "encryptedValue", "metadata", "subagentRunId"];
    let mut out = String::from("type MessageOf<Part> =\n");
    for (role, fields) in MESSAGE_TABLE {
        let role = format!("role: \"{role}\"");
        let has_base = BASE.iter().all(|b| fields.iter().any(|(w, _)| w == b));
        let line = if has_base {
            let own: Vec<_> = fields
                .iter()
                .filter(|(w, _)| !BASE.contains(w))
                .copied()
                .collect();
            format!("(MessageBase & {{ {role}; {} }})", members(&own, "Part"))
        } else {
            let (id, rest) = fields.split_first().unwrap();
            let id = ts_member(id.0, id.1, "Part");
            format!("{{ {id}; {role}; {} }}", members(rest, "Part"))
        };
        out.push_str(&format!("  | {line}\n"));
    }
    out.pop();
    out.push_str(";\n");
    out
}

fn event_union() -> String {
    let mut out = String::from("export type AgUiEvent =\n");
    for (ty, scope, fields) in EVENT_TABLE {
        let base = if *scope == "scoped" {
            "SubagentScoped"
        } else {
            "EventBase"
        };
        let mut members = vec![format!("type: \"{ty}\"")];
        for (wire, rust) in fields.iter() {
            let in_base = matches!(*wire, "timestamp" | "rawEvent" | "metadata")
                || (*scope == "scoped" && *wire == "subagentRunId");
            if !in_base {
                members.push(ts_member(wire, rust, "ContentPart"));
            }
        }
        out.push_str(&format!("  | ({base} & {{ {} }})\n", members.join("; ")));
    }
    out.pop();
    out.push_str(";\n");
    out
}

fn interface(name: &str, fields: &[(&str, &str)]) -> String {
    let mut out = format!("export interface {name} {{\n");
    for (wire, rust) in fields {
        out.push_str(&format!("  {};\n", ts_member(wire, rust, "ContentPart")));
    }
    out.push_str("}\n");
    out
}

#[test]
fn types_d_ts() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/wasm/types.d.ts");
    let mut file = std::fs::read_to_string(path).unwrap();
    let blocks = [
        event_union(),
        message_union(),
        interface("ToolCall", ToolCall::WIRE_FIELDS),
        interface("TokenUsage", TokenUsage::WIRE_FIELDS),
        interface("Interrupt", Interrupt::WIRE_FIELDS),
        interface("Context", Context::WIRE_FIELDS),
    ];
    let update = std::env::var_os("UPDATE_TYPES").is_some();
    for block in &blocks {
        let head = block.lines().next().unwrap();
        let at = file
            .find(&format!("{head}\n"))
            .unwrap_or_else(|| panic!("src/wasm/types.d.ts has no `{head}`"));
        let end = if head.ends_with('=') { ");\n" } else { "\n}\n" };
        let len = file[at..].find(end).unwrap() + end.len();
        if update {
            file.replace_range(at..at + len, block);
        } else {
            assert_eq!(
                &file[at..at + len],
                block.as_str(),
                "src/wasm/types.d.ts drifted from the wire tables (src/protocol/event/): run \
                 `UPDATE_TYPES=1 cargo test --lib types_d_ts`"
            );
        }
    }
    if update {
        std::fs::write(path, file).unwrap();
    }
}
