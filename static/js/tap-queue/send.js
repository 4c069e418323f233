// Sending: the entries go to the server in order, one at a time, each with its idempotency
// key, retried with backoff until the server answers. An answer drops its entry (recorded,
// already recorded, or refused and explained by name) and its board is shown.
import { emit, live, logic, readIsland, say, state, status, userId } from "./state.js";
import {
  adoptServerState, forgetSession, predict, queue, refresh, saveQueue, setNotes, split,
} from "./store.js";
import { render, startSettle } from "./draw.js";

const BACKOFF = [1000, 2000, 4000, 8000, 15000];
let timer = null;

// What the server says happened instead of a refused tap (X-Tap-Instead, JSON): the place
// the player already had in that match, and who won it when it was filed. Null if none.
function insteadOf(response) {
  try {
    return JSON.parse(response.headers.get("X-Tap-Instead") || "null");
  } catch (error) {
    return null;
  }
}

function refusalSentence(entry, code, reason, instead) {
  const values = { name: entry.name, number: entry.number, reason: reason || "" };
  const key = code ? code.replace(/_/g, "-") : "";
  if (entry.kind === "undo") {
    return status.hasAttribute("data-undo-refused-" + key)
      ? say("undo-refused-" + key, values)
      : say("undo-refused", values);
  }
  const variant = logic.insteadVariant(code, instead);
  if (variant) {
    values.winner = instead.winner || "";
    values.place = instead.place ? state.server.places[String(instead.place)] || String(instead.place) : "";
    return say("refused-" + key + "-" + variant, values);
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
  const board = live();
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
  const delay = BACKOFF[Math.min(state.failures, BACKOFF.length - 1)];
  state.failures += 1;
  emit("brag:contact", { ok: false });
  render();
  schedule(delay);
}

// Send the oldest entry that may be sent; on its answer, drop it (recorded, already
// recorded, or refused and explained) and go on with the next. Network trouble keeps it
// and tries again later. Held entries wait for the host's say.
export function pump() {
  window.clearTimeout(timer);
  if (state.sending || state.loginNeeded || state.readOnly) {
    return;
  }
  refresh();
  const ready = split().ready;
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
  const entry = ready[0];
  // Urlencoded, as a form posts it: the server refuses multipart bodies (FormData's).
  const body = new URLSearchParams();
  logic.postFields(entry, userId()).forEach(function (field) {
    body.append(field[0], field[1]);
  });
  const url = status.getAttribute(entry.kind === "tap" ? "data-tap-url" : "data-undo-url");
  state.sending = true;
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
      state.sending = false;
      entry.sending = false;
      answered(entry, response, html);
    });
  }, function () {
    state.sending = false;
    entry.sending = false;
    retryLater();
  });
}

// The server says this login is gone: keep every entry, ask the host to log in, and let
// the page shell drop its kept copies of host pages.
export function sessionEnded() {
  state.loginNeeded = true;
  state.failures = 0;
  forgetSession();
  emit("brag:session-ended");
  render();
}

function answered(entry, response, html) {
  const loginUrl = status.getAttribute("data-login-url").split("?")[0];
  const toLogin = response.redirected && response.url.indexOf(loginUrl) !== -1;
  const outcome = response.headers.get("X-Tap-Outcome");
  // A 403 that names an outcome is the app's own refusal (a table of a venue this host does
  // not host at); any other 403 is an expired session or CSRF token.
  if (response.headers.get("HX-Redirect") || toLogin || response.status === 401 ||
      (response.status === 403 && !outcome)) {
    // Logged out elsewhere, or the session (and its CSRF token) expired.
    sessionEnded();
    return;
  }
  const clientError = response.status >= 400 && response.status < 500 && response.status !== 429;
  if (!outcome && !clientError) {
    // A server error, or an answer that is not the app's (a proxy's or a captive portal's
    // page): the entry may not have arrived, so it is sent again, with the same key.
    retryLater();
    return;
  }
  state.failures = 0;
  emit("brag:contact", { ok: true });
  if (outcome === "refused") {
    const holder = document.createElement("div");
    holder.innerHTML = html;
    const message = holder.querySelector(".message-error");
    const reason = message ? message.textContent.trim() : "";
    const code = response.headers.get("X-Tap-Code");
    setNotes(queue.notes.concat([refusalSentence(entry, code, reason, insteadOf(response))]));
  } else if (!outcome) {
    setNotes(queue.notes.concat([refusalSentence(entry, "", String(response.status))]));
  }
  refresh();
  queue.entries = logic.afterAnswer(queue.entries, entry, outcome);
  saveQueue();
  if (response.ok) {
    const holder = document.createElement("div");
    holder.innerHTML = html;
    adoptServerState(readIsland(holder));
    if (outcome === "refused") {
      // The queue's note above says why, by name: the server's own red box would repeat it.
      holder.querySelectorAll(".messages .message-error").forEach(function (box) {
        const list = box.parentNode;
        box.remove();
        if (!list.children.length) {
          list.remove();
        }
      });
      html = holder.innerHTML;
    }
    swapBoard(html);
    const tag = response.headers.get("X-Board-ETag");
    if (tag !== null) {
      emit("brag:board-tag", { tag: tag });
    }
  }
  render();
  if (queue.entries.length) {
    schedule(0);
  }
}

// A new entry: stored first, shown at once, then sent.
export function enqueue(entry, before) {
  setNotes([]); // an explanation stays on screen until the host's next tap
  // A poll already on its way may carry a board from before this entry's answer: it
  // would land after that answer and draw the old board over it. Polls resume when the
  // queue is empty.
  if (window.htmx && live()) {
    window.htmx.trigger(live(), "htmx:abort");
  }
  entry.at = new Date().toISOString();
  entry.by = state.user;
  refresh();
  queue.entries.push(entry);
  saveQueue();
  startSettle(logic.settles(entry.kind, before, predict()));
  render();
  pump();
}

// The queue emptied without an answer to show (the last entry was withdrawn): draw the
// server's board as it was.
export function redrawServerBoard() {
  if (window.htmx && live()) {
    window.htmx.ajax("GET", window.location.pathname, { target: "#live", swap: "innerHTML" });
  }
}
