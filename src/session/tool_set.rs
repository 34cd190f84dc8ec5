//! What the agent may call in a turn: [`ToolSet`], resolved from the catalog and the thread's
//! toggles, and [`CallKind`].

use crate::lean::hash::HashSet;
use crate::lean::sorted::SortedMap;

use crate::protocol::event::Tool;
use crate::tools::catalog::Catalog;
use crate::tools::toggles::{KeyValueStore, Toggles};
use crate::tools::FrontendTool;

/// What the agent may call in this turn, as the runtime resolved it from its catalog and the
/// thread's toggles when the turn started.
#[derive(Debug, Clone, Default)]
pub struct ToolSet {
    /// The enabled frontend tools, as sent in `RunAgentInput.tools` (prefixed names).
    pub wire: Vec<Tool>,
    /// Incoming tool-call name → what it is. A name that is absent is unknown.
    pub calls: SortedMap<CallKind>,
}

impl ToolSet {
    /// Resolves the catalog for one thread: the enabled frontend tools go out (with the
    /// catalog's prefix), every frontend tool and backend tool is known by its incoming name.
    pub fn from_catalog(catalog: &Catalog, mut enabled: impl FnMut(&FrontendTool) -> bool) -> Self {
        let mut set = ToolSet::default();
        let mut on = HashSet::default();
        for tool in catalog.frontend_tools() {
            let kind = if enabled(tool) {
                on.insert(tool.name.clone());
                CallKind::Enabled(tool.clone())
            } else {
                CallKind::Disabled
            };
            set.calls.insert(catalog.wire_name(&tool.name), kind);
        }
        for tool in catalog.backend_tools() {
            set.calls.insert(tool.name.clone(), CallKind::Backend);
        }
        set.wire = catalog.wire_tools(|name| on.contains(name));
        set
    }

    /// The tool set of a thread (`None`: a new chat): the catalog with the thread's toggles. The
    /// one rule for what a run sends, used by the run itself and by `activeTools`.
    pub fn for_thread<S: KeyValueStore>(
        catalog: &Catalog,
        toggles: &mut Toggles<S>,
        thread_id: Option<&str>,
    ) -> Self {
        Self::from_catalog(catalog, |tool| {
            tool.is_on(toggles.saved(thread_id, &tool.name))
        })
    }
}

/// What an incoming tool-call name refers to.
#[derive(Debug, Clone, PartialEq)]
pub enum CallKind {
    /// An enabled frontend tool: the browser runs it.
    Enabled(FrontendTool),
    /// A frontend tool that is disabled in this thread.
    Disabled,
    /// A backend tool: the server answers it.
    Backend,
}
