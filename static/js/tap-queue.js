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
(function () {
  "use strict";
  var status = document.getElementById("queue-status");
  var logic = window.BragTapLogic;
  if (!status || !logic) {
    return;
  }
  var text = status.querySelector(".queue-text");
  var tableId = status.getAttribute("data-table");
  var QUEUE_KEY = "brag.queue." + tableId;
  var BOARD_KEY = "brag.board." + tableId;
  var NOTES_KEY = "brag.notes." + tableId; // explanations survive a reload (a close reloads)
  var SESSION_KEY = "brag.session"; // app.js: the user id of the last page the network served
  var BACKOFF = [1000, 2000, 4000, 8000, 15000];
  // A control that takes the place of the one just pressed ignores presses this long: the
  // second tap of a double tap must not land on it.
  var SETTLE_MS = 1000;
  var memory = {}; // when storage is unavailable (private browsing): the page's memory
  var entries = load(QUEUE_KEY) || [];
  var server = null; // the newest board seen, as data
  var drawn = null; // the board whose tiles are on screen as the server rendered them
  // The board the page's own message and result card speak of: the page's at start, then
  // each swapped answer's or poll's. They are hidden while the board shown is another.
  var pageBoard = null;
  var sending = false;
  var failures = 0;
  var timer = null;
  var loginNeeded = false;
  var notes = load(NOTES_KEY) || []; // sentences explaining refused entries, newest last
  var unsaved = false; // the queue could not be written to storage: a reload would lose it
  var settleUntil = 0;
  var settleTimer = null;
  var user = null; // who is logged in on this page: {id, name}
  var readOnly = false; // a kept copy of another login's page: shown, not tapped

  function say(name, values) {
    var s = status.getAttribute("data-" + name) || "";
    Object.keys(values || {}).forEach(function (key) {
      s = s.split("{" + key + "}").join(values[key]);
    });
    return s;
  }

  function load(key) {
    try {
      var raw = window.localStorage.getItem(key);
      return raw ? JSON.parse(raw) : null;
    } catch (error) {
      return memory[key] ? JSON.parse(memory[key]) : null;
    }
  }

  function store(key, value) {
    var raw = JSON.stringify(value);
    try {
      window.localStorage.setItem(key, raw);
      if (key === QUEUE_KEY) {
        unsaved = false;
      }
    } catch (error) {
      // Storage full, or refused (private browsing): the page's memory keeps it, and the
      // host is told a reload would lose waiting taps. An older copy must not come back
      // on the next load and be sent again.
      memory[key] = raw;
      if (key === QUEUE_KEY) {
        unsaved = true;
        try {
          window.localStorage.removeItem(key);
        } catch (ignored) {
          // nothing more to do: storage is unusable
        }
      }
    }
  }

  function saveQueue() {
    store(QUEUE_KEY, entries.map(function (e) {
      var copy = {};
      Object.keys(e).forEach(function (k) {
        if (k !== "sending") {
          copy[k] = e[k];
        }
      });
      return copy;
    }));
  }

  // Two tabs of this table on one tablet share the stored queue: before each change, take
  // the stored one (another tab may have added or answered entries since), so neither tab
  // writes over the other's taps. An entry both tabs send is applied once: its key says so.
  function refresh() {
    if (unsaved) {
      return; // storage is unusable: this tab's memory is the queue
    }
    entries = logic.mergeQueue(load(QUEUE_KEY) || [], entries);
  }

  function uuid() {
    // crypto.randomUUID needs a secure context; a LAN tablet on plain http has only this.
    var b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) {
      return (x + 0x100).toString(16).slice(1);
    }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function emit(name, detail) {
    document.dispatchEvent(new CustomEvent(name, { detail: detail || {} }));
  }

  function live() {
    return document.getElementById("live");
  }

  function readIsland(root) {
    var island = (root || document).querySelector("#board-state");
    if (!island) {
      return null;
    }
    try {
      return JSON.parse(island.textContent);
    } catch (error) {
      return null;
    }
  }

  // A board the server just sent (an answer or a poll) is the newest there is: it is shown,
  // and kept for a reload that gets an older page from a cache.
  function adoptServerState(state) {
    if (!state) {
      return;
    }
    var changed = !server || server.version !== state.version;
    state.seen_at = Date.now();
    server = state;
    store(BOARD_KEY, state);
    if (changed) {
      emit("brag:board-changed", { version: state.version });
    }
  }

  function userId() {
    return user ? user.id : null;
  }

  function nightNow() {
    return server && server.night ? logic.nightStart(server.night, Date.now()) : null;
  }

  function split() {
    return logic.split(entries, userId(), nightNow());
  }

  function predict() {
    return logic.predict(server, split().ready);
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") {
        node.textContent = attrs[k];
      } else {
        node.setAttribute(k, attrs[k]);
      }
    });
    (children || []).forEach(function (c) {
      if (c) {
        node.appendChild(c);
      }
    });
    return node;
  }

  // As the template's long_word filter: a word of more than 9 letters gets a smaller type.
  function longWord(name) {
    return name.split(/\s+/).some(function (word) { return word.length > 9; });
  }

  function tile(seat, p) {
    var cls = "tile" + (seat.place !== null ? " is-out" : "") + (longWord(seat.name) ? " tile-long" : "");
    var li = el("li", { class: cls, "data-player": seat.player });
    if (seat.place === null) {
      var target = logic.tapTarget(p);
      var form = el("form", { class: "tap-form", method: "post", action: status.getAttribute("data-tap-url") }, [
        el("input", { type: "hidden", name: target.match_id ? "match" : "number", value: target.match_id || p.match }),
        el("input", { type: "hidden", name: "player", value: seat.player }),
        // A fresh key on every tile drawn: a key once sent is never offered again.
        el("input", { type: "hidden", name: "key", value: uuid() }),
        el("button", { type: "submit", class: "player", id: "tap-" + seat.player, text: seat.name }),
      ]);
      li.appendChild(form);
      return li;
    }
    var parts = [
      el("span", { class: "tile-name", text: seat.name }),
      document.createTextNode(" "),
      el("span", { class: "tile-place", text: server.places[String(seat.place)] }),
    ];
    if (seat.pending) {
      parts.push(document.createTextNode(" "));
      parts.push(el("span", { class: "tile-pending", text: say("pending") }));
      li.appendChild(el("button", { type: "button", class: "player player-out is-pending", disabled: "" }, parts));
    } else {
      li.appendChild(el("div", { class: "player player-out" }, parts));
    }
    return li;
  }

  // The result card drawn from data: a predicted crowning (pending), or the newest board's
  // own when the page on screen is older than it.
  function dataCard(result, pending) {
    var winner = result.seats.filter(function (s) { return s.place === 1; })[0];
    var heading = el("h2", {}, [
      el("span", { class: "crown", "aria-hidden": "true", text: "♛" }),
      document.createTextNode(" " + say("wins-label", { name: winner.name, number: result.number }) + " "),
      pending ? el("span", { class: "result-pending", text: "(" + say("pending") + ")" }) : null,
    ]);
    var body;
    if (server.ranked) {
      body = el("ol", { class: "result-places" }, result.seats.map(function (s) {
        return el("li", { class: "place-" + s.place }, [
          el("span", { class: "result-place", text: server.places[String(s.place)] }),
          document.createTextNode(" "),
          el("span", { class: "result-name", text: s.name }),
          document.createTextNode(" "),
          el("span", { class: "result-points", text: server.points[String(s.place)] }),
        ]);
      }));
    } else {
      var out = result.seats.filter(function (s) { return s.place !== 1; }).map(function (s) { return s.name; });
      body = el("p", { class: "result-out", text: out.join(", ") });
    }
    var id = pending ? "result-card-pending" : "result-card-kept";
    return el("section", { class: "result-card" + (pending ? " is-pending" : ""), id: id }, [
      el("div", { role: "status" }, [heading]),
      body,
    ]);
  }

  function undoButton(p) {
    var top = p.stack[p.stack.length - 1];
    if (!top) {
      return null;
    }
    var label = say(top.crowned ? "undo-reopens" : "undo-label", { name: top.name, number: top.number });
    return el("form", { class: "undo-form", method: "post", action: status.getAttribute("data-undo-url") }, [
      el("input", { type: "hidden", name: "tap_key", value: top.key }),
      el("button", { type: "submit", class: "button button-undo", text: label }),
    ]);
  }

  // Draw the predicted board over the page's, in the same places: tiles, heading, count,
  // Undo and the result card. Nothing is drawn while the server's own rendering of the
  // newest board is on screen and nothing waits.
  function render() {
    renderStatus();
    renderNotes();
    if (!server || !server.match) {
      settle();
      return;
    }
    var board = live();
    var tiles = board && board.querySelector("#tiles");
    if (!tiles) {
      return;
    }
    var ready = split().ready;
    if (!ready.length && server === drawn) {
      settle();
      return;
    }
    var p = logic.predict(server, ready);
    drawn = null;
    var fresh = document.createDocumentFragment();
    p.seats.forEach(function (seat) {
      fresh.appendChild(tile(seat, p));
    });
    tiles.replaceChildren(fresh);
    var heading = board.querySelector("#match-heading");
    if (heading) {
      heading.textContent = say("match-label", { number: p.match });
    }
    var dealer = board.querySelector(".host-board .dealer");
    if (dealer) {
      var same = p.match === server.match && p.dealer;
      dealer.style.visibility = same ? "" : "hidden";
      var who = dealer.querySelector("strong");
      if (same && who) {
        who.textContent = p.dealer;
      }
    }
    var count = board.querySelector("#standing-heading");
    if (count) {
      var n = logic.standingCount(p.seats);
      count.textContent = say(n === 1 ? "standing-one" : "standing-other").replace(/\d+/, String(n));
    }
    var slot = board.querySelector(".undo-slot");
    if (slot) {
      var undo = undoButton(p);
      slot.replaceChildren.apply(slot, undo ? [undo] : []);
    }
    var roster = board.querySelector(".roster-link");
    if (roster) {
      roster.style.visibility = p.match === server.match && !ready.length ? "" : "hidden";
    }
    var side = board.querySelector("#board-side");
    if (side) {
      side.querySelectorAll("#result-card-pending, #result-card-kept").forEach(function (old) {
        old.remove();
      });
      var pageCard = side.querySelector("#result-card");
      var untouched = logic.standingCount(p.seats) === p.seats.length;
      var result = p.resultPending ? p.result : server.result;
      var card = untouched && result ? result : null;
      var pageShowsIt = pageCard && card && !p.resultPending &&
        pageCard.getAttribute("data-result") === server.table + "-" + card.number;
      if (pageCard) {
        pageCard.hidden = pageCard.hidden || !pageShowsIt;
      }
      if (card && !pageShowsIt) {
        // Where the page's own card goes: above tonight's totals.
        side.insertBefore(dataCard(card, p.resultPending), side.querySelector(":scope > .tonight"));
      }
      if (ready.length || server !== pageBoard) {
        side.querySelectorAll(".messages").forEach(function (m) {
          m.hidden = true; // the server's last sentence is about a board that is not the one shown
        });
      }
    }
    settle();
  }

  // Hold the controls that just took the place of the pressed one: disabled (so assistive
  // technology, scripts and the eye all see it) until the settle time is over.
  function startSettle() {
    settleUntil = Date.now() + SETTLE_MS;
    document.documentElement.setAttribute("data-settling", "");
    window.clearTimeout(settleTimer);
    settleTimer = window.setTimeout(function () {
      settleUntil = 0;
      document.documentElement.removeAttribute("data-settling");
      settle(true);
    }, SETTLE_MS);
  }

  // While settling (or on another login's kept page) every tile and Undo is held; when the
  // settle time ends, every one is released, whichever rendering put it there (a poll may
  // have swapped in new buttons meanwhile, and htmx's settling copies classes across).
  function settle(release) {
    var board = live();
    if (!board) {
      return;
    }
    var holding = settleUntil > Date.now() || readOnly;
    if (!holding && !release) {
      return;
    }
    board.querySelectorAll("#tiles .tap-form button, .undo-slot button, .undo-slot a.button").forEach(function (b) {
      if (b.tagName === "A") {
        if (holding) {
          b.setAttribute("aria-disabled", "true");
        } else {
          b.removeAttribute("aria-disabled");
        }
      } else {
        b.disabled = holding;
      }
    });
  }

  function renderStatus() {
    var parts = [];
    var cls = "queue-status";
    var online = navigator.onLine !== false && failures === 0;
    var waiting = entries.length;
    if (waiting) {
      parts.push(waiting === 1 ? say("waiting-one") : say("waiting-other", { count: waiting }));
      cls += " is-waiting";
    } else {
      parts.push(say("all-sent"));
    }
    if (readOnly) {
      parts.push(say("read-only"));
    } else if (loginNeeded) {
      cls += " is-login";
    } else if (!online) {
      parts.push(say("offline"));
      cls += " is-offline";
    }
    if (unsaved && waiting) {
      parts.push(say("unsaved"));
      cls += " is-unsaved";
    }
    if (!window.isSecureContext) {
      parts.push(say("insecure"));
    }
    text.textContent = parts.join(" · ");
    status.className = cls;
    status.hidden = false;
  }

  // Beside the tiles; on a board without them (the table closed) above the board, so a
  // tap refused there is still explained by name.
  function notesBox() {
    var side = document.getElementById("board-side");
    var board = live();
    var outside = board && board.parentNode ? board.parentNode.querySelector(":scope > .queue-notes") : null;
    if (side) {
      if (outside) {
        outside.remove();
      }
      var box = side.querySelector(".queue-notes");
      if (!box) {
        box = el("div", { class: "queue-notes", role: "alert" });
        side.insertBefore(box, side.firstChild);
      }
      return box;
    }
    if (!board || !board.parentNode) {
      return null;
    }
    if (!outside) {
      outside = el("div", { class: "queue-notes", role: "alert" });
      board.parentNode.insertBefore(outside, board);
    }
    return outside;
  }

  function setNotes(list) {
    notes = list.slice(-3);
    store(NOTES_KEY, notes);
  }

  // Entries held for the host's say: queued by another host on this tablet, or on an earlier
  // night. Send them (under this login; the audit trail names who queued them) or discard.
  function heldNote(held) {
    var first = logic.holdReason(held[0], userId(), nightNow());
    var count = held.filter(function (e) { return e.kind === "tap"; }).length || held.length;
    var sentence;
    if (first === "other-host") {
      sentence = say(count === 1 ? "held-by-one" : "held-by-other", {
        count: count, name: logic.queuedBy(held).join(", "),
      });
    } else {
      sentence = say(count === 1 ? "held-night-one" : "held-night-other", { count: count });
    }
    return el("div", { class: "queue-note queue-held", "data-level": "warning" }, [
      el("p", { text: sentence }),
      el("p", { class: "queue-held-actions" }, [
        el("button", { type: "button", class: "button button-primary", "data-held": "send", text: say("held-send") }),
        document.createTextNode(" "),
        el("button", { type: "button", class: "button button-danger", "data-held": "discard", text: say("held-discard") }),
      ]),
    ]);
  }

  function renderNotes() {
    var box = notesBox();
    if (!box) {
      return;
    }
    var items = notes.map(function (n) {
      return el("p", { class: "queue-note", "data-level": "error", text: n });
    });
    if (loginNeeded && entries.length) {
      var login = el("p", { class: "queue-note queue-login", "data-level": "error" }, [
        document.createTextNode(
          (entries.length === 1 ? say("login-one") : say("login-other", { count: entries.length })) + " "
        ),
        el("a", { href: status.getAttribute("data-login-url"), text: say("login-link") }),
      ]);
      items.push(login);
    }
    var held = readOnly || loginNeeded ? [] : split().held;
    if (held.length) {
      items.push(heldNote(held));
    }
    box.replaceChildren.apply(box, items);
  }

  function refusalSentence(entry, code, reason) {
    var values = { name: entry.name, number: entry.number, reason: reason || "" };
    var key = code ? code.replace(/_/g, "-") : "";
    if (entry.kind === "undo") {
      return status.hasAttribute("data-undo-refused-" + key)
        ? say("undo-refused-" + key, values)
        : say("undo-refused", values);
    }
    return status.hasAttribute("data-refused-" + key) ? say("refused-" + key, values) : say("refused", values);
  }

  function csrfToken() {
    try {
      return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["x-csrftoken"] || "";
    } catch (error) {
      return "";
    }
  }

  function swapBoard(html) {
    var board = live();
    if (!board) {
      return;
    }
    board.innerHTML = html;
    if (window.htmx) {
      window.htmx.process(board);
    }
    board.dispatchEvent(new CustomEvent("htmx:afterSwap", { bubbles: true, detail: { target: board } }));
  }

  function schedule(delay) {
    window.clearTimeout(timer);
    timer = window.setTimeout(pump, delay);
  }

  function retryLater() {
    var delay = BACKOFF[Math.min(failures, BACKOFF.length - 1)];
    failures += 1;
    emit("brag:contact", { ok: false });
    render();
    schedule(delay);
  }

  // Send the oldest entry that may be sent; on its answer, drop it (recorded, already
  // recorded, or refused and explained) and go on with the next. Network trouble keeps it
  // and tries again later. Held entries wait for the host's say.
  function pump() {
    window.clearTimeout(timer);
    if (sending || loginNeeded || readOnly) {
      return;
    }
    refresh();
    var ready = split().ready;
    if (!ready.length) {
      render();
      return;
    }
    if (navigator.onLine === false) {
      // No network at all: nothing can leave, so nothing is marked sent (Undo can still
      // simply withdraw it). The online event sends it; this is a safety net.
      render();
      schedule(BACKOFF[0]);
      return;
    }
    var entry = ready[0];
    // Urlencoded, as a form posts it: the server refuses multipart bodies (FormData's).
    var body = new URLSearchParams();
    logic.postFields(entry, userId()).forEach(function (field) {
      body.append(field[0], field[1]);
    });
    var url = status.getAttribute(entry.kind === "tap" ? "data-tap-url" : "data-undo-url");
    sending = true;
    entry.sending = true;
    if (!entry.sent) {
      // Kept with the entry: once it may have reached the server (an answer lost on the
      // way back), Undo must ask the server to take it back, not just withdraw it here.
      entry.sent = true;
      saveQueue();
    }
    fetch(url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": csrfToken() },
    }).then(function (response) {
      return response.text().then(function (html) {
        sending = false;
        entry.sending = false;
        answered(entry, response, html);
      });
    }, function () {
      sending = false;
      entry.sending = false;
      retryLater();
    });
  }

  // The server says this login is gone: keep every entry, ask the host to log in, and let
  // the page shell drop its kept copies of host pages.
  function sessionEnded() {
    loginNeeded = true;
    failures = 0;
    try {
      window.localStorage.setItem(SESSION_KEY, "");
    } catch (error) {
      // storage unusable: the kept pages go all the same
    }
    emit("brag:session-ended");
    render();
  }

  function answered(entry, response, html) {
    var loginUrl = status.getAttribute("data-login-url").split("?")[0];
    var toLogin = response.redirected && response.url.indexOf(loginUrl) !== -1;
    if (response.headers.get("HX-Redirect") || toLogin || response.status === 401 || response.status === 403) {
      // Logged out elsewhere, or the session (and its CSRF token) expired.
      sessionEnded();
      return;
    }
    var outcome = response.headers.get("X-Tap-Outcome");
    var clientError = response.status >= 400 && response.status < 500 && response.status !== 429;
    if (!outcome && !clientError) {
      // A server error, or an answer that is not the app's (a proxy's or a captive portal's
      // page): the entry may not have arrived, so it is sent again, with the same key.
      retryLater();
      return;
    }
    failures = 0;
    emit("brag:contact", { ok: true });
    if (outcome === "refused") {
      var holder = document.createElement("div");
      holder.innerHTML = html;
      var message = holder.querySelector(".message-error");
      var reason = message ? message.textContent.trim() : "";
      setNotes(notes.concat([refusalSentence(entry, response.headers.get("X-Tap-Code"), reason)]));
    } else if (!outcome) {
      setNotes(notes.concat([refusalSentence(entry, "", String(response.status))]));
    }
    refresh();
    entries = logic.afterAnswer(entries, entry, outcome);
    saveQueue();
    if (response.ok) {
      var holder2 = document.createElement("div");
      holder2.innerHTML = html;
      adoptServerState(readIsland(holder2));
      if (outcome === "refused") {
        // The queue's note above says why, by name: the server's own red box would repeat it.
        holder2.querySelectorAll(".messages .message-error").forEach(function (box) {
          var list = box.parentNode;
          box.remove();
          if (!list.children.length) {
            list.remove();
          }
        });
        html = holder2.innerHTML;
      }
      swapBoard(html);
      var tag = response.headers.get("X-Board-ETag");
      if (tag !== null) {
        emit("brag:board-tag", { tag: tag });
      }
    }
    render();
    if (entries.length) {
      schedule(0);
    }
  }

  function enqueue(entry, before) {
    setNotes([]); // an explanation stays on screen until the host's next tap
    // A poll already on its way may carry a board from before this entry's answer: it
    // would land after that answer and draw the old board over it. Polls resume when the
    // queue is empty.
    if (window.htmx && live()) {
      window.htmx.trigger(live(), "htmx:abort");
    }
    entry.at = new Date().toISOString();
    entry.by = user;
    refresh();
    entries.push(entry);
    saveQueue();
    if (logic.replacesControls(before, predict())) {
      startSettle();
    }
    render();
    pump();
  }

  // A tap on a tile: stored first, shown at once, then sent.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !(form.classList.contains("tap-form") || form.classList.contains("undo-form"))) {
      return;
    }
    if (!server || !server.match) {
      return; // no board data: the plain form (or htmx) does it
    }
    event.preventDefault();
    event.stopPropagation();
    if (readOnly || settleUntil > Date.now()) {
      return; // a press on a control still settling, or on another login's kept page
    }
    refresh();
    var p = predict();
    if (form.classList.contains("tap-form")) {
      var player = parseInt(form.querySelector("[name=player]").value, 10);
      var seat = p.seats.filter(function (s) { return s.player === player; })[0];
      if (!seat || seat.place !== null) {
        return; // a second touch on a tile already out
      }
      var key = form.querySelector("[name=key]").value || uuid();
      if (entries.some(function (e) { return e.key === key; })) {
        key = uuid();
      }
      var target = logic.tapTarget(p);
      enqueue({
        kind: "tap", key: key, match_id: target.match_id || null, after: target.after || null,
        number: target.number, player: player, name: seat.name,
      }, p);
      return;
    }
    var ready = split().ready;
    var last = ready[ready.length - 1];
    if (last && last === entries[entries.length - 1] && last.kind === "tap" && !last.sending && !last.sent) {
      entries.pop(); // never sent: simply withdrawn
      saveQueue();
      startSettle();
      render();
      if (!entries.length) {
        redrawServerBoard();
      }
      return;
    }
    var top = p.stack[p.stack.length - 1];
    if (!top) {
      return;
    }
    enqueue({ kind: "undo", key: uuid(), tap_key: top.key, player: top.player, name: top.name, number: top.number }, p);
  }, true);

  // The host's say on entries held for it; and the Undo that asks first on a page of its
  // own (a link) is held while it settles, as the buttons are.
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest(".undo-slot a") : null;
    if (link && (readOnly || settleUntil > Date.now())) {
      event.preventDefault();
      return;
    }
    var button = event.target.closest ? event.target.closest("[data-held]") : null;
    if (!button) {
      return;
    }
    refresh();
    var held = split().held;
    var keys = held.map(function (e) { return e.key; });
    if (button.getAttribute("data-held") === "send") {
      entries.forEach(function (e) {
        if (keys.indexOf(e.key) !== -1) {
          e.adopted = true;
        }
      });
    } else {
      entries = entries.filter(function (e) { return keys.indexOf(e.key) === -1; });
      setNotes([say(held.length === 1 ? "held-discarded-one" : "held-discarded-other", { count: held.length })]);
    }
    saveQueue();
    drawn = null;
    render();
    pump();
  });

  // The queue emptied without an answer to show (the last entry was withdrawn): draw the
  // server's board as it was.
  function redrawServerBoard() {
    if (window.htmx && live()) {
      window.htmx.ajax("GET", window.location.pathname, { target: "#live", swap: "innerHTML" });
    }
  }

  // Polls must not draw the server's board over waiting taps: they pause until the queue
  // is empty (its last answer brings the server's board).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.id === "live" && (split().ready.length || sending)) {
      event.preventDefault();
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.id === "live") {
      var xhr = event.detail.xhr;
      var ok = !!xhr && ((xhr.status >= 200 && xhr.status < 300) || xhr.status === 304);
      if (ok) {
        failures = 0;
      }
      emit("brag:contact", { ok: ok });
      renderStatus();
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "live") {
      var state = readIsland(target);
      if (state && state.user && user && state.user.id !== user.id) {
        sessionEnded(); // another login on this browser since: its entries are not ours
      }
      adoptServerState(state);
      drawn = server;
      pageBoard = server;
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
    failures = 0;
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

  // Start: the newest board this tablet has seen, the page's or the one kept from the last
  // answer (this page may be the service worker's or the browser's copy, from long before),
  // drawn afresh so every tile carries a key never sent.
  var island = readIsland(document);
  var kept = load(BOARD_KEY);
  var keptCopy = document.documentElement.hasAttribute("data-kept-copy");
  user = island ? island.user || null : null;
  if (keptCopy) {
    var session = null;
    try {
      session = window.localStorage.getItem(SESSION_KEY);
    } catch (error) {
      session = null;
    }
    // A copy kept for a login that has ended (or another host's): shown, never tapped.
    readOnly = document.documentElement.hasAttribute("data-kept-foreign") ||
      !user || session === null || session !== String(user.id);
  }
  server = logic.chooseBoard(island, kept);
  if (server && server === island && !keptCopy) {
    adoptServerState(island);
  }
  drawn = null; // drawn afresh all the same: the page's keys may have been sent already
  pageBoard = island;
  render();
  if (keptCopy) {
    failures = 1;
    emit("brag:contact", { ok: false, at: server && server.seen_at ? server.seen_at : undefined });
    renderStatus();
  }
  pump();
})();
