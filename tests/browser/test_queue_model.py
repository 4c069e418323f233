"""A tap counts once, model-based: random sequences of what a host does at a table
(taps, double taps, undos, a tap at once after Undo, an offline spell, reloads, a second
tablet, a close and reopen, a correction of a filed match) against the live server, then
the database is checked against what the tablets were asked.

Two tablets, two browser contexts logged in as the same host, stand on one ranked table. Each
sequence is drawn from a seeded random.Random: a fixed seed always, plus BRAG_MODEL_SEEDS
(default 2) random ones; BRAG_MODEL_SEED=<n> replays one seed alone. A failure names its seed
and the actions it took.

Every press is recorded in the page itself, by a submit listener that an init script puts on
the document before the app's own (so it runs first, on the form the finger landed on): the
tile form's key, the player and the match heading on screen at that moment. The test also
reads the key and heading just before clicking and marks that form; when the board was
redrawn between the read and the click (an answer or a poll), the press on the new form is
what counts. A double tap records only its first press: the second must not make a tap, nor
undo a second one. A MutationObserver in the same script keeps every .queue-note sentence in
sessionStorage, so explanations shown before a reload are not lost.

While the sequence runs, a standing tile or Undo that the test is about to press must take
presses within 3 s: the settle after a crowning or an undo holds a control 1 s, no longer.
A tile touched at once after Undo (the tiles not settling from a crowning) must take the
touch: only the Undo that replaced the pressed one settles. A correction (by the services)
must leave the filed match in the order asked.

After each sequence both tablets go online and drain their queues, and then:
1. every recorded tap is applied at most once; one not applied was withdrawn by the host's
   Undo before it left the tablet, or a note on that tablet names its player;
2. every Tap on the table is a recorded press, for that player, in the match number the
   tablet showed when it was pressed (no tap lands in a match the tablet never showed, and a
   correction never renames one);
   no more taps are undone than the host pressed Undo for (not counting withdrawals), and no
   tablet holds entries for another host (both are the same host);
3. both tablets show the server's open match: its heading, each tile's name and place, every
   standing player's tile a button that takes presses, and nothing pending.
"""

import os
import random
import re
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from matches.core.errors import RuleError
from matches.models import Match, Tap
from matches.play.corrections import match_correct, went_out
from matches.play.services.tables import table_close, table_reopen
from matches.templatetags.brag import place_label
from tests.browser.helpers import go_offline, go_online, log_in, tablet
from tests.factories import make_table

pytestmark = pytest.mark.browser

FIXED_SEED = 20
PLAYERS = [["Ana", "Bob", "Cy", "Di"], ["Ana", "Bob", "Cy", "Di", "Eve"]]
ACTIONS_PER_SEQUENCE = (12, 20)
PRESSES = "brag.model.presses"
NOTES = "brag.model.notes"
NOTE_PREFIX = "brag.model.note: "
DRAINED = "every tap recorded"
SETTLE_MS = 1000  # tap-queue.js: a control that replaces the one pressed ignores presses
HELD_AT_MOST_MS = 3000

# Runs in every page before its own scripts: the press log and the note collector.
RECORDER = (
    """(() => {
  const PRESSES = "__PRESSES__", NOTES = "__NOTES__", NOTE_PREFIX = "__NOTE_PREFIX__";
  const read = (k) => { try { return JSON.parse(sessionStorage.getItem(k) || "[]"); }
                        catch (e) { return []; } };
  const push = (k, v) => { const a = read(k); a.push(v); sessionStorage.setItem(k, JSON.stringify(a)); };
  const heading = () => { const h = document.getElementById("match-heading");
                          return h ? h.textContent.trim() : null; };
  const queue = () => {
    const s = document.getElementById("queue-status");
    if (!s) { return []; }
    try { return JSON.parse(localStorage.getItem("brag.queue." + s.getAttribute("data-table")) || "[]"); }
    catch (e) { return []; }
  };
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.classList) { return; }
    if (form.classList.contains("tap-form")) {
      push(PRESSES, { kind: "tap", key: form.querySelector("[name=key]").value,
                      name: form.querySelector("button").textContent.trim(), heading: heading(),
                      read: form.getAttribute("data-model-read") });
    } else if (form.classList.contains("undo-form")) {
      // The app withdraws the newest waiting tap when it never left: read the stored queue
      // before the app's listener changes it.
      const q = queue();
      const last = q[q.length - 1];
      push(PRESSES, { kind: "undo", label: form.textContent.trim(), heading: heading(),
                      withdraws: last && last.kind === "tap" && !last.sent ? last.key : null });
    }
  }, true);
  new MutationObserver((records) => {
    const notes = read(NOTES);
    const before = notes.length;
    const add = (el) => {
      const text = el.textContent.trim();
      if (text && !notes.includes(text)) { notes.push(text); console.info(NOTE_PREFIX + text); }
    };
    records.forEach((r) => r.addedNodes.forEach((n) => {
      if (n.nodeType !== 1) { return; }
      if (n.matches(".queue-note")) { add(n); }
      n.querySelectorAll(".queue-note").forEach(add);
    }));
    if (notes.length !== before) { sessionStorage.setItem(NOTES, JSON.stringify(notes)); }
  }).observe(document, { childList: true, subtree: true });
})();""".replace("__PRESSES__", PRESSES)
    .replace("__NOTES__", NOTES)
    .replace("__NOTE_PREFIX__", NOTE_PREFIX)
)

# Reads a standing tile's key and the heading, and marks its form, in one go.
READ_TILE = """([name, token]) => {
  const b = [...document.querySelectorAll("#tiles .tap-form button.player")]
    .find((x) => x.textContent.trim() === name);
  if (!b) { return null; }
  b.form.setAttribute("data-model-read", token);
  const h = document.getElementById("match-heading");
  return { key: b.form.querySelector("[name=key]").value, heading: h ? h.textContent.trim() : null };
}"""

BOARD = """() => ({
  heading: (document.getElementById("match-heading") || {}).textContent || null,
  pending: document.querySelectorAll("#live .is-pending").length,
  tiles: [...document.querySelectorAll("#tiles > li")].map((li) => {
    const form = li.querySelector(".tap-form button.player");
    if (form) { return [form.textContent.trim(), form.disabled ? "disabled" : null]; }
    const name = li.querySelector(".tile-name"), place = li.querySelector(".tile-place");
    return [name ? name.textContent.trim() : li.textContent.trim(),
            place ? place.textContent.trim() : "?"];
  }),
})"""


def _seeds() -> list[int]:
    replay = os.environ.get("BRAG_MODEL_SEED")
    if replay:
        return [int(replay)]
    extra = int(os.environ.get("BRAG_MODEL_SEEDS", "2"))
    # Drawn from the run's own random number (tests/conftest.py), so that every xdist worker
    # collects the same seeds.
    draw = random.Random(int(os.environ["BRAG_RUN_RANDOM"]))
    return [FIXED_SEED, *(draw.randrange(1, 2**31) for _ in range(extra))]


def _number(heading: str | None) -> int | None:
    found = re.search(r"\d+", heading or "")
    return int(found.group()) if found else None


@dataclass
class Recorded:
    tablet: str
    key: str
    name: str
    number: int | None


@dataclass
class Model:
    """What the host did, as the tablets recorded it."""

    site: str
    table: object
    rng: random.Random
    pages: dict[str, Page]
    log: list[str] = field(default_factory=list)
    taps: list[Recorded] = field(default_factory=list)
    withdrawn: dict[str, set[str]] = field(default_factory=lambda: {"A": set(), "B": set()})
    undos_sent: int = 0
    # Matches corrected by the sequence: match id -> place -> the player's name put there.
    corrected: dict[int, dict[int, str]] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=lambda: {"A": 0, "B": 0})
    tokens: int = 0

    # --- reading the pages -------------------------------------------------------------

    def presses(self, who: str) -> list[dict]:
        """The presses made on this tablet since last asked."""
        page = self.pages[who]
        every = page.evaluate(f"JSON.parse(sessionStorage.getItem({PRESSES!r}) || '[]')")
        fresh = every[self.seen[who] :]
        self.seen[who] = len(every)
        return fresh

    def notes(self, who: str) -> list[str]:
        return self.pages[who].evaluate(f"JSON.parse(sessionStorage.getItem({NOTES!r}) || '[]')")

    def take(self, who: str, what: str) -> dict | None:
        """Record the first press of an action; a double tap's second is only reported."""
        fresh = self.presses(who)
        if not fresh:
            self.log.append(f"  {who}: no press reached a form")
            return None
        first, rest = fresh[0], fresh[1:]
        if first["kind"] == "tap":
            self.taps.append(Recorded(who, first["key"], first["name"], _number(first["heading"])))
            redrawn = "" if first["read"] else " (on a board redrawn after the key was read)"
            self.log.append(
                f"  {who}: tap {first['name']} in {first['heading']} [{first['key']}]{redrawn}"
            )
        else:
            if first["withdraws"]:
                self.withdrawn[who].add(first["withdraws"])
            else:
                self.undos_sent += 1
            how = f"withdraws {first['withdraws']}" if first["withdraws"] else "queued"
            self.log.append(f"  {who}: {first['label']} ({how})")
        for extra in rest:
            self.log.append(f"  {who}: second press of the {what} reached a form: {extra}")
        return first

    # --- actions ---------------------------------------------------------------------

    def ready(self, who: str, control, what: str) -> bool:
        """Wait for a control to take presses: the settle holds it 1 s at most. False when it
        went (a poll or an answer put the player out meanwhile); held past that, a failure."""
        try:
            expect(control).to_be_enabled(timeout=HELD_AT_MOST_MS)
            return True
        except AssertionError:
            if control.count() and control.first.is_disabled():
                raise AssertionError(
                    f"{what} on tablet {who} is still disabled {HELD_AT_MOST_MS} ms on (the "
                    f"settle holds a control {SETTLE_MS} ms): the host cannot press it"
                ) from None
            self.log.append(f"  {who}: {what} went before it could be pressed")
            return False

    def press(self, who: str, control, *, double: bool) -> None:
        page = self.pages[who]
        try:
            if double:
                # Both clicks at one point: the second lands on whatever is there by then.
                box = control.bounding_box(timeout=1000)
                page.mouse.dblclick(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            else:
                control.click(timeout=1000)
        except (PlaywrightError, TypeError) as error:
            self.log.append(f"  {who}: could not press: {error!s:.80}")

    def tap(self, who: str, *, double: bool = False) -> None:
        page = self.pages[who]
        names = [
            n.strip() for n in page.locator("#tiles .tap-form button.player").all_inner_texts()
        ]
        self.log.append(f"{who} {'double ' if double else ''}tap among {names}")
        if not names:
            return
        name = self.rng.choice(names)
        button = page.get_by_role("button", name=name, exact=True)
        if not self.ready(who, button, f"{name}'s tile"):
            return
        self.tokens += 1
        token = str(self.tokens)
        before = page.evaluate(READ_TILE, [name, token])
        self.press(who, button, double=double)
        first = self.take(who, "tap")
        if first and first["kind"] == "tap" and first["read"] == token:
            # The form read is the form pressed: the key read is the key recorded.
            assert before is not None
            assert (first["key"], first["heading"]) == (before["key"], before["heading"])

    def undo(self, who: str = "A", *, double: bool = False) -> None:
        page = self.pages[who]
        button = page.locator(".undo-slot button")
        self.log.append(f"{who} {'double ' if double else ''}undo")
        if not button.count():
            self.log.append("  no Undo on the board")
            return
        if not self.ready(who, button, "Undo"):
            return
        self.press(who, button, double=double)
        self.take(who, "undo")

    def undo_then_tap(self, who: str = "A") -> None:
        """Undo, then at once a finger on a standing tile: the tiles did not move, so the
        touch is a tap (only the next Undo settles)."""
        page = self.pages[who]
        button = page.locator(".undo-slot button")
        self.log.append(f"{who} undo, then at once a tap")
        if not button.count():
            self.log.append("  no Undo on the board")
            return
        if not self.ready(who, button, "Undo"):
            return
        # Tiles a crowning just opened settle, rightly: wait for them before Undo.
        # A function, not an expression: Playwright evals an expression in the page, which
        # the page's CSP (no 'unsafe-eval') refuses.
        page.wait_for_function(
            "() => !document.documentElement.hasAttribute('data-settling')",
            timeout=HELD_AT_MOST_MS,
        )
        self.press(who, button, double=False)
        if self.take(who, "undo") is None:
            return
        names = [
            n.strip() for n in page.locator("#tiles .tap-form button.player").all_inner_texts()
        ]
        if not names:
            self.log.append("  no standing tile after the undo")
            return
        name = self.rng.choice(names)
        tile = page.locator("#tiles").get_by_role("button", name=name, exact=True)
        self.tokens += 1
        page.evaluate(READ_TILE, [name, str(self.tokens)])
        try:
            box = tile.bounding_box(timeout=1000)
        except PlaywrightError as error:
            self.log.append(f"  {name}'s tile went before the touch: {error!s:.120}")
            return
        if box is None:
            self.log.append(f"  {name}'s tile is not shown")
            return
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        if self.take(who, "tap") is None and tile.count():
            raise AssertionError(
                f"{name}'s tile took no tap right after Undo (disabled: {tile.is_disabled()})"
            )

    def correct(self) -> None:
        """Correct a filed match by the services (its page is a host's form): a new order."""
        filed = list(self.table.matches.filed().order_by("number"))
        self.log.append("correct a filed match by the services")
        if not filed:
            self.log.append("  none filed")
            return
        match = self.rng.choice(filed)
        seats = list(match.seats.select_related("player"))
        before = [seat.player.name for seat in went_out(seats)]
        order = before[:]
        while order == before:
            self.rng.shuffle(order)
        host = get_user_model().objects.get(username="host")
        try:
            match_correct(table_id=self.table.pk, number=match.number, names=order, by=host)
        except RuleError as error:  # a tablet's undo reopened it meanwhile
            self.log.append(f"  match {match.number} refused: {error.message}")
            return
        wanted = dict(zip(range(len(order), 0, -1), order, strict=True))
        self.corrected[match.pk] = wanted
        self.log.append(f"  match {match.number} (id {match.pk}): {before} -> {order}")
        got = {s.place: s.player.name for s in match.seats.select_related("player")}
        assert got == wanted, f"match {match.number} corrected to {got}, asked {wanted}"

    def reload(self, who: str = "A") -> None:
        page = self.pages[who]
        self.log.append(f"{who} reload")
        page.reload()
        expect(page.locator("#queue-status")).to_be_visible()

    def offline_spell(self) -> None:
        page = self.pages["A"]
        self.log.append("A offline")
        go_offline(page.context)
        for _ in range(self.rng.randint(1, 3)):
            roll = self.rng.random()
            if roll < 0.55:
                self.tap("A")
            elif roll < 0.7:
                self.tap("A", double=True)
            else:
                self.undo("A")
        worker = page.evaluate("!!(navigator.serviceWorker && navigator.serviceWorker.controller)")
        if self.rng.random() < 0.5:
            if worker:
                self.log.append("A reload offline (the worker's copy)")
                page.reload()
                expect(page.locator("#queue-status")).to_be_visible()
            else:
                self.log.append("A reload offline skipped: no service worker controls the page")
        go_online(page.context)
        self.log.append("A online")

    def close_and_reopen(self) -> None:
        if self.rng.random() < 0.5:
            host = get_user_model().objects.get(username="host")
            self.log.append("close and reopen by the services")
            # A tablet's tap may crown the open match between this read and the close: the
            # Close then discards the match that opened (no taps yet), as it would anyway.
            match = self.table.matches.open().first()
            table_close(table_id=self.table.pk, by=host, discard_match_id=match.pk)
            reopened = table_reopen(table_id=self.table.pk, by=host)
            self.log.append(f"  match {reopened.number} (id {reopened.pk}) opened")
            return
        who = self.rng.choice("AB")
        page = self.pages[who]
        self.log.append(f"{who} closes and reopens the table on its pages")
        page.get_by_role("link", name="Close table…").click()
        page.get_by_role("button", name="Close table", exact=True).click()
        page.get_by_role("button", name="Reopen table").click()
        expect(page.locator("#match-heading")).to_be_visible()

    def wait(self) -> None:
        ms = self.rng.uniform(0, 1500)
        self.log.append(f"wait {ms:.0f} ms")
        self.pages["A"].wait_for_timeout(ms)

    def step(self) -> None:
        actions = [
            (30, lambda: self.tap("A")),
            (10, lambda: self.tap("A", double=True)),
            (10, lambda: self.undo("A")),
            (5, lambda: self.undo("A", double=True)),
            (5, lambda: self.undo_then_tap("A")),
            (4, self.correct),
            (7, self.offline_spell),
            (6, lambda: self.reload("A")),
            (16, lambda: self.tap("B")),
            (4, self.close_and_reopen),
            (8, self.wait),
        ]
        weights = [w for w, _ in actions]
        self.rng.choices([a for _, a in actions], weights=weights)[0]()

    # --- the end of a sequence ---------------------------------------------------------

    def settle(self) -> None:
        for who, page in self.pages.items():
            go_online(page.context)
            self.log.append(f"settle {who}")
            expect(page.locator("#queue-status")).to_contain_text(DRAINED, timeout=30000)

    def server_board(self) -> dict:
        match = self.table.matches.open().get()
        seats = match.seats.select_related("player").order_by("position")
        return {
            "heading": f"Match {match.number}",
            "pending": 0,
            "tiles": [
                [s.player.name, None if s.place is None else place_label(s.place, self.table.mode)]
                for s in seats
            ],
        }

    def converge(self, timeout_s: float = 12) -> None:
        """Both tablets show the server's board (a poll every 3 s brings it)."""
        deadline = time.monotonic() + timeout_s
        while True:
            want = self.server_board()
            shown = {who: page.evaluate(BOARD) for who, page in self.pages.items()}
            for board in shown.values():
                board["heading"] = (board["heading"] or "").strip()
            if all(board == want for board in shown.values()):
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the tablets did not converge: server {want}, shown {shown}")
            self.pages["A"].wait_for_timeout(500)

    def check(self) -> None:
        notes = {who: self.notes(who) for who in self.pages}
        self.log.append(f"notes: {notes}")
        taps = list(
            Tap.objects.filter(match__table=self.table)
            .select_related("match", "player")
            .order_by("id")
        )
        by_key = {str(t.key): t for t in taps}
        for m in self.table.matches.order_by("id"):
            self.log.append(f"db: match {m.number} (id {m.pk}) {m.status}")
        for t in taps:
            undone = " undone" if t.undone_at else ""
            self.log.append(
                f"db: tap {t.player.name} place {t.place} in match {t.match.number} "
                f"(id {t.match_id}){undone} [{t.key}]"
            )
        recorded = {r.key: r for r in self.taps}
        # 1. Applied once, or withdrawn by Undo before it left, or explained by name.
        for r in self.taps:
            assert sum(1 for t in taps if str(t.key) == r.key) <= 1, r
            if r.key in by_key:
                assert r.key not in self.withdrawn[r.tablet], f"withdrawn yet applied: {r}"
                continue
            if r.key in self.withdrawn[r.tablet]:
                continue
            assert any(r.name in note for note in notes[r.tablet]), (
                f"a dropped tap was not explained by name: {r} (notes on {r.tablet}: "
                f"{notes[r.tablet]})"
            )
        # 2. Every tap is one the host pressed, in the match the tablet showed.
        for t in taps:
            r = recorded.get(str(t.key))
            assert r is not None, (
                f"a tap nobody recorded: {t.player.name} in match {t.match.number} [{t.key}]"
            )
            # A correction is its own record: a tap keeps the player tapped, corrected or not.
            assert (t.player.name, t.match.number) == (r.name, r.number), (
                f"{r} landed as {t.player.name} in match {t.match.number}"
            )
        held = [n for who in notes for n in notes[who] if "queued by" in n]
        assert not held, f"entries held as another host's, on one host's tablets: {held}"
        undone = sum(1 for t in taps if t.undone_at is not None)
        assert undone <= self.undos_sent, f"{undone} taps undone for {self.undos_sent} undos sent"
        assert self.table.matches.filter(status=Match.Status.OPEN).count() == 1
        # 3. Both tablets show the server's board.
        self.converge()


def _fields(request) -> str:
    """The fields a queued entry was posted with (urlencoded, as a form posts), for the log."""
    try:
        body = request.post_data or ""
    except (PlaywrightError, UnicodeDecodeError):
        return "?"
    found = parse_qsl(body)
    return " ".join(f"{k}={v}" for k, v in found if k != "csrfmiddlewaretoken")


def watch(model: "Model", who: str) -> None:
    """Log every tap and undo the tablet sends and how each was answered."""

    def answered(response) -> None:
        request = response.request
        if request.method == "POST" and re.search(r"/(tap|undo)/$", request.url):
            outcome = response.headers.get("x-tap-outcome")
            code = response.headers.get("x-tap-code")
            model.log.append(
                f"    {who} sent {request.url.rsplit('/', 2)[-2]} {_fields(request)}: "
                f"{response.status} {outcome} {code or ''}"
            )

    def failed(request) -> None:
        if request.method == "POST" and re.search(r"/(tap|undo)/$", request.url):
            model.log.append(
                f"    {who} sent {request.url.rsplit('/', 2)[-2]} {_fields(request)}: "
                f"failed ({request.failure})"
            )

    def console(message) -> None:
        if message.text.startswith(NOTE_PREFIX):
            model.log.append(f"    {who} console {message.text}")

    model.pages[who].on("console", console)
    model.pages[who].context.on("response", answered)
    model.pages[who].context.on("requestfailed", failed)


@pytest.fixture
def tablets(browser, site):
    contexts = []
    pages = {}
    for who in "AB":
        context = tablet(browser)
        context.add_init_script(RECORDER)
        contexts.append(context)
        pages[who] = context.new_page()
        log_in(pages[who], site)
    yield pages
    for context in contexts:
        context.close()


@pytest.mark.parametrize("seed", _seeds(), ids=lambda seed: f"seed={seed}")
def test_a_tap_counts_once_whatever_the_host_does(site, tablets, seed):
    """A random sequence of a host's taps, double taps, undos, offline spells, reloads, taps
    on a second tablet and a close and reopen: afterwards every recorded tap is applied once
    or explained by name, every applied tap is one pressed in the match shown, and both
    tablets show the server's board."""
    rng = random.Random(seed)
    table = make_table(players=rng.choice(PLAYERS))
    for page in tablets.values():
        page.goto(f"{site}/tables/{table.pk}/")
        expect(page.locator("#queue-status")).to_contain_text(DRAINED)
    model = Model(site=site, table=table, rng=rng, pages=tablets)
    for who in tablets:
        watch(model, who)
    started = time.monotonic()
    try:
        for _ in range(rng.randint(*ACTIONS_PER_SEQUENCE)):
            model.step()
        model.settle()
        model.check()
    except Exception as error:
        error.add_note(
            f"seed {seed}: replay with BRAG_MODEL_SEED={seed}\nactions:\n" + "\n".join(model.log)
        )
        raise
    print("\n".join(model.log))
    print(f"seed {seed}: {len(model.taps)} taps in {time.monotonic() - started:.1f} s")
