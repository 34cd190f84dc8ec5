//! Thread id → run URL segment, as a property over every short id from an alphabet of the
//! characters that matter to URLs: no two ids share a URL, and every accepted id is exactly one
//! segment that decodes back to the id.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use std::collections::HashMap;

use chat_runtime::thread_id::{check, path_segment, run_url, ThreadIdError};

const ALPHABET: [&str; 14] = [
    ".", "/", "%", "2", "e", "E", "a", "?", "#", " ", "é", "😀", "\\", "~",
];

/// Every string of up to `len` symbols of the alphabet.
fn ids(len: usize) -> Vec<String> {
    let mut all = vec![String::new()];
    let mut last = vec![String::new()];
    for _ in 0..len {
        last = last
            .iter()
            .flat_map(|prefix| ALPHABET.iter().map(move |s| format!("{prefix}{s}")))
            .collect();
        all.extend(last.iter().cloned());
    }
    all
}

fn percent_decode(segment: &str) -> Vec<u8> {
    let bytes = segment.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn distinct_ids_never_share_a_url_and_each_is_one_segment() {
    let mut seen: HashMap<String, String> = HashMap::new();
    let all = ids(4);
    assert!(all.len() > 40_000);
    for id in all {
        match check(&id) {
            Err(ThreadIdError::Empty) => assert!(id.is_empty()),
            Err(ThreadIdError::DotSegment) => assert!(id == "." || id == ".."),
            Err(other) => panic!("{id:?}: {other}"),
            Ok(()) => {
                let segment = path_segment(&id);
                assert!(
                    !segment.contains(['/', '?', '#', '\\', ' '])
                        && segment != "."
                        && segment != "..",
                    "{id:?} -> {segment:?} is not one plain segment"
                );
                assert!(segment.is_ascii(), "{segment:?}");
                assert_eq!(percent_decode(&segment), id.as_bytes(), "decodes back");
                let url = run_url("/api/threads/{threadId}/runs", &id).unwrap();
                if let Some(other) = seen.insert(url.clone(), id.clone()) {
                    panic!("{id:?} and {other:?} share {url}");
                }
            }
        }
    }
}
