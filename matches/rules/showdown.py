"""The showdown judge in words: names for hands, why the worst one loses, and messages for
input that cannot be judged. The ranking itself is the pure module hands.py."""

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from django.utils.translation import get_language, gettext_lazy, pgettext_lazy
from django.utils.translation import gettext as _

from matches.rules.hands import (
    RANK_LABEL,
    SUIT_SYMBOL,
    Card,
    Category,
    HandError,
    Ranked,
    decided_by_suit,
    judge,
    parse_card,
    parse_hand,
)
from matches.rules.limits import SHOWDOWN_MAX_HANDS

if TYPE_CHECKING:
    # django-stubs' type of a lazy translation (gettext_lazy); a dev-only package.
    from django_stubs_ext import StrPromise

RANK_NAMES = {
    2: (gettext_lazy("two"), gettext_lazy("twos")),
    3: (gettext_lazy("three"), gettext_lazy("threes")),
    4: (gettext_lazy("four"), gettext_lazy("fours")),
    5: (gettext_lazy("five"), gettext_lazy("fives")),
    6: (gettext_lazy("six"), gettext_lazy("sixes")),
    7: (gettext_lazy("seven"), gettext_lazy("sevens")),
    8: (gettext_lazy("eight"), gettext_lazy("eights")),
    9: (gettext_lazy("nine"), gettext_lazy("nines")),
    10: (gettext_lazy("ten"), gettext_lazy("tens")),
    11: (gettext_lazy("jack"), gettext_lazy("jacks")),
    12: (gettext_lazy("queen"), gettext_lazy("queens")),
    13: (gettext_lazy("king"), gettext_lazy("kings")),
    14: (gettext_lazy("ace"), gettext_lazy("aces")),
}
# The odd card of a pair: "Pair of tens, two kicker"; Portuguese puts the article here
# ("Par de dez, com um dois", "com uma dama").
KICKER_NAMES = {
    2: pgettext_lazy("odd card of a pair", "two"),
    3: pgettext_lazy("odd card of a pair", "three"),
    4: pgettext_lazy("odd card of a pair", "four"),
    5: pgettext_lazy("odd card of a pair", "five"),
    6: pgettext_lazy("odd card of a pair", "six"),
    7: pgettext_lazy("odd card of a pair", "seven"),
    8: pgettext_lazy("odd card of a pair", "eight"),
    9: pgettext_lazy("odd card of a pair", "nine"),
    10: pgettext_lazy("odd card of a pair", "ten"),
    11: pgettext_lazy("odd card of a pair", "jack"),
    12: pgettext_lazy("odd card of a pair", "queen"),
    13: pgettext_lazy("odd card of a pair", "king"),
    14: pgettext_lazy("odd card of a pair", "ace"),
}
SUIT_NAMES = {
    4: gettext_lazy("spades"),
    3: gettext_lazy("hearts"),
    2: gettext_lazy("diamonds"),
    1: gettext_lazy("clubs"),
}
# Used inside "a %(better)s beats a %(worse)s": languages with gendered articles put the
# article in the name.
CATEGORY_NAMES = {
    Category.PRIAL: pgettext_lazy("kind of hand, after an article", "prial"),
    Category.RUNNING_FLUSH: pgettext_lazy("kind of hand, after an article", "running flush"),
    Category.RUN: pgettext_lazy("kind of hand, after an article", "run"),
    Category.FLUSH: pgettext_lazy("kind of hand, after an article", "flush"),
    Category.PAIR: pgettext_lazy("kind of hand, after an article", "pair"),
    Category.HIGH_CARD: pgettext_lazy("kind of hand, after an article", "high card"),
}

UNKNOWN_CARD = gettext_lazy(
    "%(player)s: “%(token)s” is not a card. Write cards like QS, 10h or Q♠."
)
NOT_THREE = gettext_lazy("%(player)s: a hand has exactly three cards; %(token)s given.")
CARD_TWICE_IN_HAND = gettext_lazy("%(player)s: %(token)s appears twice in the hand.")
CARD_IN_TWO_HANDS = gettext_lazy(
    "%(token)s is in both %(other)s’s and %(player)s’s hands; there is only one deck."
)
TOO_FEW = gettext_lazy("Enter at least two hands.")
TOO_MANY = gettext_lazy("At most %(max)s hands can be judged at once.")
BAD_SHOWDOWN_JSON = gettext_lazy(
    'Send JSON like {"hands": {"Ann": "QS 7D 4C", "Ben": "10h 10c 2s"}}.'
)
SAME_NAME = gettext_lazy("Two hands are named %(player)s; give each player their own name.")
BODY_TOO_LARGE = gettext_lazy(
    "A showdown request is at most %(kb)s KB: send at most %(max)s hands."
)
# Ten hands of 40-character names and spelled-out cards fit in a tenth of this.
MAX_BODY_BYTES = 16 * 1024


class ShowdownRequestError(ValueError):
    """A showdown request that cannot be judged; its message is the answer's "error"."""

    def __init__(self, message: "str | StrPromise", **params: object) -> None:
        self.message = str(message) % params if params else str(message)
        super().__init__(self.message)


def error_message(error: HandError) -> str:
    if error.code == "card_twice":
        template = CARD_IN_TWO_HANDS if error.other else CARD_TWICE_IN_HAND
    else:
        template = {
            "unknown_card": UNKNOWN_CARD,
            "not_three": NOT_THREE,
            "too_few": TOO_FEW,
            "too_many": TOO_MANY,
            "same_name": SAME_NAME,
        }[error.code]
    params = {"player": error.player, "token": error.token, "other": error.other}
    return str(template) % {**params, "max": SHOWDOWN_MAX_HANDS}


def _one(rank: int) -> str:
    return str(RANK_NAMES[rank][0])


def _many(rank: int) -> str:
    return str(RANK_NAMES[rank][1])


def describe(hand: Ranked) -> str:
    """'Pair of queens, seven kicker', 'Running flush, ace-two-three', 'King high'."""
    category, ranks = hand.category, hand.ranks
    if category == Category.PRIAL:
        return _("Prial of %(rank)s") % {"rank": _many(3 if ranks[0] == 15 else ranks[0])}
    if category in (Category.RUNNING_FLUSH, Category.RUN):
        if ranks[0] == 15:
            text = _("ace-two-three")
        else:
            text = _("%(rank)s high") % {"rank": _one(ranks[0])}
        if category == Category.RUNNING_FLUSH:
            return _("Running flush, %(detail)s") % {"detail": text}
        return _("Run, %(detail)s") % {"detail": text}
    if category == Category.FLUSH:
        return _("Flush, %(rank)s high") % {"rank": _one(ranks[0])}
    if category == Category.PAIR:
        return _("Pair of %(pair)s, %(kicker)s kicker") % {
            "pair": _many(ranks[0]),
            "kicker": str(KICKER_NAMES[ranks[1]]),
        }
    return (_("%(rank)s high") % {"rank": _one(ranks[0])}).capitalize()


# The letters a card is shown with: Portuguese writes Rei, Dama, Valete (R, D, V), as the
# rules card does; the judge reads either set whatever it shows.
RANK_LETTERS = {
    11: pgettext_lazy("card rank", "J"),
    12: pgettext_lazy("card rank", "Q"),
    13: pgettext_lazy("card rank", "K"),
}


class ShownCard(NamedTuple):
    label: str  # in the page's language: "R♠"
    suit: int


def card_label(card: Card) -> str:
    """'K♠' in English, 'R♠' in Portuguese."""
    letter = RANK_LETTERS.get(card.rank)
    return f"{letter}{SUIT_SYMBOL[card.suit]}" if letter else str(card)


def cards_text(hand: Ranked) -> str:
    return " ".join(card_label(card) for card in hand.cards)


def why_it_loses(loser: str, worst: Ranked, winner: str, next_worst: Ranked) -> str:
    names = {"loser": loser, "winner": winner}
    if worst.category != next_worst.category:
        return _("%(loser)s loses to %(winner)s: a %(better)s beats a %(worse)s.") % {
            **names,
            "better": CATEGORY_NAMES[next_worst.category],
            "worse": CATEGORY_NAMES[worst.category],
        }
    if decided_by_suit(worst, next_worst):
        return _(
            "%(loser)s loses to %(winner)s: the ranks are exactly the same, so the suit of "
            "the highest card decides, and %(better)s beat %(worse)s."
        ) % {
            **names,
            "better": SUIT_NAMES[next_worst.tie_suit],
            "worse": SUIT_NAMES[worst.tie_suit],
        }
    return _(
        "%(loser)s loses to %(winner)s: both hold a %(kind)s, and %(winner_cards)s ranks "
        "above %(loser_cards)s."
    ) % {
        **names,
        "kind": CATEGORY_NAMES[worst.category],
        "winner_cards": cards_text(next_worst),
        "loser_cards": cards_text(worst),
    }


@dataclass(frozen=True)
class Verdict:
    order: list[tuple[str, Ranked]]  # best first

    @property
    def loser(self) -> str:
        return self.order[-1][0]

    @property
    def reason(self) -> str:
        (winner, next_worst), (loser, worst) = self.order[-2], self.order[-1]
        return why_it_loses(loser, worst, winner, next_worst)

    def rows(self) -> list[dict]:
        return [
            {
                "name": name,
                "cards": [ShownCard(card_label(card), card.suit) for card in hand.cards],
                "category": hand.category.slug,
                "description": describe(hand),
                "loses": name == self.loser,
            }
            for name, hand in self.order
        ]

    def as_json(self) -> dict:
        return {
            "order": [name for name, _ in self.order],
            "loser": self.loser,
            "hands": {
                name: {"category": hand.category.slug, "description": describe(hand)}
                for name, hand in self.order
            },
        }


def hands_from_json(body: bytes) -> list[tuple[str, str]]:
    """(name, cards) pairs from {"hands": {name: cards}}; a ShowdownRequestError when it is
    not that or is over MAX_BODY_BYTES."""
    if len(body) > MAX_BODY_BYTES:
        raise ShowdownRequestError(
            BODY_TOO_LARGE, kb=MAX_BODY_BYTES // 1024, max=SHOWDOWN_MAX_HANDS
        )
    try:
        hands = json.loads(body)["hands"]
    # RecursionError: JSON nested deeper than the parser's stack ("[" x 5,000 fits 16 KB).
    except (ValueError, KeyError, TypeError, RecursionError):
        raise ShowdownRequestError(BAD_SHOWDOWN_JSON) from None
    if not isinstance(hands, dict) or not all(
        isinstance(k, str) and k.strip() and isinstance(v, str) for k, v in hands.items()
    ):
        raise ShowdownRequestError(BAD_SHOWDOWN_JSON)
    return [(name.strip(), cards) for name, cards in hands.items()]


def showdown_judge(pairs: list[tuple[str, str]]) -> Verdict:
    """Judge (name, cards) pairs; a HandError carries what is wrong and whose hand it is.
    In Portuguese, Portuguese card letters are read too (R, D, V; E, C, O, P)."""
    # Counted first: no per-hand work is done for a request that is refused anyway.
    if len(pairs) > SHOWDOWN_MAX_HANDS:
        raise HandError("too_many", token=str(len(pairs)))
    seen: set[str] = set()
    for name, _cards in pairs:
        if name in seen:
            raise HandError("same_name", player=name)
        seen.add(name)
    portuguese = (get_language() or "").startswith("pt")
    return Verdict(order=judge(dict(pairs), portuguese=portuguese))


def showdown_problems(pairs: list[tuple[str, str]]) -> list[tuple[int | None, HandError]]:
    """Every reason these (name, cards) pairs cannot be judged, not just the first: each with
    the index of the pair it is about (None: the showdown as a whole), in the pairs' order.
    A card already dealt to an earlier hand is the later hand's problem. Empty: judge them."""
    if len(pairs) > SHOWDOWN_MAX_HANDS:
        return [(None, HandError("too_many", token=str(len(pairs))))]
    portuguese = (get_language() or "").startswith("pt")
    problems: list[tuple[int | None, HandError]] = []
    names: set[str] = set()
    dealt: dict[Card, str] = {}  # each card dealt: whose hand holds it
    for index, (name, text) in enumerate(pairs):
        if name in names:
            problems.append((index, HandError("same_name", player=name)))
        names.add(name)
        try:
            cards = parse_hand(text, portuguese=portuguese)
        except HandError as error:
            token = error.token
            if error.code == "card_twice":
                token = card_label(parse_card(token))
            problems.append((index, HandError(error.code, player=name, token=token)))
            continue
        for card in cards:
            if card in dealt:
                shown = card_label(card)
                clash = HandError("card_twice", player=name, token=shown, other=dealt[card])
                problems.append((index, clash))
            else:
                dealt[card] = name
    if len(pairs) < 2:
        problems.append((None, HandError("too_few", token=str(len(pairs)))))
    return problems


def judge_json(body: bytes) -> Verdict:
    """Judge a request body like {"hands": {"Ann": "QS 7D 4C", ...}}, or raise a
    ShowdownRequestError with the message to answer."""
    try:
        return showdown_judge(hands_from_json(body))
    except HandError as error:
        raise ShowdownRequestError(error_message(error)) from None


def refuse_declared_length(content_length: str | None) -> None:
    """Refuse a body by the length its request declares, before it is read."""
    # A length with more digits than int() converts (4,300) is too large, not a 500; a
    # malformed one is the server's to refuse.
    digits = (content_length or "").lstrip("0")
    too_long = len(digits) > len(str(MAX_BODY_BYTES))
    if digits.isascii() and digits.isdigit() and (too_long or int(digits) > MAX_BODY_BYTES):
        raise ShowdownRequestError(
            BODY_TOO_LARGE, kb=MAX_BODY_BYTES // 1024, max=SHOWDOWN_MAX_HANDS
        )


def card_grid() -> list[list[tuple[str, str]]]:
    """The cards to pick from on the showdown page: (code, label shown in the page's
    language, which is also what a tap types), a row per suit."""
    return [
        [
            (f"{RANK_LABEL.get(rank, str(rank))}{suit}", card_label(Card(rank, value)))
            for rank in range(14, 1, -1)
        ]
        for suit, value in (("S", 4), ("H", 3), ("D", 2), ("C", 1))
    ]
