"""The night's share card: a 1080x1080 PNG of the story, drawn on our own server with Pillow
and the DejaVu fonts shipped in static/fonts (no web font from outside; DejaVu covers every
accent a Portuguese or Polish name needs). The layout is worked out first, every line
measured, so a long name shrinks and then ends in "…" instead of leaving the canvas; the
tests check those measures."""

import io
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.utils.formats import date_format
from django.utils.translation import gettext
from PIL import Image, ImageDraw, ImageFont

from matches.play.story import Story
from matches.web import story as words

SIZE = 1080
MARGIN = 64
RIGHT = SIZE - MARGIN
FONTS = Path(settings.BASE_DIR) / "static" / "fonts"
REGULAR = "DejaVuSansCondensed.ttf"
BOLD = "DejaVuSansCondensed-Bold.ttf"
ELLIPSIS = "…"

BACKGROUND = (16, 42, 34)
TEXT = (245, 239, 224)
MUTED = (170, 186, 175)
GOLD = (231, 186, 80)


@lru_cache(maxsize=128)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONTS / (BOLD if bold else REGULAR)), size)


def text_width(text: str, size: int, bold: bool = False) -> int:
    return round(font(size, bold).getlength(text))


@dataclass(frozen=True)
class Line:
    """One line of text placed on the card: where, how big, and its measured box."""

    text: str
    x: int
    y: int
    size: int
    bold: bool
    fill: tuple[int, int, int]
    width: int

    @property
    def height(self) -> int:
        ascent, descent = font(self.size, self.bold).getmetrics()
        return ascent + descent


def fit(text: str, width: int, size: int, smallest: int, bold: bool = False) -> tuple[str, int]:
    """The text at the largest size from size down to smallest that fits width; at the
    smallest, cut short with an ellipsis."""
    for candidate in range(size, smallest - 1, -2):
        if text_width(text, candidate, bold) <= width:
            return text, candidate
    size = smallest
    while text and text_width(text + ELLIPSIS, size, bold) > width:
        text = text[:-1]
    return text.rstrip() + ELLIPSIS, size


def wrap(text: str, width: int, size: int, lines: int, bold: bool = False) -> list[str]:
    """Words into at most `lines` lines of width at this size; what is left over is cut
    with an ellipsis, as is a single word wider than the line."""
    result: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if text_width(candidate, size, bold) <= width:
            current = candidate
            continue
        if current:
            result.append(current)
        current = word
    if current:
        result.append(current)
    if len(result) > lines:
        result = [*result[: lines - 1], " ".join(result[lines - 1 :])]
    return [fit(line, width, size, size, bold)[0] for line in result]


def wrap_to_fit(
    text: str, width: int, size: int, smallest: int, lines: int, bold: bool = False
) -> tuple[list[str], int]:
    """The largest size (down to smallest) at which the text wraps into `lines` lines whole."""
    for candidate in range(size, smallest - 1, -2):
        wrapped = wrap(text, width, candidate, lines, bold)
        if not any(line.endswith(ELLIPSIS) for line in wrapped) or candidate == smallest:
            return wrapped, candidate
    return wrap(text, width, smallest, lines, bold), smallest  # pragma: no cover


def _place(text: str, x: int, y: int, size: int, bold: bool, fill, *, right: bool = False) -> Line:
    width = text_width(text, size, bold)
    return Line(text, x - width if right else x, y, size, bold, fill, width)


def layout(story: Story) -> list[Line]:
    """Every line of the card, placed and measured."""
    placed: list[Line] = [_place("Brag Tables", MARGIN, 48, 30, True, GOLD)]
    title, size = fit(story.table.name, RIGHT - MARGIN, 64, 36, bold=True)
    placed.append(_place(title, MARGIN, 92, size, True, TEXT))
    night = gettext("Night of %(date)s") % {"date": date_format(story.night, "DATE_FORMAT")}
    night, size = fit(night, RIGHT - MARGIN, 34, 24)
    placed.append(_place(night, MARGIN, 176, size, False, MUTED))

    champion, size = wrap_to_fit(
        words.champion_sentence(story), RIGHT - MARGIN, 44, 28, lines=2, bold=True
    )
    for n, text in enumerate(champion):
        placed.append(_place(text, MARGIN, 236 + n * round(size * 1.25), size, True, GOLD))

    placed += _rows(story, top=370, bottom=880)

    footer = [*words.run_sentences(story)]
    if upset := words.upset_sentence(story):
        footer.append(upset)
    if footer:
        wrapped, size = wrap_to_fit(" ".join(footer), RIGHT - MARGIN, 30, 20, lines=4)
        for n, line in enumerate(wrapped):
            placed.append(_place(line, MARGIN, 900 + n * round(size * 1.22), size, False, TEXT))
    return placed


# Numbers, right-aligned at these edges, each column this wide.
COLUMN = 112
GAP = 24


def _rows(story: Story, *, top: int, bottom: int) -> list[Line]:
    """The players' table: a header, then one row each, sized to fit however many."""
    if not story.lines:
        return []
    headings = [gettext("Points")] if story.ranked else []
    headings += [gettext("Wins"), gettext("Played"), gettext("Rating")]
    edges = [RIGHT - COLUMN * n for n in reversed(range(len(headings)))]
    name_width = edges[0] - COLUMN - GAP - MARGIN
    placed = [_place(gettext("Player"), MARGIN, top, 26, True, MUTED)]
    for heading, edge in zip(headings, edges, strict=True):
        text, size = fit(heading, COLUMN - 8, 26, 18, bold=True)
        placed.append(_place(text, edge, top + 26 - size, size, True, MUTED, right=True))
    row = min(62, (bottom - top - 44) // len(story.lines))
    size = max(20, round(row * 0.6))
    champions = {line.player_id for line in story.champions}
    for n, line in enumerate(story.lines):
        y = top + 44 + n * row
        fill = GOLD if line.player_id in champions else TEXT
        name, name_size = fit(line.player, name_width, size, 18, bold=True)
        placed.append(_place(name, MARGIN, y + (size - name_size), name_size, True, fill))
        numbers = [line.points or 0] if story.ranked else []
        numbers += [line.wins, line.played]
        cells = [str(number) for number in numbers] + [words.signed(line.rating_change)]
        for cell, edge in zip(cells, edges, strict=True):
            placed.append(_place(cell, edge, y, size, False, fill, right=True))
    return placed


def draw(placed: list[Line]) -> bytes:
    """The card as PNG bytes."""
    image = Image.new("RGB", (SIZE, SIZE), BACKGROUND)
    pen = ImageDraw.Draw(image)
    pen.rectangle((0, 0, SIZE - 1, 12), fill=GOLD)
    for line in placed:
        pen.text((line.x, line.y), line.text, font=font(line.size, line.bold), fill=line.fill)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def share_card(story: Story) -> bytes:
    """The night's story as a 1080x1080 PNG in the active language."""
    return draw(layout(story))
