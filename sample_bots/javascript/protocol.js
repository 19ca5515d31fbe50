"use strict";
// The protocol layer: connect, handshake, receive requests, send actions, shutdown.
// It knows nothing about any game; the strategy it is given decides every action.
// Spec: protocol/PROTOCOL.md. Every message is one ZeroMQ frame of UTF-8 JSON.

const PROTOCOL_VERSION = 1;

/** The hello a bot sends first, as a frame (a Buffer of UTF-8 JSON). */
function encodeHello(token, name, version) {
  return frame({ type: "hello", token, name, version, protocol: PROTOCOL_VERSION });
}

/** The action answering request `id`. */
function encodeAction(id, action) {
  return frame({ type: "action", id, action });
}

function frame(message) {
  return Buffer.from(JSON.stringify(message), "utf8");
}

const REFEREE_TYPES = new Set(["welcome", "game_start", "request", "game_over", "error", "shutdown"]);

/** Parse a frame from the referee; throws on anything that is not a referee message. */
function decode(bytes) {
  const message = JSON.parse(Buffer.from(bytes).toString("utf8"));
  if (message === null || typeof message !== "object" || !REFEREE_TYPES.has(message.type)) {
    throw new Error(`not a referee message: ${String(bytes).slice(0, 80)}`);
  }
  return message;
}

/**
 * game_start.bot_seed: the seed for this game's random choices (an integer, 0 <= seed < 2^53,
 * so exact as a JavaScript number). Throws when the message lacks a valid one.
 */
function botSeed(gameStart) {
  const seed = gameStart?.bot_seed;
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new Error(`game_start.bot_seed must be an integer in [0, 2^53), got ${JSON.stringify(seed)}`);
  }
  return seed;
}

/** Where to connect: --endpoint/--token, else ARENA_ENDPOINT/ARENA_TOKEN. */
function where(argv = process.argv.slice(2), env = process.env) {
  const arg = (flag) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const endpoint = arg("--endpoint") ?? env.ARENA_ENDPOINT;
  const token = arg("--token") ?? env.ARENA_TOKEN;
  if (!endpoint || token === undefined) {
    throw new Error("no endpoint/token: run me from `arena`, or pass --endpoint and --token");
  }
  return { endpoint, token };
}

/**
 * Play until the referee says shutdown. `strategy` is
 * { gameStart(msg), act(request, game) -> action, gameOver(msg) } (only act is required).
 */
async function run(strategy, { name, version }) {
  const zmq = require("zeromq");
  const { endpoint, token } = where();
  const socket = new zmq.Dealer({ linger: 1000 });
  socket.connect(endpoint);
  await socket.send(encodeHello(token, name, version));
  let game = null;
  let welcomed = false;
  try {
    for await (const [bytes] of socket) {
      const message = decode(bytes);
      switch (message.type) {
        case "game_start":
          game = message;
          strategy.gameStart?.(message);
          break;
        case "request":
          await socket.send(encodeAction(message.id, strategy.act(message, game)));
          break;
        case "game_over":
          strategy.gameOver?.(message);
          break;
        case "error": // information only, except before welcome: then we have no seat
          console.error(`arena: ${message.code}: ${message.detail}`);
          if (!welcomed) throw new Error("refused by the referee");
          break;
        case "shutdown":
          return;
        case "welcome":
          welcomed = true;
          break;
        default:
          break;
      }
    }
  } finally {
    socket.close();
  }
}

module.exports = { PROTOCOL_VERSION, encodeHello, encodeAction, decode, botSeed, where, run };
