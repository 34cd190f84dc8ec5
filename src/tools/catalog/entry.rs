//! What a frontend tool must be, for a `tools.json` entry and `registerTool` alike: the
//! diagnostic codes, the limits, and the checks of a tool's name, description, `parameters` and
//! options (the rules are listed in the [catalog's docs](super)).

use crate::json::{Map, Value};
use crate::tools::schema::check_schema;
use crate::tools::TimeLimit;

/// The stable diagnostic codes, one constant per rule (see the [catalog's docs](super)).
pub mod code {
    /// The entry, its `tool`, or the OpenAI shape's `function` is not an object.
    pub const NOT_OBJECT: &str = "tool/not-object";
    /// The name is not a string matching `^[A-Za-z0-9_-]{1,64}$` (prefix included).
    pub const BAD_NAME: &str = "tool/bad-name";
    /// A tool of that name already exists; the first one wins.
    pub const DUPLICATE_NAME: &str = "tool/duplicate-name";
    /// The catalog already holds [`MAX_TOOLS`](super::MAX_TOOLS) frontend tools.
    pub const TOO_MANY: &str = "tool/too-many";
    /// The description is missing, not a string, or blank.
    pub const NO_DESCRIPTION: &str = "tool/no-description";
    /// `parameters` is not a JSON Schema object, is too large, or fails the shape check.
    pub const BAD_SCHEMA: &str = "tool/bad-schema";
    /// `importPath` is missing, not a string, or refused by the URL rules.
    pub const BAD_IMPORT_PATH: &str = "tool/bad-import-path";
    /// `importPath` is of an origin that is not allowed.
    pub const FOREIGN_ORIGIN: &str = "tool/foreign-origin";
    /// `entrypoint` is missing or not a JS identifier.
    pub const BAD_ENTRYPOINT: &str = "tool/bad-entrypoint";
    /// `followUp` or `timeoutMs` has a bad value.
    pub const BAD_OPTION: &str = "tool/bad-option";
    /// The name is a backend tool's (no prefix set).
    pub const SHADOWS_BACKEND: &str = "tool/shadows-backend";
    /// The prefixed name is a backend tool's.
    pub const PREFIX_COLLISION: &str = "tool/prefix-collision";
    /// An item of the agent's `capabilities.tools` is malformed.
    pub const BACKEND_BAD_TOOL: &str = "backend/bad-tool";
}

/// The most frontend tools a catalog holds (manifest and registered together).
pub const MAX_TOOLS: usize = 250;
/// The longest tool name, in characters (the limit of the big model APIs).
pub const MAX_NAME_LEN: usize = 64;
/// The largest `parameters` schema accepted, serialized as compact JSON, in bytes (64 KiB).
pub const MAX_SCHEMA_BYTES: usize = 65_536;
/// The largest `timeoutMs` accepted (10 minutes).
pub const MAX_TIMEOUT_MS: u32 = 600_000;

/// A rule broken: its code and message.
pub(super) type Broken = (&'static str, String);

/// The options of a tool (`followUp`, `timeoutMs`, `defaultEnabled`), the same for a manifest
/// entry and `registerTool`: `tool/bad-option` naming the first bad one.
pub(super) fn check_options(entry: &Map) -> Result<(bool, TimeLimit, bool), Broken> {
    let follow_up = match entry.get("followUp") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(follow_up)) => *follow_up,
        Some(other) => {
            return Err((
                code::BAD_OPTION,
                format!("followUp must be true or false, not {}", other.kind()),
            ))
        }
    };
    let time_limit = match entry.get("timeoutMs") {
        None => TimeLimit::Default,
        Some(Value::Null) => TimeLimit::Never,
        Some(value) => TimeLimit::Ms(timeout_from_json(value).ok_or_else(|| {
            (
                code::BAD_OPTION,
                format!(
                    "timeoutMs must be an integer from 1 to {MAX_TIMEOUT_MS}, or null for none, not {value}"
                ),
            )
        })?),
    };
    let default_enabled = match entry.get("defaultEnabled") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(on)) => *on,
        Some(other) => {
            return Err((
                code::BAD_OPTION,
                format!("defaultEnabled must be true or false, not {}", other.kind()),
            ))
        }
    };
    Ok((follow_up, time_limit, default_enabled))
}

/// The tool object itself: `value`, or its `function` in the OpenAI shape
/// (`{"type": "function", "function": {...}}`, also recognized by a `function` key without `name`).
pub(super) fn unwrap_tool<'a>(value: &'a Value, what: &str) -> Result<&'a Map, Broken> {
    let Some(object) = value.as_object() else {
        return Err((
            code::NOT_OBJECT,
            format!("the \"{what}\" field is {}, not an object", value.kind()),
        ));
    };
    let openai = object.get("type").and_then(Value::as_str) == Some("function")
        || (object.contains_key("function") && !object.contains_key("name"));
    if !openai {
        return Ok(object);
    }
    match object.get("function") {
        Some(Value::Object(function)) => Ok(function),
        Some(other) => Err((
            code::NOT_OBJECT,
            format!(
                "the \"{what}.function\" field is {}, not an object",
                other.kind()
            ),
        )),
        None => Err((
            code::NOT_OBJECT,
            format!("the \"{what}\" field has type \"function\" but no \"function\" object"),
        )),
    }
}

pub(super) fn check_name(name: Option<&Value>) -> Result<String, Broken> {
    match name {
        Some(Value::String(name)) if is_tool_name(name) => Ok(name.clone()),
        Some(Value::String(name)) => Err((
            code::BAD_NAME,
            format!(
                "the name \"{}\" must be 1 to {MAX_NAME_LEN} characters of A-Z, a-z, 0-9, _ and -",
                clip(name)
            ),
        )),
        Some(other) => Err((
            code::BAD_NAME,
            format!("the name must be a string, not {}", other.kind()),
        )),
        None => Err((code::BAD_NAME, "the tool has no name".into())),
    }
}

pub(super) fn check_description(description: Option<&Value>) -> Result<String, Broken> {
    match description {
        Some(Value::String(d)) if !crate::lean::text::trim(d).is_empty() => Ok(d.clone()),
        Some(Value::String(_)) => Err((
            code::NO_DESCRIPTION,
            "the description is blank; the model needs it to know when to call the tool".into(),
        )),
        Some(Value::Null) | None => Err((
            code::NO_DESCRIPTION,
            "the description is missing; the model needs it to know when to call the tool".into(),
        )),
        Some(other) => Err((
            code::NO_DESCRIPTION,
            format!("the description must be a string, not {}", other.kind()),
        )),
    }
}

pub(super) fn check_parameters(parameters: Option<&Value>) -> Result<Value, Broken> {
    let parameters = match parameters {
        None | Some(Value::Null) => {
            return Ok(Value::Object(Map::from_unique(vec![
                ("type".into(), Value::from("object")),
                ("properties".into(), Value::Object(Map::new())),
            ])))
        }
        Some(object @ Value::Object(_)) => object.clone(),
        Some(other) => {
            return Err((
                code::BAD_SCHEMA,
                format!(
                    "parameters must be a json schema object, not {}",
                    other.kind()
                ),
            ))
        }
    };
    let size = parameters.to_json().len();
    if size > MAX_SCHEMA_BYTES {
        return Err((
            code::BAD_SCHEMA,
            format!("parameters is {size} bytes of json, over the limit of {MAX_SCHEMA_BYTES}"),
        ));
    }
    check_schema(&parameters).map_err(|e| (code::BAD_SCHEMA, format!("parameters: {e}")))?;
    Ok(parameters)
}

/// `timeoutMs` as a number of milliseconds from 1 to [`MAX_TIMEOUT_MS`]. `5000.0` counts as an
/// integer: JavaScript does not tell them apart.
pub(super) fn timeout_from_json(value: &Value) -> Option<u32> {
    let number = value.as_number()?;
    let ms = match number.as_u64() {
        Some(ms) => ms,
        None => {
            let f = number.as_f64();
            if f.fract() != 0.0 || !(1.0..=f64::from(MAX_TIMEOUT_MS)).contains(&f) {
                return None;
            }
            f as u64
        }
    };
    u32::try_from(ms)
        .ok()
        .filter(|ms| (1..=MAX_TIMEOUT_MS).contains(ms))
}

pub(super) fn is_tool_name(name: &str) -> bool {
    (1..=MAX_NAME_LEN).contains(&name.len()) && name.bytes().all(is_name_byte)
}

pub(super) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

pub(super) fn is_js_identifier(value: &str) -> bool {
    let mut bytes = value.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// A user-supplied string for a message, shortened to [`MAX_NAME_LEN`] characters.
pub(super) fn clip(value: &str) -> String {
    match value.char_indices().nth(MAX_NAME_LEN) {
        Some((end, _)) => format!("{}…", crate::lean::text::sub(value, ..end)),
        None => value.to_string(),
    }
}
