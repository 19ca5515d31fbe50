"use strict";
// The strategy: replace `act` with your own. It gets the request (observation, options,
// context) and the game_start message of the current game, and returns an action.
// Every random choice comes from `rng`, a generator seeded with game_start.bot_seed at each
// game_start (never Math.random), so that the same game plays the same way again.
const { botSeed } = require("./protocol");
const { SplitMix64 } = require("./rng");

let rng = new SplitMix64(0);

/** A new game: a new generator, seeded from its bot_seed. */
function gameStart(message) {
  let seed = 0;
  try {
    seed = botSeed(message);
  } catch (err) {
    console.error(`${err.message}: seeding with 0`);
  }
  rng = new SplitMix64(seed);
}

/** machiavelli: every request lists its legal options; build when we can, else pick one. */
function machiavelli(request) {
  const options = request.options;
  const builds = options.filter((o) => o.type === "build");
  const pool = builds.length ? builds : options;
  return pool[rng.below(pool.length)];
}

// --- machiavelli-rummy: cards are codes such as "7H", "10S", "QD", "JK" (joker).
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = ["S", "H", "D", "C"];

function parseCard(code) {
  if (code === "JK") return null;
  return { rank: RANKS.indexOf(code.slice(0, -1)) + 1, suit: code.slice(-1), code };
}

function cardCode(rank, suit) {
  return RANKS[(rank - 1) % 13] + suit;
}

/** A meld of three cards from the hand: a group (one rank, three suits) or a run. */
function meldFromHand(hand) {
  const cards = hand.map(parseCard).filter(Boolean);
  for (let rank = 1; rank <= 13; rank++) {
    const suits = [...new Set(cards.filter((c) => c.rank === rank).map((c) => c.suit))];
    if (suits.length >= 3) return suits.slice(0, 3).map((s) => cardCode(rank, s));
  }
  for (const suit of SUITS) {
    const have = new Set(cards.filter((c) => c.suit === suit).map((c) => c.rank));
    if (have.has(1)) have.add(14); // the ace also ranks above the king
    for (let low = 1; low <= 12; low++) {
      if (have.has(low) && have.has(low + 1) && have.has(low + 2)) {
        return [low, low + 1, low + 2].map((r) => cardCode(r, suit));
      }
    }
  }
  return null;
}

/** The hand cards that extend a joker-free meld by one card (at either end of a run). */
function extensions(meld) {
  const cards = meld.map(parseCard);
  if (cards.includes(null)) return [];
  const ranks = cards.map((c) => c.rank);
  const suits = cards.map((c) => c.suit);
  if (ranks.every((r) => r === ranks[0])) {
    return meld.length >= 4 ? [] : SUITS.filter((s) => !suits.includes(s)).map((s) => cardCode(ranks[0], s));
  }
  if (meld.length >= 13) return []; // a run holds at most 13 cards (the ace is low or high)
  const high = ranks.includes(13) && ranks.includes(1) ? ranks.map((r) => (r === 1 ? 14 : r)) : ranks;
  const lo = Math.min(...high), hi = Math.max(...high), suit = suits[0];
  const out = [];
  if (lo > 1) out.push(cardCode(lo - 1, suit));
  if (hi < 13 || (hi === 13 && lo > 1)) out.push(cardCode(hi + 1, suit));
  return out;
}

/** machiavelli-rummy: lay a meld from hand, else extend a meld on the table, else draw. */
function rummy(request, game) {
  const { hand, table, opened, seat } = request.observation;
  const meld = meldFromHand(hand);
  if (meld) return { type: "play", table: [...table, meld] };
  const mustOpen = game?.rules?.opening === "meld-from-hand" && !opened?.[seat];
  if (!mustOpen) {
    for (let i = 0; i < table.length; i++) {
      const card = extensions(table[i]).find((c) => hand.includes(c));
      if (card) {
        const next = table.map((m, j) => (j === i ? [...m, card] : m));
        return { type: "play", table: next };
      }
    }
  }
  return { type: "draw" };
}

/** Choose the action for `request`; `game` is the game_start of the current game. */
function act(request, game) {
  const name = (game?.game ?? "").split("@")[0];
  if (name === "machiavelli-rummy") return rummy(request, game);
  if (request.options && request.options.length) return machiavelli(request);
  throw new Error(`no strategy for ${name} decision ${request.kind}`);
}

module.exports = { gameStart, act, meldFromHand, extensions };
