from django.conf import settings
from django.urls import path, re_path, register_converter

from matches.web.converters import IdConverter
from matches.web.views import api as views_api
from matches.web.views import corrections as views_corrections
from matches.web.views import finals as views_finals
from matches.web.views import history as views_history
from matches.web.views import home as views_home
from matches.web.views import language as views_language
from matches.web.views import league as views_league
from matches.web.views import offline
from matches.web.views import player_names as views_player_names
from matches.web.views import players as views_players
from matches.web.views import rules as views_rules
from matches.web.views import seasons as views_seasons
from matches.web.views import seating as views_seating
from matches.web.views import setup as views_setup
from matches.web.views import standings as views_standings
from matches.web.views import streams as views_streams
from matches.web.views import tables as views_tables
from matches.web.views import tonight as views_tonight
from matches.web.views import tv as views_tv
from matches.web.views import venue_screens as views_venue_screens
from matches.web.views import venues as views_venues

app_name = "matches"

# Ids and match numbers in paths: digits within the databases' 64-bit range, else a 404.
register_converter(IdConverter, "id")

urlpatterns = [
    # Answered by brag_tables.asgi's stream hub under uvicorn; here only where Django serves
    # alone (make dev, a WSGI server): the page polls.
    re_path(
        rf"^{settings.BRAG_STREAM_PREFIX.strip('/')}/",
        views_streams.no_stream,
        name="no_stream",
    ),
    path("", views_home.home, name="home"),
    path("sw.js", offline.service_worker, name="service_worker"),
    path("manifest.webmanifest", offline.manifest, name="manifest"),
    path("favicon.ico", offline.favicon, name="favicon"),
    path("setup/", views_setup.setup, name="setup"),
    path("tables/new/", views_tables.table_new, name="table_new"),
    path("tables/<id:table_id>/", views_tables.table_detail, name="table"),
    path("tables/<id:table_id>/tap/", views_tables.table_tap, name="tap"),
    path("tables/<id:table_id>/undo/", views_tables.table_undo, name="undo"),
    path("tables/<id:table_id>/roster/", views_tables.table_roster, name="roster"),
    path("tables/<id:table_id>/close/", views_tables.table_close, name="close"),
    path("tables/<id:table_id>/reopen/", views_tables.table_reopen, name="reopen"),
    path("tables/<id:table_id>/qr.svg", views_tables.table_qr, name="qr"),
    path("tables/<id:table_id>/matches/", views_history.table_matches, name="matches"),
    path("tables/<id:table_id>/matches/<id:number>/", views_history.match_detail, name="match"),
    path(
        "tables/<id:table_id>/matches/<id:number>/correct/",
        views_corrections.match_correct,
        name="match_correct",
    ),
    path("tables/<id:table_id>/board/", views_tv.table_tv, name="tv"),
    # The night's story and its share card.
    path("tables/<id:table_id>/tonight/", views_tonight.table_tonight, name="tonight"),
    path("tables/<id:table_id>/tonight.png", views_tonight.table_tonight_png, name="tonight_png"),
    path("tables/<id:table_id>/standings/", views_standings.standings, name="table_standings"),
    path(
        "tables/<id:table_id>/results.csv",
        views_history.table_results_csv,
        name="table_results_csv",
    ),
    # A venue's TV for the season, and its standings for the pub's own website to frame.
    path("venues/<slug:slug>/board/", views_venue_screens.venue_board, name="venue_board"),
    path(
        "venues/<slug:slug>/standings/embed/",
        views_venue_screens.venue_standings_embed,
        name="venue_standings_embed",
    ),
    path("standings/", views_standings.standings, name="standings"),
    path("standings.csv", views_standings.standings_csv, name="standings_csv"),
    path("results.csv", views_standings.league_results_csv, name="results_csv"),
    path("players/<id:player_id>/", views_league.player_detail, name="player"),
    path(
        "players/<id:player_id>/vs/<id:other_id>/",
        views_league.player_pair,
        name="player_pair",
    ),
    path("players/<id:player_id>/rename/", views_players.player_rename, name="player_rename"),
    path("players/<id:player_id>/merge/", views_players.player_merge, name="player_merge"),
    path("players/", views_players.player_list, name="players"),
    path("players/merges/", views_players.player_merges, name="player_merges"),
    path(
        "players/merges/<id:merge_id>/undo/",
        views_players.player_merge_undo,
        name="player_merge_undo",
    ),
    # Players' names in public.
    path(
        "players/<id:player_id>/public-name/",
        views_player_names.player_public_name,
        name="player_public_name",
    ),
    path("players/<id:player_id>/erase/", views_player_names.player_erase, name="player_erase"),
    path("api/tables/<id:table_id>/", views_api.api_table, name="api_table"),
    path(
        "api/tables/<id:table_id>/matches/", views_api.api_table_matches, name="api_table_matches"
    ),
    path("api/standings/", views_standings.api_standings, name="api_standings"),
    path("seasons/", views_seasons.season_list, name="seasons"),
    path("seasons/new/", views_seasons.season_new, name="season_new"),
    path("seasons/<id:season_id>/", views_seasons.season_detail, name="season"),
    path("seasons/<id:season_id>/edit/", views_seasons.season_edit, name="season_edit"),
    path("seasons/<id:season_id>/rules/", views_seasons.season_rules_edit, name="season_rules"),
    path(
        "seasons/<id:season_id>/qualifiers/",
        views_seasons.season_qualifiers,
        name="season_qualifiers",
    ),
    path(
        "api/seasons/<id:season_id>/qualifiers/",
        views_seasons.api_season_qualifiers,
        name="api_season_qualifiers",
    ),
    path("seasons/<id:season_id>/delete/", views_seasons.season_delete, name="season_delete"),
    path("seasons/<id:season_id>/finals/", views_finals.finals_page, name="finals"),
    path("seasons/<id:season_id>/finals/new/", views_finals.finals_new, name="finals_new"),
    path("seasons/<id:season_id>/finals/board/", views_finals.finals_board, name="finals_board"),
    path("api/players/<id:player_id>/", views_league.api_player, name="api_player"),
    path("api/ratings/", views_league.api_ratings, name="api_ratings"),
    path("language/", views_language.language_switch, name="language"),
    path("rules/", views_rules.rules, name="rules"),
    path("rules/showdown/", views_rules.showdown_page, name="showdown"),
    path("api/showdown/", views_rules.api_showdown, name="api_showdown"),
    # Venues, their hosts, and the invitation link a new host follows.
    path("venues/", views_venues.venue_list, name="venues"),
    path("venues/new/", views_venues.venue_new, name="venue_new"),
    path("venues/<slug:slug>/", views_venues.venue_detail, name="venue"),
    path("venues/<slug:slug>/settings/", views_venues.venue_settings, name="venue_settings"),
    path("venues/<slug:slug>/rename/", views_venues.venue_rename, name="venue_rename"),
    path(
        "venues/<slug:slug>/frame-origins/",
        views_venues.venue_frame_origins,
        name="venue_frame_origins",
    ),
    path("venues/<slug:slug>/invitations/", views_venues.venue_invite, name="venue_invite"),
    path(
        "venues/<slug:slug>/hosts/<id:user_id>/remove/",
        views_venues.venue_host_remove,
        name="venue_host_remove",
    ),
    path(
        "venues/<slug:slug>/hosts/<id:user_id>/manager/",
        views_venues.venue_manager_grant,
        name="venue_manager_grant",
    ),
    path(
        "venues/<slug:slug>/hosts/<id:user_id>/organiser/",
        views_venues.organiser_grant,
        name="organiser_grant",
    ),
    path("invitations/<str:token>/", views_venues.invitation, name="invitation"),
    # The seat picker's search (hosts only).
    path("api/players/search/", views_seating.api_player_search, name="api_player_search"),
]
