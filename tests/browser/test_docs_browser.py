"""The docs site as a person uses it: headless Chromium, the search box, a pasted error, the page.

Builds the site with ``mkdocs build --strict``, serves it on 127.0.0.1, types real
error text into Material's search box, checks that the right case is the first
result, opens it and checks the page shows the recorded symptom and the fix.
Screenshots go to ``artifacts/browser/`` (``$KB_ARTIFACTS`` overrides).

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package
(``pip install -e '.[docs]'``); without them every test here skips and says why,
unless ``KB_REQUIRE_BROWSER`` is set (CI), when collection fails instead. Nothing
here downloads a browser or a driver: selenium is handed both paths.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlparse

import pytest

from synthetic_cases import write_cases
from kb.site.case_page import latest_symptom_run
from kb.reproduce.evidence import observed
from kb.knowledge.registry import find_case
from kb.site.render import program_diff

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("KB_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("KB_CHROMEDRIVER", "/usr/bin/chromedriver")
ARTIFACTS = Path(os.environ.get("KB_ARTIFACTS", REPO / "artifacts")) / "browser"
CHROMIUM_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1280,1000",
)


def _missing() -> str | None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        return "needs mkdocs and mkdocs-material (pip install -e '.[docs]')"
    if importlib.util.find_spec("selenium") is None:
        return "needs selenium (pip install -e '.[docs]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return f"needs {path} (apt-get install -y chromium chromium-driver; no test downloads a browser)"
    return None


_REASON = _missing()
if _REASON and os.environ.get("KB_REQUIRE_BROWSER"):  # CI sets it: a skip there would hide a broken setup
    raise RuntimeError(f"KB_REQUIRE_BROWSER is set but the browser test cannot run: {_REASON}")
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


def build_site(dest: Path, cases_dir: Path | None = None) -> Path:
    """``mkdocs build --strict`` into ``dest``; fails the test with mkdocs' output if the build fails."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    if cases_dir is not None:
        env["KB_CASES_DIR"] = str(cases_dir)
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return dest


@functools.lru_cache(maxsize=None)
def _quiet_handler(directory: str) -> Any:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=directory, **kwargs)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture(scope="module")
def serve() -> Iterator[Any]:
    """``serve(site_dir) -> base URL``: a static server on 127.0.0.1, stopped after the module."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(site: Path) -> str:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _quiet_handler(str(site)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def real_site(tmp_path_factory: pytest.TempPathFactory, serve: Any) -> str:
    return serve(build_site(tmp_path_factory.mktemp("site")))


@pytest.fixture(scope="module")
def token_site(tmp_path_factory: pytest.TempPathFactory, serve: Any) -> str:
    cases = write_cases(tmp_path_factory.mktemp("cases"))
    return serve(build_site(tmp_path_factory.mktemp("token-site"), cases))


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # selenium-manager must not fetch anything
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in CHROMIUM_ARGS:
        options.add_argument(arg)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    browser.set_page_load_timeout(60)
    try:
        yield browser
    finally:
        browser.quit()


def screenshot(driver: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)[:80]}.png"
    driver.save_screenshot(str(path))
    return path


def search(driver: Any, base: str, query: str) -> list[str]:
    """Type ``query`` into the search box and return the result links, once they stop changing."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(base)
    box = WebDriverWait(driver, 20).until(lambda d: d.find_element(By.CSS_SELECTOR, "input.md-search__input"))
    box.click()
    box.send_keys(query)

    def settled(d: Any, last: list[Any] = []) -> list[str] | None:  # noqa: B006 (state across polls)
        meta = d.find_element(By.CSS_SELECTOR, ".md-search-result__meta").text
        links = [a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "li.md-search-result__item > a")]
        state = (box.get_attribute("value"), meta, links)
        stable = bool(last) and last[-1] == state and state[0] == query and "matching" in meta
        last.append(state)
        return links if stable else None

    return WebDriverWait(driver, 30, poll_frequency=0.5).until(settled)


def case_of(url: str) -> str | None:
    m = re.search(r"/cases/(KB\d{4})-[^/]*/", urlparse(url).path)
    return m[1] if m else None


# Real error texts, as people paste them, and the case each must find first.
REAL_QUERIES = [
    ("expected mat1 and mat2 to have the same dtype", "KB0001"),
    ("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float", "KB0001"),
    ("RuntimeError: expected m1 and m2 to have the same dtype, but got: double != float", "KB0001"),
    ("TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'", "KB0012"),
    ("RuntimeError: DataLoader worker (pid(s) 4242) exited unexpectedly", "KB0015"),
]


@pytest.mark.parametrize("query,case_id", REAL_QUERIES)
def test_pasted_error_finds_case_and_page_shows_symptom_and_fix(driver: Any, real_site: str, query: str, case_id: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    case = find_case(case_id)
    links = search(driver, real_site, query)
    shot = screenshot(driver, f"search-{case_id}-{query}")
    assert links, f"no search results for {query!r} (screenshot: {shot})"
    assert case_of(links[0]) == case_id, f"first result for {query!r} is {links[0]}, not {case_id} (screenshot: {shot})"
    assert "?h=" in links[0], "search.highlight is off: results do not carry the terms to highlight"

    driver.find_element(By.CSS_SELECTOR, "li.md-search-result__item > a").click()
    WebDriverWait(driver, 20).until(lambda d: case_of(d.current_url) == case_id)
    h1 = driver.find_element(By.CSS_SELECTOR, "article h1").text
    assert h1.strip() == case.title
    assert driver.find_elements(By.CSS_SELECTOR, "article mark"), "the opened page highlights no search term"

    article = driver.find_element(By.CSS_SELECTOR, "article")
    text = article.text
    # The symptom: the recorded run's error line, as the runner logged it.
    run = latest_symptom_run(case, observed(case))
    assert run is not None, f"{case_id} has no recorded failing run that reproduced"
    if run.get("exception"):
        error = f"{run['exception']['type'].rsplit('.', 1)[-1]}: {run['exception']['message']}"
    else:  # a silent failure: its log's last line
        error = (case.path / "evidence" / run["log"]).read_text(encoding="utf-8").strip().splitlines()[-1].strip()
    symptom = driver.find_element(By.CSS_SELECTOR, "h2#symptom ~ div.highlight").text
    assert error in symptom
    # The fix: the first line the fixed program adds, shown in the diff.
    added = next(line[1:].strip() for line in program_diff(case, case.reproductions[0]).splitlines()
                 if line.startswith("+") and not line.startswith("+++"))
    assert added in text
    driver.execute_script("document.getElementById('symptom').scrollIntoView()")
    screenshot(driver, f"page-{case_id}-symptom")
    driver.execute_script("document.getElementById('fix').scrollIntoView()")
    screenshot(driver, f"page-{case_id}-fix")


# Tokens of error text that a naive separator splits or glues wrongly; KB9001 holds each,
# the decoy KB9002 holds the same words without the token (2.80 GiB, cuda:1, mat2,
# "processing" and "class" apart).
# As in real tracebacks the tokens sit in punctuation (device='cuda:0', F.linear(mat1, ...)),
# so a whitespace-only separator leaves them glued and these searches miss.
TOKENS = ["torch.cuda.OutOfMemoryError", "OutOfMemoryError", "cuda:0", "mat1", "2.90 GiB", "processing_class"]


@pytest.mark.parametrize("token", TOKENS)
def test_error_tokens_are_findable(driver: Any, token_site: str, token: str) -> None:
    links = search(driver, token_site, token)
    shot = screenshot(driver, f"token-{token}")
    assert links, f"no results for {token!r} (screenshot: {shot})"
    # Family pages list every wording of their kind of error and may come first (their triage names
    # the case); among the case pages, the one holding the token ranks above the decoy.
    cases = [case_of(link) for link in links if case_of(link)]
    assert cases and cases[0] == "KB9001", f"first case result for {token!r} is {cases[:1]} of {links} (screenshot: {shot})"
    assert all(case_of(link) or "/families/" in link for link in links[: links.index(next(
        link for link in links if case_of(link) == "KB9001"))]), links


def test_search_suggests_the_rest_of_a_word(driver: Any, real_site: str) -> None:
    """search.suggest: a half-typed word of an error headline is completed in the box."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    search(driver, real_site, "expected mat1 mat2 same dt")
    suggest = WebDriverWait(driver, 20).until(
        lambda d: d.find_element(By.CSS_SELECTOR, ".md-search__suggest").text or None
    )
    screenshot(driver, "suggest-dtype")
    assert suggest == "expected mat1 mat2 same dtype"
