"""What the browser tests share: where Chromium and its driver are, why they cannot run, and a driver.

tests/test_paste_page_browser.py (the paste page) and tests/browser/test_docs_browser.py (the docs site)
drive Debian's ``chromium`` with ``chromium-driver`` through selenium. Nothing here downloads a browser or a
driver: selenium is handed both paths, and selenium-manager is kept offline.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("KB_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("KB_CHROMEDRIVER", "/usr/bin/chromedriver")
ARTIFACTS = Path(os.environ.get("KB_ARTIFACTS", REPO / "artifacts")) / "browser"
CHROMIUM_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--window-size=1400,900",
)


def browser_missing() -> str | None:
    """Why selenium cannot drive Chromium here, or None."""
    if importlib.util.find_spec("selenium") is None:
        return "needs selenium (pip install -e '.[docs]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return f"needs {path} (apt-get install -y chromium chromium-driver; no test downloads a browser)"
    return None


def skip_without(reason: str | None, what: str) -> pytest.MarkDecorator:
    """The module's ``pytestmark``: skip with ``reason``; but where ``KB_REQUIRE_BROWSER`` is set (CI), fail at
    collection instead, since a skip there would hide a broken setup."""
    if reason and os.environ.get("KB_REQUIRE_BROWSER"):
        raise RuntimeError(f"KB_REQUIRE_BROWSER is set but {what} cannot run: {reason}")
    return pytest.mark.skipif(reason is not None, reason=reason or "")


def chrome_options(profile: Path, extra_args: tuple[str, ...] = ()) -> Any:
    """Options for headless Chromium at 1400x900 with a fresh profile (``profile``: an empty folder)."""
    from selenium import webdriver

    os.environ.setdefault("SE_OFFLINE", "true")  # selenium-manager must not fetch anything
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (*CHROMIUM_ARGS, *extra_args):
        options.add_argument(arg)
    options.add_argument(f"--user-data-dir={profile}")
    return options


def start_chrome(options: Any) -> Any:
    """A driver for ``options`` (chrome_options) on the local chromedriver, with 60 s page-load timeout."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    return driver


def screenshot(driver: Any, name: str) -> Path:
    """Save what the browser shows to ``artifacts/browser/NAME.png`` (``$KB_ARTIFACTS`` overrides the folder)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)[:80]}.png"
    driver.save_screenshot(str(path))
    return path
