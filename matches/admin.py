from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db import IntegrityError, transaction
from django.db.models import F

from matches.core.errors import RuleError
from matches.core.stamp import standings_changed, tables_bump
from matches.models import (
    AllTimeTotal,
    DailyTally,
    HostProfile,
    Match,
    MatchCorrection,
    Player,
    PlayerMerge,
    Seat,
    StandingsStamp,
    Table,
    Tap,
    VenueRole,
)
from matches.play.services.tables import table_name_clean
from matches.ratings.schedule import first_filed_position
from matches.results.filing import tables_deleted
from matches.results.players.services import (
    player_lock,
    player_name_available,
    player_renamed_message,
)
from matches.web.forms.accounts import AdminLoginForm, HostProfileForm
from matches.web.forms.errors import refused_as_invalid

# The admin's login refuses an overlong username before django-axes records it, as the
# app's own login does.
admin.site.login_form = AdminLoginForm


class ReadOnly:
    """Results are written by the services, which keep every aggregate (tallies, totals,
    running totals, pairs, nights, ratings) and the table's change counter in step: a raw
    add, edit or delete here would bypass them all, and nothing could tell the damage from a
    result. The admin only shows them; the app's undo and correction change them."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class HostProfileInline(admin.StackedInline):
    """A host's display name, on the user's own page: what the public sees of them."""

    model = HostProfile
    form = HostProfileForm
    can_delete = False
    max_num = 1


class VenueRoleInline(admin.TabularInline):
    """Where the user hosts or manages: a change here is in the user's admin history, as
    the venue pages' own changes are (org.venues)."""

    model = VenueRole
    extra = 0
    fields = ["venue", "kind"]


class HostAdmin(UserAdmin):
    inlines = [*UserAdmin.inlines, HostProfileInline, VenueRoleInline]


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), HostAdmin)


class ReadOnlyInline(ReadOnly, admin.TabularInline):
    extra = 0


class ReadOnlyAdmin(ReadOnly, admin.ModelAdmin):
    pass


# What a table's delete takes with it, and the results' admins never delete on their own.
RESULTS = (Match, Seat, Tap, MatchCorrection, DailyTally, AllTimeTotal)


class SeatInline(ReadOnlyInline):
    model = Seat


class TapInline(ReadOnlyInline):
    model = Tap


class CorrectionInline(ReadOnlyInline):
    model = MatchCorrection


class PlayerForm(forms.ModelForm):
    class Meta:
        model = Player
        fields = ["name"]

    # Set by PlayerAdmin when another save took the name between this check and the save.
    taken_message: str | None = None

    def clean_name(self) -> str:
        # The services' rules, so an admin edit cannot make two players read the same.
        with refused_as_invalid():
            name = player_name_available(name=self.cleaned_data["name"], player_id=self.instance.pk)
        if self.taken_message is not None:
            raise forms.ValidationError(self.taken_message)
        return name


class TableForm(forms.ModelForm):
    class Meta:
        model = Table
        fields = ["name", "mode", "created_by"]

    def clean_name(self) -> str:
        # The launch's rules: no invisible characters, stored normalised.
        with refused_as_invalid():
            return table_name_clean(self.cleaned_data["name"])


class NameTakenMeanwhile(Exception):
    """The unique key refused a name the form had found free: another save took it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class StandingsShownAdmin(admin.ModelAdmin):
    """Edits here change what the standings show; the admin wraps each in a transaction."""

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if change:
            # Tables before the stamp, in the order a tap takes them: an admin edit and a
            # crowning never wait on each other in a circle.
            self.bump_tables_showing(obj)
        standings_changed()

    def bump_tables_showing(self, obj) -> None:
        """Move on the version of every table whose pages show what obj just changed."""

    def delete_model(self, request, obj) -> None:
        super().delete_model(request, obj)
        standings_changed()

    def delete_queryset(self, request, queryset) -> None:
        super().delete_queryset(request, queryset)
        standings_changed()


@admin.register(Player)
class PlayerAdmin(StandingsShownAdmin):
    form = PlayerForm
    list_display = ["name", "created_at"]
    search_fields = ["name"]

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        # An erased player's name is gone for good: nothing to type back in.
        return ["name"] if obj is not None and obj.erased_at is not None else []

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except NameTakenMeanwhile as taken:
            # Nothing was saved (the admin's transaction rolled back): show the form again with
            # the error the check gives, as if it had run a moment later.
            request._player_name_taken = taken.message
            return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        taken = getattr(request, "_player_name_taken", None)
        return form if taken is None else type(form.__name__, (form,), {"taken_message": taken})

    def save_model(self, request, obj, form, change) -> None:
        try:
            with transaction.atomic():
                if change:
                    # The order of every write on a player (player_lock's, and why): the
                    # row claimed, its tables, the stamp, and only then a new name (its key).
                    player_lock(obj.pk)
                    self.bump_tables_showing(obj)
                    standings_changed()
                    admin.ModelAdmin.save_model(self, request, obj, form, change)
                else:
                    super().save_model(request, obj, form, change)
        except IntegrityError:
            try:
                player_name_available(name=obj.name, player_id=obj.pk)
            except RuleError as error:
                raise NameTakenMeanwhile(str(error.message)) from None
            raise

    def bump_tables_showing(self, obj) -> None:
        # Every table the player sat at shows the name: its pages must not answer 304.
        tables_bump(player_ids=[obj.pk])

    def construct_change_message(self, request, form, formsets, add=False):
        # A rename names the earlier name with the record's id, as the app's rename does:
        # an erasure takes every name the record has had.
        if not add and "name" in form.changed_data:
            return player_renamed_message(form.initial["name"], form.instance)
        return super().construct_change_message(request, form, formsets, add)


@admin.register(Table)
class TableAdmin(StandingsShownAdmin):
    form = TableForm
    list_display = ["name", "mode", "created_at", "closed_at", "created_by"]
    list_filter = ["mode", "closed_at"]
    search_fields = ["name"]
    # Closing discards the open match, so clearing closed_at here would reopen a table with
    # nothing to tap: reopening is the app's (a service), never a raw edit.
    readonly_fields = ["version", "closed_at"]

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        # Filed matches were counted into the standings by the mode they were played in.
        return [*self.readonly_fields, "mode"] if obj is not None else self.readonly_fields

    def save_model(self, request, obj, form, change) -> None:
        if change:
            # Never written back from the form's read: a tap committed since is not taken back.
            obj.version = F("version")
        super().save_model(request, obj, form, change)

    def bump_tables_showing(self, obj) -> None:
        # Moved on in the database: the table's pages (and their ETags) show the edit.
        tables_bump(table_ids=[obj.pk])
        obj.refresh_from_db(fields=["version"])

    # A deleted table takes its matches and tallies with it; what is kept per player across
    # tables (running totals, head-to-head pairs, nights) is counted afresh from what is left,
    # and the ratings from its first filing on are replayed.
    def get_deleted_objects(self, objs, request):
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        # The results' own admins refuse deleting one match or tally behind the aggregates'
        # back; going with their table, they are counted out by delete_model below.
        results = {str(m._meta.verbose_name) for m in RESULTS}  # in the request's language
        return deleted, counts, {p for p in perms_needed if str(p) not in results}, protected

    def delete_model(self, request, obj) -> None:
        players, first = _players_tallied_at([obj.pk]), first_filed_position(table_ids=[obj.pk])
        super().delete_model(request, obj)
        tables_deleted(player_ids=players, first_filed=first)

    def delete_queryset(self, request, queryset) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        players, first = _players_tallied_at(ids), first_filed_position(table_ids=ids)
        super().delete_queryset(request, queryset)
        tables_deleted(player_ids=players, first_filed=first)


def _players_tallied_at(table_ids: list[int]) -> list[int]:
    tallies = DailyTally.objects.filter(table_id__in=table_ids)
    return list(tallies.values_list("player_id", flat=True).distinct().order_by())


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ["table", "number", "status", "winner", "opened_at", "filed_at"]
    list_filter = ["status"]
    list_select_related = ["table", "winner"]
    raw_id_fields = ["table", "first_dealer", "winner"]
    inlines = [SeatInline, TapInline, CorrectionInline]


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ["match", "position", "player", "place"]
    list_select_related = ["match__table", "player"]
    raw_id_fields = ["match", "player"]


@admin.register(Tap)
class TapAdmin(ReadOnlyAdmin):
    list_display = ["match", "player", "place", "tapped_by", "tapped_at", "undone_at"]
    list_select_related = ["match__table", "player", "tapped_by"]
    raw_id_fields = ["match", "player", "tapped_by", "undone_by"]


@admin.register(MatchCorrection)
class MatchCorrectionAdmin(ReadOnlyAdmin):
    # The orders are seat ids: the match's page reads them with each player's name now.
    list_display = ["match", "corrected_by", "corrected_at"]
    list_select_related = ["match__table", "corrected_by"]
    raw_id_fields = ["match", "corrected_by", "through_tap"]


@admin.register(PlayerMerge)
class PlayerMergeAdmin(ReadOnlyAdmin):
    """Merges are made and undone from the players' pages (a service moves every row back);
    the admin shows them, and each one's history names who merged and who undid."""

    list_display = ["absorbed_name", "kept_id", "merged_at", "merged_by", "undone_at", "undone_by"]
    list_select_related = ["merged_by", "undone_by"]
    exclude = ["seat_ids", "tap_ids", "absorbed"]


@admin.register(DailyTally, AllTimeTotal)
class CountsAdmin(ReadOnlyAdmin):
    list_display = ["player", "table", "played", "wins", "seconds", "thirds", "points"]
    list_select_related = ["player", "table"]
    raw_id_fields = ["player", "table"]


@admin.register(StandingsStamp)
class StandingsStampAdmin(admin.ModelAdmin):
    list_display = ["epoch", "version"]
    readonly_fields = ["epoch", "version"]
