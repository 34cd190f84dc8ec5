//! The crate's hash maps: `std`'s `HashMap`/`HashSet` with a small multiply-rotate hasher instead
//! of SipHash.
//!
//! The maps index message, tool-call and run ids per event (thread, verifier, session). SipHash's
//! resistance to chosen-key flooding buys nothing here (the keys come from the agent the app chose
//! to talk to, in a map that lives for one thread), while it cost about 2 % of stream time in the
//! browser profile and its code in the `.wasm`.

use std::hash::{BuildHasherDefault, Hasher};

/// `HashMap` with [`IdHasher`]. Create with `HashMap::default()`.
pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// `HashSet` with [`IdHasher`]. Create with `HashSet::default()`.
pub type HashSet<K> = std::collections::HashSet<K, BuildHasherDefault<IdHasher>>;

/// A multiply-rotate hasher over 8-byte words (the scheme of rustc's `FxHasher`), finished with
/// MurmurHash3's mixer so the low bits hashbrown indexes with depend on every input bit.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl IdHasher {
    #[inline(always)]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for IdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let word: &[u8; 8] = word.try_into().expect("chunks_exact(8) yields 8 bytes");
            self.add(u64::from_le_bytes(*word));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 60));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // MurmurHash3's 64-bit finalizer: every output bit depends on every input bit.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_work_and_similar_ids_hash_apart() {
        let mut map: HashMap<String, usize> = HashMap::default();
        for i in 0..10_000 {
            map.insert(format!("msg-{i}"), i);
        }
        assert_eq!(map.len(), 10_000);
        assert_eq!(map.get("msg-1234"), Some(&1234));
        let hash = |s: &str| {
            let mut h = IdHasher::default();
            h.write(s.as_bytes());
            h.finish()
        };
        // Low bits (the bucket index) differ for ids that differ only in their last character.
        let buckets: HashSet<u64> = (0..64).map(|i| hash(&format!("call_{i}")) & 63).collect();
        // 64 random picks of 64 buckets hit about 40 distinct ones.
        assert!(buckets.len() > 32, "{}", buckets.len());
        assert_ne!(hash("ab"), hash("ab\0"));
    }
}
