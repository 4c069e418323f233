// The queue in this browser's storage: every tap and undo is kept here first, so it survives
// a reload, a crash, the tablet sleeping. Also kept: the newest board seen (a reload may get
// an older page from a cache) and the explanations of refused entries (a close reloads).
import { emit, logic, nightNow, state, status, userId } from "./state.js";

const tableId = status ? status.getAttribute("data-table") : "";
export const QUEUE_KEY = "brag.queue." + tableId;
const BOARD_KEY = "brag.board." + tableId;
const NOTES_KEY = "brag.notes." + tableId;
const SESSION_KEY = "brag.session"; // app.js: the user id of the last page the network served
const memory = {}; // when storage is unavailable (private browsing): the page's memory

export function load(key) {
  try {
    const raw = window.localStorage.getItem(key);
    return raw ? JSON.parse(raw) : null;
  } catch (error) {
    return memory[key] ? JSON.parse(memory[key]) : null;
  }
}

export const queue = {
  entries: load(QUEUE_KEY) || [],
  notes: load(NOTES_KEY) || [], // sentences explaining refused entries, newest last
  unsaved: false, // the queue could not be written to storage: a reload would lose it
};

function keep(key, value) {
  const raw = JSON.stringify(value);
  try {
    window.localStorage.setItem(key, raw);
    if (key === QUEUE_KEY) {
      queue.unsaved = false;
    }
  } catch (error) {
    // Storage full, or refused (private browsing): the page's memory keeps it, and the
    // host is told a reload would lose waiting taps. An older copy must not come back
    // on the next load and be sent again.
    memory[key] = raw;
    if (key === QUEUE_KEY) {
      queue.unsaved = true;
      try {
        window.localStorage.removeItem(key);
      } catch (ignored) {
        // nothing more to do: storage is unusable
      }
    }
  }
}

export function saveQueue() {
  keep(QUEUE_KEY, queue.entries.map(function (e) {
    const copy = {};
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
export function refresh() {
  if (queue.unsaved) {
    return; // storage is unusable: this tab's memory is the queue
  }
  queue.entries = logic.mergeQueue(load(QUEUE_KEY) || [], queue.entries);
}

// Every sentence is kept until the host's next tap: a queue drained after an offline spell
// names each of its refused taps, however many.
export function setNotes(list) {
  queue.notes = list.slice();
  keep(NOTES_KEY, queue.notes);
}

// A board the server just sent (an answer or a poll) is the newest there is: it is shown,
// and kept for a reload that gets an older page from a cache.
export function adoptServerState(board) {
  if (!board) {
    return;
  }
  const changed = !state.server || state.server.version !== board.version;
  board.seen_at = Date.now();
  state.server = board;
  keep(BOARD_KEY, board);
  if (changed) {
    emit("brag:board-changed", { version: board.version });
  }
}

export function keptBoard() {
  return load(BOARD_KEY);
}

// The login the network last served a page to (app.js keeps it), or null if unknown.
export function sessionUser() {
  try {
    return window.localStorage.getItem(SESSION_KEY);
  } catch (error) {
    return null;
  }
}

export function forgetSession() {
  try {
    window.localStorage.setItem(SESSION_KEY, "");
  } catch (error) {
    // storage unusable: the kept pages go all the same
  }
}

// The entries that may be sent now, and those held for the host's say.
export function split() {
  return logic.split(queue.entries, userId(), nightNow());
}

export function predict() {
  return logic.predict(state.server, split().ready);
}
