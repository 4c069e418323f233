// Brag Tables: the tap queue's pure logic, with no page, storage or network in it, so it runs
// (and is tested) under Node's own test runner as well as on the tablet (tests/js/).
// tap-queue.js does the rest: storage, drawing, sending. A board is the server's state as
// data (matches/web/tap_queue.py board_state); an entry is a tap or an undo waiting to be
// sent, in the order the host made them.
(function (root, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory();
  } else {
    root.BragTapLogic = factory();
  }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var DAY_MS = 24 * 60 * 60 * 1000;

  function clone(x) {
    return JSON.parse(JSON.stringify(x));
  }

  function standingCount(seats) {
    return seats.filter(function (s) { return s.place === null; }).length;
  }

  // Whether a waiting tap was made on the match the prediction is now on: by the match's id
  // when the tablet knew it, by the crowning it follows in a predicted match, else (an entry
  // kept by an older version of this script) by its number.
  function onMatch(entry, p) {
    if (entry.match_id) {
      return entry.match_id === p.matchId;
    }
    if (entry.after) {
      return entry.after === p.after;
    }
    return entry.number === p.match;
  }

  // The board shown: the server's board with every waiting entry applied in order. An entry
  // that does not fit (the server has moved on, or the match it names is not the one
  // predicted) changes nothing here: the server decides, and explains a refusal by name.
  function predict(server, entries) {
    var last = server.last_tap;
    var p = {
      match: server.match,
      matchId: server.match_id || null,
      // The key of the crowning that opened the match shown, when the tablet predicts it.
      after: last && last.crowned ? last.key : null,
      dealer: server.dealer,
      seats: clone(server.seats),
      result: server.result ? clone(server.result) : null,
      resultPending: false,
      stack: [],
      predicted: false,
      // A finals table plays one match: its crowning opens no next match.
      oneMatch: !!server.one_match,
    };
    if (last) {
      var before = null;
      if (last.crowned && server.result) {
        before = server.result.seats.map(function (s) {
          return { player: s.player, name: s.name, place: s.place !== null && s.place <= 2 ? null : s.place };
        });
      }
      p.stack.push({
        key: last.key, player: last.player, name: last.name, number: last.number,
        matchId: last.match_id || null, crowned: last.crowned, before: before,
        // Undoing it would also drop the next match's new roster: the server asks first,
        // on a page of its own.
        dropsRoster: !!last.drops_roster,
      });
    }
    (entries || []).forEach(function (e) {
      if (e.kind === "tap") {
        applyTap(p, e);
      } else if (e.kind === "undo") {
        applyUndo(p, e);
      }
    });
    return p;
  }

  function applyTap(p, e) {
    if (!onMatch(e, p)) {
      return;
    }
    var seat = p.seats.filter(function (s) { return s.player === e.player; })[0];
    if (!seat || seat.place !== null) {
      return;
    }
    var before = clone(p.seats);
    seat.place = standingCount(p.seats);
    seat.pending = true;
    var item = {
      key: e.key, player: e.player, name: e.name, number: p.match, matchId: p.matchId,
      crowned: false, before: before, state: { after: p.after, result: p.result },
    };
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
    }
    if (seat.place === 2 && !p.oneMatch) {
      p.match += 1;
      p.matchId = null; // opened by this crowning: its id is not known yet
      p.after = e.key;
      p.dealer = null;
      p.seats = p.seats.map(function (s) {
        return { player: s.player, name: s.name, place: null };
      });
    }
    p.stack.push(item);
    p.predicted = true;
  }

  function applyUndo(p, e) {
    var top = p.stack[p.stack.length - 1];
    if (!top || top.key !== e.tap_key) {
      return;
    }
    p.stack.pop();
    p.predicted = true;
    if (top.crowned) {
      p.match = top.number;
      p.matchId = top.matchId;
      p.after = top.state ? top.state.after : null;
      p.dealer = null;
      p.result = top.state ? top.state.result : null;
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

  // What a new tap on the predicted board names its match by: the id when the server showed
  // that match, else the crowning it follows (and the number, for the sentences).
  function tapTarget(p) {
    if (p.matchId) {
      return { match_id: p.matchId, number: p.match };
    }
    return { after: p.after, number: p.match };
  }

  // The board to start from: the page's own, or the one kept from the last answer or poll
  // when that is newer (the page may be the service worker's copy, or the browser's, from
  // long before). Versions are the table's change counter: newer is larger.
  function chooseBoard(island, kept) {
    if (!island) {
      return kept || null;
    }
    if (kept && kept.table === island.table && kept.version > island.version) {
      return kept;
    }
    return island;
  }

  // Two tabs of one table share the stored queue: the stored one is the truth, except for
  // the entry this tab is sending right now (its in-memory copy knows it is on its way).
  function mergeQueue(stored, mine) {
    var byKey = {};
    (mine || []).forEach(function (e) {
      byKey[e.key] = e;
    });
    return (stored || []).map(function (e) {
      return byKey[e.key] && byKey[e.key].sending ? byKey[e.key] : e;
    });
  }

  // The queue after the server answered `entry`: the entry goes; a refused tap takes with it
  // any undo of it still waiting (there is nothing to take back; its sentence says why).
  function afterAnswer(entries, entry, outcome) {
    var dropped = entry.kind === "tap" && outcome !== "applied" && outcome !== "replayed";
    return entries.filter(function (e) {
      return e.key !== entry.key && !(dropped && e.kind === "undo" && e.tap_key === entry.key);
    });
  }

  // The start of the night `now` falls in, from the start of a night the server named (a
  // night runs from one start to the same time the next day).
  function nightStart(serverNight, now) {
    var start = Date.parse(serverNight);
    if (isNaN(start)) {
      return null;
    }
    return start + Math.floor((now - start) / DAY_MS) * DAY_MS;
  }

  // Why a waiting entry may not be sent without the host's say, or null: it was queued by
  // another host on this tablet, or on an earlier night. An entry the host chose to send
  // (adopted) is sent; so is an entry queued before entries recorded who queued them.
  function holdReason(entry, userId, night) {
    if (entry.adopted) {
      return null;
    }
    if (entry.by && userId !== null && entry.by.id !== userId) {
      return "other-host";
    }
    if (night !== null && entry.at && Date.parse(entry.at) < night) {
      return "earlier-night";
    }
    return null;
  }

  // The waiting entries split at the first one that is held: those before it are sent; it
  // and everything after it wait for the host (the queue is sent in order, never around a
  // held entry, so an undo never overtakes its tap).
  function split(entries, userId, night) {
    for (var i = 0; i < entries.length; i += 1) {
      if (holdReason(entries[i], userId, night)) {
        return { ready: entries.slice(0, i), held: entries.slice(i) };
      }
    }
    return { ready: entries.slice(), held: [] };
  }

  // The hosts who queued the held entries, by name, for "3 taps queued by Sam".
  function queuedBy(held) {
    var names = [];
    held.forEach(function (e) {
      var name = e.by ? e.by.name : "";
      if (name && names.indexOf(name) === -1) {
        names.push(name);
      }
    });
    return names;
  }

  // The fields a waiting entry is posted with.
  function postFields(entry, userId) {
    var fields = [];
    if (entry.kind === "tap") {
      if (entry.match_id) {
        fields.push(["match", entry.match_id]);
      } else if (entry.after) {
        fields.push(["after", entry.after]);
      }
      fields.push(["number", entry.number]);
      fields.push(["player", entry.player]);
      fields.push(["key", entry.key]);
    } else {
      fields.push(["tap_key", entry.tap_key]);
    }
    if (entry.by && userId !== null && entry.by.id !== userId) {
      fields.push(["queued_by", entry.by.id]);
    }
    return fields;
  }

  // The controls a press put under the finger that made it, which must not take the second
  // touch of a double tap: a tap that crowns opens the next match's tiles where the tapped
  // tile was ("tiles"); an undo (sent or withdrawn) puts the next Undo, or none, where the
  // pressed one was ("undo"). Nothing else moves: after an undo the tiles stay where they
  // were, so a tap on one right after it is the host's next tap and is taken.
  function settles(kind, before, after) {
    if (kind === "undo") {
      return ["undo"];
    }
    return after.match !== before.match ? ["tiles"] : [];
  }

  // Which sentence names what happened instead of a refused tap, from what the server said
  // (X-Tap-Instead): "place" (already out in that place, or out in that place of a match
  // another tablet finished), "won" (the player won that match), "winner" (the match was won,
  // the player not in it); null when the server said nothing more (the plain sentence).
  function insteadVariant(code, instead) {
    if (!instead) {
      return null;
    }
    if (code === "already_out") {
      return instead.place ? "place" : null;
    }
    if (code === "match_filed") {
      if (instead.place === 1) {
        return "won";
      }
      if (instead.place) {
        return instead.winner ? "place" : null;
      }
      return instead.winner ? "winner" : null;
    }
    return null;
  }

  return {
    insteadVariant: insteadVariant,
    predict: predict,
    tapTarget: tapTarget,
    chooseBoard: chooseBoard,
    mergeQueue: mergeQueue,
    afterAnswer: afterAnswer,
    nightStart: nightStart,
    holdReason: holdReason,
    split: split,
    queuedBy: queuedBy,
    postFields: postFields,
    settles: settles,
    standingCount: standingCount,
  };
});
