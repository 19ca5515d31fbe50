"use strict";
// The protocol layer against the shared test vectors in protocol/examples.
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { encodeHello, encodeAction, decode, where, PROTOCOL_VERSION } = require("../protocol");
const { act, meldFromHand, extensions } = require("../strategy");

const EXAMPLES = path.join(__dirname, "..", "..", "..", "protocol", "examples");
const raw = (name) => fs.readFileSync(path.join(EXAMPLES, `${name}.json`));
const json = (name) => JSON.parse(raw(name).toString("utf8"));

test("hello encodes to the example's message", () => {
  const ex = json("hello");
  const bytes = encodeHello(ex.token, ex.name, ex.version);
  assert.deepEqual(JSON.parse(bytes.toString("utf8")), ex);
  assert.equal(ex.protocol, PROTOCOL_VERSION);
});

test("action encodes to the example's message", () => {
  const ex = json("action");
  assert.deepEqual(JSON.parse(encodeAction(ex.id, ex.action).toString("utf8")), ex);
});

test("a frame is one line of UTF-8 JSON", () => {
  const bytes = encodeAction(3, { name: "é€\n" });
  assert.ok(!bytes.includes(0x0a));
  assert.deepEqual(JSON.parse(bytes.toString("utf8")).action, { name: "é€\n" });
});

for (const name of ["welcome", "game_start", "request", "game_over", "error", "shutdown"]) {
  test(`decodes the ${name} example from its bytes`, () => {
    assert.deepEqual(decode(raw(name)), json(name));
    assert.equal(decode(raw(name)).type, name);
  });
}

test("rejects what is not a referee message", () => {
  assert.throws(() => decode(Buffer.from("not json")));
  assert.throws(() => decode(raw("hello")));
  assert.throws(() => decode(Buffer.from("[1]")));
});

test("reads the endpoint from flags, then the environment", () => {
  assert.deepEqual(where(["--endpoint", "tcp://x:1", "--token", "t"], {}),
    { endpoint: "tcp://x:1", token: "t" });
  assert.deepEqual(where([], { ARENA_ENDPOINT: "ipc://e", ARENA_TOKEN: "k" }),
    { endpoint: "ipc://e", token: "k" });
  assert.throws(() => where([], {}));
});

test("the strategy answers the example request with one of its options", () => {
  const request = json("request");
  const action = act(request, json("game_start"));
  assert.ok(request.options.some((o) => JSON.stringify(o) === JSON.stringify(action)));
});

test("rummy: lays a meld from hand, else extends the table, else draws", () => {
  const game = { game: "machiavelli-rummy@1", rules: {} };
  const obs = (hand, table) => ({ observation: { hand, table, seat: 0, opened: [false] } });
  assert.deepEqual(meldFromHand(["QS", "KS", "AS", "2D"]), ["QS", "KS", "AS"]);
  assert.deepEqual(meldFromHand(["7H", "7S", "7H", "7C"]), ["7H", "7S", "7C"]);
  assert.deepEqual(act(obs(["5D", "9C"], [["6D", "7D", "8D"]]), game),
    { type: "play", table: [["6D", "7D", "8D", "5D"]] });
  assert.deepEqual(extensions(["JS", "QS", "KS"]), ["10S", "AS"]);
  assert.deepEqual(extensions(["QS", "KS", "AS"]), ["JS"]);
  assert.deepEqual(extensions(["4S", "4H", "4D"]), ["4C"]);
  const fullRun = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"].map((r) => r + "H");
  assert.deepEqual(extensions(fullRun), []); // A..K: the ace cannot be high as well
  assert.deepEqual(act(obs(["2C"], [["4S", "JK", "6S"]]), game), { type: "draw" });
  const opening = { ...game, rules: { opening: "meld-from-hand" } };
  assert.deepEqual(act(obs(["5D"], [["6D", "7D", "8D"]]), opening), { type: "draw" });
});
