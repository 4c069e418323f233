// Brag Tables: a page that follows live state ([data-stream] on its live region) hears every
// change the moment it is written, over a server-sent event stream (brag_tables/streams.py).
// A spectator's page swaps in the state each event carries; a host's board ("fetch") is
// told only that something changed and asks for its own board at once, through the same
// htmx poll its tap queue already keeps exactly-once. Without EventSource, past the
// server's cap (an answer of 204), or behind a proxy that holds events back, the page keeps
// polling with ETags (htmx's hx-trigger) as before; while the stream is live those polls
// are skipped. live.js shows the connection: live, reconnecting, or offline since when.
(function () {
  "use strict";
  var first = document.querySelector("[data-stream]");
  if (!first || !window.EventSource || !window.htmx) {
    return;
  }
  var url = first.getAttribute("data-stream");
  var fetchOwn = first.getAttribute("data-stream-mode") === "fetch";
  var heartbeat = (parseInt(first.getAttribute("data-stream-heartbeat"), 10) || 30) * 1000;
  // The table version the page was rendered at (a table's pages say it): a stream's first
  // event of that same state is no news.
  var renderedAt = parseInt(first.getAttribute("data-version"), 10);

  // The live region now: app.js may fetch the page's main part afresh (a close, a reopen).
  function current() {
    return document.querySelector("[data-stream]") || first;
  }
  var source = null;
  var lastMessage = 0;
  var shownId = null;
  var givenUp = false;
  var silentTimer = null;

  function tell(state) {
    current().setAttribute("data-stream-state", state); // for a look in the inspector
    document.dispatchEvent(new CustomEvent("brag:stream", { detail: { state: state } }));
  }

  // Whether the stream is to be trusted over the polls: open, and heard from within a
  // heartbeat (and some slack for a busy phone).
  function live() {
    return source !== null && source.readyState === 1 &&
      Date.now() - lastMessage < heartbeat + 10000;
  }

  // "…t5.v12.g3e6f…": the table's version and generation (a restore changes the latter).
  function version(id) {
    var found = /\.v(\d+)\.(g[0-9a-f]+)\./.exec(id || "");
    return found ? { number: parseInt(found[1], 10), generation: found[2] } : null;
  }

  function older(id) {
    var next = version(id);
    var shown = version(shownId);
    return next !== null && shown !== null && next.generation === shown.generation &&
      next.number < shown.number;
  }

  function heard() {
    lastMessage = Date.now();
    clearTimeout(silentTimer);
    document.dispatchEvent(new CustomEvent("brag:contact", { detail: { ok: true } }));
    tell("live");
  }

  // A page with no fragment of its own (home, standings, tonight) comes whole: its live
  // region is what is swapped in.
  function inner(data) {
    if (data.indexOf("<html") === -1) {
      return data;
    }
    var page = new DOMParser().parseFromString(data, "text/html");
    var region = page.querySelector("[data-stream]");
    return region ? region.innerHTML : data;
  }

  function swap(event) {
    heard();
    var id = event.lastEventId;
    if (id === shownId || older(id)) {
      return; // the state on screen, or one older than it (never go back)
    }
    var first = shownId === null;
    shownId = id;
    var target = current();
    var next = version(id);
    if (first && next !== null && next.number === renderedAt) {
      return; // the state the page was rendered with: nothing to fetch or swap
    }
    if (fetchOwn) {
      htmx.trigger(target, "brag:changed");
      return;
    }
    htmx.swap(target, inner(event.data), { swapStyle: "innerHTML" });
    document.dispatchEvent(new CustomEvent("brag:board-tag", { detail: { tag: id } }));
    // What a poll's swap tells live.js (the crowning moment) and app.js (a reopen reloads).
    target.dispatchEvent(new CustomEvent("htmx:afterSwap", {
      bubbles: true,
      detail: { target: target, elt: target, requestConfig: { verb: "get" }, stream: true },
    }));
  }

  // Back to polling; the stream is tried again a minute later (a restarted server, a cap
  // that has room again).
  function giveUp() {
    givenUp = true;
    if (source !== null) {
      source.close();
    }
    source = null;
    tell("polling");
    setTimeout(function () {
      givenUp = false;
      connect();
    }, 60000 + Math.random() * 10000);
  }

  function connect() {
    source = new EventSource(url);
    source.addEventListener("open", function () {
      // The server pings at once: silence means a proxy holds the events back.
      clearTimeout(silentTimer);
      silentTimer = setTimeout(giveUp, 8000);
    });
    source.addEventListener("ping", heard);
    source.addEventListener("swap", swap);
    source.addEventListener("stale", function () {
      heard();
      htmx.trigger(current(), "brag:changed"); // not a page to share: fetch our own
    });
    source.addEventListener("error", function () {
      if (source === null) {
        return;
      }
      if (source.readyState === 2) {
        // Refused (204 past the cap, or an error answer): the polls carry on.
        giveUp();
        return;
      }
      tell("reconnecting"); // the browser tries again after the server's retry
    });
  }

  // While the stream is live, a poll is only sent when the stream asked for it.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var detail = event.detail || {};
    if (detail.elt !== current() || givenUp || !live()) {
      return;
    }
    var config = detail.requestConfig || {};
    var trigger = config.triggeringEvent;
    if (config.verb === "get" && !(trigger && trigger.type === "brag:changed")) {
      event.preventDefault();
    }
  });

  // Back from sleep or from a lost network: reconnect now rather than at the browser's pace.
  function wake() {
    if (!givenUp && (source === null || source.readyState === 2)) {
      connect();
    }
  }
  window.addEventListener("online", wake);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      wake();
    }
  });

  tell("reconnecting");
  connect();
})();
