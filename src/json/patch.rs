//! RFC 6902 JSON Patch over RFC 6901 JSON Pointers, applied atomically.

use std::borrow::Cow;
use std::fmt;

use super::Value;

/// One JSON Patch operation.
#[derive(Clone, Debug, PartialEq)]
pub enum PatchOp {
    /// `add`: insert or set `value` at `path`.
    Add {
        /// Where.
        path: String,
        /// What.
        value: Value,
    },
    /// `remove`: remove the value at `path`.
    Remove {
        /// Where.
        path: String,
    },
    /// `replace`: replace the (existing) value at `path`.
    Replace {
        /// Where.
        path: String,
        /// What.
        value: Value,
    },
    /// `move`: remove the value at `from` and add it at `path`.
    Move {
        /// From where.
        from: String,
        /// To where.
        path: String,
    },
    /// `copy`: add a copy of the value at `from` at `path`.
    Copy {
        /// From where.
        from: String,
        /// To where.
        path: String,
    },
    /// `test`: the value at `path` equals `value`.
    Test {
        /// Where.
        path: String,
        /// The expected value.
        value: Value,
    },
}

/// A JSON Patch: operations applied in order, all or none.
pub type Patch = Vec<PatchOp>;

/// Why a patch could not be applied (the document is left as it was).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchError {
    /// The index of the failing operation.
    pub operation: usize,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "operation {}: {}", self.operation, self.message)
    }
}

impl std::error::Error for PatchError {}

/// The string member `key` of an operation, taken out; the error names it. (Out of line: one
/// copy for `op`, `path` and the two `from`s.)
#[inline(never)]
fn text(m: &mut super::Map, key: &'static str) -> Result<String, (&'static str, String)> {
    match m.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err((key, format!("expected a string, found {}", other.kind()))),
        None => Err((key, format!("missing field `{key}`"))),
    }
}

impl PatchOp {
    /// The operation's name on the wire (`"add"`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            PatchOp::Add { .. } => "add",
            PatchOp::Remove { .. } => "remove",
            PatchOp::Replace { .. } => "replace",
            PatchOp::Move { .. } => "move",
            PatchOp::Copy { .. } => "copy",
            PatchOp::Test { .. } => "test",
        }
    }

    /// Reads one operation from its JSON object; the error names the member at fault.
    pub fn from_json(value: Value) -> Result<PatchOp, (&'static str, String)> {
        let Value::Object(mut m) = value else {
            return Err(("", format!("expected an object, found {}", value.kind())));
        };
        let op = text(&mut m, "op")?;
        let path = text(&mut m, "path")?;
        let mut from = || text(&mut m, "from");
        Ok(match op.as_str() {
            "remove" => PatchOp::Remove { path },
            "move" => PatchOp::Move { from: from()?, path },
            "copy" => PatchOp::Copy { from: from()?, path },
            "add" | "replace" | "test" => {
                let value = m
                    .remove("value")
                    .ok_or(("value", "missing field `value`".to_owned()))?;
                match op.as_str() {
                    "add" => PatchOp::Add { path, value },
                    "replace" => PatchOp::Replace { path, value },
                    _ => PatchOp::Test { path, value },
                }
            }
            other => {
                return Err((
                    "op",
                    format!("unknown operation `{other}`, expected add, remove, replace, move, copy or test"),
                ))
            }
        })
    }

    /// Appends the operation's JSON object.
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"op\":\"");
        out.push_str(self.name());
        out.push('"');
        let (from, path, value) = match self {
            PatchOp::Add { path, value }
            | PatchOp::Replace { path, value }
            | PatchOp::Test { path, value } => (None, path, Some(value)),
            PatchOp::Remove { path } => (None, path, None),
            PatchOp::Move { from, path } | PatchOp::Copy { from, path } => (Some(from), path, None),
        };
        if let Some(from) = from {
            out.push_str(",\"from\":");
            super::write_str(out, from);
        }
        out.push_str(",\"path\":");
        super::write_str(out, path);
        if let Some(value) = value {
            out.push_str(",\"value\":");
            value.write_json(out);
        }
        out.push('}');
    }
}

/// What undoes one applied step. Pointers are the patch's own text; an array position the step
/// chose (`-`, an insertion) is kept as the index that replaces the pointer's last token.
enum Undo<'p> {
    /// Put `old` back at the target (which exists); yields the value it displaces.
    Put(&'p str, Value),
    /// Remove the target (added by the step); yields it.
    Delete(&'p str, Option<usize>),
    /// Insert a member or item at position `at` of the target's parent; `None` inserts the value
    /// yielded by the undo step just before (a `move`'s value, back from where it went).
    Reinsert(&'p str, usize, Option<Value>),
}

/// Applies `patch` to `doc`: every operation, or (on the first failure) none of them. Nothing is
/// cloned but the values the operations carry: a failed operation is undone step by step.
pub fn apply(doc: &mut Value, patch: &[PatchOp]) -> Result<(), PatchError> {
    apply_taking(doc, &mut patch.to_vec())
}

/// [`apply`] by value: the values the operations add are moved into `doc`, not copied, and the
/// patch is left with `null` in their place (whether it applied or not). For a patch that is
/// dropped after (a `STATE_DELTA` nobody else reads).
pub fn apply_taking(doc: &mut Value, patch: &mut [PatchOp]) -> Result<(), PatchError> {
    let mut undo: Vec<Undo<'_>> = Vec::new();
    for (operation, op) in patch.iter_mut().enumerate() {
        // Both pointers checked first (`""`, the whole document, stands for a missing `from`).
        let (from, path) = match &*op {
            PatchOp::Move { from, path } | PatchOp::Copy { from, path } => (&**from, &**path),
            PatchOp::Add { path, .. }
            | PatchOp::Remove { path }
            | PatchOp::Replace { path, .. }
            | PatchOp::Test { path, .. } => ("", &**path),
        };
        if let Err(message) = check(from)
            .and(check(path))
            .and_then(|()| step(doc, op, &mut undo))
        {
            let mut displaced = None;
            for u in undo.into_iter().rev() {
                displaced = revert(doc, u, displaced.take());
            }
            return Err(PatchError { operation, message });
        }
    }
    Ok(())
}

fn revert(doc: &mut Value, undo: Undo<'_>, displaced: Option<Value>) -> Option<Value> {
    match undo {
        Undo::Put(path, old) => resolve_mut(doc, path).map(|target| std::mem::replace(target, old)),
        Undo::Delete(path, index) => remove(doc, path, index).ok().map(|(value, _)| value),
        Undo::Reinsert(path, at, value) => {
            let value = value.or(displaced)?;
            let (parent, last) = split_last(path)?;
            match resolve_mut(doc, parent)? {
                Value::Object(m) => m.entries.insert(at, (unescape(last).into_owned(), value)),
                Value::Array(a) => a.insert(at, value),
                _ => {}
            }
            None
        }
    }
}

fn step<'p>(doc: &mut Value, op: &'p mut PatchOp, undo: &mut Vec<Undo<'p>>) -> Result<(), String> {
    match op {
        PatchOp::Add { path, value } => {
            add(doc, path, std::mem::take(value), undo).map_err(|(message, _)| message)
        }
        PatchOp::Remove { path } => {
            let (value, at) = remove(doc, path, None)?;
            undo.push(Undo::Reinsert(path, at, Some(value)));
            Ok(())
        }
        PatchOp::Replace { path, value } => {
            let target = resolve_mut(doc, path).ok_or_else(|| missing(path))?;
            let old = std::mem::replace(target, std::mem::take(value));
            undo.push(Undo::Put(path, old));
            Ok(())
        }
        PatchOp::Move { from, path } => {
            // Valid escapes (`~0`, `~1`) write each token one way: the pointers' text compares
            // as their tokens do. `path` is inside `from` when `from` is a proper prefix of its
            // tokens.
            let inside = path.len() > from.len()
                && path.starts_with(from.as_str())
                && path.as_bytes().get(from.len()) == Some(&b'/');
            let same = from == path;
            if inside {
                return Err(format!("cannot move `{from}` into itself (`{path}`)"));
            }
            if same {
                return resolve(doc, from).map(drop).ok_or_else(|| missing(from));
            }
            let (value, at) = remove(doc, from, None)?;
            let mark = undo.len();
            match add(doc, path, value, undo) {
                Ok(()) => {
                    undo.insert(mark, Undo::Reinsert(from, at, None));
                    Ok(())
                }
                Err((message, value)) => {
                    revert(doc, Undo::Reinsert(from, at, Some(value)), None);
                    Err(message)
                }
            }
        }
        PatchOp::Copy { from, path } => {
            let value = resolve(doc, from).ok_or_else(|| missing(from))?.clone();
            add(doc, path, value, undo).map_err(|(message, _)| message)
        }
        PatchOp::Test { path, value } => {
            let actual = resolve(doc, path).ok_or_else(|| missing(path))?;
            if actual == &*value {
                Ok(())
            } else {
                Err(format!(
                    "test failed: the value at `{path}` is not the expected one"
                ))
            }
        }
    }
}

impl Value {
    /// The value at an RFC 6901 JSON Pointer (`""` is this value, `/a/0` a member's item).
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        check(pointer).ok()?;
        resolve(self, pointer)
    }
}

fn missing(path: &str) -> String {
    format!("no value at `{path}`")
}

/// RFC 6901: `""` is the whole document; otherwise `/`-separated tokens with `~1` = `/`, `~0` = `~`.
fn check(path: &str) -> Result<(), String> {
    if path.is_empty() || path.starts_with('/') {
        Ok(())
    } else {
        Err(format!(
            "`{path}` is not a JSON Pointer (it must start with `/`)"
        ))
    }
}

/// A checked pointer's tokens, borrowed from it (unescaped into a new string only when a token
/// holds `~`).
fn tokens(path: &str) -> impl Iterator<Item = Cow<'_, str>> {
    let mut rest = path;
    std::iter::from_fn(move || {
        let after = rest.strip_prefix('/')?;
        let end = after.bytes().position(|b| b == b'/').unwrap_or(after.len());
        let (token, tail) = after.split_at_checked(end)?;
        rest = tail;
        Some(unescape(token))
    })
}

fn unescape(token: &str) -> Cow<'_, str> {
    if token.bytes().any(|b| b == b'~') {
        Cow::Owned(crate::lean::text::replace(
            &crate::lean::text::replace(token, "~1", "/"),
            "~0",
            "~",
        ))
    } else {
        Cow::Borrowed(token)
    }
}

/// A checked pointer's parent (itself a pointer) and last token (still escaped); `None` for the
/// whole document.
fn split_last(path: &str) -> Option<(&str, &str)> {
    // (A byte search and `get`: no slicing panic nor `memchr` in the build.)
    let at = path.bytes().rposition(|b| b == b'/')?;
    Some((path.get(..at)?, path.get(at + 1..)?))
}

/// An array index token: digits without a leading zero, below `len` (or `== len`, and `-`, when
/// `end` allows the position after the last item).
fn array_index(token: &str, len: usize, end: bool) -> Result<usize, String> {
    if end && token == "-" {
        return Ok(len);
    }
    let valid = !token.is_empty()
        && token.bytes().all(|b| b.is_ascii_digit())
        && (token == "0" || !token.starts_with('0'));
    let i = if valid { token.parse().ok() } else { None };
    match i {
        Some(i) if i < len || (end && i == len) => Ok(i),
        Some(i) => Err(format!("index {i} is out of bounds (length {len})")),
        None => Err(format!("`{token}` is not an array index")),
    }
}

/// The value at a checked pointer.
pub(crate) fn resolve<'v>(doc: &'v Value, path: &str) -> Option<&'v Value> {
    tokens(path).try_fold(doc, |v, t| match v {
        Value::Object(m) => m.get(&t),
        Value::Array(a) => a.get(array_index(&t, a.len(), false).ok()?),
        _ => None,
    })
}

fn resolve_mut<'v>(doc: &'v mut Value, path: &str) -> Option<&'v mut Value> {
    tokens(path).try_fold(doc, |v, t| match v {
        Value::Object(m) => m.get_mut(&t),
        Value::Array(a) => {
            let i = array_index(&t, a.len(), false).ok()?;
            a.get_mut(i)
        }
        _ => None,
    })
}

/// `add` at a checked pointer; on failure nothing changed and the value is handed back.
fn add<'p>(
    doc: &mut Value,
    path: &'p str,
    value: Value,
    undo: &mut Vec<Undo<'p>>,
) -> Result<(), (String, Value)> {
    let Some((parent, last)) = split_last(path) else {
        let old = std::mem::replace(doc, value);
        undo.push(Undo::Put(path, old));
        return Ok(());
    };
    let parent = match resolve_mut(doc, parent) {
        Some(parent) => parent,
        None => return Err(("the parent of the target does not exist".to_owned(), value)),
    };
    match parent {
        Value::Object(m) => {
            let last = unescape(last);
            undo.push(match m.index_of(&last) {
                Some(at) => Undo::Put(path, std::mem::replace(&mut m.entries[at].1, value)),
                None => {
                    m.entries.push((last.into_owned(), value));
                    Undo::Delete(path, None)
                }
            });
        }
        Value::Array(a) => {
            let i = match array_index(last, a.len(), true) {
                Ok(i) => i,
                Err(message) => return Err((message, value)),
            };
            a.insert(i, value);
            undo.push(Undo::Delete(path, Some(i)));
        }
        _ => {
            return Err((
                "the parent of the target is not an object or array".to_owned(),
                value,
            ))
        }
    }
    Ok(())
}

/// Removes the target of a checked pointer (its last token replaced by `index` when given);
/// returns it and its position in its parent.
fn remove(doc: &mut Value, path: &str, index: Option<usize>) -> Result<(Value, usize), String> {
    let Some((parent, last)) = split_last(path) else {
        return Err("cannot remove the whole document".to_owned());
    };
    match resolve_mut(doc, parent) {
        Some(Value::Object(m)) => {
            let last = unescape(last);
            match m.index_of(&last) {
                Some(at) => Ok((m.entries.remove(at).1, at)),
                None => Err(format!("no member `{last}`")),
            }
        }
        Some(Value::Array(a)) => {
            let i = match index {
                Some(i) if i < a.len() => i,
                Some(i) => return Err(format!("index {i} is out of bounds (length {})", a.len())),
                None => array_index(last, a.len(), false)?,
            };
            Ok((a.remove(i), i))
        }
        _ => Err("the parent of the target does not exist".to_owned()),
    }
}

/// Parses a patch (an array of operation objects); the error names the member at fault, as a path
/// relative to the patch (`[1].path`).
pub fn from_json(value: Value) -> Result<Patch, (String, String)> {
    let Value::Array(items) = value else {
        return Err((
            String::new(),
            format!("expected an array, found {}", value.kind()),
        ));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            PatchOp::from_json(item).map_err(|(field, message)| {
                let at = if field.is_empty() {
                    format!("[{i}]")
                } else {
                    format!("[{i}].{field}")
                };
                (at, message)
            })
        })
        .collect()
}

/// Appends a patch's JSON array.
pub fn write_json(patch: &[PatchOp], out: &mut String) {
    out.push('[');
    for (i, op) in patch.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        op.write_json(out);
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn patch(text: &str) -> Patch {
        from_json(parse(text).unwrap()).unwrap()
    }

    /// The patch applied by copy and by value: both give the same document (or the same error,
    /// the document as it was).
    fn applied(doc: &str, ops: &str) -> Result<String, PatchError> {
        let mut copied = parse(doc).unwrap();
        let by_copy = apply(&mut copied, &patch(ops)).map(|()| copied.to_json());
        let mut taken = parse(doc).unwrap();
        let by_value = apply_taking(&mut taken, &mut patch(ops)).map(|()| taken.to_json());
        assert_eq!(by_copy, by_value, "{ops} by copy and by value");
        if by_copy.is_err() {
            assert_eq!(
                copied.to_json(),
                parse(doc).unwrap().to_json(),
                "{ops} left a change"
            );
            assert_eq!(
                taken.to_json(),
                copied.to_json(),
                "{ops} by value left a change"
            );
        }
        by_copy
    }

    #[test]
    fn rfc_6902_appendix_a() {
        let cases = [
            (
                r#"{"foo":"bar"}"#,
                r#"[{"op":"add","path":"/baz","value":"qux"}]"#,
                r#"{"foo":"bar","baz":"qux"}"#,
            ),
            (
                r#"{"foo":["bar","baz"]}"#,
                r#"[{"op":"add","path":"/foo/1","value":"qux"}]"#,
                r#"{"foo":["bar","qux","baz"]}"#,
            ),
            (
                r#"{"baz":"qux","foo":"bar"}"#,
                r#"[{"op":"remove","path":"/baz"}]"#,
                r#"{"foo":"bar"}"#,
            ),
            (
                r#"{"foo":["bar","qux","baz"]}"#,
                r#"[{"op":"remove","path":"/foo/1"}]"#,
                r#"{"foo":["bar","baz"]}"#,
            ),
            (
                r#"{"baz":"qux","foo":"bar"}"#,
                r#"[{"op":"replace","path":"/baz","value":"boo"}]"#,
                r#"{"baz":"boo","foo":"bar"}"#,
            ),
            (
                r#"{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}"#,
                r#"[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]"#,
                r#"{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}"#,
            ),
            (
                r#"{"foo":["all","grass","cows","eat"]}"#,
                r#"[{"op":"move","from":"/foo/1","path":"/foo/3"}]"#,
                r#"{"foo":["all","cows","eat","grass"]}"#,
            ),
            (
                r#"{"baz":"qux","foo":["a",2,"c"]}"#,
                r#"[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2.0}]"#,
                r#"{"baz":"qux","foo":["a",2,"c"]}"#,
            ),
            (
                r#"{"foo":"bar"}"#,
                r#"[{"op":"add","path":"/child","value":{"grandchild":{}}}]"#,
                r#"{"foo":"bar","child":{"grandchild":{}}}"#,
            ),
            (
                r#"{"foo":["bar"]}"#,
                r#"[{"op":"add","path":"/foo/-","value":["abc","def"]}]"#,
                r#"{"foo":["bar",["abc","def"]]}"#,
            ),
            (
                r#"{"/":1,"~":2}"#,
                r#"[{"op":"copy","from":"/~1","path":"/~0x"}]"#,
                r#"{"/":1,"~":2,"~x":1}"#,
            ),
            (
                r#"{"a":1}"#,
                r#"[{"op":"replace","path":"","value":[1]}]"#,
                r#"[1]"#,
            ),
        ];
        for (doc, ops, want) in cases {
            assert_eq!(applied(doc, ops).unwrap(), want, "{ops}");
        }
    }

    #[test]
    fn errors_per_rfc() {
        let cases = [
            (
                r#"{"baz":"qux"}"#,
                r#"[{"op":"test","path":"/baz","value":"bar"}]"#,
            ),
            (
                r#"{"foo":"bar"}"#,
                r#"[{"op":"add","path":"/baz/bat","value":"qux"}]"#,
            ),
            (
                r#"{"foo":[1]}"#,
                r#"[{"op":"add","path":"/foo/2","value":0}]"#,
            ),
            (
                r#"{"foo":[1]}"#,
                r#"[{"op":"add","path":"/foo/01","value":0}]"#,
            ),
            (r#"{"foo":1}"#, r#"[{"op":"remove","path":"/bar"}]"#),
            (
                r#"{"foo":1}"#,
                r#"[{"op":"replace","path":"/bar","value":0}]"#,
            ),
            (
                r#"{"foo":{"a":1}}"#,
                r#"[{"op":"move","from":"/foo","path":"/foo/b"}]"#,
            ),
            (r#"{"foo":1}"#, r#"[{"op":"add","path":"foo","value":0}]"#),
        ];
        for (doc, ops) in cases {
            assert!(applied(doc, ops).is_err(), "{ops} applied");
        }
    }

    #[test]
    fn pointer_edge_rules() {
        let ok = [
            // `-` appends to an array; escapes name members with `/` and `~` (`~01` is `~1`).
            (
                r#"{"l":[1]}"#,
                r#"[{"op":"add","path":"/l/-","value":2}]"#,
                r#"{"l":[1,2]}"#,
            ),
            (
                r#"{"a/b":{"~c":1,"~1":2}}"#,
                r#"[{"op":"test","path":"/a~1b/~0c","value":1},{"op":"remove","path":"/a~1b/~01"}]"#,
                r#"{"a/b":{"~c":1}}"#,
            ),
            (
                r#"{"a/b":{}}"#,
                r#"[{"op":"add","path":"/a~1b/x~1y","value":0},{"op":"replace","path":"/a~1b/x~1y","value":1}]"#,
                r#"{"a/b":{"x/y":1}}"#,
            ),
            // A member that only starts with the same letters is not inside `from`.
            (
                r#"{"a":{"b":1},"ab":2}"#,
                r#"[{"op":"move","from":"/a","path":"/ab"}]"#,
                r#"{"ab":{"b":1}}"#,
            ),
            // A move onto itself changes nothing; `test` of the whole document.
            (
                r#"{"a":[1,2]}"#,
                r#"[{"op":"move","from":"/a/1","path":"/a/1"},{"op":"test","path":"","value":{"a":[1,2]}}]"#,
                r#"{"a":[1,2]}"#,
            ),
            // A move within one array, then a copy of the result.
            (
                r#"{"a":[1,2,3]}"#,
                r#"[{"op":"move","from":"/a/0","path":"/a/-"},{"op":"copy","from":"/a","path":"/b"}]"#,
                r#"{"a":[2,3,1],"b":[2,3,1]}"#,
            ),
            // The empty member name.
            (
                r#"{"":1}"#,
                r#"[{"op":"replace","path":"/","value":2}]"#,
                r#"{"":2}"#,
            ),
        ];
        for (doc, ops, want) in ok {
            assert_eq!(applied(doc, ops).unwrap(), want, "{ops}");
        }
        let refused = [
            (
                r#"{"l":[1]}"#,
                r#"[{"op":"replace","path":"/l/-","value":2}]"#,
            ),
            (r#"{"l":[1]}"#, r#"[{"op":"remove","path":"/l/-"}]"#),
            (r#"{"l":[1]}"#, r#"[{"op":"test","path":"/l/-","value":1}]"#),
            (
                r#"{"a":{"b":{}}}"#,
                r#"[{"op":"move","from":"/a","path":"/a/b/c"}]"#,
            ),
            (r#"{"a/b":1}"#, r#"[{"op":"remove","path":"/a/b"}]"#),
            (r#"{"a":1}"#, r#"[{"op":"test","path":"","value":{"a":2}}]"#),
            (r#"{"a":1}"#, r#"[{"op":"remove","path":""}]"#),
            (r#"{"a":1}"#, r#"[{"op":"copy","from":"a","path":"/b"}]"#),
        ];
        for (doc, ops) in refused {
            assert!(applied(doc, ops).is_err(), "{ops} applied");
        }
    }

    #[test]
    fn a_patch_applied_by_value_moves_its_values() {
        let mut doc = parse(r#"{"l":[]}"#).unwrap();
        let mut ops = patch(
            r#"[{"op":"add","path":"/l/-","value":{"id":1}},{"op":"test","path":"/l/0/id","value":1}]"#,
        );
        apply_taking(&mut doc, &mut ops).unwrap();
        assert_eq!(doc.to_json(), r#"{"l":[{"id":1}]}"#);
        let mut written = String::new();
        write_json(&ops, &mut written);
        assert_eq!(
            written,
            r#"[{"op":"add","path":"/l/-","value":null},{"op":"test","path":"/l/0/id","value":1}]"#
        );
    }

    #[test]
    fn a_failed_patch_leaves_the_document_as_it_was() {
        let doc = r#"{"a":{"x":1,"y":2,"z":3},"list":[1,2,3],"b":"keep"}"#;
        let ops = r#"[
            {"op":"remove","path":"/a/y"},
            {"op":"add","path":"/list/-","value":4},
            {"op":"add","path":"/list/0","value":0},
            {"op":"replace","path":"/b","value":"changed"},
            {"op":"move","from":"/a/x","path":"/list/1"},
            {"op":"move","from":"/a/z","path":"/a/new"},
            {"op":"copy","from":"/list","path":"/copy"},
            {"op":"add","path":"/a/x","value":"over"},
            {"op":"remove","path":"/list/0"},
            {"op":"add","path":"","value":{"root":true}},
            {"op":"add","path":"/root2","value":1},
            {"op":"test","path":"/nope","value":1}
        ]"#;
        let mut value = parse(doc).unwrap();
        let error = apply(&mut value, &patch(ops)).unwrap_err();
        assert_eq!(error.operation, 11);
        assert_eq!(value.to_json(), doc.replace(char::is_whitespace, ""));
        let error = apply_taking(&mut value, &mut patch(ops)).unwrap_err();
        assert_eq!(error.operation, 11);
        assert_eq!(value.to_json(), doc.replace(char::is_whitespace, ""));
        let mut value = parse(doc).unwrap();
        let failing_move = patch(
            r#"[{"op":"remove","path":"/b"},{"op":"move","from":"/a/x","path":"/missing/x"}]"#,
        );
        assert!(apply(&mut value, &failing_move).is_err());
        assert_eq!(value.to_json(), doc);
    }

    #[test]
    fn operations_round_trip_and_bad_ones_name_the_member() {
        let text = r#"[{"op":"add","path":"/a","value":1},{"op":"move","from":"/a","path":"/b"},{"op":"remove","path":"/b"}]"#;
        let mut out = String::new();
        write_json(&patch(text), &mut out);
        assert_eq!(out, text);
        let bad = |t: &str| from_json(parse(t).unwrap()).unwrap_err().0;
        assert_eq!(bad(r#"[{"op":"add","path":"/a"}]"#), "[0].value");
        assert_eq!(
            bad(r#"[{"op":"add","path":"/a","value":1},{"op":"jump","path":"/a"}]"#),
            "[1].op"
        );
        assert_eq!(bad(r#"[{"op":"move","path":"/a"}]"#), "[0].from");
        assert_eq!(bad(r#"[1]"#), "[0]");
        assert_eq!(bad(r#"{}"#), "");
    }
}
