//! What Coder's site does around the chat routes: the CSRF check on every cookie-carrying
//! `POST` (coderd's `httpmw.CSRF`, justinas/nosurf underneath), the page that carries the CSRF
//! token in `<meta property="csrf-token">` with the HttpOnly `csrf_token` cookie beside it, and
//! the sign-in that gives a browser its `coder_session_token` cookie.
//!
//! The token works as nosurf's: the `csrf_token` cookie holds 32 random bytes (base64); the page
//! gets them masked with a one-time pad (64 bytes: pad, then pad XOR token, base64), a new mask
//! on every page; an `X-CSRF-TOKEN` header is valid when it unmasks (or is) the cookie's token.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::Coder;

/// nosurf's cookie name.
pub const CSRF_COOKIE: &str = "csrf_token";
/// Coder's session cookie (`codersdk.SessionTokenCookie`).
pub const SESSION_COOKIE: &str = "coder_session_token";
/// nosurf's token length, in bytes.
const TOKEN_LEN: usize = 32;

/// The failure handler's body (400 text/plain), as coderd writes it.
pub const CSRF_FAILED: &str = "Something is wrong with your CSRF token. Please refresh the page. If this error persists, try clearing your cookies.";
/// coderd's answer when the session cookie and the `Coder-Session-Token` header disagree.
pub const CSRF_MISMATCH: &str = "CSRF error encountered. Authentication via \"coder_session_token\" cookie and \"Coder-Session-Token\" header detected, but the values do not match. Please remove the header or sign in again.";

/// Random bytes for tokens and masks (a mock: std's randomly keyed hasher over a counter).
fn random_bytes(n: usize) -> Vec<u8> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let state = RandomState::new();
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        let mut h = state.build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        out.extend_from_slice(&h.finish().to_le_bytes());
    }
    out.truncate(n);
    out
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (Go's `base64.StdEncoding`).
pub fn b64_encode(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                s.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// The inverse of [`b64_encode`]; `None` for anything that is not standard padded base64.
pub fn b64_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() % 4 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (q, quad) in b.chunks(4).enumerate() {
        let last = q == b.len() / 4 - 1;
        let mut n = 0u32;
        let mut pad = 0;
        for (i, &c) in quad.iter().enumerate() {
            let v = match c {
                b'=' if last && i >= 2 => {
                    pad += 1;
                    0
                }
                _ if pad > 0 => return None,
                _ => B64.iter().position(|&x| x == c)? as u32,
            };
            n = n << 6 | v;
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

/// A new token for the `csrf_token` cookie.
pub fn new_token() -> String {
    b64_encode(&random_bytes(TOKEN_LEN))
}

/// The cookie's token masked with a fresh pad: what the page's meta tag carries.
pub fn masked(cookie_token: &str) -> Option<String> {
    let real = b64_decode(cookie_token).filter(|r| r.len() == TOKEN_LEN)?;
    let pad = random_bytes(TOKEN_LEN);
    let mut out = pad.clone();
    out.extend(pad.iter().zip(&real).map(|(p, r)| p ^ r));
    Some(b64_encode(&out))
}

/// nosurf's `VerifyToken`: `sent` (masked or not) stands for the cookie's token.
pub fn verify(cookie_token: &str, sent: &str) -> bool {
    let unmask = |b: Vec<u8>| -> Vec<u8> {
        if b.len() == 2 * TOKEN_LEN {
            b[..TOKEN_LEN]
                .iter()
                .zip(&b[TOKEN_LEN..])
                .map(|(p, m)| p ^ m)
                .collect()
        } else {
            b
        }
    };
    match (b64_decode(cookie_token), b64_decode(sent)) {
        (Some(real), Some(sent)) => {
            let (real, sent) = (unmask(real), unmask(sent));
            real.len() == TOKEN_LEN && real == sent
        }
        _ => false,
    }
}

/// A cookie of the request.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            let (k, v) = c.trim().split_once('=')?;
            (k == name).then(|| v.to_string())
        })
}

/// A query parameter of the request (no percent-decoding: tokens are plain).
fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    query?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        (k == name).then(|| v.to_string())
    })
}

/// coderd's CSRF check of one request to a chat route: `None` when it may pass, else the 400
/// text/plain answer. Exempt: safe methods; no session cookie; a `Coder-Session-Token` header
/// or `coder_session_token` query parameter equal to the cookie; `Authorization: Bearer`; a
/// valid `X-CSRF-TOKEN` (checked against the `csrf_token` cookie).
pub fn check(method: &Method, headers: &HeaderMap, query: Option<&str>) -> Option<Response> {
    if matches!(
        *method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE
    ) {
        return None;
    }
    // No session cookie: nothing to forge, the request passes (`None`).
    let session = cookie(headers, SESSION_COOKIE)?;
    let header_token = headers
        .get("coder-session-token")
        .and_then(|v| v.to_str().ok());
    match header_token {
        Some(t) if t == session => return None,
        Some(t) if !t.is_empty() => return Some(plain(CSRF_MISMATCH)),
        _ => {}
    }
    if query_param(query, SESSION_COOKIE).is_some_and(|t| t == session) {
        return None;
    }
    if headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("Bearer "))
    {
        return None;
    }
    let sent = headers.get("x-csrf-token").and_then(|v| v.to_str().ok());
    let cookie_token = cookie(headers, CSRF_COOKIE);
    match (sent, cookie_token) {
        (Some(sent), Some(real)) if !sent.is_empty() && verify(&real, sent) => None,
        _ => Some(plain(CSRF_FAILED)),
    }
}

fn plain(text: &str) -> Response {
    let mut res = (StatusCode::BAD_REQUEST, format!("{text}\n")).into_response();
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    res.headers_mut().insert(
        header::HeaderName::from_static("x-content-type-options"),
        HeaderValue::from_static("nosniff"),
    );
    res
}

fn set_cookie(res: &mut Response, name: &str, value: &str) {
    if let Ok(v) = HeaderValue::from_str(&format!("{name}={value}; Path=/; HttpOnly; SameSite=Lax"))
    {
        res.headers_mut().append(header::SET_COOKIE, v);
    }
}

/// Middleware over every response of the agent: an HTML page served to a browser signed in to
/// the mock (a `coder_session_token` cookie, or `--coder-sign-in`, which sets one) gets Coder's
/// `<meta property="csrf-token" content="...">` (after `<head>`, or first) and the HttpOnly
/// `csrf_token` cookie when the browser has none. Every other response passes untouched.
pub async fn page(State(coder): State<Arc<Coder>>, req: Request, next: Next) -> Response {
    let sign_in = coder
        .config
        .sign_in
        .then(|| coder.lock().token.clone())
        .flatten();
    let session = cookie(req.headers(), SESSION_COOKIE);
    let csrf = cookie(req.headers(), CSRF_COOKIE).filter(|t| masked(t).is_some());
    let get = req.method() == Method::GET;
    let res = next.run(req).await;
    let html = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if !get || !html || res.status() != StatusCode::OK || (session.is_none() && sign_in.is_none()) {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 16 * 1024 * 1024).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let token = csrf.clone().unwrap_or_else(new_token);
    let meta = format!(
        "<meta property=\"csrf-token\" content=\"{}\">",
        masked(&token).unwrap_or_default()
    );
    let text = String::from_utf8_lossy(&bytes);
    let page = match text.find("<head>") {
        Some(i) => format!("{}{meta}{}", &text[..i + 6], &text[i + 6..]),
        None => format!("{meta}{text}"),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    let mut res = Response::from_parts(parts, Body::from(page));
    if csrf.is_none() {
        set_cookie(&mut res, CSRF_COOKIE, &token);
    }
    if let (Some(t), None) = (&sign_in, &session) {
        set_cookie(&mut res, SESSION_COOKIE, t);
    }
    res
}

#[derive(Deserialize)]
pub(super) struct LoginQuery {
    token: String,
    to: Option<String>,
}

/// `GET /test/coder/login?token=T&to=/path`: signs the browser in (the HttpOnly
/// `coder_session_token` cookie, as Coder's login sets it) and redirects (303) to `to`
/// (default `/`), a same-origin path.
pub(super) async fn login(Query(q): Query<LoginQuery>) -> Response {
    let to =
        q.to.filter(|t| t.starts_with('/') && !t.starts_with("//"))
            .unwrap_or_else(|| "/".into());
    let mut res = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(&to) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    set_cookie(&mut res, SESSION_COOKIE, &q.token);
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for n in 0..70 {
            let b: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(b64_decode(&b64_encode(&b)).unwrap(), b);
        }
        assert_eq!(b64_encode(b"foob"), "Zm9vYg==");
        assert!(b64_decode("Zm9=Yg==").is_none());
        assert!(b64_decode("Zm9").is_none());
    }

    #[test]
    fn a_masked_token_verifies_and_differs_each_time() {
        let t = new_token();
        let (a, b) = (masked(&t).unwrap(), masked(&t).unwrap());
        assert_ne!(a, b);
        assert!(verify(&t, &a) && verify(&t, &b) && verify(&t, &t));
        assert!(!verify(&new_token(), &a));
        assert!(!verify(&t, "garbage"));
        assert!(!verify(&t, ""));
    }
}
