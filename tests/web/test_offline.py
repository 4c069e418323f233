"""The offline shell's server side: a worker whose version follows the templates,
that keeps and forgets table pages on the pages' word; pages that say whose they are; closed
tables' pages that keep listening for a reopen."""

import re

import pytest
from django.urls import reverse

from matches.play.services.tables import table_close, table_reopen
from matches.web.views import offline
from tests.clients import FormClient
from tests.factories import make_table

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def worker_version(client) -> str:
    body = client.get(reverse("matches:service_worker")).content.decode()
    return re.search(r'const VERSION = "(\w+)";', body).group(1)


def closed_table():
    table = make_table()
    table_close(table_id=table.pk, by=table.created_by)
    return table


@pytest.fixture
def templates_copy(tmp_path, monkeypatch):
    """The worker's templates digest reads a copy this test may change."""
    for name in ["base.html", "matches/sw.js"]:
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((offline.TEMPLATES_ROOT / name).read_bytes())
    monkeypatch.setattr(offline, "TEMPLATES_ROOT", tmp_path)
    offline._templates_digest.cache_clear()
    yield tmp_path
    offline._templates_digest.cache_clear()


class TestTheWorkersVersion:
    def test_it_changes_when_a_template_changes(self, host, client, templates_copy):
        before = worker_version(client)
        (templates_copy / "base.html").write_text("<html>another page</html>")
        offline._templates_digest.cache_clear()  # a new process: a new deployment
        assert worker_version(client) != before

    def test_it_changes_when_the_workers_own_code_changes(self, host, client, templates_copy):
        before = worker_version(client)
        worker = templates_copy / "matches" / "sw.js"
        worker.write_text(worker.read_text() + "\n// another worker\n")
        offline._templates_digest.cache_clear()
        assert worker_version(client) != before

    def test_a_new_template_changes_it_too(self, host, client, templates_copy):
        before = worker_version(client)
        (templates_copy / "matches" / "new.html").write_text("new")
        offline._templates_digest.cache_clear()
        assert worker_version(client) != before

    def test_it_is_computed_once_per_process(self, host, client, templates_copy):
        before = worker_version(client)
        (templates_copy / "base.html").write_text("<html>changed under a running process</html>")
        assert worker_version(client) == before

    def test_a_shell_file_not_shipped_is_left_out_not_named(self, host, client, monkeypatch):
        # The worker's install fails whole on one missing URL (cache.addAll).
        monkeypatch.setattr(offline, "SHELL_STATIC", [*offline.SHELL_STATIC, "js/no-such.js"])
        body = client.get(reverse("matches:service_worker")).content.decode()
        assert "no-such.js" not in body
        assert '"/static/js/app.js"' in body


class TestTheWorkersMessages:
    def test_it_keeps_a_table_page_it_is_asked_to_keep(self, host, client):
        body = client.get(reverse("matches:service_worker")).content.decode()
        assert 'addEventListener("message"' in body
        assert 'data.type === "keep"' in body and "TABLE_PAGE.test(data.url)" in body
        assert 'cache: "no-store"' in body
        assert 'data.type === "forget-pages"' in body

    def test_a_kept_copy_served_offline_says_so(self, host, client):
        body = client.get(reverse("matches:service_worker")).content.decode()
        assert "data-kept-copy" in body


class TestWhosePageItIs:
    def test_a_hosts_page_names_the_host(self, host, host_client):
        html = host_client.get(reverse("matches:home")).content.decode()
        assert f'<body data-user="{host.pk}"' in html

    def test_a_spectators_page_names_nobody(self, host, client):
        table = make_table()
        html = client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert '<body data-user=""' in html

    def test_the_tv_names_nobody_every_viewer_gets_its_bytes(self, host, host_client):
        table = make_table()
        html = host_client.get(reverse("matches:tv", args=[table.pk])).content.decode()
        assert "data-user" not in html

    def test_the_notice_for_another_logins_copy_is_rendered_hidden(self, host, host_client):
        table = make_table()
        html = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        notice = re.search(r'<p [^>]*id="kept-foreign-note"[^>]*>([^<]*)</p>', html)
        assert notice and " hidden" in notice.group(0)
        assert notice.group(1) == (
            "This is a copy kept on this tablet for another login. Connect and log in to tap."
        )


class TestTheLiveStatus:
    def test_it_carries_the_offline_wording_and_when_it_was_rendered(self, host, client):
        table = make_table()
        html = client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert 'data-offline="offline · last contact {time}"' in html
        assert re.search(r'data-rendered-at="\d{13}"', html)
        assert "connection lost" not in html


class TestClosedTablesKeepListening:
    @pytest.mark.parametrize("page", ["matches:table", "matches:tv"])
    def test_a_closed_tables_page_polls_slowly_and_says_it_is_closed(self, host, client, page):
        table = closed_table()
        html = client.get(reverse(page, args=[table.pk])).content.decode()
        live = re.search(r'id="live"[^>]*>', html).group(0)
        assert 'data-table-open="0"' in live
        assert 'hx-trigger="every 30s, brag:changed"' in live
        assert f'hx-get="{reverse(page, args=[table.pk])}"' in live
        assert '<span hidden data-table-state="0"></span>' in html

    @pytest.mark.parametrize("page", ["matches:table", "matches:tv"])
    def test_the_fragment_says_in_which_state_it_was_rendered(self, host, client, page):
        table = make_table()
        url = reverse(page, args=[table.pk])
        assert (
            '<span hidden data-table-state="1"></span>' in client.get(url, **HTMX).content.decode()
        )
        table_close(table_id=table.pk, by=table.created_by)
        assert (
            '<span hidden data-table-state="0"></span>' in client.get(url, **HTMX).content.decode()
        )

    def test_an_open_tables_page_polls_as_before(self, host, client):
        table = make_table()
        html = client.get(reverse("matches:table", args=[table.pk])).content.decode()
        live = re.search(r'id="live"[^>]*>', html).group(0)
        assert 'data-table-open="1"' in live and 'hx-trigger="every 3s, brag:changed"' in live

    def test_the_host_board_fragment_carries_the_marker(self, host, host_client):
        table = make_table()
        url = reverse("matches:table", args=[table.pk])
        html = host_client.get(url, **HTMX).content.decode()
        assert '<span hidden data-table-state="1"></span>' in html

    def test_a_closed_spectator_page_without_javascript_refreshes_itself_slowly(self, host, client):
        table = closed_table()
        html = client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert '<noscript><meta http-equiv="refresh" content="60"></noscript>' in html

    def test_the_interval_is_the_views_setting(self, host, client, monkeypatch):
        from matches.web.views import tables

        monkeypatch.setattr(tables, "CLOSED_POLL_SECONDS", 1)
        table = closed_table()
        html = client.get(reverse("matches:tv", args=[table.pk])).content.decode()
        assert 'hx-trigger="every 1s, brag:changed"' in html

    @pytest.mark.parametrize("page", ["matches:table", "matches:tv"])
    @pytest.mark.parametrize("fragment", [False, True])
    def test_a_reopen_never_answers_a_closed_pages_tag_with_304(self, host, client, page, fragment):
        """A closed page's poll (or reload) revalidates its tag: after a reopen the tag has
        moved, and the shared cache's copy of the closed page is not served again."""
        table = closed_table()
        url = reverse(page, args=[table.pk])
        headers = HTMX if fragment else {}
        closed = client.get(url, **headers)
        tag = closed["ETag"]
        assert client.get(url, HTTP_IF_NONE_MATCH=tag, **headers).status_code == 304
        table_reopen(table_id=table.pk, by=table.created_by)
        # Another viewer, whose request the process's kept renderings answer.
        reopened = FormClient().get(url, HTTP_IF_NONE_MATCH=tag, **headers)
        assert reopened.status_code == 200
        assert reopened["ETag"] != tag
        assert 'data-table-state="1"' in reopened.content.decode()

    def test_a_hosts_closed_page_polls_at_the_live_interval(self, host, host_client):
        """The host is at the table: a reopen from their phone brings the tablet back within
        one live poll, not the spectators' slow one."""
        table = closed_table()
        html = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert "Reopen table" in html
        live = re.search(r'id="live"[^>]*>', html).group(0)
        assert 'hx-trigger="every 3s, brag:changed"' in live

    def test_a_spectators_closed_page_polls_slowly(self, host, client):
        table = closed_table()
        html = client.get(reverse("matches:table", args=[table.pk])).content.decode()
        live = re.search(r'id="live"[^>]*>', html).group(0)
        assert 'hx-trigger="every 30s, brag:changed"' in live
