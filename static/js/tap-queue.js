// Brag Tables: the host's tap queue. Every tap and undo is kept in this browser's storage
// first (it survives a reload, a crash, the tablet sleeping), shown at once on the board,
// and sent to the server in order, one at a time, with its idempotency key, retried with
// backoff until the server answers. While entries wait, the board shown is the newest board
// this tablet has seen plus a prediction of the waiting entries (tap-logic.js): the tapped
// player greys out as "pending", the tap that leaves one standing predicts the crowning and
// the next match. A tap names the match it was made on (its id, or in a predicted match the
// crowning it follows), so the server never applies it to another game. A refused entry is
// dropped and explained, naming the player. Entries belong to the host who queued them.
// Without this script the tiles are plain forms (htmx or a full page post).
//
// This module wires the page's events to the others: tap-queue/state.js (shared state and
// wording), store.js (storage), draw.js (the board drawn), send.js (the network). They are
// native modules with relative imports; the production static storage rewrites each import
// to its hashed name, and the service worker keeps every one for a reload without network.
import { emit, logic, readIsland, say, settling, state, status, uuid } from "./tap-queue/state.js";
import {
  QUEUE_KEY, adoptServerState, keptBoard, predict, queue, refresh, saveQueue, sessionUser, setNotes, split,
} from "./tap-queue/store.js";
import { render, renderStatus, startSettle } from "./tap-queue/draw.js";
import { enqueue, pump, redrawServerBoard, sessionEnded } from "./tap-queue/send.js";

// A tap on a tile: stored first, shown at once, then sent.
function onSubmit(event) {
  const form = event.target;
  if (!form.classList || !(form.classList.contains("tap-form") || form.classList.contains("undo-form"))) {
    return;
  }
  if (!state.server || !state.server.match) {
    return; // no board data: the plain form (or htmx) does it
  }
  event.preventDefault();
  event.stopPropagation();
  const isTap = form.classList.contains("tap-form");
  if (state.readOnly || settling(isTap ? "tiles" : "undo")) {
    // The second touch of a double tap, on a control that appeared under the finger (its
    // button is disabled meanwhile, so only a script's submit gets here), or a press on
    // another login's kept page (its status line says so).
    return;
  }
  refresh();
  const p = predict();
  if (isTap) {
    const player = parseInt(form.querySelector("[name=player]").value, 10);
    const seat = p.seats.filter(function (s) { return s.player === player; })[0];
    if (!seat || seat.place !== null) {
      // The tile on screen is older than the board predicted (another tab of this table
      // queued a tap a moment ago): never dropped without a word.
      const name = form.querySelector("button").textContent.trim();
      setNotes([say(seat ? "not-sent-out" : "not-sent-not-seated", { name: name, number: p.match })]);
      render();
      return;
    }
    let key = form.querySelector("[name=key]").value || uuid();
    if (queue.entries.some(function (e) { return e.key === key; })) {
      key = uuid();
    }
    const target = logic.tapTarget(p);
    enqueue({
      kind: "tap", key: key, match_id: target.match_id || null, after: target.after || null,
      number: target.number, player: player, name: seat.name,
    }, p);
    return;
  }
  const ready = split().ready;
  const entries = queue.entries;
  const last = ready[ready.length - 1];
  if (last && last === entries[entries.length - 1] && last.kind === "tap" && !last.sending && !last.sent) {
    entries.pop(); // never sent: simply withdrawn
    saveQueue();
    startSettle(logic.settles("undo", p, predict()));
    render();
    if (!queue.entries.length) {
      redrawServerBoard();
    }
    return;
  }
  const top = p.stack[p.stack.length - 1];
  if (!top) {
    setNotes([say("nothing-to-undo")]);
    render();
    return;
  }
  enqueue({ kind: "undo", key: uuid(), tap_key: top.key, player: top.player, name: top.name, number: top.number }, p);
}

// The host's say on entries held for it; and the Undo that asks first on a page of its
// own (a link) is held while it settles, as the buttons are.
function onClick(event) {
  const link = event.target.closest ? event.target.closest(".undo-slot a") : null;
  if (link && (state.readOnly || settling("undo"))) {
    event.preventDefault();
    return;
  }
  const button = event.target.closest ? event.target.closest("[data-held]") : null;
  if (!button) {
    return;
  }
  refresh();
  const held = split().held;
  const keys = held.map(function (e) { return e.key; });
  if (button.getAttribute("data-held") === "send") {
    queue.entries.forEach(function (e) {
      if (keys.indexOf(e.key) !== -1) {
        e.adopted = true;
      }
    });
  } else {
    queue.entries = queue.entries.filter(function (e) { return keys.indexOf(e.key) === -1; });
    setNotes([say(held.length === 1 ? "held-discarded-one" : "held-discarded-other", { count: held.length })]);
  }
  saveQueue();
  state.drawn = null;
  render();
  pump();
}

function listen() {
  document.addEventListener("submit", onSubmit, true);
  document.addEventListener("click", onClick);

  // Polls must not draw the server's board over waiting taps: they pause until the queue
  // is empty (its last answer brings the server's board).
  document.addEventListener("htmx:beforeRequest", function (event) {
    const elt = event.detail && event.detail.elt;
    if (elt && elt.id === "live" && (split().ready.length || state.sending)) {
      event.preventDefault();
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    const elt = event.detail && event.detail.elt;
    if (elt && elt.id === "live") {
      const xhr = event.detail.xhr;
      const ok = !!xhr && ((xhr.status >= 200 && xhr.status < 300) || xhr.status === 304);
      if (ok) {
        state.failures = 0;
      }
      emit("brag:contact", { ok: ok });
      renderStatus();
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    const target = event.detail && event.detail.target;
    if (target && target.id === "live") {
      const board = readIsland(target);
      if (board && board.user && state.user && board.user.id !== state.user.id) {
        sessionEnded(); // another login on this browser since: its entries are not ours
      }
      adoptServerState(board);
      state.drawn = state.server;
      state.pageBoard = state.server;
      render();
    }
  });

  // Another tab of this table changed the queue: show it, and send what waits.
  window.addEventListener("storage", function (event) {
    if (event.key === QUEUE_KEY) {
      refresh();
      render();
      pump();
    }
  });

  window.addEventListener("online", function () {
    state.failures = 0;
    render();
    pump();
  });
  window.addEventListener("offline", function () {
    emit("brag:contact", { ok: false });
    render();
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      pump();
    }
  });
}

// Start: the newest board this tablet has seen, the page's or the one kept from the last
// answer (this page may be the service worker's or the browser's copy, from long before),
// drawn afresh so every tile carries a key never sent.
function start() {
  const island = readIsland(document);
  const kept = keptBoard();
  const keptCopy = document.documentElement.hasAttribute("data-kept-copy");
  state.user = island ? island.user || null : null;
  if (keptCopy) {
    const session = sessionUser();
    // A copy kept for a login that has ended (or another host's): shown, never tapped.
    state.readOnly = document.documentElement.hasAttribute("data-kept-foreign") ||
      !state.user || session === null || session !== String(state.user.id);
  }
  state.server = logic.chooseBoard(island, kept);
  if (state.server && state.server === island && !keptCopy) {
    adoptServerState(island);
  }
  state.drawn = null; // drawn afresh all the same: the page's keys may have been sent already
  state.pageBoard = island;
  render();
  if (keptCopy) {
    state.failures = 1;
    const server = state.server;
    emit("brag:contact", { ok: false, at: server && server.seen_at ? server.seen_at : undefined });
    renderStatus();
  }
  pump();
}

if (status && logic) {
  listen();
  start();
}
