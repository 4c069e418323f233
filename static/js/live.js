// Brag Tables: what a watcher sees of the polling. "live · updated 3 s ago" while the polls
// come back, "connection lost" when they stop; and the result card that a tap hides. The
// page works without it (it then refreshes itself); app.js does the polling's ETags.
(function () {
  "use strict";
  var DISMISSED = "brag-dismissed-results";
  var box = document.getElementById("live-status");
  var text = box ? box.querySelector(".live-text") : null;
  var poll = box ? parseInt(box.getAttribute("data-poll"), 10) || 3 : 3;
  var last = Date.now();
  var failed = false;

  function render() {
    if (!box) {
      return;
    }
    var seconds = Math.max(0, Math.round((Date.now() - last) / 1000));
    // Three missed polls count as lost even without an error: a dead wifi may say nothing.
    var lost = failed || seconds > poll * 3 + 2;
    box.classList.toggle("is-lost", lost);
    if (lost) {
      text.textContent = box.getAttribute("data-lost").replace("{seconds}", seconds);
    } else if (seconds < 1) {
      text.textContent = box.getAttribute("data-live-now");
    } else {
      text.textContent = box.getAttribute("data-live").replace("{seconds}", seconds);
    }
  }

  function dismissed() {
    try {
      return JSON.parse(sessionStorage.getItem(DISMISSED) || "[]");
    } catch (error) {
      return [];
    }
  }

  function hideDismissedCards() {
    var card = document.getElementById("result-card");
    if (!card) {
      return;
    }
    if (dismissed().indexOf(card.getAttribute("data-result")) !== -1) {
      card.hidden = true;
      return;
    }
    var hide = card.querySelector(".result-hide");
    if (hide) {
      hide.hidden = false; // the keyboard's way to do what a tap on the card does
    }
  }

  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && ((xhr.status >= 200 && xhr.status < 300) || xhr.status === 304)) {
      last = Date.now();
      failed = false;
    } else {
      failed = true;
    }
    render();
  });
  document.addEventListener("htmx:sendError", function () {
    failed = true;
    render();
  });
  document.addEventListener("htmx:afterSwap", hideDismissedCards);

  document.addEventListener("click", function (event) {
    var card = event.target.closest ? event.target.closest("#result-card") : null;
    if (!card || (event.target.closest("a") && !event.target.closest(".result-hide"))) {
      return;
    }
    var seen = dismissed();
    seen.push(card.getAttribute("data-result"));
    try {
      sessionStorage.setItem(DISMISSED, JSON.stringify(seen.slice(-20)));
    } catch (error) {
      // private browsing without storage: the card still hides until the next swap
    }
    card.hidden = true;
  });

  if (box) {
    box.hidden = false;
    setInterval(render, 1000);
    render();
  }
  hideDismissedCards();
})();
