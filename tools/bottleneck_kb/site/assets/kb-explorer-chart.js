/* An entry page's charts, in SVG: intensity as one symbol sweeps its range against each
   device's ridge point, and the time each roof gives on the first device chosen. Separate
   because drawing is a job of its own (scales, ticks and labels kept apart), marking axes as
   the static charts do (charts.py). It adds its methods to Explorer, so it loads after
   kb-explorer-entry-page.js. */
(function (internals) {
  "use strict";
  var N = window.KBNumbers;
  var Explorer = internals.Explorer, map = internals.map, isLog = internals.isLog,
    movable = internals.movable, work = internals.work, onDevice = internals.onDevice,
    evaluate = internals.evaluate, across = internals.across, fraction = internals.fraction,
    el = internals.el, svg = internals.svg;

  /* --- the charts ------------------------------------------------------------------------- */

  var CHART_POINTS = 48;
  var RIDGE_LINES = 6;

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
})(window.KBExplorerInternals);
