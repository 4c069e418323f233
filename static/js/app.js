// Brag Tables: the only script besides htmx. Everything works without it; this keeps the
// board's polling cheap and makes network trouble visible with a way to retry. A retried tap
// resends the same form, so the same idempotency key: the server applies it at most once.
(function () {
  "use strict";
  var failed = null;
  // The ETag of the board on screen. Sent by our own polls, the server's 304 reaches htmx,
  // which leaves the board (and the message on it) as it is until the table changes.
  var boardTag = null;

  function banner() {
    return document.getElementById("network-status");
  }

  function showTrouble(elt) {
    failed = elt;
    var box = banner();
    if (box) {
      box.hidden = false;
    }
  }

  function clearTrouble() {
    failed = null;
    var box = banner();
    if (box) {
      box.hidden = true;
    }
  }

  document.addEventListener("htmx:configRequest", function (event) {
    if (event.detail.verb === "get" && boardTag) {
      event.detail.headers["If-None-Match"] = boardTag;
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    if (xhr && xhr.status === 200) {
      var isPoll = event.detail.requestConfig && event.detail.requestConfig.verb === "get";
      // A tap or undo answers with the tag a poll would now get.
      var tag = xhr.getResponseHeader(isPoll ? "ETag" : "X-Board-ETag");
      if (isPoll || tag !== null) {
        boardTag = tag || null;
      }
    }
    if (event.detail.successful && failed !== null) {
      clearTrouble();
    }
  });

  // The tap queue (tap-queue.js) sends with fetch, not htmx: it hands over the board's tag.
  document.addEventListener("brag:board-tag", function (event) {
    boardTag = event.detail.tag || null;
  });

  document.addEventListener("htmx:sendError", function (event) {
    showTrouble(event.detail.elt);
  });

  document.addEventListener("htmx:responseError", function (event) {
    if (event.detail.xhr && event.detail.xhr.status >= 500) {
      showTrouble(event.detail.elt);
    }
  });

  // A page the network rendered for nobody logged in (after a logout, on the login page):
  // the service worker's copies of table pages are a host's (tap buttons, the tap queue),
  // so they go, and nobody else reloading a table page offline on this tablet gets one.
  // Taps still waiting stay in localStorage: the next host login on this tablet sends them.
  if (document.querySelector("[data-forget-host-pages]") && window.caches) {
    window.caches.keys().then(function (keys) {
      keys.forEach(function (key) {
        if (key.indexOf("brag-pages-") === 0) {
          window.caches.delete(key);
        }
      });
    }).catch(function () {});
  }

  // (The showdown judge's card grid is picker.js.)
  document.addEventListener("click", function (event) {
    if (event.target && event.target.id === "network-retry" && failed !== null) {
      var elt = failed;
      clearTrouble();
      // A failed poll simply resumes on its own; a failed tap or undo is sent again.
      if (elt.tagName === "FORM" && document.body.contains(elt)) {
        htmx.trigger(elt, "submit");
      }
    }
  });
})();
