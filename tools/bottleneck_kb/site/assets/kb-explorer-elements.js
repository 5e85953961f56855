/* The explorer's elements: HTML and SVG nodes made of text nodes and attribute values, never
   of markup, and the boxes, tables, cells and notes both pages are built of. Separate so that
   the one way anything from an entry reaches the page is in one place. No dependencies: after
   kb-explorer-model.js, which makes window.KBExplorerInternals. */
(function (internals) {
  "use strict";

  var SVG = "http://www.w3.org/2000/svg";

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
  function rowHeader(name, title) {
    return el("th", title ? { scope: "row", title: title } : { scope: "row" }, [name]);
  }

  function cell(quantity, value, shown) {
    return el("td", { "class": "kb-number", "data-quantity": quantity, "data-value": String(value) }, [shown]);
  }

  /* Notes as list items: the first MAX_NOTES, then one that counts the rest. */
  var MAX_NOTES = 12;
  function showNotes(list, notes) {
    notes.slice(0, MAX_NOTES).forEach(function (n) { list.appendChild(el("li", {}, [n])); });
    if (notes.length > MAX_NOTES) list.appendChild(el("li", {}, ["and " + (notes.length - MAX_NOTES) + " more"]));
  }

  internals.el = el;
  internals.svg = svg;
  internals.scrollBox = scrollBox;
  internals.fill = fill;
  internals.rowHeader = rowHeader;
  internals.cell = cell;
  internals.showNotes = showNotes;
})(window.KBExplorerInternals);
