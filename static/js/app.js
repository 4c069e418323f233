// Brag Tables: the script every page loads. Everything works without it; this keeps the
// board's polling cheap and makes network trouble visible with a way to retry (a retried tap
// resends the same form, so the same idempotency key: the server applies it at most once),
// registers the service worker and keeps its copies of table pages current and the host's.
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

  // --- The offline shell: the service worker, the kept copies of table pages, whose they are.
  var root = document.documentElement;
  // A page the service worker served from its cache because the network failed (sw.js).
  var keptCopy = root.hasAttribute("data-kept-copy");
  var TABLE_PAGE = /^\/tables\/\d+\/$/;
  var SESSION = "brag.session";
  var sessionEnded = false;
  var keepTimer = null;

  function stored(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (error) {
      return null;
    }
  }

  function store(key, value) {
    try {
      window.localStorage.setItem(key, value);
    } catch (error) {
      // no storage: a kept copy then counts as another login's, and stays read-only
    }
  }

  function toWorker(message) {
    if (!("serviceWorker" in navigator) || !window.isSecureContext) {
      return;
    }
    navigator.serviceWorker.ready.then(function (registration) {
      if (registration.active) {
        registration.active.postMessage(message);
      }
    }).catch(function () {});
  }

  // The worker's copies of table pages are a host's (tap buttons, the tap queue): when the
  // login goes they go too, whichever of the page or the worker gets to run. Taps still
  // waiting stay in localStorage: the next host login on this tablet sends them.
  // A keep asked after this page forgot waits for it: a spectator's page forgets the host's
  // copies, then keeps its own, which the deletion must not take with it.
  var forgotten = Promise.resolve();

  function forgetHostPages() {
    toWorker({ type: "forget-pages" });
    if (window.caches) {
      forgotten = window.caches.keys().then(function (keys) {
        return Promise.all(keys.filter(function (key) {
          return key.indexOf("brag-pages-") === 0;
        }).map(function (key) {
          return window.caches.delete(key);
        }));
      }).catch(function () {});
    }
  }

  // Ask the worker to fetch this table page afresh and keep it: the board the tablet has
  // now is what an offline reload shows. Debounced: a burst of taps costs one fetch.
  function keepThisPage(onLoad) {
    if (sessionEnded || !TABLE_PAGE.test(window.location.pathname)) {
      return;
    }
    window.clearTimeout(keepTimer);
    keepTimer = window.setTimeout(function () {
      forgotten.then(function () {
        if (!sessionEnded) {
          // onLoad: the worker may have kept this very page from its navigation just now.
          toWorker({ type: "keep", url: window.location.pathname, onLoad: onLoad === true });
        }
      });
    }, onLoad === true ? 0 : 1000);
  }

  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {
      // no offline reload; everything else works all the same
    });
  }

  // Whose pages these are: the user the server rendered this page for ("" for nobody).
  // A kept copy says whose it was, not who is logged in now, so only the network's pages
  // write it. The TV page carries no data-user (every viewer gets the same bytes).
  var user = document.body.getAttribute("data-user");
  if (user !== null && !keptCopy) {
    store(SESSION, user);
  } else if (user !== null && user !== "" && stored(SESSION) !== user) {
    // Another login's copy (logged out, or someone else logged in, since it was kept): no
    // working host controls; tap-queue.js reads this attribute and stays read-only.
    root.setAttribute("data-kept-foreign", "");
    var note = document.getElementById("kept-foreign-note");
    if (note) {
      note.hidden = false;
    }
  }

  // A page the network rendered for nobody logged in (after a logout, on the login page).
  if (document.querySelector("[data-forget-host-pages]") && !keptCopy) {
    forgetHostPages();
  }

  // tap-queue.js: an answer said the login is gone.
  document.addEventListener("brag:session-ended", function () {
    sessionEnded = true;
    window.clearTimeout(keepTimer);
    store(SESSION, "");
    forgetHostPages();
  });

  if (document.getElementById("live")) {
    keepThisPage(true);
  }
  // tap-queue.js after an answer or a poll that changed the board; htmx after a poll's swap
  // (a spectator's page has no tap queue).
  document.addEventListener("brag:board-changed", function () {
    keepThisPage(false);
  });

  // A table opened or closed since this page was rendered: its head, status line and
  // scripts differ, so the whole page is loaded again (at most every 10 s, so a page that
  // somehow keeps disagreeing does not reload in a loop).
  function tableStateChanged(target) {
    var marker = target.querySelector("[data-table-state]");
    return marker !== null &&
      marker.getAttribute("data-table-state") !== target.getAttribute("data-table-open");
  }

  function mayReload() {
    try {
      var last = parseInt(window.sessionStorage.getItem("brag.reloaded") || "0", 10);
      if (Date.now() - last < 10000) {
        return false;
      }
      window.sessionStorage.setItem("brag.reloaded", String(Date.now()));
    } catch (error) {
      // no storage: reload all the same; the reloaded page agrees with its fragments
    }
    return true;
  }

  // A watcher's page follows a close or a reopen in place (the room sees it with no
  // reload): the TV's whole screen is the fragment; a table page's heading and status line
  // sit outside it, so its main part is fetched afresh. A host's board, with its queue's
  // scripts, is loaded again.
  function followTableState(target) {
    var marker = target.querySelector("[data-table-state]");
    var main = document.getElementById("main");
    if (document.querySelector("[data-stream-mode=fetch]") || !window.fetch || !marker) {
      if (mayReload()) {
        window.location.reload();
      }
      return;
    }
    target.setAttribute("data-table-open", marker.getAttribute("data-table-state"));
    if (!main || !main.contains(target)) {
      return;
    }
    // no-cache: the page as it is now, not a copy a moment old from the HTTP cache.
    var asked = { credentials: "same-origin", cache: "no-cache" };
    window.fetch(window.location.href, asked).then(function (answer) {
      return answer.ok ? answer.text() : Promise.reject(answer.status);
    }).then(function (html) {
      var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("main");
      if (fresh) {
        main.innerHTML = fresh.innerHTML;
        htmx.process(main);
        document.dispatchEvent(new CustomEvent("htmx:afterSwap", {
          detail: { target: document.getElementById("live"), refreshed: true },
        }));
      }
    }).catch(function () {
      if (mayReload()) {
        window.location.reload();
      }
    });
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (!target || target.id !== "live") {
      return;
    }
    var config = event.detail.requestConfig;
    var isPoll = config && config.verb === "get";
    if (isPoll && tableStateChanged(target)) {
      followTableState(target);
      return;
    }
    keepThisPage(false);
  });

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
