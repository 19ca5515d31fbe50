/* The game list's filters: by bot, round, termination, faults. Rows carry their values in
 * data- attributes; nothing is loaded. */
(function () {
  "use strict";
  function apply() {
    var form = document.getElementById("filters");
    var bot = form.bot.value, round = form.round.value, term = form.termination.value;
    var faults = form.faults.checked;
    var rows = document.querySelectorAll("table.games tbody tr");
    var shown = 0;
    Array.prototype.forEach.call(rows, function (row) {
      var ok = (!bot || row.dataset.bots.split("\n").indexOf(bot) >= 0) &&
               (!round || row.dataset.round === round) &&
               (!term || row.dataset.termination === term) &&
               (!faults || row.dataset.faults !== "0");
      row.hidden = !ok;
      if (ok) { shown += 1; }
    });
    document.getElementById("shown").textContent = shown + " of " + rows.length + " games";
  }
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("filters");
    form.addEventListener("change", apply);
    var params = new URLSearchParams(window.location.search);
    ["bot", "round", "termination"].forEach(function (name) {
      if (params.get(name)) { form[name].value = params.get(name); }
    });
    apply();
  });
}());
