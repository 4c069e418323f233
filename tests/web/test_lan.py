"""`make run HOST=0.0.0.0`: which host names are allowed and which address is printed. Pure
functions, fed addresses: no test binds or sends anything to a LAN interface."""

import io

import pytest
from django.core.management import call_command

from brag_tables import lan


class TestHostNames:
    def test_every_interface_allows_the_lan_addresses_only(self):
        found = ["192.168.1.20", "127.0.0.1", "10.0.0.7", "169.254.3.3"]
        assert lan.host_names("0.0.0.0", found) == ["192.168.1.20", "10.0.0.7"]
        assert lan.host_names("::", ["192.168.1.20"]) == ["192.168.1.20"]

    def test_loopback_adds_nothing(self):
        assert lan.host_names("127.0.0.1", ["192.168.1.20"]) == []
        assert lan.host_names("localhost", ["192.168.1.20"]) == []

    def test_one_bound_lan_address_is_allowed_as_it_is(self):
        assert lan.host_names("192.168.1.20", ["10.0.0.7"]) == ["192.168.1.20"]

    def test_allowed_hosts_keep_the_configured_ones_first_and_each_once(self):
        configured = ["localhost", "127.0.0.1", "192.168.1.20"]
        hosts = lan.allowed_hosts(
            configured, bind="0.0.0.0", addresses=["192.168.1.20", "10.0.0.7"]
        )
        assert hosts == ["localhost", "127.0.0.1", "192.168.1.20", "10.0.0.7"]

    def test_the_printed_url(self):
        assert lan.urls("0.0.0.0", 8000, ["192.168.1.20"]) == ["http://192.168.1.20:8000/"]
        assert lan.urls("::", "8080", ["fd00::5"]) == ["http://[fd00::5]:8080/"]


class TestCommand:
    def test_prints_the_lan_address_and_a_qr_code(self, monkeypatch):
        monkeypatch.setattr(lan, "lan_addresses", lambda: ["192.168.1.20"])
        out = io.StringIO()
        call_command("lan_address", host="0.0.0.0", port="8000", stdout=out)
        text = out.getvalue()
        assert "http://192.168.1.20:8000/" in text
        assert "█" in text  # the QR code, drawn in the terminal

    @pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
    def test_loopback_says_how_to_reach_the_wifi(self, host):
        out = io.StringIO()
        call_command("lan_address", host=host, port="8000", stdout=out)
        assert "make run HOST=0.0.0.0" in out.getvalue()
