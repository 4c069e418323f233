// The tap queue's shared state and its page: the status element (its data-* attributes carry
// every sentence, translated), the board's state as data, the viewer, and what the queue
// knows of the network. store.js, draw.js and send.js read and change this one object.
import "../tap-logic.js"; // a classic script: it sets window.BragTapLogic as it runs

export const logic = window.BragTapLogic;
export const status = document.getElementById("queue-status");

export const state = {
  server: null, // the newest board seen, as data
  drawn: null, // the board whose tiles are on screen as the server rendered them
  // The board the page's own message and result card speak of: the page's at start, then
  // each swapped answer's or poll's. They are hidden while the board shown is another.
  pageBoard: null,
  sending: false,
  failures: 0,
  loginNeeded: false,
  user: null, // who is logged in on this page: {id, name}
  readOnly: false, // a kept copy of another login's page: shown, not tapped
  // Until when each kind of control that appeared under a finger ignores presses (ms).
  settleUntil: { tiles: 0, undo: 0 },
};

export function say(name, values) {
  let s = status.getAttribute("data-" + name) || "";
  Object.keys(values || {}).forEach(function (key) {
    s = s.split("{" + key + "}").join(values[key]);
  });
  return s;
}

export function emit(name, detail) {
  document.dispatchEvent(new CustomEvent(name, { detail: detail || {} }));
}

export function live() {
  return document.getElementById("live");
}

export function readIsland(root) {
  const island = (root || document).querySelector("#board-state");
  if (!island) {
    return null;
  }
  try {
    return JSON.parse(island.textContent);
  } catch (error) {
    return null;
  }
}

export function uuid() {
  // crypto.randomUUID needs a secure context; a LAN tablet on plain http has only this.
  const b = new Uint8Array(16);
  window.crypto.getRandomValues(b);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.prototype.map.call(b, function (x) {
    return (x + 0x100).toString(16).slice(1);
  }).join("");
  return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
}

export function userId() {
  return state.user ? state.user.id : null;
}

export function nightNow() {
  return state.server && state.server.night ? logic.nightStart(state.server.night, Date.now()) : null;
}

// Whether that kind of control ("tiles" or "undo") is still settling.
export function settling(what) {
  return state.settleUntil[what] > Date.now();
}
