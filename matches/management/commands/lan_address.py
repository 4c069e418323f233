"""Print where tablets on the pub's wifi open the app, with a QR code to scan (make run)."""

import io

import segno
from django.core.management.base import BaseCommand

from brag_tables import lan


class Command(BaseCommand):
    help = "Print the address tablets on the local network use, and its QR code."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="the address the server binds")
        parser.add_argument("--port", default="8000")

    def handle(self, *args, host: str, port: str, **options) -> None:
        addresses = lan.lan_addresses() if host in lan.WILDCARDS else []
        found = lan.urls(host, port, addresses)
        if not found:
            self.stdout.write(f"Brag Tables on http://{host}:{port}/ (this machine only).")
            if host in lan.WILDCARDS:
                self.stdout.write("No network address found: is this machine on the wifi?")
            else:
                self.stdout.write("For tablets on the wifi: make run HOST=0.0.0.0")
            return
        self.stdout.write(f"Brag Tables for tablets on this network: {found[0]}")
        for other in found[1:]:
            self.stdout.write(f"  also {other}")
        self.stdout.write("Scan to open it on a tablet:")
        drawing = io.StringIO()
        segno.make(found[0], error="m").terminal(out=drawing, compact=True)
        self.stdout.write(drawing.getvalue(), ending="")
