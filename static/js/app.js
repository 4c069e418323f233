// Brag Tables: the only script besides htmx. Everything works without it; this makes
// network trouble visible and lets the host retry. A retried tap resends the same form, so
// the same idempotency key, and the server applies it at most once.
(function () {
  "use strict";
  var failed = null;

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

  document.addEventListener("htmx:sendError", function (event) {
    showTrouble(event.detail.elt);
  });
  document.addEventListener("htmx:responseError", function (event) {
    if (event.detail.xhr && event.detail.xhr.status >= 500) {
      showTrouble(event.detail.elt);
    }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.successful && failed !== null) {
      clearTrouble();
    }
  });
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
