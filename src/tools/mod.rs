//! Frontend tools: the catalog (`tools.json`, code-registered and backend tools), argument
//! validation against each tool's JSON Schema, per-thread toggles, and the encoding of tool
//! outcomes. Sans-IO: storage and URL policy inputs come in through traits and values; JSON Schema
//! `pattern`s are matched here, in linear time (`pattern`); nothing here touches JavaScript.

use crate::json::Value;
use crate::protocol::wire::{ObjWriter, ToJson};

pub mod catalog;
pub mod outcome;
pub mod pattern;
pub mod schema;
pub mod toggles;
pub mod url;

/// Where a tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSource {
    /// A frontend tool from `tools.json` or registered in code: runs in the browser, toggleable.
    Frontend,
    /// A tool of the agent itself (`capabilities.tools`): listed, locked, always on.
    Backend,
}

/// How a frontend tool is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolHandler {
    /// From `tools.json`: `import(url)` then call the named export.
    Module {
        /// The absolute URL of the module (the manifest's `importPath`, resolved and checked).
        url: String,
        /// The named export to call.
        entrypoint: String,
    },
    /// Registered in code (`registerTool`): the host keeps the function under the tool's name.
    Registered,
}

/// A validated frontend tool.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontendTool {
    /// The tool's name as the app knows it (without any `toolNamePrefix`).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// Its argument schema: a JSON Schema object (`{"type":"object","properties":{}}` when absent).
    pub parameters: Value,
    /// How to run it.
    pub handler: ToolHandler,
    /// `false`: fire-and-forget; runs as soon as its call ends, never causes a restart.
    pub follow_up: bool,
    /// Its time limit: the runtime's default, none, or its own.
    pub time_limit: TimeLimit,
    /// Whether it is on in a thread whose toggles say nothing about it (`defaultEnabled`).
    pub default_enabled: bool,
}

/// A tool's time limit (`timeoutMs`): loading its module and the call together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeLimit {
    /// `timeoutMs` absent: the runtime's `toolTimeoutMs`.
    #[default]
    Default,
    /// `timeoutMs: null`: no deadline (a tool that waits for a person); Stop still cancels it.
    Never,
    /// `timeoutMs: n`, in milliseconds.
    Ms(u32),
}

impl FrontendTool {
    /// Whether the tool is on in a thread whose saved toggle for it is `saved`.
    pub fn is_on(&self, saved: Option<bool>) -> bool {
        saved.unwrap_or(self.default_enabled)
    }
}

/// A backend tool, as listed in the agent's `capabilities.tools`.
#[derive(Debug, Clone, PartialEq)]
pub struct BackendTool {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its argument schema, if the agent gave one.
    pub parameters: Option<Value>,
}

/// A problem with one tool: the tool is skipped, everything else still loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The entry's position in `tools.json`, or, for `backend/bad-tool`, in the agent's
    /// `capabilities.tools` (absent for registered tools and for conflicts found in the catalog).
    pub index: Option<usize>,
    /// The tool's name, when it has a readable one.
    pub name: Option<String>,
    /// A stable code, e.g. `tool/bad-name` (see [`catalog`] for the list).
    pub code: &'static str,
    /// What is wrong, for people.
    pub message: String,
}

/// One row of the tool selector (`listTools`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolEntry {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its argument schema.
    pub parameters: Option<Value>,
    /// Frontend (toggleable) or backend (locked).
    pub source: ToolSource,
    /// Whether the agent gets it in this thread (backend tools always).
    pub enabled: bool,
    /// Whether the user can toggle it (backend tools cannot).
    pub locked: bool,
}

impl ToJson for ToolSource {
    fn write_json(&self, out: &mut String) {
        match self {
            ToolSource::Frontend => "frontend",
            ToolSource::Backend => "backend",
        }
        .write_json(out);
    }
}

impl ToJson for BackendTool {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("name", &self.name);
        w.field("description", &self.description);
        w.field("parameters", &self.parameters);
        w.end();
    }
}

impl ToJson for Diagnostic {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("index", &self.index);
        w.field("name", &self.name);
        w.field("code", self.code);
        w.field("message", &self.message);
        w.end();
    }
}

impl ToJson for ToolEntry {
    fn write_json(&self, out: &mut String) {
        let mut w = ObjWriter::new(out);
        w.field("name", &self.name);
        w.field("description", &self.description);
        w.field("parameters", &self.parameters);
        w.field("source", &self.source);
        w.field("enabled", &self.enabled);
        w.field("locked", &self.locked);
        w.end();
    }
}

/// The tool selector's rows for one thread: frontend tools with their toggle, then backend tools.
pub fn list_tools<S: toggles::KeyValueStore>(
    catalog: &catalog::Catalog,
    toggles: &mut toggles::Toggles<S>,
    thread_id: Option<&str>,
) -> Vec<ToolEntry> {
    let mut entries = Vec::new();
    for tool in catalog.frontend_tools() {
        entries.push(ToolEntry {
            name: tool.name.clone(),
            description: tool.description.clone(),
            parameters: Some(tool.parameters.clone()),
            source: ToolSource::Frontend,
            enabled: tool.is_on(toggles.saved(thread_id, &tool.name)),
            locked: false,
        });
    }
    for tool in catalog.backend_tools() {
        entries.push(ToolEntry {
            name: tool.name.clone(),
            description: tool.description.clone(),
            parameters: tool.parameters.clone(),
            source: ToolSource::Backend,
            enabled: true,
            locked: true,
        });
    }
    entries
}

/// `out.push_str(s)`, out of line: messages and stored values are built from many pieces, off the
/// hot path.
#[inline(never)]
fn push(out: &mut String, s: &str) {
    out.push_str(s);
}

/// Why [`set_tool_enabled`] refused a change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToggleError {
    /// A backend tool (and no frontend tool of that name): the agent's own, always on.
    #[error("{name} is a backend tool: it is always on")]
    Locked {
        /// The tool.
        name: String,
    },
}

impl ToggleError {
    /// A stable code: `tools/locked`.
    pub fn code(&self) -> &'static str {
        match self {
            ToggleError::Locked { .. } => "tools/locked",
        }
    }
}

/// Turns a tool on or off for a thread (`None`: the default of new chats). Backend tools are
/// locked: a frontend tool of the same name is the one toggled. A name the catalog does not
/// know (yet) is saved all the same: toggles may be set before `tools.json` has loaded.
pub fn set_tool_enabled<S: toggles::KeyValueStore>(
    catalog: &catalog::Catalog,
    toggles: &mut toggles::Toggles<S>,
    thread_id: Option<&str>,
    name: &str,
    enabled: bool,
) -> Result<(), ToggleError> {
    if catalog.is_backend(name) && catalog.frontend(name).is_none() {
        return Err(ToggleError::Locked {
            name: name.to_owned(),
        });
    }
    toggles.set_enabled(thread_id, name, enabled);
    Ok(())
}
