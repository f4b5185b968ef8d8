"""The site's own stylesheets and scripts (docs/assets/*.css, *.js) are served without
their comments and spaces: they are written to be read, with a comment on every rule,
and every page loads them, so a phone downloaded about 4 kB of comments per page
(rcssmin, rjsmin; CONTRIBUTING.md, "Lighthouse"). ``mkdocs serve`` leaves them as
written, for the author reading them in the browser's tools."""

from __future__ import annotations

from pathlib import Path

import rcssmin
import rjsmin

MINIFY = {".css": rcssmin.cssmin, ".js": rjsmin.jsmin}
_serving = False


def on_startup(command, dirty):
    global _serving
    _serving = command == "serve"


def on_post_build(config):
    if _serving:
        return
    assets = Path(config["docs_dir"], "assets")
    for source in sorted(assets.iterdir()):
        served = Path(config["site_dir"], "assets", source.name)
        if source.suffix in MINIFY and served.is_file():
            served.write_text(MINIFY[source.suffix](source.read_text("utf-8")), "utf-8")
