/* The compare page (`Compare`): the entries a reader picks, each one's script loaded when it
   is picked, the symbols they share at one value, and their lower-bound times and verdicts
   side by side. Separate because it is a page of its own, over the same model, link rules and
   elements as an entry page's explorer. After kb-explorer-model.js, kb-explorer-fragment.js
   and kb-explorer-elements.js. */
(function (internals) {
  "use strict";
  var N = window.KBNumbers;
  var map = internals.map, has = internals.has, registry = internals.registry,
    waiting = internals.waiting, evaluate = internals.evaluate, valued = internals.valued,
    fragmentParts = internals.fragmentParts, unique = internals.unique, given = internals.given,
    clamp = internals.clamp, el = internals.el, scrollBox = internals.scrollBox,
    fill = internals.fill, rowHeader = internals.rowHeader, cell = internals.cell,
    showNotes = internals.showNotes;

  /* --- the compare page ------------------------------------------------------------------- */

  function load(listed, callback) {
    if (registry[listed.id]) { callback(); return; }
    (waiting[listed.id] = waiting[listed.id] || []).push(callback);
    if (document.querySelector('script[data-kb-entry="' + CSS.escape(listed.id) + '"]')) return;
    var script = document.createElement("script");
    script.setAttribute("data-kb-entry", listed.id);
    script.src = listed.script;
    document.head.appendChild(script);
  }

  function Compare(root, listed) {
    var self = this;
    this.root = root;
    this.listed = listed;
    // What the link or the reader's last input asked and could not have, and what the
    // entries chosen say of themselves (ranges that do not overlap): the second is worked
    // out again on each choice, so neither repeats.
    this.notes = [];
    this.conflicts = [];
    this.state = { entries: [], devices: null, values: map() };
    // The link's symbol values, as [name, text], and its devices: checked once the entries
    // chosen have loaded and their symbols and devices are known.
    this.asked = [];
    this.askedDevices = null;
    this.readFragment();
    root.appendChild(el("p", {}, ["Pick two or more entries, or one entry and several devices: " +
      "their lower-bound times and verdicts side by side. A symbol the entries share (its name, " +
      "in the same unit) takes one value in all of them; each entry's other symbols keep its own " +
      "values. Under the table, each entry's values."]));
    var box = el("fieldset", { "class": "kb-x-entries" }, [el("legend", {}, ["Entries"])]);
    this.checks = listed.map(function (e) {
      var check = el("input", { type: "checkbox", value: e.id, "data-entry": e.id });
      check.checked = self.state.entries.indexOf(e.id) >= 0;
      check.addEventListener("change", function () { self.notes = []; self.choose(); });
      box.appendChild(el("label", {}, [check, " " + e.title]));
      return check;
    });
    root.appendChild(box);
    this.controls = el("div", { "class": "kb-x-controls" });
    root.appendChild(this.controls);
    this.devices = el("fieldset", { "class": "kb-x-devices" }, [el("legend", {}, ["Devices"])]);
    root.appendChild(this.devices);
    this.noteList = el("ul", { "class": "kb-x-notes", "aria-live": "polite" });
    root.appendChild(this.noteList);
    this.summary = el("p", { "class": "kb-x-summary", role: "status" });
    root.appendChild(this.summary);
    this.table = scrollBox("entries compared");
    root.appendChild(this.table);
    // Which symbols the entries share, and each entry's values: two entries that share none
    // are at two operating points, which the table alone does not show.
    this.shared = el("p", { "class": "kb-x-shared", "aria-live": "polite" });
    root.appendChild(this.shared);
    this.at = el("ul", { "class": "kb-x-at" });
    root.appendChild(this.at);
    root.hidden = false;
    // A page whose fragment changed builds a new one: this one's entries, still loading, must
    // not draw over it.
    this.live = true;
    this.choose();
  }

  Compare.prototype.readFragment = function () {
    var self = this;
    var ids = this.listed.map(function (e) { return e.id; });
    fragmentParts(window.location.hash, this.notes).forEach(function (pair) {
      var key = pair[0], value = pair[1];
      if (key === "@entries") {
        self.state.entries = unique(value.split(",")).filter(function (id) {
          if (ids.indexOf(id) >= 0) return true;
          // "@entries=" is what the page writes when no entry is chosen: nothing to say.
          if (id) self.notes.push("ignored unknown entry \u201c" + id + "\u201d");
          return false;
        });
      } else if (key === "@on") {
        self.askedDevices = unique(value.split(","));
      } else {
        self.asked.push(pair);
      }
    });
  };

  Compare.prototype.choose = function () {
    var self = this;
    this.state.entries = this.checks.filter(function (c) { return c.checked; }).map(function (c) { return c.value; });
    var pending = this.state.entries.length;
    if (!pending) { this.render(); return; }
    this.state.entries.forEach(function (id) {
      load(self.listed.filter(function (e) { return e.id === id; })[0], function () {
        pending -= 1;
        if (pending === 0 && self.live) self.build();
      });
    });
  };

  /* The shared symbols (by name, the range where every entry that ranges it defines it) and
     the devices. The link's symbol values are checked here, by the entry explorer's rules,
     once the entries' symbols are known; the state keeps values of shared symbols only, so
     the link written back carries no other key. */
  Compare.prototype.build = function () {
    var self = this;
    var symbols = map();
    var fixed = map();
    var devices = [];
    var known = [];
    var deviceNames = map();
    // A name two entries measure in different units (B in sequences, B in rows) is not one
    // quantity: it is not shared, and each entry keeps its own typical value.
    var units = map();
    // The entries that read each symbol (no workaround here: their own formulas), and the
    // symbols some entry chosen has but none reads, which no control is made for.
    var readers = map();
    var unread = map();
    this.conflicts = [];
    this.state.entries.forEach(function (id) {
      var data = registry[id].data;
      data.devices.forEach(function (d) {
        if (known.indexOf(d.id) < 0) known.push(d.id);
        deviceNames[d.id] = d.name;
      });
      data.symbols.forEach(function (s) {
        if (data.uses.indexOf(s.symbol) < 0) { unread[s.symbol] = true; return; }
        var unit = s.unit || "";
        if (!has(units, s.symbol)) units[s.symbol] = [unit];
        else if (units[s.symbol].indexOf(unit) < 0) units[s.symbol].push(unit);
        if (s.range === null) { fixed[s.symbol] = s; return; }
        (readers[s.symbol] = readers[s.symbol] || []).push(id);
        var known = symbols[s.symbol];
        symbols[s.symbol] = known ? { symbol: s.symbol, unit: s.unit, name: s.name, typical: known.typical,
          range: [Math.max(known.range[0], s.range[0]), Math.min(known.range[1], s.range[1])] } : s;
      });
      data.devices.forEach(function (d) { if (devices.indexOf(d.id) < 0 && data.evaluated.indexOf(d.id) >= 0) devices.push(d.id); });
    });
    if (this.askedDevices !== null) {
      var chosen = this.askedDevices.filter(function (d) {
        if (devices.indexOf(d) >= 0) return true;
        if (known.indexOf(d) >= 0) self.notes.push("ignored device \u201c" + d + "\u201d: no entry chosen is evaluated on it");
        else if (d) self.notes.push("ignored unknown device \u201c" + d + "\u201d");
        return false;
      });
      if (chosen.length) this.state.devices = chosen; // else every device, as on an entry page
      this.askedDevices = null;
    }
    if (this.state.devices === null) this.state.devices = devices.slice();
    this.state.devices = this.state.devices.filter(function (d) { return devices.indexOf(d) >= 0; });
    var shared = Object.keys(symbols).sort().filter(function (name) {
      if (units[name].length > 1) {
        self.conflicts.push(name + " is measured in " + units[name].map(function (u) { return u || "no unit"; }).join(" and ") +
          " by the entries chosen: each keeps its own typical value");
        return false;
      }
      if (symbols[name].range[0] <= symbols[name].range[1]) return true;
      self.conflicts.push(name + ": the entries' ranges do not overlap");
      return false;
    });
    var before = this.state.values;
    var values = map();
    this.asked.forEach(function (pair) {
      var key = pair[0];
      if (shared.indexOf(key) >= 0) {
        var x = given(symbols[key], pair[1], self.notes);
        if (x !== undefined) values[key] = x;
      } else if (has(symbols, key)) {
        return; // ranges that do not overlap: said above
      } else if (has(fixed, key)) {
        given(fixed[key], pair[1], self.notes); // refused and said: no entry gives it a range
      } else if (has(unread, key)) {
        self.notes.push("ignored \u201c" + key + "\u201d: no formula of the entries chosen reads it");
      } else {
        self.notes.push("ignored \u201c" + key + "\u201d: not a symbol of the entries chosen");
      }
    });
    this.asked = [];
    this.state.values = values;
    this.common = shared.filter(function (name) { return readers[name].length > 1; });
    this.controls.textContent = "";
    shared.forEach(function (name, i) {
      var s = symbols[name];
      var id = "kb-c-" + i;
      // The reader's value kept from before a change of entries, else the typical one.
      var start = has(before, name) ? before[name] : s.typical !== null ? s.typical : s.range[0];
      if (!has(values, name)) values[name] = clamp(s, N.exactNumber(start), self.notes);
      var field = el("input", { type: "number", step: "any", "data-symbol": name, id: id,
        "aria-describedby": id + "-range " + id + "-about" });
      field.value = N.exactNumber(self.state.values[name]);
      field.addEventListener("change", function () {
        self.notes = [];
        var x = given(s, field.value.trim(), self.notes);
        if (x !== undefined) self.state.values[name] = x;
        field.value = N.exactNumber(self.state.values[name]);
        self.render();
      });
      self.controls.appendChild(el("div", { "class": "kb-x-symbol" }, [
        el("label", { "class": "kb-x-name", "for": id }, [name + (s.unit ? " (" + s.unit + ")" : "")]), field,
        el("span", { "class": "kb-x-range", id: id + "-range" }, [" " + N.number(s.range[0]) + " to " + N.number(s.range[1])]),
        el("span", { "class": "kb-x-about", id: id + "-about" }, [s.name])]));
    });
    this.devices.textContent = "";
    this.devices.appendChild(el("legend", {}, ["Devices"]));
    devices.forEach(function (id) {
      var check = el("input", { type: "checkbox", value: id, "data-device": id });
      check.checked = self.state.devices.indexOf(id) >= 0;
      check.addEventListener("change", function () {
        self.state.devices = Array.prototype.filter.call(self.devices.querySelectorAll("input"), function (c) { return c.checked; })
          .map(function (c) { return c.value; });
        self.render();
      });
      self.devices.appendChild(el("label", {}, [check, " " + deviceNames[id]]));
    });
    this.render();
  };

  Compare.prototype.render = function () {
    var self = this;
    var parts = ["@entries=" + this.state.entries.map(encodeURIComponent).join(",")];
    if (this.state.devices) parts.push("@on=" + this.state.devices.map(encodeURIComponent).join(","));
    Object.keys(this.state.values).sort().forEach(function (k) { parts.push(encodeURIComponent(k) + "=" + self.state.values[k]); });
    history.replaceState(null, "", window.location.pathname + "#" + parts.join("&"));
    var body = el("tbody");
    var verdicts = map();
    var common = this.common || [];
    this.at.textContent = "";
    this.state.entries.forEach(function (id) {
      var entry = registry[id];
      if (!entry) return;
      var values = map();
      // A symbol without a range in this entry keeps its typical value there, as on its page.
      entry.data.symbols.forEach(function (s) {
        if (s.range !== null && has(self.state.values, s.symbol)) values[s.symbol] = self.state.values[s.symbol];
      });
      var evaluation = evaluate(id, { values: values, devices: self.state.devices || [], dtype: entry.data.dtype, workaround: null });
      var at = entry.data.symbols.filter(function (s) {
        return entry.data.uses.indexOf(s.symbol) >= 0 && has(evaluation.values, s.symbol);
      }).map(function (s) {
        return s.symbol + " = " + valued(s, evaluation.values[s.symbol]) + (common.indexOf(s.symbol) >= 0 ? " (shared)" : "");
      });
      self.at.appendChild(el("li", { "data-entry": id }, [entry.data.title + ": " +
        (at.length ? "at " + at.join(", ") : "its formulas read no symbol")]));
      evaluation.results.forEach(function (r) {
        var row = el("tr", { "data-entry": id, "data-device": r.device }, [rowHeader(entry.data.title), rowHeader(r.name)]);
        if (r.verdict) {
          verdicts[r.verdict] = (verdicts[r.verdict] || 0) + 1;
          row.appendChild(el("td", { "class": "kb-verdict kb-" + r.verdict, "data-quantity": "verdict", "data-value": r.verdict }, [r.verdict]));
          row.appendChild(cell("time", r.time, N.seconds(r.time)));
        } else {
          row.appendChild(el("td", { colspan: "2", "class": "kb-x-undefined",
            "data-quantity": r.error ? "error" : "skipped" }, [r.error ? "undefined here: " + r.error : "skipped: " + r.skipped]));
        }
        body.appendChild(row);
      });
    });
    fill(this.table, ["entry", "device", "bound by", "lower bound"], body);
    this.shared.textContent = this.state.entries.length < 2 ? "" : common.length ?
      "Shared by the entries, at one value in each that reads it: " + common.join(", ") +
      ". Each entry's other symbols are at its own values:" :
      "The entries chosen share no symbol: each is at its own values, so their rows are " +
      "not one operating point:";
    this.noteList.textContent = "";
    showNotes(self.noteList, this.conflicts.concat(this.notes));
    this.summary.textContent = summary(body.querySelectorAll("tr").length, verdicts, this.state.entries.length);
  };

  /* The compare page's results in a sentence, for the reader who cannot see the table change. */
  function summary(rows, verdicts, entries) {
    if (!entries) return "No entry chosen.";
    if (!rows) return "No device chosen.";
    var bound = Object.keys(verdicts).map(function (v) { return v + "-bound in " + verdicts[v]; });
    var counted = Object.keys(verdicts).reduce(function (n, v) { return n + verdicts[v]; }, 0);
    if (counted < rows) bound.push("not evaluated in " + (rows - counted));
    return rows + (rows === 1 ? " row" : " rows") + ": " + bound.join(", ") + ".";
  }

  internals.Compare = Compare;
})(window.KBExplorerInternals);
