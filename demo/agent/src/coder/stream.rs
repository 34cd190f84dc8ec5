//! `GET /{chat}/stream[?after_id=N]`: the per-chat WebSocket. One-way: the snapshot on connect,
//! then live batches; a data frame from the client closes the socket (policy violation), like
//! coder/websocket's `CloseRead`. Pings are WebSocket control frames (and, in the envelope eras,
//! `{"type":"ping"}` messages too).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::broadcast::{self, error::RecvError};

use super::chat::{Framing, Out};
use super::{not_found, sdk, Coder};

/// Most events in one frame (`chatStreamBatchSize`).
const BATCH: usize = 256;

#[derive(Deserialize)]
pub(super) struct StreamQuery {
    after_id: Option<String>,
}

/// The frames of one batch, each a WS text message ending in `\n` (Go's `json.Encoder`).
pub fn frames(batch: &[Value], framing: Framing) -> Vec<String> {
    let line = |v: Value| format!("{v}\n");
    match framing {
        Framing::Array => batch
            .chunks(BATCH)
            .map(|c| line(Value::Array(c.to_vec())))
            .collect(),
        Framing::Envelope => batch
            .chunks(BATCH)
            .map(|c| line(json!({ "type": "data", "data": c })))
            .collect(),
        Framing::EnvelopeSingle => batch
            .iter()
            .map(|e| line(json!({ "type": "data", "data": e })))
            .collect(),
    }
}

/// Whether a browser's `Origin` may open the socket: absent, or the same host as `Host`
/// (coder/websocket's check with no `OriginPatterns`).
pub fn origin_allowed(headers: &HeaderMap) -> Result<(), String> {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return Ok(());
    };
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let origin_host = origin
        .split_once("://")
        .map(|(_, rest)| rest.split('/').next().unwrap_or(""))
        .unwrap_or("");
    if origin_host.is_empty() {
        return Err(format!(
            "request Origin {origin:?} is not a valid URL with a host"
        ));
    }
    if origin_host.eq_ignore_ascii_case(host) {
        Ok(())
    } else {
        Err(format!(
            "request Origin {origin:?} is not authorized for Host {host:?}"
        ))
    }
}

pub(super) async fn stream(
    State(coder): State<Arc<Coder>>,
    Path(id): Path<String>,
    Query(q): Query<StreamQuery>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let gateway_off = {
        let hub = coder.lock();
        if !hub.chats.contains_key(&id) {
            return not_found();
        }
        hub.gateway_off
    };
    if gateway_off {
        return sdk(
            StatusCode::SERVICE_UNAVAILABLE,
            super::GATEWAY_OFF,
            Some(super::GATEWAY_OFF_DETAIL.into()),
        );
    }
    let after_id = match q.after_id.as_deref() {
        None | Some("") => 0,
        Some(s) => match s.parse::<i64>() {
            Ok(n) => n,
            Err(_) => {
                let detail = format!("strconv.ParseInt: parsing {s:?}: invalid syntax");
                return sdk(
                    StatusCode::BAD_REQUEST,
                    "Invalid after_id parameter.",
                    Some(detail),
                );
            }
        },
    };
    if let Err(reason) = origin_allowed(&headers) {
        return (StatusCode::FORBIDDEN, reason).into_response();
    }
    // A plain GET (no upgrade) gets what coder/websocket's `Accept` answers: 426.
    let ws = match ws {
        Ok(ws) => ws,
        Err(rejection) => {
            let mut res = (
                StatusCode::UPGRADE_REQUIRED,
                format!("WebSocket protocol violation: {}\n", rejection.body_text()),
            )
                .into_response();
            res.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
            res.headers_mut()
                .insert(header::UPGRADE, HeaderValue::from_static("websocket"));
            return res;
        }
    };
    // The snapshot and the subscription under one lock: no event is lost or sent twice.
    let (snapshot, rx, framing, ping_ms) = {
        let mut hub = coder.lock();
        let Some(chat) = hub.chats.get_mut(&id) else {
            return not_found();
        };
        chat.record.streams_opened += 1;
        (
            chat.snapshot(after_id),
            chat.tx.subscribe(),
            chat.setup.framing,
            chat.setup.ping_ms,
        )
    };
    ws.on_upgrade(move |socket| async move {
        set_open(&coder, &id, 1);
        serve(socket, &coder, snapshot, rx, framing, ping_ms).await;
        set_open(&coder, &id, -1);
    })
}

fn set_open(coder: &Coder, id: &str, delta: i64) {
    if let Some(chat) = coder.lock().chats.get_mut(id) {
        let open = chat.record.streams_open as i64 + delta;
        chat.record.streams_open = open.max(0) as u64;
    }
}

async fn serve(
    socket: WebSocket,
    coder: &Coder,
    snapshot: Vec<Value>,
    mut rx: broadcast::Receiver<Out>,
    framing: Framing,
    ping_ms: u64,
) {
    let (mut tx, mut incoming) = socket.split();
    let legacy = framing != Framing::Array;
    let mut first: Vec<String> = Vec::new();
    if legacy {
        first.push(format!("{}\n", json!({ "type": "ping" })));
    }
    first.extend(frames(&snapshot, framing));
    for f in first {
        if tx.send(Message::Text(f.into())).await.is_err() {
            return;
        }
    }
    let mut shutdown = coder.shutdown.clone();
    let period = Duration::from_millis(ping_ms);
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    loop {
        tokio::select! {
            out = rx.recv() => match out {
                Ok(Out::Batch(batch)) => {
                    for f in frames(&batch, framing) {
                        if tx.send(Message::Text(f.into())).await.is_err() {
                            return;
                        }
                    }
                }
                // Dropped: both halves go away, the TCP connection closes without a close frame.
                Ok(Out::Drop) | Err(RecvError::Lagged(_)) | Err(RecvError::Closed) => return,
            },
            msg = incoming.next() => match msg {
                Some(Ok(Message::Text(_))) | Some(Ok(Message::Binary(_))) => {
                    let close = CloseFrame { code: 1008, reason: "unexpected data message".into() };
                    let _ = tx.send(Message::Close(Some(close))).await;
                    return;
                }
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
                Some(Ok(_)) => {}
            },
            _ = ping.tick() => {
                if tx.send(Message::Ping(Default::default())).await.is_err() {
                    return;
                }
                if legacy {
                    let p = format!("{}\n", json!({ "type": "ping" }));
                    if tx.send(Message::Text(p.into())).await.is_err() {
                        return;
                    }
                }
            }
            _ = shutdown.changed() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_per_framing() {
        let batch = vec![json!({"type": "a"}), json!({"type": "b"})];
        assert_eq!(
            frames(&batch, Framing::Array),
            ["[{\"type\":\"a\"},{\"type\":\"b\"}]\n"]
        );
        assert_eq!(
            frames(&batch, Framing::Envelope),
            ["{\"data\":[{\"type\":\"a\"},{\"type\":\"b\"}],\"type\":\"data\"}\n"]
        );
        assert_eq!(frames(&batch, Framing::EnvelopeSingle).len(), 2);
        let big: Vec<Value> = (0..300).map(|i| json!(i)).collect();
        assert_eq!(frames(&big, Framing::Array).len(), 2);
    }

    #[test]
    fn origin_must_match_host() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        assert!(origin_allowed(&h).is_ok());
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://127.0.0.1:8080"),
        );
        assert!(origin_allowed(&h).is_ok());
        h.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://localhost:8080"),
        );
        assert!(origin_allowed(&h).is_err());
        h.insert(header::ORIGIN, HeaderValue::from_static("null"));
        assert!(origin_allowed(&h).is_err());
    }
}
