#!/usr/bin/env node
"use strict";
// The starter bot: the protocol layer driving the strategy. Run by the referee:
//   arena play machiavelli --bot js="node sample_bots/javascript/bot.js" --bot r=builtin:random
const { run } = require("./protocol");
const strategy = require("./strategy");

run(strategy, { name: "starter-js", version: "1.0.0" }).catch((err) => {
  console.error(err);
  process.exit(1);
});
