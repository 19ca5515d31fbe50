/* arena replay viewer: steps through one game, event by event, in one view.
 *
 * Each view of a game is a script file (data/<game>/<view>.js) that calls arenaView(data);
 * it is loaded with a <script> element when asked for, since fetch() does not work from
 * file://. A view holds only what it may know: the public view, or one seat's view
 * (computed in Python with the game's own observation function). Frames carry only the
 * state keys that changed; the viewer merges them back into whole states. A seat's file
 * holds only what the seat adds to the public view (its base): the viewer loads the
 * public view too and lays the seat's frames over it (overlay).
 * Text from the data is only ever set as textContent, never parsed as HTML.
 */
(function () {
  "use strict";

  var params = new URLSearchParams(window.location.search);
  var gameKey = params.get("game") || "game";
  var wanted = params.get("view") || "public";
  var startStep = parseInt(params.get("step") || "0", 10) || 0;
  var catalogue = {};
  var views = {};
  var current = null;   // the loaded view
  var states = [];      // whole state after each frame
  var index = 0;
  var timer = null;

  var games = [];       // {key, label} of each game with viewer data, in play order
  var NEARBY = 100;     // the selector offers this many games either side of this one
  window.arenaCatalogue = function (data) { catalogue = data || {}; };
  // the report's game list (data/list.js, laid out in arena/report/gamelist.py), for the
  // game selector; absent for arena view
  window.arenaList = function (data) {
    games = [];
    data.rows.forEach(function (row) {
      if (!row[5]) { return; }  // no viewer data
      var end = Array.isArray(row[row.length - 1]) ? row.length - 1 : row.length;
      var names = [];
      for (var at = 6; at < end; at += 3) { names.push(data.bots[row[at]][0]); }
      games.push({key: "r" + row[0] + "-t" + row[1] + "-g" + row[2], label: names.join(" | ")});
    });
  };
  var packed = {};
  // a view file calls arenaView(name, base64 of the gzip-compressed JSON): ten times smaller
  window.arenaView = function (name, data) { packed[name] = data; };

  function unpack(text) {
    var bytes = Uint8Array.from(window.atob(text), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  function $(id) { return document.getElementById(id); }

  function el(tag, attrs) {
    var node = document.createElement(tag);
    var key;
    for (key in attrs || {}) {
      if (key === "text") { node.textContent = attrs[key]; }
      else if (key === "cls") { node.className = attrs[key]; }
      else { node.setAttribute(key, attrs[key]); }
    }
    for (var i = 2; i < arguments.length; i++) {
      if (arguments[i] !== null && arguments[i] !== undefined) {
        node.appendChild(typeof arguments[i] === "string"
          ? document.createTextNode(arguments[i]) : arguments[i]);
      }
    }
    return node;
  }

  function showError(message) {
    var box = $("error");
    box.textContent = message;
    box.hidden = false;
  }

  function load(name, then) {
    if (views[name]) { then(views[name]); return; }
    var script = document.createElement("script");
    script.src = "data/" + encodeURIComponent(gameKey) + "/" + encodeURIComponent(name) + ".js";
    script.onload = function () {
      if (!packed[name]) { showError("no data in " + script.src); return; }
      unpack(packed[name]).then(function (view) {
        withBase(view, function (whole) {
          views[name] = whole;
          then(whole);
        });
      }, function (err) { showError("cannot read " + script.src + ": " + err); });
    };
    script.onerror = function () {
      showError("no view '" + name + "' for game '" + gameKey + "' (" + script.src + ")");
    };
    document.body.appendChild(script);
  }

  function withBase(view, then) {
    if (!view.base) { then(view); return; }
    load(view.base, function (base) { then(overlay(base, view)); });
  }

  // what arena.report.views.overlay does: the seat's frame keys replace the public frame's,
  // its state keys are added to the public frame's (new objects: the public view is kept)
  function overlay(base, extra) {
    if (base.frames.length !== extra.frames.length) {
      showError("view '" + extra.view + "' does not match the public view of this game");
    }
    var frames = base.frames.map(function (frame, i) {
      var own = extra.frames[i] || {};
      var out = Object.assign({}, frame, own);
      out.state = Object.assign({}, frame.state, own.state);
      return out;
    });
    return Object.assign({}, base, { view: extra.view, seat: extra.seat, frames: frames });
  }

  function rebuild(view) {
    states = [];
    var state = {};
    view.frames.forEach(function (frame) {
      state = Object.assign({}, state, frame.state);
      states.push(state);
    });
  }

  function botName(seat) {
    var bots = current.header.bots || [];
    for (var i = 0; i < bots.length; i++) { if (bots[i].seat === seat) { return bots[i].name; } }
    return "seat " + seat;
  }

  function roundOf(state) {
    if (state.round !== undefined) { return state.round; }
    return state.turn;
  }

  function setView(name, keep) {
    load(name, function (view) {
      var first = current === null;
      current = view;
      wanted = name;
      rebuild(view);
      if (first) { fillSelectors(); }
      $("view").value = name;
      fillRounds();
      var target = keep;
      if (first && startStep) {
        target = view.frames.findIndex(function (f) { return f.n >= startStep; });
      }
      go(Math.max(0, target || 0));
      try {
        var url = new URL(window.location.href);
        url.searchParams.set("view", name);
        window.history.replaceState(null, "", url.toString());
      } catch (ignored) { /* some browsers refuse to rewrite file:// addresses */ }
    });
  }

  function fillGames() {
    var select = $("game");
    if (!games.length) { select.parentNode.hidden = true; return; }
    // a season's ladder has 100,000 games: a selector of them all would take seconds
    var at = Math.max(0, games.findIndex(function (g) { return g.key === gameKey; }));
    games.slice(Math.max(0, at - NEARBY), at + NEARBY + 1).forEach(function (g) {
      select.appendChild(el("option", {value: g.key, text: g.key + ": " + g.label}));
    });
    select.value = gameKey;
    select.onchange = function () {
      var url = new URL(window.location.href);
      url.searchParams.set("game", select.value);
      url.searchParams.set("view", wanted);
      url.searchParams.delete("step");
      window.location.href = url.toString();
    };
  }

  function fillSelectors() {
    var select = $("view");
    select.innerHTML = "";
    select.appendChild(el("option", {value: "public", text: "public view"}));
    for (var seat = 0; seat < current.header.players; seat++) {
      select.appendChild(el("option", {value: "seat" + seat,
                                       text: "seat " + seat + ": " + botName(seat)}));
    }
    $("game-title").textContent = current.header.game + " \u00b7 " +
      (current.header.bots || []).map(function (b) { return b.name; }).join(", ");
    $("slider").max = String(current.frames.length - 1);
  }

  function fillRounds() {
    $("round-label").textContent = states.length && states[0].round === undefined ? "turn" : "round";
    var select = $("round");
    select.innerHTML = "";
    var seen = {};
    states.forEach(function (state, i) {
      var round = roundOf(state);
      if (round !== undefined && round !== null && !seen[round]) {
        seen[round] = true;
        select.appendChild(el("option", {value: String(i), text: String(round)}));
      }
    });
  }

  function go(target) {
    if (!current) { return; }
    index = Math.max(0, Math.min(current.frames.length - 1, target));
    render();
  }

  function render() {
    var frame = current.frames[index];
    var state = states[index];
    $("slider").value = String(index);
    $("position").textContent = "step " + index + " / " + (current.frames.length - 1);
    var round = roundOf(state);
    var options = $("round").options;
    for (var i = options.length - 1; i >= 0; i--) {
      if (parseInt(options[i].value, 10) <= index) { $("round").selectedIndex = i; break; }
    }
    renderStep(frame, round);
    var board = $("board");
    board.innerHTML = "";
    var game = current.header.game.split("@")[0];
    var draw = BOARDS[game] || drawGeneric;
    board.appendChild(draw(state, index > 0 ? states[index - 1] : null));
    if (index === current.frames.length - 1 && current.end) {
      board.appendChild(drawEnd(current.end));
    }
    renderEvents(frame);
  }

  function renderStep(frame, round) {
    var box = $("step");
    box.innerHTML = "";
    var line = el("p", {cls: "what"});
    if (frame.seat === null || frame.seat === undefined) {
      line.appendChild(el("b", {text: "the deal"}));
    } else {
      line.appendChild(el("b", {text: "decision " + frame.n}));
      line.appendChild(document.createTextNode(" \u00b7 " + $("round-label").textContent + " " +
        round + " \u00b7 seat " +
        frame.seat + " (" + botName(frame.seat) + "): " + frame.kind));
      if (frame.source && frame.source !== "bot") {
        line.appendChild(el("span", {cls: "source", text: frame.source}));
      }
    }
    box.appendChild(line);
    if (frame.action !== undefined) {
      box.appendChild(el("p", {cls: "action"}, "action: ", el("code", {text: describe(frame.action)})));
    }
    if (frame.fault) {
      box.appendChild(el("p", {cls: "fault", "data-testid": "fault",
        text: "fault of seat " + frame.fault.seat + ": " + frame.fault.kind +
              (frame.fault.detail ? " \u2014 " + frame.fault.detail : "")}));
    }
    (frame.forfeits || []).forEach(function (f) {
      box.appendChild(el("p", {cls: "fault forfeit", "data-testid": "forfeit",
        text: "seat " + f.seat + " (" + botName(f.seat) + ") forfeits: " + f.reason}));
    });
  }

  function describe(value, nested) {
    if (value === null || typeof value !== "object") { return String(value); }
    if (Array.isArray(value)) {
      return "[" + value.map(function (v) { return describe(v, true); }).join(", ") + "]";
    }
    var text = Object.keys(value).map(function (k) {
      return k === "type" && !nested ? String(value[k]) : k + "=" + describe(value[k], true);
    }).join(" ");
    return nested ? "{" + text + "}" : text;
  }

  function renderEvents(frame) {
    var box = $("events");
    box.innerHTML = "";
    box.appendChild(el("h3", {text: frame.events.length ? "events" : "no events"}));
    var list = el("ol", {});
    frame.events.forEach(function (event) {
      list.appendChild(el("li", {cls: "event e-" + event.type, text: describe(event)}));
    });
    box.appendChild(list);
  }

  function drawEnd(end) {
    var box = el("div", {cls: "end", "data-testid": "end"});
    box.appendChild(el("h3", {text: "end: " + end.termination}));
    var list = el("ol", {});
    var seats = (end.placings || []).map(function (p, s) { return s; });
    seats.sort(function (a, b) { return end.placings[a] - end.placings[b]; });
    seats.forEach(function (s) {
      list.appendChild(el("li", {text: end.placings[s] + ". " + botName(s) + " (seat " + s +
                                        "): " + end.scores[s] + " points"}));
    });
    box.appendChild(list);
    return box;
  }

  function drawGeneric(state) {
    return el("pre", {cls: "state", text: JSON.stringify(state, null, 1)});
  }

  /* machiavelli ---------------------------------------------------------------------- */

  function niceId(id) {
    return String(id).replace(/_/g, " ").replace(/\b\w/g, function (c) { return c.toUpperCase(); });
  }

  function district(id) {
    var info = (catalogue.districts || {})[id] || {};
    return el("li", {cls: "district t-" + (info.type || "unknown"), "data-id": id,
                     title: (info.type || "") + (info.cost !== undefined ? ", cost " + info.cost : "")},
              info.name || niceId(id), " ", el("b", {cls: "cost", text: String(info.cost === undefined ? "?" : info.cost)}));
  }

  function character(id) {
    var info = (catalogue.characters || {})[id] || {};
    return el("span", {cls: "character", "data-id": id,
                       text: (info.rank ? info.rank + " " : "") + (info.name || niceId(id))});
  }

  function drawMachiavelli(state) {
    var box = el("div", {cls: "machiavelli"});
    var facts = el("p", {cls: "facts"});
    [["round", state.round], ["phase", state.phase], ["deck", state.deck_size],
     ["crown", state.crown !== undefined ? "seat " + state.crown : undefined],
     ["killed", state.killed], ["robbed", state.robbed]].forEach(function (pair) {
      if (pair[1] !== undefined && pair[1] !== null) {
        var text = typeof pair[1] === "string" && pair[0] !== "crown" ? niceId(pair[1]) : String(pair[1]);
        facts.appendChild(el("span", {cls: "fact fact-" + pair[0]}, pair[0] + ": ",
                                     el("b", {text: text})));
      }
    });
    box.appendChild(facts);
    if (state.draft_pool && state.draft_pool.length) {
      var pool = el("p", {cls: "draft", "data-testid": "draft-pool"}, "offered to you: ");
      state.draft_pool.forEach(function (c) { pool.appendChild(character(c)); });
      box.appendChild(pool);
    }
    if (state.faceup_discards && state.faceup_discards.length) {
      var up = el("p", {cls: "draft"}, "face-up discards: ");
      state.faceup_discards.forEach(function (c) { up.appendChild(character(c)); });
      box.appendChild(up);
    }
    var seats = el("div", {cls: "seats"});
    for (var seat = 0; seat < current.header.players; seat++) {
      seats.appendChild(drawCitadel(state, seat));
    }
    box.appendChild(seats);
    return box;
  }

  function drawCitadel(state, seat) {
    var own = current.seat === seat;
    var acting = state.current && state.current.seat === seat;
    var card = el("div", {cls: "seat" + (own ? " own" : "") + (acting ? " acting" : ""),
                          "data-seat": String(seat)});
    var title = el("h3", {}, "seat " + seat + ": " + botName(seat));
    if (state.crown === seat) { title.appendChild(el("span", {cls: "crown", title: "crown", text: " \u265B"})); }
    card.appendChild(title);
    card.appendChild(el("p", {cls: "counts"},
      "gold ", el("b", {cls: "gold", text: String((state.gold || [])[seat])}),
      " \u00b7 hand ", el("b", {cls: "hand-size", text: String((state.hand_sizes || [])[seat])}),
      " \u00b7 city ", el("b", {cls: "city-size", text: String(((state.cities || [])[seat] || []).length)})));
    var chars = el("p", {cls: "characters"});
    (state.revealed || []).forEach(function (r) { if (r.seat === seat) { chars.appendChild(character(r.character)); } });
    if (own) {
      var shown = (state.revealed || []).map(function (r) { return r.character; });
      (state.characters || []).forEach(function (c) {
        if (shown.indexOf(c) >= 0) { return; }
        var mine = character(c);
        mine.className += " secret";
        mine.title = "yours (hidden from others)";
        chars.appendChild(mine);
      });
    }
    if (acting) { chars.appendChild(el("span", {cls: "acting-as", text: "acting: " + niceId(state.current.character)})); }
    card.appendChild(chars);
    var city = el("ul", {cls: "city"});
    var beautified = ((state.beautified || [])[seat] || []).slice();
    ((state.cities || [])[seat] || []).forEach(function (id) {
      var chip = district(id);
      var at = beautified.indexOf(id);
      if (at >= 0) {  // the Artist's gold on it: worth one more point
        beautified.splice(at, 1);
        chip.className += " beautified";
        chip.title += ", beautified (+1)";
      }
      city.appendChild(chip);
    });
    card.appendChild(city);
    if (own && state.hand) {
      var hand = el("ul", {cls: "hand", title: "your hand"});
      state.hand.forEach(function (id) { hand.appendChild(district(id)); });
      card.appendChild(el("p", {cls: "label", text: "hand"}));
      card.appendChild(hand);
    }
    return card;
  }

  /* machiavelli-rummy ----------------------------------------------------------------- */

  function cardChip(code) {
    var suit = code.slice(-1);
    var red = suit === "H" || suit === "D";
    var symbols = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
    var text = code === "JK" ? "\u2605" : code.slice(0, -1) + (symbols[suit] || suit);
    return el("span", {cls: "card" + (red ? " red" : "") + (code === "JK" ? " joker" : ""),
                       "data-card": code, text: text});
  }

  function meldKey(meld) { return meld.join(","); }

  function drawMelds(table, before, label) {
    var box = el("div", {cls: "melds", "data-testid": label});
    var old = {};
    (before || []).forEach(function (m) { old[meldKey(m)] = true; });
    (table || []).forEach(function (meld) {
      var row = el("div", {cls: "meld" + (before && !old[meldKey(meld)] ? " changed" : "")});
      meld.forEach(function (c) { row.appendChild(cardChip(c)); });
      box.appendChild(row);
    });
    if (!(table || []).length) { box.appendChild(el("p", {cls: "note", text: "no melds"})); }
    return box;
  }

  function drawRummy(state, previous) {
    var box = el("div", {cls: "rummy"});
    box.appendChild(el("p", {cls: "facts"},
      el("span", {cls: "fact"}, "stock: ", el("b", {cls: "stock", text: String(state.stock)})),
      el("span", {cls: "fact"}, "turn: ", el("b", {text: String(state.turn)})),
      el("span", {cls: "fact"}, "to move: ", el("b", {text: state.to_move === null ? "-" : "seat " + state.to_move}))));
    var seats = el("div", {cls: "seats"});
    for (var seat = 0; seat < current.header.players; seat++) {
      var own = current.seat === seat;
      var card = el("div", {cls: "seat" + (own ? " own" : "") + (state.to_move === seat ? " acting" : ""),
                            "data-seat": String(seat)});
      card.appendChild(el("h3", {text: "seat " + seat + ": " + botName(seat)}));
      card.appendChild(el("p", {cls: "counts"}, "hand ",
        el("b", {cls: "hand-size", text: String((state.hand_sizes || [])[seat])}),
        (state.opened || [])[seat] ? " \u00b7 opened" : ""));
      if (own && state.hand) {
        var hand = el("div", {cls: "hand"});
        state.hand.forEach(function (c) { hand.appendChild(cardChip(c)); });
        card.appendChild(hand);
      }
      seats.appendChild(card);
    }
    box.appendChild(seats);
    box.appendChild(el("h3", {text: "table (after this step; changed melds marked)"}));
    box.appendChild(drawMelds(state.table, previous ? previous.table : null, "table"));
    if (previous && meldKey((previous.table || []).map(meldKey)) !== meldKey((state.table || []).map(meldKey))) {
      var before = el("details", {cls: "before"}, el("summary", {text: "table before this step"}));
      before.appendChild(drawMelds(previous.table, null, "table-before"));
      box.appendChild(before);
    }
    return box;
  }

  var BOARDS = {"machiavelli": drawMachiavelli, "machiavelli-rummy": drawRummy};

  /* controls --------------------------------------------------------------------------- */

  function toggle() {
    if (timer !== null) { window.clearInterval(timer); timer = null; $("play").textContent = "play"; return; }
    $("play").textContent = "pause";
    timer = window.setInterval(function () {
      if (index >= current.frames.length - 1) { toggle(); return; }
      go(index + 1);
    }, 700);
  }

  function jumpRound(step) {
    var options = Array.prototype.map.call($("round").options, function (o) { return parseInt(o.value, 10); });
    var at = options.filter(function (v) { return step > 0 ? v > index : v < index; });
    if (at.length) { go(step > 0 ? at[0] : at[at.length - 1]); }
  }

  document.addEventListener("DOMContentLoaded", function () {
    $("first").onclick = function () { go(0); };
    $("prev").onclick = function () { go(index - 1); };
    $("next").onclick = function () { go(index + 1); };
    $("last").onclick = function () { go(current.frames.length - 1); };
    $("play").onclick = toggle;
    $("slider").oninput = function () { go(parseInt($("slider").value, 10)); };
    $("round").onchange = function () { go(parseInt($("round").value, 10)); };
    $("view").onchange = function () { setView($("view").value, index); };
    document.addEventListener("keydown", function (e) {
      if (e.target && (e.target.tagName === "SELECT" || e.target.tagName === "INPUT")) { return; }
      var keys = {ArrowRight: function () { go(index + 1); }, ArrowLeft: function () { go(index - 1); },
                  " ": toggle, Home: function () { go(0); },
                  End: function () { go(current.frames.length - 1); },
                  PageDown: function () { jumpRound(1); }, PageUp: function () { jumpRound(-1); }};
      if (keys[e.key] && current) { e.preventDefault(); keys[e.key](); }
    });
    fillGames();
    setView(wanted, 0);
  });
}());
