"""The night's story in words, in the reader's language: the sentences the Tonight page, the
share card and the text to copy all say, so the three never disagree."""

from django.utils.formats import date_format
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from matches.play.story import Story, StoryLine
from matches.rules.scoring import place_label


class Words:
    """Plain text: for the share card and the text to copy."""

    def name(self, name: str) -> str:
        return name

    def say(self, template: str, params: dict) -> str:
        return template % params


class HtmlWords(Words):
    """For the page: every name isolated (bdi), so a right-to-left name cannot reorder the
    words around it, and the sentence escaped but for those tags."""

    def name(self, name: str) -> str:
        return format_html("<bdi>{}</bdi>", name)

    def say(self, template: str, params: dict) -> str:
        # Every value is escaped on its way in: names by name(), anything else here.
        escaped = {
            key: value if isinstance(value, (int, SafeString)) else conditional_escape(value)
            for key, value in params.items()
        }
        return mark_safe(conditional_escape(template) % escaped)  # noqa: S308


PLAIN = Words()
HTML = HtmlWords()


def names_joined(names: list[str], words: Words = PLAIN) -> str:
    """ "Ana", "Ana and Ben", "Ana, Ben and Cara" in the reader's language (names as words
    made them)."""
    if len(names) < 2:
        return "".join(names)
    head = words.say(", ".join(f"%(n{i})s" for i in range(len(names) - 1)), {
        f"n{i}": name for i, name in enumerate(names[:-1])
    })  # fmt: skip
    return words.say(gettext("%(names)s and %(last)s"), {"names": head, "last": names[-1]})


def night_title(story: Story) -> str:
    """ "Front bar, night of 1 December 2026"."""
    return gettext("%(table)s, night of %(date)s") % {
        "table": story.table.name,
        "date": date_format(story.night, "DATE_FORMAT"),
    }


def score_words(story: Story, score: int) -> str:
    """ "7 points" at a ranked table, "3 wins" at a winner-takes-all one."""
    if story.ranked:
        return ngettext("%(n)d point", "%(n)d points", score) % {"n": score}
    return ngettext("%(n)d win", "%(n)d wins", score) % {"n": score}


def ahead_words(story: Story, words: Words = PLAIN) -> str | None:
    """ "ahead of Ben on wins": the tie-break that crowned a lone champion level on score
    with the runner-up, as the standings word it; None when the score alone did."""
    if story.ahead_on is None or story.ahead_of is None:
        return None
    templates = {
        "wins": gettext("ahead of %(name)s on wins"),
        "seconds": gettext("ahead of %(name)s on 2nds"),
        "thirds": gettext("ahead of %(name)s on 3rds"),
        "played": gettext("ahead of %(name)s on fewer played"),
    }
    return words.say(templates[story.ahead_on], {"name": words.name(story.ahead_of)})


def champion_sentence(story: Story, words: Words = PLAIN) -> str:
    """Who was champion of the night, on what (and the tie-break, when one decided it);
    shared only when level on every step of the night's order."""
    if not story.champions:
        return gettext("No match was filed this night.")
    score = score_words(story, story.champion_score)
    names = [words.name(line.player) for line in story.champions]
    if len(names) == 1:
        if (ahead := ahead_words(story, words)) is not None:
            template = gettext("Champion of the night: %(name)s, with %(score)s, %(ahead)s.")
            return words.say(template, {"name": names[0], "score": score, "ahead": ahead})
        template = gettext("Champion of the night: %(name)s, with %(score)s.")
        return words.say(template, {"name": names[0], "score": score})
    template = gettext("Shared champions of the night, level on %(score)s: %(names)s.")
    return words.say(template, {"score": score, "names": names_joined(names, words)})


def run_sentences(story: Story, words: Words = PLAIN) -> list[str]:
    """The longest winning run (two wins or more), one sentence per player holding it."""
    if not story.matches:
        return []
    if not story.runs:
        return [gettext("Nobody won two matches in a row.")]
    template = gettext(
        "Longest winning run: %(name)s, %(count)d wins in a row (matches %(first)d to %(last)d)."
    )
    return [
        words.say(
            template,
            {
                "name": words.name(run.player),
                "count": run.length,
                "first": run.first,
                "last": run.last,
            },
        )
        for run in story.runs
    ]


def upset_sentence(story: Story, words: Words = PLAIN) -> str | None:
    """The biggest upset by rating, with the numbers; None when nothing was filed."""
    upset = story.upset
    if upset is None:
        if not story.matches:
            return None
        return gettext("No upset: every match went to the best-rated player at the table.")
    template = gettext(
        "Biggest upset: %(winner)s won match %(match)d rated %(rating)d, %(gap)d below the "
        "favourite, %(favourite)s (%(favourite_rating)d)."
    )
    return words.say(
        template,
        {
            "winner": words.name(upset.winner),
            "match": upset.match,
            "rating": upset.winner_rating,
            "gap": upset.gap,
            "favourite": words.name(upset.favourite),
            "favourite_rating": upset.favourite_rating,
        },
    )


def signed(change: int | None) -> str:
    """A rating change as people write it: +12, -7, 0; an en dash when unknown."""
    if change is None:
        return "–"
    return f"+{change}" if change > 0 else str(change)


def places_words(story: Story, line: StoryLine) -> str:
    """The places finished, in the order played: "1st, 3rd, 2nd" or "winner, out"."""
    return ", ".join(place_label(story.table.mode, place) for place in line.places)


def line_words(story: Story, line: StoryLine) -> str:
    """A player's night in one line of the text to copy."""
    wins = ngettext("%(n)d win", "%(n)d wins", line.wins) % {"n": line.wins}
    played = ngettext("%(n)d played", "%(n)d played", line.played) % {"n": line.played}
    parts = [score_words(story, line.points or 0)] if story.ranked else []
    parts += [wins, played]
    if line.rating_change is not None:
        parts.append(gettext("rating %(change)s") % {"change": signed(line.rating_change)})
    return f"{line.player}: {', '.join(parts)}"


def place_number(line: StoryLine) -> str:
    """ "1." or, shared, "=1.", as the standings write a shared rank."""
    return f"{'=' if line.shared else ''}{line.place}."


def share_text(story: Story, url: str) -> str:
    """The short version to copy into the pub's group chat: plain text, one fact a line."""
    lines = [night_title(story), champion_sentence(story)]
    if story.lines:
        lines.append("")
        # Numbered by the night's places: players level on every step share one ("=1.").
        lines += [f"{place_number(line)} {line_words(story, line)}" for line in story.lines]
        lines.append("")
        lines += run_sentences(story)
        if upset := upset_sentence(story):
            lines.append(upset)
    lines += ["", url]
    return "\n".join(lines)


def page_sentences(story: Story) -> dict:
    """The page's sentences, names isolated (HtmlWords)."""
    return {
        "champion": champion_sentence(story, HTML),
        "runs": run_sentences(story, HTML),
        "upset": upset_sentence(story, HTML),
    }


def story_context(story: Story | None) -> dict:
    """What templates/matches/_night_story.html reads (nothing without a story)."""
    if story is None:
        return {}
    return {
        "story": story,
        "sentences": page_sentences(story),
        "lines": [(line, places_words(story, line)) for line in story.lines],
    }
