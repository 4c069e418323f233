// Names stay whole: CSS breaks a name only at a space; a single word longer
// than its box is shrunk here until it fits, instead of being split letter by letter.
// Without JavaScript such a word is clipped by its box, never broken.
(function () {
  "use strict";
  var SELECTOR = [
    ".name", ".tonight-table tbody th", ".tv-players li", ".tv-winner", ".tv-last-places li", ".result-name",
    ".standing-names li", ".table-card h3", "main h1", ".tv-head h1", ".tiles .player", ".dealer", ".player-row-name", ".night-lines tbody th",
  ].join(", ");
  var SMALLEST = 0.4; // of the size the style sheet gives: beyond that, clip

  function overflows(el) {
    return el.scrollWidth > el.clientWidth + 1;
  }

  function fit(el) {
    el.style.removeProperty("font-size");
    if (!el.clientWidth || !overflows(el)) {
      return;
    }
    var size = parseFloat(window.getComputedStyle(el).fontSize);
    var floor = size * SMALLEST;
    for (var i = 0; i < 8 && overflows(el) && size > floor; i += 1) {
      size = Math.max(floor, Math.floor((size * el.clientWidth) / el.scrollWidth) - 0.5);
      el.style.fontSize = size + "px";
    }
  }

  function fitAll(root) {
    var scope = root && root.querySelectorAll ? root : document;
    Array.prototype.forEach.call(scope.querySelectorAll(SELECTOR), fit);
  }

  var pending = null;
  function later() {
    window.cancelAnimationFrame(pending);
    pending = window.requestAnimationFrame(function () {
      fitAll(document);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", later);
  } else {
    later();
  }
  window.addEventListener("resize", later);
  window.addEventListener("load", later);
  // The board is redrawn by htmx's polls and by the tap queue (which fires htmx:afterSwap).
  document.addEventListener("htmx:afterSwap", later);
  document.addEventListener("htmx:afterSettle", later);
  document.addEventListener("brag:board-changed", later);
})();
