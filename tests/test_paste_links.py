"""The paste/ page's links (docs/paste/links.js, under Node): kb's answer quotes the pasted log, so an address
of the published site followed by "javascript:", "//elsewhere" or "../" in the paste must stay text, and the
page button must point to the page kb named on its own "more:" line, not to an address quoted from the paste.

Needs ``node`` (the site build needs npm anyway); skips without it unless ``KB_REQUIRE_BROWSER`` is set (CI).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kb import site_url
from kb.cli import main

REPO = Path(__file__).resolve().parents[1]
LINKS = REPO / "docs" / "paste" / "links.js"
ROOT = "https://kb.example.org/kb/"  # where the site is served (SITE_ROOT in paste.js)


def _node(expr: str, data: object) -> object:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("KB_REQUIRE_BROWSER"):
            pytest.fail("KB_REQUIRE_BROWSER is set but node is not installed")
        pytest.skip("needs node")
    script = (f"import * as links from {json.dumps(LINKS.as_uri())};\n"
              f"const data = JSON.parse(process.argv[1]);\nconsole.log(JSON.stringify({expr}));\n")
    done = subprocess.run([node, "--input-type=module", "-e", script, json.dumps(data)],
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


HOSTILE = ["javascript:alert(document.cookie)", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>",
           "//evil.example/x", "\\\\evil.example/x", "/\\evil.example/", "https://evil.example/", "../../other/",
           "../", "%2e%2e/%2e%2e/other", "vbscript:x", "https://user:pw@kb.example.org/kb/", "blob:x", "?x=1/../../"]


def test_an_address_quoted_from_the_paste_is_never_a_link_off_the_site() -> None:
    got = _node("data.rests.map(r => links.siteLink(r, data.root))", {"rests": HOSTILE, "root": ROOT})
    for rest, href in zip(HOSTILE, got):
        assert href is None or href.startswith(ROOT), (rest, href)
    assert got[HOSTILE.index("?x=1/../../")] == ROOT + "?x=1/../../"  # a query stays on the site's root page


def test_addresses_of_the_site_stay_links() -> None:
    rests = ["families/cuda-oom/", "cases/KB0001-x/#fix", ""]
    got = _node("data.rests.map(r => links.siteLink(r, data.root))", {"rests": rests, "root": ROOT})
    assert got == [ROOT + "families/cuda-oom/", ROOT + "cases/KB0001-x/#fix", ROOT]


def _answer(log: str, tmp_path: Path) -> str:
    path = tmp_path / "pasted text"
    path.write_text(log, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["diagnose", str(path), "--width", "80"])  # what docs/paste/worker.js runs
    return out.getvalue()


@pytest.mark.parametrize("rest", ["javascript:alert(1)", "cases/KB0001-x/"])
def test_the_page_button_is_kb_s_own_page_not_one_quoted_from_the_paste(rest: str, tmp_path: Path) -> None:
    url = site_url()
    oom = _answer(f"OutOfMemoryError: {url}{rest}\n", tmp_path)  # short: quoted whole at 80 columns
    unknown = _answer(f"RuntimeError: see {url}{rest}\n", tmp_path)
    assert f"{url}{rest}" in oom and f"{url}{rest}" in unknown  # the paste is quoted in the answer
    got = _node("data.texts.map(t => links.answerPage(t, data.url, data.root))",
                {"texts": [oom, unknown], "url": url, "root": ROOT})
    assert got == [ROOT + "families/cuda-oom/", None]  # no page named by kb: no button
