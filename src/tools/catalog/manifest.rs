//! Reading `tools.json`: the whole-file checks ([`CatalogError`]), then each entry on its own
//! (the rules and codes are listed in the [catalog's docs](super)). A bad entry is skipped with a
//! [`Diagnostic`]; the good ones load in their order.

use crate::json::Value;
use crate::lean::hash::HashSet;
use crate::tools::url::{check_origin, resolve, UrlParser};
use crate::tools::{Diagnostic, FrontendTool, ToolHandler};
use thiserror::Error;

use super::entry::{
    check_description, check_name, check_options, check_parameters, clip, code, is_js_identifier,
    unwrap_tool, Broken, MAX_TOOLS,
};

/// The largest `tools.json` accepted, in bytes (1 MiB), checked before parsing.
pub const MAX_MANIFEST_BYTES: usize = 1_048_576;

/// Why `tools.json` could not be used at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// The request failed, or the server answered with an error status. Produced by the browser
    /// adapter; defined here so every code lives in one enum.
    #[error("could not fetch tools.json: {message}")]
    Fetch {
        /// The HTTP status, when there was a response.
        status: Option<u16>,
        /// What went wrong.
        message: String,
    },
    /// The body is an HTML page: by its `Content-Type`, or because it starts with `<`. Servers
    /// with an SPA fallback (nginx `try_files ... /index.html`) answer a missing `tools.json` with
    /// `index.html` and status 200.
    #[error("tools.json looks like an HTML page (a server fallback?)")]
    Html,
    /// The body is not JSON.
    #[error("tools.json is not json: {message}")]
    NotJson {
        /// The parser's message, with line and column.
        message: String,
    },
    /// The JSON is not an array.
    #[error("tools.json must be an array of tool entries, found {found}")]
    NotArray {
        /// What it is instead: `an object`, `a string`, ...
        found: &'static str,
    },
    /// The body is larger than [`MAX_MANIFEST_BYTES`].
    #[error("tools.json is {size} bytes, over the limit of {limit} bytes")]
    TooLarge {
        /// The body's size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// The `toolNamePrefix` option is not 1 to 63 characters of `[A-Za-z0-9_-]`.
    #[error(
        "the tool name prefix `{prefix}` must be 1 to 63 characters of A-Z, a-z, 0-9, _ and -"
    )]
    BadPrefix {
        /// The prefix given.
        prefix: String,
    },
}

impl CatalogError {
    /// A stable, machine-readable code: `tools/fetch`, `tools/not-json` (also for an HTML page),
    /// `tools/not-array`, `tools/too-large`, `tools/bad-prefix`.
    pub fn code(&self) -> &'static str {
        match self {
            CatalogError::Fetch { .. } => "tools/fetch",
            CatalogError::Html | CatalogError::NotJson { .. } => "tools/not-json",
            CatalogError::NotArray { .. } => "tools/not-array",
            CatalogError::TooLarge { .. } => "tools/too-large",
            CatalogError::BadPrefix { .. } => "tools/bad-prefix",
        }
    }

    /// The HTTP status, for [`CatalogError::Fetch`] with a response.
    pub fn status(&self) -> Option<u16> {
        match self {
            CatalogError::Fetch { status, .. } => *status,
            _ => None,
        }
    }
}

/// The status rule for `tools.json`: anything but 2xx fails the whole file with `tools/fetch`
/// (the error carries the status). `url` is where the answer came from.
pub fn check_manifest_status(status: u16, url: &str) -> Result<(), CatalogError> {
    if crate::http::is_success(status) {
        return Ok(());
    }
    Err(CatalogError::Fetch {
        status: Some(status),
        message: format!("{url} answered HTTP {status}"),
    })
}

/// What [`parse_manifest`] needs to know besides the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestContext {
    /// The absolute URL `tools.json` was fetched from (after redirects): `importPath`s resolve
    /// against it.
    pub manifest_url: String,
    /// The page's origin (`location.origin`): modules of this origin may always be imported.
    pub page_origin: String,
    /// Other origins modules may be imported from (`allowedImportOrigins`).
    pub allowed_import_origins: Vec<String>,
}

/// The result of reading `tools.json`: the tools that loaded and the entries that did not.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ManifestReport {
    /// The valid tools, in file order.
    pub tools: Vec<FrontendTool>,
    /// One diagnostic per skipped entry, in file order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads `tools.json`: checks the whole file, then validates each entry (see the
/// [catalog's docs](super) for the rules and codes). Never panics.
///
/// `content_type` is the response's `Content-Type` header, if any. `urls` reads every `importPath`
/// and origin: the browser's `URL` (see [`url`](crate::tools::url)).
pub fn parse_manifest(
    body: &[u8],
    content_type: Option<&str>,
    ctx: &ManifestContext,
    urls: &dyn UrlParser,
) -> Result<ManifestReport, CatalogError> {
    if body.len() > MAX_MANIFEST_BYTES {
        return Err(CatalogError::TooLarge {
            size: body.len(),
            limit: MAX_MANIFEST_BYTES,
        });
    }
    if content_type.is_some_and(is_html_type) {
        return Err(CatalogError::Html);
    }
    // `Response.json()` skips a UTF-8 byte order mark; so do we.
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let text_start = body.iter().position(|b| !b.is_ascii_whitespace());
    match text_start {
        None => {
            return Err(CatalogError::NotJson {
                message: "the body is empty".to_string(),
            })
        }
        Some(start) if body[start] == b'<' => return Err(CatalogError::Html),
        Some(_) => {}
    }
    let text = std::str::from_utf8(body).map_err(|e| CatalogError::NotJson {
        message: format!("the body is not UTF-8 ({e})"),
    })?;
    let value = Value::parse(text).map_err(|e| CatalogError::NotJson {
        message: e.to_string(),
    })?;
    let Value::Array(entries) = value else {
        return Err(CatalogError::NotArray {
            found: value.kind(),
        });
    };

    let mut report = ManifestReport::default();
    let mut names: HashSet<String> = HashSet::default();
    for (index, entry) in entries.iter().enumerate() {
        let tool = match validate_entry(entry, ctx, urls) {
            Ok(tool) => tool,
            Err((code, message)) => {
                report.diagnostics.push(Diagnostic {
                    index: Some(index),
                    name: readable_name(entry),
                    code,
                    message,
                });
                continue;
            }
        };
        let rejection = if names.contains(&tool.name) {
            Some((
                code::DUPLICATE_NAME,
                format!(
                    "an earlier entry is already named \"{}\"; the first one wins",
                    tool.name
                ),
            ))
        } else if report.tools.len() >= MAX_TOOLS {
            Some((
                code::TOO_MANY,
                format!("tools.json has more than {MAX_TOOLS} tools; this one is left out"),
            ))
        } else {
            None
        };
        match rejection {
            Some((code, message)) => report.diagnostics.push(Diagnostic {
                index: Some(index),
                name: Some(tool.name),
                code,
                message,
            }),
            None => {
                names.insert(tool.name.clone());
                report.tools.push(tool);
            }
        }
    }
    Ok(report)
}

/// Validates one manifest entry on its own (duplicates and the cap are the caller's).
fn validate_entry(
    entry: &Value,
    ctx: &ManifestContext,
    urls: &dyn UrlParser,
) -> Result<FrontendTool, Broken> {
    let Some(entry) = entry.as_object() else {
        return Err((
            code::NOT_OBJECT,
            format!("the entry is {}, not an object", entry.kind()),
        ));
    };
    let tool = match entry.get("tool") {
        Some(tool) => unwrap_tool(tool, "tool")?,
        None => return Err((code::NOT_OBJECT, "the entry has no \"tool\" object".into())),
    };
    let name = check_name(tool.get("name"))?;
    let description = check_description(tool.get("description"))?;
    let parameters = check_parameters(tool.get("parameters"))?;

    let import_path = match entry.get("importPath") {
        Some(Value::String(path)) => path,
        Some(other) => {
            return Err((
                code::BAD_IMPORT_PATH,
                format!("importPath must be a string, not {}", other.kind()),
            ))
        }
        None => return Err((code::BAD_IMPORT_PATH, "importPath is missing".into())),
    };
    let url = resolve(import_path, &ctx.manifest_url, urls)
        .map_err(|e| (code::BAD_IMPORT_PATH, format!("importPath: {e}")))?;
    check_origin(&url, &ctx.page_origin, &ctx.allowed_import_origins, urls).map_err(|e| {
        (
            code::FOREIGN_ORIGIN,
            format!("importPath {}: {e}", url.href),
        )
    })?;

    let entrypoint = match entry.get("entrypoint") {
        Some(Value::String(entrypoint)) if is_js_identifier(entrypoint) => entrypoint.clone(),
        Some(Value::String(entrypoint)) => {
            return Err((
                code::BAD_ENTRYPOINT,
                format!(
                    "entrypoint \"{}\" is not a javascript identifier (^[A-Za-z_$][A-Za-z0-9_$]*$)",
                    clip(entrypoint)
                ),
            ))
        }
        Some(other) => {
            return Err((
                code::BAD_ENTRYPOINT,
                format!("entrypoint must be a string, not {}", other.kind()),
            ))
        }
        None => return Err((code::BAD_ENTRYPOINT, "entrypoint is missing".into())),
    };

    let (follow_up, time_limit, default_enabled) = check_options(entry)?;

    Ok(FrontendTool {
        name,
        description,
        parameters,
        handler: ToolHandler::Module {
            url: url.href,
            entrypoint,
        },
        follow_up,
        time_limit,
        default_enabled,
    })
}

/// The entry's tool name for a diagnostic, when it is a string (shortened if long).
fn readable_name(entry: &Value) -> Option<String> {
    let tool = unwrap_tool(entry.get("tool")?, "tool").ok()?;
    tool.get("name").and_then(Value::as_str).map(clip)
}

fn is_html_type(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("");
    let essence = crate::lean::text::trim(essence);
    essence.eq_ignore_ascii_case("text/html")
        || essence.eq_ignore_ascii_case("application/xhtml+xml")
}
