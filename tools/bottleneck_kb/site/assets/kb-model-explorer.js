/* The explorer of a model page: the deployment's parameters as controls, and the model
   re-estimated on every device by the same steps as composition/estimate.py (each recipe row's
   card at its bindings, counted; the steps' sums and floors; the model's own memory account),
   so its numbers are kb estimate's. Made by bottleneck_kb/site/model_explorer.py: a script per
   model registers its payload and compiled formulas. Loaded after kb-numbers.js and
   kb-formula.js. */
(function () {
  "use strict";
  var R = window.KBFormula;
  var N = window.KBNumbers;
  var registry = Object.create(null);

  function map() { return Object.create(null); }
  function has(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }

  /* --- the estimate: the same steps as estimate.py ---------------------------------------- */

  function environment(model, deployment) {
    var env = map();
    Object.keys(model.data.fields).forEach(function (k) { env[k] = model.data.fields[k]; });
    model.data.parameters.forEach(function (p) {
      if (p.name !== "dtype") env[p.name] = deployment[p.name];
    });
    ["draft_k", "acceptance_rate"].forEach(function (k) { if (!has(env, k)) env[k] = 0; });
    return env;
  }

  /* The rows at the deployment that it includes (count above 0), with their cards' values. */
  function boundRows(model, deployment) {
    var env = environment(model, deployment);
    var found = [];
    model.data.rows.forEach(function (row, i) {
      var compiled = model.compiled.rows[i];
      var count = compiled.count(env);
      if (count <= 0) return;
      var card = model.data.cards[row.card];
      var values = map();
      Object.keys(card.typical).forEach(function (k) { values[k] = card.typical[k]; });
      Object.keys(compiled.set).forEach(function (k) { values[k] = compiled.set[k](env); });
      found.push({
        row: row, count: count, card: card, formulas: model.compiled.cards[row.card],
        values: values, dtype: row.deploymentDtype ? deployment.dtype : card.dtype
      });
    });
    return found;
  }

  function figure(device, name) {
    return has(device.figures, name) ? device.figures[name] : null;
  }

  /* One device: every row on its roofs, or why it cannot run them (estimate.on_device). */
  function onDevice(model, rows, device) {
    var terms = [];
    for (var i = 0; i < rows.length; i++) {
      var b = rows[i];
      var peaks = device.figures.peak_flops;
      for (var n = 0; n < b.card.needs.length; n++) {
        var need = b.card.needs[n];
        if (need === "peak_flops" ? !has(peaks, b.dtype) : figure(device, need) === null) {
          return { skipped: "no " + (need === "peak_flops" ? "dense " + b.dtype + " peak" : need) +
            " in the catalog (" + b.row.card + ")" };
        }
      }
      for (var k = 0; k < b.card.bounds.length; k++) {
        var symbol = b.card.bounds[k][0], limit = figure(device, b.card.bounds[k][1]);
        if (has(b.values, symbol) && limit !== null && b.values[symbol] > limit) {
          return { skipped: b.row.label + " (" + b.row.card + "): " + symbol + " = " +
            N.exactNumber(b.values[symbol]) + " is more than its " + b.card.bounds[k][1] +
            " (" + N.exactNumber(limit) + ")" };
        }
      }
      var figures = map();
      Object.keys(b.values).forEach(function (key) { figures[key] = b.values[key]; });
      figures.peak_flops = peaks[b.dtype];
      b.card.needs.forEach(function (name) { if (name !== "peak_flops") figures[name] = figure(device, name); });
      var times = map();
      b.card.roofs.forEach(function (roof) {
        var demand = b.formulas[roof.quantity](roof.quantity === "flops" || roof.quantity === "bytes" ? b.values : figures);
        times[roof.name] = roof.figure ? demand / (roof.figure === "peak_flops" ? peaks[b.dtype] : figure(device, roof.figure)) : demand;
      });
      var slowest = -Infinity, bound = null;
      model.data.roofs.forEach(function (name) {
        if (has(times, name) && times[name] > slowest) { slowest = times[name]; bound = name; }
      });
      terms.push({ phase: b.row.phase, label: b.row.label, card: b.row.card, count: b.count,
        times: times, seconds: b.count * slowest, bound: bound });
    }
    var capacity = figure(device, "memory_capacity");
    if (capacity === null) return { skipped: "no memory_capacity in the catalog" };
    return { terms: terms, capacity: capacity };
  }

  function phaseSeconds(result, phase) {
    var total = 0;
    result.terms.forEach(function (t) { if (t.phase === phase) total += t.seconds; });
    return total;
  }

  function roofTotals(model, result, phase) {
    var totals = map();
    model.data.roofs.forEach(function (name) { totals[name] = 0; });
    result.terms.forEach(function (t) {
      if (t.phase !== phase) return;
      Object.keys(t.times).forEach(function (name) { totals[name] += t.count * t.times[name]; });
    });
    return totals;
  }

  function largest(model, totals) {
    var best = null;
    model.data.roofs.forEach(function (name) { if (best === null || totals[name] > totals[best]) best = name; });
    return best;
  }

  function memory(model, deployment) {
    var env = environment(model, deployment);
    var m = model.compiled.memory;
    return {
      weightsPerDevice: m.parametersPerDevice(env) * (deployment.weight_bits / 8),
      kvPerTokenPerDevice: m.kvPerTokenPerDevice(env) * (deployment.kv_bits / 8),
      activationsPerDevice: m.activationsPerDevice(env) * (deployment.activation_bits / 8)
    };
  }

  function estimate(modelId, deployment) {
    var model = registry[modelId];
    var rows = boundRows(model, deployment);
    var held = memory(model, deployment);
    var used = Math.max(deployment.tp, deployment.ep) * deployment.pp;
    var results = [], skipped = [];
    model.data.devices.forEach(function (device) {
      var found = onDevice(model, rows, device);
      if (found.skipped) { skipped.push({ device: device.id, reason: found.skipped }); return; }
      var decode = phaseSeconds(found, "decode");
      var decodeRoofs = roofTotals(model, found, "decode");
      var prefillRoofs = roofTotals(model, found, "prefill");
      var resident = held.weightsPerDevice + held.activationsPerDevice;
      var perSequence = held.kvPerTokenPerDevice * deployment.context;
      var room = found.capacity - resident;
      var footprint = resident + deployment.batch * perSequence;
      results.push({
        device: device.id,
        fits: footprint <= found.capacity,
        prefill: phaseSeconds(found, "prefill"),
        prefillFloor: prefillRoofs[largest(model, prefillRoofs)],
        decode: decode,
        decodeFloor: decodeRoofs[largest(model, decodeRoofs)],
        bound: largest(model, decodeRoofs),
        rate: deployment.batch / decode,
        footprint: footprint,
        maxBatch: room <= 0 || perSequence <= 0 ? 0 : Math.min(Math.floor(room / perSequence), 1e12),
        used: used
      });
    });
    results.sort(function (a, b) { return a.decode - b.decode; });
    return { results: results, skipped: skipped };
  }

  /* --- the page ---------------------------------------------------------------------------- */

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (k) { node.setAttribute(k, attributes[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function rate(x) {
    return x >= 1000 ? Math.round(x).toLocaleString("en-US") : N.number(x);
  }

  function cell(row, value, shown) {
    var td = element("td", { "class": "kb-number", "data-value": N.repr(value) }, shown);
    row.appendChild(td);
  }

  function render(root, modelId, state) {
    var box = root.querySelector(".kb-model-results");
    var said = root.querySelector(".kb-model-said");
    var found;
    try {
      found = estimate(modelId, state);
    } catch (error) {
      if (!(error instanceof R.FormulaError)) throw error;
      said.textContent = "This deployment cannot be estimated: " + error.message;
      box.replaceChildren();
      return;
    }
    var table = element("table", { "aria-label": "Explored deployment on each device" });
    var head = element("tr");
    ["device", "fits", "prefill", "prefill floor", "decode a token", "decode floor", "decode bound",
      "tokens/s", "memory a device", "max batch"].forEach(function (h) {
      head.appendChild(element("th", { scope: "col" }, h));
    });
    var thead = element("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var body = element("tbody");
    found.results.forEach(function (r) {
      var row = element("tr");
      row.appendChild(element("th", { scope: "row" }, r.device));
      row.appendChild(element("td", {}, r.fits ? "yes" : "no"));
      cell(row, r.prefill, N.seconds(r.prefill));
      cell(row, r.prefillFloor, N.seconds(r.prefillFloor));
      cell(row, r.decode, N.seconds(r.decode));
      cell(row, r.decodeFloor, N.seconds(r.decodeFloor));
      row.appendChild(element("td", {}, r.bound));
      cell(row, r.rate, rate(r.rate));
      cell(row, r.footprint, N.quantity(r.footprint, "B"));
      cell(row, r.maxBatch, r.maxBatch.toLocaleString("en-US"));
      body.appendChild(row);
    });
    table.appendChild(body);
    box.replaceChildren(table);
    var best = found.results[0];
    said.textContent = best
      ? "Fastest decode: " + best.device + ", " + N.seconds(best.decode) + " a token (floor " +
        N.seconds(best.decodeFloor) + ", " + best.bound + "-bound); " +
        found.skipped.length + " devices cannot run this deployment."
      : "No device of the catalog can run this deployment.";
  }

  function start(root) {
    var modelId = root.getAttribute("data-model");
    var model = registry[modelId];
    if (!model) return;
    var state = map();
    var controls = element("form", { "class": "kb-model-controls" });
    model.data.parameters.forEach(function (p) {
      state[p.name] = p.value;
      var id = "kb-model-" + p.name;
      var label = element("label", { "for": id }, p.name + " (" + p.meaning + ")");
      var input;
      if (p.choices) {
        input = element("select", { id: id, name: p.name });
        p.choices.forEach(function (c) {
          var option = element("option", { value: String(c) }, String(c));
          if (c === p.value) option.selected = true;
          input.appendChild(option);
        });
        if (p.choices.length < 2) input.disabled = true;
      } else {
        input = element("input", { id: id, name: p.name, type: "number", min: String(p.range[0]),
          max: String(p.range[1]), step: "any", value: String(p.value) });
        if (p.range[0] === p.range[1]) input.disabled = true;
      }
      input.addEventListener("change", function () {
        var value = p.name === "dtype" ? input.value : Number(input.value);
        if (p.range && !(value >= p.range[0] && value <= p.range[1])) {
          input.setCustomValidity("offered from " + p.range[0] + " to " + p.range[1]);
          input.reportValidity();
          return;
        }
        input.setCustomValidity("");
        state[p.name] = value;
        if (p.name === "context" && state.prompt === undefined) state.prompt = value;
        render(root, modelId, state);
      });
      var field = element("div", { "class": "kb-model-control" });
      field.appendChild(label);
      field.appendChild(input);
      controls.appendChild(field);
    });
    root.appendChild(controls);
    root.appendChild(element("p", { "class": "kb-model-said", "aria-live": "polite" }));
    root.appendChild(element("div", { "class": "kb-model-results", tabindex: "0", role: "group",
      "aria-label": "Explored deployment" }));
    render(root, modelId, state);
    root.hidden = false;
  }

  window.KBModelExplorer = {
    register: function (data, make) {
      registry[data.id] = { data: data, compiled: make(R) };
    },
    estimate: estimate
  };

  function startAll() {
    Array.prototype.forEach.call(document.querySelectorAll(".kb-model-explorer"), start);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", startAll);
  else startAll();
})();
