"""A season's finals night: the finalists and how they were drawn into heats, each heat and
the final a table of its own (Table.finals), and the champion, the final's winner."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from matches.models.standings import Season
from matches.models.tables import Player, Table, TableMode
from matches.models.venues import Venue
from matches.rules import finals as finals_rules


class FinalsSeeding(models.TextChoices):
    SPREAD = finals_rules.SPREAD, _("Seeded: top seeds in different heats")
    RANDOM = finals_rules.RANDOM, _("Drawn at random")


class FinalsEvent(models.Model):
    """One season's finals night, held at one venue on a night after the season's last day
    (so its matches never count in the season's own standings)."""

    Seeding = FinalsSeeding

    season = models.OneToOneField(
        Season, on_delete=models.CASCADE, related_name="finals", verbose_name=_("season")
    )
    venue = models.ForeignKey(
        Venue, on_delete=models.PROTECT, related_name="+", verbose_name=_("venue")
    )
    night = models.DateField(_("night"))
    mode = models.CharField(_("mode"), max_length=20, choices=TableMode.choices)
    seeding = models.CharField(_("seeding"), max_length=10, choices=FinalsSeeding.choices)
    # The random draw's seed, kept so the draw can be shown and made again (random only).
    draw_seed = models.BigIntegerField(_("draw seed"), null=True, blank=True)
    heat_count = models.PositiveSmallIntegerField(_("heats"))
    # How many of the heats' runners-up (best season position first) join the winners.
    runners_up = models.PositiveSmallIntegerField(_("runners-up through"), default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("finals night")
        verbose_name_plural = _("finals nights")
        ordering = ["-night", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(seeding__in=[FinalsSeeding.SPREAD, FinalsSeeding.RANDOM]),
                name="finals_seeding_valid",
            ),
            models.CheckConstraint(
                condition=Q(seeding=FinalsSeeding.RANDOM) | Q(draw_seed__isnull=True),
                name="finals_draw_seed_only_random",
            ),
            models.CheckConstraint(
                condition=Q(heat_count__gte=finals_rules.MIN_HEATS), name="finals_heats_min"
            ),
            models.CheckConstraint(
                condition=Q(runners_up__lte=models.F("heat_count")),
                name="finals_runners_up_per_heat",
            ),
        ]

    def __str__(self) -> str:
        return str(self.season)


class FinalsEntry(models.Model):
    """A finalist: their season position among the finalists, where they qualified, their
    place in the draw and the heat it gave them."""

    event = models.ForeignKey(
        FinalsEvent, on_delete=models.CASCADE, related_name="entries", verbose_name=_("finals")
    )
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="+", verbose_name=_("player")
    )
    season_rank = models.PositiveSmallIntegerField(_("season position"))
    venue = models.ForeignKey(
        Venue,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("qualified at"),
    )
    # 1-based: the order the draw (or the seeding) dealt the finalists into heats.
    draw_position = models.PositiveSmallIntegerField(_("place in the draw"))
    heat = models.PositiveSmallIntegerField(_("heat"))

    class Meta:
        verbose_name = _("finalist")
        verbose_name_plural = _("finalists")
        ordering = ["event", "draw_position"]
        constraints = [
            models.UniqueConstraint(fields=["event", "player"], name="finals_entry_player_once"),
            models.UniqueConstraint(fields=["event", "season_rank"], name="finals_entry_rank_once"),
            models.UniqueConstraint(
                fields=["event", "draw_position"], name="finals_entry_draw_once"
            ),
            models.CheckConstraint(condition=Q(season_rank__gte=1), name="finals_rank_positive"),
            models.CheckConstraint(condition=Q(heat__gte=1), name="finals_entry_heat_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.event}"


class FinalsTable(models.Model):
    """A heat (numbered) or the final (no number) of a finals night, and its table. The
    winner is stored when its one match is filed (the final's: the season's champion) and
    cleared when that crowning is undone."""

    event = models.ForeignKey(
        FinalsEvent, on_delete=models.CASCADE, related_name="stages", verbose_name=_("finals")
    )
    table = models.OneToOneField(
        Table, on_delete=models.PROTECT, related_name="finals_stage", verbose_name=_("table")
    )
    heat = models.PositiveSmallIntegerField(_("heat"), null=True, blank=True)
    winner = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("winner"),
    )

    class Meta:
        verbose_name = _("finals table")
        verbose_name_plural = _("finals tables")
        ordering = ["event", "heat", "id"]
        constraints = [
            models.UniqueConstraint(fields=["event", "heat"], name="finals_heat_once"),
            # One final per finals night: the last heat's filing opens it exactly once.
            models.UniqueConstraint(
                fields=["event"], condition=Q(heat__isnull=True), name="finals_one_final"
            ),
            models.CheckConstraint(
                condition=Q(heat__isnull=True) | Q(heat__gte=1),
                name="finals_heat_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} · {self.heat or 'final'}"

    @property
    def is_final(self) -> bool:
        return self.heat is None
