//! A chat's request that failed: a chat in an invalid state recovered once ([`recover_invalid`]),
//! else the turn ends in error ([`fail_request`], [`fail_api`]) with Coder's error as the
//! `RunError`'s details.

use super::round::Request;
use super::send::{chat_request, coder_config, routes};
use crate::session::advance::{fail, finish};
use crate::session::result::{RunError, RunStatus};
use crate::session::shared::Shared;
use crate::session::thread::ThreadState;
use crate::session::turn::Turn;

use crate::coder::wire::{ApiError, ChatError};
use crate::coder::SubmitReply;
use crate::json::{Map, Value};
use crate::lean::text::{concat, decimal};

/// A 409 "Chat is in an invalid state.": coderd's recovery route is called, once per
/// turn (then the message goes again). Whether it was.
pub(super) fn recover_invalid(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    reply: &SubmitReply,
) -> bool {
    let SubmitReply::Http(409, body) = reply else {
        return false;
    };
    if ApiError::from_response(409, body).message != "Chat is in an invalid state." {
        return false;
    }
    let Some(round) = state.turn.as_mut().and_then(Turn::chat_mut) else {
        return false;
    };
    if std::mem::replace(&mut round.recovered, true) {
        return false;
    }
    let url = routes(coder_config(sh)).reconcile_invalid(thread_id);
    chat_request(sh, thread_id, state, Request::Reconcile, url, None);
    true
}

/// A create or message POST failed: the turn ends in error.
pub(super) fn fail_request(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    what: &str,
    reply: SubmitReply,
) {
    match reply {
        SubmitReply::Http(status, body) => fail_api(
            sh,
            thread_id,
            state,
            what,
            ApiError::from_response(status, &body),
        ),
        SubmitReply::Network => fail(
            sh,
            thread_id,
            state,
            "run/network",
            concat(&["no answer from the server ", what]),
            None,
        ),
    }
}

/// A request answered with Coder's error: the turn ends in error, with the body as details.
pub(super) fn fail_api(
    sh: &mut Shared,
    thread_id: &str,
    state: &mut ThreadState,
    what: &str,
    error: ApiError,
) {
    let status = error.status;
    let message = concat(&[
        what,
        ": HTTP ",
        &decimal(status.into()),
        ": ",
        &error.message,
    ]);
    let error = RunError {
        code: "coder/http".to_owned(),
        message,
        status: Some(status),
        details: Some(api_error_details(error)),
    };
    finish(sh, thread_id, state, RunStatus::Error, Some(error));
}

/// A chat's error as `RunError.details`: `kind`, `retryable`, `provider`, `statusCode`,
/// `detail` (absent ones left out).
pub(super) fn chat_error_details(error: ChatError) -> Value {
    let mut details = Vec::new();
    member(&mut details, "kind", error.kind.map(Value::String));
    member(
        &mut details,
        "retryable",
        Some(Value::Bool(error.retryable)),
    );
    member(&mut details, "provider", error.provider.map(Value::String));
    member(
        &mut details,
        "statusCode",
        error.status_code.map(Value::from),
    );
    member(&mut details, "detail", error.detail.map(Value::String));
    Value::Object(Map::from_unique(details))
}

/// Coder's error body as `RunError.details`: `message`, `detail`, `validations`.
pub(super) fn api_error_details(error: ApiError) -> Value {
    let mut details = Vec::new();
    member(&mut details, "message", Some(Value::String(error.message)));
    member(&mut details, "detail", error.detail.map(Value::String));
    if !error.validations.is_empty() {
        let items = error.validations.into_iter().map(|(field, detail)| {
            let mut item = Vec::new();
            member(&mut item, "field", Some(Value::String(field)));
            member(&mut item, "detail", Some(Value::String(detail)));
            Value::Object(Map::from_unique(item))
        });
        member(
            &mut details,
            "validations",
            Some(Value::Array(items.collect())),
        );
    }
    Value::Object(Map::from_unique(details))
}

/// Adds `key: value` to an object's members being built (keys unique by construction), or
/// nothing when the value is absent: one copy of the push, where a `Map::insert` per member
/// inlined its key search and its owned key each time.
#[inline(never)]
pub(super) fn member(members: &mut Vec<(String, Value)>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        members.push((key.to_owned(), value));
    }
}
