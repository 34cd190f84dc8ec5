//! The crate's hash maps: `std`'s `HashMap`/`HashSet` with `rustc-hash`'s `FxHasher` instead of
//! SipHash.
//!
//! The maps index message, tool-call and run ids per event (thread, verifier, session). SipHash's
//! resistance to chosen-key flooding buys nothing here (the keys come from the agent the app chose
//! to talk to, in a map that lives for one thread), while it cost about 2 % of stream time in the
//! browser profile and its code in the `.wasm`.

/// `HashMap` with `FxHasher`. Create with `HashMap::default()`.
pub type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;

/// `HashSet` with `FxHasher`. Create with `HashSet::default()`.
pub type HashSet<K> = rustc_hash::FxHashSet<K>;
