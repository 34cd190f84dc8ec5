//! A tool as coderd declares it to the model: chatd's built-in names run on the server, and only
//! the top-level `properties` and `required` of a schema reach the model (coderd's
//! `BuildToolDefinitions`), so a `$ref` to `$defs` arrives dangling. The local `$ref`s are
//! resolved here into the schema itself (bounded), or the tool is not declared.

use crate::json::Value;

/// chatd's built-in tools: a dynamic tool of one of these names is run by the server and never
/// reaches the page.
pub const BUILTINS: [&str; 4] = ["read_file", "write_file", "edit_files", "execute"];

/// How many `$ref`s may nest along one path (a loop meets it).
const MAX_DEPTH: usize = 16;
/// How many schema nodes the resolved schema may hold.
const MAX_NODES: usize = 4_096;

/// The schema with every local `$ref` (`#/$defs/Name`, `#/definitions/Name`) replaced by its
/// target (the `$ref`'s siblings kept) and `$defs`/`definitions` dropped; or why it cannot be
/// (a `$ref` that is not local or names nothing, a loop, a schema too large once resolved).
pub fn resolve_refs(schema: Value) -> Result<Value, &'static str> {
    let Value::Object(mut root) = schema else {
        return Ok(schema);
    };
    let defs = [root.remove("$defs"), root.remove("definitions")];
    let mut node = Value::Object(root);
    let mut budget = MAX_NODES;
    inline(&mut node, &defs, 0, &mut budget)?;
    Ok(node)
}

fn inline(
    node: &mut Value,
    defs: &[Option<Value>; 2],
    depth: usize,
    budget: &mut usize,
) -> Result<(), &'static str> {
    *budget = budget
        .checked_sub(1)
        .ok_or("its schema is too large once its $refs are resolved")?;
    match node {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.remove("$ref") {
                if depth >= MAX_DEPTH {
                    return Err("its schema's $refs nest too deep or loop");
                }
                let found = [("#/$defs/", &defs[0]), ("#/definitions/", &defs[1])]
                    .into_iter()
                    .find_map(|(prefix, defs)| {
                        let name = target.strip_prefix(prefix)?;
                        defs.as_ref()?.get(name)?.as_object()
                    })
                    .ok_or(
                        "its schema has a $ref that is not a local #/$defs/ or #/definitions/ name",
                    )?;
                for (key, value) in found.iter() {
                    if !map.contains_key(key) {
                        map.insert(key.as_str(), value.clone());
                    }
                }
                return inline(node, defs, depth + 1, budget);
            }
            for (_, value) in map.iter_mut() {
                inline(value, defs, depth, budget)?;
            }
        }
        Value::Array(items) => {
            for item in items {
                inline(item, defs, depth, budget)?;
            }
        }
        _ => {}
    }
    Ok(())
}
