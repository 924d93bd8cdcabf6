/* Sorting and filtering of tables, without a server. The page reads the same without it:
   headers stay plain text and every row is shown. */
(function () {
  "use strict";

  function key(row, index) {
    var cell = row.cells[index];
    return cell.hasAttribute("data-key") ? cell.getAttribute("data-key") : cell.textContent.trim();
  }

  function compare(numeric) {
    return function (a, b) {
      if (!numeric) { return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" }); }
      var x = parseFloat(a), y = parseFloat(b);
      return (isNaN(x) ? -Infinity : x) - (isNaN(y) ? -Infinity : y);
    };
  }

  function sortBy(table, th, index) {
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var order = compare(th.getAttribute("data-sort") === "num");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) { var r = order(key(a, index), key(b, index)); return ascending ? r : -r; });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  function makeSortable(table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      if (!th.hasAttribute("data-sort")) { return; }
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, th, index); });
    });
  }

  function makeFilter(form) {
    var table = document.getElementById(form.getAttribute("data-filter-for"));
    var text = form.querySelector("input[type=search]");
    var onlyHelp = form.querySelector("input[type=checkbox]");
    var shown = form.querySelector("output");
    var rows = table.tBodies[0].rows;
    function apply() {
      var words = text.value.toLowerCase().split(/\s+/).filter(Boolean);
      var count = 0;
      Array.prototype.forEach.call(rows, function (row) {
        var haystack = row.getAttribute("data-search") || "";
        var ok = words.every(function (w) { return haystack.indexOf(w) >= 0; }) &&
          (!onlyHelp.checked || row.getAttribute("data-help") === "1");
        row.hidden = !ok;
        if (ok) { count += 1; }
      });
      /* The sentence comes translated from the page (data-template), as every word does. */
      var template = shown.getAttribute("data-template") || "{count} of {total} shown";
      shown.textContent = template.replace("{count}", count).replace("{total}", rows.length);
    }
    text.addEventListener("input", apply);
    onlyHelp.addEventListener("change", apply);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.hidden = false;
    apply();
  }

  /* A link to a closed <details> (a student's answers) opens it. */
  function openTarget() {
    var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
  window.addEventListener("hashchange", openTarget);
  openTarget();
  Array.prototype.forEach.call(document.querySelectorAll("form[data-filter-for]"), makeFilter);
})();
