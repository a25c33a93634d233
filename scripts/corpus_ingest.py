"""Turn a labeller's compact notes into corpus records (corpus/README.md) and add them to a batch.

    python scripts/corpus_ingest.py NOTES.txt --batch NAME [--dry-run]

The notes are what a labeller writes while reading search results in search order; this script only
reshapes them (ids, repo and source from the URL, the error's size bound) and hands them to
`scripts/corpus.py add`, which validates them and skips ids already in the corpus. The notes format:

    @q QUERY                                     the broad query the following reports were found by
    >> RANK URL DATE FAMILY CAUSE BASIS          one report: DATE is YYYY-MM-DD or -, BASIS R or L
    TITLE                                        the next line: the report's title (one line)
    v lib=version lib=version                    optional: the versions the report states
    ...error output...                           every further line up to the next '>>' or '@q'

FAMILY may be written `oos` (out-of-scope) or `uf` (unknown-family), CAUSE `ns` (error-not-shown),
BASIS `R` (thread-resolved) or `L` (labeller). Nothing but these fields is stored: no prose.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus  # noqa: E402  (scripts/corpus.py)

FAMILY_SHORT = {"oos": "out-of-scope", "uf": "unknown-family"}
CAUSE_SHORT = {"ns": "error-not-shown"}
BASIS_SHORT = {"R": "thread-resolved", "L": "labeller"}
QA_HOSTS = ("stackoverflow.com", "stackexchange.com", "superuser.com", "serverfault.com")


class NotesError(Exception):
    pass


def identify(url: str) -> tuple[str, str, str]:
    """``(id, source, repo)`` of a report's URL (the id forms of corpus/README.md)."""
    m = re.match(r"https?://github\.com/([^/]+)/([^/]+)/(?:issues|discussions|pull)/(\d+)", url)
    if m:
        repo = f"{m.group(1)}/{m.group(2)}"
        return f"gh:{repo}#{m.group(3)}", "github-issue", repo
    m = re.match(r"https?://([^/]+)/(.*)", url)
    if not m:
        raise NotesError(f"not a URL: {url}")
    host, path = m.group(1), m.group(2)
    if any(host == h or host.endswith("." + h) for h in QA_HOSTS):
        num = re.search(r"questions/(\d+)", path)
        if not num:
            raise NotesError(f"no question number in {url}")
        prefix = "so" if host == "stackoverflow.com" else f"qa:{host}"
        return f"{prefix}:{num.group(1)}" if prefix == "so" else f"{prefix}/{num.group(1)}", "qa", host
    nums = re.findall(r"/(\d+)(?=/|$)", "/" + path.rstrip("/"))
    key = nums[0] if nums else path.rstrip("/").rsplit("/", 1)[-1]
    return f"forum:{host}/{key}", "forum", host


def bound(error: str) -> str:
    """The error at most corpus.MAX_ERROR characters: head and tail around ``\\n[...]\\n``."""
    if len(error) <= corpus.MAX_ERROR:
        return error
    keep = (corpus.MAX_ERROR - len("\n[...]\n")) // 2
    return error[:keep] + "\n[...]\n" + error[-keep:]


def parse(text: str) -> list[dict]:
    records: list[dict] = []
    query: str | None = None
    current: dict | None = None
    body: list[str] = []

    def close() -> None:
        if current is None:
            return
        if not body:
            raise NotesError(f"{current['url']}: no title line")
        current["title"] = body[0].strip()
        rest = body[1:]
        if rest and rest[0].startswith("v "):
            for pair in rest[0][2:].split():
                lib, _, version = pair.partition("=")
                if not version:
                    raise NotesError(f"{current['url']}: version {pair!r} is not lib=version")
                current["versions"][lib] = version
            rest = rest[1:]
        current["error"] = bound("\n".join(rest).strip("\n"))
        records.append(current)

    for n, line in enumerate(text.splitlines(), start=1):
        if line.startswith("@q "):
            close()
            current, body, query = None, [], line[3:].strip()
        elif line.startswith(">> "):
            close()
            body = []
            fields = line[3:].split()
            if len(fields) != 6 or query is None:
                raise NotesError(f"line {n}: '>> RANK URL DATE FAMILY CAUSE BASIS' after an '@q' line")
            rank, url, date, family, cause, basis = fields
            rid, source, repo = identify(url)
            current = {"id": rid, "url": url, "source": source, "repo": repo,
                       "date": None if date == "-" else date, "query": query, "rank": int(rank),
                       "error": "", "title": "", "versions": {},
                       "label": {"family": FAMILY_SHORT.get(family, family), "cause": CAUSE_SHORT.get(cause, cause),
                                 "basis": BASIS_SHORT.get(basis, basis)}}
            if date != "-" and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
                raise NotesError(f"line {n}: date {date!r}")
        elif current is not None:
            body.append(line.rstrip())
        elif line.strip():
            raise NotesError(f"line {n}: text outside a report")
    close()
    return records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notes", type=Path)
    parser.add_argument("--batch", required=True)
    parser.add_argument("--dry-run", action="store_true", help="parse and print the ids; add nothing")
    ns = parser.parse_args()
    try:
        records = parse(ns.notes.read_text(encoding="utf-8"))
    except NotesError as exc:
        print(f"corpus_ingest: {exc}", file=sys.stderr)
        return 1
    seen: set[str] = set()
    for r in records:
        r["batch"] = ns.batch
        if r["id"] in seen:
            print(f"twice in the notes: {r['id']}")
        seen.add(r["id"])
    if ns.dry_run:
        for r in records:
            print(r["id"], r["label"]["family"], r["label"]["cause"], len(r["error"]))
        return 0
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as handle:
        for r in records:
            handle.write(json.dumps(r, ensure_ascii=False) + "\n")
    return corpus.add(Path(handle.name), ns.batch)


if __name__ == "__main__":
    raise SystemExit(main())
