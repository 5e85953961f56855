// Sortable tables: in a `.kb-sortable` box, each column header becomes a button that sorts the
// rows by that column (numbers by their exact value, `data-value`; text by its words), again
// to reverse. Without JavaScript the table keeps the order the page was written in.
(function () {
  "use strict";

  function key(cell) {
    var exact = cell.getAttribute("data-value");
    if (exact !== null && exact !== "") {
      var number = Number(exact);
      if (!isNaN(number)) return { number: number };
    }
    return { text: (cell.textContent || "").trim().toLowerCase() };
  }

  function compare(a, b) {
    if (a.number !== undefined && b.number !== undefined) return a.number - b.number;
    if (a.number !== undefined) return -1;
    if (b.number !== undefined) return 1;
    return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  }

  function sortable(table) {
    var headers = table.tHead ? table.tHead.rows[0].cells : [];
    var body = table.tBodies[0];
    if (!body) return;
    Array.prototype.forEach.call(headers, function (header, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "kb-sort";
      while (header.firstChild) button.appendChild(header.firstChild);
      header.appendChild(button);
      button.addEventListener("click", function () {
        var ascending = header.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(headers, function (h) { h.removeAttribute("aria-sort"); });
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var order = compare(key(a.cells[column]), key(b.cells[column]));
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll(".kb-sortable table"), sortable);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
