/* The explorer of Bottleneck KB entry pages and the compare page: re-evaluates an entry's
   roofline as the reader moves its symbols, devices, dtype and workaround, with the state in
   the URL fragment. Entry scripts (made by bottleneck_kb/site/explorer.py) register each entry's
   payload and compiled formulas. Everything from an entry reaches the page as text nodes or
   attribute values, never as markup. */
(function () {
  "use strict";
  var R = window.KBFormula;
  var N = window.KBNumbers;
  var SVG = "http://www.w3.org/2000/svg";
  var registry = Object.create(null);
  var waiting = Object.create(null);
  var SLIDER_STEPS = 1000;
  var CHART_POINTS = 48;
  var RIDGE_LINES = 6;

  /* Maps keyed by what an entry or a link names (symbols, dtypes, figures): without a
     prototype, so a symbol named `constructor` or `__proto__` is a key like any other. */
  function map() { return Object.create(null); }
  function has(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }

  function register(data, make) {
    registry[data.id] = { data: data, compiled: make(R) };
    (waiting[data.id] || []).forEach(function (callback) { callback(); });
    delete waiting[data.id];
  }

  /* --- the model: the same steps as roofline.py ----------------------------------------- */

  function isLog(symbol) {
    var range = symbol.range;
    return range !== null && range[0] > 0 && range[1] / range[0] > 10;
  }

  /* The symbols' values: typical ones, the reader's on top, the workaround's settings on top
     of those (they are what the workaround is). */
  function assignment(data, state) {
    var values = map();
    data.symbols.forEach(function (s) {
      if (s.typical !== null) values[s.symbol] = s.typical;
    });
    Object.keys(state.values).forEach(function (k) { values[k] = state.values[k]; });
    var workaround = state.workaround === null ? null : data.workarounds[state.workaround];
    if (workaround) Object.keys(workaround.set).forEach(function (k) { values[k] = workaround.set[k]; });
    return values;
  }

  /* The symbols the formulas in effect read (the derived ones too): the entry's own, or with a
     workaround its model's, among them any it sets. */
  function reads(data, workaround) {
    return workaround === null ? data.uses : data.workarounds[workaround].uses;
  }

  /* Whether moving a symbol can change anything: the formulas read it without a workaround,
     or with one that does not set it. */
  function movable(data, name) {
    return data.uses.indexOf(name) >= 0 || data.workarounds.some(function (w) {
      return w.uses.indexOf(name) >= 0 && !has(w.set, name);
    });
  }

  function quoted(text) { return "\u201c" + text + "\u201d"; }

  /* Why a symbol that no control could move has none: it is in no formula, or only in those
     of workarounds that set it. */
  function unmoved(data, symbol) {
    var setting = data.workarounds.filter(function (w) { return w.uses.indexOf(symbol.symbol) >= 0; });
    if (!setting.length) return "not in the formulas, so nothing here depends on it";
    return "read only with " + setting.map(function (w) {
      return quoted(w.title) + ", which sets it to " + valued(symbol, w.set[symbol.symbol]);
    }).join(", and with ");
  }

  function refusal(what, error) {
    if (error instanceof R.FormulaError) {
      return what + ": " + error.message + " (at offset " + error.offset + ")";
    }
    throw error;
  }

  function formulaFor(entry, state, name) {
    var index = state.workaround;
    var replaced = index === null ? null : entry.compiled.workarounds[index][name];
    return replaced || entry.compiled.formulas[name];
  }

  /* The work at an assignment: {values, quantities} or {error}. */
  function work(entry, state) {
    var values = assignment(entry.data, state);
    var quantities = map();
    var names = ["flops", "bytes"];
    for (var i = 0; i < names.length; i++) {
      try {
        quantities[names[i]] = formulaFor(entry, state, names[i])(values);
      } catch (e) {
        return { values: values, error: refusal(names[i] === "flops" ? "FLOPs" : "bytes", e) };
      }
    }
    if (quantities.flops < 0 || quantities.bytes <= 0) {
      return { values: values, error: "FLOPs must be >= 0 and bytes > 0 here" };
    }
    if (quantities.flops / quantities.bytes === Infinity) {
      return { values: values, error: "intensity is too large to compute here" };
    }
    return { values: values, quantities: quantities };
  }

  /* The work on one device's roofs: the entry's other formulas (which may read the device's
     figures by name) and derived values, the time each roof gives, the lower bound (the
     slowest roof, overlap assumed) and the verdict (the roof that sets it, the first listed
     on a tie; capacity when a footprint does not fit in memory). A device lacking a figure
     the entry reads is skipped and named. */
  function onDevice(entry, state, done, device) {
    var data = entry.data;
    var dtype = state.dtype;
    var result = { device: device.id, name: device.name };
    var peaks = device.figures.peak_flops || {};
    var missing = data.needs.filter(function (name) {
      return name === "peak_flops" ? !has(peaks, dtype) : !has(device.figures, name);
    }).map(function (name) { return name === "peak_flops" ? "dense " + dtype + " peak" : name; });
    if (missing.length) { result.skipped = "no " + missing.join(", ") + " in the catalog"; return result; }
    if (done.error) { result.error = done.error; return result; }
    /* A symbol past the device figure it is bounded by: the device cannot run the entry
       there (a ring of 16 on a scale-up domain of 8), as kb eval says. */
    var beyond = data.symbols.filter(function (s) {
      return s.at_most !== null && has(done.values, s.symbol) && done.values[s.symbol] > device.figures[s.at_most];
    })[0];
    if (beyond) {
      result.skipped = beyond.symbol + " = " + N.exactNumber(done.values[beyond.symbol]) + " is more than its " +
        beyond.at_most + " (" + N.exactNumber(device.figures[beyond.at_most]) + ")";
      return result;
    }
    var env = map();
    Object.keys(done.values).forEach(function (k) { env[k] = done.values[k]; });
    Object.keys(device.figures).forEach(function (k) { env[k] = device.figures[k]; });
    env.peak_flops = peaks[dtype];
    var q = { flops: done.quantities.flops, bytes: done.quantities.bytes };
    var replaced = state.workaround === null ? {} : entry.compiled.workarounds[state.workaround];
    var others = Object.keys(entry.compiled.formulas).concat(Object.keys(replaced)).filter(function (k, i, all) {
      return !(k in q) && all.indexOf(k) === i;
    });
    var name = null;
    try {
      others.forEach(function (other) {
        name = other;
        var value = formulaFor(entry, state, other)(env);
        if (value < 0) throw new R.FormulaError(other + " must be >= 0; got " + R.g(value), 0);
        q[other] = value;
      });
      result.derived = map();
      entry.compiled.derived.forEach(function (pair) {
        name = pair[0];
        result.derived[pair[0]] = env[pair[0]] = pair[1](env);
      });
    } catch (e) {
      result.error = refusal(name, e);
      return result;
    }
    result.flops = q.flops;
    result.bytes = q.bytes;
    result.quantities = q;
    result.intensity = q.flops / q.bytes;
    result.ridge = env.peak_flops / env.memory_bandwidth;
    result.times = map();
    result.time = -Infinity;
    data.roofs.forEach(function (roof) {
      if (!(roof.quantity in q)) return;
      var t = roof.figure === null ? q[roof.quantity] : q[roof.quantity] / env[roof.figure];
      result.times[roof.name] = t;
      if (t > result.time) { result.time = t; result.verdict = roof.name; }
    });
    var capacity = data.capacity;
    result.fits = null; // no footprint to compare with the device's memory
    if (capacity && capacity.quantity in q) {
      result.fits = q[capacity.quantity] <= env[capacity.figure];
      if (!result.fits) result.verdict = capacity.name;
    }
    return result;
  }

  function evaluate(entryId, state) {
    var entry = registry[entryId];
    var done = work(entry, state);
    var devices = entry.data.devices.filter(function (d) { return state.devices.indexOf(d.id) >= 0; });
    return {
      values: done.values,
      results: devices.map(function (d) { return onDevice(entry, state, done, d); })
    };
  }

  /* --- numbers for people --------------------------------------------------------------- */

  /* Every number is written as the static page writes it (numbers.py, mirrored by
     kb-numbers.js): a quantity in its unit with an SI prefix where the unit takes one
     (117 MB, 0.314 ms, 4.0 FLOP/B, 267 rows), a symbol's value as `kb eval` shows it, with
     its unit: every digit it takes where fewer would be another number (261120.99999999997,
     not 261121, where a floor would differ). */
  function valued(symbol, x) { return N.exactNumber(x) + (symbol.unit ? " " + symbol.unit : ""); }

  /* --- the URL fragment ------------------------------------------------------------------ */

  var NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

  /* A fragment's parts as decoded [key, value] pairs (a part without `=` has the value "");
     a part that does not decode is left out and said in `notes`. */
  /* Whether `fragment` is a link to a place on the page (`#check-2`, a heading's permalink),
     not explorer state: it has no `=`, and an element has it as its id. */
  function isAnchor(fragment) {
    var id = fragment.replace(/^#/, "");
    if (!id || id.indexOf("=") >= 0) return false;
    try { return document.getElementById(decodeURIComponent(id)) !== null; } catch (e) { return false; }
  }

  /* A link is a stranger's input: past these, its state is not read (a page's own links are
     a few hundred characters), so that no link makes the page do work out of all proportion. */
  var MAX_FRAGMENT = 8192, MAX_PARTS = 200;

  function fragmentParts(fragment, notes) {
    var pairs = [];
    if (isAnchor(fragment)) return pairs;
    if (fragment.length > MAX_FRAGMENT) {
      notes.push("ignored the link's state: it is longer than " + MAX_FRAGMENT + " characters");
      return pairs;
    }
    var parts = fragment.replace(/^#/, "").split("&");
    if (parts.length > MAX_PARTS) {
      notes.push("ignored the link's state: it has more than " + MAX_PARTS + " parts");
      return pairs;
    }
    parts.forEach(function (part) {
      if (!part) return;
      var at = part.indexOf("=");
      try {
        pairs.push([decodeURIComponent(at < 0 ? part : part.slice(0, at)),
          at < 0 ? "" : decodeURIComponent(part.slice(at + 1))]);
      } catch (e) { notes.push("ignored a malformed part of the link"); }
    });
    return pairs;
  }

  /* The value a reader gives a symbol as text (in a link or a field): a number clamped to the
     symbol's range, or undefined when it is not a number or the symbol has no range (the
     formulas are checked on a symbol's range only, so one without keeps its typical value).
     Whatever is ignored or clamped is said in `notes`. */
  function given(symbol, text, notes) {
    if (!NUMBER.test(text) || !isFinite(Number(text))) {
      notes.push("ignored " + symbol.symbol + "=\u201c" + text + "\u201d: not a number");
    } else if (symbol.range === null) {
      notes.push("ignored " + symbol.symbol + ": it has no range, so it keeps its typical value");
    } else {
      return clamp(symbol, text, notes);
    }
    return undefined;
  }

  /* The state a fragment asks for, each value checked: symbols by name (`B=80`), devices
     (`@on=a,b`), dtype (`@dtype=fp8`), workaround (`@w=1`); anything else is ignored, and
     every value ignored or clamped is said in `notes`. */
  function readFragment(data, fragment, state, notes) {
    var bySymbol = map();
    data.symbols.forEach(function (s) { bySymbol[s.symbol] = s; });
    var known = data.devices.map(function (d) { return d.id; });
    // The dtypes the page offers: the entry's and those of the catalog's devices, whichever
    // devices the link chooses (`@dtype` may come before `@on`).
    var dtypes = dtypesOf(data, known);
    fragmentParts(fragment, notes).forEach(function (pair) {
      var key = pair[0], value = pair[1];
      if (key === "@on") {
        var chosen = unique(value.split(",")).filter(function (id) {
          if (known.indexOf(id) >= 0) return true;
          if (id) notes.push("ignored unknown device \u201c" + id + "\u201d");
          return false;
        });
        if (chosen.length) state.devices = chosen;
      } else if (key === "@dtype") {
        if (dtypes.indexOf(value) >= 0) state.dtype = value;
        else notes.push("ignored dtype \u201c" + value + "\u201d");
      } else if (key === "@w") {
        var index = Number(value);
        if (value === "") state.workaround = null;
        else if (Number.isInteger(index) && index >= 0 && index < data.workarounds.length) state.workaround = index;
        else notes.push("ignored workaround \u201c" + value + "\u201d");
      } else if (has(bySymbol, key) && bySymbol[key].range !== null && !movable(data, key)) {
        notes.push("ignored " + key + "=" + value + ": " + key + " is " + unmoved(data, bySymbol[key]));
      } else if (has(bySymbol, key)) {
        var x = given(bySymbol[key], value, notes);
        if (x !== undefined) state.values[key] = x;
      } else {
        notes.push("ignored \u201c" + key + "\u201d: not a symbol of this entry");
      }
    });
  }

  /* The number `text` gives, within the symbol's range: past an end, the end, with a note that
     shows the value as the reader gave it: 4096.0000000001, not rounded onto the end it is past
     (as `kb eval --set` shows it), and 1e-400, not the 0 it reads as. */
  function clamp(symbol, text, notes) {
    var x = Number(text);
    var lo = symbol.range[0], hi = symbol.range[1];
    if (x >= lo && x <= hi) return x;
    var kept = x < lo ? lo : hi;
    notes.push(symbol.symbol + "=" + text + " is outside its range [" + N.number(lo) + ", " +
      N.number(hi) + "]; set to " + N.number(kept));
    return kept;
  }

  /* `items` once each, in the order they first appear. */
  function unique(items) {
    var seen = map();
    return items.filter(function (item) {
      if (has(seen, item)) return false;
      seen[item] = true;
      return true;
    });
  }

  /* Notes as list items: the first MAX_NOTES, then one that counts the rest. */
  var MAX_NOTES = 12;
  function showNotes(list, notes) {
    notes.slice(0, MAX_NOTES).forEach(function (n) { list.appendChild(el("li", {}, [n])); });
    if (notes.length > MAX_NOTES) list.appendChild(el("li", {}, ["and " + (notes.length - MAX_NOTES) + " more"]));
  }

  function writeFragment(data, state) {
    var parts = [];
    data.symbols.forEach(function (s) {
      if (has(state.values, s.symbol) && state.values[s.symbol] !== s.typical) {
        parts.push(encodeURIComponent(s.symbol) + "=" + String(state.values[s.symbol]));
      }
    });
    if (state.devices.join(",") !== data.evaluated.join(",")) {
      parts.push("@on=" + state.devices.map(encodeURIComponent).join(","));
    }
    if (state.dtype !== data.dtype) parts.push("@dtype=" + encodeURIComponent(state.dtype));
    if (state.workaround !== null) parts.push("@w=" + state.workaround);
    return parts.length ? "#" + parts.join("&") : "";
  }

  /* --- elements --------------------------------------------------------------------------- */

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (k) { node.setAttribute(k, attributes[k]); });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }

  function svg(tag, attributes, children) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attributes || {}).forEach(function (k) { node.setAttribute(k, attributes[k]); });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }

  /* The value a fraction `f` (0 to 1) of the way across the range, on a log scale where the
     range spans decades. No step may overflow, whatever the range: a range of 1e-200 to
     1e200 has no ratio, and one of -1e308 to 1e308 no width, as floats. */
  function across(symbol, f) {
    var lo = symbol.range[0], hi = symbol.range[1];
    if (f <= 0) return lo;
    if (f >= 1) return hi;
    if (isLog(symbol)) return Math.exp(Math.log(lo) + (Math.log(hi) - Math.log(lo)) * f);
    return lo * (1 - f) + hi * f;
  }

  /* How far `x` is across [lo, hi], 0 to 1, on a log scale or not, without overflow. */
  /* A power of ten as briefly as it reads: 1000, 0.01, and past that 1e+11 or 1e-9. */
  function decade(v) {
    var exponent = Math.round(Math.log10(v));
    return exponent >= -2 && exponent <= 4 ? N.number(v) : "1e" + (exponent > 0 ? "+" : "") + exponent;
  }

  /* charts.MAX_LOG_TICKS: a logarithmic axis marks at most this many decades. */
  var MAX_LOG_TICKS = 8;

  /* The powers of ten strictly inside (lo, hi), every so many decades so that at most
     MAX_LOG_TICKS are marked: the ticks between a logarithmic axis's two labelled ends. */
  function decades(lo, hi) {
    var first = Math.ceil(Math.log10(lo)), last = Math.floor(Math.log10(hi));
    var every = Math.max(1, Math.ceil((last - first + 1) / MAX_LOG_TICKS));
    var found = [];
    for (var e = first; e <= last; e += every) {
      var v = Math.pow(10, e);
      if (v > lo && v < hi) found.push(v);
    }
    return found;
  }

  function fraction(x, lo, hi, log) {
    if (log) return (Math.log(x) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
    return (x / 2 - lo / 2) / (hi / 2 - lo / 2);
  }

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

  /* The entry's dtype and those the devices have a dense peak for, in the catalog's order
     (the hardware schema's: fp64, fp32, tf32, bf16, fp16, fp8, fp4). */
  function dtypesOf(data, devices) {
    var found = [data.dtype];
    data.devices.forEach(function (d) {
      if (devices.indexOf(d.id) < 0) return;
      Object.keys(d.figures.peak_flops || {}).forEach(function (t) { if (found.indexOf(t) < 0) found.push(t); });
    });
    function rank(t) { var i = data.dtypes.indexOf(t); return i < 0 ? data.dtypes.length : i; }
    return found.map(function (t, i) { return [rank(t), i, t]; })
      .sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; })
      .map(function (x) { return x[2]; });
  }

  /* --- an entry page ---------------------------------------------------------------------- */

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

  /* A box a wide table scrolls in: focusable, so that a keyboard can scroll it, and named. */
  function scrollBox(name) {
    return el("div", { "class": "kb-x-table", tabindex: "0", role: "region", "aria-label": name });
  }

  /* The results table in its box, named as the box is: a reader moving from table to table
     hears which one it is. */
  function fill(box, header, body) {
    box.textContent = "";
    box.appendChild(el("table", { "class": "kb-x-results", "aria-label": box.getAttribute("aria-label") }, [
      el("thead", {}, [el("tr", {}, header.map(function (h) { return el("th", { scope: "col" }, [h]); }))]), body]));
  }

  /* A cell that names its row: a screen reader says it as the reader moves along the row. */
  function rowHeader(name) { return el("th", { scope: "row" }, [name]); }

  function cell(quantity, value, shown) {
    return el("td", { "class": "kb-number", "data-quantity": quantity, "data-value": String(value) }, [shown]);
  }

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
      row.appendChild(rowHeader(r.name));
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
      (good.length ? Object.keys(verdicts).map(function (v) { return v + "-bound on " + verdicts[v] + " of " + good.length; }).join(", ") : "no device evaluated") + ".";
    this.noteList.textContent = "";
    showNotes(self.noteList, notes);
    this.renderChart(evaluation);
  };

  /* A line chart over one symbol's range: `lines` (label, points, class), horizontal `levels`
     (label, y, class), the reader's value `at` marked; log axes where values span decades.
     It comes in its box, as the static charts do: where the column is narrower than the
     chart's least width it scrolls there, by keyboard too. */
  function lineChart(symbol, ylabel, format, lines, levels, at) {
    var ys = [];
    lines.forEach(function (l) { l.points.forEach(function (p) { ys.push(p[1]); }); });
    levels.forEach(function (l) { ys.push(l.y); });
    ys = ys.filter(function (y) { return y > 0; });
    if (!ys.length) return null;
    var W = 640, H = 300, left = 72, right = 16, top = 12, bottom = 40;
    var xlog = isLog(symbol), lo = symbol.range[0], hi = symbol.range[1];
    var ymin = Math.min.apply(null, ys), ymax = Math.max.apply(null, ys);
    var ylog = ymax / ymin > 10;
    if (ymin === ymax) { ymin = ymin / 2; ymax = Math.min(ymax * 2, Number.MAX_VALUE); }
    function fx(x) {
      return left + fraction(x, lo, hi, xlog) * (W - left - right);
    }
    function fy(y) {
      return H - bottom - fraction(y, ymin, ymax, ylog) * (H - top - bottom);
    }
    var name = ylabel + " against " + symbol.symbol;
    var chart = svg("svg", { "class": "kb-chart kb-x-svg", viewBox: "0 0 " + W + " " + H, role: "img",
      "aria-label": name });
    chart.appendChild(svg("line", { "class": "kb-x-axis", x1: left, y1: H - bottom, x2: W - right, y2: H - bottom }));
    chart.appendChild(svg("line", { "class": "kb-x-axis", x1: left, y1: top, x2: left, y2: H - bottom }));
    [[lo, "start"], [hi, "end"]].forEach(function (p) {
      chart.appendChild(svg("text", { x: fx(p[0]), y: H - bottom + 16, "text-anchor": p[1] }, [N.number(p[0])]));
    });
    // Decades between the ends, each labelled as briefly as it can be (1e+11), and only where
    // its label keeps clear of the ends' labels (about 7 pixels a character).
    if (xlog) {
      var loText = N.number(lo), hiText = N.number(hi);
      decades(lo, hi).forEach(function (v) {
        var label = decade(v);
        var clear = fx(v) - fx(lo) > 7 * (loText.length + label.length / 2) + 6 &&
          fx(hi) - fx(v) > 7 * (hiText.length + label.length / 2) + 6;
        if (!clear) return;
        chart.appendChild(svg("line", { "class": "kb-x-tick", x1: fx(v), x2: fx(v), y1: H - bottom, y2: H - bottom + 4 }));
        chart.appendChild(svg("text", { "class": "kb-x-tick-label kb-x-along-x", x: fx(v), y: H - bottom + 16, "text-anchor": "middle" }, [label]));
      });
    }
    if (ylog) {
      decades(ymin, ymax).filter(function (v) { return fy(ymin) - fy(v) > 16 && fy(v) - fy(ymax) > 16; }).forEach(function (v) {
        chart.appendChild(svg("line", { "class": "kb-x-tick", x1: left - 4, x2: left, y1: fy(v), y2: fy(v) }));
        chart.appendChild(svg("text", { "class": "kb-x-tick-label kb-x-along-y", x: left - 6, y: fy(v) + 4, "text-anchor": "end" }, [format(v)]));
      });
    }
    chart.appendChild(svg("text", { x: (left + W - right) / 2, y: H - 6, "text-anchor": "middle" },
      [symbol.symbol + (symbol.unit ? " (" + symbol.unit + ")" : "") + (xlog ? ", log scale" : "")]));
    [[ymin, H - bottom], [ymax, top + 10]].forEach(function (p) {
      chart.appendChild(svg("text", { x: left - 4, y: p[1], "text-anchor": "end" }, [format(p[0])]));
    });
    var middle = top + (H - top - bottom) / 2;
    chart.appendChild(svg("text", { x: 12, y: middle, transform: "rotate(-90 12 " + middle + ")",
      "text-anchor": "middle" }, [ylabel + (ylog ? ", log" : "")]));
    // Each level's label just above its line, pushed down from the label above it where two
    // lines are closer than a line of text; then, where the last would fall below the plot,
    // all of them lifted as far as it takes (never above the plot's top).
    var items = levels.map(function (level) { return { level: level, y: fy(level.y) }; })
      .sort(function (a, b) { return a.y - b.y; });
    var placed = -Infinity;
    items.forEach(function (item) { placed = item.label = Math.max(item.y - 4, placed + 13); });
    var lift = Math.min(Math.max(0, placed - (H - bottom - 4)),
      items.length ? items[0].label - (top + 10) : 0);
    items.forEach(function (item) {
      var group = svg("g", { "class": "kb-ridge " + item.level.cls });
      group.appendChild(svg("line", { x1: left, x2: W - right, y1: item.y, y2: item.y }));
      group.appendChild(svg("text", { x: W - right - 4, y: item.label - Math.max(0, lift), "text-anchor": "end" }, [item.level.label]));
      chart.appendChild(group);
    });
    lines.forEach(function (line) {
      var points = line.points.filter(function (p) { return p[1] > 0 || !ylog; });
      if (points.length < 2) return;
      var group = svg("g", { "class": "kb-x-line " + line.cls });
      group.appendChild(svg("polyline", { points: points.map(function (p) {
        return fx(p[0]).toFixed(1) + "," + fy(p[1]).toFixed(1); }).join(" ") }));
      var last = points[points.length - 1];
      if (line.label) group.appendChild(svg("text", { x: fx(last[0]) - 4, y: fy(last[1]) - 4, "text-anchor": "end" }, [line.label]));
      chart.appendChild(group);
    });
    if (at !== undefined) {
      chart.appendChild(svg("line", { "class": "kb-x-now", x1: fx(at), x2: fx(at), y1: top, y2: H - bottom }));
    }
    return el("div", { "class": "kb-chart-box", tabindex: "0", role: "group", "aria-label": name + " chart" }, [chart]);
  }

  /* Intensity as one symbol sweeps its range (the others at the reader's values), against each
     chosen device's ridge point; and the time on each roof of the first chosen device, whose
     crossings are where its verdict flips. */
  Explorer.prototype.renderChart = function (evaluation) {
    var data = this.entry.data;
    var self = this;
    var ranged = data.symbols.filter(function (s) {
      return s.range !== null && s.range[1] > s.range[0] && movable(data, s.symbol);
    });
    if (!ranged.length) return;
    if (this.sweep === null) this.sweep = this.widestSweep(ranged);
    var symbol = ranged.filter(function (s) { return s.symbol === self.sweep; })[0];
    // The picker is made once and kept, so a reader stepping through it keeps the focus.
    if (!this.charts) {
      var picker = el("select", { "aria-label": "chart symbol" });
      ranged.forEach(function (s) {
        var option = el("option", { value: s.symbol }, [s.symbol]);
        option.selected = s.symbol === symbol.symbol;
        picker.appendChild(option);
      });
      picker.addEventListener("change", function () { self.sweep = picker.value; self.renderChart(evaluate(data.id, self.state)); });
      this.charts = el("div", { "class": "kb-x-charts" });
      this.chart.appendChild(el("p", {}, [el("label", {}, ["Charts as ", picker, " sweeps its range"])]));
      this.chart.appendChild(this.charts);
    }
    this.charts.textContent = "";
    var off = this.why(symbol);
    if (off) {
      this.charts.appendChild(el("p", { "class": "kb-x-caption" }, [symbol.symbol + ": " + off +
        ", so the lines below stay level across its range."]));
    }
    var at = evaluation.values[symbol.symbol];
    var good = evaluation.results.filter(function (r) { return r.verdict; });
    // Six ridge lines are as many as the chart can label apart.
    var intensity = lineChart(symbol, "intensity (FLOP/B)", N.number,
      [{ label: "", points: this.curve(symbol), cls: "kb-curve" }],
      good.slice(0, RIDGE_LINES).map(function (r, i) { return { label: r.name + " ridge", y: r.ridge, cls: "kb-series-" + i }; }), at);
    if (intensity && good.length > RIDGE_LINES) {
      this.charts.appendChild(el("p", { "class": "kb-x-caption" }, ["The ridge points of the first " + RIDGE_LINES +
        " of the " + good.length + " devices evaluated, in the table's order; choose fewer devices to see the others'."]));
    }
    if (intensity) this.charts.appendChild(intensity);
    if (!good.length) return;
    // The first device in the order the reader chose them that has a result (the table keeps
    // the catalog's order).
    var first = this.state.devices.filter(function (id) {
      return good.some(function (r) { return r.device === id; });
    })[0];
    var device = data.devices.filter(function (d) { return d.id === first; })[0];
    var lines = data.roofs.map(function (roof, i) { return { label: roof.name, points: [], cls: "kb-series-" + i, roof: roof.name }; });
    this.sweepPoints(symbol).forEach(function (x) {
      var state = self.stateAt(symbol.symbol, x);
      var result = onDevice(self.entry, state, work(self.entry, state), device);
      if (!result.times) return;
      lines.forEach(function (line) {
        if (line.roof in result.times) line.points.push([x, result.times[line.roof]]);
      });
    });
    var times = lineChart(symbol, "time", N.seconds, lines, [], at);
    if (times) {
      this.charts.appendChild(el("p", { "class": "kb-x-caption" }, ["The time each roof gives on " + device.name +
        (first === this.state.devices[0] ? ", the first device chosen" : ", the first device chosen that is evaluated") +
        " (untick it to draw the next): the highest is the lower bound, and where lines cross the verdict flips."]));
      times.classList.add("kb-x-times");
      this.charts.appendChild(times);
    }
  };

  Explorer.prototype.sweepPoints = function (symbol) {
    var points = [];
    for (var i = 0; i < CHART_POINTS; i++) points.push(across(symbol, i / (CHART_POINTS - 1)));
    return points;
  };

  /* The reader's state with one symbol moved to `x`. */
  Explorer.prototype.stateAt = function (name, x) {
    var values = map();
    Object.keys(this.state.values).forEach(function (k) { values[k] = this.state.values[k]; }, this);
    values[name] = x;
    return { values: values, devices: this.state.devices, dtype: this.state.dtype, workaround: this.state.workaround };
  };

  Explorer.prototype.curve = function (symbol) {
    var self = this;
    var points = [];
    this.sweepPoints(symbol).forEach(function (x) {
      var done = work(self.entry, self.stateAt(symbol.symbol, x));
      if (!done.error) points.push([x, done.quantities.flops / done.quantities.bytes]);
    });
    return points;
  };

  Explorer.prototype.widestSweep = function (ranged) {
    var best = ranged[0].symbol, spread = -1;
    ranged.forEach(function (s) {
      var ys = this.curve(s).map(function (p) { return p[1]; });
      if (!ys.length) return;
      var min = Math.min.apply(null, ys), max = Math.max.apply(null, ys);
      var size = min > 0 ? max / min : max - min;
      if (size > spread) { spread = size; best = s.symbol; }
    }, this);
    return best;
  };

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

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll(".kb-explorer[data-entry]"), function (root) {
      var id = root.getAttribute("data-entry");
      if (!registry[id]) return;
      root.explorer = new Explorer(root, registry[id]);
      // A fragment changed by the reader (or the back button) is a new state to show;
      // the explorer's own writes use replaceState, which fires no hashchange.
      // A link to a place on the page (a check, a heading) keeps the reader's state.
      window.addEventListener("hashchange", function () {
        if (isAnchor(window.location.hash)) return;
        root.textContent = "";
        root.explorer = new Explorer(root, registry[id]);
      });
    });
    var compare = document.querySelector(".kb-compare");
    var listing = document.getElementById("kb-compare-entries");
    if (compare && listing) {
      var listed = JSON.parse(listing.textContent);
      compare.explorer = new Compare(compare, listed);
      // As on an entry page: a fragment the reader changes (or the back button) is read again.
      window.addEventListener("hashchange", function () {
        if (isAnchor(window.location.hash)) return;
        compare.explorer.live = false;
        compare.textContent = "";
        compare.explorer = new Compare(compare, listed);
      });
    }
  }

  window.KBExplorer = { register: register, evaluate: evaluate };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
