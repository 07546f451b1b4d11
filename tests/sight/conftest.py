"""A headless Chromium for the page tests, through Selenium and Debian's chromedriver.

On a machine without them the browser tests are skipped; in CI (``CI`` set) they fail
instead, since ``.ci/run`` installs the browser: a check that quietly never runs is worse
than none."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest


def _driver_path() -> str | None:
    return shutil.which("chromedriver") or next(
        (p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
         if os.path.exists(p)), None)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """A headless Chromium whose console log the test can read."""
    path = _driver_path()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        path = None
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("no chromedriver or selenium: .ci/run should have installed them")
        pytest.skip("no chromedriver or selenium (apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(path), options=options)
    driver.set_window_size(1300, 1000)
    try:
        yield driver
    finally:
        driver.quit()
