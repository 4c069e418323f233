"""Did you mean? A new name close to a known player's is asked about at launch
and at a roster edit; nothing is saved until the host chooses, and the choice is kept by the
form (hidden fields), not by the league."""

from html.parser import HTMLParser

import pytest
from django.urls import reverse
from django.utils import translation

from matches.models import Match, Player, Table
from tests.factories import make_table, open_match, places

pytestmark = pytest.mark.django_db

LAUNCH = {"name": "Snug", "mode": "ranked"}


def questions(form) -> list[str]:
    """The "Did you mean?" questions asked, in page order (the launch form's Mode, a
    fieldset too, comes after them)."""
    return [legend for legend in form.legends if legend.startswith("Did you mean")]


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


class _Form(HTMLParser):
    """What a browser would send back from the page's form: its hidden fields, its textarea,
    and the "Did you mean?" radios by the text of their labels."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.hidden: list[tuple[str, str]] = []
        self.radios: dict[str, tuple[str, str]] = {}
        self.legends: list[str] = []
        self._radio: tuple[str, str] | None = None
        self._label: list[str] | None = None
        self._legend: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if (
            tag == "input"
            and attrs.get("type") == "hidden"
            and attrs["name"] != "csrfmiddlewaretoken"
        ):
            self.hidden.append((attrs["name"], attrs.get("value", "")))
        elif tag == "input" and attrs.get("type") == "radio" and attrs["name"].startswith("doubt-"):
            self._radio = (attrs["name"], attrs["value"])
        elif tag == "label":
            self._label = []
        elif tag == "legend":
            self._legend = []

    def handle_endtag(self, tag):
        if tag == "label" and self._label is not None:
            if self._radio is not None:
                self.radios[" ".join("".join(self._label).split())] = self._radio
            self._label, self._radio = None, None
        elif tag == "legend" and self._legend is not None:
            self.legends.append("".join(self._legend).strip())
            self._legend = None

    def handle_data(self, data):
        for part in (self._label, self._legend):
            if part is not None:
                part.append(data)


def answer(html: str, players: str, *labels: str, **extra) -> dict:
    """The form sent back as shown, with the radios labelled so chosen."""
    form = _Form(html)
    data: dict[str, list[str]] = {}
    for name, value in form.hidden:
        data.setdefault(name, []).append(value)
    for label in labels:
        name, value = form.radios[label]
        data[name] = [value]
    return {**data, "players": players, **extra}


def counts():
    return Table.objects.count(), Match.objects.count(), Player.objects.count()


def players():
    return sorted(Player.objects.values_list("name", flat=True))


class TestLaunch:
    url = reverse("matches:table_new")

    def test_a_near_name_is_asked_about_and_nothing_is_saved(self, host_client):
        make_table(players=["Zoë", "Ben", "Cara"])
        before = counts()
        response = host_client.post(self.url, {**LAUNCH, "players": "Zoe\nBen\nCara"})
        assert response.status_code == 200
        form = _Form(response.content.decode())
        assert questions(form)[-1] == "Did you mean Zoë?"
        assert set(form.radios) == {"Use Zoë", "Add Zoe as a new player"}
        assert "Nothing was saved" in response.content.decode()
        assert counts() == before

    def test_use_seats_the_known_player(self, host_client):
        make_table(players=["Zoë", "Ben", "Cara"])
        first = host_client.post(self.url, {**LAUNCH, "players": "Zoe\nBen\nCara"})
        data = answer(first.content.decode(), "Zoe\nBen\nCara", "Use Zoë", **LAUNCH)
        response = host_client.post(self.url, data)
        assert response.status_code == 302
        table = Table.objects.get(name="Snug")
        assert places(open_match(table)) == {"Zoë": None, "Ben": None, "Cara": None}
        assert [s.player.name for s in open_match(table).seats.order_by("position")] == [
            "Zoë",
            "Ben",
            "Cara",
        ]
        assert players() == ["Ben", "Cara", "Zoë"]

    def test_add_creates_the_new_player(self, host_client):
        make_table(players=["Zoë", "Ben", "Cara"])
        first = host_client.post(self.url, {**LAUNCH, "players": "Zoe\nBen\nCara"})
        data = answer(first.content.decode(), "Zoe\nBen\nCara", "Add Zoe as a new player", **LAUNCH)
        response = host_client.post(self.url, data)
        assert response.status_code == 302
        assert players() == ["Ben", "Cara", "Zoe", "Zoë"]

    def test_no_choice_asks_again_and_saves_nothing(self, host_client):
        make_table(players=["Zoë", "Ben", "Cara"])
        before = counts()
        first = host_client.post(self.url, {**LAUNCH, "players": "Zoe\nBen\nCara"})
        response = host_client.post(
            self.url, answer(first.content.decode(), "Zoe\nBen\nCara", **LAUNCH)
        )
        assert questions(_Form(response.content.decode()))[-1] == "Did you mean Zoë?"
        assert counts() == before

    def test_each_name_in_doubt_gets_its_own_question(self, host_client):
        make_table(players=["Zoë", "Margaret", "Ann Lee"])
        before = counts()
        typed = "Zoe\nMargret\nAnn\nBob"
        first = host_client.post(self.url, {**LAUNCH, "players": typed})
        form = _Form(first.content.decode())
        assert questions(form)[-3:] == [
            "Did you mean Zoë?",
            "Did you mean Margaret?",
            "Did you mean Ann Lee?",
        ]
        data = answer(
            first.content.decode(),
            typed,
            "Use Zoë",
            "Add Margret as a new player",
            "Use Ann Lee",
            **LAUNCH,
        )
        assert counts() == before
        assert host_client.post(self.url, data).status_code == 302
        table = Table.objects.get(name="Snug")
        seated = [s.player.name for s in open_match(table).seats.order_by("position")]
        assert seated == ["Zoë", "Margret", "Ann Lee", "Bob"]

    def test_the_choice_is_kept_when_the_form_comes_back_for_another_reason(self, host_client):
        make_table(players=["Zoë", "Ben", "Cara"])
        first = host_client.post(self.url, {**LAUNCH, "players": "Zoe\nBen\nCara"})
        # The table name is missing: the form comes back, the choice made is kept.
        data = answer(first.content.decode(), "Zoe\nBen\nCara", "Add Zoe as a new player")
        data.update(mode="ranked", name="")
        again = host_client.post(self.url, data)
        assert again.status_code == 200
        assert _Form(again.content.decode()).radios == {}
        assert ("new_player", "Zoe") in _Form(again.content.decode()).hidden
        resent = answer(again.content.decode(), "Zoe\nBen\nCara", **LAUNCH)
        assert host_client.post(self.url, resent).status_code == 302
        assert players() == ["Ben", "Cara", "Zoe", "Zoë"]

    def test_use_writes_the_known_name_into_the_players_box(self, host_client):
        make_table(players=["Zoë", "Ben", "Cara"])
        first = host_client.post(self.url, {**LAUNCH, "players": "Zoe\nBen\nCara"})
        data = answer(first.content.decode(), "Zoe\nBen\nCara", "Use Zoë", mode="ranked", name="")
        again = host_client.post(self.url, data).content.decode()
        assert "Zoë\nBen\nCara</textarea>" in again

    def test_the_choice_is_for_this_form_only(self, host_client):
        make_table(players=["Zoë", "Ben", "Cara"])
        first = host_client.post(self.url, {**LAUNCH, "players": "Zoe\nBen\nCara"})
        data = answer(first.content.decode(), "Zoe\nBen\nCara", "Use Zoë", **LAUNCH)
        host_client.post(self.url, data)
        # A new form asks again.
        response = host_client.post(self.url, {**LAUNCH, "players": "Zoe\nBen\nCara"})
        assert questions(_Form(response.content.decode()))[-1] == "Did you mean Zoë?"

    @pytest.mark.parametrize("typed", ["Zoë\nBen\nCara", "zoë\nBEN\ncara", "Ian\nBen\nCara"])
    def test_known_and_far_names_launch_at_once(self, host_client, typed):
        make_table(players=["Zoë", "Ben", "Cara", "Ann"])
        response = host_client.post(self.url, {**LAUNCH, "players": typed})
        assert response.status_code == 302

    def test_short_names_one_letter_apart_are_not_asked_about(self, host_client):
        make_table(players=["Anna", "Ben", "Cara"])
        response = host_client.post(self.url, {**LAUNCH, "players": "Anne\nBen\nCara"})
        assert response.status_code == 302
        assert "Anne" in players()


class TestRoster:
    def url(self, table):
        return reverse("matches:roster", args=[table.pk])

    def test_a_near_name_is_asked_about_and_nothing_is_saved(self, host_client):
        make_table(name="Old", players=["Zoë", "Eve", "Finn"])
        table = make_table()
        match = open_match(table)
        before = counts()
        typed = "Alice\nBen\nCara\nZoe"
        response = host_client.post(self.url(table), {"match": match.pk, "players": typed})
        assert response.status_code == 200
        form = _Form(response.content.decode())
        assert questions(form)[-1] == "Did you mean Zoë?"
        assert set(form.radios) == {"Use Zoë", "Add Zoe as a new player"}
        assert counts() == before
        assert list(places(open_match(table))) == ["Alice", "Ben", "Cara", "Dev"]

    @pytest.mark.parametrize(
        "label, seated", [("Use Zoë", "Zoë"), ("Add Zoe as a new player", "Zoe")]
    )
    def test_each_choice_is_honoured(self, host_client, label, seated):
        make_table(name="Old", players=["Zoë", "Eve", "Finn"])
        table = make_table()
        match = open_match(table)
        typed = "Alice\nBen\nCara\nZoe"
        first = host_client.post(self.url(table), {"match": match.pk, "players": typed})
        response = host_client.post(self.url(table), answer(first.content.decode(), typed, label))
        assert response.status_code == 302
        seats = open_match(table).seats.order_by("position")
        assert [s.player.name for s in seats] == ["Alice", "Ben", "Cara", seated]
