"""Three-card Brag hands ranked as this game's rules say. Pure Python, no Django: the
showdown judge and its tests use it, and nothing here records a life or a tap.

Best first: prial, running flush, run, flush, pair, high card. 3-3-3 is the best prial and
A-2-3 the best run; K-A-2 is no run. Flushes and high cards compare card by card from the
top; pairs by the pair, then the odd card. Only hands of exactly the same ranks compare
suits: the suit of each hand's highest card, spades > hearts > diamonds > clubs. Our two
readings: in A-2-3 the ace plays low, so the highest card is the 3; and when the highest
rank is a pair (or a prial), the better suit of those cards counts.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from matches.rules.limits import SHOWDOWN_MAX_HANDS

RANKS = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10, "T": 10,
         "J": 11, "Q": 12, "K": 13, "A": 14}  # fmt: skip
SUITS = {"S": 4, "H": 3, "D": 2, "C": 1, "♠": 4, "♥": 3, "♦": 2, "♣": 1, "♤": 4, "♡": 3,
         "♢": 2, "♧": 1}  # fmt: skip
# Portuguese card letters: Valete, Dama, Rei; Espadas, Copas, Ouros, Paus. Accepted next to
# the English ones when the judge is used in Portuguese.
RANKS_PT = {"V": 11, "D": 12, "R": 13}
SUITS_PT = {"E": 4, "C": 3, "O": 2, "P": 1}
SUIT_SYMBOL = {4: "♠", 3: "♥", 2: "♦", 1: "♣"}
RANK_LABEL = {10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}
CARD = re.compile(r"^(10|[2-9TJQKA])([SHDC♠♥♦♣♤♡♢♧])$", re.IGNORECASE)
CARD_PT = re.compile(r"^(10|[2-9TJQKAVDR])([SHDCEOP♠♥♦♣♤♡♢♧])$", re.IGNORECASE)


class Category(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    RUN = 3
    RUNNING_FLUSH = 4
    PRIAL = 5

    @property
    def slug(self) -> str:
        return self.name.lower()


class HandError(ValueError):
    """Input that cannot be judged: `code` says which problem; the rest name what and whose."""

    def __init__(self, code: str, *, player: str = "", token: str = "", other: str = "") -> None:
        super().__init__(code, player, token, other)
        self.code, self.player, self.token, self.other = code, player, token, other


@dataclass(frozen=True, order=True)
class Card:
    rank: int  # 2..14, ace high
    suit: int  # 1 clubs .. 4 spades

    def __str__(self) -> str:
        return f"{RANK_LABEL.get(self.rank, str(self.rank))}{SUIT_SYMBOL[self.suit]}"


def parse_card(token: str, *, portuguese: bool = False, copas: bool | None = None) -> Card:
    """One card. In Portuguese, C is copas (hearts) rather than clubs unless `copas` says
    otherwise (parse_hand decides it from the hand's other letters)."""
    if not portuguese:
        match = CARD.match(token.strip().upper())
        if not match:
            raise HandError("unknown_card", token=token)
        return Card(RANKS[match.group(1)], SUITS[match.group(2)])
    match = CARD_PT.match(token.strip().upper())
    if not match:
        raise HandError("unknown_card", token=token)
    rank_letter, suit_letter = match.groups()
    rank = RANKS_PT.get(rank_letter) or RANKS[rank_letter]
    if suit_letter == "C":
        suit = SUITS_PT["C"] if copas is not False else SUITS["C"]
    else:
        suit = SUITS_PT.get(suit_letter) or SUITS[suit_letter]
    return Card(rank, suit)


def _notation(token: str) -> str | None:
    """ "pt" or "en" when a token's letters say which notation it is written in."""
    match = CARD_PT.match(token.strip().upper())
    if not match:
        return None
    rank_letter, suit_letter = match.groups()
    if rank_letter in RANKS_PT or suit_letter in "EOP":
        return "pt"
    if rank_letter in "TJQK" or suit_letter in "SHD":
        return "en"
    return None


def parse_hand(text: str, *, portuguese: bool = False) -> tuple[Card, Card, Card]:
    """'QS 7D 4C', 'Q♠ 7♦ 4♣' or '10h, 10c, 2s': exactly three different cards. In
    Portuguese 'DE 7O 4P' too; a C is copas unless the hand is otherwise written in English."""
    tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
    copas = None
    if portuguese:
        notations = {_notation(token) for token in tokens} - {None}
        copas = notations != {"en"}
    cards = [parse_card(token, portuguese=portuguese, copas=copas) for token in tokens]
    if len(cards) != 3:
        raise HandError("not_three", token=str(len(cards)))
    if len(set(cards)) != 3:
        raise HandError("card_twice", token=str(next(c for c in cards if cards.count(c) > 1)))
    return _highest_first(cards)


def _highest_first(cards: Iterable[Card]) -> tuple[Card, Card, Card]:
    """Three cards sorted highest first (by rank, then suit)."""
    high, middle, low = sorted(cards, reverse=True)
    return high, middle, low


@dataclass(frozen=True)
class Ranked:
    """A hand's category and the key that orders it: a larger key is a better hand."""

    cards: tuple[Card, Card, Card]  # highest rank first
    category: Category
    ranks: tuple[int, ...]  # what compares within the category, most significant first
    tie_suit: int  # the suit that breaks a tie of exactly equal ranks

    @property
    def key(self) -> tuple:
        return (self.category, self.ranks, self.tie_suit)


def rank_hand(cards: tuple[Card, Card, Card]) -> Ranked:
    cards = _highest_first(cards)
    values = [c.rank for c in cards]  # descending
    flush = len({c.suit for c in cards}) == 1
    if values[0] == values[2]:
        # Threes are the best prial.
        return Ranked(
            cards,
            Category.PRIAL,
            (15 if values[0] == 3 else values[0],),
            max(c.suit for c in cards),
        )
    run_top = None
    if values == [14, 3, 2]:
        run_top = 15  # A-2-3: the best run of all; the ace plays low
    elif values[0] - values[1] == 1 and values[1] - values[2] == 1:
        run_top = values[0]
    if run_top is not None:
        highest = cards[1] if run_top == 15 else cards[0]  # in A-2-3 the 3 is the highest card
        category = Category.RUNNING_FLUSH if flush else Category.RUN
        return Ranked(cards, category, (run_top,), highest.suit)
    if flush:
        return Ranked(cards, Category.FLUSH, tuple(values), cards[0].suit)
    if values[0] == values[1] or values[1] == values[2]:
        pair = values[1]
        kicker = values[2] if values[0] == values[1] else values[0]
        # A pair on top: the better suit of the two; else the odd card is the highest.
        on_top = [c.suit for c in cards if c.rank == pair] if pair > kicker else [cards[0].suit]
        suit = max(on_top)
        return Ranked(cards, Category.PAIR, (pair, kicker), suit)
    return Ranked(cards, Category.HIGH_CARD, tuple(values), cards[0].suit)


def compare(a: Ranked, b: Ranked) -> int:
    """1 if a beats b, -1 if b beats a, 0 only for hands that cannot share one deck."""
    return (a.key > b.key) - (a.key < b.key)


def decided_by_suit(a: Ranked, b: Ranked) -> bool:
    return a.category == b.category and a.ranks == b.ranks and a.tie_suit != b.tie_suit


def judge(hands: dict[str, str], *, portuguese: bool = False) -> list[tuple[str, Ranked]]:
    """Every hand ranked, best first. Raises HandError naming the player for bad input."""
    if len(hands) < 2:
        raise HandError("too_few", token=str(len(hands)))
    if len(hands) > SHOWDOWN_MAX_HANDS:
        raise HandError("too_many", token=str(len(hands)))
    ranked: dict[str, Ranked] = {}
    seen: dict[Card, str] = {}  # each card dealt: whose hand holds it
    for name, text in hands.items():
        try:
            cards = parse_hand(text, portuguese=portuguese)
        except HandError as error:
            raise HandError(error.code, player=name, token=error.token) from None
        for card in cards:
            if card in seen:  # one deck: no card can be in two hands
                raise HandError("card_twice", player=name, token=str(card), other=seen[card])
            seen[card] = name
        ranked[name] = rank_hand(cards)
    return sorted(ranked.items(), key=lambda item: item[1].key, reverse=True)
