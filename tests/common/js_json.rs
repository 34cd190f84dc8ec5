//! An oracle for the JSON layer's strings, shared by the tests and the `json` fuzz target (which
//! includes this file by path): what `JSON.stringify` writes for a JS string.

/// `JSON.stringify` of the JS string made of these UTF-16 code units: `"`, `\`, control
/// characters and lone surrogates escaped (lower-case hex), everything else as it is.
pub fn js_json(units: &[u16]) -> String {
    let mut out = String::from("\"");
    for c in char::decode_utf16(units.iter().copied()) {
        match c {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\t') => out.push_str("\\t"),
            Ok('\u{8}') => out.push_str("\\b"),
            Ok('\u{c}') => out.push_str("\\f"),
            Ok(c) if c < ' ' => out.push_str(&format!("\\u{:04x}", c as u32)),
            Ok(c) => out.push(c),
            Err(lone) => out.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
        }
    }
    out.push('"');
    out
}
