"""The table's read-only JSON: its open match and latest filed matches, and older pages."""

from django.http import HttpResponse
from django.utils import translation
from django.views.decorators.http import condition, require_safe

from matches.core.stamp import Snapshot
from matches.models import Table
from matches.web.caching.headers import shared_cache
from matches.web.caching.renderings import table_response
from matches.web.caching.tags import (
    TABLE_API,
    TABLE_API_MATCHES,
    api_matches_etag,
    api_table_etag,
    filed_before,
    real_names,
)
from matches.web.exports import json_response, table_api, table_api_matches
from matches.web.htmx import HtmxHttpRequest
from matches.web.middleware import language_neutral
from matches.web.views.history import filed_page, older_link


@require_safe
@shared_cache()
@condition(etag_func=api_table_etag)
def api_table(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """The table, its open match and its latest filed matches; next links the older ones."""
    older = older_link("matches:api_table_matches", table_id)
    real = real_names(request)

    def read(table: Table) -> dict:
        with translation.override(None):  # the same document in every language
            return table_api(table=table, link_older=older, real_names=real)

    response = table_response(
        request,
        table_id,
        TABLE_API,
        read,
        lambda snapshot: json_response(snapshot.content),
        keep=True,
    )
    # The same document in every language: a shared cache keeps one copy, not one per
    # Accept-Language (middleware.LanguageNeutralMiddleware drops what LocaleMiddleware adds).
    language_neutral(response)
    return response


@require_safe
@filed_page(json=True)
@shared_cache()
@condition(etag_func=api_matches_etag)
def api_table_matches(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """A page of the table's filed matches (?before=), oldest first, as in the JSON."""
    before = filed_before(request)
    older = older_link("matches:api_table_matches", table_id)
    real = real_names(request)

    def read(table: Table) -> dict:
        with translation.override(None):  # the same document in every language
            return table_api_matches(table=table, before=before, link_older=older, real_names=real)

    response = table_response(
        request, table_id, TABLE_API_MATCHES, read, json_response_of, keep=False
    )
    language_neutral(response)
    return response


def json_response_of(snapshot: Snapshot) -> HttpResponse:
    return json_response(snapshot.content)
