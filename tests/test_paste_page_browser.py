"""The paste/ page in headless Chromium: kb's own engine answers a pasted error in the browser, offline.

Opens the page of the real site, built by ``mkdocs build --strict`` and by Zensical (tests/conftest.py
builds each once per run), on a static server on 127.0.0.1, in a fresh browser profile (cold: nothing
cached), and checks: a pasted dtype error shows KB0001 with a link to its page on this site, an OOM line
shows the cuda-oom family, a token in the paste is masked in the answer, every request the page and its
worker made went to the site's own origin (the DevTools network log, a trace of the renderer's resource
requests, which has the worker's, and the page's resource timing), and, over a
sample of the dev set (tests/fixtures/diagnose), the page's answer is the text and exit code of
``kb diagnose FILE --width 80`` run from the checkout.

Needs Debian's ``chromium`` and ``chromium-driver``, ``selenium`` (``pip install -e '.[docs]'``) and a
site built with its runtime (npm: ``npm ci`` runs during the build, kb/site/paste_page.py). Without them
the tests skip and say why, unless ``KB_REQUIRE_BROWSER`` is set (CI), when collection fails instead.
Screenshots go to ``artifacts/browser/`` (``$KB_ARTIFACTS`` overrides). benchmarks/paste_page.py times
the page with the helpers here.
"""

from __future__ import annotations

import contextlib
import http.server
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlparse

import pytest

from browser_support import browser_missing, chrome_options, screenshot, skip_without, start_chrome

REPO = Path(__file__).resolve().parents[1]
PAGE = "paste/"
DEVSET = REPO / "tests" / "fixtures" / "diagnose"
DEVSET_SAMPLE = 20  # dev-set inputs compared with the CLI, spread over the manifest
DTYPE = ("Traceback (most recent call last):\n  File \"train.py\", line 41, in <module>\n    loss = model(x)\n"
         "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n")
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
       "14.74 GiB of which 1.21 GiB is free. Of the allocated memory 12.90 GiB is allocated by PyTorch\n")
TOKEN = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWx12"
SECRET = ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
          f"    login(token=\"{TOKEN}\")\nValueError: Invalid token passed: {TOKEN}\n")
MIME = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript", ".json": "application/json",
        ".whl": "application/zip", ".zip": "application/zip"}


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    browser = browser_missing()
    if browser:
        return browser
    if importlib.util.find_spec("mkdocs") is None:
        return "needs mkdocs (pip install -e '.[docs]')"
    if shutil.which("npm") is None and not (REPO / "node_modules" / "pyodide" / "pyodide.asm.wasm").is_file():
        return "needs npm: the site build vendors Pyodide with npm ci (package-lock.json), and no node_modules/pyodide is here"
    return None


pytestmark = skip_without(missing(), "the paste-page browser test")


# --- helpers (benchmarks/paste_page.py uses them too) --------------------------------------------------

class Site:
    """A served site: its base URL, and every request it answered, as ``(method, URL, bytes of the body)``."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.requests: list[list[Any]] = []


@contextlib.contextmanager
def serve(site: Path) -> Iterator[Site]:
    """A static server of ``site`` on 127.0.0.1 that records what it serves. WebAssembly and module scripts
    go with their MIME types."""
    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME}

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(site), **kwargs)

        def log_message(self, *args: Any) -> None:
            pass

        def send_head(self) -> Any:
            self.record = [self.command, served.base + self.path.lstrip("/"), 0]
            served.requests.append(self.record)
            return super().send_head()

        def copyfile(self, source: Any, outputfile: Any) -> None:
            self.record[2] = os.fstat(source.fileno()).st_size
            super().copyfile(source, outputfile)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served = Site(f"http://127.0.0.1:{server.server_address[1]}/")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()


def chromium(profile: Path, trace: bool = True) -> Any:
    """Headless Chromium with a fresh profile (``profile``: an empty folder), its DevTools network log and
    (``trace``) a trace of the renderer's resource requests on (the trace has the page's workers' requests
    too; it costs time, so the benchmark leaves it off)."""
    options = chrome_options(profile)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    if trace:
        options.add_experimental_option("perfLoggingPrefs", {"enableNetwork": True, "enablePage": False,
                                                             "traceCategories": "devtools.timeline"})
    driver = start_chrome(options)
    driver.set_script_timeout(60)
    return driver


def state(driver: Any) -> dict[str, Any]:
    """The page's window.kbPaste (see docs/paste/paste.js)."""
    return driver.execute_script("return window.kbPaste ? JSON.parse(JSON.stringify(window.kbPaste)) : null;") or {}


def paste_and_diagnose(driver: Any, text: str, timeout: float = 60) -> dict[str, Any]:
    """Put ``text`` into the box as a paste does, press Diagnose and wait for the answer.

    Returns ``{"text", "code", "links", "asked", "shown", "stage"}``: the answer's text and kb's exit code,
    the answer's links, and when the answer was asked for and shown (ms since the navigation started)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    before = state(driver).get("answers", 0)
    box = driver.find_element(By.ID, "kb-paste-input")
    driver.execute_script("arguments[0].value = arguments[1];"
                          "arguments[0].dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'}));",
                          box, text)
    driver.find_element(By.ID, "kb-paste-run").click()

    def answered(d: Any) -> dict[str, Any] | None:
        now = state(d)
        if now.get("stage") in ("failed", "unavailable"):
            raise AssertionError(f"the page's runtime did not load: {now}")
        return now if now.get("answers", 0) > before else None

    now = WebDriverWait(driver, timeout, poll_frequency=0.05).until(answered)
    answer = driver.find_element(By.ID, "kb-paste-answer")
    links = [a.get_attribute("href") for a in answer.find_elements(By.TAG_NAME, "a")]
    last = now.get("last") or {}
    return {"text": answer.get_attribute("textContent"), "code": last.get("code"), "links": links,
            "asked": now["asked"][-1], "shown": now["shown"][-1], "stage": now["stage"]}


def requests_made(driver: Any) -> list[str]:
    """Every URL the page and its worker asked for: the DevTools network log of the page (requests as they
    are sent, failed ones too), the trace's ResourceSendRequest events (the renderer's requests, the
    worker's included) and the page's resource timing; less those of the browser's own chrome:// pages
    (the new-tab page it starts with)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        method, params = message.get("method"), message.get("params") or {}
        if method == "Network.requestWillBeSent" and not params.get("documentURL", "").startswith("chrome://"):
            urls.append(params["request"]["url"])
        elif method == "Tracing.dataCollected" and params.get("name") == "ResourceSendRequest":
            urls.append((params.get("args") or {}).get("data", {}).get("url") or "")
    urls += driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name);")
    return [u for u in urls if not u.startswith("chrome://")]


def foreign(urls: list[str], base: str) -> list[str]:
    """The URLs outside ``base``'s origin (data: and blob: URLs are the page's own)."""
    origin = urlparse(base)[:2]
    return [u for u in urls if not u.startswith(("data:", "blob:")) and urlparse(u)[:2] != origin]


def cli_answer(path: Path) -> tuple[int, str]:
    """``kb diagnose FILE --width 80`` of the checkout: its exit code and what it printed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_") and k != "COLUMNS"}
    proc = subprocess.run([sys.executable, "-m", "kb", "diagnose", str(path), "--width", "80"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout or proc.stderr


def devset_sample(count: int = DEVSET_SAMPLE) -> list[Path]:
    """``count`` dev-set inputs spread evenly over the manifest's order."""
    import tomllib

    entries = tomllib.loads((DEVSET / "manifest.toml").read_text(encoding="utf-8"))["entry"]
    files = [DEVSET / e["file"] for e in entries if (DEVSET / e["file"]).is_file()]
    step = max(1, len(files) // count)
    return files[::step][:count]


# --- the tests -------------------------------------------------------------------------------------------

@contextlib.contextmanager
def opened(site: Path, tmp: Path) -> Iterator[tuple[Any, Site]]:
    """The paste page of ``site``, opened cold in a browser whose every request goes through the server:
    ``(driver, the served site)``."""
    if not (site / "paste" / "runtime" / "runtime.json").is_file():
        pytest.fail(f"{site} was built without the paste page's runtime (see the build's output: npm?)")
    with serve(site) as served:
        driver = chromium(tmp)
        try:
            driver.get(served.base + PAGE)
            yield driver, served
        finally:
            driver.quit()


def check_page(driver: Any, served: Site, site: Path, label: str) -> None:
    """The checks both builds pass: KB0001 for a dtype error, cuda-oom for an OOM line, a masked token, no link
    off the site made of a pasted address, and no request outside the site's origin."""
    base = served.base
    dtype = paste_and_diagnose(driver, DTYPE)
    shot = screenshot(driver, f"paste-{label}-dtype")
    assert dtype["text"].startswith("KB0001 dtype-double-vs-float"), f"{dtype['text']!r} (screenshot: {shot})"
    case_links = [u for u in dtype["links"] if "/cases/KB0001-" in u]
    assert case_links and all(u.startswith(base) for u in case_links), dtype["links"]
    page = urlparse(case_links[0]).path.lstrip("/")
    assert (site / page / "index.html").is_file(), f"the answer links {case_links[0]}, which the site lacks"

    oom = paste_and_diagnose(driver, OOM)
    shot = screenshot(driver, f"paste-{label}-oom")
    assert oom["text"].startswith("family cuda-oom"), f"{oom['text']!r} (screenshot: {shot})"
    assert any(urlparse(u).path.endswith("/families/cuda-oom/") and u.startswith(base) for u in oom["links"]), oom["links"]

    secret = paste_and_diagnose(driver, SECRET)
    assert "hf_***" in secret["text"], secret["text"]  # the token's line is shown, masked
    assert TOKEN[3:13] not in secret["text"] and TOKEN[-10:] not in secret["text"], secret["text"]

    # (audit50) the answer quotes the paste: a site address followed by javascript: was a link (and the page button)
    from kb import site_url
    from selenium.webdriver.common.by import By

    hostile = paste_and_diagnose(driver, f"OutOfMemoryError: {site_url()}javascript:alert(1)\n")
    assert f"{site_url()}javascript:alert(1)" in hostile["text"], hostile["text"]  # quoted, as text
    button = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "#kb-paste-link a")]
    assert button and all(u.startswith(base) for u in hostile["links"] + button), (hostile["links"], button)
    assert urlparse(button[0]).path.endswith("/families/cuda-oom/"), button

    urls = requests_made(driver)
    # the runtime's files are the worker's requests: the log sees them (so it would see one elsewhere)
    assert any(u.endswith("/pyodide.asm.wasm") for u in urls) and any(u.endswith(".whl") for u in urls), urls
    assert foreign(urls, base) == [], f"requests outside {base}: {foreign(urls, base)}"


@pytest.fixture(scope="module")
def mkdocs_page(real_site_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Site]]:
    """The paste page of the MkDocs site, opened cold once for the tests that use it."""
    with opened(real_site_dir, tmp_path_factory.mktemp("chromium-profile")) as page:
        yield page


def test_paste_page_of_the_mkdocs_site(mkdocs_page: tuple[Any, Site], real_site_dir: Path) -> None:
    driver, served = mkdocs_page
    check_page(driver, served, real_site_dir, "mkdocs")


def test_paste_page_of_the_zensical_site(zensical_site_dir: Path, tmp_path: Path) -> None:
    with opened(zensical_site_dir, tmp_path) as (driver, served):
        check_page(driver, served, zensical_site_dir, "zensical")


def test_page_answers_as_the_cli_over_a_dev_set_sample(mkdocs_page: tuple[Any, Site]) -> None:
    """The page's text and exit code equal `kb diagnose FILE --width 80`'s for each sampled dev-set input."""
    driver, _ = mkdocs_page
    sample = devset_sample()
    assert len(sample) == DEVSET_SAMPLE
    differ = []
    for path in sample:
        page = paste_and_diagnose(driver, path.read_bytes().decode("utf-8", errors="replace"))
        code, text = cli_answer(path)
        if (page["code"], page["text"]) != (code, text):
            differ.append(f"{path.name}: page exit {page['code']} {page['text'][:300]!r}\n  cli exit {code} {text[:300]!r}")
    assert not differ, "\n".join(differ)
