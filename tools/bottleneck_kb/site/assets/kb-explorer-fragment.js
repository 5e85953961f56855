/* The explorer's state in the link: the URL fragment read, each value checked (clamped to its
   symbol's range, anything ignored said in a note), and written back. Separate because a link
   is a stranger's input: every rule of what one may ask of a page is here, and both pages read
   their fragments, and the values typed in their fields, by these rules. After
   kb-explorer-model.js. */
(function (internals) {
  "use strict";
  var N = window.KBNumbers;
  var map = internals.map, has = internals.has, movable = internals.movable,
    unmoved = internals.unmoved, dtypesOf = internals.dtypesOf;

  /* --- the URL fragment ------------------------------------------------------------------ */

  var NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

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

  /* A fragment's parts as decoded [key, value] pairs (a part without `=` has the value "");
     a part that does not decode is left out and said in `notes`. */
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

  internals.isAnchor = isAnchor;
  internals.fragmentParts = fragmentParts;
  internals.given = given;
  internals.readFragment = readFragment;
  internals.clamp = clamp;
  internals.unique = unique;
  internals.writeFragment = writeFragment;
})(window.KBExplorerInternals);
