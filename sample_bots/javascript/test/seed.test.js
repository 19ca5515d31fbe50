"use strict";
// The strategy's randomness comes from game_start.bot_seed, so a game can be replayed.
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { botSeed } = require("../protocol");
const { SplitMix64 } = require("../rng");
const strategy = require("../strategy");

const EXAMPLES = path.join(__dirname, "..", "..", "..", "protocol", "examples");
const json = (name) => JSON.parse(fs.readFileSync(path.join(EXAMPLES, `${name}.json`), "utf8"));
const draws = (rng, n) => Array.from({ length: n }, () => rng.next());

test("bot_seed is read from the game_start example, exactly", () => {
  assert.equal(botSeed(json("game_start")), 6095745163040713);
  assert.throws(() => botSeed({ type: "game_start" }), /bot_seed/);
  assert.throws(() => botSeed({ bot_seed: 1.5 }), /bot_seed/);
  assert.throws(() => botSeed({ bot_seed: -1 }), /bot_seed/);
});

test("SplitMix64 gives the reference sequence", () => {
  // the first outputs of Vigna's splitmix64.c for seed 1234567
  assert.deepEqual(draws(new SplitMix64(1234567), 3),
    [6457827717110365317n, 3203168211198807973n, 9817491932198370423n]);
  assert.deepEqual(draws(new SplitMix64(6095745163040713), 1), [16469834337700406986n]);
});

test("two generators from the same seed give the same sequence, another seed another", () => {
  const seed = botSeed(json("game_start"));
  assert.deepEqual(draws(new SplitMix64(seed), 20), draws(new SplitMix64(seed), 20));
  assert.notDeepEqual(draws(new SplitMix64(seed), 20), draws(new SplitMix64(seed + 1), 20));
  const below = (rng) => Array.from({ length: 50 }, () => rng.below(7));
  const picks = below(new SplitMix64(seed));
  assert.deepEqual(picks, below(new SplitMix64(seed)));
  assert.ok(picks.every((p) => Number.isInteger(p) && p >= 0 && p < 7));
});

test("the strategy replays its choices after game_start with the same bot_seed", () => {
  const start = json("game_start");
  const request = { ...json("request"), options: Array.from({ length: 9 }, (_, i) => ({ type: "pick", i })) };
  const play = (message) => {
    strategy.gameStart(message);
    return Array.from({ length: 30 }, () => strategy.act(request, message).i);
  };
  const first = play(start);
  assert.deepEqual(play(start), first);
  assert.notDeepEqual(play({ ...start, bot_seed: start.bot_seed + 1 }), first);
});
