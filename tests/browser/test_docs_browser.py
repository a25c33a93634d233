"""The docs site as a person uses it: headless Chromium at 1400x900, the search box, a pasted error, the page.

Builds the site with ``mkdocs build --strict`` and with Zensical (from the staged tree,
``python -m kb.site.build stage``), serves each on 127.0.0.1, types real error text into the
search box, checks that the right case (or its family) is the first result, and checks the pages
as they render: on every case page the fix snippet is on the first screen and no code block scrolls
sideways, a family page's triage is on the first screen, an incident page links every case of the
incident, and a 400 px wide screen breaks no headline inside a word. One browser session serves
every test. Screenshots go to ``artifacts/browser/`` (``$KB_ARTIFACTS`` overrides).

The sites are built once per test run (tests/conftest.py), shared with tests/test_docs_build.py. Under
pytest-xdist the tests here stay together on one worker (the scheduler in conftest.py): one browser, one server.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package
(``pip install -e '.[docs]'``); without them every test here skips and says why,
unless ``KB_REQUIRE_BROWSER`` is set (CI), when collection fails instead; the same holds for
Zensical (``pip install -e '.[docs]'``; ``$KB_ZENSICAL`` names another executable). Nothing here
downloads a browser or a driver: selenium is handed both paths.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import importlib.util
import re
import threading
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlparse

import pytest

from browser_support import browser_missing, chrome_options, screenshot, skip_without, start_chrome
from kb.site.case_page import latest_symptom_run, page_path
from kb.site.family_page import family_page_path
from kb.site.incident_page import cited_incidents, incident_page_path, stories
from kb.reproduce.evidence import observed
from kb.knowledge.registry import all_cases, all_families, find_case

REPO = Path(__file__).resolve().parents[2]
VIEWPORT = (1400, 900)  # what the page checks mean by "the first screen"
NARROW = 400  # a phone-sized screen


def _missing() -> str | None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        return "needs mkdocs and mkdocs-material (pip install -e '.[docs]')"
    return browser_missing()


pytestmark = skip_without(_missing(), "the browser test")


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
def real_site(real_site_dir: Path, serve: Any) -> str:
    """The real site (``mkdocs build --strict``, built once per run: tests/conftest.py), served."""
    return serve(real_site_dir)


@pytest.fixture(scope="module")
def zensical_site(zensical_site_dir: Path, serve: Any) -> str:
    """The staged real tree built by ``zensical build --strict`` (once per run: tests/conftest.py), served."""
    return serve(zensical_site_dir)


@pytest.fixture(scope="module")
def token_site(synthetic_site: tuple[Path, Path], serve: Any) -> str:
    """The synthetic cases' site (once per run: tests/conftest.py), served."""
    return serve(synthetic_site[1])


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    options = chrome_options(tmp_path_factory.mktemp("chromium-profile"), ("--disable-quic",))
    options.page_load_strategy = "eager"  # DOM and styles are enough for every check; no wait for late resources
    browser = start_chrome(options)
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _COUNT_SEARCH_TRAFFIC_JS})
    set_width(browser, VIEWPORT[0])
    try:
        yield browser
    finally:
        browser.quit()


def set_width(driver: Any, width: int) -> None:
    """The viewport exactly ``width`` x 900 CSS pixels (a window size would include the browser's frame)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False})


@contextlib.contextmanager
def without_search(driver: Any) -> Iterator[None]:
    """Page checks only: the browser skips the search index, whose loading and indexing every page
    load would otherwise repeat (most of a page load's time on a 2-core machine)."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*search_index.json", "*search.json"]})
    try:
        yield
    finally:
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})


# --- search: Material's box (MkDocs) and Zensical's dialog (in a shadow root) --------------------

# Both themes search in a Web Worker: the page posts each query to it (message type 2) and the
# worker answers each, in order, with one message (3: the results; Zensical also 4: an error).
# Every page counts both (installed before the theme's own script runs), so a wait can tell
# results that answer the last query typed from those of an earlier one (a prefix of the query
# while it was being typed, or the previous query) that are still on screen because the worker
# has not answered yet. The counting only watches: messages pass unchanged.
_COUNT_SEARCH_TRAFFIC_JS = """
(() => {
  const Native = window.Worker;
  if (!Native || Native.kbCounted) return;
  const traffic = window.kbSearchTraffic = {posted: 0, answered: 0};
  class Counted extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', ev => {
        const type = ev.data && ev.data.type;
        if (type === 3 || type === 4) traffic.answered++;
      });
    }
    postMessage(message, ...rest) {
      if (message && message.type === 2) traffic.posted++;
      return super.postMessage(message, ...rest);
    }
  }
  Counted.kbCounted = true;
  window.Worker = Counted;
})();
"""

_RESULTS_JS = {
    "mkdocs": """
        const meta = document.querySelector('.md-search-result__meta');
        const links = [...document.querySelectorAll('li.md-search-result__item > a')].map(a => a.href);
        const traffic = window.kbSearchTraffic || {};
        return [document.querySelector('input.md-search__input').value, meta ? meta.textContent : '', links,
                traffic.posted, traffic.answered];
    """,
    "zensical": """
        const host = [...document.querySelectorAll('*')].find(e => e.shadowRoot && e.shadowRoot.querySelector('dialog'));
        const root = host && host.shadowRoot;
        const traffic = window.kbSearchTraffic || {};
        if (!root) return ['', '', [], traffic.posted, traffic.answered];
        const input = root.querySelector('input[role=combobox]');
        const status = root.querySelector('[role=status]');
        const links = [...root.querySelectorAll('ol[role=listbox] a[role=option]')].map(a => a.href);
        return [input ? input.value : '', status ? status.textContent : '', links, traffic.posted, traffic.answered];
    """,
}


_PASTE_JS = """
const [box, text] = arguments;
box.focus();
box.value = text;
box.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste', data: text}));
box.dispatchEvent(new KeyboardEvent('keyup', {bubbles: true, key: 'v', ctrlKey: true}));
"""


def _search_box(driver: Any, engine: str) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    if engine == "mkdocs":
        return WebDriverWait(driver, 20).until(lambda d: d.find_element(By.CSS_SELECTOR, "input.md-search__input"))
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.CSS_SELECTOR, ".md-search__button")).click()
    return WebDriverWait(driver, 20).until(lambda d: d.execute_script(
        "const h = [...document.querySelectorAll('*')].find(e => e.shadowRoot && e.shadowRoot.querySelector('dialog'));"
        "return h && h.shadowRoot.querySelector('input[role=combobox]');"))


def search(driver: Any, base: str, query: str, engine: str = "mkdocs") -> list[str]:
    """Open the site, type ``query`` into the search box and return the result links once they settle."""
    return search_many(driver, base, [query], engine)[0]


def search_many(driver: Any, base: str, queries: list[str], engine: str = "mkdocs", paste: bool = False) -> list[list[str]]:
    """Each query typed (or pasted: one input event) in turn into one page's search box.

    The page loads once, so the search index is built once for all the queries.
    """
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(base)
    box = _search_box(driver, engine)
    box.click()
    results = []
    for query in queries:
        before = driver.execute_script(_RESULTS_JS[engine])
        if paste:  # as a paste does: the whole text arrives in one input event
            driver.execute_script(_PASTE_JS, box, query)
        else:
            box.send_keys(Keys.CONTROL, "a")
            box.send_keys(query)
        settled = _Settled(engine, box, query, paste, posted_before=before[3] or 0, unchanged=before[0] == query)
        results.append(WebDriverWait(driver, 30, poll_frequency=0.1).until(settled)[0])
    return results


class _Settled:
    """A wait condition: the result list once it answers ``query``, the last query the page asked.

    That is: the box holds ``query``, the page has posted a query to the search worker since it was
    typed (unless the box held it already) and the worker has answered every query posted, and two
    polls in a row show the same results (so a render that lags the answer is waited for too).
    """

    def __init__(self, engine: str, box: Any, query: str, paste: bool, posted_before: int, unchanged: bool) -> None:
        self.engine, self.box, self.query, self.paste = engine, box, query, paste
        self.posted_before, self.unchanged = posted_before, unchanged
        self.last: list[Any] = []

    def __call__(self, d: Any) -> tuple[list[str]] | None:
        state = d.execute_script(_RESULTS_JS[self.engine])
        value, status, _, posted, answered = state
        counted = "matching" in status if self.engine == "mkdocs" else "result" in status
        answers_query = (posted or 0) == (answered or 0) and ((posted or 0) > self.posted_before or self.unchanged)
        stable = bool(self.last) and self.last[-1] == state and value == self.query and counted and answers_query
        self.last.append(state)
        if self.paste and not counted and len(self.last) % 30 == 0:  # pasted before the search index was ready
            d.execute_script(_PASTE_JS, self.box, self.query)
        return (state[2],) if stable else None  # a tuple: an empty result list is an answer too


def case_of(url: str) -> str | None:
    m = re.search(r"/cases/(KB\d{4})-[^/]*/", urlparse(url).path)
    return m[1] if m else None


def family_of(url: str) -> str | None:
    m = re.search(r"/families/([a-z0-9-]+)/", urlparse(url).path)
    return m[1] if m else None


def site_url(base: str, docs_path: str) -> str:
    """The URL of a page given its path inside the docs (``cases/KB0001-x.md`` -> ``cases/KB0001-x/``)."""
    return base + docs_path[: -len(".md")] + "/"


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
    from selenium.common.exceptions import TimeoutException
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
    # The theme marks the terms once the opened page has loaded the search index (a request of its
    # own, answered after the DOM is ready): wait for it rather than look once, right at DOM-ready.
    try:
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "article mark"))
    except TimeoutException:
        pytest.fail(f"the opened page highlights no search term (screenshot: {screenshot(driver, f'no-mark-{case_id}')})")

    # The symptom: the recorded run's error line, as the runner logged it.
    run = latest_symptom_run(case, observed(case))
    assert run is not None, f"{case_id} has no recorded failing run that reproduced"
    if run.get("exception"):
        error = f"{run['exception']['type'].rsplit('.', 1)[-1]}: {run['exception']['message']}"
    else:  # a silent failure: its log's last line
        error = (case.path / "evidence" / run["log"]).read_text(encoding="utf-8").strip().splitlines()[-1].strip()
    symptom = driver.find_element(By.CSS_SELECTOR, "h2#symptom ~ div.highlight").text
    assert " ".join(error.split()) in " ".join(symptom.split())
    # The fix: the snippet, first under the title.
    fix = driver.find_element(By.CSS_SELECTOR, "h2#fix + div.highlight").text
    assert case.fix_snippet.strip().splitlines()[0].strip() in fix


# One real error per family (from the recorded runs, or a common wording of the family's own list
# for families without a case yet); pasted into search, the first result must be one of the family's cases or the family
# page itself. Checked on the MkDocs site and on the Zensical site.
FAMILY_QUERIES = {
    "adapter-config": "NoMatchingPeftModuleError: Target modules {'query_key_value'} not found in the base model. Please check the target modules and try again.",
    "api-drift": "TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'",
    "checkpoint-io": "OSError: [Errno 28] No space left on device",
    "cuda-oom": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.45 GiB. GPU 0 has a total capacity of 14.74 GiB of which 1.02 GiB is free.",
    "cuda-setup": "AssertionError: Torch not compiled with CUDA enabled",
    "ddp-reducer": "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one.",
    "device-mismatch": "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!",
    "device-side-assert": "IndexError: index out of range in self",
    "dtype-mismatch": "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float",
    "fp16-gradients": "ValueError: Attempting to unscale FP16 gradients.",
    "hang": "torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout",
    "host-oom": "RuntimeError: DataLoader worker (pid 13601) is killed by signal: Killed.",
    "package-install": "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn seems to be not installed.",
    "loss-nan": "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.",
    "hub-access": "OSError: You are trying to access a gated repo. Make sure to have access to it.",
    "model-unsupported": "ValueError: The checkpoint you are trying to load has model type `qwen3` but Transformers does not recognize this architecture.",
    "multi-gpu-launch": "RuntimeError: The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0",
    "no-grad-fn": "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
    "precision-unsupported": "ValueError: Your setup doesn't support bf16/gpu. You need to assign use_cpu if you want to train the model on CPU.",
    "shape-mismatch": "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x64 and 128x32)",
    "sharding-config": "ValueError: The activation_checkpointing in FSDP config and the gradient_checkpointing in training arg can't be set to True simultaneously.",
    "training-data": "ValueError: Asking to pad but the tokenizer does not have a padding token.",
}


# Zensical's search (0.0.73) lists only sections holding every word of the query, so an error that
# carries the user's own values (a model type, tensor sizes, seconds) finds nothing there; for these
# three the Zensical check pastes the error without those values. MkDocs' search ranks the full text.
ZENSICAL_QUERIES = dict(FAMILY_QUERIES, **{
    "hang": "DataLoader timed out after seconds",
    "model-unsupported": "has model type but Transformers does not recognize this architecture",
    "shape-mismatch": "RuntimeError: mat1 and mat2 shapes cannot be multiplied",
    "loss-nan": "Current loss scale already at minimum - cannot decrease scale anymore",  # without DeepSpeed's "Exiting run."
})


def test_family_queries_cover_every_family() -> None:
    assert set(FAMILY_QUERIES) == {f.name for f in all_families()}


@pytest.mark.parametrize("engine", ["mkdocs", "zensical"])
def test_an_error_of_every_family_finds_its_case_or_family_first(driver: Any, request: pytest.FixtureRequest,
                                                                 engine: str) -> None:
    base = request.getfixturevalue("real_site" if engine == "mkdocs" else "zensical_site")
    members = {c.id: c.family for c in all_cases()}
    wrong = []
    queries = FAMILY_QUERIES if engine == "mkdocs" else ZENSICAL_QUERIES
    found = search_many(driver, base, list(queries.values()), engine, paste=True)
    for family, links in zip(queries, found, strict=True):
        first = links[0] if links else ""
        if not (members.get(case_of(first) or "") == family or family_of(first) == family):
            wrong.append(f"{family}: first of {len(links)} results is {first or 'nothing'}")
    screenshot(driver, f"{engine}-search-last")
    assert not wrong, f"{engine}: " + "; ".join(wrong)


# --- the pages as they render -------------------------------------------------------------------

_PAGE_JS = """
const article = document.querySelector('article');
const fix = document.getElementById('fix');
let snippet = fix && fix.nextElementSibling;
while (snippet && !snippet.matches('div.highlight') && !snippet.matches('h2')) snippet = snippet.nextElementSibling;
if (snippet && !snippet.matches('div.highlight')) snippet = null;
const shown = [...article.querySelectorAll('pre > code')].filter(c => c.offsetParent !== null && !c.closest('details:not([open])'));
const sideways = shown.filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent.slice(0, 60));
const right = article.getBoundingClientRect().right;
const wideTables = [...article.querySelectorAll('table')].filter(t => t.offsetParent !== null && !t.closest('details:not([open])')
    && (t.getBoundingClientRect().right > right + 1 || t.parentElement.scrollWidth > t.parentElement.clientWidth + 1)).length;
return {scrollY: window.scrollY, height: document.documentElement.scrollHeight,
        snippetBottom: snippet ? snippet.getBoundingClientRect().bottom : null,
        fixTop: fix ? fix.getBoundingClientRect().top : null, blocks: shown.length, sideways: sideways,
        wideTables: wideTables, pageWider: document.documentElement.scrollWidth > window.innerWidth};
"""

# Line starts inside a word in the page's h1: a letter or digit on both sides of a line break.
_MID_WORD_JS = """
const h1 = document.querySelector('article h1');
const walker = document.createTreeWalker(h1, NodeFilter.SHOW_TEXT);
const chars = [];
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  if (node.parentElement.closest('a.headerlink')) continue;
  for (let i = 0; i < node.length; i++) {
    const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
    const rect = range.getClientRects()[0];
    if (rect) chars.push([node.data[i], rect.top]);
  }
}
const breaks = [];
for (let i = 1; i < chars.length; i++) {
  if (chars[i][1] > chars[i - 1][1] + 2 && /\\w/.test(chars[i][0]) && /[A-Za-z0-9]/.test(chars[i - 1][0])
      && /[A-Za-z0-9]/.test(chars[i][0])) breaks.push(chars.slice(Math.max(0, i - 8), i + 8).map(c => c[0]).join(''));
}
return breaks;
"""


def test_every_case_page_shows_the_fix_first_and_nothing_scrolls_sideways(driver: Any, real_site: str) -> None:
    with without_search(driver):
        problems = _case_page_problems(driver, real_site)
    assert not problems, "\n".join(problems)


def _case_page_problems(driver: Any, real_site: str) -> list[str]:
    problems = []
    for case in all_cases():
        driver.get(site_url(real_site, page_path(case)))
        got = driver.execute_script(_PAGE_JS)
        if case.id in ("KB0003", "KB0007"):
            screenshot(driver, f"page-{case.id}-1400")
        issues = []
        if case.fix_snippet.strip():
            if got["snippetBottom"] is None:
                issues.append("no code block right under the Fix heading")
            elif got["scrollY"] != 0 or got["snippetBottom"] > VIEWPORT[1]:
                issues.append(f"fix snippet ends {got['snippetBottom']:.0f} px down, below the first screen")
        elif got["fixTop"] is None or got["fixTop"] > VIEWPORT[1]:
            issues.append("the Fix heading is not on the first screen")
        if got["sideways"]:
            issues.append(f"{len(got['sideways'])} of {got['blocks']} code blocks scroll sideways: {got['sideways'][:2]}")
        if got["wideTables"] or got["pageWider"]:
            issues.append(f"{got['wideTables']} tables wider than the column; page wider than the screen: {got['pageWider']}")
        if issues:
            problems.append(f"{case.id} ({screenshot(driver, f'page-{case.id}-problem').name}): " + "; ".join(issues))
    return problems


@pytest.mark.parametrize("case_id", ["KB0007", "KB0003", "KB0016"])
def test_a_narrow_screen_breaks_no_word_and_scrolls_nothing_sideways(driver: Any, real_site: str, case_id: str) -> None:
    set_width(driver, NARROW)
    try:
        with without_search(driver):
            driver.get(site_url(real_site, page_path(find_case(case_id))))
            got = driver.execute_script(_PAGE_JS)
            breaks = driver.execute_script(_MID_WORD_JS)
            shot = screenshot(driver, f"page-{case_id}-{NARROW}px")
    finally:
        set_width(driver, VIEWPORT[0])
    assert not breaks, f"the headline breaks inside a word at {breaks} (screenshot {shot})"
    assert not got["sideways"] and not got["wideTables"] and not got["pageWider"], (got, shot)


def test_every_family_page_starts_with_its_triage(driver: Any, real_site: str) -> None:
    problems = []
    with without_search(driver):
        for family in all_families():
            problem = _family_page_problem(driver, real_site, family.name)
            problems += [problem] if problem else []
    assert not problems, "\n".join(problems)


def _family_page_problem(driver: Any, real_site: str, name: str) -> str | None:
    """Whether the page's first section is the triage and its first cause ends on the first screen."""
    from selenium.webdriver.common.by import By

    driver.get(site_url(real_site, family_page_path(name)))
    first_h2 = driver.find_element(By.CSS_SELECTOR, "article h2")
    first_cause = driver.find_element(By.CSS_SELECTOR, "article h2 + ol > li")
    top, bottom = first_h2.rect["y"], first_cause.rect["y"] + min(first_cause.rect["height"], 120)
    if name == "cuda-oom":
        screenshot(driver, f"family-{name}")
    if not first_h2.get_attribute("id").startswith("triage") or bottom > VIEWPORT[1]:
        return f"{name}: first section {first_h2.text!r} at {top:.0f} px, first cause ends {bottom:.0f} px"
    return None


def test_every_incident_page_links_every_case_of_its_incident(driver: Any, real_site: str) -> None:
    from selenium.webdriver.common.by import By

    cases = all_cases()
    cited = cited_incidents(cases)
    told = stories()
    by_id = {c.id: c for c in cases}
    assert set(cited) <= set(told)
    problems = []
    for name, story in told.items():  # (the search index loads too: these pages are few)
        driver.get(site_url(real_site, incident_page_path(name)))
        linked = {case_of(a.get_attribute("href")) for a in driver.find_elements(By.CSS_SELECTOR, "article a[href]")}
        expected = {c.id for c in cited.get(name, [])} | {c for a in story["attempts"] for c in a["cases"] if c in by_id}
        if expected - linked:
            problems.append(f"{name}: no link to {sorted(expected - linked)}")
        if name.startswith("kelron"):
            screenshot(driver, f"incident-{name}")
    assert not problems, "\n".join(problems)
    # and a case page's sources link back to the story
    driver.get(site_url(real_site, page_path(find_case("KB0007"))))
    hrefs = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "article a[href]")]
    assert any("/incidents/kelron-qwen14b-kaggle-2xT4/" in h for h in hrefs)


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
    assert all(case_of(link) or "/families/" in link or "/incidents/" in link for link in links[: links.index(next(
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
