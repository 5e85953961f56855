/* The explorer on an entry page (`Explorer`): its controls (each symbol's slider and field,
   the devices, the dtype, the workaround), and the results table and summary, recomputed in
   the page as the reader moves a control, with the state written to the link. Separate from
   the compare page, a page of its own, and from the charts it draws
   (kb-explorer-chart.js, which adds them to Explorer). After kb-explorer-model.js,
   kb-explorer-fragment.js and kb-explorer-elements.js. */
(function (internals) {
  "use strict";
  var N = window.KBNumbers;
  var map = internals.map, has = internals.has, isLog = internals.isLog, reads = internals.reads,
    movable = internals.movable, quoted = internals.quoted, unmoved = internals.unmoved,
    evaluate = internals.evaluate, valued = internals.valued, across = internals.across,
    fraction = internals.fraction, dtypesOf = internals.dtypesOf,
    readFragment = internals.readFragment, given = internals.given,
    writeFragment = internals.writeFragment, el = internals.el, scrollBox = internals.scrollBox,
    fill = internals.fill, rowHeader = internals.rowHeader, cell = internals.cell,
    showNotes = internals.showNotes;

  /* --- an entry page ---------------------------------------------------------------------- */

  var SLIDER_STEPS = 1000;

  function sliderToValue(symbol, t) {
    var lo = symbol.range[0], hi = symbol.range[1];
    var x = across(symbol, t / SLIDER_STEPS);
    // Counts (integer ends at least 8 apart) move in whole steps.
    if (Number.isInteger(lo) && Number.isInteger(hi) && hi - lo >= 8) x = Math.round(x);
    return Math.min(Math.max(x, lo), hi);
  }

  function valueToSlider(symbol, x) {
    var lo = symbol.range[0], hi = symbol.range[1];
    if (hi === lo) return 0;
    return Math.round(fraction(x, lo, hi, isLog(symbol)) * SLIDER_STEPS);
  }

  function Explorer(root, entry) {
    var data = entry.data;
    var self = this;
    this.root = root;
    this.entry = entry;
    this.state = { values: map(), devices: data.evaluated.slice(), dtype: data.dtype, workaround: null };
    this.notes = [];
    readFragment(data, window.location.hash, this.state, this.notes);
    this.inputs = map();
    this.sweep = null;
    this.charts = null;

    root.appendChild(el("p", { "class": "kb-x-help" }, [
      "Move the symbols, pick devices, a dtype or a workaround: the numbers below are " +
      "recomputed in the page from the entry's formulas. The link keeps what you chose."]));
    var controls = el("div", { "class": "kb-x-controls" });
    data.symbols.forEach(function (s, i) { controls.appendChild(self.symbolControl(s, "kb-x-" + i)); });
    root.appendChild(controls);
    root.appendChild(this.deviceControl());
    this.dtypeRow = el("div", { "class": "kb-x-dtype" });
    root.appendChild(this.dtypeRow);
    if (data.workarounds.length) root.appendChild(this.workaroundControl());
    this.noteList = el("ul", { "class": "kb-x-notes", "aria-live": "polite" });
    root.appendChild(this.noteList);
    // Announced as it is recomputed, without taking the reader from the control they move.
    this.summary = el("p", { "class": "kb-x-summary", role: "status" });
    root.appendChild(this.summary);
    this.table = scrollBox("results on each device");
    root.appendChild(this.table);
    this.chart = el("div", { "class": "kb-x-chart" });
    root.appendChild(this.chart);
    this.link = el("a", { "class": "kb-x-link", href: "#" }, ["Link to this view"]);
    root.appendChild(el("p", {}, [this.link]));
    root.hidden = false;
    this.update(false);
  }

  /* A symbol's slider and field, named by its label (`id` and the ids made from it are the
     controls'), and described by its range and meaning. */
  Explorer.prototype.symbolControl = function (s, id) {
    var self = this;
    var label = s.symbol + (s.unit ? " (" + s.unit + ")" : "");
    if (s.range === null) {
      return el("div", { "class": "kb-x-symbol" }, [
        el("span", { "class": "kb-x-name" }, [label]),
        el("span", {}, [" fixed at " + (s.typical === null ? "no value" : valued(s, s.typical)) + " (no range)"])]);
    }
    // A slider that could never change anything is not drawn: the line says why.
    if (!movable(this.entry.data, s.symbol)) {
      return el("div", { "class": "kb-x-symbol kb-x-unused", "data-symbol": s.symbol }, [
        el("span", { "class": "kb-x-name" }, [label]),
        el("span", { "class": "kb-x-status" }, [unmoved(this.entry.data, s)]),
        el("span", { "class": "kb-x-about" }, [s.name])]);
    }
    var initial = has(this.state.values, s.symbol) ? this.state.values[s.symbol] : (s.typical !== null ? s.typical : s.range[0]);
    this.state.values[s.symbol] = initial;
    // Described by its range and meaning, and first, while the controls are off, by why:
    // "set to 4 bits by ..." is what a reader needs before the range.
    var described = id + "-range " + id + "-about";
    var slider = el("input", { type: "range", min: "0", max: String(SLIDER_STEPS), step: "1",
      "data-symbol": s.symbol, "aria-label": label + " slider", "aria-describedby": described });
    var field = el("input", { type: "number", step: "any", min: String(s.range[0]), max: String(s.range[1]),
      "data-symbol": s.symbol, id: id, "aria-describedby": described });
    // The slider's position (0 to SLIDER_STEPS) means nothing to a reader: it is announced
    // as the value the field shows, with its unit.
    function show(x) {
      field.value = N.exactNumber(x);
      slider.setAttribute("aria-valuetext", valued(s, x));
    }
    function moved() {
      var x = sliderToValue(s, Number(slider.value));
      self.state.values[s.symbol] = x;
      show(x);
      self.notes = [];
      self.update(true);
    }
    slider.value = String(valueToSlider(s, initial));
    show(initial);
    slider.addEventListener("input", moved);
    // An arrow key moves to the next value the slider gives, not to its next position: on a
    // log scale of whole numbers B went from 1 to 2 in 98 presses.
    slider.addEventListener("keydown", function (event) {
      var step = event.key === "ArrowRight" || event.key === "ArrowUp" ? 1 :
        event.key === "ArrowLeft" || event.key === "ArrowDown" ? -1 : 0;
      if (!step) return;
      event.preventDefault();
      var x = self.state.values[s.symbol];
      for (var t = valueToSlider(s, x) + step; t >= 0 && t <= SLIDER_STEPS; t += step) {
        var next = sliderToValue(s, t);
        if (step > 0 ? next > x : next < x) { slider.value = String(t); moved(); return; }
      }
    });
    field.addEventListener("change", function () {
      self.notes = [];
      var x = given(s, field.value.trim(), self.notes);
      if (x !== undefined) self.state.values[s.symbol] = x;
      show(self.state.values[s.symbol]);
      slider.value = String(valueToSlider(s, self.state.values[s.symbol]));
      self.update(true);
    });
    var status = el("span", { "class": "kb-x-status", id: id + "-status" });
    var extent = " " + N.number(s.range[0]) + " to " + N.number(s.range[1]) + (isLog(s) ? " (log scale)" : "");
    var row = el("div", { "class": "kb-x-symbol", "data-symbol": s.symbol }, [
      el("label", { "class": "kb-x-name", "for": id }, [label]), slider, field, status,
      el("span", { "class": "kb-x-range", id: id + "-range" }, [extent]),
      el("span", { "class": "kb-x-about", id: id + "-about" }, [s.name])]);
    this.inputs[s.symbol] = { symbol: s, slider: slider, field: field, status: status, row: row, show: show,
      described: described };
    return row;
  };

  /* Why a symbol's controls are off in the current state, or "" when moving them changes the
     evaluation: a workaround chosen sets it, or the formulas in effect do not read it. */
  Explorer.prototype.why = function (s) {
    var data = this.entry.data;
    var index = this.state.workaround;
    var workaround = index === null ? null : data.workarounds[index];
    if (workaround && has(workaround.set, s.symbol)) {
      return "set to " + valued(s, workaround.set[s.symbol]) + " by " + quoted(workaround.title);
    }
    if (reads(data, index).indexOf(s.symbol) >= 0) return "";
    if (workaround) return "not read by the formulas with " + quoted(workaround.title);
    return "read only with " + data.workarounds.filter(function (w) {
      return w.uses.indexOf(s.symbol) >= 0 && !has(w.set, s.symbol);
    }).map(function (w) { return quoted(w.title); }).join(" or ");
  };

  /* Each symbol's controls as the state has them: one a chosen workaround sets shows that
     value, and one that changes nothing is off; each says why. The reader's own value is kept
     and comes back when the workaround is cleared. */
  Explorer.prototype.renderControls = function () {
    var state = this.state;
    Object.keys(this.inputs).forEach(function (name) {
      var input = this.inputs[name], s = input.symbol;
      var why = this.why(s);
      var workaround = state.workaround === null ? null : this.entry.data.workarounds[state.workaround];
      var x = workaround && has(workaround.set, name) ? workaround.set[name] : state.values[name];
      input.show(x);
      if (sliderToValue(s, Number(input.slider.value)) !== x) input.slider.value = String(valueToSlider(s, x));
      input.slider.disabled = input.field.disabled = why !== "";
      input.status.textContent = why;
      [input.slider, input.field].forEach(function (control) {
        control.setAttribute("aria-describedby", (why ? input.status.id + " " : "") + input.described);
      });
      input.row.classList.toggle("kb-x-off", why !== "");
    }, this);
  };

  Explorer.prototype.deviceControl = function () {
    var self = this;
    var data = this.entry.data;
    var box = el("fieldset", { "class": "kb-x-devices" }, [el("legend", {}, ["Devices"])]);
    var checks = [];
    data.devices.forEach(function (d) {
      var check = el("input", { type: "checkbox", value: d.id, "data-device": d.id });
      check.checked = self.state.devices.indexOf(d.id) >= 0;
      // The devices are kept in the order the reader chose them (the link's `@on`, then each
      // ticked last): the time chart is drawn for the first.
      check.addEventListener("change", function () {
        var kept = self.state.devices.filter(function (id) { return id !== d.id; });
        self.state.devices = check.checked ? kept.concat([d.id]) : kept;
        self.notes = [];
        self.update(true);
      });
      checks.push(check);
      box.appendChild(el("label", {}, [check, " " + d.name]));
    });
    [["all", true], ["none", false]].forEach(function (pair) {
      var button = el("button", { type: "button" }, [pair[0]]);
      button.addEventListener("click", function () {
        checks.forEach(function (c) { c.checked = pair[1]; });
        self.state.devices = pair[1] ? data.devices.map(function (d) { return d.id; }) : [];
        self.notes = [];
        self.update(true);
      });
      box.appendChild(button);
    });
    return box;
  };

  Explorer.prototype.workaroundControl = function () {
    var self = this;
    var select = el("select", { "class": "kb-x-workaround", "aria-label": "workaround" },
      [el("option", { value: "" }, ["none"])]);
    this.entry.data.workarounds.forEach(function (w, i) {
      var option = el("option", { value: String(i) }, [w.title]);
      option.selected = self.state.workaround === i;
      select.appendChild(option);
    });
    select.addEventListener("change", function () {
      self.state.workaround = select.value === "" ? null : Number(select.value);
      self.notes = [];
      self.update(true);
    });
    return el("p", {}, [el("label", {}, ["Workaround: ", select])]);
  };

  /* The picker is rebuilt only when the dtypes offered change (with the devices): a reader
     stepping through them by keyboard keeps the focus on it. */
  Explorer.prototype.renderDtypes = function () {
    var self = this;
    var data = this.entry.data;
    var options = dtypesOf(data, this.state.devices);
    var old = this.dtypeRow.querySelector("select");
    var offered = old && Array.prototype.map.call(old.options, function (o) { return o.value; });
    if (offered && offered.join(",") === options.join(",")) { old.value = this.state.dtype; return; }
    this.dtypeRow.textContent = "";
    if (options.length < 2) return;
    var select = el("select", { "aria-label": "dtype" });
    options.forEach(function (t) {
      var option = el("option", { value: t }, [t + (t === data.dtype ? " (the entry's)" : "")]);
      option.selected = t === self.state.dtype;
      select.appendChild(option);
    });
    select.addEventListener("change", function () { self.state.dtype = select.value; self.notes = []; self.update(true); });
    this.dtypeRow.appendChild(el("label", {}, ["Dense peak of dtype: ", select]));
    if (old && old === document.activeElement) select.focus();
  };

  Explorer.prototype.update = function (write) {
    var data = this.entry.data;
    var state = this.state;
    var self = this;
    var evaluation = evaluate(data.id, state);
    var fragment = writeFragment(data, state);
    if (write) history.replaceState(null, "", window.location.pathname + window.location.search + (fragment || "#"));
    this.link.setAttribute("href", window.location.pathname + window.location.search + fragment);
    this.renderDtypes();
    this.renderControls();
    var roofs = data.roofs.map(function (r) { return r.name; });
    var derived = this.entry.compiled.derived.map(function (pair) { return pair[0]; });
    var units = map();
    data.derived.forEach(function (d) { units[d.name] = d.unit; });
    var header = ["device", "FLOPs", "bytes", "intensity", "ridge", "bound by"]
      .concat(roofs.map(function (r) { return r + " time"; }))
      .concat(data.capacity ? ["fits in memory"] : []).concat(["lower bound"])
      .concat(derived.map(function (name) { return units[name] ? name + " (" + units[name] + ")" : name; }));
    var body = el("tbody");
    var shortNames = map();
    data.devices.forEach(function (d) { shortNames[d.id] = d.short_name; });
    var notes = this.notes.slice();
    if (state.dtype !== data.dtype) {
      notes.push("Only the peak is " + state.dtype + "'s: the formulas are the entry's, written for " +
        data.dtype + ", with any bits or bytes per value they hold.");
    }
    // A workaround's model replaces FLOPs or bytes, never the derived formulas: say so where
    // both are on the page, since a derived value (KV bytes a token) may be what it changes.
    if (state.workaround !== null && derived.length &&
        Object.keys(this.entry.compiled.workarounds[state.workaround]).length) {
      notes.push("The derived values follow the entry's own formulas: the workaround's model replaces " +
        Object.keys(this.entry.compiled.workarounds[state.workaround]).sort().join(" and ") + ", not them.");
    }
    evaluation.results.forEach(function (r) {
      var row = el("tr", { "data-device": r.device });
      // The short name, the full one on hover, as the static table shows a device.
      row.appendChild(rowHeader(shortNames[r.device] || r.name, r.name));
      if (r.error || r.skipped) {
        var why = r.error ? "undefined here: " + r.error : "skipped: " + r.skipped;
        row.appendChild(el("td", { colspan: String(header.length - 1), "class": "kb-x-undefined",
          "data-quantity": r.error ? "error" : "skipped" }, [why]));
        if (r.error && notes.indexOf(why) < 0) notes.push("The model is " + why);
      } else {
        row.appendChild(cell("flops", r.flops, N.quantity(r.flops, "FLOP")));
        row.appendChild(cell("bytes", r.bytes, N.quantity(r.bytes, "B")));
        row.appendChild(cell("intensity", r.intensity, N.quantity(r.intensity, "FLOP/B")));
        row.appendChild(cell("ridge", r.ridge, N.quantity(r.ridge, "FLOP/B")));
        var verdict = el("td", { "class": "kb-verdict kb-" + r.verdict, "data-quantity": "verdict", "data-value": r.verdict }, [r.verdict]);
        row.appendChild(verdict);
        roofs.forEach(function (name) {
          row.appendChild(name in r.times ? cell(name + "_time", r.times[name], N.seconds(r.times[name])) : el("td", {}, ["\u2014"]));
        });
        if (data.capacity) {
          row.appendChild(r.fits === null ? el("td", {}, ["\u2014"]) :
            el("td", { "data-quantity": "fits", "data-value": String(r.fits) }, [r.fits ? "yes" : "no"]));
        }
        row.appendChild(cell("time", r.time, N.seconds(r.time)));
        derived.forEach(function (name) {
          row.appendChild(cell("derived." + name, r.derived[name], N.quantity(r.derived[name], units[name])));
        });
      }
      body.appendChild(row);
    });
    fill(this.table, header, body);
    // What every device's row repeats (the work, when it does not depend on the device) is
    // said once, above the table, and its columns are hidden, as on the static table.
    var evaluated = evaluation.results.filter(function (r) { return !r.error && !r.skipped; });
    var same = [["flops", "FLOPs", "FLOP", 1], ["bytes", "bytes", "B", 2],
      ["intensity", "intensity", "FLOP/B", 3]].filter(function (w) {
      return evaluated.length > 1 && evaluated.every(function (r) { return r[w[0]] === evaluated[0][w[0]]; });
    });
    var table = this.table.querySelector("table");
    same.forEach(function (w) {
      Array.prototype.forEach.call(table.rows, function (row) {
        var c = row.cells[w[3]];
        if (c && !c.hasAttribute("colspan")) c.hidden = true;
      });
    });
    var work = same.length ? " Every device: " + same.map(function (w) {
      return (w[0] === "intensity" ? "intensity " : "") + N.quantity(evaluated[0][w[0]], w[2]);
    }).join(", ") + "." : "";
    // The values of the symbols the formulas in effect read, as the static page lists them.
    var bySymbol = map();
    data.symbols.forEach(function (s) { bySymbol[s.symbol] = s; });
    var read = reads(data, state.workaround);
    var shown = Object.keys(evaluation.values).sort().filter(function (k) { return read.indexOf(k) >= 0; })
      .map(function (k) { return k + " = " + valued(bySymbol[k], evaluation.values[k]); });
    var good = evaluation.results.filter(function (r) { return r.verdict; });
    var verdicts = {};
    good.forEach(function (r) { verdicts[r.verdict] = (verdicts[r.verdict] || 0) + 1; });
    var at = (shown.length ? "At " + shown.join(", ") + (state.workaround !== null ? " with " : "") : "With ") +
      (state.workaround !== null ? quoted(data.workarounds[state.workaround].title) : "");
    this.summary.textContent = at + (at === "With " ? "dense " : ", dense ") + state.dtype + " peak: " +
      (good.length ? Object.keys(verdicts).map(function (v) { return v + "-bound on " + verdicts[v] + " of " + good.length; }).join(", ") : "no device evaluated") + "." + work;
    this.noteList.textContent = "";
    showNotes(self.noteList, notes);
    this.renderChart(evaluation);
  };

  internals.Explorer = Explorer;
})(window.KBExplorerInternals);
