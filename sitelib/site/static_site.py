"""A built site served on 127.0.0.1, as a static host would serve it, and the
Chromium that reads it.

Used by the browser tests (``tests/browser/``) and by ``make lighthouse``
(``tools/lighthouse.py``, with ``compress=True``: gzip, as GitHub Pages sends
text files). Quiet: no request log.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import io
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

# Where systems install Chromium (or Chrome, which Playwright drives the same way):
# names on PATH (Debian's chromium, Ubuntu's chromium-browser and snap's /snap/bin),
# then the macOS applications (Homebrew's cask installs Chromium.app there).
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_APPS = (
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
)
HOW_TO_GET_CHROMIUM = (
    "install it (Debian/Ubuntu: apt-get install chromium; macOS: brew install --cask "
    "chromium) or name it: CHROMIUM=/path/to/chromium"
)


def find_chromium(environ: dict | None = None) -> Path | None:
    """The browser to drive: ``$CHROMIUM`` when set, else the first of
    :data:`CHROMIUM_NAMES` on ``PATH``, else a macOS application; None if none."""
    environ = os.environ if environ is None else environ
    if given := environ.get("CHROMIUM"):
        return Path(given)
    for name in CHROMIUM_NAMES:
        if found := shutil.which(name, path=environ.get("PATH")):
            return Path(found)
    return next((Path(app) for app in CHROMIUM_APPS if Path(app).exists()), None)


COMPRESSIBLE = {".html", ".css", ".js", ".json", ".svg", ".xml", ".map"}


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files; text files gzip-compressed when ``compress`` and the client accepts it."""

    compress = False

    def log_message(self, *args) -> None:
        pass

    def send_head(self):
        if not self.compress or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().send_head()
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                return super().send_head()  # the base class redirects /dir to /dir/
            path = path / "index.html"
        if path.suffix not in COMPRESSIBLE or not path.is_file():
            return super().send_head()
        body = gzip.compress(path.read_bytes())
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


class _Compressed(SiteHandler):
    compress = True


@contextlib.contextmanager
def serve(directory: Path, *, compress: bool = False) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 (a free port) while the block runs; yields its URL."""
    handler = functools.partial(_Compressed if compress else SiteHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
