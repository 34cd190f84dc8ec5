//! The runtime's events are declared once (`runtime_events!` in src/session/events.rs): this holds
//! the TypeScript declarations (`RuntimeEvent` in src/wasm/types.d.ts), the React adapter's list of
//! the events it subscribes to, and the host's borrowed writers to that table.
#![cfg(not(target_arch = "wasm32"))]

use chat_runtime::json::Value;
use chat_runtime::protocol::event::Message;
use chat_runtime::protocol::wire::{FromJson, ToJson};
use chat_runtime::session::{write_messages_event, write_state_event, RuntimeEvent};

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The top-level member names of a TypeScript object type's body (`a: T; b?: { c: U }`).
fn members(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    let bytes = body.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' | b'[' | b'(' | b'<' => depth += 1,
            b'}' | b']' | b')' | b'>' => depth -= 1,
            b';' if depth == 0 => {
                out.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&body[start..]);
    out.iter()
        .map(|m| m.trim())
        .filter(|m| !m.is_empty())
        .map(|m| {
            let name = &m[..m.find(':').expect("a member has a type")];
            name.trim_end_matches('?').trim().to_owned()
        })
        .collect()
}

/// `RuntimeEvent`'s union in types.d.ts: each variant's `type` and its other members.
fn declared() -> Vec<(String, Vec<String>)> {
    let file = read("src/wasm/types.d.ts");
    let at = file
        .find("export type RuntimeEvent =\n")
        .expect("types.d.ts declares RuntimeEvent");
    let union = &file[at..at + file[at..].find(";\n\n").unwrap()];
    union
        .lines()
        .map(str::trim)
        .filter_map(|line| line.strip_prefix("| { "))
        .map(|line| {
            let body = line.trim_end_matches(';').strip_suffix('}').unwrap().trim();
            let mut names = members(body);
            assert_eq!(names.remove(0), "type", "{line}");
            let kind = line.split('"').nth(1).unwrap().to_owned();
            (kind, names)
        })
        .collect()
}

#[test]
fn types_d_ts_declares_each_event_of_the_table_with_its_fields() {
    let table: Vec<(String, Vec<String>)> = RuntimeEvent::FIELDS
        .iter()
        .map(|(kind, fields)| {
            let fields = fields.iter().map(|f| f.to_string()).collect();
            (kind.to_string(), fields)
        })
        .collect();
    assert_eq!(
        declared(),
        table,
        "src/wasm/types.d.ts's RuntimeEvent drifted from runtime_events! (src/session/events.rs)"
    );
    assert_eq!(
        RuntimeEvent::KINDS,
        table.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>()
    );
}

#[test]
fn the_react_adapter_subscribes_only_to_events_of_the_table() {
    let react = read("react/src/host.ts");
    let line = react
        .lines()
        .find(|l| l.starts_with("const EVENTS = ["))
        .expect("host.ts lists its events in `const EVENTS = [...]`");
    let listed: Vec<&str> = line.split('"').skip(1).step_by(2).collect();
    assert!(!listed.is_empty());
    for kind in &listed {
        assert!(
            RuntimeEvent::KINDS.contains(kind),
            "host.ts subscribes to `{kind}`, which runtime_events! does not declare"
        );
    }
    // The adapter never asks for the per-token AG-UI events.
    assert!(!listed.contains(&"agui"));
}

/// The quoted names of a line like `const EVENTS = ["a", "b"] as const;`.
fn quoted(line: &str) -> Vec<&str> {
    line.split('"').skip(1).step_by(2).collect()
}

#[test]
fn the_react_adapter_handles_each_event_it_subscribes_to() {
    let react = read("react/src/host.ts");
    let line = react
        .lines()
        .find(|l| l.starts_with("const EVENTS = ["))
        .unwrap();
    let mut listed = quoted(line);
    listed.sort_unstable();
    let at = react
        .find("  private dispatch(event: AdapterEvent): void {\n")
        .expect("host.ts's Host dispatches the events");
    let body = &react[at..at + react[at..].find("\n  }\n").unwrap()];
    let mut handled: Vec<&str> = body
        .lines()
        .filter_map(|l| l.trim().strip_prefix("case "))
        .flat_map(quoted)
        .collect();
    handled.sort_unstable();
    assert_eq!(
        listed, handled,
        "host.ts subscribes to an event its Host.dispatch does not handle, or the reverse"
    );
    // useThread(null) on a Coder runtime follows its new chat to the chat's id by this event.
    assert!(listed.contains(&"thread_created"));
}

#[test]
fn the_borrowed_writers_write_what_the_table_writes() {
    let json = Value::parse(r#"{"id":"u1","role":"user","content":"hi"}"#).unwrap();
    let message = Message::from_json(json).unwrap();
    let mut borrowed = String::new();
    write_messages_event(&mut borrowed, "t1", &[&message], false);
    let owned = RuntimeEvent::Messages {
        thread_id: "t1".into(),
        messages: vec![message.clone()],
        replace: None,
    };
    assert_eq!(borrowed, owned.to_json_string());
    assert!(!borrowed.contains("replace"), "{borrowed}");

    // A list replaced wholesale says so, after its messages.
    let mut borrowed = String::new();
    write_messages_event(&mut borrowed, "t1", &[&message], true);
    let owned = RuntimeEvent::Messages {
        thread_id: "t1".into(),
        messages: vec![message],
        replace: Some(true),
    };
    assert_eq!(borrowed, owned.to_json_string());
    assert_eq!(
        borrowed,
        r#"{"type":"messages","threadId":"t1","messages":[{"role":"user","id":"u1","content":"hi"}],"replace":true}"#
    );

    let state = Value::parse(r#"{"step":2,"items":[1,"two"]}"#).unwrap();
    let mut borrowed = String::new();
    write_state_event(&mut borrowed, "t1", &state);
    let owned = RuntimeEvent::State {
        thread_id: "t1".into(),
        state,
    };
    assert_eq!(borrowed, owned.to_json_string());
    assert_eq!(
        borrowed,
        r#"{"type":"state","threadId":"t1","state":{"step":2,"items":[1,"two"]}}"#
    );
}

#[test]
fn a_nullable_field_is_written_null_and_an_optional_one_left_out() {
    let toggles = RuntimeEvent::TogglesChanged { thread_id: None };
    assert_eq!(
        toggles.to_json_string(),
        r#"{"type":"toggles_changed","threadId":null}"#
    );
    assert_eq!(
        RuntimeEvent::ToolsChanged {}.to_json_string(),
        r#"{"type":"tools_changed"}"#
    );
}

#[test]
fn docs_api_md_describes_each_event_with_its_fields() {
    let doc = read("docs/api.md");
    let at = doc
        .find("| `type` | fields | when |")
        .expect("docs/api.md has the events table");
    let rows: Vec<(&str, &str)> = doc[at..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`'), cells[2])
        })
        .collect();
    let mut kinds: Vec<&str> = rows.iter().map(|(k, _)| *k).collect();
    kinds.sort_unstable();
    let mut table = RuntimeEvent::KINDS.to_vec();
    table.sort_unstable();
    assert_eq!(
        kinds, table,
        "docs/api.md's events table drifted from runtime_events!"
    );
    for (kind, fields) in RuntimeEvent::FIELDS {
        let (_, cell) = rows.iter().find(|(k, _)| k == kind).unwrap();
        for field in *fields {
            assert!(
                cell.contains(&format!("`{field}`")) || cell.contains(&format!("`{field}?`")),
                "docs/api.md does not name `{field}` of `{kind}`"
            );
        }
    }
}
