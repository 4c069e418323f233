// Brag Tables: the host's tap queue. Every tap and undo is kept in this browser's storage
// first (it survives a reload, a crash, the tablet sleeping), shown at once on the board,
// and sent to the server in order, one at a time, with its idempotency key, retried with
// backoff until the server answers. While entries wait, the board shown is the server's
// last board plus a prediction of the waiting entries: the tapped player greys out as
// "pending", the tap that leaves one standing predicts the crowning and the next match, and
// taps in that next match name it by number (the server applies them once the crowning
// has opened it). A refused entry is dropped and explained, naming the player. Without
// this script the tiles are plain forms (htmx or a full page post).
(function () {
  "use strict";
  var status = document.getElementById("queue-status");
  if (!status) {
    return;
  }
  var text = status.querySelector(".queue-text");
  var tableId = status.getAttribute("data-table");
  var QUEUE_KEY = "brag.queue." + tableId;
  var BOARD_KEY = "brag.board." + tableId;
  var BACKOFF = [1000, 2000, 4000, 8000, 15000];
  var memory = {}; // when storage is unavailable (private browsing): the page's memory
  var entries = load(QUEUE_KEY) || [];
  var server = null; // the server's board as data (the island in the last board shown)
  var drawn = null; // the board whose tiles are on screen as the server rendered them
  var sending = false;
  var failures = 0;
  var timer = null;
  var loginNeeded = false;
  var notes = []; // sentences explaining refused entries, newest last
  var unsaved = false; // the queue could not be written to storage: a reload would lose it

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
    var stored = load(QUEUE_KEY);
    if (!stored) {
      stored = [];
    }
    var mine = {};
    entries.forEach(function (e) {
      mine[e.key] = e;
    });
    entries = stored.map(function (e) {
      return mine[e.key] && mine[e.key].sending ? mine[e.key] : e;
    });
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

  // The newest board this tablet has seen: the page's island, or (after a reload from the
  // service worker's copy of an older page) the one kept from the last answer.
  function adoptServerState(state) {
    if (!state) {
      return;
    }
    server = state;
    store(BOARD_KEY, state);
  }

  function clone(x) {
    return JSON.parse(JSON.stringify(x));
  }

  function standingCount(seats) {
    return seats.filter(function (s) { return s.place === null; }).length;
  }

  // The board shown: the server's board with every waiting entry applied in order.
  function predict() {
    var p = {
      match: server.match,
      dealer: server.dealer,
      seats: clone(server.seats),
      result: server.result ? clone(server.result) : null,
      resultPending: false,
      stack: [],
      predicted: false,
    };
    var last = server.last_tap;
    if (last) {
      var before = null;
      if (last.crowned && server.result) {
        before = server.result.seats.map(function (s) {
          return { player: s.player, name: s.name, place: s.place !== null && s.place <= 2 ? null : s.place };
        });
      }
      p.stack.push({ key: last.key, player: last.player, name: last.name, number: last.number, crowned: last.crowned, before: before });
    }
    entries.forEach(function (e) {
      if (e.kind === "tap") {
        if (e.number !== p.match) {
          return; // already applied (the server moved on) or not predictable: the server decides
        }
        var seat = p.seats.filter(function (s) { return s.player === e.player; })[0];
        if (!seat || seat.place !== null) {
          return;
        }
        var before = clone(p.seats);
        seat.place = standingCount(p.seats);
        seat.pending = true;
        var item = { key: e.key, player: e.player, name: e.name, number: e.number, crowned: false, before: before, result: p.result };
        if (seat.place === 2) {
          var winner = p.seats.filter(function (s) { return s.place === null; })[0];
          winner.place = 1;
          winner.pending = true;
          p.result = {
            number: p.match,
            seats: p.seats.slice().sort(function (a, b) { return a.place - b.place; }),
          };
          p.resultPending = true;
          item.crowned = true;
          p.match += 1;
          p.dealer = null;
          p.seats = p.seats.map(function (s) {
            return { player: s.player, name: s.name, place: null };
          });
        }
        p.stack.push(item);
        p.predicted = true;
      } else if (e.kind === "undo") {
        var top = p.stack[p.stack.length - 1];
        if (!top || top.key !== e.tap_key) {
          return;
        }
        p.stack.pop();
        p.predicted = true;
        if (top.crowned) {
          p.match = top.number;
          p.dealer = null;
          p.result = null;
          p.resultPending = false;
        }
        if (top.before) {
          p.seats = clone(top.before);
        } else {
          p.seats.forEach(function (s) {
            if (s.player === top.player) {
              s.place = null;
            }
          });
        }
        p.seats.forEach(function (s) {
          if (s.player === top.player) {
            s.pending = true; // back in, until the server says so
          }
        });
      }
    });
    return p;
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
      var form = el("form", { class: "tap-form", method: "post", action: status.getAttribute("data-tap-url") }, [
        el("input", { type: "hidden", name: "number", value: p.match }),
        el("input", { type: "hidden", name: "player", value: seat.player }),
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

  function pendingCard(p) {
    var r = p.result;
    var winner = r.seats.filter(function (s) { return s.place === 1; })[0];
    var heading = el("h2", {}, [
      el("span", { class: "crown", "aria-hidden": "true", text: "♛" }),
      document.createTextNode(" " + say("wins-label", { name: winner.name, number: r.number }) + " "),
      el("span", { class: "result-pending", text: "(" + say("pending") + ")" }),
    ]);
    var body;
    if (server.ranked) {
      body = el("ol", { class: "result-places" }, r.seats.map(function (s) {
        return el("li", { class: "place-" + s.place }, [
          el("span", { class: "result-place", text: server.places[String(s.place)] }),
          document.createTextNode(" "),
          el("span", { class: "result-name", text: s.name }),
          document.createTextNode(" "),
          el("span", { class: "result-points", text: server.points[String(s.place)] }),
        ]);
      }));
    } else {
      var out = r.seats.filter(function (s) { return s.place !== 1; }).map(function (s) { return s.name; });
      body = el("p", { class: "result-out", text: out.join(", ") });
    }
    return el("section", { class: "result-card is-pending", id: "result-card-pending" }, [
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

  // Draw the predicted board over the server's, in the same places: tiles, heading, count,
  // Undo and the pending result card. Nothing is drawn while nothing waits.
  function render() {
    renderStatus();
    renderNotes();
    if (!server || !server.match) {
      return;
    }
    var board = live();
    var tiles = board && board.querySelector("#tiles");
    if (!tiles) {
      return;
    }
    var p = predict();
    if (!entries.length && server === drawn) {
      return; // the server's own rendering is on screen
    }
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
      dealer.style.visibility = p.match === server.match ? "" : "hidden";
    }
    var count = board.querySelector("#standing-heading");
    if (count) {
      var n = standingCount(p.seats);
      count.textContent = say(n === 1 ? "standing-one" : "standing-other").replace(/\d+/, String(n));
    }
    var slot = board.querySelector(".undo-slot");
    if (slot) {
      var undo = undoButton(p);
      slot.replaceChildren.apply(slot, undo ? [undo] : []);
    }
    var roster = board.querySelector(".roster-link");
    if (roster) {
      roster.style.visibility = p.match === server.match ? "" : "hidden";
    }
    var side = board.querySelector("#board-side");
    if (side) {
      var old = side.querySelector("#result-card-pending");
      if (old) {
        old.remove();
      }
      var serverCard = side.querySelector("#result-card");
      var showPending = p.resultPending && p.seats.every(function (s) { return s.place === null; });
      if (serverCard) {
        serverCard.hidden = showPending || standingCount(p.seats) !== p.seats.length || serverCard.hidden;
      }
      if (showPending) {
        side.appendChild(pendingCard(p));
      }
      side.querySelectorAll(".messages").forEach(function (m) {
        m.hidden = true; // the server's last sentence is about a board that is not the one shown
      });
    }
  }

  function renderStatus() {
    var parts = [];
    var cls = "queue-status";
    var online = navigator.onLine !== false && failures === 0;
    if (entries.length) {
      parts.push(entries.length === 1 ? say("waiting-one") : say("waiting-other", { count: entries.length }));
      cls += " is-waiting";
    } else {
      parts.push(say("all-sent"));
    }
    if (loginNeeded) {
      cls += " is-login";
    } else if (!online) {
      parts.push(say("offline"));
      cls += " is-offline";
    } else {
      parts.push(say("online"));
    }
    if (unsaved && entries.length) {
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

  function notesBox() {
    var side = document.getElementById("board-side");
    if (!side) {
      return null;
    }
    var box = side.querySelector(".queue-notes");
    if (!box) {
      box = el("div", { class: "queue-notes", role: "alert" });
      side.insertBefore(box, side.firstChild);
    }
    return box;
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
    if (code === "match_discarded") {
      key = "match-not-open";
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
    render();
    schedule(delay);
  }

  // Send the oldest entry; on its answer, drop it (recorded, already recorded, or refused and
  // explained) and go on with the next. Network trouble keeps it and tries again later.
  function pump() {
    window.clearTimeout(timer);
    if (sending || loginNeeded) {
      return;
    }
    refresh();
    if (!entries.length) {
      return;
    }
    if (navigator.onLine === false) {
      // No network at all: nothing can leave, so nothing is marked sent (Undo can still
      // simply withdraw it). The online event sends it; this is a safety net.
      render();
      schedule(BACKOFF[0]);
      return;
    }
    var entry = entries[0];
    var body = new FormData();
    var url;
    if (entry.kind === "tap") {
      url = status.getAttribute("data-tap-url");
      body.append("number", entry.number);
      body.append("player", entry.player);
      body.append("key", entry.key);
    } else {
      url = status.getAttribute("data-undo-url");
      body.append("tap_key", entry.tap_key);
    }
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

  function answered(entry, response, html) {
    var loginUrl = status.getAttribute("data-login-url").split("?")[0];
    var toLogin = response.redirected && response.url.indexOf(loginUrl) !== -1;
    if (response.headers.get("HX-Redirect") || toLogin || response.status === 401 || response.status === 403) {
      // Logged out elsewhere, or the session (and its CSRF token) expired: keep every
      // entry and ask the host to log in; the table page sends them after that.
      loginNeeded = true;
      failures = 0;
      render();
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
    if (outcome === "refused") {
      var holder = document.createElement("div");
      holder.innerHTML = html;
      var message = holder.querySelector(".message-error");
      var reason = message ? message.textContent.trim() : "";
      notes.push(refusalSentence(entry, response.headers.get("X-Tap-Code"), reason));
    } else if (!outcome) {
      notes.push(refusalSentence(entry, "", String(response.status)));
    }
    notes = notes.slice(-3);
    var dropped = entry.kind === "tap" && outcome !== "applied" && outcome !== "replayed";
    refresh();
    entries = entries.filter(function (e) {
      // A refused tap was never recorded: an undo of it waiting behind it has nothing to
      // take back (its tap's sentence already says why), so it goes with it.
      return e.key !== entry.key && !(dropped && e.kind === "undo" && e.tap_key === entry.key);
    });
    saveQueue();
    if (response.ok) {
      var holder2 = document.createElement("div");
      holder2.innerHTML = html;
      adoptServerState(readIsland(holder2));
      swapBoard(html);
      var tag = response.headers.get("X-Board-ETag");
      if (tag !== null) {
        document.dispatchEvent(new CustomEvent("brag:board-tag", { detail: { tag: tag } }));
      }
    }
    render();
    if (entries.length) {
      schedule(0);
    }
  }

  function enqueue(entry) {
    notes = []; // an explanation stays on screen until the host's next tap
    // A poll already on its way may carry a board from before this entry's answer: it
    // would land after that answer and draw the old board over it. Polls resume when the
    // queue is empty.
    if (window.htmx && live()) {
      window.htmx.trigger(live(), "htmx:abort");
    }
    entry.at = new Date().toISOString();
    refresh();
    entries.push(entry);
    saveQueue();
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
      enqueue({ kind: "tap", key: key, number: p.match, player: player, name: seat.name });
      return;
    }
    var last = entries[entries.length - 1];
    if (last && last.kind === "tap" && !last.sending && !last.sent) {
      entries.pop(); // never sent: simply withdrawn
      saveQueue();
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
    enqueue({ kind: "undo", key: uuid(), tap_key: top.key, player: top.player, name: top.name, number: top.number });
  }, true);

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
    if (elt && elt.id === "live" && (entries.length || sending)) {
      event.preventDefault();
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "live") {
      adoptServerState(readIsland(target));
      drawn = server;
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
  window.addEventListener("offline", render);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      pump();
    }
  });

  // Start: the page's board, unless a newer one was kept (this page may be the service
  // worker's copy, older than the last answer this tablet had).
  var island = readIsland(document);
  var kept = load(BOARD_KEY);
  if (island && kept && kept.version > island.version) {
    server = kept;
  } else {
    adoptServerState(island);
  }
  if (island && entries.length === 0) {
    server = island;
  }
  drawn = island;
  render();
  pump();

  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {
      // no offline reload; the queue works all the same
    });
  }
})();
