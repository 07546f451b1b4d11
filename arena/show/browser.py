"""A PNG of an SVG through a headless Chromium already on the machine, or cairosvg.

Drawing a picture into pixels needs a real renderer (fonts, paths, text layout).  Rather than
depend on one for every user, ``arena show --png`` uses what is there: Debian's ``chromium``
(which the browser tests install anyway, and which draws the SVG exactly as the replay page
shows it), else the ``cairosvg`` package when it is installed.  Without either, one sentence
says how to get one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from arena.engine import ArenaError

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


class RenderError(ArenaError):
    """No renderer, or one that failed: said in one sentence."""


def find_browser() -> str | None:
    """The path of a Chromium-like browser, ``$ARENA_CHROMIUM`` first."""
    given = os.environ.get("ARENA_CHROMIUM")
    if given:
        return shutil.which(given) or (given if Path(given).is_file() else None)
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def browser_args(browser: str) -> list[str]:
    """Headless flags; as root Chromium refuses to start without ``--no-sandbox``."""
    args = [browser, "--headless", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-dev-shm-usage"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    return args


def _size(svg: str) -> tuple[int, int]:
    # A picture that scales to its container gives its natural size as data-width/height.
    match = (re.search(r'<svg[^>]*\bdata-width="([\d.]+)"[^>]*\bdata-height="([\d.]+)"', svg)
             or re.search(r'<svg[^>]*\bwidth="([\d.]+)"[^>]*\bheight="([\d.]+)"', svg))
    if not match:
        return 1300, 900
    return round(float(match[1])), round(float(match[2]))


def svg_to_png(svg: str, out: Path, *, timeout: float = 60.0) -> str:
    """Write ``svg`` as a PNG at ``out``; returns the renderer used."""
    browser = find_browser()
    if browser is not None:
        width, height = _size(svg)
        with tempfile.TemporaryDirectory(prefix="arena-png-") as tmp:
            page = Path(tmp) / "board.html"
            page.write_text("<!DOCTYPE html><html><body style=\"margin:0\">" + svg
                            + "</body></html>", encoding="utf-8")
            target = Path(tmp) / "board.png"
            args = [*browser_args(browser), f"--user-data-dir={tmp}/profile",
                    f"--screenshot={target}", f"--window-size={width},{height}",
                    page.as_uri()]
            try:
                run = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                raise RenderError(f"{browser} did not draw the picture within "
                                  f"{timeout:g} s") from None
            if run.returncode != 0 or not target.exists():
                last = (run.stderr.strip().splitlines() or ["no message"])[-1]
                raise RenderError(f"{browser} could not draw the picture: {last[:200]}")
            shutil.copyfile(target, out)
        return Path(browser).name
    try:
        import cairosvg  # type: ignore[import-not-found]
    except ImportError:
        raise RenderError(
            "--png needs a headless browser or cairosvg: install Chromium (Debian: apt-get "
            "install chromium) or `pip install cairosvg`, or write --svg instead") from None
    except OSError as exc:  # cairosvg without the cairo library
        raise RenderError(f"cairosvg cannot load the cairo library ({exc}); install "
                          "Chromium or libcairo2, or write --svg instead") from None
    cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(out))
    return "cairosvg"
