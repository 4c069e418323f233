"""QR codes drawn on the server as SVG (segno), so the TV and the host's "Share" show a code
for the spectator page with nothing fetched from the internet."""

import io

import segno


def svg(url: str) -> bytes:
    """A scalable, self-contained SVG of `url`: dark modules on white, with the quiet zone
    scanners need, whatever the page's theme."""
    code = segno.make(url, error="m")
    out = io.BytesIO()
    code.save(out, kind="svg", scale=1, border=4, dark="#000", light="#fff", xmldecl=False,
              svgns=True, title=url, omitsize=True)  # fmt: skip
    return out.getvalue()
