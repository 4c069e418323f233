// Drawing: the predicted board over the page's, in the same places (tiles, heading, count,
// Undo, the result card), the queue's status line, and its notes. The tiles and the result
// card are clones of the server's own markup (<template>s in _tap_queue.html), filled in.
import { live, logic, nightNow, say, settling, state, status, userId, uuid } from "./state.js";
import { queue, split } from "./store.js";

// A control that takes the place of the one just pressed ignores presses this long: the
// second tap of a double tap must not land on it.
const SETTLE_MS = 1000;
const settleTimers = {};

function el(tag, attrs, children) {
  const node = document.createElement(tag);
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

// Every {name} in the node's text and attributes, in one pass: a value is never read again
// for placeholders of its own (a player may be called "{number}").
function fill(node, values) {
  const put = function (s) {
    return s.replace(/\{(\w+)\}/g, function (whole, key) {
      return Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole;
    });
  };
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let n = node; n; n = walker.nextNode()) {
    if (n.nodeType === Node.TEXT_NODE) {
      n.nodeValue = put(n.nodeValue);
    } else {
      Array.prototype.forEach.call(n.attributes, function (a) {
        a.value = put(a.value);
      });
    }
  }
  return node;
}

// A copy of the server's markup for one part of the board, its placeholders filled in.
function part(id, values) {
  return fill(document.getElementById(id).content.firstElementChild.cloneNode(true), values);
}

// Whether the server gave this player's name a tile's smaller type (its long_word filter).
function longName(player) {
  const seats = state.server.seats.concat(state.server.result ? state.server.result.seats : []);
  return seats.some(function (s) { return s.player === player && s.long; });
}

function tile(seat, p) {
  let li;
  if (seat.place === null) {
    const target = logic.tapTarget(p);
    // A fresh key on every tile drawn: a key once sent is never offered again.
    li = part("queue-tile-standing", {
      name: seat.name, player: seat.player, match: target.match_id || p.match, key: uuid(),
    });
    if (!target.match_id) {
      li.querySelector("input[name=match]").name = "number";
    }
  } else {
    li = part(seat.pending ? "queue-tile-pending" : "queue-tile-out", {
      name: seat.name, player: seat.player, place: state.server.places[String(seat.place)],
    });
  }
  li.classList.toggle("tile-long", longName(seat.player));
  return li;
}

// The result card drawn from data: a predicted crowning (pending), or the newest board's
// own when the page on screen is older than it. The template is the pending card.
function card(result, pending) {
  const server = state.server;
  const winner = result.seats.filter(function (s) { return s.place === 1; })[0];
  const section = part("queue-card", { name: winner.name, number: result.number });
  section.id = pending ? "result-card-pending" : "result-card-kept";
  if (!pending) {
    section.classList.remove("is-pending");
    section.querySelector(".result-pending").remove();
  }
  const places = section.querySelector(".result-places");
  if (places) {
    result.seats.forEach(function (s) {
      places.appendChild(part("queue-card-place", {
        place: s.place, label: server.places[String(s.place)], name: s.name,
        points: server.points[String(s.place)],
      }));
    });
  }
  const out = section.querySelector(".result-out");
  if (out) {
    result.seats.filter(function (s) { return s.place !== 1; }).forEach(function (s, i) {
      if (i) {
        out.appendChild(document.createTextNode(", "));
      }
      out.appendChild(part("queue-card-out-name", { name: s.name }));
    });
  }
  return section;
}

function undoButton(p) {
  const top = p.stack[p.stack.length - 1];
  if (!top) {
    return null;
  }
  const label = say(top.crowned ? "undo-reopens" : "undo-label", { name: top.name, number: top.number });
  if (top.dropsRoster) {
    // The server's own Undo here is a link to its confirmation (the next match's new roster
    // would go too): the first press opens it, as on the page without this script.
    return el("a", { class: "button button-undo", href: status.getAttribute("data-undo-url") }, [
      el("span", { text: label }),
    ]);
  }
  return el("form", { class: "undo-form", method: "post", action: status.getAttribute("data-undo-url") }, [
    el("input", { type: "hidden", name: "tap_key", value: top.key }),
    el("button", { type: "submit", class: "button button-undo", text: label }),
  ]);
}

// Draw the predicted board over the page's, in the same places: tiles, heading, count,
// Undo and the result card. Nothing is drawn while the server's own rendering of the
// newest board is on screen and nothing waits.
export function render() {
  const server = state.server;
  renderStatus();
  renderNotes();
  if (!server || !server.match) {
    settle();
    return;
  }
  const board = live();
  const tiles = board && board.querySelector("#tiles");
  if (!tiles) {
    return;
  }
  const ready = split().ready;
  if (!ready.length && server === state.drawn) {
    settle();
    return;
  }
  const p = logic.predict(server, ready);
  state.drawn = null;
  const fresh = document.createDocumentFragment();
  p.seats.forEach(function (seat) {
    fresh.appendChild(tile(seat, p));
  });
  tiles.replaceChildren(fresh);
  const heading = board.querySelector("#match-heading");
  if (heading) {
    heading.textContent = say("match-label", { number: p.match });
  }
  const dealer = board.querySelector(".host-board .dealer");
  if (dealer) {
    const same = p.match === server.match && p.dealer;
    dealer.style.visibility = same ? "" : "hidden";
    const who = dealer.querySelector("strong");
    if (same && who) {
      who.textContent = p.dealer;
    }
  }
  const count = board.querySelector("#standing-heading");
  if (count) {
    const n = logic.standingCount(p.seats);
    count.textContent = say(n === 1 ? "standing-one" : "standing-other").replace(/\d+/, String(n));
  }
  const slot = board.querySelector(".undo-slot");
  if (slot) {
    const undo = undoButton(p);
    slot.replaceChildren.apply(slot, undo ? [undo] : []);
  }
  const roster = board.querySelector(".roster-link");
  if (roster) {
    roster.style.visibility = p.match === server.match && !ready.length ? "" : "hidden";
  }
  const side = board.querySelector("#board-side");
  if (side) {
    side.querySelectorAll("#result-card-pending, #result-card-kept").forEach(function (old) {
      old.remove();
    });
    const pageCard = side.querySelector("#result-card");
    const untouched = logic.standingCount(p.seats) === p.seats.length;
    const result = p.resultPending ? p.result : server.result;
    const shown = untouched && result ? result : null;
    const pageShowsIt = pageCard && shown && !p.resultPending &&
      pageCard.getAttribute("data-result") === server.table + "-" + shown.number;
    if (pageCard) {
      pageCard.hidden = pageCard.hidden || !pageShowsIt;
    }
    if (shown && !pageShowsIt) {
      // Where the page's own card goes: above tonight's totals.
      side.insertBefore(card(shown, p.resultPending), side.querySelector(":scope > .tonight"));
    }
    if (ready.length || server !== state.pageBoard) {
      side.querySelectorAll(".messages").forEach(function (m) {
        m.hidden = true; // the server's last sentence is about a board that is not the one shown
      });
    }
  }
  settle();
}

// Hold the controls that just took the place of the pressed one ("tiles" after a crowning,
// "undo" after an undo): disabled (so assistive technology, scripts and the eye all see it)
// until the settle time is over. Only those: every other control takes presses at once.
export function startSettle(controls) {
  const until = Date.now() + SETTLE_MS;
  (controls || []).forEach(function (what) {
    state.settleUntil[what] = until;
    window.clearTimeout(settleTimers[what]);
    settleTimers[what] = window.setTimeout(function () {
      state.settleUntil[what] = 0;
      markSettling();
      settle(true);
    }, SETTLE_MS);
  });
  markSettling();
  settle();
}

// The page says while the tiles settle (live.js: the crowning's second touch does not hide
// the result card it brought).
function markSettling() {
  if (settling("tiles")) {
    document.documentElement.setAttribute("data-settling", "");
  } else {
    document.documentElement.removeAttribute("data-settling");
  }
}

const CONTROLS = {
  tiles: "#tiles .tap-form button",
  undo: ".undo-slot button, .undo-slot a.button",
};

// While settling (or on another login's kept page) those controls are held; when the settle
// time ends, they are released, whichever rendering put them there (a poll may have swapped
// in new buttons meanwhile, and htmx's settling copies classes across).
function settle(release) {
  const board = live();
  if (!board) {
    return;
  }
  Object.keys(CONTROLS).forEach(function (what) {
    const holding = settling(what) || state.readOnly;
    if (!holding && !release) {
      return;
    }
    board.querySelectorAll(CONTROLS[what]).forEach(function (b) {
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
  });
}

export function renderStatus() {
  const parts = [];
  let cls = "queue-status";
  const online = navigator.onLine !== false && state.failures === 0;
  const waiting = queue.entries.length;
  if (waiting) {
    parts.push(waiting === 1 ? say("waiting-one") : say("waiting-other", { count: waiting }));
    cls += " is-waiting";
  } else {
    parts.push(say("all-sent"));
  }
  if (state.readOnly) {
    parts.push(say("read-only"));
  } else if (state.loginNeeded) {
    cls += " is-login";
  } else if (!online) {
    parts.push(say("offline"));
    cls += " is-offline";
  }
  if (queue.unsaved && waiting) {
    parts.push(say("unsaved"));
    cls += " is-unsaved";
  }
  if (!window.isSecureContext) {
    parts.push(say("insecure"));
  }
  status.querySelector(".queue-text").textContent = parts.join(" · ");
  status.className = cls;
  status.hidden = false;
}

// Beside the tiles; on a board without them (the table closed) above the board, so a
// tap refused there is still explained by name.
function notesBox() {
  const side = document.getElementById("board-side");
  const board = live();
  let outside = board && board.parentNode ? board.parentNode.querySelector(":scope > .queue-notes") : null;
  if (side) {
    if (outside) {
      outside.remove();
    }
    let box = side.querySelector(".queue-notes");
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

// Entries held for the host's say: queued by another host on this tablet, or on an earlier
// night. Send them (under this login; the audit trail names who queued them) or discard.
function heldNote(held) {
  const first = logic.holdReason(held[0], userId(), nightNow());
  const count = held.filter(function (e) { return e.kind === "tap"; }).length || held.length;
  let sentence;
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
  const box = notesBox();
  if (!box) {
    return;
  }
  const entries = queue.entries;
  const items = queue.notes.map(function (n) {
    return el("p", { class: "queue-note", "data-level": "error", text: n });
  });
  if (state.loginNeeded && entries.length) {
    const login = el("p", { class: "queue-note queue-login", "data-level": "error" }, [
      document.createTextNode(
        (entries.length === 1 ? say("login-one") : say("login-other", { count: entries.length })) + " "
      ),
      el("a", { href: status.getAttribute("data-login-url"), text: say("login-link") }),
    ]);
    items.push(login);
  }
  const held = state.readOnly || state.loginNeeded ? [] : split().held;
  if (held.length) {
    items.push(heldNote(held));
  }
  box.replaceChildren.apply(box, items);
}
