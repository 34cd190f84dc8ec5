//! Rule 7: an event of a sub-agent run may only continue what that run opened.

use crate::lean::ids::IdMap;
use crate::protocol::event::Event;

use super::error::{EntityKind, OrderError};
use super::{owner_name, OwnerIx, Verifier};

impl Verifier {
    /// Rule 7 for a text or tool-call continuation. Only a sub-agent's event can contradict the
    /// owner, so an untagged one skips the look-up in `owners`, which holds every id of the run
    /// (a cache miss per delta on long runs).
    pub(super) fn continuation_tag_error(
        &self,
        index: usize,
        event: &Event,
        owners: &IdMap,
        entity: EntityKind,
        id: &str,
    ) -> Result<(), OrderError> {
        match event.subagent_run_id() {
            Some(tag) => self.tag_error(index, event, Some(tag), owners.get(id), entity, id),
            None => Ok(()),
        }
    }

    /// Rule 7 for one event: an untagged event always passes; a tagged one must match the owner
    /// recorded for its entity, if any.
    pub(super) fn tag_error(
        &self,
        index: usize,
        event: &Event,
        tag: Option<&str>,
        owner: Option<OwnerIx>,
        entity: EntityKind,
        entity_id: &str,
    ) -> Result<(), OrderError> {
        let (Some(tag), Some(owner)) = (tag, owner) else {
            return Ok(());
        };
        let owner = owner_name(&self.owner_names, owner);
        if owner == Some(tag) {
            return Ok(());
        }
        Err(OrderError::SubagentMismatch {
            index,
            event_type: event.known_type_name().unwrap_or_default(),
            entity,
            entity_id: entity_id.to_owned(),
            subagent_run_id: tag.to_owned(),
            owner: owner.map(str::to_owned),
        })
    }
}
