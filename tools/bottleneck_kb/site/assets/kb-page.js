// What every page needs of the theme's markup for a keyboard and a screen reader: a table's
// scroll box (the theme wraps each table in one) is focusable and named where it scrolls, so
// a keyboard can scroll it too; the search dialog is named. The theme builds both when it
// starts, so this runs once the page has loaded, and again when the window's width changes.
(function () {
  "use strict";

  function label() {
    var search = document.querySelector('.md-search[role="dialog"]');
    if (search && !search.getAttribute("aria-label")) search.setAttribute("aria-label", "Search");
    Array.prototype.forEach.call(document.querySelectorAll(".md-typeset__scrollwrap"), function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        var table = box.querySelector("table");
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", (table && table.getAttribute("aria-label")) || "Table");
        box.setAttribute("data-kb-focusable", "");
      } else if (!scrolls && box.hasAttribute("data-kb-focusable")) {
        ["tabindex", "role", "aria-label", "data-kb-focusable"].forEach(function (name) {
          box.removeAttribute(name);
        });
      }
    });
  }

  window.addEventListener("load", label);
  window.addEventListener("resize", label);
  if (document.readyState === "complete") label();
})();
