/* The explorer's start, the last of its scripts: window.KBExplorer, whose `register` the
   entry scripts after it call, and once the page has loaded an Explorer on each entry's
   placeholder and a Compare on the compare page's, made again when the reader changes the
   fragment. Separate so that nothing starts before every script it needs has run; it removes
   window.KBExplorerInternals, which they no longer need, so that the page has the one global
   it had when the explorer was one script. */
(function (internals) {
  "use strict";
  var registry = internals.registry, register = internals.register, evaluate = internals.evaluate,
    isAnchor = internals.isAnchor, Explorer = internals.Explorer, Compare = internals.Compare;

  // Every script has read what it needs from the others: the page keeps the one global it had.
  delete window.KBExplorerInternals;

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
})(window.KBExplorerInternals);
