//! A small seedable generator: SplitMix64 (Steele, Lea and Flood 2014; Vigna's reference
//! constants). The standard library has none, and a starter needs no extra crate. The
//! strategy seeds one from `game_start.bot_seed` at every game, so a game replays identically.

/// SplitMix64: 64 bits of state, every seed (0 included) gives a full-period sequence.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An index in `0..n` for `n > 0` (a small modulo bias, harmless for a starter).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}
