//! `tools.json` and the tool catalog.
//!
//! # The manifest
//! `tools.json` is an array. Each entry:
//! ```json
//! { "tool": { "name": "get_weather", "description": "…", "parameters": { "type": "object" } },
//!   "importPath": "/tools/weather.js", "entrypoint": "fetchWeather",
//!   "followUp": true, "timeoutMs": 5000 }
//! ```
//! `tool` may also be the OpenAI shape `{ "type": "function", "function": { name, description,
//! parameters } }`. `followUp` (default `true`) and `timeoutMs` are optional; `null` reads as
//! absent; unknown keys are ignored (room for later versions).
//!
//! [`parse_manifest`] fails as a whole ([`CatalogError`]) only when the file is too large, not JSON
//! (a server's HTML fallback page, served with status 200, counts as not JSON) or not an array. A bad
//! entry never fails the file: it is skipped with a [`Diagnostic`], and the good entries load in
//! their order. Each entry gets at most one diagnostic, for the first rule it breaks, in the order
//! of the list below.
//!
//! # Diagnostic codes
//! Per tool (the constants in [`code`]):
//! - `tool/not-object`: the entry, its `tool`, or the OpenAI shape's `function` is not an object.
//! - `tool/bad-name`: the name is not a string matching `^[A-Za-z0-9_-]{1,64}$` (with a
//!   `toolNamePrefix`, the prefixed name must also fit in 64 characters).
//! - `tool/no-description`: the description is missing, not a string, or blank.
//! - `tool/bad-schema`: `parameters` is not a JSON object, is over 64 KiB serialized, or fails the
//!   schema shape check ([`check_schema`](crate::tools::schema::check_schema)). Absent (or `null`) means
//!   `{"type":"object","properties":{}}`.
//! - `tool/bad-import-path`: `importPath` is missing, not a string, or refused by the URL rules of
//!   [`url::resolve`](super::url::resolve) (empty, not a URL for the browser's parser, non-http(s)
//!   scheme, user name or password).
//! - `tool/foreign-origin`: `importPath` resolves to an origin (as the browser's parser reads it)
//!   that is neither the page's nor in `allowedImportOrigins`.
//! - `tool/bad-entrypoint`: `entrypoint` is missing or not a JS identifier
//!   (`^[A-Za-z_$][A-Za-z0-9_$]*$`). Reserved words are allowed: they are valid export names
//!   (`default` is the default export) and the runtime calls `module[entrypoint]`.
//! - `tool/bad-option`: `followUp` is not a boolean, or `timeoutMs` is not an integer from 1 to
//!   600000.
//! - `tool/duplicate-name`: a tool of that name already exists; the first one wins (in
//!   `tools.json`, the earlier entry; between the manifest and code, the manifest).
//! - `tool/too-many`: the catalog already holds 250 frontend tools (Coder's cap).
//! - `tool/shadows-backend`: without a `toolNamePrefix`, the name is a backend tool's. The tool is
//!   kept and comes back if the backend tool goes away.
//! - `tool/prefix-collision`: with a `toolNamePrefix`, the *prefixed* name is a backend tool's.
//!   Kept and may come back, likewise.
//!
//! Per backend tool (from the agent's `capabilities.tools`):
//! - `backend/bad-tool`: the list is not an array or `{ "items": [...] }`, or an item is not an
//!   object, has no non-empty string `name`, has a non-string `description` or non-object
//!   `parameters`, or repeats an earlier item's name. The item is skipped.
//!
//! Whole-file errors ([`CatalogError::code`]): `tools/fetch`, `tools/not-json`, `tools/not-array`,
//! `tools/too-large`, and `tools/bad-prefix` for an invalid `toolNamePrefix`.
//!
//! # The catalog
//! A [`Catalog`] holds the manifest's tools, the tools registered in code, the backend tools and
//! the optional `toolNamePrefix`. Whether a frontend tool is *active* (listed by
//! [`Catalog::frontend_tools`], sent by [`Catalog::wire_tools`], matched by
//! [`Catalog::resolve_call`]) is re-evaluated after every change to either side, because backend
//! tools usually arrive after the manifest, and they can go away again.
//!
//! # Rooms
//! - `manifest.rs`: reading `tools.json` ([`parse_manifest`], [`check_manifest_status`],
//!   [`CatalogError`]).
//! - `entry.rs`: what a tool must be, for a manifest entry and [`Catalog::register`] alike
//!   (the [`code`]s, the limits, the checks).
//! - here: the [`Catalog`] itself, and the agent's backend tools.

mod entry;
mod manifest;

use crate::json::{Map, Value};
use crate::lean::hash::HashSet;
use crate::protocol::event::Tool;

use super::{BackendTool, Diagnostic, FrontendTool, TimeLimit, ToolHandler};
use entry::{
    check_description, check_name, check_options, check_parameters, clip, is_name_byte,
    unwrap_tool, Broken,
};

pub use entry::{code, MAX_NAME_LEN, MAX_SCHEMA_BYTES, MAX_TIMEOUT_MS, MAX_TOOLS};
pub use manifest::{
    check_manifest_status, parse_manifest, CatalogError, ManifestContext, ManifestReport,
    MAX_MANIFEST_BYTES,
};

/// Where an incoming tool call goes, by [`Catalog::resolve_call`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CallTarget<'a> {
    /// An active frontend tool: the browser runs it (if it is enabled in the thread).
    Frontend(&'a FrontendTool),
    /// A backend tool: the agent runs it; the browser does nothing.
    Backend,
    /// No such tool: the call gets a `TOOL_NOT_AVAILABLE` error result.
    Unknown,
}

/// The tool catalog: manifest tools, tools registered in code, the agent's backend tools and the
/// optional `toolNamePrefix`.
///
/// Frontend tools are listed manifest first, then registered, each in order. A frontend tool that
/// breaks a rule depending on the rest of the catalog (`tool/duplicate-name` between code and
/// manifest, `tool/too-many`, `tool/shadows-backend`, `tool/prefix-collision`, `tool/bad-name` for a
/// prefixed name that is too long) is kept but *hidden*: it is not listed, sent or called, and
/// [`Catalog::diagnostics`] says why. Hiding is re-evaluated after every change, so a tool hidden
/// by a backend tool comes back when that backend tool goes away.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// The tools from `tools.json`, in file order, with unique names and at most [`MAX_TOOLS`]:
    /// replaced as a whole by each load.
    manifest: Vec<FrontendTool>,
    /// The tools registered in code, in registration order (re-registering keeps the place). Kept
    /// while hidden, because the host still holds their handlers and they may come back.
    registered: Vec<FrontendTool>,
    /// The agent's tools (`capabilities.tools`), in its order, with unique names.
    backend: Vec<BackendTool>,
    /// Prepended to frontend tool names on the wire and stripped from incoming calls, so frontend
    /// tools never collide with backend ones (Jaeger's `ui_`). `None`: names go out as they are.
    prefix: Option<String>,
    /// For each tool of `manifest` then `registered`, why it is hidden now (`None`: active).
    /// Recomputed after every change, because shadowing depends on both sides.
    hidden: Vec<Option<Diagnostic>>,
}

impl Catalog {
    /// An empty catalog without a name prefix.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty catalog whose frontend tools go out as `{prefix}{name}`. An empty prefix means no
    /// prefix; otherwise it must be 1 to 63 characters of `[A-Za-z0-9_-]`
    /// ([`CatalogError::BadPrefix`]).
    pub fn with_prefix(prefix: &str) -> Result<Self, CatalogError> {
        if prefix.is_empty() {
            return Ok(Self::new());
        }
        if prefix.len() >= MAX_NAME_LEN || !prefix.bytes().all(is_name_byte) {
            return Err(CatalogError::BadPrefix {
                prefix: clip(prefix),
            });
        }
        Ok(Self {
            prefix: Some(prefix.to_string()),
            ..Self::default()
        })
    }

    /// The `toolNamePrefix`, if one is set.
    pub fn prefix(&self) -> Option<&str> {
        self.prefix.as_deref()
    }

    /// Replaces the manifest's tools (normally [`ManifestReport::tools`]). A later duplicate name is
    /// dropped (`tool/duplicate-name`), as are tools past [`MAX_TOOLS`] (`tool/too-many`); these
    /// diagnostics have no `index`. Returns them followed by [`Catalog::diagnostics`]: every hidden
    /// tool, manifest or registered, and why.
    pub fn set_manifest(&mut self, tools: Vec<FrontendTool>) -> Vec<Diagnostic> {
        let mut dropped = Vec::new();
        let mut names = HashSet::default();
        let mut kept = Vec::with_capacity(tools.len().min(MAX_TOOLS));
        for tool in tools {
            if names.contains(&tool.name) {
                dropped.push(diagnostic(
                    &tool.name,
                    code::DUPLICATE_NAME,
                    format!(
                        "the manifest already has a tool named \"{}\"; the first one wins",
                        tool.name
                    ),
                ));
            } else if kept.len() >= MAX_TOOLS {
                dropped.push(diagnostic(
                    &tool.name,
                    code::TOO_MANY,
                    format!("the manifest has more than {MAX_TOOLS} tools; this one is left out"),
                ));
            } else {
                names.insert(tool.name.clone());
                kept.push(tool);
            }
        }
        self.manifest = kept;
        self.reevaluate();
        dropped.extend(self.diagnostics());
        dropped
    }

    /// Registers a tool defined in code (`registerTool`; [`ToolHandler::Registered`]), with the
    /// same rules as a manifest entry. Registering a name that is already registered replaces that
    /// tool (in its place); a name in the manifest is refused (`tool/duplicate-name`), as is a new
    /// tool past [`MAX_TOOLS`] (`tool/too-many`).
    ///
    /// `Err` means the tool is not active now. For `tool/shadows-backend` and
    /// `tool/prefix-collision` (and `tool/bad-name` for a prefixed name that is too long) the tool
    /// is nevertheless kept, hidden, and becomes active when the conflicting backend tool goes
    /// away; for every other code it was not stored.
    pub fn register(
        &mut self,
        name: &str,
        description: &str,
        parameters: Option<Value>,
        follow_up: Option<bool>,
        time_limit: TimeLimit,
        default_enabled: bool,
    ) -> Result<(), Diagnostic> {
        let fail = |(code, message): Broken| diagnostic(name, code, message);
        let name_value = Value::String(name.to_string());
        let name = check_name(Some(&name_value)).map_err(fail)?;
        let description =
            check_description(Some(&Value::String(description.to_string()))).map_err(fail)?;
        let parameters = check_parameters(parameters.as_ref()).map_err(fail)?;
        if let TimeLimit::Ms(ms) = time_limit {
            if !(1..=MAX_TIMEOUT_MS).contains(&ms) {
                return Err(fail((
                    code::BAD_OPTION,
                    format!("timeoutMs must be an integer from 1 to {MAX_TIMEOUT_MS}, not {ms}"),
                )));
            }
        }
        if self.manifest.iter().any(|t| t.name == name) {
            return Err(fail((
                code::DUPLICATE_NAME,
                format!("tools.json already has a tool named \"{name}\""),
            )));
        }
        let tool = FrontendTool {
            name,
            description,
            parameters,
            handler: ToolHandler::Registered,
            follow_up: follow_up.unwrap_or(true),
            time_limit,
            default_enabled,
        };
        let position = match self.registered.iter().position(|t| t.name == tool.name) {
            Some(position) => {
                self.registered[position] = tool;
                position
            }
            None => {
                if self.manifest.len() + self.registered.len() >= MAX_TOOLS {
                    return Err(fail((
                        code::TOO_MANY,
                        format!("the catalog already has {MAX_TOOLS} frontend tools"),
                    )));
                }
                self.registered.push(tool);
                self.registered.len() - 1
            }
        };
        self.reevaluate();
        match self.hidden.get(self.manifest.len() + position) {
            Some(Some(why)) => Err(why.clone()),
            _ => Ok(()),
        }
    }

    /// [`Catalog::register`] with the options as `registerTool` got them (`followUp`,
    /// `timeoutMs`, `defaultEnabled` as JSON; `null` kept: `timeoutMs: null` is no deadline),
    /// checked by the same rules as a manifest entry's: a bad one is `tool/bad-option` naming the
    /// tool, after the name's own check.
    pub fn register_with_options(
        &mut self,
        name: &str,
        description: &str,
        parameters: Option<Value>,
        options: &Map,
    ) -> Result<(), Diagnostic> {
        let fail = |(code, message): Broken| diagnostic(name, code, message);
        check_name(Some(&Value::String(name.to_string()))).map_err(fail)?;
        let (follow_up, time_limit, default_enabled) = check_options(options).map_err(fail)?;
        self.register(
            name,
            description,
            parameters,
            Some(follow_up),
            time_limit,
            default_enabled,
        )
    }

    /// Removes a tool registered in code. Returns whether there was one (manifest tools cannot be
    /// unregistered).
    pub fn unregister(&mut self, name: &str) -> bool {
        let before = self.registered.len();
        self.registered.retain(|t| t.name != name);
        let removed = self.registered.len() != before;
        if removed {
            self.reevaluate();
        }
        removed
    }

    /// Replaces the backend tools with the agent's `capabilities.tools`: an array of
    /// `{name, description?, parameters?}` (the OpenAI shape is accepted too) or `{"items": [...]}`;
    /// `null` means none. Bad items are skipped with `backend/bad-tool` diagnostics (with their
    /// `index` in the list); anything else than an array, `{items}` or `null` is one such diagnostic
    /// and means no backend tools. Returns them followed by [`Catalog::diagnostics`], since shadowing
    /// is re-evaluated.
    pub fn set_backend_tools(&mut self, capabilities_tools: &Value) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        let items: &[Value] = match capabilities_tools {
            Value::Null => &[],
            Value::Array(items) => items,
            // AG-UI's `ToolsCapabilities`: `items` is optional (`{ supported: false }` has none).
            Value::Object(object) => match object.get("items") {
                Some(Value::Array(items)) => items,
                None | Some(Value::Null) => &[],
                Some(other) => {
                    diagnostics.push(backend_diagnostic(
                        None,
                        None,
                        format!(
                            "capabilities.tools.items must be an array, not {}",
                            other.kind()
                        ),
                    ));
                    &[]
                }
            },
            other => {
                diagnostics.push(backend_diagnostic(
                    None,
                    None,
                    format!(
                        "capabilities.tools must be an array or {{\"items\": [...]}}, not {}",
                        other.kind()
                    ),
                ));
                &[]
            }
        };
        let mut backend: Vec<BackendTool> = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            match backend_tool(item) {
                Ok(tool) if backend.iter().any(|t| t.name == tool.name) => {
                    let message =
                        format!("an earlier backend tool is already named \"{}\"", tool.name);
                    diagnostics.push(backend_diagnostic(Some(index), Some(&tool.name), message));
                }
                Ok(tool) => backend.push(tool),
                Err(message) => {
                    let name = unwrap_tool(item, "tool")
                        .ok()
                        .and_then(|t| t.get("name"))
                        .and_then(Value::as_str)
                        .map(clip);
                    diagnostics.push(backend_diagnostic(Some(index), name.as_deref(), message));
                }
            }
        }
        self.backend = backend;
        self.reevaluate();
        diagnostics.extend(self.diagnostics());
        diagnostics
    }

    /// Why each hidden frontend tool is hidden now, manifest tools first (see [`Catalog`]).
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for why in self.hidden.iter().flatten() {
            out.push(why.clone());
        }
        out
    }

    /// The active frontend tools: manifest tools, then registered ones, each in order.
    pub fn frontend_tools(&self) -> impl Iterator<Item = &FrontendTool> {
        self.manifest
            .iter()
            .chain(&self.registered)
            .zip(&self.hidden)
            .filter(|(_, hidden)| hidden.is_none())
            .map(|(tool, _)| tool)
    }

    /// The backend tools, in the agent's order.
    pub fn backend_tools(&self) -> &[BackendTool] {
        &self.backend
    }

    /// The active frontend tool of that (unprefixed) name.
    pub fn frontend(&self, name: &str) -> Option<&FrontendTool> {
        self.frontend_tools().find(|t| t.name == name)
    }

    /// Whether the agent has a backend tool of exactly that name.
    pub fn is_backend(&self, name: &str) -> bool {
        self.backend.iter().any(|t| t.name == name)
    }

    /// The name a frontend tool goes out under: `{prefix}{name}` when a prefix is set.
    pub fn wire_name(&self, name: &str) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}{name}"),
            None => name.to_string(),
        }
    }

    /// Where an incoming tool call (by its wire name) goes.
    ///
    /// Without a prefix: an active frontend tool of that name, else a backend tool, else
    /// [`CallTarget::Unknown`]. With a prefix: a name that starts with it and strips to an active
    /// frontend tool is that tool; otherwise a backend tool of exactly the incoming name (backend
    /// names may start with the prefix too), else `Unknown`. So an unprefixed name never reaches a
    /// frontend tool when a prefix is set (it is not what was sent), and a name that strips to the
    /// empty string is `Unknown` unless the agent has a tool named like the prefix. Whether the tool
    /// is enabled in the thread is the caller's question.
    pub fn resolve_call(&self, incoming: &str) -> CallTarget<'_> {
        let frontend_name = match &self.prefix {
            Some(prefix) => incoming.strip_prefix(prefix.as_str()),
            None => Some(incoming),
        };
        if let Some(tool) = frontend_name
            .filter(|name| !name.is_empty())
            .and_then(|name| self.frontend(name))
        {
            return CallTarget::Frontend(tool);
        }
        if self.is_backend(incoming) {
            CallTarget::Backend
        } else {
            CallTarget::Unknown
        }
    }

    /// The enabled active frontend tools as sent to the agent in `RunAgentInput.tools`: wire
    /// (prefixed) names, descriptions and schemas. `enabled` is asked with the unprefixed name.
    pub fn wire_tools(&self, enabled: impl Fn(&str) -> bool) -> Vec<Tool> {
        self.wire_tools_where(&enabled)
    }

    /// [`Catalog::wire_tools`], one copy for every caller's `enabled` (once per run: the call
    /// through `dyn` costs nothing that matters, a copy per closure type costs bytes).
    fn wire_tools_where(&self, enabled: &dyn Fn(&str) -> bool) -> Vec<Tool> {
        self.frontend_tools()
            .filter(|t| enabled(&t.name))
            .map(|t| Tool {
                name: self.wire_name(&t.name),
                description: t.description.clone(),
                parameters: Some(t.parameters.clone()),
                metadata: None,
            })
            .collect()
    }

    /// Recomputes [`Catalog::hidden`] from the current manifest, registered and backend tools.
    fn reevaluate(&mut self) {
        let mut hidden = Vec::new();
        for (position, tool) in self.manifest.iter().chain(&self.registered).enumerate() {
            hidden.push(self.why_hidden(position, &tool.name));
        }
        self.hidden = hidden;
    }

    /// Why the frontend tool at `position` (manifest, then registered) named `name` is hidden, if
    /// it is. The names are looked up by a linear scan (at most [`MAX_TOOLS`] manifest tools; the
    /// backend tools were already checked pairwise for duplicates): this runs when the catalog
    /// changes, not per event.
    fn why_hidden(&self, position: usize, name: &str) -> Option<Diagnostic> {
        let backend = |name: &str| self.backend.iter().any(|t| t.name == name);
        if position >= self.manifest.len() && self.manifest.iter().any(|t| t.name == name) {
            return Some(diagnostic(
                name,
                code::DUPLICATE_NAME,
                format!("tools.json already has a tool named \"{name}\"; it wins"),
            ));
        }
        if position >= MAX_TOOLS {
            return Some(diagnostic(
                name,
                code::TOO_MANY,
                format!("the catalog already has {MAX_TOOLS} frontend tools"),
            ));
        }
        match &self.prefix {
            None if backend(name) => Some(diagnostic(
                name,
                code::SHADOWS_BACKEND,
                format!(
                    "the agent has a backend tool named \"{name}\"; set toolNamePrefix to \
                     use both"
                ),
            )),
            None => None,
            Some(prefix) => {
                let wire = format!("{prefix}{name}");
                if wire.len() > MAX_NAME_LEN {
                    Some(diagnostic(
                        name,
                        code::BAD_NAME,
                        format!(
                            "with the prefix, the name \"{wire}\" is longer than \
                             {MAX_NAME_LEN} characters"
                        ),
                    ))
                } else if backend(&wire) {
                    Some(diagnostic(
                        name,
                        code::PREFIX_COLLISION,
                        format!("the agent has a backend tool named \"{wire}\""),
                    ))
                } else {
                    None
                }
            }
        }
    }
}

/// Reads one item of `capabilities.tools`.
fn backend_tool(item: &Value) -> Result<BackendTool, String> {
    let tool = unwrap_tool(item, "tool").map_err(|(_, message)| message)?;
    let name = match tool.get("name") {
        Some(Value::String(name)) if !name.is_empty() => name.clone(),
        Some(Value::String(_)) => return Err("the backend tool's name is empty".into()),
        Some(other) => {
            return Err(format!(
                "the backend tool's name must be a string, not {}",
                other.kind()
            ))
        }
        None => return Err("the backend tool has no name".into()),
    };
    let description = match tool.get("description") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(description)) => description.clone(),
        Some(other) => {
            return Err(format!(
                "the backend tool's description must be a string, not {}",
                other.kind()
            ))
        }
    };
    let parameters = match tool.get("parameters") {
        None | Some(Value::Null) => None,
        Some(parameters @ Value::Object(_)) => Some(parameters.clone()),
        Some(other) => {
            return Err(format!(
                "the backend tool's parameters must be an object, not {}",
                other.kind()
            ))
        }
    };
    Ok(BackendTool {
        name,
        description,
        parameters,
    })
}

/// A diagnostic about a named frontend tool that is not a manifest entry.
fn diagnostic(name: &str, code: &'static str, message: String) -> Diagnostic {
    Diagnostic {
        index: None,
        name: Some(clip(name)),
        code,
        message,
    }
}

fn backend_diagnostic(index: Option<usize>, name: Option<&str>, message: String) -> Diagnostic {
    Diagnostic {
        index,
        name: name.map(str::to_string),
        code: code::BACKEND_BAD_TOOL,
        message,
    }
}
