//! The reducer: [`Thread::apply`] folds one expanded, verified event into the thread, as
//! `defaultApplyEvents` of `@ag-ui/client@1.0.0` does (`default.ts`).

use crate::json::{self, Map, Value};
use crate::lean::hash::{HashMap, HashSet};
use crate::protocol::event::{
    ActivityMessage, AssistantMessage, Content, EncryptedValueSubtype, Event, FunctionCall,
    FunctionKind, JsonObject, Message, MessagesSnapshot, RareFields, ReasoningMessage,
    RunFinishedOutcome, TextMessage, TextMessageRole, TextMessageStart, ToolCall, ToolCallResult,
    ToolCallStart, ToolMessage, UserMessage,
};

use super::error::{Fault, ReduceError};
use super::tally::{is_placeholder, Finished};
use super::{Applied, Thread};

/// The metadata key `@ag-ui/client` uses on `MESSAGES_SNAPSHOT` to say which activity types the
/// snapshot is authoritative for (`src/activity-history.ts`).
const ACTIVITY_HISTORY_METADATA: &str = "@ag-ui/client";

impl Thread {
    /// Folds one expanded, verified event into the thread.
    ///
    /// `*_CHUNK` events are ignored (they must be expanded first; the TS reducer throws on
    /// them), as are events that change no message or state (`STEP_*`, `RAW`, `CUSTOM`,
    /// `REASONING_START`/`END`, `SUBAGENT_*`, `RUN_ERROR`, unknown types).
    pub fn apply(&mut self, event: &Event) -> Result<Applied, ReduceError> {
        self.fold(event).map_err(|fault| fault.into_error(event))
    }

    /// [`apply`](Self::apply) without building the error: what went wrong comes back as a
    /// [`Fault`] that borrows the event (the session, which drops these errors as the TS client
    /// does, then carries no code to write them).
    pub(crate) fn fold<'a>(&mut self, event: &'a Event) -> Result<Applied, Fault<'a>> {
        match event {
            Event::RunStarted(e) => {
                // default.ts RUN_STARTED: "A new run starts a new tally".
                self.begin_run();
                let Some(input) = &e.input else {
                    return Ok(Applied::None);
                };
                // default.ts: add echoed input messages that aren't already present (by id).
                for message in &input.messages {
                    if self.position(message.id()).is_none() {
                        self.messages.push(message.clone());
                        self.index_message(self.messages.len() - 1);
                    }
                }
                Ok(Applied::Messages)
            }
            Event::RunFinished(e) => {
                self.run.finished = Some(match &e.outcome {
                    None => Finished::Derived,
                    Some(RunFinishedOutcome::Success {
                        pending_tool_call_ids,
                    }) => match pending_tool_call_ids {
                        Some(ids) if !ids.is_empty() => Finished::Named(ids.clone()),
                        _ => Finished::Derived,
                    },
                    Some(_) => Finished::Nothing,
                });
                Ok(Applied::None)
            }
            Event::TextMessageStart(e) => {
                if let Some(at) = self.position(&e.message_id) {
                    // default.ts: a message with this id already exists (e.g. created by
                    // TOOL_CALL_START with the same parentMessageId): keep it, merge metadata.
                    let message = &mut self.messages[at];
                    if matches!(message, Message::Activity(_)) {
                        return Err(Fault::ActivityIdReused(&e.message_id));
                    }
                    return Ok(changed_if(
                        merge_message_metadata(message, e.metadata.as_ref()),
                        at,
                    ));
                }
                Ok(Applied::Added(self.start_text(e, e.message_id.clone())))
            }
            Event::TextMessageContent(e) => {
                let at = self.text_target(&e.message_id)?;
                let message = &mut self.messages[at];
                append_text(message, &e.delta);
                merge_message_metadata(message, e.metadata.as_ref());
                Ok(Applied::Message(at))
            }
            Event::TextMessageEnd(e) => {
                let at = self.text_target(&e.message_id)?;
                shrink_text(&mut self.messages[at]);
                let changed = merge_message_metadata(&mut self.messages[at], e.metadata.as_ref());
                Ok(changed_if(changed, at))
            }
            Event::ReasoningMessageStart(e) => {
                if let Some(at) = self.position(&e.message_id) {
                    let message = &mut self.messages[at];
                    if matches!(message, Message::Activity(_)) {
                        return Err(Fault::ActivityIdReused(&e.message_id));
                    }
                    return Ok(changed_if(
                        merge_message_metadata(message, e.metadata.as_ref()),
                        at,
                    ));
                }
                let message = Message::Reasoning(ReasoningMessage {
                    id: e.message_id.clone(),
                    content: String::new(),
                    rare: RareFields {
                        metadata: merged(None, e.metadata.as_ref()),
                        subagent_run_id: e.subagent_run_id.clone(),
                        ..RareFields::default()
                    }
                    .boxed(),
                });
                Ok(Applied::Added(self.append(message)))
            }
            Event::ReasoningMessageContent(e) => {
                let at = self.text_target(&e.message_id)?;
                let message = &mut self.messages[at];
                append_text(message, &e.delta);
                merge_message_metadata(message, e.metadata.as_ref());
                Ok(Applied::Message(at))
            }
            Event::ReasoningMessageEnd(e) => {
                let at = self.text_target(&e.message_id)?;
                let changed = merge_message_metadata(&mut self.messages[at], e.metadata.as_ref());
                Ok(changed_if(changed, at))
            }
            Event::ToolCallStart(e) => {
                self.run.start(&e.tool_call_id);
                // default.ts TOOL_CALL_START: applying a start is idempotent; a known call is
                // renamed if needed and gets the metadata, `arguments` untouched.
                if let Some((m, c)) = self.call_position(&e.tool_call_id) {
                    let call = self.call_mut(m, c);
                    let renamed = call.function.name != e.tool_call_name;
                    if renamed {
                        call.function.name.clone_from(&e.tool_call_name);
                    }
                    let changed = merge_rare_metadata(&mut call.rare, e.metadata.as_ref());
                    return Ok(changed_if(renamed || changed, m));
                }
                Ok(self.start_call(e, e.tool_call_id.clone(), e.tool_call_name.clone()))
            }
            Event::ToolCallArgs(e) => {
                let (m, c) = self.call_target(&e.tool_call_id)?;
                let call = self.call_mut(m, c);
                json::push_str(&mut call.function.arguments, &e.delta);
                merge_rare_metadata(&mut call.rare, e.metadata.as_ref());
                Ok(Applied::Message(m))
            }
            Event::ToolCallEnd(e) => {
                let (m, c) = self.call_target(&e.tool_call_id)?;
                self.run.end(&e.tool_call_id);
                let call = self.call_mut(m, c);
                // Finished: held in its length (it grew by doubling while it streamed).
                call.function.arguments.shrink_to_fit();
                let changed = merge_rare_metadata(&mut call.rare, e.metadata.as_ref());
                Ok(changed_if(changed, m))
            }
            Event::ToolCallResult(e) => Ok(Applied::Added(self.add_result(
                e,
                e.message_id.clone(),
                e.content.clone(),
                e.tool_call_id.clone(),
            ))),
            Event::StateSnapshot(e) => {
                self.state = e.snapshot.clone();
                Ok(Applied::State)
            }
            Event::StateDelta(e) => {
                // json_patch::patch reverts every applied operation when one fails, so a failed
                // patch leaves the state as it was (the TS client patches a copy and warns).
                crate::json::patch::apply(&mut self.state, &e.delta).map_err(Fault::StatePatch)?;
                Ok(Applied::State)
            }
            Event::MessagesSnapshot(e) => {
                self.apply_messages_snapshot(e);
                Ok(Applied::Messages)
            }
            Event::ActivitySnapshot(e) => {
                let replace = e.replace.unwrap_or(true);
                let fresh = || {
                    Message::Activity(ActivityMessage {
                        id: e.message_id.clone(),
                        activity_type: e.activity_type.clone(),
                        content: e.content.clone(),
                        rare: RareFields {
                            subagent_run_id: e.subagent_run_id.clone(),
                            ..RareFields::default()
                        }
                        .boxed(),
                    })
                };
                let Some(at) = self.position(&e.message_id) else {
                    let at = self.append(fresh());
                    merge_message_metadata(&mut self.messages[at], e.metadata.as_ref());
                    return Ok(Applied::Added(at));
                };
                match &mut self.messages[at] {
                    Message::Activity(existing) => {
                        if replace {
                            // default.ts: a replace keeps the accumulated metadata but takes
                            // the event's attribution (subagentRunId), present or not.
                            existing.activity_type.clone_from(&e.activity_type);
                            existing.content.clone_from(&e.content);
                            match &e.subagent_run_id {
                                Some(tag) => {
                                    existing.rare_mut().subagent_run_id = Some(tag.clone())
                                }
                                None => {
                                    if let Some(rare) = &mut existing.rare {
                                        rare.subagent_run_id = None;
                                        if rare.is_empty() {
                                            existing.rare = None;
                                        }
                                    }
                                }
                            }
                        }
                        // default.ts: the metadata merges onto the existing activity message
                        // even when `replace` is false.
                        merge_rare_metadata(&mut existing.rare, e.metadata.as_ref());
                    }
                    _ if replace => {
                        // default.ts: a non-activity message under this id is replaced whole.
                        self.messages[at] = fresh();
                        merge_message_metadata(&mut self.messages[at], e.metadata.as_ref());
                        self.reindex();
                    }
                    _ => return Ok(Applied::None),
                }
                Ok(Applied::Message(at))
            }
            Event::ActivityDelta(e) => {
                // default.ts ACTIVITY_DELTA: an unknown id is silently ignored.
                let Some(at) = self.position(&e.message_id) else {
                    return Ok(Applied::None);
                };
                let Message::Activity(activity) = &mut self.messages[at] else {
                    return Err(Fault::NotActivity(&e.message_id));
                };
                // default.ts: "Metadata does not depend on the patch succeeding", merge first.
                merge_rare_metadata(&mut activity.rare, e.metadata.as_ref());
                let mut content = Value::Object(activity.content.clone());
                // `None`: the patch applied but did not leave an object.
                let patched = match crate::json::patch::apply(&mut content, &e.patch) {
                    Err(error) => Err(Some(error)),
                    Ok(()) => match content {
                        Value::Object(object) => Ok(object),
                        _ => Err(None),
                    },
                };
                match patched {
                    Ok(content) => {
                        activity.content = content;
                        activity.activity_type.clone_from(&e.activity_type);
                        Ok(Applied::Message(at))
                    }
                    Err(error) => Err(Fault::ActivityPatch(&e.message_id, error)),
                }
            }
            Event::ReasoningEncryptedValue(e) => {
                // default.ts: attaches the value only; the event's metadata stays on the event.
                let at = match e.subtype {
                    EncryptedValueSubtype::ToolCall => {
                        let Some((m, c)) = self.call_position(&e.entity_id) else {
                            return Ok(Applied::None);
                        };
                        self.call_mut(m, c).rare_mut().encrypted_value =
                            Some(e.encrypted_value.clone());
                        m
                    }
                    EncryptedValueSubtype::Message => {
                        let Some(at) = self.position(&e.entity_id) else {
                            return Ok(Applied::None);
                        };
                        let message = &mut self.messages[at];
                        // Activity messages have no encryptedValue.
                        if matches!(message, Message::Activity(_)) {
                            return Ok(Applied::None);
                        }
                        message.rare_mut().encrypted_value = Some(e.encrypted_value.clone());
                        at
                    }
                };
                Ok(Applied::Message(at))
            }
            _ => Ok(Applied::None),
        }
    }

    /// [`fold`](Self::fold) for an event nobody reads after the thread (the session's, when no
    /// `agui` listener is subscribed): the strings a new message or call keeps (its id, a tool
    /// call's name, a result's content and call id) move out of the event instead of being
    /// copied, and a `STATE_DELTA`'s values move into the state (all or nothing, as `fold`). The
    /// event is left with empty strings and `null`s in their place.
    pub(crate) fn fold_moving<'a>(&mut self, event: &'a mut Event) -> Result<Applied, Fault<'a>> {
        match event {
            Event::StateDelta(e) => {
                json::patch::apply_taking(&mut self.state, &mut e.delta)
                    .map_err(Fault::StatePatch)?;
                Ok(Applied::State)
            }
            Event::TextMessageStart(e) if self.position(&e.message_id).is_none() => {
                let id = std::mem::take(&mut e.message_id);
                Ok(Applied::Added(self.start_text(e, id)))
            }
            Event::ToolCallStart(e) if self.call_position(&e.tool_call_id).is_none() => {
                self.run.start(&e.tool_call_id);
                let id = std::mem::take(&mut e.tool_call_id);
                let name = std::mem::take(&mut e.tool_call_name);
                Ok(self.start_call(e, id, name))
            }
            Event::ToolCallResult(e) => {
                let id = std::mem::take(&mut e.message_id);
                let content = std::mem::take(&mut e.content);
                let call = std::mem::take(&mut e.tool_call_id);
                Ok(Applied::Added(self.add_result(e, id, content, call)))
            }
            event => self.fold(event),
        }
    }

    /// A new text message `id` for `TEXT_MESSAGE_START` `e` (no message has its id), appended.
    fn start_text(&mut self, e: &TextMessageStart, id: String) -> usize {
        let rare = RareFields {
            name: e.name.clone(),
            metadata: merged(None, e.metadata.as_ref()),
            subagent_run_id: e.subagent_run_id.clone(),
            ..RareFields::default()
        }
        .boxed();
        let message = match e.role.unwrap_or(TextMessageRole::Assistant) {
            role @ (TextMessageRole::Developer | TextMessageRole::System) => {
                let text = TextMessage {
                    id,
                    content: String::new(),
                    rare,
                };
                if role == TextMessageRole::Developer {
                    Message::Developer(text)
                } else {
                    Message::System(text)
                }
            }
            TextMessageRole::User => Message::User(UserMessage {
                id,
                content: Content::Text(String::new()),
                rare,
            }),
            TextMessageRole::Assistant => Message::Assistant(AssistantMessage {
                id,
                content: Some(String::new()),
                tool_calls: None,
                rare,
            }),
        };
        self.append(message)
    }

    /// The new call `id` (named `name`) of `TOOL_CALL_START` `e` (no call has its id), added to
    /// its parent message or to a message made for it.
    fn start_call(&mut self, e: &ToolCallStart, id: String, name: String) -> Applied {
        let (m, created) = self.resolve_or_create_assistant(e.parent_message_id.as_deref(), &id);
        let Message::Assistant(assistant) = &mut self.messages[m] else {
            // resolve_or_create_assistant returns an assistant message (no message text:
            // it would be bytes in the `.wasm` for a panic that cannot happen).
            unreachable!();
        };
        // A message made for the call (it has no rare fields yet) takes its attribution.
        if let (true, Some(tag)) = (created, &e.subagent_run_id) {
            assistant.rare_mut().subagent_run_id = Some(tag.clone());
        }
        // Room for one call: most messages make one, and a `Vec`'s first push makes room
        // for four (three empty calls per message, the mixed corpus's largest cost).
        let calls = assistant
            .tool_calls
            .get_or_insert_with(|| Vec::with_capacity(1));
        calls.push(ToolCall {
            id,
            kind: FunctionKind::Function,
            function: FunctionCall {
                name,
                arguments: String::new(),
            },
            rare: RareFields {
                metadata: merged(None, e.metadata.as_ref()),
                ..RareFields::default()
            }
            .boxed(),
        });
        let c = calls.len() - 1;
        self.index_call(m, c);
        if created {
            Applied::Added(m)
        } else {
            Applied::Message(m)
        }
    }

    /// The tool message `id` of `TOOL_CALL_RESULT` `e`, placed after its call's message.
    fn add_result(
        &mut self,
        e: &ToolCallResult,
        id: String,
        content: Content,
        tool_call_id: String,
    ) -> usize {
        if !is_placeholder(&content) {
            self.run.answer(&tool_call_id);
        }
        self.place_tool_message(ToolMessage {
            id,
            content,
            tool_call_id,
            rare: RareFields {
                metadata: merged(None, e.metadata.as_ref()),
                subagent_run_id: e.subagent_run_id.clone(),
                ..RareFields::default()
            }
            .boxed(),
        })
    }

    /// `default.ts` `resolveOrCreateAssistantMessage`, returning (index, created):
    /// 1. `parentMessageId` names an assistant message: that one;
    /// 2. it names another kind of message: a new assistant message with id = `toolCallId`;
    /// 3. it names no message: a new assistant message with id = `parentMessageId`;
    /// 4. no (or an empty) `parentMessageId`: a new assistant message with id = `toolCallId`.
    ///
    /// New messages are `{ id, role: "assistant", toolCalls: [] }`, appended.
    pub(super) fn resolve_or_create_assistant(
        &mut self,
        parent_message_id: Option<&str>,
        tool_call_id: &str,
    ) -> (usize, bool) {
        let id = match parent_message_id.filter(|p| !p.is_empty()) {
            Some(parent) => match self.position(parent) {
                Some(at) if matches!(self.messages[at], Message::Assistant(_)) => {
                    return (at, false)
                }
                Some(_) => tool_call_id,
                None => parent,
            },
            None => tool_call_id,
        };
        let message = Message::Assistant(AssistantMessage {
            id: id.to_owned(),
            // Room for the one call it is made for (see `ToolCallStart`).
            tool_calls: Some(Vec::with_capacity(1)),
            ..AssistantMessage::default()
        });
        (self.append(message), true)
    }

    /// `default.ts` `MESSAGES_SNAPSHOT`: not a plain replace. Messages the snapshot has are
    /// updated in place (keeping the local order), local messages it lacks are dropped unless
    /// they are client-only (activity messages of a type the snapshot does not own, reasoning
    /// messages when the snapshot has none), and the snapshot's new messages are appended in
    /// snapshot order.
    pub(super) fn apply_messages_snapshot(&mut self, event: &MessagesSnapshot) {
        let incoming = &event.messages;
        let authority = activity_authority(event.metadata.as_ref());
        let has_activity = incoming.iter().any(|m| matches!(m, Message::Activity(_)));
        let has_reasoning = incoming.iter().any(|m| matches!(m, Message::Reasoning(_)));
        let preserved = |m: &Message| match m {
            Message::Activity(a) => match &authority {
                ActivityAuthority::Types(types) => !types.contains(&a.activity_type),
                ActivityAuthority::All => false,
                ActivityAuthority::Inferred => !has_activity,
            },
            Message::Reasoning(_) => !has_reasoning,
            _ => false,
        };
        // `new Map(...)`: for a repeated id, the last snapshot message wins. Keyed by `String`
        // with positions, the layout of `message_index`: no other hash map code in the `.wasm`.
        let mut by_id: HashMap<String, usize> = HashMap::default();
        for (at, message) in incoming.iter().enumerate() {
            by_id.insert(message.id().to_owned(), at);
        }
        let old = std::mem::take(&mut self.messages);
        let mut kept: HashSet<String> = HashSet::default();
        for message in old {
            if let Some(&update) = by_id.get(message.id()) {
                kept.insert(message.id().to_owned());
                self.messages.push(incoming[update].clone());
            } else if preserved(&message) {
                kept.insert(message.id().to_owned());
                self.messages.push(message);
            }
        }
        for message in incoming {
            if !kept.contains(message.id()) {
                self.messages.push(message.clone());
            }
        }
        self.reindex();
    }
}

/// Which activity types a `MESSAGES_SNAPSHOT` is the source of truth for
/// (`activity-history.ts` `authoritativeActivityTypes`).
enum ActivityAuthority {
    /// No declaration: the snapshot owns all activity types iff it carries any activity.
    Inferred,
    /// `authoritativeActivityTypes: null`: it owns every activity type.
    All,
    /// A list (an invalid declaration reads as the empty list: it owns none).
    Types(Vec<String>),
}

fn activity_authority(metadata: Option<&JsonObject>) -> ActivityAuthority {
    let Some(value) = metadata.and_then(|m| m.get(ACTIVITY_HISTORY_METADATA)) else {
        return ActivityAuthority::Inferred;
    };
    let Value::Object(value) = value else {
        return ActivityAuthority::Types(Vec::new());
    };
    match value.get("authoritativeActivityTypes") {
        None => ActivityAuthority::Inferred,
        Some(Value::Null) => ActivityAuthority::All,
        Some(Value::Array(items)) => ActivityAuthority::Types(
            items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default(),
        ),
        Some(_) => ActivityAuthority::Types(Vec::new()),
    }
}

fn changed_if(changed: bool, at: usize) -> Applied {
    if changed {
        Applied::Message(at)
    } else {
        Applied::None
    }
}

/// `default.ts` TEXT_MESSAGE_CONTENT: `content = (typeof content === "string" ? content : "") + delta`.
/// Appended as JS appends it: the halves of a surrogate pair cut between two deltas are joined
/// ([`json::push_str`]). Activity messages never get here.
fn append_text(message: &mut Message, delta: &str) {
    let append_content = |content: &mut Content| match content {
        Content::Text(text) => json::push_str(text, delta),
        Content::Parts(_) => *content = Content::Text(delta.to_owned()),
    };
    match message {
        Message::Developer(m) | Message::System(m) => json::push_str(&mut m.content, delta),
        Message::User(m) => append_content(&mut m.content),
        Message::Assistant(m) => json::push_str(m.content.get_or_insert_with(String::new), delta),
        Message::Tool(m) => append_content(&mut m.content),
        Message::Reasoning(m) => json::push_str(&mut m.content, delta),
        Message::Activity(_) => {}
    }
}

/// A finished message's text held in its length: it grew by doubling while it streamed, up to
/// twice its length (docs/numbers.md, "A long chat as users live it").
fn shrink_text(message: &mut Message) {
    match message {
        Message::Developer(m) | Message::System(m) => m.content.shrink_to_fit(),
        Message::Assistant(m) => {
            if let Some(text) = &mut m.content {
                text.shrink_to_fit();
            }
        }
        Message::Reasoning(m) => m.content.shrink_to_fit(),
        _ => {}
    }
}

/// [`merge_metadata`] onto the `metadata` of a message's or a tool call's rare fields, boxed
/// only when the event has metadata to merge.
fn merge_rare_metadata(rare: &mut Option<Box<RareFields>>, incoming: Option<&JsonObject>) -> bool {
    incoming.is_some() && merge_metadata(&mut RareFields::make(rare).metadata, incoming)
}

/// [`merge_rare_metadata`] onto a message.
fn merge_message_metadata(message: &mut Message, incoming: Option<&JsonObject>) -> bool {
    merge_rare_metadata(message.rare_slot(), incoming)
}

/// `@ag-ui/core` `mergeMetadata`: `{ ...existing, ...incoming }`: key by key, last write wins,
/// not deep. Returns whether the event had metadata (the TS reducer's "changed").
fn merge_metadata(target: &mut Option<JsonObject>, incoming: Option<&JsonObject>) -> bool {
    let Some(incoming) = incoming else {
        return false;
    };
    let target = target.get_or_insert_with(Map::new);
    for (key, value) in incoming {
        target.insert(key.clone(), value.clone());
    }
    true
}

fn merged(existing: Option<JsonObject>, incoming: Option<&JsonObject>) -> Option<JsonObject> {
    let mut existing = existing;
    merge_metadata(&mut existing, incoming);
    existing
}
