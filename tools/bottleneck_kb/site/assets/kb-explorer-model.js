/* The explorer's model, the first of its scripts: the entries their scripts register (made by
   bottleneck_kb/site/explorer.py: each entry's payload and compiled formulas), and an entry
   evaluated at a reader's state by the same steps as roofline.py (each roof's time, the lower
   bound, the verdict, the derived values), with what a symbol's value and range read as.
   Separate because it is the arithmetic, checked against the Python evaluation in node
   (tests/test_explorer_model.py), and touches no page. It makes window.KBExplorerInternals,
   where the explorer's scripts leave what the next ones read (kb-explorer-start.js removes it
   once all have run); each page loads them in the order explorer.py lists them. */
(function () {
  "use strict";
  var R = window.KBFormula;
  var N = window.KBNumbers;
  var registry = Object.create(null);
  var waiting = Object.create(null);

  /* What the explorer's scripts share, each adding what it defines for those after it. */
  var internals = window.KBExplorerInternals = Object.create(null);

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

  /* --- a symbol's range and the dtypes offered -------------------------------------------- */

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
  function fraction(x, lo, hi, log) {
    if (log) return (Math.log(x) - Math.log(lo)) / (Math.log(hi) - Math.log(lo));
    return (x / 2 - lo / 2) / (hi / 2 - lo / 2);
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

  internals.map = map;
  internals.has = has;
  internals.registry = registry;
  internals.waiting = waiting;
  internals.register = register;
  internals.isLog = isLog;
  internals.reads = reads;
  internals.movable = movable;
  internals.quoted = quoted;
  internals.unmoved = unmoved;
  internals.work = work;
  internals.onDevice = onDevice;
  internals.evaluate = evaluate;
  internals.valued = valued;
  internals.across = across;
  internals.fraction = fraction;
  internals.dtypesOf = dtypesOf;
})();
