from django.contrib import admin

from .models import AllTimeTotal, DailyTally, Match, Player, Seat, StandingsStamp, Table, Tap


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    raw_id_fields = ["player"]


class TapInline(admin.TabularInline):
    model = Tap
    extra = 0
    raw_id_fields = ["player", "tapped_by", "undone_by"]
    readonly_fields = ["tapped_at"]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name"]


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ["name", "mode", "created_at", "closed_at", "created_by"]
    list_filter = ["mode", "closed_at"]
    search_fields = ["name"]
    readonly_fields = ["version"]


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["table", "number", "status", "winner", "opened_at", "filed_at"]
    list_filter = ["status"]
    list_select_related = ["table", "winner"]
    raw_id_fields = ["table", "first_dealer", "winner"]
    inlines = [SeatInline, TapInline]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ["match", "position", "player", "place"]
    list_select_related = ["match__table", "player"]
    raw_id_fields = ["match", "player"]


@admin.register(Tap)
class TapAdmin(admin.ModelAdmin):
    list_display = ["match", "player", "place", "tapped_by", "tapped_at", "undone_at"]
    list_select_related = ["match__table", "player", "tapped_by"]
    raw_id_fields = ["match", "player", "tapped_by", "undone_by"]


@admin.register(DailyTally, AllTimeTotal)
class CountsAdmin(admin.ModelAdmin):
    list_display = ["player", "table", "played", "wins", "seconds", "thirds", "points"]
    list_select_related = ["player", "table"]
    raw_id_fields = ["player", "table"]


@admin.register(StandingsStamp)
class StandingsStampAdmin(admin.ModelAdmin):
    list_display = ["epoch", "version"]
    readonly_fields = ["epoch", "version"]
