//! Finds the JSON path (`outcome.pendingToolCallIds[1]`) at a byte offset of a JSON text.
//!
//! Used only on the error path of event parsing, to name the malformed field from the position
//! serde_json reports. A tiny scanner instead of re-running the typed deserializer with a
//! path-tracking wrapper: that would compile a second copy of every event's deserializer into the
//! wasm binary.

/// One open container on the way to the offset.
enum Frame {
    /// An object, with the last key read in it (the member being parsed).
    Object(Option<String>),
    /// An array, with the index of the element being parsed.
    Array(usize),
}

/// The path of the value being read at byte `offset` of `json`: object keys joined with `.`,
/// array indexes as `[i]`. With `parent_only`, the innermost object's current key is left out
/// (serde reports a missing field at the end of the object that lacks it).
pub(crate) fn path_at(json: &str, offset: usize, parent_only: bool) -> String {
    let bytes = json.as_bytes();
    let end = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    // Whether the next string in the innermost object is a key (after `{` or `,`).
    let mut expect_key = false;
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'{' => {
                stack.push(Frame::Object(None));
                expect_key = true;
            }
            b'[' => {
                stack.push(Frame::Array(0));
                expect_key = false;
            }
            b'}' | b']' => {
                stack.pop();
                expect_key = false;
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(index)) => *index += 1,
                Some(Frame::Object(_)) => expect_key = true,
                None => {}
            },
            b'"' => {
                let start = i + 1;
                i = start;
                while i < end && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if expect_key && i < end {
                    let raw = &json[start - 1..=i];
                    let key =
                        serde_json::from_str::<String>(raw).unwrap_or_else(|_| raw.to_owned());
                    if let Some(Frame::Object(current)) = stack.last_mut() {
                        *current = Some(key);
                    }
                    expect_key = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let depth = stack.len();
    let mut path = String::new();
    for (n, frame) in stack.into_iter().enumerate() {
        match frame {
            Frame::Object(Some(key)) if !(parent_only && n + 1 == depth) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&key);
            }
            Frame::Array(index) => path.push_str(&format!("[{index}]")),
            Frame::Object(_) => {}
        }
    }
    path
}

/// The byte offset of serde_json's one-based (line, column) in `json`.
pub(crate) fn offset_of(json: &str, line: usize, column: usize) -> usize {
    let line_start: usize = json
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    line_start + column
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn paths_name_nested_keys_and_array_indexes() {
        let json = r#"{"type":"X","outcome":{"pendingToolCallIds":["a",5]}}"#;
        let at = json.find('5').unwrap() + 1;
        assert_eq!(
            path_at(json, at - 1, false),
            "outcome.pendingToolCallIds[1]"
        );
    }

    #[test]
    fn parent_only_leaves_out_the_current_key() {
        let json = r#"{"a":{"b":1,"c":2}}"#;
        let at = json.find("2}").unwrap();
        assert_eq!(path_at(json, at, false), "a.c");
        assert_eq!(path_at(json, at, true), "a");
    }

    #[test]
    fn escaped_quotes_in_strings_do_not_confuse_the_scanner() {
        let json = r#"{"say":"a \"quoted\" , { word","n":true}"#;
        let at = json.find("true").unwrap();
        assert_eq!(path_at(json, at, false), "n");
    }

    #[test]
    fn offsets_count_lines() {
        assert_eq!(offset_of("ab\ncd", 2, 1), 4);
        assert_eq!(offset_of("abcd", 1, 3), 3);
    }
}
