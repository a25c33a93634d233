"""The frequency table (tables/frequency.toml, `python scripts/corpus.py table`) and its docs page.

The committed table must be what the command builds today from the corpus, the alias and triage
files and kb's answers: a corpus batch, a relabelled report or a change of kb's answers without a
rebuild fails here, with the command to run.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from urllib.parse import urljoin, urlparse

import pytest
from corpus_support import corpus_script

from kb.knowledge.registry import all_families, load_knowledge
from kb.knowledge.tables import read_frequency
from kb.site.frequency_page import FREQUENCY_PAGE, UNKNOWN_FAMILY, frequency_page

REPO = Path(__file__).resolve().parents[1]
BAR = 'class="kb-freq-bar"'


@pytest.fixture(scope="module")
def corpus(corpus_answers: dict[tuple[str, str], str | None]) -> ModuleType:
    """scripts/corpus.py as a module (it is a script, not a package)."""
    module = corpus_script()
    # kb's answer to a report depends on its text only: the tables below are built four times over the same ~4,000
    # reports, so each text is diagnosed once (a relabelled report keeps its text and so its answer), and once per
    # run (tests/conftest.py's corpus_answers: under pytest-xdist the two tests below ran on two workers, each
    # diagnosing the corpus)
    answer = module.answer
    diagnosed: dict[tuple[str, str], str | None] = dict(corpus_answers)

    def answer_once(record: dict, knowledge: object) -> str | None:
        key = (record["error"], record["title"])
        if key not in diagnosed:
            diagnosed[key] = answer(record, knowledge)
        return diagnosed[key]

    module.answer = answer_once
    return module


@pytest.fixture(scope="module")
def table() -> dict:
    data = read_frequency()
    assert data, "tables/frequency.toml is missing: run `python scripts/corpus.py table`"
    return data


def test_committed_table_is_the_rebuilt_one(corpus: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    """`python scripts/corpus.py table --check` (its function, in this process: the corpus is diagnosed once here)."""
    code = corpus.table(check=True)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "up to date" in out


def test_a_corpus_change_without_a_rebuild_is_seen(corpus: ModuleType, table: dict) -> None:
    """The check above can fail: one report fewer, or one relabelled, changes the table."""
    import tomllib

    rows = [r for path in corpus.batch_files() for r in corpus.read(path)]
    knowledge = load_knowledge()
    committed = {k: v for k, v in table.items() if k != "built"}
    rebuilt = tomllib.loads(corpus.table_toml(corpus.build_table(rows, knowledge)))
    assert corpus._differences(committed, rebuilt) == []
    fewer = tomllib.loads(corpus.table_toml(corpus.build_table(rows[1:], knowledge)))
    assert any(d.startswith("[corpus] reports:") for d in corpus._differences(committed, fewer))
    first = next(r for r in rows if r["label"]["family"] == "api-drift")
    moved = dict(first, label=dict(first["label"], family="training-data"))
    relabelled = tomllib.loads(corpus.table_toml(corpus.build_table([moved if r is first else r for r in rows], knowledge)))
    diffs = corpus._differences(committed, relabelled)
    assert any(d.startswith("[[family]] api-drift: reports") for d in diffs), diffs


def test_shares_sum_to_one(table: dict) -> None:
    c = table["corpus"]
    assert c["counted"] + c["unshown"] == c["in_scope"] and c["in_scope"] + c["out_of_scope"] == c["reports"]
    for section in ("family", "cause"):
        rows = table[section]
        assert sum(r["reports"] for r in rows) == c["counted"], section
        for r in rows:
            assert r["share"] == round(r["reports"] / c["counted"], 4)
            assert r["right"] + r["silent"] + r["wrong"] == r["reports"]
            assert 0 <= r["with_error"] <= 1
        # each share is rounded to 4 places: the sum is 1 within half a unit of the last place per row
        assert abs(sum(r["share"] for r in rows) - 1) <= len(rows) * 0.00005 + 1e-9, section
    assert table["cause"][-1]["cumulative"] == 1.0
    assert sum(r["unshown"] for r in table["family"]) == c["unshown"]


def test_every_family_named_exists(table: dict) -> None:
    families = {f.name for f in all_families()}
    assert UNKNOWN_FAMILY not in families
    listed = [r["family"] for r in table["family"]]
    assert len(listed) == len(set(listed))
    for row in table["family"]:
        assert row["family"] in families | {UNKNOWN_FAMILY}, row["family"]
        assert row["page"] == (row["family"] in families)
    assert {r["family"] for r in table["cause"]} <= set(listed)
    assert "out-of-scope" not in listed


def test_aliases_are_counted_under_one_name(table: dict) -> None:
    aliases = read_frequency("frequency-aliases")
    assert aliases and aliases["alias"]
    causes = {r["cause"] for r in table["cause"]}
    unshown = set(aliases["unshown"]["causes"])
    merged = {a for r in table["cause"] for a in r["aliases"]}
    for entry in aliases["alias"]:
        assert entry["cause"] not in causes, f"{entry['cause']} is an alias but counted under its own name"
        assert entry["same_as"] in causes | unshown
        assert entry["cause"] in merged | unshown or entry["same_as"] in unshown
    assert not causes & unshown  # the causes whose error is not shown are out of the shares


def test_the_head_is_the_first_causes_to_reach_the_share_and_each_is_judged(table: dict) -> None:
    c = table["corpus"]
    rows = table["cause"]
    head = [r for r in rows if r["head"]]
    assert rows[:len(head)] == head and len(head) == c["head_pairs"]
    assert sum(r["reports"] for r in head) == c["head_reports"] >= c["head_share"] * c["counted"]
    assert c["head_reports"] - head[-1]["reports"] < c["head_share"] * c["counted"]
    assert [r["reports"] for r in rows] == sorted((r["reports"] for r in rows), reverse=True)
    for r in head:
        if r["family"] != UNKNOWN_FAMILY:
            assert r["triage_judged"], f"{r['family']} {r['cause']} is in the head: judge it in tables/frequency-triage.toml"


def test_triage_judgments_name_one_entry_of_their_family(corpus: ModuleType, table: dict) -> None:
    knowledge = load_knowledge()
    judged = read_frequency("frequency-triage")
    named = corpus.triage_entries(judged, knowledge)
    triage = {f.key: [t.cause for t in f.triage] for f in knowledge.families}
    for (family, cause), entry in named.items():
        assert entry is None or entry.cause in triage[family]
    by_pair = {(r["family"], r["cause"]): r for r in table["cause"]}
    for pair, entry in named.items():
        assert pair in by_pair, f"tables/frequency-triage.toml judges {pair}, which no counted report has"
        assert by_pair[pair]["triage"] == (entry.cause if entry else "")
    with pytest.raises(corpus.TableError, match="in 0 triage entries"):
        corpus.triage_entries({"cause": [{"family": "api-drift", "cause": "x", "triage": "no entry says this"}]}, knowledge)
    with pytest.raises(corpus.TableError, match="triage entries of api-drift"):
        corpus.triage_entries({"cause": [{"family": "api-drift", "cause": "x", "triage": "the"}]}, knowledge)


def test_page_has_one_bar_per_family_and_links_to_family_pages(table: dict) -> None:
    families = [f.name for f in all_families()]
    page = frequency_page(table, families)
    assert page.count(BAR) == len(table["family"])
    rows = [line for line in page.splitlines() if BAR in line]
    for row, family in zip(rows, table["family"]):
        link = f"[{family['family']}](families/{family['family']}.md)"
        assert (link in row) == family["page"], row[:120]
        assert f"{family['share']:.1%}" in row
    for cause in table["cause"]:  # every cause is listed with its share and kb's answers on it
        assert re.search(rf"^\| `{re.escape(cause['cause'])}`.* \| {cause['reports']} \| {cause['share']:.1%} \| "
                         rf"(right {cause['right']}/|silent {cause['silent']}/)", page, re.M), cause["cause"]
    assert "cdn" not in page.lower() and "<script" not in page and "http" not in page


def test_page_without_a_table_says_so() -> None:
    page = frequency_page(None, [])
    assert "no frequency table" in page and BAR not in page


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.bars = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"] or "")
        if (a.get("class") or "") == "kb-freq-bar":
            self.bars += 1


def _check_built(site: Path, table: dict) -> None:
    html = site / FREQUENCY_PAGE.replace(".md", "") / "index.html"
    parser = _Links()
    parser.feed(html.read_text(encoding="utf-8"))
    assert parser.bars == len(table["family"])
    base = "http://site/" + FREQUENCY_PAGE.replace(".md", "/")
    family_links = {h for h in parser.hrefs if "families/" in h}
    linked = set()
    for href in family_links:
        path = urlparse(urljoin(base, href)).path.lstrip("/")
        target = site / path / "index.html" if path.endswith("/") or not path else site / path
        assert target.is_file(), f"{href} from the frequency page: no {target}"
        linked.add(path.rstrip("/").split("/")[-1])
    assert {r["family"] for r in table["family"] if r["page"]} <= linked


def test_built_mkdocs_page(real_site_dir: Path, table: dict) -> None:
    _check_built(real_site_dir, table)
    nav = (real_site_dir / "index.html").read_text(encoding="utf-8")
    assert "What goes wrong most" in nav


def test_built_zensical_page(zensical_site_dir: Path, table: dict) -> None:
    _check_built(zensical_site_dir, table)
