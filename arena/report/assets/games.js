/* The report's game lists (games.html, each bot's page), a page of rows at a time.
 *
 * Every game is one row of data/list.js (arena/report/gamelist.py says its layout), loaded
 * with a <script> since fetch() does not work from file://. This draws the page asked for,
 * the same rows the page holds as HTML for its first page, and applies the filters (bot,
 * round, termination, faults, a game's key) over every game of the list, not one page.
 * A bot's page lists only that bot's games (the table's data-bot). The filters, the order
 * and the page are kept in the address, so a filtered page can be bookmarked or shared.
 * Text from the data is only ever set as textContent, never parsed as HTML.
 */
(function () {
  "use strict";

  var data = null;
  window.arenaList = function (loaded) { data = loaded; };

  var FIRST_SEAT = 6;  // round, table, repeat, termination, faults, viewable, then seats
  var FILTERS = ["bot", "round", "termination", "game", "order"];
  var form, table, root, pageRows, fixed, total;
  var matched = [];
  var page = 1;

  function key(row) { return "r" + row[0] + "-t" + row[1] + "-g" + row[2]; }

  function seatsEnd(row) {
    return Array.isArray(row[row.length - 1]) ? row.length - 1 : row.length;
  }

  function seats(row) {
    var end = seatsEnd(row);
    var forfeits = {};
    if (end < row.length) {
      var pairs = row[end];
      for (var i = 0; i < pairs.length; i += 2) { forfeits[pairs[i]] = data.forfeits[pairs[i + 1]]; }
    }
    var out = [];
    for (var at = FIRST_SEAT, seat = 0; at < end; at += 3, seat += 1) {
      out.push({seat: seat, bot: data.bots[row[at]], placing: row[at + 1],
                score: row[at + 2], forfeit: forfeits[seat]});
    }
    return out;
  }

  function plays(row, bot) {
    for (var at = FIRST_SEAT, end = seatsEnd(row); at < end; at += 3) {
      if (row[at] === bot) { return true; }
    }
    return false;
  }

  function botIndex(name) {
    for (var i = 0; i < data.bots.length; i++) {
      if (data.bots[i][0] === name) { return i; }
    }
    return -1;  // a bot without games: it matches none
  }

  function node(tag, className, text) {
    var made = document.createElement(tag);
    if (className) { made.className = className; }
    if (text !== undefined) { made.textContent = String(text); }
    return made;
  }

  function link(href, text) {
    var a = node("a", "", text);
    a.href = href;
    return a;
  }

  function add(parent, child) {
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }

  function placings(row, list) {
    var td = node("td", "l placings");
    list.slice().sort(function (a, b) { return a.placing - b.placing; }).forEach(function (s) {
      var span = node("span", "placing p" + s.placing, s.placing + ". ");
      add(span, s.bot[1] ? link(root + s.bot[1], s.bot[0]) : s.bot[0]);
      add(span, " (" + s.score + ")");
      if (s.forfeit) {
        add(span, " ");
        add(span, node("em", "forfeit", "forfeit: " + s.forfeit));
      }
      add(td, span);
      add(td, " ");
    });
    return td;
  }

  function watch(row, list) {
    var td = node("td", "l");
    if (!row[5]) {
      add(td, node("span", "missing", "no replay"));
      return td;
    }
    var viewer = root + "viewer.html?game=" + encodeURIComponent(key(row)) + "&view=";
    var first = link(viewer + "public", "public");
    first.className = "watch";
    add(td, first);
    list.forEach(function (s) {
      var a = link(viewer + "seat" + s.seat, "seat " + s.seat);
      a.title = "as " + s.bot[0] + " saw it";
      add(td, " ");
      add(td, a);
    });
    return td;
  }

  function drawRow(row) {
    var tr = node("tr");
    var list = seats(row);
    var termination = data.terminations[row[3]];
    add(tr, node("td", "l", key(row)));
    add(tr, node("td", "", row[0]));
    add(tr, node("td", "", row[1]));
    add(tr, placings(row, list));
    add(tr, node("td", "l term-" + termination, termination));
    add(tr, node("td", "", row[4]));
    add(tr, watch(row, list));
    return tr;
  }

  function choice(name) { return form[name].value; }

  /* The indices of the rows that pass every filter, in the order asked for. */
  function filter() {
    var other = choice("bot") ? botIndex(choice("bot")) : null;
    var round = choice("round") === "" ? null : Number(choice("round"));
    var termination = choice("termination") === "" ? null
      : data.terminations.indexOf(choice("termination"));
    var faults = form.faults.checked;
    var text = choice("game").trim();
    var out = [];
    for (var i = 0; i < data.rows.length; i++) {
      var row = data.rows[i];
      if ((fixed === null || plays(row, fixed)) &&
          (other === null || plays(row, other)) &&
          (round === null || row[0] === round) &&
          (termination === null || row[3] === termination) &&
          (!faults || row[4] > 0) &&
          (!text || key(row).indexOf(text) >= 0)) {
        out.push(i);
      }
    }
    if (choice("order") === "new") { out.reverse(); }
    return out;
  }

  function pages() { return Math.max(1, Math.ceil(matched.length / pageRows)); }

  /* Draw the page asked for; `held`: the page already holds these rows (as written). */
  function draw(held) {
    page = Math.min(Math.max(1, page), pages());
    var start = (page - 1) * pageRows;
    var shown = matched.slice(start, start + pageRows);
    if (!held) {
      var body = document.createDocumentFragment();
      shown.forEach(function (i) { body.appendChild(drawRow(data.rows[i])); });
      table.tBodies[0].replaceChildren(body);
    }
    document.getElementById("shown").textContent = matched.length + " of " + total + " games";
    document.getElementById("page").value = page;
    document.getElementById("page").max = pages();
    document.getElementById("pages").textContent = pages();
    var range = shown.length ? "games " + (start + 1) + "\u2013" + (start + shown.length) : "";
    Array.prototype.forEach.call(document.querySelectorAll(".pager .range"), function (span) {
      span.textContent = range;
    });
    remember();
  }

  /* Whether a filter is as the page was written: empty, or its own choice (the order). */
  function usual(name) {
    var field = form[name];
    return !choice(name) || (field.tagName === "SELECT" && field.selectedOptions[0].defaultSelected);
  }

  /* Keep the filters and the page in the address (some browsers refuse to rewrite
   * file:// addresses: the list works the same, the address stays). */
  function remember() {
    try {
      var url = new URL(window.location.href);
      FILTERS.forEach(function (name) {
        if (usual(name)) { url.searchParams.delete(name); }
        else { url.searchParams.set(name, choice(name)); }
      });
      if (form.faults.checked) { url.searchParams.set("faults", "1"); }
      else { url.searchParams.delete("faults"); }
      if (page > 1) { url.searchParams.set("page", page); } else { url.searchParams.delete("page"); }
      if (url.toString() !== window.location.href) {
        window.history.replaceState(null, "", url.toString());
      }
    } catch (ignored) { /* the address is a convenience */ }
  }

  function recall() {
    var params = new URLSearchParams(window.location.search);
    FILTERS.forEach(function (name) {
      if (params.get(name)) { form[name].value = params.get(name); }
    });
    form.faults.checked = params.get("faults") === "1";
    page = parseInt(params.get("page") || "1", 10) || 1;
  }

  function go(where) {
    var to = {first: 1, prev: page - 1, next: page + 1, last: pages()}[where];
    if (to !== undefined) { page = to; draw(); }
  }

  function refilter() {
    matched = filter();
    page = 1;
    draw();
  }

  document.addEventListener("DOMContentLoaded", function () {
    form = document.getElementById("filters");
    table = document.querySelector("table.games");
    if (data === null) {
      document.getElementById("list-missing").hidden = false;
      return;
    }
    root = table.dataset.root;
    pageRows = parseInt(table.dataset.pageRows, 10) || 100;
    fixed = table.dataset.bot ? botIndex(table.dataset.bot) : null;
    total = fixed === null ? data.rows.length
      : data.rows.filter(function (row) { return plays(row, fixed); }).length;
    var pagers = document.querySelectorAll(".pager");
    recall();
    matched = filter();
    // page 1 unfiltered in the page's order: the rows written in the page (the same ones
    // drawRow makes; tests compare them), so a small run's list is not drawn twice
    draw(page === 1 && !form.faults.checked && FILTERS.every(usual));
    form.addEventListener("change", refilter);
    form.game.addEventListener("input", refilter);
    Array.prototype.forEach.call(pagers, function (pager) {
      pager.hidden = total <= pageRows;  // a list of one page looks as it always did
      pager.addEventListener("click", function (event) {
        var button = event.target.closest("button");
        if (button) { go(button.dataset.go); }
      });
    });
    document.getElementById("page").addEventListener("change", function (event) {
      event.stopPropagation();
      page = parseInt(event.target.value, 10) || 1;
      draw();
    });
  });
}());
