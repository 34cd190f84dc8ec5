//! Rules 3 and 5: a message, tool call or reasoning span is opened once, continued and closed
//! only while open, and nothing is left open at `RUN_FINISHED`.

use crate::protocol::event::Event;

use super::error::{EntityKind, OpenKind, OrderError};
use super::Verifier;

impl Verifier {
    pub(super) fn continue_text(
        &mut self,
        index: usize,
        event: &Event,
        id: &str,
        end: bool,
    ) -> Result<(), OrderError> {
        if !self.text_messages.contains(id) {
            return Err(OrderError::TextMessageNotOpen {
                index,
                event_type: event.known_type_name().unwrap_or_default(),
                message_id: id.to_owned(),
            });
        }
        self.continuation_tag_error(index, event, &self.message_owners, EntityKind::Message, id)?;
        if end {
            self.text_messages.remove(id);
        }
        Ok(())
    }

    pub(super) fn continue_tool(
        &mut self,
        index: usize,
        event: &Event,
        id: &str,
        end: bool,
    ) -> Result<(), OrderError> {
        if !self.tool_calls.contains(id) {
            return Err(OrderError::ToolCallNotOpen {
                index,
                event_type: event.known_type_name().unwrap_or_default(),
                tool_call_id: id.to_owned(),
            });
        }
        self.continuation_tag_error(
            index,
            event,
            &self.tool_call_owners,
            EntityKind::ToolCall,
            id,
        )?;
        if end {
            self.tool_calls.remove(id);
        }
        Ok(())
    }

    pub(super) fn open_reasoning(
        &mut self,
        index: usize,
        event: &Event,
        id: &str,
        span: bool,
    ) -> Result<(), OrderError> {
        let open = if span {
            &self.reasoning_spans
        } else {
            &self.reasoning_messages
        };
        if open.contains(id) {
            let (event_type, message_id) =
                (event.known_type_name().unwrap_or_default(), id.to_owned());
            return Err(if span {
                OrderError::ReasoningSpanAlreadyOpen {
                    index,
                    event_type,
                    message_id,
                }
            } else {
                OrderError::ReasoningMessageAlreadyOpen {
                    index,
                    event_type,
                    message_id,
                }
            });
        }
        let tag = event.subagent_run_id();
        let owner = self.reasoning_owners.get(id);
        self.tag_error(index, event, tag, owner, EntityKind::ReasoningMessage, id)?;
        if owner.is_none() {
            let owner = self.owner(tag);
            self.reasoning_owners.insert(id, owner);
        }
        if span {
            self.reasoning_spans.insert(id.to_owned());
        } else {
            self.reasoning_messages.insert(id.to_owned());
        }
        Ok(())
    }

    pub(super) fn continue_reasoning(
        &mut self,
        index: usize,
        event: &Event,
        id: &str,
        span: bool,
        end: bool,
    ) -> Result<(), OrderError> {
        let open = if span {
            &self.reasoning_spans
        } else {
            &self.reasoning_messages
        };
        if !open.contains(id) {
            let (event_type, message_id) =
                (event.known_type_name().unwrap_or_default(), id.to_owned());
            return Err(if span {
                OrderError::ReasoningSpanNotOpen {
                    index,
                    event_type,
                    message_id,
                }
            } else {
                OrderError::ReasoningMessageNotOpen {
                    index,
                    event_type,
                    message_id,
                }
            });
        }
        let owner = self.reasoning_owners.get(id);
        self.tag_error(
            index,
            event,
            event.subagent_run_id(),
            owner,
            EntityKind::ReasoningMessage,
            id,
        )?;
        if end {
            if span {
                self.reasoning_spans.remove(id);
            } else {
                self.reasoning_messages.remove(id);
            }
        }
        Ok(())
    }

    /// Rule 5, in the TS order: steps, text messages, reasoning messages, reasoning spans,
    /// tool calls, sub-agents.
    pub(super) fn check_nothing_open(&self, index: usize) -> Result<(), OrderError> {
        let fail = |what, mut ids: Vec<String>| {
            crate::lean::sort::sort(&mut ids);
            Err(OrderError::RunFinishedWithOpen {
                index,
                event_type: "RUN_FINISHED",
                what,
                ids,
            })
        };
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|(owner, name)| match owner {
                Some(owner) => format!("{name} (subagent '{owner}')"),
                None => name.clone(),
            })
            .collect();
        if !steps.is_empty() {
            return fail(OpenKind::Step, steps);
        }
        for (what, set) in [
            (OpenKind::TextMessage, &self.text_messages),
            (OpenKind::ReasoningMessage, &self.reasoning_messages),
            (OpenKind::ReasoningSpan, &self.reasoning_spans),
            (OpenKind::ToolCall, &self.tool_calls),
            (OpenKind::Subagent, &self.subagents_active),
        ] {
            if !set.is_empty() {
                return fail(what, set.iter().cloned().collect());
            }
        }
        Ok(())
    }
}
