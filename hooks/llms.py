"""``llms.txt`` and ``llms-full.txt`` at the site's root, written after the build from
the sources (the text: :mod:`sitelib.site.llms`), with the site's address as this
build knows it (``site_url``, which the Pages workflow sets from the repository)."""

from __future__ import annotations

from pathlib import Path

from sitelib.site.llms import llms_full_txt, llms_txt


def on_post_build(config):
    root = Path(config.config_file_path).parent
    site = Path(config.site_dir)
    (site / "llms.txt").write_text(llms_txt(root, config.site_url), "utf-8")
    (site / "llms-full.txt").write_text(llms_full_txt(root, config.site_url), "utf-8")
