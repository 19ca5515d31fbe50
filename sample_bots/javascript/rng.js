"use strict";
// A small seedable generator: SplitMix64 (Steele, Lea and Flood 2014; Vigna's reference
// constants). JavaScript's Math.random cannot be seeded, so a bot that wants to replay a game
// draws from this instead, seeded with game_start.bot_seed. 64-bit arithmetic in BigInt.

const MASK = (1n << 64n) - 1n;

class SplitMix64 {
  /** `seed`: a non-negative safe integer (bot_seed < 2^53 is one) or a BigInt. */
  constructor(seed) {
    if (typeof seed === "number" && !(Number.isSafeInteger(seed) && seed >= 0)) {
      throw new RangeError(`seed must be a non-negative safe integer, got ${seed}`);
    }
    this.state = BigInt(seed) & MASK;
  }

  /** The next 64-bit value, as a BigInt. */
  next() {
    this.state = (this.state + 0x9e3779b97f4a7c15n) & MASK;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  }

  /** An integer in [0, n), for 0 < n (a small modulo bias, harmless for a starter). */
  below(n) {
    if (!(Number.isSafeInteger(n) && n > 0)) throw new RangeError(`below(${n})`);
    return Number(this.next() % BigInt(n));
  }
}

module.exports = { SplitMix64 };
