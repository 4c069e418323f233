// The tap queue's pure logic (static/js/tap-logic.js) under Node's own test runner:
// `node --test tests/js/` (make test-js). No npm packages.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const logic = require("../../static/js/tap-logic.js");

const ANN = 1;
const BEN = 2;
const CARA = 3;
const DAN = 4;

function board(overrides) {
  return {
    table: 7,
    version: 10,
    match: 1,
    match_id: 101,
    dealer: "Ann",
    seats: [
      { player: ANN, name: "Ann", place: null },
      { player: BEN, name: "Ben", place: null },
      { player: CARA, name: "Cara", place: null },
    ],
    last_tap: null,
    result: null,
    night: "2026-12-01T12:00:00+00:00",
    ...overrides,
  };
}

let counter = 0;
function tap(p, player, extra) {
  counter += 1;
  const seat = p.seats.find((s) => s.player === player);
  return { kind: "tap", key: "k" + counter, player, name: seat.name, ...logic.tapTarget(p), ...extra };
}

function undo(p, extra) {
  const top = p.stack[p.stack.length - 1];
  counter += 1;
  return { kind: "undo", key: "u" + counter, tap_key: top.key, player: top.player, name: top.name, number: top.number, ...extra };
}

function places(p) {
  return Object.fromEntries(p.seats.map((s) => [s.name, s.place]));
}

test("a finals table's crowning predicts no next match: its one match stays, every place set", () => {
  const server = board({ one_match: true });
  const first = tap(logic.predict(server, []), CARA);
  const second = tap(logic.predict(server, [first]), BEN);
  const p = logic.predict(server, [first, second]);
  assert.equal(p.match, 1);
  assert.equal(p.matchId, 101);
  assert.equal(p.resultPending, true);
  assert.deepEqual(places(p), { Ann: 1, Ben: 2, Cara: 3 });
  const back = logic.predict(server, [first, second, undo(p)]);
  assert.deepEqual(places(back), { Ann: null, Ben: null, Cara: 3 });
  assert.equal(back.match, 1);
});

test("a tap in the match the server showed puts the player out in the place of those standing", () => {
  const server = board();
  const entry = tap(logic.predict(server, []), CARA);
  assert.equal(entry.match_id, 101, "a tap names the match it was made on by its id");
  const p = logic.predict(server, [entry]);
  assert.deepEqual(places(p), { Ann: null, Ben: null, Cara: 3 });
  assert.equal(p.match, 1);
  assert.equal(p.stack.at(-1).key, entry.key);
});

test("the tap that leaves one standing predicts the crowning and the next match", () => {
  const server = board();
  const first = tap(logic.predict(server, []), CARA);
  const second = tap(logic.predict(server, [first]), BEN);
  const p = logic.predict(server, [first, second]);
  assert.equal(p.match, 2);
  assert.equal(p.matchId, null, "the next match's id is not known before the server opens it");
  assert.equal(p.after, second.key, "a tap there names the crowning it follows");
  assert.equal(p.resultPending, true);
  assert.deepEqual(p.result.seats.map((s) => [s.name, s.place]), [["Ann", 1], ["Ben", 2], ["Cara", 3]]);
  assert.ok(p.seats.every((s) => s.place === null));
  const next = tap(p, ANN);
  assert.equal(next.after, second.key);
  assert.equal(next.match_id, undefined);
  assert.equal(next.number, 2);
  assert.deepEqual(places(logic.predict(server, [first, second, next])), { Ann: 3, Ben: null, Cara: null });
});

test("a waiting tap on a match the board no longer shows changes nothing here", () => {
  const server = board();
  const stale = { kind: "tap", key: "old", player: ANN, name: "Ann", match_id: 55, number: 1 };
  assert.deepEqual(places(logic.predict(server, [stale])), { Ann: null, Ben: null, Cara: null });
  const otherwise = { kind: "tap", key: "x", player: ANN, name: "Ann", after: "someone-else", number: 2 };
  assert.deepEqual(places(logic.predict(server, [otherwise])), { Ann: null, Ben: null, Cara: null });
});

test("after the server applied the crowning, a tap that followed it still fits the opened match", () => {
  const server = board({
    version: 12,
    match: 2,
    match_id: 102,
    last_tap: { key: "crown", player: BEN, name: "Ben", number: 1, match_id: 101, crowned: true, place: 2 },
    result: { number: 1, seats: [{ player: ANN, name: "Ann", place: 1 }, { player: BEN, name: "Ben", place: 2 }, { player: CARA, name: "Cara", place: 3 }] },
  });
  const waiting = { kind: "tap", key: "t", player: CARA, name: "Cara", after: "crown", number: 2 };
  assert.deepEqual(places(logic.predict(server, [waiting])), { Ann: null, Ben: null, Cara: 3 });
});

test("undoing a predicted crowning reopens its match with the places before it", () => {
  const server = board();
  const first = tap(logic.predict(server, []), CARA);
  const second = tap(logic.predict(server, [first]), BEN);
  const before = logic.predict(server, [first, second]);
  const back = undo(before);
  const p = logic.predict(server, [first, second, back]);
  assert.equal(p.match, 1);
  assert.equal(p.matchId, 101);
  assert.equal(p.result, null);
  assert.deepEqual(places(p), { Ann: null, Ben: null, Cara: 3 });
  assert.deepEqual(logic.settles("undo", before, p), ["undo"], "the next Undo takes the pressed one's place");
});

test("undoing the server's own crowning reopens the filed match", () => {
  const server = board({
    match: 2,
    match_id: 102,
    last_tap: { key: "crown", player: BEN, name: "Ben", number: 1, match_id: 101, crowned: true, place: 2 },
    result: { number: 1, seats: [{ player: ANN, name: "Ann", place: 1 }, { player: BEN, name: "Ben", place: 2 }, { player: CARA, name: "Cara", place: 3 }] },
  });
  const p0 = logic.predict(server, []);
  const p = logic.predict(server, [undo(p0)]);
  assert.equal(p.match, 1);
  assert.equal(p.matchId, 101);
  assert.deepEqual(places(p), { Ann: null, Ben: null, Cara: 3 });
  const again = tap(p, BEN);
  assert.equal(again.match_id, 101);
});

test("only a crowning or an undo puts a new control under the finger, and only there", () => {
  const server = board({ seats: [...board().seats, { player: DAN, name: "Dan", place: null }] });
  const p0 = logic.predict(server, []);
  const first = tap(p0, DAN);
  assert.deepEqual(logic.settles("tap", p0, logic.predict(server, [first])), []);
  const p1 = logic.predict(server, [first]);
  const second = tap(p1, CARA);
  const p2 = logic.predict(server, [first, second]);
  const third = tap(p2, BEN);
  const p3 = logic.predict(server, [first, second, third]);
  assert.deepEqual(logic.settles("tap", p2, p3), ["tiles"], "the next match's tiles open under the finger");
});

test("after an undo only the Undo settles: the tiles stay where they were and take the next tap", () => {
  const server = board({ seats: [...board().seats, { player: DAN, name: "Dan", place: null }] });
  const first = tap(logic.predict(server, []), DAN);
  const p1 = logic.predict(server, [first]);
  const back = undo(p1);
  const p2 = logic.predict(server, [first, back]);
  assert.deepEqual(logic.settles("undo", p1, p2), ["undo"]);
  // An undo that reopens a crowned match changes the tiles, but not under the finger on Undo.
  const crowned = board({
    match: 2,
    match_id: 102,
    last_tap: { key: "crown", player: BEN, name: "Ben", number: 1, match_id: 101, crowned: true, place: 2 },
    result: { number: 1, seats: [{ player: ANN, name: "Ann", place: 1 }, { player: BEN, name: "Ben", place: 2 }, { player: CARA, name: "Cara", place: 3 }] },
  });
  const q0 = logic.predict(crowned, []);
  const q1 = logic.predict(crowned, [undo(q0)]);
  assert.notEqual(q1.match, q0.match);
  assert.deepEqual(logic.settles("undo", q0, q1), ["undo"]);
});

test("the server's latest tap says when undoing it would drop the next match's new roster", () => {
  const last = { key: "crown", player: BEN, name: "Ben", number: 1, match_id: 101, crowned: true, place: 2 };
  const result = { number: 1, seats: [{ player: ANN, name: "Ann", place: 1 }, { player: BEN, name: "Ben", place: 2 }, { player: CARA, name: "Cara", place: 3 }] };
  const edited = board({ match: 2, match_id: 102, last_tap: { ...last, drops_roster: true }, result });
  assert.equal(logic.predict(edited, []).stack.at(-1).dropsRoster, true);
  const same = board({ match: 2, match_id: 102, last_tap: { ...last, drops_roster: false }, result });
  assert.equal(logic.predict(same, []).stack.at(-1).dropsRoster, false);
  // A tap waiting on top is what Undo names: a plain undo, no confirmation.
  const waiting = tap(logic.predict(edited, []), CARA);
  assert.equal(logic.predict(edited, [waiting]).stack.at(-1).dropsRoster, undefined);
});

test("a refused tap is explained by what the server says happened instead", () => {
  assert.equal(logic.insteadVariant("already_out", { place: 4 }), "place");
  assert.equal(logic.insteadVariant("match_filed", { place: 2, winner: "Ann" }), "place");
  assert.equal(logic.insteadVariant("match_filed", { place: 1, winner: "Ann" }), "won");
  assert.equal(logic.insteadVariant("match_filed", { place: null, winner: "Ann" }), "winner");
  assert.equal(logic.insteadVariant("match_filed", null), null, "an older server: the plain sentence");
  assert.equal(logic.insteadVariant("already_out", {}), null);
  assert.equal(logic.insteadVariant("table_closed", { place: 2 }), null);
});

test("start-up takes the newest board it has seen, whatever page the cache handed back", () => {
  const page = board({ version: 10 });
  const kept = board({ version: 14, match: 2, match_id: 102 });
  assert.equal(logic.chooseBoard(page, kept), kept);
  assert.equal(logic.chooseBoard(board({ version: 15 }), kept).version, 15);
  assert.equal(logic.chooseBoard(page, { ...kept, table: 8 }), page, "another table's board is not this one's");
  assert.equal(logic.chooseBoard(page, null), page);
  assert.equal(logic.chooseBoard(null, kept), kept);
});

test("two tabs share the stored queue; the entry on its way keeps its state", () => {
  const stored = [{ key: "a" }, { key: "b" }, { key: "c" }];
  const mine = [{ key: "a", sending: true }, { key: "z" }];
  const merged = logic.mergeQueue(stored, mine);
  assert.deepEqual(merged.map((e) => e.key), ["a", "b", "c"]);
  assert.equal(merged[0].sending, true);
});

test("a refused tap takes the undo of it along; an applied one leaves it to be sent", () => {
  const t = { kind: "tap", key: "t" };
  const u = { kind: "undo", key: "u", tap_key: "t" };
  const other = { kind: "tap", key: "o" };
  assert.deepEqual(logic.afterAnswer([t, u, other], t, "refused").map((e) => e.key), ["o"]);
  assert.deepEqual(logic.afterAnswer([t, u, other], t, "applied").map((e) => e.key), ["u", "o"]);
  assert.deepEqual(logic.afterAnswer([t, u, other], t, "replayed").map((e) => e.key), ["u", "o"]);
});

test("the night a moment falls in starts at the server's hour, day after day", () => {
  const start = Date.parse("2026-12-01T12:00:00Z");
  assert.equal(logic.nightStart("2026-12-01T12:00:00Z", Date.parse("2026-12-01T23:59:00Z")), start);
  assert.equal(logic.nightStart("2026-12-01T12:00:00Z", Date.parse("2026-12-02T11:59:00Z")), start);
  assert.equal(logic.nightStart("2026-12-01T12:00:00Z", Date.parse("2026-12-03T13:00:00Z")), start + 2 * 86400000);
  assert.equal(logic.nightStart("not a date", 0), null);
});

test("entries queued by another host, or on an earlier night, wait for the host's say, in order", () => {
  const sam = { id: 2, name: "Sam" };
  const kim = { id: 3, name: "Kim" };
  const night = Date.parse("2026-12-01T12:00:00Z");
  const tonight = "2026-12-01T20:00:00Z";
  const mineA = { kind: "tap", key: "a", by: kim, at: tonight };
  const his = { kind: "tap", key: "b", by: sam, at: tonight };
  const mineC = { kind: "tap", key: "c", by: kim, at: tonight };
  let parts = logic.split([mineA, his, mineC], kim.id, night);
  assert.deepEqual(parts.ready.map((e) => e.key), ["a"]);
  assert.deepEqual(parts.held.map((e) => e.key), ["b", "c"], "nothing overtakes a held entry");
  assert.deepEqual(logic.queuedBy(parts.held), ["Sam", "Kim"]);
  assert.equal(logic.holdReason(his, kim.id, night), "other-host");
  parts = logic.split([mineA, { ...his, adopted: true }, mineC], kim.id, night);
  assert.equal(parts.held.length, 0, "once the host chose to send them");
  const yesterday = { kind: "tap", key: "y", by: kim, at: "2026-12-01T11:00:00Z" };
  assert.equal(logic.holdReason(yesterday, kim.id, night), "earlier-night");
  assert.equal(logic.holdReason({ kind: "tap", key: "old" }, kim.id, night), null, "kept by an older script");
});

test("a waiting entry is posted with the match it was made on and who queued it", () => {
  const sam = { id: 2, name: "Sam" };
  const known = { kind: "tap", key: "k", match_id: 101, number: 1, player: ANN, by: sam };
  assert.deepEqual(logic.postFields(known, 2), [["match", 101], ["number", 1], ["player", ANN], ["key", "k"]]);
  assert.deepEqual(logic.postFields(known, 3).at(-1), ["queued_by", 2]);
  const predicted = { kind: "tap", key: "p", after: "crown", number: 2, player: BEN, by: sam };
  assert.deepEqual(logic.postFields(predicted, 2), [["after", "crown"], ["number", 2], ["player", BEN], ["key", "p"]]);
  const u = { kind: "undo", key: "u", tap_key: "k", by: sam };
  assert.deepEqual(logic.postFields(u, 2), [["tap_key", "k"]]);
});

// A seeded generator: the same sequences on every run, and a new seed by BRAG_SEED.
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

test("any sequence of taps and undos predicts a board a match can have", () => {
  const seed = Number(process.env.BRAG_SEED || 20261201);
  const rnd = random(seed);
  for (let run = 0; run < 300; run += 1) {
    const size = 3 + Math.floor(rnd() * 5);
    const seats = Array.from({ length: size }, (_, i) => ({ player: i + 1, name: "P" + (i + 1), place: null }));
    const server = board({ seats });
    const entries = [];
    let expectedMatch = 1;
    for (let step = 0; step < 25; step += 1) {
      const p = logic.predict(server, entries);
      const standing = p.seats.filter((s) => s.place === null);
      if (p.stack.length && rnd() < 0.25) {
        entries.push(undo(p));
      } else {
        const pick = standing[Math.floor(rnd() * standing.length)];
        entries.push(tap(p, pick.player));
      }
      const q = logic.predict(server, entries);
      const taken = q.seats.map((s) => s.place).filter((x) => x !== null).sort((a, b) => a - b);
      const left = q.seats.filter((s) => s.place === null).length;
      // The places taken are exactly those below the ones standing: left+1 .. size.
      assert.deepEqual(taken, Array.from({ length: size - left }, (_, i) => left + 1 + i), `seed ${seed} run ${run}`);
      assert.ok(left >= 2, "a match shown always has two standing or more");
      assert.ok(q.match >= 1);
      expectedMatch = q.match;
      assert.equal(q.matchId === null, q.match !== 1, "only the server's match has a known id");
    }
    assert.ok(expectedMatch >= 1);
  }
});
