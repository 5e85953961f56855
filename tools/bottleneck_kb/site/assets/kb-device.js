// The reader's own device, remembered across pages: an entry page's answer box gets a row for
// it beside the featured devices, chosen from a list of every device the entry was evaluated
// on. The rows are data (data-kb-rows); they are written with textContent, never as markup.
// Without JavaScript, or where storage is refused, the box shows the featured devices only.
(function () {
  "use strict";
  var KEY = "bottleneck-kb.device";

  function stored() {
    try { return window.localStorage.getItem(KEY); } catch (e) { return null; }
  }

  function store(value) {
    try {
      if (value) window.localStorage.setItem(KEY, value);
      else window.localStorage.removeItem(KEY);
    } catch (e) { /* storage refused: the choice lasts for this page only */ }
  }

  function chosenRow(box, rows, device) {
    var old = box.querySelector("tr.kb-chosen");
    if (old) old.parentNode.removeChild(old);
    var data = rows[device];
    var body = box.querySelector("tbody");
    if (!data || !body || body.querySelector('tr[data-device="' + CSS.escape(device) + '"]')) return;
    var row = document.createElement("tr");
    row.className = "kb-chosen";
    var head = document.createElement("th");
    head.scope = "row";
    var link = document.createElement("a");
    link.href = data.href;
    link.title = data.title;
    link.textContent = data.name + " (yours)";
    head.appendChild(link);
    row.appendChild(head);
    data.cells.forEach(function (value, i) {
      var cell = document.createElement("td");
      if (i === 0) cell.className = "kb-number";
      cell.textContent = value;
      row.appendChild(cell);
    });
    body.appendChild(row);
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll(".kb-answer-table"), function (box) {
      var rows;
      try { rows = JSON.parse(box.getAttribute("data-kb-rows") || "{}"); } catch (e) { return; }
      var label = document.createElement("label");
      label.className = "kb-device-choice";
      label.appendChild(document.createTextNode("Your device: "));
      var select = document.createElement("select");
      var none = document.createElement("option");
      none.value = "";
      none.textContent = "none chosen";
      select.appendChild(none);
      Object.keys(rows).sort(function (a, b) {
        return rows[a].name.localeCompare(rows[b].name);
      }).forEach(function (device) {
        var option = document.createElement("option");
        option.value = device;
        option.textContent = rows[device].name;
        select.appendChild(option);
      });
      var current = stored();
      if (current && rows[current]) select.value = current;
      select.addEventListener("change", function () {
        store(select.value);
        chosenRow(box, rows, select.value);
      });
      label.appendChild(select);
      box.appendChild(label);
      if (current) chosenRow(box, rows, current);
    });
    // A device page offers itself as the reader's device.
    Array.prototype.forEach.call(document.querySelectorAll("[data-kb-device-page]"), function (button) {
      var device = button.getAttribute("data-kb-device-page");
      function say() {
        var mine = stored() === device;
        button.textContent = mine ? "Your device (entry pages show it)" : "Make this my device";
        button.setAttribute("aria-pressed", mine ? "true" : "false");
      }
      button.hidden = false;
      say();
      button.addEventListener("click", function () {
        store(stored() === device ? "" : device);
        say();
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
