//! The one hash of the core: FNV-1a, 64 bit, with its published offset basis and prime.
//!
//! It is simple, fixed and the same on every target, which is all a trace hash needs (the page
//! and the CLI print it; a browser test compares them). Three ways of feeding it:
//!
//! - `bytes`: textbook FNV-1a, a byte at a time (long CLI outputs in the golden file);
//! - `word`: a whole 64-bit word xored in, then one multiply (a steady state's hash on top of
//!   its prefix trace's);
//! - `word_rotated`: the same with a rotation after the multiply, so that a word's high bits
//!   reach the low ones too: a trace's hash (`Trace::hash`, eight times fewer multiplies than a
//!   byte at a time over the tens of millions of flows of a cluster's row), the steady-state
//!   detector's bucket key, a training step's fingerprint.
//!
//! Beside it, `FixedState`: the hasher of memo maps keyed by small integers (routes, a
//! schedule's connections), which are only looked up, never iterated, so their order cannot
//! leak into a result; fixed (no random state), so the same inputs take the same work.

/// FNV-1a's 64-bit offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV's 64-bit prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// An FNV-1a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(FNV_OFFSET)
    }
}

impl Fnv {
    /// Feeds `data` a byte at a time.
    pub fn bytes(&mut self, data: &[u8]) {
        for &byte in data {
            self.0 ^= byte as u64;
            self.0 = self.0.wrapping_mul(FNV_PRIME);
        }
    }

    /// Feeds a whole word: one xor, one multiply.
    pub fn word(&mut self, value: u64) {
        self.0 = (self.0 ^ value).wrapping_mul(FNV_PRIME);
    }

    /// Feeds a whole word, rotating the state after the multiply.
    pub fn word_rotated(&mut self, value: u64) {
        self.0 = (self.0 ^ value).wrapping_mul(FNV_PRIME).rotate_left(29);
    }

    /// The hash as 16 hex digits.
    pub fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_match_the_published_fnv1a_vectors() {
        // FNV-1a 64 test vectors (Fowler, Noll, Vo: "FNV-1a" of "", "a" and "foobar").
        let hash = |text: &str| {
            let mut h = Fnv::default();
            h.bytes(text.as_bytes());
            h.0
        };
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
    }
}

/// Builds `MixHasher`s for memo maps (`std::collections::HashMap<K, V, FixedState>`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FixedState;

impl std::hash::BuildHasher for FixedState {
    type Hasher = MixHasher;
    fn build_hasher(&self) -> MixHasher {
        MixHasher(0)
    }
}

/// Multiply-rotate mixing of the words written (FxHash's scheme): fast on small integer keys.
#[derive(Clone, Copy, Debug)]
pub struct MixHasher(u64);

impl std::hash::Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(byte as u64);
        }
    }
    fn write_u8(&mut self, byte: u8) {
        self.write_u64(byte as u64);
    }
    fn write_u32(&mut self, word: u32) {
        self.write_u64(word as u64);
    }
    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}
