"""League-wide reads beyond the standings: skill ratings and head-to-head."""

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition, require_safe

from . import ratings, selectors


def _stamp_etag(request: HttpRequest, *args, **kwargs) -> str:
    # Ratings change only with a filing, an undo of one or a rebuild: all change the stamp.
    return f'"ratings.{selectors.league_stamp()}"'


@require_safe
@cache_control(no_cache=True)
@condition(etag_func=_stamp_etag)
def api_ratings(request: HttpRequest) -> JsonResponse:
    rows = [row.as_json() for row in ratings.rating_table()]
    payload = {"model": ratings.MODEL_NAME, "rows": rows}
    return JsonResponse(payload, json_dumps_params={"ensure_ascii": False})
