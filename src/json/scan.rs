//! The byte scan the writer and the parser share: a plain run of a JSON string skipped eight
//! bytes at a time.

/// The first of the 8 bytes of `word` (little-endian) that is `"`, `\\`, a control character
/// (below 0x20) or 0xF4, if any: the bytes a JSON string must escape, the lead byte of
/// [`ESCAPE`](super::ESCAPE) (and of the other chars of plane 16, U+100000 and up, rare in
/// text); when parsing, the bytes that end a plain run. A plain run is skipped 8 bytes at a time and the scan lands on the byte
/// that ends it (the lowest flag of these tests is always a true one: a borrow only carries a
/// false flag upwards, past a true one). Three tests for the four kinds: a byte is below 0x20 or
/// `"` (0x22) exactly when it XOR 0x02 is below 0x21.
#[inline(always)]
pub(super) fn first_special_byte(word: u64) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The bytes of `x` below `n` (n <= 0x80), and the zero bytes of `x`.
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x;
    let control_or_quote = below(word ^ (ONES * 0x02), 0x21);
    let flags = (control_or_quote
        | below(word ^ (ONES * b'\\' as u64), 1)
        | below(word ^ (ONES * 0xF4), 1))
        & HIGH;
    if flags == 0 {
        None
    } else {
        Some(flags.trailing_zeros() as usize / 8)
    }
}

/// The 8 bytes at `at` as a little-endian word, if there are 8. (A plain load: `copy_from_slice`
/// became a call per word at `opt-level = "s"`.)
#[inline(always)]
pub(super) fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk: &[u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(*chunk))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_scan_finds_the_first_special_byte() {
        let special = |b: u8| b < 0x20 || b == b'"' || b == b'\\' || b == 0xF4;
        for b in 0u8..=255 {
            for at in 0..8 {
                let mut word = *b"abcdefgh";
                word[at] = b;
                let expected = special(b).then_some(at);
                assert_eq!(
                    first_special_byte(u64::from_le_bytes(word)),
                    expected,
                    "{b} at {at}"
                );
            }
        }
        // Every mix of special and plain bytes (the ones a borrow could falsely flag included):
        // the first special one is found.
        let bytes: Vec<u8> = (0u8..=255).collect();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let word: [u8; 8] = std::array::from_fn(|i| {
                let r = (state >> (i * 8)) as u8;
                if r % 4 == 0 {
                    [
                        0x00, 0x01, 0x1f, 0x20, 0x21, b'"', b'#', b'[', b'\\', b']', 0xF3, 0xF4,
                        0xF5, 0x80, 0xFF, 0x7f,
                    ][usize::from(r >> 4)]
                } else {
                    bytes[usize::from(r)]
                }
            });
            let expected = word.iter().position(|&b| special(b));
            assert_eq!(
                first_special_byte(u64::from_le_bytes(word)),
                expected,
                "{word:?}"
            );
        }
    }
}
