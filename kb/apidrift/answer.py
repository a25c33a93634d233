"""Answer an API-drift error from the history: accepted releases, when it went, where, and the fixes.

Called by kb/diagnose/drift.py once it has recognised the error's form; see that module for the forms.
"""

from __future__ import annotations

import marshal

from kb.apidrift.history import version_order  # (answers run only where the history is loaded)
from kb.apidrift.python_types import PYTHON_TYPES
from kb.apidrift.section import Drift, not_installed
from kb.knowledge.precompiled import pattern

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing, nor re at import (turn 46: ~5-8 ms of a run)

if TYPE_CHECKING:
    from collections.abc import Callable


def _span(versions: list[str], chosen: list[str]) -> str:
    """'0.9.6–0.12.2, 0.15.2' over the covered releases."""
    if not chosen:
        return "none"
    index = {v: i for i, v in enumerate(versions)}
    spans: list[list[str]] = []
    for v in chosen:
        if spans and index[v] == index[spans[-1][-1]] + 1:
            spans[-1].append(v)
        else:
            spans.append([v])
    return ", ".join(s[0] if len(s) == 1 else f"{s[0]}–{s[-1]}" for s in spans)


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _floor(version: str, versions: list[str]) -> str:
    """The bound a pin needs for a change made in `version`: the minor ("4.46") when the change came with the
    minor's first covered release, the exact patch ("0.19.2") when earlier patches of that minor are covered and
    did not have it (a pin on the minor would let them in). A verified release is exact: pass no versions and
    its X.Y.0 is written X.Y."""
    minor = _minor(version)
    earlier = [v for v in versions if _minor(v) == minor and _key(v) < _key(version)]
    if earlier or not versions and _key(version)[2:3] not in ((), (0,)):
        return version
    return minor


def _key(version: str) -> tuple[int, ...]:
    return version_order(version)  # `2.1.2+cu121` is 2.1.2 (not 2.1.2121), `4.36.0rc1` comes before 4.36.0


def _older(installed: str, version: str) -> bool:
    """Whether ``installed`` is older than ``version``; a minor alone ("transformers 4.34") is taken as its .0 release,
    not as older than it."""
    a, b = _key(installed), _key(version)
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)) < b + (0,) * (width - len(b))


def _installed(lib: str, facts: dict[str, str], env_versions: dict[str, str] | None) -> tuple[str | None, str | None]:
    if facts.get(f"{lib}_version"):
        return facts[f"{lib}_version"], "the log"
    if env_versions and env_versions.get(lib):
        return env_versions[lib], "kb env (this machine)"
    return None, None


def _pin(lib: str, versions: list[str], accepted: list[str]) -> str | None:
    """A version specifier covering the releases that accept the name ('trl<0.13', 'transformers>=4.46'). Releases
    between the first and the last that lack it (removed and put back: transformers 4.35.0's is_flash_attn_available)
    are excluded one by one ('transformers>=4.34,<4.39,!=4.35.0'); more than GAP_PINS of them: the last span alone."""
    if not accepted:
        return None
    start, after = versions.index(accepted[0]), versions.index(accepted[-1]) + 1
    having = set(accepted)
    gap = [v for v in versions[start:after] if v not in having]
    if len(gap) > GAP_PINS:
        start = max(i for i, v in enumerate(versions[:after]) if v not in having) + 1
        gap = []
    lower = "" if start == 0 else f">={_floor(versions[start], versions)}"
    upper = "" if after >= len(versions) else f"<{_floor(versions[after], versions)}"
    spec = ",".join(p for p in (lower, upper, *(f"!={v}" for v in gap)) if p)
    return f"{lib}{spec}" if spec else None


GAP_PINS = 3  # releases lacking a name between two that have it, excluded one by one in a pin


def _verdict(d: Drift, lib: str, what: str, versions: list[str], accepted: list[str],
             installed: str | None, h, gap_homes: Callable[[int, int], tuple[str, list[str]]] | None = None) -> None:
    """Accepted range, added/removed versions, and which direction the installed version is off. ``gap_homes``
    (an import's): for a gap's first and last index, the name's import and the modules it lived in there."""
    d.doc["accepted"] = _span(versions, accepted)
    d.doc["covered"] = f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases, the latest patch of each minor)"
    if not accepted:
        d.fact(f"{what}: no {lib} release from {versions[0]} to {versions[-1]} has it")
        return
    d.fact(f"{what}: {lib} {d.doc['accepted']} (of the covered {versions[0]}–{versions[-1]})")
    first_i, last_i = versions.index(accepted[0]), versions.index(accepted[-1])
    if first_i == 0 and last_i == len(versions) - 1 and len(accepted) == len(versions):
        rel = h.release(lib, installed) if installed else None
        if not installed or rel is None and _key(installed) < _key(versions[0]):
            d.fact(f"every covered release has it: the {lib} that ran is older than {versions[0]}, or the import "
                   f"failed inside {lib} (an earlier error in the traceback), or another copy of {lib} is imported")
            d.fix(f"upgrade: pip install -U '{lib}>={_minor(versions[0])}', restart, and check {lib}.__version__ "
                  "and __file__ in the failing process")
    if first_i > 0:
        d.doc["added_in"] = accepted[0]
        d.fact(f"added in {lib} {accepted[0]} (absent from {versions[first_i - 1]})")
    if last_i < len(versions) - 1:
        d.doc["removed_in"] = versions[last_i + 1]
        d.fact(f"gone in {lib} {versions[last_i + 1]} (last release with it: {accepted[-1]})")
    _tell_gaps(d, lib, versions, accepted, h.release(lib, installed) if installed else None, gap_homes)
    if installed:
        rel = h.release(lib, installed)
        if rel in accepted:
            d.fact(f"the installed {lib} {installed} has it: the process probably imports another {lib} "
                   "(another environment, a notebook not restarted) or another class of the same name")
        elif _key(installed) < _key(accepted[0]):
            d.fix(f"upgrade: pip install -U '{lib}>={_floor(accepted[0], versions)}' (the code is newer than {lib} {installed})")
        elif _key(installed) > _key(accepted[-1]):
            d.fact(f"the installed {lib} {installed} is newer than the last release with it ({accepted[-1]})")
        elif rel in versions:
            _tell_gap(d, lib, versions, accepted, installed, rel)
    elif first_i > 0 and last_i == len(versions) - 1:
        d.fix(f"if your {lib} is older than {accepted[0]}: upgrade, pip install -U '{lib}>={_floor(accepted[0], versions)}'")
    pin = _pin(lib, versions, accepted)
    if pin and last_i < len(versions) - 1:
        d.fix(f"or keep the code and install the releases it was written for: pip install '{pin}'")


def _tell_gaps(d: Drift, lib: str, versions: list[str], accepted: list[str], within: str | None,
               gap_homes: Callable[[int, int], tuple[str, list[str]]] | None) -> None:
    """Releases between the first and the last with the name that lack it (A -> B -> A: transformers 4.48.0-4.48.1
    dropped pytorch_utils.is_torch_greater_or_equal_than_1_13 and 4.48.2 put it back), each gap with the release that
    dropped it and the one that restored it; the first GAP_PINS gaps, less the one the installed release (``within``)
    lies in, which _tell_gap tells. Where ``gap_homes`` names modules the name lived in during the gap, the fact says
    so and a fix imports it from there (kb/apidrift/holes.py)."""
    from kb.apidrift.holes import holes

    for start, end in holes(versions, accepted)[:GAP_PINS]:
        if within in versions[start:end + 1]:
            continue
        span = versions[start] if start == end else f"{versions[start]}–{versions[end]}"
        back = versions[end + 1]
        name, homes = gap_homes(start, end) if gap_homes else ("", [])
        d.fact(f"also missing from {lib} {span}: gone in {versions[start]} (last with it {versions[start - 1]}), "
               f"back in {back}" + (f"; in those releases it is importable from {', '.join(homes[:3])}" if homes else ""))
        if homes and not within:
            d.fix(f"if your {lib} is {span}: from {homes[0]} import {name}, or upgrade past it, "
                  f"pip install -U '{lib}>={back}'")


def _tell_gap(d: Drift, lib: str, versions: list[str], accepted: list[str], installed: str, rel: str) -> None:
    """The installed release lies between two that have the name and lacks it itself (transformers 4.37.0 dropped
    generation.utils.SampleOutput and 4.37.1 put it back): the releases of that gap, and the next one with it."""
    i = versions.index(rel)
    start = i
    while start > 0 and versions[start - 1] not in accepted:
        start -= 1
    end = i
    while end + 1 < len(versions) and versions[end + 1] not in accepted:
        end += 1
    if start == 0 or end + 1 >= len(versions):
        return
    gap = versions[start] if start == end else f"{versions[start]}–{versions[end]}"
    d.fact(f"the installed {lib} {installed} lies in a gap: {lib} {gap} lacks it, {versions[start - 1]} had it and "
           f"{versions[end + 1]} has it again")
    upper = f",<{d.doc['removed_in']}" if d.doc.get("removed_in") else ""
    d.fix(f"upgrade past the gap: pip install -U '{lib}>={versions[end + 1]}{upper}'")


_VERIFIED: list = []  # drift/'s entries, read on the first drift answer that needs them


def _verified_entries() -> list:
    """The verified reproductions of drift/ (kb/knowledge/drift_entry.py): each states one change, its
    release and its replacement, and was run on both sides. Unreadable entries are skipped (kb check names them)."""
    if not _VERIFIED:
        from kb.knowledge.drift_entry import drift_folders, load_drift_entries

        _VERIFIED.append(load_drift_entries(drift_folders()))  # (their TOML from the cache folder where unchanged)
    return _VERIFIED[0]


def _verified(lib: str, kind: str, old: str, owner: str | None = None) -> list:
    """The drift/ entries for `old` of `lib` (a name, or a parameter of `owner`)."""
    return [e for e in _verified_entries() if e.library == lib and e.kind == kind and e.old == old
            and (owner is None or e.owner == owner or e.owner.split(".")[-1] == owner.split(".")[-1])]


def _tell_verified(d: Drift, entries: list) -> None:
    """A verified entry's facts: its summary, its replacement and its exact release (the entry ran the last
    release with the old form and the first without it; the history may know only the minor's latest patch)."""
    for e in entries[:1]:
        d.fact(f"verified (drift/{e.name}): {e.summary}")
        _set_target(d, e.new, e.old)
        key = "added_in" if e.change == "added_in" else "removed_in"
        last = e.data.get("last_old")
        if d.doc.get(key) != e.version:
            if d.doc.get(key):
                d.fact(f"exact release (verified): {e.version}, the first {e.library} release "
                       + ("with it" if key == "added_in" else "without it") + (f"; {last} is the last before" if last else ""))
            d.doc[key] = e.version
        if not e.new and key == "removed_in":
            d.fact(f"no replacement: drift/{e.name} records none ({e.summary})")


def replacement(rename: dict, pointed: bool = False) -> str | None:
    """The new name a rename records, or the one its message names ("use X instead"), else None. ``pointed``:
    also the one callable the message sends the caller to ("directly to the `list_models` method": see
    _pointed_to), for a name deprecated as a whole (a class replaced by a function's keywords)."""
    if rename.get("new"):
        return rename["new"]
    from kb.apidrift.deprecation_text import parse_message  # only for a message the history kept without a target

    message, old = rename.get("message") or "", rename.get("old")
    return parse_message(message, old)[1] or (_pointed_to(message, old) if pointed else None)


def _pointed_to(message: str, old: str | None) -> str | None:
    """The one quoted callable a deprecation message sends the caller to, when its verb is not one
    parse_message reads: "Please pass the filter parameters as keyword arguments directly to the
    `list_models` method" -> list_models. None when it quotes no other name, or several."""
    import re

    found = {m.group(1) for m in re.finditer(
        r"\b(?:to|with|via|through|into)\s+(?:the\s+)?[`'\"]([A-Za-z_][\w.]*)(?:\(\))?[`'\"]"
        r"(?=\s+(?:method|function|class|call|API|instead)\b|\s*(?:instead\b|[.,;]|$))", message)}
    quoted = set(re.findall(r"[`'\"]([A-Za-z_][\w.]*)(?:\(\))?[`'\"]", message)) - {old or ""}
    found.discard(old or "")
    return found.pop() if len(found) == 1 and found == quoted else None


def _other_package(lib: str, h, new: str) -> str | None:
    """The package a dotted replacement lives in when it is not `lib` ("evaluate" for "evaluate.load")."""
    head = new.split(".")[0]
    if "." not in new or head == lib or not head.islower() or not head.isidentifier():
        return None
    return head


def _renames(h, lib: str, owner: str | None, old: str) -> list[dict]:
    return [r for r in h.renames(lib) if r["old"] == old and (owner is None or r["owner"] == owner)]


def _tell_renames(d: Drift, lib: str, found: list[dict], pointed: bool = False) -> None:
    for r in found[:3]:
        until = f"accepted until {r['until']}" if r["until"] else "still accepted in the latest release"
        d.fact(f"{lib} {r['since']}+ says: \"{r['message'][:240]}\" ({until})")
        _set_target(d, replacement(r, pointed and r["owner"].split(".")[-1] == r["old"]), r["old"])


def _set_target(d: Drift, new: str | None, old: str) -> None:
    """Record a replacement once: moved_to for a field of a class ("SFTConfig.max_seq_length"), else renamed_to."""
    if new and new != old and not d.doc["renamed_to"] and not d.doc["moved_to"]:
        if "." in new and new.rsplit(".", 1)[0][:1].isalpha() and new.rsplit(".", 1)[0].split(".")[-1][:1].isupper():
            d.doc["moved_to"] = new
        else:
            d.doc["renamed_to"] = new


def _callable_candidates(h, callable_: str) -> list[tuple[str, str, str]]:
    """(lib, tracked path, method) for 'SFTTrainer.__init__', 'Trainer.compute_loss', 'load_dataset'."""
    parts = callable_.split(".")
    cls, method = (parts[-2], parts[-1]) if len(parts) >= 2 else (parts[-1], "")
    found = []
    for lib in h.libraries():
        for path in h.callables(lib):
            tail = path.split(".")
            if method in ("__init__", "") and tail[-1] == cls and len(tail) == 2 or method and method != "__init__" and tail[-2:] == [cls, method]:
                found.append((lib, path, method))
    return found


def _bare_init(d: Drift, h, name: str, code: str, after: str = "") -> list[tuple[str, str, str]]:
    """The callable of "__init__() got an unexpected keyword argument" (Python <= 3.9 names no class): a
    tracked class called in the traceback's code lines (the innermost first), else in the lines after the error
    (a report quotes its code below the error: "> args = TrainingArguments("), preferring the call on a line
    that passes the keyword, then a class whose acceptance of it changed across releases; else, read from the
    keyword alone, the callable whose deprecation of it the source records (History.drifted_param) when every
    such record agrees on the replacement, else the callables that agree on the release that added it
    (_keyword_only), else none (silence): a keyword many callables changed each in its own release names none."""
    import re

    # transformers' from_pretrained hands the keywords it does not know on to the model class's __init__
    # (modeling_utils.py: `model = cls(config, *model_args, **model_kwargs)`): a release older than a from_pretrained
    # keyword (attn_implementation, 4.36) fails there, naming that keyword
    innermost = next((line.strip() for line in reversed(code.split("\n")) if line.strip()), "")
    forwarded = "transformers.PreTrainedModel.from_pretrained"
    if re.search(r"\bcls\(\s*config\s*,\s*\*model_args\s*,\s*\*\*model_kwargs\s*\)", innermost) \
            and "transformers" in h.libraries() and forwarded in h.callables("transformers") \
            and _changed(h, "transformers", forwarded, name):
        d.fact(f"the error names no class; the innermost code line `{innermost[:80]}` is transformers' from_pretrained "
               f"handing the keywords it does not take on to the model's __init__: `{name}` was meant for "
               f"from_pretrained")
        return [("transformers", forwarded, "from_pretrained")]
    for where, lines in (("code line", list(reversed(code.split("\n")))), ("line after the error", after.split("\n"))):
        called = []
        for line in lines:
            for dotted, cls in reversed(re.findall(r"(?<![\w.])((?:[A-Za-z_]\w*\.)*)([A-Z]\w{1,60})\s*\(", line)):
                # a class the top level does not export is tracked by its module's path (trl's
                # DPODataCollatorWithPadding, trl.trainer.utils): the one tracked class of that name (_defined_deeper)
                found = _callable_candidates(h, f"{cls}.__init__") or _reexported(h, dotted + cls) \
                    or _defined_deeper(Drift("", None), h, f"{cls}.__init__")
                if found:
                    called.append((dotted + cls, line, found[0]))
        passed = [c for c in called if re.search(rf"\b{re.escape(name)}\s*=", c[1])]
        changed = [c for c in called if _changed(h, c[2][0], c[2][1], name)]
        for cls, line, found in (passed or changed or called)[:1]:
            d.fact(f"the error names no class; `{cls}(` in the {where} `{line.strip()[:120]}` is taken as the call")
            if "." in cls and found[1] != cls and not found[1].endswith("." + cls):
                d.fact(f"`{cls}` is `{found[1]}` re-exported (each module on the way exports the next name)")
            elif "." not in cls and found[1].count(".") >= 2:
                d.fact(f"`{cls}` is read as `{found[1]}`, the one covered class of that name")
            return [found]
    renamed = {(lib, replacement(r)) for lib in h.libraries() for r in h.renames(lib)
               if r.get("kind") == "param" and r.get("old") == name}
    if len(renamed) > 1:
        running = _running_in(f"{code}\n{after}") & {lib for lib, _new in renamed}
        owners = {r["owner"] for lib in running for r in h.renames(lib)
                  if r.get("kind") == "param" and r.get("old") == name}
        if len(running) == 1 and len(owners) == 1:
            lib, path = running.pop(), owners.pop()
            others = sorted({other for other, _new in renamed} - {lib})
            d.fact(f"the error names no class; of the covered callables whose deprecation of `{name}` the source "
                   f"records (in {lib} and {', '.join(others)}), `{path}` is {lib}'s, the library the traceback runs "
                   "in (read from the keyword and the traceback's paths; the class that raised it may be another)")
            return [(lib, path, "__init__")]
    where = h.drifted_param(name) if len(renamed) == 1 else None
    if where is None:
        return _keyword_only(d, h, name) or _keyword_in_running(d, h, name, f"{code}\n{after}")
    lib, path = where
    d.fact(f"the error names no class: `{path}` is a covered callable whose deprecation of `{name}` the source "
           "records (read from the keyword alone; the class that raised it may be another)")
    _tell_other_droppers(d, h, name, lib)
    return [(lib, path, "__init__")]


MAX_OTHER_DROPPERS = 2  # other libraries' releases told beside a bare keyword's reading (more: the keyword is common)


def _tell_other_droppers(d: Drift, h, name: str, chosen: str) -> None:
    """Beside a bare `__init__()` keyword read off one library's deprecation record: the other covered libraries'
    classes that dropped the same keyword while they stayed (accelerate.Accelerator's dispatch_batches, gone in
    1.0.0, beside transformers.TrainingArguments'), grouped by library and release (trl's configs that inherit
    TrainingArguments drop it together: one change), each group with its release, as the error does not say which
    one raised it. Nothing when none did, or when more than MAX_OTHER_DROPPERS such releases did."""
    groups: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for lib in h.libraries():
        if lib == chosen:
            continue
        for path in h.callables(lib):
            present, accepted = h.param_versions(lib, path, name)
            if not accepted or accepted[-1] == present[-1] or not path.rsplit(".", 1)[-1][:1].isupper():
                continue
            gone = h.release_after(lib, accepted[-1])
            if gone is not None:
                groups.setdefault((lib, gone), []).append((path, accepted[0], accepted[-1]))
    if not 0 < len(groups) <= MAX_OTHER_DROPPERS:
        return
    for (lib, gone), found in sorted(groups.items()):
        found.sort(key=lambda f: (f[0].count("."), len(f[0])))
        path, first, last = found[0]
        also = f" (and {len(found) - 1} more {lib} classes)" if len(found) > 1 else ""
        new = _dropper_replacement(h, lib, path, name)
        d.fact(f"`{path}`{also} also dropped `{name}`: {lib} {first}–{last} take it, {gone} does not (if the "
               f"traceback runs in {lib}, that release is the change)" + (f"; {lib}'s replacement: {new}" if new else ""))


def _dropper_replacement(h, lib: str, path: str, name: str) -> str | None:
    """What `lib` says replaces keyword `name` of `path`: a verified entry's new form, else a deprecation its source
    records for the keyword, or for the class's keywords as a group (accelerate 0.28-0.34's Accelerator: "Passing the
    following arguments to `Accelerator` is deprecated ... Please pass an `accelerate.DataLoaderConfiguration`
    instead", whose old name is the class's); None when neither names one."""
    for e in _verified(lib, "param", name, path)[:1]:
        if e.new:
            return f"`{e.new}` (verified: drift/{e.name})"
    cls = path.rsplit(".", 1)[-1]
    for r in _renames(h, lib, path, name) or [r for r in _renames(h, lib, path, cls) if r.get("kind") == "param"]:
        new = replacement(r)
        if new:
            return f"`{new}` ({lib} {r['since']}+ says: \"{r['message'][:160]}\")"
    return None


def _keyword_in_running(d: Drift, h, name: str, text: str) -> list[tuple[str, str, str]]:
    """A bare "__init__() got an unexpected keyword argument 'k'" whose keyword many libraries' callables changed
    (`debug`: transformers, torch, trl, accelerate), raised in a traceback that runs in one covered library only
    ("/site-packages/accelerate/commands/launch.py"): _keyword_only within that library, which answers only when
    its callables agree (accelerate's config classes: `debug` from 0.22.0). [] when the paths show no covered
    library, or several."""
    running = _running_in(text) & set(h.libraries())
    if len(running) != 1:
        return []
    lib = running.pop()
    found = _keyword_only(d, h, name, lib)
    if found:
        d.fact(f"the error names no class; the traceback runs in {lib} alone (its paths), so `{name}` is read among "
               f"{lib}'s callables")
    return found


def _library_named(d: Drift, h, callable_: str, name: str) -> list[tuple[str, str, str]]:
    """For "Accelerate.__init__() got an unexpected keyword argument 'logging_dir'": a report that writes the
    package's name where the class's should be (a covered library, capitalised, that no covered class is named
    after), read as "the accelerate package got an unexpected keyword argument" (_keyword_only within it). []
    for a real class name, or a name that is no covered library."""
    parts = callable_.split(".")
    if len(parts) != 2 or parts[1] != "__init__" or not parts[0][:1].isupper():
        return []
    lib = parts[0].lower()
    if lib not in h.libraries() or h.find_classes(parts[0]):
        return []
    found = _keyword_only(d, h, name, lib)
    if found:
        d.fact(f"`{parts[0]}` is no class of the covered libraries but the name of one: read as {lib}'s callables")
    return found


def _running_in(text: str) -> set[str]:
    """The packages a traceback's paths run in ("/site-packages/accelerate/commands/launch.py" -> accelerate)."""
    import re

    return set(re.findall(r"[\\/](?:site|dist)-packages[\\/]([A-Za-z_]\w*)[\\/]", text))


def _defined_deeper(d: Drift, h, callable_: str) -> list[tuple[str, str, str]]:
    """For "Init.__init__() got ..." (Python 3.10+ names the class, not the path it was imported by): the one tracked
    class of that name in any module of the covered libraries (deepspeed.runtime.zero.partition_parameters.Init,
    which users reach as deepspeed.zero.Init). [] when none, or several libraries or modules define one."""
    parts = callable_.split(".")
    if len(parts) != 2 or parts[1] != "__init__" or not parts[0][:1].isupper():
        return []
    found = [(lib, p) for lib in h.libraries() for p in h.callables(lib)
             if p.rsplit(".", 1)[-1] == parts[0] and p.count(".") >= 2]
    if len(found) != 1:
        return []
    lib, path = found[0]
    d.fact(f"`{parts[0]}` is read as `{path}`, the one covered class of that name (defined there, re-exported elsewhere)")
    return [(lib, path, "__init__")]


def _reexported(h, dotted: str) -> list[tuple[str, str, str]]:
    """[(lib, tracked path, "__init__")] for a class called by a public path the history does not track, when that
    path re-exports the one tracked class of its name in the library: `deepspeed.zero.Init` is
    `deepspeed.runtime.zero.partition_parameters.Init` (deepspeed binds `zero` to its module `deepspeed.runtime.zero`,
    whose exports hold `Init`). The chain is read from the history's exports (the wheels' imports), not a list:
    each step is a name the module before it exports, and the last module exports the class and holds its
    defining module. [] when the path is not dotted, names no covered library, or the class's name is ambiguous."""
    parts = dotted.split(".")
    lib, name = parts[0], parts[-1]
    if len(parts) < 3 or lib not in h.libraries():
        return []
    tracked = [p for p in h.callables(lib) if p.rsplit(".", 1)[-1] == name]
    if len(tracked) != 1 or tracked[0] == dotted:
        return []
    latest = h.versions(lib)[-1]
    module = lib
    for step in parts[1:-1]:
        if step not in (h.exports(lib, module, latest) or set()):
            return []
        nested = f"{module}.{step}"
        if nested in h.modules(lib, latest):
            module = nested
            continue
        # a name bound to a module elsewhere in the package (`from .runtime import zero`): the one module of that
        # name that holds the tracked class's defining module
        homes = [m for m in h.modules(lib, latest) if m.endswith(f".{step}") and tracked[0].startswith(m + ".")]
        if len(homes) != 1:
            return []
        module = homes[0]
    if name not in (h.exports(lib, module, latest) or set()) or not tracked[0].startswith(module + "."):
        return []
    return [(lib, tracked[0], "__init__")]


def _changed(h, lib: str, path: str, name: str) -> bool:
    """Whether `path` accepts `name` in some covered releases and not in others (or a rename records it)."""
    present, accepted = h.param_versions(lib, path, name)
    return bool(accepted) and set(present) != set(accepted) or bool(_renames(h, lib, path, name))


def _kwarg(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    name, callable_ = fields["name"], fields["callable"]
    if callable_ == "__init__":
        candidates = _bare_init(d, h, name, fields.get("code", ""), fields.get("after", ""))
    elif not callable_:
        candidates = _keyword_only(d, h, name, fields.get("library", ""))
    else:
        candidates = _callable_candidates(h, callable_) or _defined_deeper(d, h, callable_)
        if not candidates:
            candidates = _library_named(d, h, callable_, name)
        if not candidates:
            candidates = _base_candidates(d, h, callable_)
        if not candidates:
            candidates = _model_class(d, h, callable_, name)
        if not candidates:
            candidates = _close_candidates(d, h, callable_, name)
        if not candidates:  # a hook the library calls with a keyword its own release added ([[hook]] keywords)
            from kb.apidrift.positional import keyword_hook

            hooked = keyword_hook(d, h, callable_, name, facts, env)
            if hooked is not None:
                return hooked
        if not candidates and (callable_ == "forward" or callable_.endswith((".forward", "_forward"))):
            found = _forward_override(d, h, callable_, name, fields.get("code", ""))
            if found is not None:
                return _tell_forward_override(d, h, callable_, name, found, facts, env)
        if not candidates and "." not in callable_:
            candidates = _method_candidates(d, h, callable_, name)
            if not candidates:
                return _renamed_param(d, h, callable_, name, facts, env)
    override = False
    if not candidates and "." in callable_ and not callable_.endswith("__init__"):
        # an override (CustomTrainer.compute_loss) called by the library with an argument it added later
        method = callable_.rsplit(".", 1)[1]
        for lib in h.libraries():
            for path in h.callables(lib):
                if path.endswith("." + method) and h.param_versions(lib, path, name)[1]:
                    candidates.append((lib, path, method))
                    override = True
    if not candidates:
        return None
    lib, path, _method = candidates[0]
    d.doc["library"], d.doc["subject"] = lib, f"{path}({name}=...)"
    installed, source = _installed(lib, facts, env)
    d.doc["installed"], d.doc["installed_from"] = installed, source
    versions = h.versions(lib)
    _present, accepted = h.param_versions(lib, path, name)
    if override:
        d.fact(f"{lib} calls {path} with `{name}` since {accepted[0]}; your override of "
               f"{callable_} does not take it")
        d.fix(f"add the parameter to your override: def {callable_.rsplit('.', 1)[1]}(self, ..., {name}=None, **kwargs)")
        d.doc["accepted"], d.doc["added_in"] = _span(versions, accepted), accepted[0]
        d.doc["covered"] = f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases)"
        return d
    if not accepted and callable_ and not _renames(h, lib, path, name):
        forwarder = _forwarded_to(d, h, lib, path, name)
        if forwarder is not None:
            path = forwarder
            d.doc["subject"] = f"{path}({name}=...)"
            _present, accepted = h.param_versions(lib, path, name)
    _verdict(d, lib, f"`{path}` accepts `{name}` in", versions, accepted, installed, h)
    noted = h.noted_param(lib, path, name) if hasattr(h, "noted_param") else None
    if noted:  # not read from the wheels: the history does not track the callable
        d.fact(f"`{path}` is not among the callables read from the wheels: `{name}` is dated to {lib} "
               f"{noted['added_in']} by {noted['source']}")
        if noted.get("renamed_to") and noted.get("param_removed_in") and not d.doc["renamed_to"]:
            # the row's rename (add_code_sample_docstrings' tokenizer_class -> processor_class, transformers 4.12.0)
            d.doc["renamed_to"] = noted["renamed_to"]
            d.fact(f"`{name}` was renamed `{noted['renamed_to']}` in {lib} {noted['param_removed_in']}")
    _tell_renames(d, lib, _renames(h, lib, path, name) or _inherited_renames(d, h, lib, path, name))
    _tell_same_release_rename(d, h, lib, path, name)
    _tell_verified(d, _verified(lib, "param", name, path))
    _tell_verified_new(d, [e for e in _verified_entries() if e.library == lib and e.kind == "param" and e.new == name
                           and e.change == "added_in" and e.owner.split(".")[-1] == path.split(".")[-1]], installed)
    if d.doc["removed_in"] and not d.doc["renamed_to"] and not d.doc["moved_to"]:
        d.fact(f"no replacement recorded: no {lib} release's source names one for `{name}`")
        _tell_newcomer(d, h, lib, path, name)
    cls = path.split(".")[1] if len(path.split(".")) > 1 else path
    if path.count(".") >= 2 and path.rsplit(".", 1)[-1][:1].islower() and not path.endswith(".__init__"):
        cls = ".".join(path.split(".")[-2:])  # a method: HfApi.create_repo(..., repo_id=...)
    if d.doc["renamed_to"] and "." not in d.doc["renamed_to"]:
        d.fix(f"port: {cls}(..., {d.doc['renamed_to']}=...) instead of {name}=...")
    elif d.doc["moved_to"]:
        target = d.doc["moved_to"]
        config, field = target.rsplit(".", 1)
        if not config.startswith(lib + "."):
            config = f"{lib}.{config}"  # "SFTConfig.max_seq_length" as a message spells it
        config_short = config.split(".")[-1]
        _p, in_config = h.param_versions(lib, config, field) if config.startswith(lib) else ([], [])
        if in_config and in_config[-1] != versions[-1]:
            later = _renames(h, lib, config, field)
            newer = next((r["new"] for r in later if r.get("new")), None)
            d.fact(f"`{config_short}.{field}` itself exists in {lib} {_span(versions, in_config)}"
                   + (f"; later renamed to `{newer}`" if newer else ""))
            field = newer.rsplit(".", 1)[-1] if newer else field
        until = "" if not in_config or in_config[-1] == versions[-1] or field != target.rsplit(".", 1)[1] \
            else f" ({config_short} has it up to {lib} {in_config[-1]})"
        d.fix(f"port: args = {config_short}(..., {field}=...); {cls}(..., args=args) without {name}={until}")
    elif not accepted:
        latest = h.params(lib, path, versions[-1]) or []
        close = _close(name, latest)
        if close:
            d.fact(f"the latest {lib} ({versions[-1]}) has similar parameters: {', '.join(close)}")
    return d


_FAMILY_WORDS = r"[A-Z]+[a-z0-9]*|[a-z0-9]+"  # (compiled on first use, from the regex cache)


def _camel(name: str) -> list[str]:
    """CamelCase or snake_case words, lower-cased: LlavaLlamaForCausalLM -> llava, llama, for, causal, lm."""
    return [w.lower() for w in pattern(_FAMILY_WORDS).findall(name)]


def _forward_override(d: Drift, h, callable_: str, name: str, code: str = "") -> tuple[str, str, list[str]] | None:
    """For "X.forward() got an unexpected keyword argument 'k'" where X is no class the history tracks (a report's
    subclass, LlavaLlamaForCausalLM; a patched forward, old_llama_for_causal_lm_forward; a bare "forward()"): the
    model forward of transformers whose parameters show when transformers began passing `k` (issue #25: the model
    classes' forward signatures, kb/apidrift/modelclasses.py). The tracked `<Class>.forward` callables that gained
    `k` in some release are narrowed to those of the model family the report's name or code names (llama, qwen2),
    then to the same role (ForCausalLM, Model, Attention, DecoderLayer: the longest common CamelCase ending), and
    the one that took `k` first is chosen (ties: the shortest path). (lib, path, accepted releases), or None."""
    import re

    if "transformers" not in h.libraries():
        return None
    lib = "transformers"
    versions = h.versions(lib)
    found = []
    for path in h.callables(lib):
        if not path.endswith(".forward"):
            continue
        present, accepted = h.param_versions(lib, path, name)
        if accepted and set(present) != set(accepted) and versions.index(accepted[0]) > 0:
            found.append((path, accepted))
    if not found:
        return None
    owner = callable_.rsplit(".", 1)[0] if callable_.endswith(".forward") else callable_.removesuffix("forward")
    words = _camel(owner)
    text = " ".join(words) + " " + code.lower()

    def family(path: str) -> str:
        return _camel(path.split(".")[-2])[0]

    named = [(p, a) for p, a in found if re.search(rf"(?<![a-z0-9]){re.escape(family(p))}(?![a-z])", text)]
    found = named or found
    if words:
        def ending(path: str) -> int:
            theirs = _camel(path.split(".")[-2])
            n = 0
            while n < min(len(theirs), len(words)) - 1 and theirs[-1 - n] == words[-1 - n]:
                n += 1
            return n
        best = max(ending(p) for p, _a in found)
        found = [(p, a) for p, a in found if ending(p) == best]
    path, accepted = min(found, key=lambda pa: (versions.index(pa[1][0]), len(pa[0]), pa[0]))
    return lib, path, accepted


def _tell_forward_override(d: Drift, h, callable_: str, name: str, found: tuple[str, str, list[str]],
                           facts: dict, env: dict | None) -> Drift:
    lib, path, accepted = found
    versions = h.versions(lib)
    installed, source = _installed(lib, facts, env)
    d.doc.update(library=lib, subject=f"{callable_}({name}=...)", installed=installed, installed_from=source,
                 accepted=_span(versions, accepted), added_in=accepted[0],
                 covered=f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases)")
    shown = callable_ if callable_ != "forward" else "the forward the error names"
    d.fact(f"`{shown}` is no model class the history covers: read as a model forward (a subclass's override, a "
           f"patched or remote-code forward) that {lib} calls with `{name}`")
    d.fact(f"`{path}` takes `{name}` from {lib} {accepted[0]} (absent from {versions[versions.index(accepted[0]) - 1]}): "
           f"{lib}'s own code (generate, the model's layers) passes it to the forwards it calls from then on, and a "
           f"forward written for an older {lib} does not take it")
    renames = _renames(h, lib, path, name)
    if accepted[-1] != versions[-1]:
        d.doc["removed_in"] = versions[versions.index(accepted[-1]) + 1]
        d.fact(f"`{path}` takes it by that name up to {lib} {accepted[-1]}")
    _tell_renames(d, lib, renames)
    d.fix(f"add the parameter to the forward: def forward(self, ..., {name}=None, **kwargs)")
    upper = _floor(accepted[0], versions)
    if installed and _key(installed) < _key(accepted[0]):
        d.fact(f"the installed {lib} {installed} is older than {accepted[0]}: the error is raised by another caller")
    else:
        d.fix(f"or keep the code and install the {lib} it was written for: pip install '{lib}<{upper}'")
    return d


_FILLER = frozenset({"from", "to", "for", "with", "use", "the", "and", "of", "in", "on", "by", "is", "get", "set"})


def _tell_newcomer(d: Drift, h, lib: str, path: str, name: str) -> None:
    """A keyword a function lost with no replacement recorded, where the function's module gained in that same
    release exactly one name that shares a word of the keyword (transformers 4.30.0: `deepspeed_init` lost
    `resume_from_checkpoint`, and `transformers.deepspeed` gained `deepspeed_load_checkpoint`): said as what
    the history shows, not as a stated replacement."""
    removed = d.doc["removed_in"]
    versions = h.versions(lib)
    if not removed or removed not in versions or versions.index(removed) == 0:
        return
    before = versions[versions.index(removed) - 1]
    module = path.rsplit(".", 1)[0]
    if module.rsplit(".", 1)[-1][:1].isupper():  # a method: the class's module
        module = module.rsplit(".", 1)[0]
    now, then = h.exports(lib, module, removed), h.exports(lib, module, before)
    if not now or not then:
        return
    words = {w for w in name.lower().split("_") if len(w) > 3 and w not in _FILLER}
    came = sorted(n for n in now - then if words & set(n.lower().split("_")))
    if len(came) != 1:
        return
    d.fact(f"in the same release ({lib} {removed}) `{module}` gained `{came[0]}`, the one new name there that shares "
           f"a word with `{name}`: the work `{name}=` did may have moved to it (the source states no replacement)")
    d.fix(f"port: look at {module}.{came[0]} (new in {lib} {removed}) for what `{name}=` did")


def _suffix_classes(h, cls: str) -> list[tuple[str, str]]:
    """(lib, tracked class path) whose class name ends `cls` at a CamelCase boundary, longest first: the
    base a wrapper or subclass is named after (NeuronSFTConfig -> SFTConfig, Seq2SeqTrainingArguments ->
    TrainingArguments). Short names (Config, Trainer's 7 letters and less) are not taken as a base."""
    found = []
    for lib in h.libraries():
        for path in h.callables(lib):
            base = path.split(".")[-1]
            if path.count(".") != 1 or len(base) < 8 or base == cls or not cls.endswith(base) or not base[:1].isupper():
                continue
            before = cls[: -len(base)]
            if before and (before[-1].islower() or before[-1].isdigit() or before[-1].isupper() and base[1:2].isupper()):
                found.append((lib, path))
    return sorted(found, key=lambda lp: -len(lp[1]))


def _base_candidates(d: Drift, h, callable_: str) -> list[tuple[str, str, str]]:
    """For a class the history does not track (a wrapper's NeuronSFTConfig), the tracked class its name ends
    with, said as a reading of the name (the wrapper's own signature may differ)."""
    parts = callable_.split(".")
    if len(parts) < 2 or parts[-1] != "__init__":
        return []
    cls = parts[-2]
    for lib, path in _suffix_classes(h, cls):
        d.fact(f"`{cls}` is not a class the history covers; its name ends with `{path.split('.')[-1]}`: read as a "
               f"subclass or wrapper of `{path}` (its own signature may differ)")
        return [(lib, path, "__init__")]
    return []


_FROM_PRETRAINED = "transformers.PreTrainedModel.from_pretrained"
_FROM_PRETRAINED_FLAX = "transformers.FlaxPreTrainedModel.from_pretrained"  # not tracked: [[param]] rows date it


def _model_class(d: Drift, h, callable_: str, name: str) -> list[tuple[str, str, str]]:
    """For "T5ForConditionalGeneration.__init__() got an unexpected keyword argument 'use_auth_token'" (a model
    class the history does not track by its parameters, a remote-code one included): transformers'
    from_pretrained hands every keyword it does not take itself on to the model's __init__, so a keyword that
    from_pretrained did not accept in the installed release (load_in_4bit before 4.30.0, use_auth_token from
    5.0.0) is raised by the model class. Read as from_pretrained's keyword when its acceptance changed across
    releases; [] for other names (a model class is named ...For<Task> or ...Model)."""
    import re

    parts = callable_.split(".")
    if len(parts) != 2 or parts[1] != "__init__" or parts[0] in ("PreTrainedModel", "FlaxPreTrainedModel"):
        return []
    # a Flax model hands them on once more, to its flax.linen module (FlaxBartForConditionalGenerationModule)
    flax = re.search(r"^Flax[A-Z]\w*?(?:[a-z0-9]For[A-Z][A-Za-z]+|[a-z0-9](?:LMHead)?Model)(?:Module)?$", parts[0])
    if not flax and not re.search(r"^[A-Z]\w*?(?:[a-z0-9]For[A-Z][A-Za-z]+|[a-z0-9](?:LMHead)?Model)$", parts[0]):
        return []
    loader = _FROM_PRETRAINED_FLAX if flax else _FROM_PRETRAINED
    if "transformers" not in h.libraries() or loader not in h.callables("transformers") \
            or not _changed(h, "transformers", loader, name):
        return []
    d.fact(f"`{parts[0]}` is read as a transformers {'Flax ' if flax else ''}model class: from_pretrained passes the "
           f"keywords it does not take on to the model's __init__, so `{name}` is read as a keyword of `{loader}`")
    return [("transformers", loader, "from_pretrained")]


def _close_candidates(d: Drift, h, callable_: str, name: str) -> list[tuple[str, str, str]]:
    """For a class name the history does not track, the one tracked class whose name is a near spelling of it
    ("SFTrainer" in a report's prose -> SFTTrainer) and that took the keyword in some release."""
    import difflib

    parts = callable_.split(".")
    if len(parts) < 2 or parts[-1] != "__init__" or len(parts[-2]) < 6:
        return []
    cls = parts[-2]
    classes = {p.split(".")[-1]: (lib, p) for lib in h.libraries() for p in h.callables(lib) if p.count(".") == 1}
    close = [c for c in difflib.get_close_matches(cls, list(classes), n=3, cutoff=0.9)
             if h.param_versions(*classes[c], name)[1]]
    if len(close) != 1:
        return []
    lib, path = classes[close[0]]
    d.fact(f"`{cls}` is not a class the history covers; read as `{path}`, the one covered class of a near name "
           f"that took `{name}` in some release")
    return [(lib, path, "__init__")]


def _forwarded_to(d: Drift, h, lib: str, path: str, name: str) -> str | None:
    """The callable of `lib` that passed `name` on to `path`, which never accepts it in a covered release: a
    caller that hands its ``**kwargs`` down (datasets' load_dataset(task=...) reaching BuilderConfig once
    datasets 3.0.0 dropped `task`). The covered `lib` callables whose acceptance of `name` changed, when they
    agree on the release that added it and on the one that dropped it; None when there are none or they
    disagree (a keyword many callables changed each in its own release names none). Two kinds of change say
    nothing of the keyword being dropped on the way, so they are not counted: a callable that still accepts it
    in the latest release, and one whose last release with the keyword is its own last release (the function
    went, not the keyword: datasets 3.0.0 removed load_metric, while 4.0.0 dropped `trust_remote_code` from
    load_dataset_builder and so let it reach DownloadConfig)."""
    versions = h.versions(lib)
    found: dict[tuple[str, str], list[str]] = {}
    still = False
    for other in h.callables(lib):
        present, accepted = h.param_versions(lib, other, name)
        if other != path and accepted and set(present) != set(accepted):
            if accepted[-1] == versions[-1]:
                still = True
                continue
            if accepted[-1] == present[-1]:
                continue  # the callable itself went in the next release
            found.setdefault((accepted[0], accepted[-1]), []).append(other)
    if len(found) != 1:
        return None
    (_first, last), paths = next(iter(found.items()))
    if still:
        d.fact(f"some covered {lib} callables still accept `{name}` in the latest release: they do not hand it "
               f"down; only a caller that dropped it can make `{path}` receive it")
    chosen = sorted(paths, key=lambda p: (p.count("."), len(p)))[0]
    d.fact(f"`{path}` accepts `{name}` in no covered {lib} release: the keyword reached it through a caller that "
           f"hands its keyword arguments down; the covered {lib} callables whose acceptance of `{name}` changed "
           f"({', '.join(sorted(paths)[:3])}{'…' if len(paths) > 3 else ''}) agree on when")
    return chosen


def _keyword_only(d: Drift, h, name: str, library: str = "") -> list[tuple[str, str, str]]:
    """The callable of an "unexpected keyword argument 'k'" quoted without it: the tracked callables whose
    acceptance of `k` changed, when they all agree on one library and on the release that first accepted it
    (PreTrainedModel.from_pretrained and the Auto classes: load_in_4bit from transformers 4.30.0). None
    when they disagree (`token` is a keyword of many callables, each with its own history). ``library``: the
    package the report names ("Datasets module got an unexpected keyword argument"), which limits the search to
    it; there, when its callables disagree, the one release that dropped the keyword from callables that kept
    existing answers (see _dropped_once), as the error cannot come from a callable that still takes it."""
    if library and library not in h.libraries():
        return []
    found: dict[tuple[str, str], list[str]] = {}
    for lib in [library] if library else h.libraries():
        for path in h.callables(lib):
            row = h.noted_param(lib, path, name)
            if row is not None and row.get("keyword_alone") is False:
                # a [[param]] row whose keyword other packages' classes take too (torch.nn.MultiheadAttention's
                # batch_first, pytorch-crf's CRF(batch_first=)): the keyword alone does not name the callable
                continue
            present, accepted = h.param_versions(lib, path, name)
            if accepted and set(present) != set(accepted):
                found.setdefault((lib, accepted[0]), []).append(path)
    dropped = _dropped_once(h, library, name) if library else None
    if dropped is not None:
        path, paths = dropped
        d.fact(f"the error names {library} but no callable: of the covered {library} callables whose acceptance of "
               f"`{name}` changed, only {', '.join(paths[:3])}{'…' if len(paths) > 3 else ''} dropped it in one "
               f"release while the callable stayed (the rest still take it or went with it)")
        return [(library, path, path.rsplit(".", 1)[-1])]
    if len(found) != 1:
        return []
    (lib, _first), paths = next(iter(found.items()))
    path = sorted(paths, key=lambda p: (p.count("."), len(p)))[0]
    d.fact(f"the error names no callable: the covered {lib} callables whose acceptance of `{name}` changed "
           f"({', '.join(sorted(paths)[:3])}{'…' if len(paths) > 3 else ''}) agree on the release that added it")
    return [(lib, path, path.rsplit(".", 1)[-1])]


def _dropped_once(h, lib: str, name: str) -> tuple[str, list[str]] | None:
    """(callable, all such callables) of `lib` that dropped `name` while the callable itself stayed, when they
    agree on the releases that added and dropped it; None when none did or they disagree."""
    versions = h.versions(lib)
    found: dict[tuple[str, str], list[str]] = {}
    for path in h.callables(lib):
        present, accepted = h.param_versions(lib, path, name)
        if accepted and set(present) != set(accepted) and accepted[-1] != versions[-1] \
                and accepted[-1] != present[-1]:
            found.setdefault((accepted[0], accepted[-1]), []).append(path)
    if len(found) != 1:
        return None
    paths = sorted(next(iter(found.values())), key=lambda p: (p.count("."), len(p)))
    return paths[0], paths


def _tell_same_release_rename(d: Drift, h, lib: str, path: str, name: str) -> None:
    """A keyword whose removal the history dates but whose own deprecation it did not record on `path`: the
    deprecation of that keyword recorded elsewhere in the library that ended in the same release (a shared
    helper warned for every method: huggingface_hub's `name` -> `repo_id`, gone in 0.11.0), when they all
    name one replacement."""
    removed = d.doc["removed_in"]
    if not removed or d.doc["renamed_to"] or d.doc["moved_to"]:
        return
    found = [r for r in h.renames(lib) if r.get("kind") == "param" and r.get("old") == name
             and r.get("first_without") == removed and r["owner"] != path]
    news = {replacement(r) for r in found} - {None}
    if len(news) != 1:
        return
    r = next(r for r in found if replacement(r))
    d.fact(f"{lib} {r['since']}+ deprecated `{name}` in `{r['owner']}` (a deprecation that ended in the same "
           f"release, {removed}): \"{r['message'][:200]}\"")
    _set_target(d, news.pop(), name)


def _method_candidates(d: Drift, h, method: str, name: str) -> list[tuple[str, str, str]]:
    """For a bare "create_repo() got an unexpected keyword argument 'name'" (a function, or a method the message
    names without its class): the tracked callables of that last name whose acceptance of the keyword changed
    across releases (HfApi.create_repo: the module-level create_repo is its alias). None when they disagree on
    the library, so that a common name (forward, generate) read off several classes is not guessed."""
    found = [(lib, path, method) for lib in h.libraries() for path in h.callables(lib)
             if path.count(".") >= 2 and path.rsplit(".", 1)[-1] == method and _changed(h, lib, path, name)]
    if not found or len({lib for lib, _p, _m in found}) != 1:
        return []
    named = [path for lib in h.libraries() for path in h.callables(lib) if path.rsplit(".", 1)[-1] == method]
    if len(named) == 1 and len(method) >= 12 and "_" in method:
        # a name only one covered callable has (torch.nn.functional.multi_head_attention_forward): not a guess
        d.fact(f"the error gives no module: `{found[0][1]}` is the only callable of the covered libraries named "
               f"`{method}`")
        return found[:1]
    d.fact(f"the error names no class: `{found[0][1]}` is the covered callable named `{method}` whose acceptance "
           f"of `{name}` changed")
    return found[:1]


def _renamed_param(d: Drift, h, method: str, name: str, facts: dict, env: dict | None) -> Drift | None:
    """A keyword of a callable the history does not track by its parameters, but whose deprecation the source
    recorded ("The `past` argument is deprecated ..., use `past_key_values` instead" on every GPT-2-like
    model's forward): the releases from the deprecation record, when every record of that method agrees."""
    found = [(lib, r) for lib in h.libraries() for r in h.renames(lib)
             if r.get("kind") == "param" and r.get("old") == name and r["owner"].rsplit(".", 1)[-1] == method]
    if not found or len({(lib, r.get("first_without"), r.get("new")) for lib, r in found}) != 1:
        return None
    lib, r = found[0]
    versions = h.versions(lib)
    installed, source = _installed(lib, facts, env)
    owners = sorted({x["owner"] for _l, x in found})
    d.doc.update(library=lib, subject=f"{method}({name}=...)", installed=installed, installed_from=source,
                 covered=f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases)")
    d.fact(f"the error names no class: `{name}` is a deprecated keyword of `{method}` on "
           + (f"{len(owners)} {lib} callables ({', '.join(owners[:3])}...)" if len(owners) > 3 else ", ".join(owners)))
    _tell_renames(d, lib, [r])
    if r.get("first_without"):
        d.doc["removed_in"] = r["first_without"]
        d.fact(f"gone in {lib} {r['first_without']} (last release with it: {r.get('until') or 'unknown'})")
    if d.doc["renamed_to"]:
        d.fix(f"port: {method}(..., {d.doc['renamed_to']}=...) instead of {name}=...")
    if d.doc["removed_in"]:
        d.fix(f"or keep the code and install the releases it was written for: pip install "
              f"'{lib}<{_floor(d.doc['removed_in'], versions)}'")
    return d


def _inherited_renames(d: Drift, h, lib: str, path: str, name: str) -> list[dict]:
    """The renames recorded for `name` on the class `path` is named after (Seq2SeqTrainingArguments inherits
    TrainingArguments' evaluation_strategy -> eval_strategy): a deprecation message lives on the base."""
    cls = path.split(".")[-1]
    for _lib, base in _suffix_classes(h, cls):
        found = _renames(h, _lib, base, name) if _lib == lib else []
        if found:
            d.fact(f"the rename is recorded on `{base}`, which `{cls}` is named after (and inherits from)")
            return found
    return []


def _tell_verified_new(d: Drift, entries: list, installed: str | None) -> None:
    """A verified entry whose *new* form is the one the code used (Trainer(processing_class=) on a transformers
    older than 4.46): the exact release that added it, and the old form that older releases take."""
    for e in entries[:1]:
        d.fact(f"verified (drift/{e.name}): {e.summary}")
        before = d.doc.get("added_in")
        if before != e.version:
            if before:  # the history lacks the exact release (it skipped X.Y.0): say so where it spoke of `before`
                d.fact(f"exact release (verified): {e.version}, the first {e.library} release with it "
                       f"(the history's first with it is {before})")
                d.doc["fixes"] = [f.replace(f"older than {before}:", f"older than {e.version}:") for f in d.doc["fixes"]]
            d.doc["added_in"] = e.version
        if e.old:
            d.fix(f"or keep {e.library}" + (f" {installed}" if installed else f" older than {e.version}")
                  + f" and pass `{e.old}=` instead (the form releases before {e.version} take)")


def _close(name: str, names: list[str]) -> list[str]:
    import difflib

    return difflib.get_close_matches(name, names, n=3, cutoff=0.6)


def _private(name: str) -> bool:
    """A private name (`_get_submodules`, `_BaseLazyModule`), not a dunder: the history reads public names only."""
    return name.startswith("_") and not name.startswith("__")


def _none_unscanned(scanned: list[str], versions: list[str], a: int, b: int) -> bool:
    """No covered release lies between scanned releases ``a`` and ``b`` unscanned."""
    low, high = _key(scanned[min(a, b)]), _key(scanned[max(a, b)])
    return not any(low < _key(v) < high for v in versions)


def _body_dropped(h, lib: str, path: str, name: str, index: int, scanned: list[str], states: str) -> bool:
    """kb/apidrift/private_members.py's body_dropped, with the history's modules of each release."""
    from kb.apidrift.private_members import body_dropped, definers

    return body_dropped(lib, path, name, index, scanned, states, definers(name), lambda v: h.modules(lib, v))


def _scan_sure(states: list[str], scanned: list[str], versions: list[str], a: int, b: int) -> bool:
    """The private-name scan is sure of a change between scanned releases ``a`` and ``b`` (adjacent in ``scanned``):
    the name is absent for certain from release ``a`` (state ``A``, not merely unrecognised), and no covered release
    between the two went unscanned."""
    low, high = _key(scanned[min(a, b)]), _key(scanned[max(a, b)])
    return states[a] == "A" and not any(low < _key(v) < high for v in versions)


def _private_name(d: Drift, h, lib: str, module: str, name: str, facts: dict, env: dict | None) -> Drift:
    """An import of a private name. The history records the names a module makes public (extract.py drops the ones
    with a leading underscore); the private-name layer (kb/apidrift/private.py) scanned every cached wheel for the
    names each module binds. A change is dated only where the scan is sure of both sides: the release before has no
    trace of the name in the module (absent, not merely unrecognised), and no covered release between the two went
    unscanned. Without a record, it says it cannot date the name rather than "no release has it"."""
    from kb.apidrift.private import private_states

    versions = h.versions(lib)
    d.doc.update(library=lib, subject=f"from {module} import {name}",
                 covered=f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases)")
    installed, source = _installed(lib, facts, env)
    d.doc["installed"], d.doc["installed_from"] = installed, source
    found = private_states(lib, module, name)
    if found is None:
        d.fact(f"`{name}` is a private name (a leading underscore): kb's API history records the public names of "
               f"{lib}'s modules only, and no scanned {lib} release binds it in `{module}`, so it cannot date it")
        having = h.module_versions(lib, module)
        if having:
            d.fact(f"the module `{module}` itself exists in {lib} {_span(versions, having)}")
        d.fact(f"a private name is renamed or dropped without a deprecation: the code was written against one {lib} "
               "release's internals")
        d.fix(f"install the {lib} release the code was written for (its requirements file or README pins it), "
              f"or port the code to {lib}'s public API")
        return d
    scanned, states = found
    present = [v for v, st in zip(scanned, states) if st == "P"]
    d.doc["accepted"] = _span(scanned, present)
    d.doc["covered"] = f"{lib} {scanned[0]}–{scanned[-1]} ({len(scanned)} releases whose wheels were scanned)"
    d.fact(f"`{module}` binds the private name `{name}` in {lib} {d.doc['accepted']} (a scan of the source of the "
           f"{len(scanned)} cached {lib} wheels, {scanned[0]}–{scanned[-1]}; a private name changes without a deprecation)")
    first, last = scanned.index(present[0]), scanned.index(present[-1])

    if first > 0 and _scan_sure(states, scanned, versions, first - 1, first):
        d.doc["added_in"] = present[0]
        d.fact(f"added in {lib} {present[0]} (absent from {scanned[first - 1]})")
    if last < len(scanned) - 1 and _scan_sure(states, scanned, versions, last + 1, last):
        d.doc["removed_in"] = scanned[last + 1]
        d.fact(f"gone in {lib} {scanned[last + 1]} (last release with it: {present[-1]})")
        came = _private_successor(lib, module, name, scanned, last)
        public = None if came else _successor(h, lib, module, name, present)  # `_model_unwrap` -> `unwrap_model`
        if public and public[0] == scanned[last + 1]:
            came = public[1]
        if came:
            d.doc["renamed_to"] = f"{module}.{came}"
            d.fact(f"`{module}` binds `{came}` from {lib} {scanned[last + 1]} on, the release that dropped `{name}`: "
                   "it appears renamed (no message states it)")
            d.fix(f"port: from {module} import {came} (check that it does the same), or keep the code and pin "
                  f"'{lib}<{scanned[last + 1]}'")
        else:
            d.fact(f"no replacement recorded: no {lib} release's source names one for `{name}`")
    rel = h.release(lib, installed) if installed else None
    if rel in scanned:
        state = states[scanned.index(rel)]
        if state == "P":
            d.fact(f"the installed {lib} {installed} has it: the process probably imports another {lib} (another "
                   "environment, a notebook not restarted)")
        elif d.doc["added_in"] and _key(installed) < _key(d.doc["added_in"]):
            d.fix(f"upgrade: pip install -U '{lib}>={_floor(d.doc['added_in'], versions)}' (the code is newer than "
                  f"{lib} {installed})")
        elif d.doc["removed_in"] and not _older(installed, d.doc["removed_in"]):
            d.fact(f"the installed {lib} {installed} is newer than the last release with it ({present[-1]})")
    elif d.doc["added_in"] and not d.doc["removed_in"]:
        d.fix(f"if your {lib} is older than {d.doc['added_in']}: upgrade, pip install -U "
              f"'{lib}>={_floor(d.doc['added_in'], versions)}'")
    if d.doc["removed_in"]:
        low = f">={_floor(d.doc['added_in'], versions)}," if d.doc["added_in"] else ""
        d.fix(f"or keep the code and install the releases it was written for: pip install "
              f"'{lib}{low}<{_floor(d.doc['removed_in'], versions)}'")
    return d


def _private_successor(lib: str, module: str, name: str, scanned: list[str], last: int) -> str | None:
    """The one private name `module` binds from the release after `last` on but not in `last`, sharing a word with
    `name` (`_BaseLazyModule` -> `_LazyModule`); None when none or several do."""
    from kb.apidrift.private import module_names

    words = _name_words(name)
    came = [other for other, states in module_names(lib, module).items()
            if other != name and states[last + 1] == "P" and states[last] == "A" and words & _name_words(other)]
    return came[0] if len(came) == 1 else None


def _successor(h, lib: str, module: str, name: str, accepted: list[str]) -> tuple[str, str] | None:
    """(release, name) for a public name that went from ``module`` in ``release`` while the module gained there one
    name holding all of its words, two at least (transformers 2.2.0: `WarmupLinearSchedule` went and
    `get_linear_schedule_with_warmup` came; 2.11.0: `BERT_PRETRAINED_MODEL_ARCHIVE_MAP`, `..._LIST`); None otherwise."""
    versions = h.versions(lib)
    words = _name_words(name)
    if len(words) < 2 or not accepted or accepted[-1] == versions[-1] or accepted[-1] not in versions:
        return None
    gone = h.release_after(lib, accepted[-1])
    came = (h.exports(lib, module, gone) or set()) - (h.exports(lib, module, accepted[-1]) or set())
    fitting = [other for other in came if not other.startswith("_") and words <= _name_words(other)]
    return (gone, fitting[0]) if len(fitting) == 1 else None


def _kin_deprecation(h, lib: str, name: str, gone: str | None) -> dict | None:
    """The one deprecation of a class family whose name ``name`` ends with (transformers 4.57's "Importing
    `Constraint` classes is deprecated ... moved to the Hub" for `DisjunctiveConstraint`), of a name the same
    release dropped; None when none, or several with other messages."""
    if not gone or not name[:1].isupper():
        return None
    words = _camel_words(name)
    found = {}
    for r in h.renames(lib):
        old = r.get("old") or ""
        tail = _camel_words(old)
        if r.get("kind") == "name" and r.get("first_without") == gone and old != name and old[:1].isupper() \
                and tail and len(tail) < len(words) and words[-len(tail):] == tail and name.endswith(old):
            found.setdefault(r["message"], r)
    return next(iter(found.values())) if len(found) == 1 else None


def _variant_base(h, lib: str, module: str, name: str, accepted: list[str]) -> tuple[str, str, list[str]] | None:
    from kb.apidrift.successors import variant_base

    return variant_base(h, lib, module, name, accepted)


def _homes(h, lib: str, name: str, version: str, module: str | None) -> tuple[list[str], dict[str, str]]:
    """([modules of ``lib`` ``version`` that export ``name``, public ones, other than ``module``, those that define it
    or enclose a module that does before those that only import it], {module: origin} of those that only import it
    from outside ``lib``, which are left out of the list): an imported alias is not a definition (kb/apidrift/aliases.py; torch 2.x's
    `torch.nn.modules.container` binds `container_abcs`, Python's `collections.abc`, by an import)."""
    from kb.apidrift.aliases import external_origin, imports_name

    holders = [m for m in h.exporting_modules(lib, name, version) if m != module and not m.split(".")[-1].startswith("_")]
    aliased = {m: origin for m in holders if (origin := external_origin(lib, m, name, version))}
    homes = [m for m in holders if m not in aliased]
    defining = [m for m in homes if not imports_name(lib, m, name, version)]

    def reexport(m: str) -> bool:
        """An import of the name into a module that is not a package enclosing a module that defines it (`trl`
        re-exporting `trl.scripts.utils.ScriptArguments` is the public spelling; `torch.nn.modules.container` binding
        another module's name is not)."""
        return m not in defining and not any(d.startswith(m + ".") for d in defining)

    return sorted(homes, key=reexport), aliased  # stable: the history's order kept otherwise


def _outside_home(aliased: dict[str, str]) -> tuple[str, str] | None:
    """(source module, name) of the one origin outside the library that every module binding a name by an import
    gives it (`collections.abc` -> ("collections", "abc"); a top-level module `operator` -> ("", "operator")); None
    when none or several origins."""
    origins = set(aliased.values())
    if len(origins) != 1:
        return None
    origin = origins.pop()
    return (origin.rsplit(".", 1)[0], origin.rsplit(".", 1)[1]) if "." in origin else ("", origin)


def _reexported_from(h, lib: str, name: str) -> tuple[str, list[str]] | None:
    """(library, releases) for a name another covered library exports at its top level, the name's home that
    ``lib`` re-exported (transformers.utils.hub's `HfFolder` is huggingface_hub's): the one such library, else None."""
    found = [(other, h.export_versions(other, other, name)) for other in h.libraries() if other != lib]
    found = [(other, having) for other, having in found if having]
    return found[0] if len(found) == 1 else None


def _name_words(name: str) -> set[str]:
    """The words of a snake_case or CamelCase name longer than three letters, lower-cased."""
    return {w.lower() for part in name.split("_") for w in (_camel_words(part) or [part]) if len(w) > 3}


def _import(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    name, module = fields["name"], fields["module"]
    if fields.get("bare") == "no-module":  # Python <= 3.7: "cannot import name 'X'", no module
        module = next((m for m in fields["modules"].split("|") if m and h.versions(m.split(".")[0])), "")
        if module:
            d.fact(f"the error names no module (Python 3.7 and older); `from {module} import {name}` in a nearby "
                   "line is taken as the import")
        else:
            module = _sole_exporter(h, name)
            if module:
                d.fact(f"the error names no module (Python 3.7 and older); of the covered libraries only `{module}` "
                       f"exports `{name}` at its top level in some release: read as `from {module} import {name}`")
            else:
                module = _sole_module(h, name)
                if not module:
                    return None
                d.fact(f"the error names no module (Python 3.7 and older); of every module of the covered libraries "
                       f"only `{module}` exports `{name}` in some release: read as `from {module} import {name}`")
    elif fields.get("modules"):  # Python 2's "'module' object": the first module read off a nearby line that is tracked
        module = next((m for m in fields["modules"].split("|") if h.versions(m.split(".")[0])), "")
        if not module:
            return None
        d.fact(f"the error names no module (Python 2's \"'module' object\"); `{module}.{name}` in a nearby line "
               "is taken as the read")
    lib = module.split(".")[0]
    if not h.versions(lib):
        return None
    versions = h.versions(lib)
    if "." in module and not h.module_versions(lib, module):
        # a title cut inside the module's name ("from 'transformers.cache" for transformers.cache_utils): the one
        # module no covered release has by that name, the one module exporting the name that starts with it
        homes = [m for m in h.exporting_modules(lib, name) if m.startswith(module) and m != module]
        if len(homes) == 1:
            d.fact(f"no covered {lib} release has a module `{module}`; the one module exporting `{name}` whose name "
                   f"starts so is `{homes[0]}`: read as the error's module, its name cut")
            module = homes[0]
    accepted = h.export_versions(lib, module, name)
    if not accepted and h.module_versions(lib, f"{module}.{name}"):
        return _submodule(d, h, lib, module, name, fields, facts, env)
    if not accepted and _private(name):
        return _private_name(d, h, lib, module, name, facts, env)
    d.doc["library"], d.doc["subject"] = lib, f"from {module} import {name}"
    installed, source = _installed(lib, facts, env)
    d.doc["installed"], d.doc["installed_from"] = installed, source
    stub = _came_with_stub(h, lib, name, accepted)
    if stub:  # the older releases' absence is not read: judge the name as in every covered release
        accepted = [v for v in versions if _key(v) < _key(accepted[0])] + accepted
    else:  # a gap that ends where a compiled module's stub first declares the name (torch 1.1-1.5's `argsort`)
        stub, accepted = _stub_gap(h, lib, name, accepted)
    compiled = h.compiled(lib, module, name) if hasattr(h, "compiled") and accepted and not stub else None
    scanned_first = accepted[0] if accepted else None
    if compiled and _key(compiled["added_in"]) < _key(accepted[0]):
        # the release notes date it earlier than the first wheel that declares it: the releases between had it
        accepted = [v for v in versions if _key(compiled["added_in"]) <= _key(v) < _key(accepted[0])] + accepted
    else:
        compiled = None
    from kb.apidrift.holes import gap_homes

    _verdict(d, lib, f"`{module}` exports `{name}` in", versions, accepted, installed, h,
             lambda start, end: (name, gap_homes(h, lib, module, name, versions, start, end)))
    if compiled:
        d.fact(f"`{name}` is defined in compiled code: the wheels read it only from {lib} {scanned_first} on; "
               f"{compiled['source']} dates it to {lib} {compiled['added_in']} ({compiled['last_without']} lacks it)")
    if stub:
        d.fact(f"`{name}` is read only from {lib} {stub[1]} on, the first covered release whose wheel declares "
               f"`{stub[0]}` (compiled code; older wheels do not declare its names): the history cannot tell whether "
               "older releases had it, so it is taken as present in them")
    if accepted and accepted[0] == versions[0] and hasattr(h, "before"):
        _tell_before(d, h, lib, module, name, installed)
    if d.doc["form"] == "module-attribute":
        _import_explicitly(d, h, lib, f"{module}.{name}", h.module_versions(lib, f"{module}.{name}"), installed,
                           accepted)
    _tell_verified(d, _verified(lib, "name", name))  # a verified replacement first: it was run on the latest side
    _tell_renames(d, lib, [r for r in _renames(h, lib, None, name) if r["kind"] in ("name", "module")
                           or r["owner"].split(".")[-1] == name], pointed=True)  # a class deprecated as a whole
    latest = versions[-1]
    elsewhere, aliased = _homes(h, lib, name, latest, module)
    gone = not accepted or accepted[-1] != latest
    outside = _outside_home(aliased) if gone and not elsewhere else None
    target = d.doc["renamed_to"] or d.doc["moved_to"]
    if target and (target.split(".")[-1] != name or _other_package(lib, h, target)):
        _port_import(d, h, lib, module, target)  # a recorded rename first: it is the release's own word
    if elsewhere and gone:
        d.doc["moved_to"] = d.doc["moved_to"] or f"{elsewhere[0]}.{name}"
        d.fact(f"in {lib} {latest} `{name}` is importable from: {', '.join(elsewhere[:3])}")
        d.fix(f"{'or ' if d.doc['fixes'] else ''}port: from {elsewhere[0]} import {name}")
    if outside:
        source, original = outside
        home = f"{source}.{original}" if source else original
        d.doc["moved_to"] = d.doc["moved_to"] or home
        holders = ", ".join(f"`{m}`" for m in sorted(aliased)[:3])
        d.fact(f"`{name}` is not {lib}'s own: in {lib} {latest} only {holders} bind it, by an import of `{home}` "
               f"(outside {lib}), the name's home")
        spelt = (f"from {source} import {original}" if source else f"import {original}") + \
            (f" as {name}" if original != name else "")
        d.fix(f"{'or ' if d.doc['fixes'] else ''}port: {spelt}")
        elsewhere = [home]  # a home found: no other reading of the history is needed
    successor = None if elsewhere or target else _successor(h, lib, module, name, accepted)
    if successor:
        gone, new = successor
        d.fact(f"in {lib} {gone}, the release without `{name}`, `{module}` gained `{new}`, the one new name that "
               f"holds all of its words (no release's source names it the replacement: check its use)")
        d.fix(f"{'or ' if d.doc['fixes'] else ''}port: from {module} import {new}")
    variant = None if elsewhere or target or successor else _variant_base(h, lib, module, name, accepted)
    if variant:
        gone, base, siblings = variant
        d.doc["renamed_to"] = f"{module}.{base}"
        d.fact(f"in {lib} {gone} `{module}` dropped `{name}` with {', '.join(f'`{s}`' for s in siblings[:3])} and kept "
               f"`{base}`: each was `{base}` with words added, variants folded into it (read from the names; no "
               "release's source states it)")
        d.fix(f"{'or ' if d.doc['fixes'] else ''}port: from {module} import {base} (the variant's behaviour is "
              "chosen another way there: check its use)")
    kin = None if elsewhere or target or successor or variant else _kin_deprecation(h, lib, name, d.doc["removed_in"])
    if kin:
        d.fact(f"{lib} {kin['since']}+ says, of the `{kin['old']}` classes (`{name}` is one by its name, and went in "
               f"the same release): \"{kin['message'][:300]}\"")
        d.fix(f"{'or ' if d.doc['fixes'] else ''}port: as that message says (the replacement it names)")
    owner = None if elsewhere or target or successor or variant or kin or not accepted or accepted[-1] == latest \
        else _reexported_from(h, lib, name)
    if owner:
        other, having = owner
        d.fact(f"`{name}` is {other}'s (its top level exports it in {_span(h.versions(other), having)}): "
               f"`{module}` only re-exported it")
        d.fix(f"{'or ' if d.doc['fixes'] else ''}port: from {other} import {name}")
        gone = h.release_after(other, having[-1])
        if gone is not None:
            d.fact(f"{other} dropped `{name}` in {gone} too: with it, pin {other}<{_floor(gone, [])}")
    if d.doc["removed_in"] and not elsewhere and not target and not successor and not variant and not kin and not owner:
        d.fact(f"no replacement recorded: no {lib} release's source names one for `{name}`")
    if not accepted and not elsewhere:
        others = [o for o in h.libraries() if o != lib and name in (h.exports(o, o, h.versions(o)[-1]) or set())]
        if others:
            d.fact(f"`{name}` is exported by {', '.join(others)}, not by {lib}")
            d.fix(f"port: from {others[0]} import {name}")
        else:
            d.fact(f"no covered {lib} release has `{name}` in any module: a name of a wrapper or fork, a typo, "
                   f"or from a release older than {versions[0]}")
    return d


STUB_JUMP = 20  # members a class gains at once in the release that first declares a compiled module: read, not added


def _members_with_stub(h, lib: str, path: str, having: list[str], tracked: list[str]) -> tuple[str, str, int] | None:
    """(module, release, members gained) when a member is first seen in the release whose wheel first declares a
    private compiled module of the library and the class gains STUB_JUMP members or more there at once (torch
    1.6.0: torch._C's stub declares Tensor's C methods, `view`, `to`, `half`): read from then, not added then."""
    if not having or not tracked or having[0] == tracked[0] or having[0] not in tracked:
        return None
    first = having[0]
    before = tracked[tracked.index(first) - 1]
    new = sorted(m for m in h.modules(lib, first) - h.modules(lib, before) if _in_stub(h, lib, m))
    if not new:
        return None
    gained = len((h.members(lib, path, first) or set()) - (h.members(lib, path, before) or set()))
    return (new[0], first, gained) if gained >= STUB_JUMP else None


def _in_stub(h, lib: str, module: str) -> bool:
    """Whether `module` is a compiled module the wheels know only from a .pyi stub (History.stub_packages: torch._C),
    not a .py module that is simply new (huggingface_hub 0.21.0's serialization._torch)."""
    return any(module == p or module.startswith(p + ".") for p in h.stub_packages(lib))


def _came_with_stub(h, lib: str, name: str, accepted: list[str]) -> tuple[str, str] | None:
    """(module, release) when `name` is exported from the release where the wheel first declares a private
    compiled module that exports it (torch 1.6.0's `torch._C._VariableFunctions` stub, where `where`, `dtype`
    and `zeros_like` are first read): the releases before it lack the name in the history only because their
    wheels do not declare it. None otherwise."""
    versions = h.versions(lib)
    if not accepted or accepted[0] == versions[0] or accepted[0] not in versions:
        return None
    first = accepted[0]
    before = versions[versions.index(first) - 1]
    new = h.modules(lib, first) - h.modules(lib, before)
    for module in sorted(new):
        if _in_stub(h, lib, module) and name in (h.exports(lib, module, first) or set()):
            return module, first
    return None


def _stub_gap(h, lib: str, name: str, accepted: list[str]) -> tuple[tuple[str, str] | None, list[str]]:
    """((module, release), accepted with the gap filled) when the releases lacking `name` between two that have it
    end where a stub module first declares it (torch 1.0.x's files declare `argsort`, 1.1-1.5's do not, 1.6.0's
    torch._C._VariableFunctions stub does): those releases lack it in the history only because their files do not
    declare it, not because it was removed. (None, accepted) otherwise."""
    versions = h.versions(lib)
    having = set(accepted)
    for i in range(1, len(versions)):
        back, prior = versions[i], versions[i - 1]
        if back not in having or prior in having or not any(v in having for v in versions[:i]):
            continue
        stub = _came_with_stub(h, lib, name, [v for v in accepted if _key(v) >= _key(back)])
        if stub:
            start = max(j for j in range(i) if versions[j] in having) + 1
            return stub, sorted(having | set(versions[start:i]), key=versions.index)
    return None, accepted


def _tell_before(d: Drift, h, lib: str, module: str, name: str, installed: str | None) -> None:
    """A name every covered release exports, which tables/api-history-before.toml dates to an older release (torch
    0.4.0's torch.no_grad): the release that added it, from that release's notes; the upgrade names it."""
    entry = h.before(lib, module, name)
    if entry is None or installed and _key(installed) >= _key(entry["added_in"]):
        return
    d.doc["added_in"] = entry["added_in"]
    d.fact(f"added in {lib} {entry['added_in']} ({entry['last_without']} lacks it), before the covered releases: "
           f"stated by {entry['source']}")
    d.doc["fixes"] = [f for f in d.doc["fixes"] if not f.startswith("upgrade: ")]
    d.fix(f"upgrade: pip install -U '{lib}>={entry['added_in']}' (the code is newer than {lib} "
          + (f"{installed})" if installed else f"{entry['last_without']} and older releases)"))


def _sole_exporter(h, name: str) -> str:
    """The one covered library whose top-level module exports `name` in some covered release ("" when none or
    several do: `Trainer` is transformers' and lightning's, but of the covered ones only transformers')."""
    found = [lib for lib in h.libraries() if h.export_versions(lib, lib, name)]
    return found[0] if len(found) == 1 else ""


def _sole_module(h, name: str) -> str:
    """The one module, of every covered library's modules, that exports `name` in some covered release ("" when none
    or several do, or `name` is a short or private word): `FlashAttentionKwargs` is transformers.
    modeling_flash_attention_utils' alone. A name only one module ever defined is that module's import."""
    if len(name) < 6 or name.startswith("_"):
        return ""
    found = [m for lib in h.libraries() for m in h.exporting_modules(lib, name)]
    return found[0] if len(found) == 1 else ""


def _submodule(d: Drift, h, lib: str, module: str, name: str, fields: dict, facts: dict, env: dict | None) -> Drift:
    """`name` is a module of `module` in some releases ("cannot import name '_datasets_server' from
    'datasets.utils'", "module 'torch' has no attribute '_six'"): the releases that have that module."""
    full = f"{module}.{name}"
    installed, source = _installed(lib, facts, env)
    d.doc.update(library=lib, subject=f"import {full}", installed=installed, installed_from=source)
    versions = h.versions(lib)
    accepted = h.module_versions(lib, full)
    d.fact(f"`{name}` is a module of `{module}`, not a name it defines")
    _verdict(d, lib, f"module `{full}` exists in", versions, accepted, installed, h)
    _tell_verified(d, _verified(lib, "module", full))
    _tell_renames(d, lib, _renames(h, lib, None, full))
    _import_explicitly(d, h, lib, full, accepted, installed)
    target = d.doc["renamed_to"] or d.doc["moved_to"]
    if accepted[-1] != versions[-1] and not target:
        _tell_module_successor(d, h, lib, full, accepted)
    return d


def _tell_module_successor(d: Drift, h, lib: str, module: str, accepted: list[str]) -> None:
    """Where a module that went took its names (kb/apidrift/successors.py), when no release's source says: the name
    an enclosing package exports in its stead, else the module that holds most of its names in the release that
    dropped it, else a module of the same name that release added; else that no replacement is recorded."""
    from kb.apidrift.successors import module_became_name, module_successor

    leaf = module.rsplit(".", 1)[-1]
    became = module_became_name(h, lib, module, accepted)
    if became:
        gone, package = became  # the same dotted path, now a name: not a moved_to that reads like the old module
        d.fact(f"in {lib} {gone}, the release without the module `{module}`, `{package}` exports a name `{leaf}`: "
               "the module's content is reached through that name (read from the exports; no release's source states it)")
        d.fix(f"port: from {package} import {leaf}")
        return
    went = module_successor(h, lib, module, accepted)
    if went:
        gone, successor, names = went
        d.doc["moved_to"] = successor
        shown = ", ".join(f"`{n}`" for n in names[:4]) + (", ..." if len(names) > 4 else "")
        total = len([n for n in (h.exports(lib, module, accepted[-1]) or set()) if not n.startswith("_")])
        d.fact(f"in {lib} {gone}, the release without the module `{module}`, `{successor}` exports {len(names)} of "
               f"its {total} names ({shown}): read from the exports, no release's source states the move")
        d.fix(f"port: import from {successor} (from {successor} import ...)")
        return
    gone = h.release_after(lib, accepted[-1]) if accepted else None
    new = h.modules(lib, gone) - h.modules(lib, accepted[-1]) if gone else set()
    moved = sorted(m for m in new if m.endswith("." + leaf) and m != module)
    if moved:
        d.doc["moved_to"] = moved[0]
        d.fact(f"in {lib} {gone}, the release without `{module}`, a module of that name appeared at: {', '.join(moved[:3])}")
        d.fix(f"port: import from {moved[0]}")
    elif d.doc["removed_in"]:
        d.fact(f"no replacement recorded: no {lib} release's source names one for the module `{module}`")


def _import_explicitly(d: Drift, h, lib: str, full: str, having: list[str], installed: str | None,
                       bound: list[str] | None = None) -> None:
    """"module 'torch.utils' has no attribute 'tensorboard'" where the installed release has that module: the
    attribute exists only once the submodule is imported (a package does not import all its submodules). With the
    installed release unknown (turn 43): where some release has the module and its package does not bind it
    (``bound``: the releases where the package exports the name; torch binds ``torch.utils.checkpoint`` on import
    only from 2.8.0), the explicit import is the first fix, before any upgrade: it works in every release with the module."""
    if d.doc["form"] != "module-attribute" or not having:
        return
    if installed:
        if h.release(lib, installed) not in having:
            return
        d.fact(f"`{full}` is a module of the installed {lib} {installed}: `{full}` is set as an attribute only once "
               "that module is imported")
        d.fix(f"import it explicitly: import {full}")
        return
    unbound = [v for v in having if v not in set(bound or ())]
    if not unbound or having[-1] != h.versions(lib)[-1]:  # (a module since removed: its import fails on a newer release)
        return
    package = full.rsplit(".", 1)[0]
    d.fact(f"`{full}` is a module in {lib} {_span(h.versions(lib), having)}; `{package}` does not import it itself in "
           f"{lib} {_span(h.versions(lib), unbound)}, where `{full}` is set as an attribute only once that module is imported")
    text = f"import it explicitly: import {full}"
    if text not in d.doc["fixes"]:
        d.doc["fixes"].insert(0, text)


def _port_import(d: Drift, h, lib: str, module: str, target: str) -> None:
    """The import fix for a recorded replacement: another package's ("evaluate.load": the `evaluate`
    package), a field of a config class ("trl.SFTConfig.completion_only_loss"), a name the latest release
    exports; else the replacement is told as recorded, unconfirmed."""
    other = _other_package(lib, h, target)
    where, new = target.rsplit(".", 1) if "." in target else (module, target)
    if other and other not in h.libraries():
        d.fix(f"port: from {where} import {new} (`{target}` is in the `{other}` package, not {lib}: "
              f"pip install {other} if it is missing)")
        return
    owner = where.split(".")[0]
    latest = h.versions(owner)[-1] if h.versions(owner) else None
    if latest is None:
        return
    if where.split(".")[-1][:1].isupper():  # a field of a class: SFTConfig.completion_only_loss
        _present, accepted = h.param_versions(owner, where, new)
        if accepted and accepted[-1] == latest:
            d.fix(f"port: {where.split('.')[-1]}(..., {new}=...) replaces it ({owner} {accepted[0]}+)")
            return
    elif new in (h.exports(owner, where, latest) or set()):
        d.fix(f"port: from {where} import {new}")
        return
    elif "." not in target:  # a bare name: where the latest release exports it (its home first)
        found, _aliased = _homes(h, lib, new, latest, None)
        if found:
            d.fix(f"port: from {found[0]} import {new}")
            return
    d.fact(f"the recorded replacement is `{target}` (not found in {owner} {latest} by the history: check its documentation)")


def _module(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    module = fields["module"]
    lib = module.split(".")[0]
    if not h.versions(lib):
        return None
    if module == lib:  # (kb/apidrift/section.py: kb/diagnose/drift.py answers this one without this module)
        return not_installed(d, lib)
    d.doc["library"], d.doc["subject"] = lib, f"import {module}"
    installed, source = _installed(lib, facts, env)
    d.doc["installed"], d.doc["installed_from"] = installed, source
    versions = h.versions(lib)
    accepted = h.module_versions(lib, module)
    _verdict(d, lib, f"module `{module}` exists in", versions, accepted, installed, h)
    _tell_verified(d, _verified(lib, "module", module))
    _tell_renames(d, lib, [r for r in _renames(h, lib, None, module)])
    leaf = module.rsplit(".", 1)[-1]
    target = d.doc["renamed_to"] or d.doc["moved_to"]
    if target and target in h.modules(lib, versions[-1]):  # a recorded move (a verified entry, a deprecation)
        d.doc["moved_to"] = target
        d.fix(f"port: import from {target}")
    elif accepted and accepted[-1] != versions[-1] and not target:
        _tell_module_successor(d, h, lib, module, accepted)
    elif not accepted:
        moved = sorted(m for m in h.modules(lib, versions[-1]) if m.endswith("." + leaf) and m != module)
        if moved:
            d.doc["moved_to"] = moved[0]
            d.fact(f"in {lib} {versions[-1]} a module of that name is at: {', '.join(moved[:3])}")
            d.fix(f"port: import from {moved[0]}")
    return d


def _object_attribute(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    cls, name = fields["cls"], fields["name"]
    if cls in _PYTHON_TYPES:
        return None  # (unrelated42) Python's None, a str, a dict...: a value the code did not expect, no API's change
    if cls == "super":  # super() of the code's own class: the name was looked up on its bases, whichever they are
        return _super_member(d, h, name, facts, env)
    member = _member(d, h, cls, name, facts, env)
    if member is not None:
        return _copied_model_class(h, cls, name, member, fields, facts, env) or member
    for lib in h.libraries():
        for path in h.callables(lib):
            if path.split(".")[-1] == cls and path.count(".") == 1:
                present, accepted = h.param_versions(lib, path, name)
                if not accepted and not _renames(h, lib, path, name):
                    continue
                d.doc["library"], d.doc["subject"] = lib, f"{path}.{name}"
                installed, source = _installed(lib, facts, env)
                d.doc["installed"], d.doc["installed_from"] = installed, source
                versions = h.versions(lib)
                _verdict(d, lib, f"`{path}` has the field `{name}` in", versions, accepted, installed, h)
                _tell_renames(d, lib, _renames(h, lib, path, name))
                if d.doc["renamed_to"]:
                    d.fix(f"port: read .{d.doc['renamed_to'].split('.')[-1]} instead of .{name}")
                return d
    if _private(name):
        private = _private_member(d, h, cls, name, facts, env) or _private_member_by_name(d, h, cls, name, facts, env) \
            or _private_member_dropped(d, h, cls, name, facts, env)
        if private is not None:
            return private
    return _base_model_member_dropped(d, h, cls, name, facts, env, fields) \
        or _member_not_covered(d, h, cls, name, facts, env) \
        or _untracked_class(d, h, fields, facts, env) or _pickled_module(d, h, cls, name, facts, env)


def _copied_model_class(h, cls: str, name: str, member: Drift, fields: dict, facts: dict,
                        env: dict | None) -> Drift | None:
    """A model class of the library's own name that has ``name`` in every covered release, where the report fixed
    the error by downgrading to a working release (a working pin read with a downgrade cue: kb/diagnose/versions.py)
    and states no installed one: "'LlamaForCausalLM' object has no attribute 'generate'" / "我通过降级transformer得到了
    解决" / "pip install transformers==4.28.0" (mlpc-ucsd/BLIVA#32). The library's class cannot have raised it in any
    release, and the failing install was newer than the working one: the object is a copy of the class (the code's own
    modeling file) on the library's model base, which dropped the member after the working release
    (_base_model_member_dropped). None otherwise: the member answer stands."""
    doc = member.doc
    lib = doc["library"]
    if lib not in _MODEL_BASES or doc["added_in"] or doc["removed_in"] or doc["installed"] \
            or facts.get(f"working_{lib}_was") != "newer" or not facts.get(f"working_{lib}"):
        return None
    tracked, having = h.member_versions(lib, doc["subject"].rsplit(".", 1)[0], name)
    if not tracked or having != tracked:
        return None
    working = facts[f"working_{lib}"]
    why = (f"the report fixed the error by downgrading to {lib} {working}, so the failing {lib} was newer, while "
           f"the {lib} class `{cls}` has `{name}` in every release that has it ({_span(tracked, having)})")
    return _base_model_member_dropped(Drift(doc["form"], None), h, cls, name, facts, env, fields, (working, why))


def _pickled_module(d: Drift, h, cls: str, name: str, facts: dict, env: dict | None) -> Drift | None:
    """A torch module object saved whole by an older release and run by a newer one: "'GELU' object has no attribute
    'approximate'" (torch.nn.GELU.forward reads self.approximate from 1.12.0; a GELU pickled by torch 1.11 has no such
    attribute). The class's forward began to read the attribute in a later release than the class's first
    (tables/api-history-module-state.json.gz, kb/apidrift/module_state.py). Not when the installed torch, stated, is
    older than that release (its forward does not read it: another cause). None when the table does not record it."""
    from kb.apidrift.module_state import first_read

    got = first_read(cls, name)
    if got is None or "torch" not in h.libraries():
        return None
    reads_from, set_from = got
    installed, source = _installed("torch", facts, env)
    if installed and _key(installed) < _key(reads_from):
        return None
    versions = h.versions("torch")
    before = versions[versions.index(set_from) - 1] if set_from in versions and versions.index(set_from) else None
    d.doc["library"], d.doc["subject"] = "torch", f"torch.nn.{cls}.{name}"
    d.doc["installed"], d.doc["installed_from"] = installed, source
    d.doc["added_in"] = reads_from
    d.doc["covered"] = f"torch {versions[0]}–{versions[-1]} ({len(versions)} releases whose torch.nn modules were scanned)"
    d.fact(f"`torch.nn.{cls}.forward` reads `self.{name}` from torch {reads_from}; `{cls}.__init__` sets it from torch "
           f"{set_from}: a `{cls}` object saved whole (torch.save(model), a pickled module) by torch "
           f"{before or 'an earlier release'} or earlier lacks it, and torch {reads_from} or later fails when it runs "
           "the loaded object")
    d.fact("the code is not wrong for either release: the object was saved by an older torch than the one loading it")
    d.fix("save and load the weights, not the pickled module: with the torch that saved it, torch.save(model.state_dict(), "
          "path); with the installed one, build the model from its code and model.load_state_dict(torch.load(path))")
    d.fix(f"or re-save the model with torch {reads_from} or later (load it there once and torch.save it again)")
    d.fix(f"or run it with the torch that saved it: pip install 'torch<{_floor(reads_from, versions)}'")
    return d


# Python's own types (kb/apidrift/python_types.py says why): no API's change
_PYTHON_TYPES = PYTHON_TYPES
_BUILTIN_TYPES = _PYTHON_TYPES | {"module", "type", "object", "Tensor", "Parameter"}


def _own_class(h, cls: str) -> bool:
    """Whether ``cls`` reads as a report's own class (a subclass in its code or a model's remote code): a class name
    no covered release has or exports (Kosmos2TextTransformer, exported by some release: the others' history is not
    its own), and not a builtin type."""
    if cls in _BUILTIN_TYPES or not cls[:1].isupper() or not cls.isidentifier() or h.find_classes(cls):
        return False
    return not any(h.exporting_modules(lib, cls) for lib in h.libraries())


def _tell_private_dropped(d: Drift, h, lib: str, name: str, release: str, installed: str | None) -> Drift:
    """What the two readings of a dropped private member say alike: no replacement, the installed release's side,
    and the pin below the release that dropped it."""
    d.fact(f"no replacement recorded for `{name}`: a private method is dropped without a deprecation; port the code "
           f"to the {lib} {release} classes' own code, or pin the release it was written for")
    if installed and _key(installed) < _key(release):
        d.fact(f"the installed {lib} {installed} has it: those classes defined it before {release}")
    d.fix(f"or keep the code and install the releases it was written for: pip install '{lib}<{_floor(release, h.versions(lib))}'")
    return d


def _private_member_by_name(d: Drift, h, cls: str, name: str, facts: dict, env: dict | None) -> Drift | None:
    """A private member missing on a class no covered release has (a report's own subclass of a model class:
    "'LlamaParallelModel' object has no attribute '_prepare_decoder_attention_mask'"): the release where most of the
    library's classes that defined the member dropped it (kb/apidrift/private_members.py, common_drop), said as a
    reading of the member's name. None for a covered class, a builtin type, or a name no release mostly dropped."""
    from kb.apidrift.private_members import common_drop, definers

    if not _own_class(h, cls):
        return None
    if any(path.rsplit(".", 1)[-1] == cls for _lib, path, _s, _st in definers(name)):
        return None  # a scanned class of that name: its own record speaks (_private_member), not the others'
    found = common_drop(name, h.modules)
    if found is None:
        return None
    lib, release, dropped, defined, last = found
    words = set(_camel_words(cls)) - {"Model", "For", "Decoder", "Encoder", "LM", "Pre", "Trained"}
    tail = (_camel_words(cls) or [""])[-1]
    short = sorted((p.rsplit(".", 1)[-1] for p in dropped),  # a class named like it first, then one ending alike
                   key=lambda c: (not words & set(_camel_words(c)), not c.endswith(tail), c))
    shown = list(dict.fromkeys(short))[:4]
    installed, source = _installed(lib, facts, env)
    d.doc.update(library=lib, subject=f"{cls}.{name}", installed=installed, installed_from=source,
                 removed_in=release)
    d.fact(f"`{cls}` is not a class of any covered release (the code's own class, or a model's remote code); "
           f"`{name}` is a private member that {len(defined)} {lib} classes defined, and {len(dropped)} of them "
           f"({', '.join(shown)}, ...) dropped it in {lib} {release} (last release with it: {last}): read as a "
           f"subclass of one of those")
    return _tell_private_dropped(d, h, lib, name, release, installed)


# The base class every model of a library subclasses, remote-code models included (trust_remote_code): a member it
# lost is lost by every model class that relied on inheriting it.
_MODEL_BASES = {"transformers": "transformers.modeling_utils.PreTrainedModel"}
_MODEL_CLASS_END = ("Model", "LM", "ForCausalLM", "ForConditionalGeneration", "ForSeq2SeqLM", "LMHeadModel")


# A Hub model named in a report ("Dream 7B", "internlm2-chat-7b", "Dream-org/Dream-v0-Instruct-7B"): a name, up to three
# more parts, and a parameter count. Its first part is matched against the model class's name (_remote_code_evidence)
# (a lookahead: each start is tried, "fine-tuning of Dream 7B" gives "fine" and "Dream")
_HUB_MODEL_NAME = r"(?<![\w.-])(?=([A-Za-z][A-Za-z0-9]{3,})((?:[-_ ][A-Za-z0-9.]+){0,3}?[-_ ]\d+(?:\.\d+)?[BbMm])\b)"
_GENERIC_STEMS = {"model", "base", "custom", "simple", "test", "main", "torch", "pytorch", "transformers", "lora"}
# the Hugging Face libraries that take a model object and ask it for a PreTrainedModel's members (generate,
# prepare_inputs_for_generation), and the fine-tuning frameworks that load a model of the Hub by its name and hand it
# to them (ms-swift's swift, LLaMA-Factory, axolotl, unsloth): a frame of their installed code says the object came
# there as such a model, not as a class of the report's own code
_MODEL_TAKERS = r"[/\\](?:site|dist)-packages[/\\](peft|trl|transformers|swift|llamafactory|axolotl|unsloth)[/\\]"


def _remote_code_evidence(h, lib: str, cls: str, fields: dict) -> str | None:
    """Why a class no covered release has reads as a model's remote code (or a model a Hugging Face library was
    handed) rather than the code's own class ('MyModel' object has no attribute 'generate', a wrapper that never had
    it): the first of, from the report itself, a frame or a line under transformers_modules/ (where
    trust_remote_code=True puts a downloaded model's code), trust_remote_code named, a frame in a modeling_*.py outside
    the library's own models, a frame of peft's, trl's or transformers' installed code (the object was handed to
    them as a model), or a model of the Hub named in the text ("Dream 7B") whose name begins the class's and is no
    model type the library ships. None without any: the history alone cannot tell the code's own class from remote
    code (turn 49). The installed release is no such evidence (review50): the caller only rules out one before the
    drop."""
    text = "\n".join((fields.get("said", ""), fields.get("nearby", ""), fields.get("files", "")))
    if "transformers_modules" in text:
        return "a frame or line of the report is under transformers_modules/, where trust_remote_code puts a model's code"
    if "trust_remote_code" in text:
        return "the report loads the model with trust_remote_code"
    # the frames' files, and those of a traceback the parse did not tie to this error (printed after it)
    files = "\n".join([*fields.get("files", "").split("\n"), *pattern(r'File "([^"\n]+)"').findall(text)])
    for file in files.split("\n"):
        base = file.replace("\\", "/").rsplit("/", 1)[-1]
        if base.startswith("modeling_") and base.endswith(".py") and "/transformers/models/" not in file.replace("\\", "/"):
            return f"a frame of the report is in {base}, a model's own code (remote or copied) outside {lib}'s models"
    taker = pattern(_MODEL_TAKERS).search(files)
    if taker is not None:
        return f"a frame of the report is in {taker.group(1)}'s installed code, which handles it as a Hugging Face model"
    # (review50) Not the log's stated release at or after the drop: that is only what the drop needs to explain the
    # error (the caller rules out a release before it), and nearly every log printed since 2025 states one; a user's
    # own nn.Module wrapper lacks the member under every release
    for m in pattern(_HUB_MODEL_NAME).finditer(text):
        stem = m.group(1).lower()
        if stem not in _GENERIC_STEMS and cls.lower().startswith(stem) and h.model_type_first(stem) is None:
            return f"the report names the model {m.group(1) + m.group(2)!r}, which {lib} does not ship and whose name " \
                   f"begins `{cls}`"
    return None


def _base_model_member_dropped(d: Drift, h, cls: str, name: str, facts: dict, env: dict | None,
                               fields: dict | None = None, copied: tuple[str, str] | None = None) -> Drift | None:
    """A public member missing on a model class no covered release has (a model's remote code):
    "'DreamModel' object has no attribute 'prepare_inputs_for_generation'". When the library's model base class
    (PreTrainedModel) had the member and dropped it in one release, still without it in the latest, every model that
    inherited it lost it there: transformers 4.52.0's PreTrainedModel stopped inheriting GenerationMixin, so a
    remote-code model must inherit GenerationMixin itself. The mixins that still carry the member name the
    replacement. None for a covered class, a name that does not read as a model's, a member the base still has, an
    installed release older than the drop (it would not explain the error), or a report with nothing that tells a
    model's remote code from the code's own class (_remote_code_evidence). ``copied``: (the report's working release,
    why) for a class of the library's own name read as a copy of it (_copied_model_class): the drop must come after
    the working release."""
    if _private(name) or not (copied or _own_class(h, cls)) or not cls.endswith(_MODEL_CLASS_END):
        return None
    for lib, base in _MODEL_BASES.items():
        versions = h.versions(lib)
        if not versions:
            continue
        _tracked, having = h.member_versions(lib, base, name)
        if not having or having[-1] == versions[-1]:
            continue
        release = versions[versions.index(having[-1]) + 1]
        installed, source = _installed(lib, facts, env)
        if installed and _key(installed) < _key(release) or copied and not _key(copied[0]) < _key(release):
            return None
        evidence = copied[1] if copied else _remote_code_evidence(h, lib, cls, fields or {})
        if evidence is None:
            return None
        holding = h.classes_with_member(lib, name)  # None without the name index (a cold cache): every class, as
        # _member_not_covered reads them (turn 48: [] there made the answer differ between a cold and a warm cache)
        holders = sorted({path for path in (_member_classes(h, lib) if holding is None else holding)
                          if path.rsplit(".", 1)[-1].endswith("Mixin")
                          and (h.member_versions(lib, path, name)[1] or [""])[-1] == versions[-1]},
                         key=lambda p: (p.count("."), p))
        d.doc.update(library=lib, subject=f"{cls}.{name}", installed=installed, installed_from=source,
                     removed_in=release, covered=f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases)")
        short = base.rsplit(".", 1)[-1]
        d.fact(f"{lib} {release} dropped `{name}` from {short}, the base of every {lib} model (last release with it: "
               f"{having[-1]})")
        if copied:
            d.fact(f"`{cls}` is read as a copy of the {lib} class of that name (the code's own modeling file or a "
                   f"model's remote code), a {short} subclass ({base}) that inherited `{name}` ({evidence})")
            d.fact(f"the report's working {lib} {copied[0]} is before the change in {release}")
        else:
            d.fact(f"`{cls}` is not a class of any covered release: read as a model's remote code, a {short} subclass "
                   f"({base}) that inherited `{name}` ({evidence})")
        if holders:
            mixin = holders[0].rsplit(".", 1)[-1]
            d.doc["moved_to"] = f"{holders[0]}.{name}"
            d.fact(f"`{name}` is still a member of {', '.join(holders[:3])} in {lib} {versions[-1]}: from {release} "
                   f"a model gets it by inheriting {mixin} itself")
            d.fix(f"port: make the model class inherit {mixin} as well (class {cls}(PreTrainedModel, {mixin}); "
                  f"`from {lib} import {mixin}`), or update the remote code to a revision that does")
        if installed:
            d.fact(f"the installed {lib} {installed} is {release} or newer: its {short} has no `{name}`")
        d.fix(f"or keep the code and install the releases it was written for: pip install "
              f"'{lib}<{_floor(release, versions)}'")
        return d
    return None


def _private_member_dropped(d: Drift, h, cls: str, name: str, facts: dict, env: dict | None) -> Drift | None:
    """A private member missing on a class no covered release has, that every covered class recording it (the
    history's member records: a mixin and the classes inheriting from it) dropped in one and the same release, none
    having it in the latest: "'ChameleonForInterCoT' object has no attribute '_extract_past_from_model_output'"
    (transformers.GenerationMixin's, gone in 4.49.0). Said as a reading of the member's name; None when the classes
    recording it disagree or one still has it."""
    if not _own_class(h, cls):
        return None
    found: list[tuple[str, str, str]] = []
    other_framework = ("TF", "Flax")  # transformers' TensorFlow and Flax twins kept some members until TF went
    for lib in h.libraries():
        holding = h.classes_with_member(lib, name) if hasattr(h, "classes_with_member") else None
        for path in _member_classes(h, lib) if holding is None else holding:  # (holding: the name index's)
            if path.rsplit(".", 1)[-1].startswith(other_framework) and not cls.startswith(other_framework):
                continue
            _tracked, having = h.member_versions(lib, path, name)
            if having:
                found.append((lib, path, having[-1]))
    if not found or len({(lib, last) for lib, _p, last in found}) != 1:
        return None
    lib, _path, last = found[0]
    versions = h.versions(lib)
    if last == versions[-1]:
        return None
    release = versions[versions.index(last) + 1]
    shown = sorted({p.rsplit(".", 1)[-1] for _l, p, _v in found}, key=lambda c: (not c.endswith("Mixin"), len(c), c))
    installed, source = _installed(lib, facts, env)
    d.doc.update(library=lib, subject=f"{cls}.{name}", installed=installed, installed_from=source, removed_in=release,
                 covered=f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases)")
    d.fact(f"`{cls}` is not a class of any covered release (the code's own class, or a model's remote code); the "
           f"{len(shown)} covered {lib} classes that have `{name}` ({', '.join(shown[:4])}{', ...' if len(shown) > 4 else ''}) "
           f"all dropped it in {lib} {release} (last release with it: {last}): read as a subclass of one of those")
    return _tell_private_dropped(d, h, lib, name, release, installed)


def _super_member(d: Drift, h, name: str, facts: dict, env: dict | None) -> Drift | None:
    """"'super' object has no attribute 'beam_search'": a subclass's method called ``super().name(...)`` and none of its
    bases has ``name``. The subclass is the code's own (RDRec's ``Solomon(T5ForConditionalGeneration)``), so its bases
    are read from the member records: the covered classes that dropped ``name`` while the history still tracked them,
    when they all dropped it in one release and no covered class has it in the latest
    (``transformers.GenerationMixin.beam_search`` and the model classes inheriting it: gone in 4.41.0). A class whose
    record ends because its tracking ends (transformers 2.x-3.x model classes, read to 3.5.1) says nothing of a drop and
    is not counted. The deprecation the source stated before the drop gives the replacement (``generate``). None when
    the droppers disagree, none dropped it, or a class still has it."""
    dropped: list[tuple[str, str, str]] = []
    for lib in h.libraries():
        latest = h.versions(lib)[-1]
        for path in _member_classes(h, lib):
            if path.rsplit(".", 1)[-1].startswith(("TF", "Flax")):
                continue  # transformers' TensorFlow and Flax twins: not a base of a torch model's subclass
            tracked, having = h.member_versions(lib, path, name)
            if not having:
                continue
            if having[-1] == latest:
                return None  # a covered class has it today: the base in use may be that one
            if tracked and tracked[-1] != having[-1]:
                dropped.append((lib, path, having[-1]))
    if not dropped or len({(lib, last) for lib, _p, last in dropped}) != 1:
        return None
    lib, _path, last = dropped[0]
    versions = h.versions(lib)
    release = versions[versions.index(last) + 1]
    paths = sorted({p for _l, p, _v in dropped}, key=lambda c: (not c.endswith("Mixin"), len(c), c))
    shown = [p.rsplit(".", 1)[-1] for p in paths]
    installed, source = _installed(lib, facts, env)
    d.doc.update(library=lib, subject=f"{paths[0]}.{name}", installed=installed, installed_from=source,
                 removed_in=release, covered=f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases)")
    d.fact(f"`super().{name}` is looked up on the bases of the code's own class; the {len(shown)} covered {lib} classes "
           f"that had `{name}` ({', '.join(shown[:4])}{', ...' if len(shown) > 4 else ''}) all dropped it in {lib} "
           f"{release} (last release with it: {last}), and no covered class has it in {lib} {versions[-1]}: read as a "
           f"subclass of one of those")
    found = [r for p in paths for r in _renames(h, lib, f"{p}.{name}", name)]
    _tell_renames(d, lib, found)
    if d.doc["renamed_to"]:
        d.fix(f"port: call {d.doc['renamed_to']}(...) instead of super().{name}(...), as {lib}'s own deprecation says")
    else:
        d.fact(f"no replacement recorded for `{name}`")
    if installed and _key(installed) < _key(release):
        d.fact(f"the installed {lib} {installed} has it: those classes defined it before {release}")
    d.fix(f"or keep the code and install the releases it was written for: pip install '{lib}<{_floor(release, versions)}'")
    return d


def _private_member(d: Drift, h, cls: str, name: str, facts: dict, env: dict | None) -> Drift | None:
    """A private method or class attribute missing on a class ("'GradientState' object has no attribute
    '_set_end_of_dataloader'"), from the private-name layer: the one scanned class of that name whose body defines it.
    Dated only where the scan is sure: gone means no module of the release mentions the name at all. None when no
    scanned class, or several, define it."""
    from kb.apidrift.private import private_member_states

    found = private_member_states(cls, name)
    if found is None:
        return None
    lib, path, scanned, states = found
    versions = h.versions(lib)
    present = [v for v, st in zip(scanned, states) if st == "P"]
    installed, source = _installed(lib, facts, env)
    d.doc.update(library=lib, subject=f"{path}.{name}", installed=installed, installed_from=source,
                 accepted=_span(scanned, present),
                 covered=f"{lib} {scanned[0]}–{scanned[-1]} ({len(scanned)} releases whose wheels were scanned)")
    d.fact(f"`{path}` defines the private member `{name}` in {lib} {d.doc['accepted']} (a scan of the source of the "
           f"{len(scanned)} cached {lib} wheels; a private member changes without a deprecation)")
    first, last = scanned.index(present[0]), scanned.index(present[-1])

    if first > 0 and _scan_sure(states, scanned, versions, first - 1, first):
        d.doc["added_in"] = present[0]
        d.fact(f"added in {lib} {present[0]} (no module of {scanned[first - 1]} mentions it)")
    if last < len(scanned) - 1 and _scan_sure(states, scanned, versions, last + 1, last):
        d.doc["removed_in"] = scanned[last + 1]
        d.fact(f"gone in {lib} {scanned[last + 1]} (no module of it mentions `{name}`; last release with it: "
               f"{present[-1]})")
        d.fact(f"no replacement recorded for `{cls}.{name}`")
    elif last < len(scanned) - 1 and _none_unscanned(scanned, versions, last, last + 1) \
            and _body_dropped(h, lib, path, name, last + 1, scanned, states):
        d.doc["removed_in"] = scanned[last + 1]
        d.fact(f"gone from `{path}` in {lib} {scanned[last + 1]}: its own body no longer defines `{name}`, its "
               f"module is still there, and no class it could inherit from defines it (other model classes kept "
               f"copies of it); last release with it: {present[-1]}")
        d.fact(f"no replacement recorded for `{cls}.{name}`: a private method is dropped without a deprecation")
    if not d.doc["added_in"] and not d.doc["removed_in"]:
        return None  # the scan cannot date it: the other readings answer
    rel = h.release(lib, installed) if installed else None
    if rel in scanned and states[scanned.index(rel)] == "P":
        d.fact(f"the installed {lib} {installed} has it: the process probably imports another {lib}")
    elif installed and d.doc["added_in"] and _key(installed) < _key(d.doc["added_in"]):
        d.fix(f"upgrade: pip install -U '{lib}>={_floor(d.doc['added_in'], versions)}' (the code is newer than "
              f"{lib} {installed})")
    elif installed and d.doc["removed_in"] and not _older(installed, d.doc["removed_in"]):
        d.fact(f"the installed {lib} {installed} is newer than the last release with it ({present[-1]})")
    if d.doc["removed_in"]:
        low = f">={_floor(d.doc['added_in'], versions)}," if d.doc["added_in"] else ""
        d.fix(f"or keep the code and install the releases it was written for: pip install "
              f"'{lib}{low}<{_floor(d.doc['removed_in'], versions)}'")
    return d


def _untracked_class(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """An instance attribute missing on a class no covered release exports (a model's remote code: "'ChatGLMTokenizer'
    object has no attribute 'sp_tokenizer'"): a verified change whose ``error_form`` matches the error and whose
    ``error_context`` a nearby line shows (drift/transformers-remote-tokenizer-init, transformers 4.34.0). Not a class's
    own attribute ("type object 'X' ..."), nor one a nearby line of the caller's code reads off another name
    (``tokenizer.apply_chat_template``: the caller's use of an API, not the class's own state). None otherwise."""
    cls, name = fields["cls"], fields["name"]
    if fields.get("said", "").lstrip().startswith("type object") or any(h.exporting_modules(lib, cls) for lib in h.libraries()):
        return None
    nearby = fields.get("nearby", "")
    if reads_off_a_name(nearby, name):
        return None
    return _verified_change(d, h, {"message": f"'{cls}' object has no attribute '{name}'", "nearby": nearby}, facts, env)


def reads_off_a_name(text: str, name: str) -> bool:
    r"""Whether ``text`` reads ``.name`` off a name other than ``self`` or ``cls``: a word starting with an ASCII letter
    or "_" that follows neither a word character nor a dot, then ``.name``, then no word character. What
    ``re.search(rf"(?<![\w.])(?!self\.|cls\.)[A-Za-z_]\w*\.{re.escape(name)}(?!\w)", text)`` finds (a word
    character: re's \w, ``str.isalnum()`` or "_"), without importing re for a pattern made of the input (turn 49: re's
    import was ~23 million instructions of drift-61-HoliTom-6's ~400; tests/test_startup_speed49.py compares them)."""
    dotted = "." + name
    at = text.find(dotted)
    while at >= 0:
        start = at
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        owner, end = text[start:at], at + len(dotted)
        if (owner and (owner[0] == "_" or owner[0].isascii() and owner[0].isalpha())
                and (start == 0 or text[start - 1] != ".") and owner not in ("self", "cls")
                and not (end < len(text) and (text[end].isalnum() or text[end] == "_"))):
            return True
        at = text.find(dotted, at + 1)
    return False


def _member(d: Drift, h, cls: str, name: str, facts: dict, env: dict | None) -> Drift | None:
    """A class member (method, property, attribute) that a release removed or added: from the history's member
    records (``find_classes`` / ``member_versions``, history v2) when it has them, and from a verified drift/
    entry of kind ``member`` (its replacement and exact release). None when neither knows the class's member."""
    entries = [e for e in _verified_entries() if e.kind == "member" and e.old == name
               and e.owner.split(".")[-1] == cls]
    found = None
    if hasattr(h, "find_classes") and hasattr(h, "member_versions"):
        for lib, path in h.find_classes(cls):
            tracked, having = h.member_versions(lib, path, name)
            if tracked and (having or entries):
                found = (lib, path, tracked, having)
                break
        if found is not None and found[3] and found[3][-1] == found[2][-1] != h.versions(found[0])[-1]:
            # the class is tracked up to a release before the latest (a model class read only in 2.x-3.x) and has
            # the member to its last: a base still tracked after it may show the member go (BertTokenizer ->
            # PreTrainedTokenizerBase.batch_encode_plus, gone in transformers 5.0.0)
            lib, path = found[0], found[1]
            more_tracked, more_having, nxt = _continued_versions(h, lib, path, name)
            if nxt and more_having and more_having[-1] != more_tracked[-1]:
                d.fact(f"`{path}` is tracked to {found[2][-1]}, then as `{nxt}` (the same name but for its letters' "
                       "case, with half of its members or more): read as one class")
                found = (lib, path, more_tracked, more_having)
            else:
                found = _later_base(d, h, *found, name) or found
        if found is not None and hasattr(h, "param_versions"):
            lib, path, tracked, _having = found
            present, accepted = h.param_versions(lib, path, name)
            if accepted and present and _key(present[0]) < _key(tracked[0]):
                # the class's fields are tracked from an earlier release than its members (transformers.LlamaConfig:
                # fields from 4.28.0, members from 4.52.0): the longer record answers (see _object_attribute)
                return None
        if found is None and not entries and not h.find_classes(cls):
            found = _named_base(d, h, cls, name) or _suffix_base(d, h, cls, name)
        elif found is None and not entries:
            found = _tracked_base(d, h, cls, name)
    if found is None and not entries:
        return None
    if found is not None:
        lib, path, tracked, having = found
        d.doc.update(library=lib, subject=f"{path}.{name}")
        installed, source = _installed(lib, facts, env)
        d.doc["installed"], d.doc["installed_from"] = installed, source
        stub = _members_with_stub(h, lib, path, having, tracked)
        twin = _twin_function(h, lib, name, having) if stub else None
        if twin:  # the top level's function of that name came in the same release, not with a stub: so did this
            stub = None
        if stub:
            having = [v for v in tracked if _key(v) < _key(having[0])] + having
        _verdict(d, lib, f"`{path}` has `{name}` in", tracked, having, installed, h)
        if twin:
            d.fact(f"`{lib}.{name}`, the function, is first exported in {lib} {twin} too (read from the top level, no new "
                   f"compiled stub there): the method came with it, though `{path.rsplit('.', 1)[-1]}` gains many members "
                   "in that release")
        if stub:
            d.fact(f"`{name}` is read only from {lib} {stub[1]} on, where the wheel first declares `{stub[0]}` (compiled "
                   f"code) and `{path.rsplit('.', 1)[-1]}` gains {stub[2]} members at once: the history cannot tell "
                   "whether older releases had it, so it is taken as present in them")
    else:
        e = entries[0]
        d.doc.update(library=e.library, subject=f"{e.owner}.{name}")
        installed, source = _installed(e.library, facts, env)
        d.doc["installed"], d.doc["installed_from"] = installed, source
    _tell_verified(d, entries)
    if found is not None and not d.doc["renamed_to"] and not d.doc["moved_to"]:
        # a deprecation the source states for the member itself (huggingface_hub's @_deprecate_method on
        # HfApi.list_files_info: "Use `list_repo_tree` and `get_paths_info` instead.", decorated.py)
        _tell_renames(d, found[0], _renames(h, found[0], f"{found[1]}.{name}", name))
    target = d.doc["renamed_to"] or d.doc["moved_to"]
    if target:
        d.fix(f"port: call .{target.rsplit('.', 1)[-1]}(...) instead of .{name} (in your code, or in the model's "
              "remote code: update the checkpoint's modeling file)")
    elif d.doc["removed_in"]:
        d.fact(f"no replacement recorded for `{cls}.{name}`")
        if found is not None and found[1].rsplit(".", 1)[-1] != cls:  # the report's own class (remote code), read as
            _tell_mixin(d, h, name, cls)  # the library's base: its bases are the user's to change, not a library class's
    if d.doc["removed_in"] and not any(f.startswith("or keep the code") for f in d.doc["fixes"]):
        lib = d.doc["library"]
        d.fix(f"or keep the code and install the releases it was written for: pip install '{lib}<{d.doc['removed_in']}'")
    return d


def _tell_mixin(d: Drift, h, name: str, cls: str) -> None:
    """A member the report's own class ``cls`` lost with its library base, that one mixin of the library still has in
    its latest release (PreTrainedModel's `generate`, gone in transformers 4.52.0 while GenerationMixin keeps it): the
    mixin the class can inherit it from."""
    lib = d.doc["library"]
    latest = h.versions(lib)[-1]
    mixins = sorted({p.rsplit(".", 1)[-1] for p in _member_classes(h, lib)
                     if p.endswith("Mixin") and name in (h.members(lib, p, latest) or set())})
    if len(mixins) == 1:
        d.fact(f"`{name}` is still a member of `{lib}.{mixins[0]}` in {lib} {latest}: a class that needs it inherits "
               "it from there")
        d.fix(f"port: add {mixins[0]} to the class's bases (class {cls}(..., {mixins[0]}) in your code, or in the "
              "model's remote code)")


def _twin_function(h, lib: str, name: str, having: list[str]) -> str | None:
    """The release where the library's top level first exports a function named like the member (torch 1.8.0:
    `torch.tile` and `Tensor.tile`), when that is the member's first release and the export is not itself first
    read from a compiled stub; None otherwise."""
    exported = h.export_versions(lib, lib, name) if having else []
    if not exported or exported[0] != having[0] or _came_with_stub(h, lib, name, exported):
        return None
    return exported[0]


def _camel_words(name: str) -> list[str]:
    return pattern(r"[A-Z][a-z0-9]+|[A-Z]+(?![a-z])").findall(name)  # (the regex cache's: no re import, turn 49)


def _named_base(d: Drift, h, cls: str, name: str) -> tuple[str, str, list[str], list[str]] | None:
    """For a class the history does not track (a user's or a remote model's `EncT5ForSequenceClassification`):
    the tracked classes named like it (the longest CamelCase tail of two words or more that tracked classes end
    with: `ForSequenceClassification`), and the one tracked class whose members all of those have in their
    latest tracked release (their common base: PreTrainedModel; half of them at least, as an Auto factory is named alike), when that base's `name` changed across releases.
    Said as a reading of the name. None when no such base, or its history of `name` has no change."""
    words = _camel_words(cls)
    for n in range(len(words) - 1, 0, -1):
        tail = "".join(words[-n:])
        if not cls.endswith(tail) or n == 1 and len(tail) < 8:  # one word only when it is a long one (`Tokenizer`)
            continue
        by_lib = {lib: [p for p in _member_classes(h, lib) if p.rsplit(".", 1)[-1].endswith(tail)
                        and p.rsplit(".", 1)[-1] != tail] for lib in h.libraries()}
        lib = max(by_lib, key=lambda x: len(by_lib[x]), default=None)  # peft's PeftModelFor... are few
        named = [(lib, p) for p in by_lib.get(lib, [])] if lib else []
        if len(named) < 2:
            continue
        latest = {}
        for _lib, path in named:
            tracked, _having = h.member_versions(lib, path, name)
            if tracked:
                latest[path] = (tracked[-1], h.members(lib, path, tracked[-1]) or set())
        if len(latest) < 2:
            continue
        bases = []
        for path in _member_classes(h, lib):
            if path in latest or path.rsplit(".", 1)[-1] == cls:
                continue
            tracked, having = h.member_versions(lib, path, name)
            if not having or set(having) == set(tracked):
                continue  # the base must have changed `name` across releases
            own = [h.members(lib, path, v) for v, _m in latest.values()]
            heirs = [p for o, (p, (_v, members)) in zip(own, latest.items()) if o and o <= members]
            if len(heirs) >= 2 and 2 * len(heirs) >= len(latest):  # half of them at least (an Auto class is named alike)
                bases.append((path, tracked, having, heirs))
        if not bases:
            continue
        newest = h.versions(lib)[-1]
        if any(_change(tracked, having)[1] for _p, tracked, having, _h in bases):
            # a base whose tracking ends before the latest release with `name` to its end (transformers 2.x-3.x's
            # AlbertPreTrainedModel, read to 3.5.1) says nothing of a drop: it does not contradict one seen dropping it
            # ('...ForConditionalGeneration' object has no attribute 'generate': PreTrainedModel, 4.52.0)
            bases = [b for b in bases if _change(b[1], b[2])[1] or b[1][-1] == newest]
        changes = {_change(tracked, having) for _p, tracked, having, _h in bases}
        if len(changes) != 1 and (len({last for _added, last in changes}) != 1 or None in {last for _a, last in changes}):
            # the bases may be tracked from different releases (LlamaPreTrainedModel from 4.x, PreTrainedModel from
            # 2.x: their first releases with `name` differ) and still agree on the one that dropped it
            return None
        path, tracked, having, heirs = min(bases, key=lambda b: (b[0].count("."), len(b[0])))
        d.fact(f"`{cls}` is not a class the history covers; {len(heirs)} of the {len(latest)} covered {lib} classes "
               f"named `…{tail}` ({', '.join(p.rsplit('.', 1)[-1] for p in heirs[:3])}, ...) have every member of "
               f"`{path}`: read as a subclass of it (its own code may differ)")
        return lib, path, tracked, having
    return None


def _suffix_base(d: Drift, h, cls: str, name: str) -> tuple[str, str, list[str], list[str]] | None:
    """For a report's own class the history does not track, named after the one tracked class whose name ends it at a
    CamelCase boundary (`DualDecoderTrainer`, `SubstepTrainer` -> transformers.Trainer): that class's history of
    `name`, when it has a change (the member came or went in some release; a member it always had, or never, says
    nothing about the report's class). The longest such name first; none when two libraries' classes share it. Said as
    a reading of the name: the report's class may not inherit from it."""
    words = _camel_words(cls)
    for n in range(len(words) - 1, 0, -1):
        tail = "".join(words[-n:])
        if not cls.endswith(tail) or len(tail) < 5:
            continue
        named = [(lib, p) for lib in h.libraries() for p in _member_classes(h, lib) if p.rsplit(".", 1)[-1] == tail]
        if len(named) != 1:
            continue
        lib, path = named[0]
        tracked, having = h.member_versions(lib, path, name)
        if not having or set(having) == set(tracked):
            return None
        d.fact(f"`{cls}` is not a class the history covers; its name ends with `{tail}`: read as a subclass of "
               f"`{path}` (its own code may differ)")
        return lib, path, tracked, having
    return None


def _tracked_base(d: Drift, h, cls: str, name: str) -> tuple[str, str, list[str], list[str]] | None:
    """For a tracked class that never has `name` in the releases where it is tracked (transformers' model classes
    are read only up to 3.5.1, before the top level became lazy): the tracked class it inherits from (every member
    of that class is one of its own in its last tracked release) whose history of `name` has a change, when the
    bases that have one agree on it (GPT2LMHeadModel.post_init -> PreTrainedModel.post_init, 4.13.0)."""
    for lib, path in h.find_classes(cls)[:1]:
        tracked, _having = h.member_versions(lib, path, "__init__")
        if not tracked:
            return None
        last = tracked[-1]
        mine = h.members(lib, path, last) or set()
        bases = []
        for other in _member_classes(h, lib):
            if other == path or other.rsplit(".", 1)[-1] == cls:
                continue
            theirs = h.members(lib, other, last)
            if not theirs or not theirs <= mine:
                continue
            their_tracked, having = h.member_versions(lib, other, name)
            if having and set(having) != set(their_tracked) and their_tracked[-1] != last:
                bases.append((other, their_tracked, having))
        if not bases or len({_change(b[1], b[2]) for b in bases}) != 1:
            return None
        latest = h.versions(lib)[-1]  # the base still tracked in the latest release first, then the shortest path
        base, their_tracked, having = min(bases, key=lambda b: (b[1][-1] != latest, b[0].count("."), len(b[0])))
        d.fact(f"`{path}` is tracked in {lib} {tracked[0]}–{last} only and never has `{name}` there; it has every "
               f"member of `{base}` in {last}: read through that base (a subclass inherits its members)")
        return lib, base, their_tracked, having
    return None


CONTINUED_SHARE = 0.5  # of a class's members in its last tracked release that its continuation has in its first


def _continuation(h, lib: str, path: str) -> str | None:
    """The class that continues `path` where the history stops tracking it before the latest release (transformers
    5.0.0 made PretrainedConfig an alias of PreTrainedConfig, and tracks the class under its new name): the one class
    first tracked in the release right after, with at least CONTINUED_SHARE (half) of `path`'s members there, whose name is
    `path`'s but for its letters' case. None otherwise."""
    versions = h.versions(lib)
    tracked, _having = h.member_versions(lib, path, "__init__")
    if not tracked:
        tracked = [v for v in versions if h.members(lib, path, v) is not None]
    if not tracked or tracked[-1] == versions[-1]:
        return None
    after = versions[versions.index(tracked[-1]) + 1]
    mine = h.members(lib, path, tracked[-1]) or set()
    short = path.rsplit(".", 1)[-1].lower()
    found = [other for other in _member_classes(h, lib) if other != path and other.rsplit(".", 1)[-1].lower() == short
             and h.members(lib, other, after) is not None and h.members(lib, other, tracked[-1]) is None
             and len(mine & h.members(lib, other, after)) >= CONTINUED_SHARE * len(mine)]
    return found[0] if len(found) == 1 else None


def _continued_versions(h, lib: str, path: str, name: str) -> tuple[list[str], list[str], str | None]:
    """member_versions of `path`, followed by those of its continuation (see _continuation) where there is one."""
    tracked, having = h.member_versions(lib, path, name)
    nxt = _continuation(h, lib, path) if tracked else None
    if nxt is None:
        return tracked, having, None
    more_tracked, more_having = h.member_versions(lib, nxt, name)
    if not more_tracked:
        more_tracked = [v for v in h.versions(lib) if _key(v) > _key(tracked[-1]) and h.members(lib, nxt, v) is not None]
    return tracked + more_tracked, having + more_having, nxt


def _later_base(d: Drift, h, lib: str, path: str, tracked: list[str], having: list[str],
                name: str) -> tuple[str, str, list[str], list[str]] | None:
    """For a class tracked up to a release before the latest that has `name` to its last tracked release: the tracked
    classes it inherits from (every member of one is its own in that release) that are tracked after it and lost
    `name` after it or right after its last tracked release, when they agree on the release (their last release
    with it); the one tracked in the latest
    release first, then the shortest path. None otherwise."""
    last = tracked[-1]
    mine = h.members(lib, path, last) or set()
    bases = []
    for other in _member_classes(h, lib):
        if other == path:
            continue
        theirs = h.members(lib, other, last)
        if not theirs or not theirs <= mine:
            continue
        their_tracked, their_having, nxt = _continued_versions(h, lib, other, name)
        # the base lost it after the class's last tracked release, or right after it: the 2.x-3.x classes' tracking
        # ends at 3.5.1 (their modules moved under transformers.models in 4.0.0), the release that dropped
        # PreTrainedTokenizerBase.max_len too ("'BertTokenizerFast' object has no attribute 'max_len'")
        if their_having and _key(their_having[-1]) >= _key(last) and _key(their_tracked[-1]) > _key(last) \
                and their_having[-1] != their_tracked[-1]:
            bases.append((other, their_tracked, their_having, nxt))
    if not bases or len({b[2][-1] for b in bases}) != 1:
        return None
    latest = h.versions(lib)[-1]
    base, their_tracked, their_having, nxt = min(bases, key=lambda b: (b[1][-1] != latest, b[0].count("."), len(b[0])))
    d.fact(f"`{path}` is tracked in {lib} {tracked[0]}–{last} only and has `{name}` to its last tracked release; it "
           f"has every member of `{base}` in {last}: read through that base, tracked after it")
    if nxt:
        d.fact(f"`{base}` is tracked to {h.member_versions(lib, base, name)[0][-1]}, then as `{nxt}` (the same name "
               "but for its letters' case, with half of its members or more): read as one class")
    return lib, base, their_tracked, their_having


def _change(tracked: list[str], having: list[str]) -> tuple[str | None, str | None]:
    """(first release with it, last release with it) within a class's tracked releases, None where it is the edge of
    the tracking (a class no longer tracked did not lose the member): bases agree when these agree."""
    return (having[0] if having[0] != tracked[0] else None, having[-1] if having[-1] != tracked[-1] else None)


def _member_classes(h, lib: str) -> list[str]:
    return h.member_classes(lib) if hasattr(h, "member_classes") else []


def _enum_value(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """"adalomo is not a valid OptimizerNames": the releases whose Enum accepts the value, from the history's
    enum records (``find_classes`` / ``value_versions``, history v2) or a verified drift/ entry of kind enum_value."""
    value, enum = fields["value"], fields["enum"]
    if not enum and fields.get("choices"):  # argparse's "invalid choice: 'v' (choose from 'a', 'b', ...)": no enum named
        enum = _enum_of_choices(d, h, fields["choices"].split("|"), fields.get("argument", ""))
        if not enum:
            return None
    entries = [e for e in _verified_entries() if e.kind == "enum_value" and e.new == value
               and e.owner.split(".")[-1] == enum]
    found = None
    if hasattr(h, "find_classes") and hasattr(h, "value_versions"):
        for lib, path in h.find_classes(enum):
            tracked, accepting = h.value_versions(lib, path, value)
            if tracked and (found is None or accepting and not found[3]):
                # the first tracked path, unless a later one records the value (accelerate.utils.PrecisionType is
                # recorded without 'fp8'; accelerate.utils.dataclasses.PrecisionType, where it is defined, with it)
                found = (lib, path, tracked, accepting)
            if found is not None and found[3]:
                break
    if found is None and not entries:
        return None
    lib = found[0] if found else entries[0].library
    installed, source = _installed(lib, facts, env)
    d.doc.update(library=lib, subject=f"{found[1] if found else entries[0].owner} value {value!r}",
                 installed=installed, installed_from=source)
    if found is not None:
        _lib, path, tracked, accepting = found
        _verdict(d, lib, f"`{path}` accepts {value!r} in", tracked, accepting, installed, h)
    for e in entries[:1]:
        d.fact(f"verified (drift/{e.name}): {e.summary}")
        key = "added_in" if e.change == "added_in" else "removed_in"
        d.doc[key] = e.version
    if d.doc["added_in"] and not d.doc["removed_in"]:
        d.fix(f"upgrade: pip install -U '{lib}>={d.doc['added_in']}' (the value is newer than {lib}"
              + (f" {installed})" if installed else ")"))
    elif d.doc["removed_in"]:
        successor = _default_successor(h, lib, value, h.enum_values(lib, found[1], h.versions(lib)[-1]) or set()) \
            if found is not None and hasattr(h, "default_history") else None
        if successor:
            path, param, new, since, last = successor
            d.fact(f"`{path.split('.')[-1]}.{param}` defaulted to {value!r} up to {lib} {last}, and to {new!r} from "
                   f"{since} on (the releases' source): {new!r} is the value that took its place")
            d.fix(f"port: {param}={new!r} instead of {value!r} (the default since {lib} {since})")
        else:
            d.fact(f"no replacement recorded: no {lib} release's source names one for {value!r}")
        if not any(f.startswith("or keep the code") for f in d.doc["fixes"]):  # _verdict's pin says it already
            d.fix(f"or keep the code and install the releases it was written for: pip install '{lib}<{d.doc['removed_in']}'")
    return d


def _default_value(text: str) -> str | None:
    """The value of a recorded default's text: `'adamw_hf'` or `default_optim -> 'adamw_torch'` (namedefaults.py)."""
    text = text.rsplit(" -> ", 1)[-1].strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return None


def _default_successor(h, lib: str, value: str, values: set[str]) -> tuple[str, str, str, str, str] | None:
    """A removed enum value that was a parameter's default: the value that became the default after it, when that
    value is still one of the enum's (TrainingArguments.optim: 'adamw_hf' up to 4.26.1 as a literal, up to 4.31.0
    as `default_optim`, 'adamw_torch' from 4.32.0; OptimizerNames lost 'adamw_hf' in 4.50.0). (path, parameter,
    new value, first release with it, last release with the old one), or None."""
    latest = h.versions(lib)[-1]
    for path in h.callables(lib):
        for param, text in (h.defaults(lib, path, latest) or {}).items():
            if _default_value(text) not in values:
                continue
            history = [(_default_value(t), vs) for t, vs in h.default_history(lib, path, param)]
            for (old, old_vs), (new, new_vs) in zip(history, history[1:], strict=False):
                if old == value and new in values and new != value:
                    return path, param, new, new_vs[0], old_vs[-1]
    return None


MIN_CHOICES = 4  # an argparse choice list shorter than this says too little to name an Enum
CHOICES_KNOWN = 0.9  # ... and this share of its choices must be values the Enum has in some release


def _enum_of_choices(d: Drift, h, choices: list[str], argument: str) -> str:
    """The last name of the one tracked Enum whose values (over the covered releases) hold nearly all of an argparse
    choice list ("argument --optim: invalid choice: ... (choose from 'adamw_hf', 'adamw_torch', ...)": a dataclass
    field typed with that Enum, as HfArgumentParser builds its choices); "" when none or several do."""
    if len(choices) < MIN_CHOICES:
        return ""
    fitting = []
    for lib in h.libraries():
        for path in h.enum_classes(lib) if hasattr(h, "enum_classes") else []:
            ever = h.enum_values_ever(lib, path)
            if sum(c in ever for c in choices) >= CHOICES_KNOWN * len(choices):
                fitting.append(path)
    names = {path.rsplit(".", 1)[-1] for path in fitting}
    if len(names) != 1:
        return ""
    path = fitting[0]
    known = sum(c in h.enum_values_ever(path.split(".")[0], path) for c in choices)
    d.fact(f"argparse's choices for `{argument or 'the argument'}` are the values of `{path}` (a field typed with that "
           f"Enum): {known} of its {len(choices)} choices are values of it in some release")
    return path.rsplit(".", 1)[-1]


def _default_change(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """A default that a release changed (torch.load's weights_only, True from torch 2.6): the history's default
    records (``default_history``, history v2) or a rename of kind "default" (its message), else a verified
    drift/ entry of kind default. None when none of them knows it."""
    callable_, name = fields["callable"], fields["name"]
    lib = callable_.split(".")[0]
    installed, source = _installed(lib, facts, env)
    d.doc.update(library=lib, subject=f"{callable_}({name}=...) default", installed=installed, installed_from=source)
    told = False
    if hasattr(h, "default_history"):
        history = h.default_history(lib, callable_, name) or []
        for (before, _vs), (after, vs) in zip(history, history[1:]):
            d.fact(f"`{callable_}`'s default for `{name}` changed from {before} to {after} in {lib} {vs[0]}")
            d.doc["removed_in"] = vs[0]
            d.doc["renamed_to"] = f"{name}={before.split('->')[-1].strip()}"
            told = True
    noted = [r for r in (h.noted_defaults(lib, name) if hasattr(h, "noted_defaults") else []) if r["callable"] == callable_]
    for r in noted[:1]:  # a default kept outside the signature (a config constant), dated by api-history-before.toml
        d.fact(f"`{callable_}`'s effective default for `{name}` changed from {r['before']} to {r['after']} in {lib} "
               f"{r['changed_in']} ({lib} {r.get('last_before', 'before it')} still used {r['before']}); it is set by "
               f"{r.get('setting', 'the library')}, not by the keyword's own default")
        d.doc["removed_in"] = r["changed_in"]
        d.doc["renamed_to"] = f"{name}={r['before']}"
        d.fix(f"pass {name}={r['before']} to {callable_}(...) where the old default is wanted (after reading the code "
              f"it runs, for {name}), or set {r.get('setting', 'the setting')}; or pin {lib}=={r.get('last_before', '')}"
              .rstrip("="))
        return d
    for r in [r for r in (h.renames(lib) if lib in h.libraries() else []) if r.get("kind") == "default"][:1]:
        d.fact(f"{lib} {r['since']}+ says: \"{r['message'][:240]}\"")
        told = True
    entries = [e for e in _verified_entries() if e.kind == "default" and e.owner == callable_ and e.old == name]
    for e in entries[:1]:
        d.fact(f"verified (drift/{e.name}): {e.summary}")
        d.doc["removed_in"] = e.version
        d.doc["renamed_to"] = d.doc["renamed_to"] or e.new
        told = True
    if not told:
        return None
    if d.doc["removed_in"]:
        d.fix(f"for a file you trust: {callable_}(..., {name}=False), or allowlist its classes with "
              "torch.serialization.add_safe_globals([...]); or upgrade the library that wrote the checkpoint")
    return d


def _value_check(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """A value check a release added ("Invalid task type: 'Vector_LM'. Must be one of ...", peft 0.14.0), dated by the
    one [[check]] row of tables/api-history-before.toml whose message begins the error's: code written for an earlier
    release, which stored the value unchecked, meets it on upgrading. None when no row, or more than one, matches."""
    rows = h.noted_checks(fields["message"]) if hasattr(h, "noted_checks") else []
    if len(rows) != 1:
        return None
    r = rows[0]
    lib = r["library"]
    installed, source = _installed(lib, facts, env)
    d.doc.update(library=lib, subject=f"{r['callable']}: {r['message'].strip()} check", installed=installed,
                 installed_from=source, added_in=r["added_in"])
    d.fact(f"{lib} {r['added_in']} added this check to {r['callable']} ({lib} {r.get('last_without', 'before it')} "
           f"let `{fields['value']}` through unchecked): code written for an earlier {lib} passed a value the check "
           "now refuses")
    d.fix(f"use one of the values the message lists instead of `{fields['value']}` (what the code meant by it decides "
          "which)")
    if r.get("last_without"):
        d.fix(f"or keep the code as it is with {lib}=={r['last_without']}, the last release without the check")
    return d


def _member_not_covered(d: Drift, h, cls: str, name: str, facts: dict, env: dict | None) -> Drift | None:
    """A tracked class whose recorded parameters and fields never include the attribute: the history records
    what its constructor takes, not the attributes its code sets or the class defines, so it cannot tell
    when that one went; it says so rather than guess. None for a class the history does not track."""
    for lib in h.libraries():
        path = next((p for p in h.callables(lib) if p.split(".")[-1] == cls and p.count(".") == 1), None)
        if path is None:
            continue
        versions = h.versions(lib)
        installed, source = _installed(lib, facts, env)
        d.doc.update(library=lib, subject=f"{path}.{name}", installed=installed, installed_from=source,
                     covered=f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases)")
        known = h.params(lib, path, versions[-1]) or []
        d.fact(f"the history records the constructor parameters and fields of `{path}` ({lib} {versions[0]}–"
               f"{versions[-1]}), not the attributes its code sets: `{name}` is not among them in any covered "
               "release, so it cannot tell when the attribute went")
        if known:
            d.fact(f"{cls}'s recorded fields in {lib} {versions[-1]}: {', '.join(known[:12])}")
        elsewhere = [(o, p) for o in h.libraries() for p in h.callables(o)
                     if p != path and p.count(".") == 1 and p.split(".")[-1][:1].isupper()
                     and name in (h.params(o, p, h.versions(o)[-1]) or [])]
        if elsewhere:
            d.fact(f"`{name}` is a field of {', '.join(p for _o, p in elsewhere[:3])} in the latest releases: code written "
                   f"for one of those may have been given a {cls}")
            since = [f"{p} since {o} {having[0]}" for o, p in elsewhere[:4]
                     for _tracked, having in [h.param_versions(o, p, name)] if having]
            if since:  # when each config gained the field: the release whose trainer began to read it off its config
                d.fact(f"first release with the field: {'; '.join(since)}")
            kinds = ("Config", "Arguments")
            alike = [p for _o, p in elsewhere if cls.endswith(kinds) and p.endswith(kinds)]
            if len(alike) == 1:
                target = alike[0]
                d.doc["moved_to"] = f"{target}.{name}"
                d.fix(f"port: build the arguments with {target.split('.')[-1]}(..., {name}=...) ({target}) instead of "
                      f"{cls}(...): `{name}` is one of its fields")
            elif alike:  # several configs have it: the one of the trainer the code uses
                d.fix(f"port: build the arguments with the config class of the trainer you use (one of "
                      f"{', '.join(a.split('.')[-1] for a in alike[:4])}: each has `{name}`) instead of {cls}(...)")
        if installed:
            d.fact(f"the installed {lib} is {installed}: compare the code that reads `.{name}` with that release")
        return d
    return None


def _hfargparser(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    import re

    keys = re.findall(r"'([A-Za-z_]\w*)'", fields["keys"])[:5]
    if not keys and fields.get("nearby"):
        # no list in the message: the command-line flags the report names near it ("`--evaluate_during_training`"),
        # each once; a plain word of prose is never read as a key
        keys = list(dict.fromkeys(re.findall(r"(?<![\w-])--([A-Za-z_]\w*)", fields["nearby"])))[:5]
    owners = [("transformers", "transformers.TrainingArguments")] + [
        ("trl", p) for p in h.callables("trl") if p.endswith("Config") and p.count(".") == 1]
    told = False
    for key in keys:
        for lib, path in owners:
            _p, accepted = h.param_versions(lib, path, key)
            renamed = _renames(h, lib, path, key)
            if not accepted and not renamed:
                continue
            installed, source = _installed(lib, facts, env)
            if not told:
                d.doc["library"], d.doc["subject"] = lib, f"{path}.{key}"
                d.doc["installed"], d.doc["installed_from"] = installed, source
                _verdict(d, lib, f"`{path}` has `{key}` in", h.versions(lib), accepted, installed, h)
                told = True
            else:
                d.fact(f"`{key}`: {path} has it in {lib} {_span(h.versions(lib), accepted)}")
            before = d.doc["renamed_to"]
            _tell_renames(d, lib, renamed)
            if d.doc["renamed_to"] and d.doc["renamed_to"] != before:
                d.fix(f"port: rename the key `{key}` to `{d.doc['renamed_to']}` in your config/arguments")
            break
    return d if told else None


def _model_type(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    model_type = fields["model_type"]
    versions = h.versions("transformers")
    if not versions:
        return None
    known = h.model_type_versions(model_type)
    installed, source = _installed("transformers", facts, env)
    d.doc.update(library="transformers", subject=f"model_type {model_type}", installed=installed, installed_from=source)
    d.doc["covered"] = f"transformers {versions[0]}–{versions[-1]} ({len(versions)} releases)"
    d.doc["accepted"] = _span(versions, known)
    verified = [e for e in _verified_entries() if e.kind == "model_type" and e.new == model_type and e.change == "added_in"]
    if verified and known and known[0] != versions[0] and known[0] != verified[0].version:
        d.fact(f"exact release (verified, drift/{verified[0].name}): {verified[0].version}; the history knows the "
               f"minor's latest patch {known[0]}")
        known = [verified[0].version, *known[1:]] if _key(verified[0].version) < _key(known[0]) else known
    if verified and (not known or known[0] == versions[0]):
        # the history starts after the release that added it: the verified entry knows the exact one
        e = verified[0]
        d.doc["added_in"] = e.version
        d.fact(f"verified (drift/{e.name}): {e.summary}")
        if installed and _key(installed) >= _key(e.version):
            d.fact(f"the installed transformers {installed} knows it: the process probably imports another transformers")
        else:
            d.fix(f"upgrade: pip install -U 'transformers>={e.version}', then restart the runtime")
        return d
    if not known:
        d.fact(f"no transformers release from {versions[0]} to {versions[-1]} registers the model type "
               f"`{model_type}`: custom code (trust_remote_code=True), a newer or pre-release transformers, or a typo")
        return d
    d.doc["added_in"] = known[0] if known[0] != versions[0] else None  # the verified release when an entry knows it
    if known[0] == versions[0]:
        d.fact(f"every covered transformers release knows `{model_type}` ({versions[0]} and later; it may be older)")
    else:
        d.fact(f"transformers knows `{model_type}` from {known[0]} on")
    if known[-1] != versions[-1]:
        d.doc["removed_in"] = versions[versions.index(known[-1]) + 1]
        d.fact(f"and no longer from {d.doc['removed_in']}")
    if installed and h.release("transformers", installed) in known:
        d.fact(f"the installed transformers {installed} knows it: the process probably imports another transformers "
               "(restart the runtime; check the interpreter)")
    else:
        d.fix(f"upgrade: pip install -U 'transformers>={_floor(known[0], versions)}', then restart the runtime")
    return d


def _rope(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    import re

    versions = h.versions("transformers")
    if not versions:
        return None
    two = [vs for text, vs in h.rope_messages() if "two fields" in text]
    strict = sorted({v for vs in two for v in vs}, key=_key)
    installed, source = _installed("transformers", facts, env)
    d.doc.update(library="transformers", subject="config.rope_scaling", installed=installed, installed_from=source)
    d.doc["covered"] = f"transformers {versions[0]}–{versions[-1]} ({len(versions)} releases)"
    m = re.search(r"['\"](?:rope_)?type['\"]\s*:\s*['\"](\w+)['\"]", fields.get("got", ""))
    rope_type = m.group(1) if m else None
    if strict:
        d.fact(f"transformers {_span(versions, strict)} require rope_scaling to have exactly two fields, "
               "`type` and `factor`")
        after = versions.index(strict[-1]) + 1
        if after < len(versions):
            d.doc["added_in"] = versions[after]
    if rope_type:
        known = h.rope_type_versions(rope_type)
        if known:
            d.doc["added_in"] = known[0]
            d.fact(f"rope type `{rope_type}` is known from transformers {known[0]} on")
    if d.doc["added_in"]:
        d.fix(f"upgrade: pip install -U 'transformers>={_floor(d.doc['added_in'], versions)}' (the config is newer than the library)")
    return d


def _verified_change(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """A change a drift/ entry verified and whose ``error_form`` (a regex of the error as users see it)
    matches the message: "Dataset scripts are no longer supported, but found x.py" (datasets 4.0); and, when the
    entry gives ``error_context``, one of whose regexes ``fields["nearby"]`` (the lines around the error) matches.
    (The entries' regexes through the regex cache, as the signatures': no re import, turn 49.)"""
    message = fields["message"]
    for e in _verified_entries():
        form = e.data.get("error_form")
        if not form or not any(pattern(f).search(message) for f in ([form] if isinstance(form, str) else form)):
            continue
        context = e.data.get("error_context")  # regexes one of the lines around the error must match, when given
        if context and not any(pattern(c).search(fields.get("nearby", "")) for c in context):
            continue
        lib = e.library
        versions = h.versions(lib)
        installed, source = _installed(lib, facts, env)
        d.doc.update(library=lib, subject=f"{e.owner}: {e.old}", installed=installed, installed_from=source)
        d.doc["renamed_to"] = e.new or None
        if versions:
            d.doc["covered"] = f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases)"
        d.fact(f"verified (drift/{e.name}): {e.summary}")
        if e.change == "removed_in":
            d.doc["removed_in"] = e.version
            last = e.data.get("last_old")
            d.fact(f"removed in {lib} {e.version}" + (f" (last release with it: {last})" if last else ""))
            if installed and _older(installed, e.version):
                d.fact(f"the installed {lib} {installed} is older than {e.version}: the process probably imports another {lib}")
        for fix in e.data.get("fixes", []):
            d.fix(fix)
        if e.new and not e.data.get("fixes"):
            d.fix(f"port: {e.new}")
        if e.change == "removed_in":
            d.fix(f"or keep the code and install the releases it was written for: pip install '{lib}<{_floor(e.version, [])}'")
        return d
    return None


def _not_callable(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """"'BertTokenizer' object is not callable": the class's instances are callable only in the releases where
    it, or the tracked class it inherits from (every member of it is one of the class's), defines ``__call__``:
    the history's record of that ``__call__`` callable (transformers.PreTrainedTokenizerBase.__call__, 3.0.0)."""
    cls = fields["cls"]
    for lib in h.libraries():
        calls = [p for p in h.callables(lib) if p.endswith(".__call__")]
        for call in calls:
            owner = call.rsplit(".", 1)[0]
            present, _accepted = h.param_versions(lib, call, "self")
            if not present or owner.rsplit(".", 1)[-1] != cls and not _inherits(h, lib, cls, owner):
                continue
            versions = h.versions(lib)
            installed, source = _installed(lib, facts, env)
            d.doc.update(library=lib, subject=f"{owner}.__call__ (calling a {cls})", installed=installed,
                         installed_from=source)
            if owner.rsplit(".", 1)[-1] != cls:
                d.fact(f"`{cls}` has every member `{owner}` has (read as its subclass); `{owner}` defines `__call__`")
            _verdict(d, lib, f"`{owner}.__call__` exists in", versions, present, installed, h)
            return d
    return None


def _inherits(h, lib: str, cls: str, owner: str) -> bool:
    """Whether the tracked class `cls` has, in a release where both are tracked, every member `owner` has."""
    for _lib, path in h.find_classes(cls, lib):
        tracked, _having = h.member_versions(lib, path, "__init__")
        for v in reversed(tracked):
            mine, theirs = h.members(lib, path, v), h.members(lib, owner, v)
            if mine and theirs:
                return theirs <= mine
    return False


def _positional(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    from kb.apidrift.positional import positional

    return positional(d, h, fields, facts, env)


def _feature_type(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """datasets' "Feature type 'List' not found": the data names a feature class that the installed datasets lacks
    (its schema reader looks the name up among the package's top-level classes), so the class's release range as
    a top-level export of datasets dates the change: `List` came in datasets 4.0.0, and data saved by 4.x names it."""
    name = fields["name"]
    d = _import(d, h, {"name": name, "module": "datasets"}, facts, env)
    if d is not None:
        d.doc["subject"] = f"datasets.{name} (a feature type)"
        d.doc["fixes"] = [f.replace("(the code is newer", "(the data is newer") for f in d.doc["fixes"]]
        d.doc["facts"].insert(0, f"the data's features (saved by a datasets release, or a Hub dataset's metadata) name "
                                 f"the feature type `{name}`, which the installed datasets does not define")
    return d


DEPRECATION_WORDS = 8  # leading words of a warning that must be those of a message the history kept


def _words(text: str) -> list[str]:
    import re

    return re.findall(r"[a-z0-9_]+", text.lower().replace("`", "").replace("'", ""))


def _deprecation_records(h, said: str) -> list[tuple[str, dict]]:
    """(lib, rename) the history kept for the deprecation a warning states: the messages whose first
    DEPRECATION_WORDS words are the warning's (its own text, printed as the library wrote it), the ones sharing the
    longest run of leading words with it when several libraries state such a message (accelerate's and transformers'
    "`logging_dir` is deprecated and will be removed in ..." part at "version 0.18.0 of Accelerate" / "v5.2"), else
    the renames whose old and new names are the ones the warning quotes ("`tokenizer` is deprecated ... Use
    `processing_class` instead": transformers' deprecate_kwarg prints words the source does not hold), of the class the
    warning names or one whose name ends it (`GReaTTrainer.__init__` -> Trainer). Either way narrowed to the library
    whose release the warning says it is removed in, and to the records that remove the old form in that very release
    when some do (huggingface_hub's `resume_download` message is stated by cached_download, gone in 0.26.0, and by
    hf_hub_download, whose keyword went in 1.0.0 as the message says)."""
    import re

    from kb.apidrift.deprecation_text import parse_message

    words = _words(said)
    head = words[:DEPRECATION_WORDS]
    if len(head) < 4:
        return []
    found = [(lib, r) for lib in h.libraries() for r in h.renames(lib)
             if _words(r.get("message") or "")[:DEPRECATION_WORDS] == head]
    if len({lib for lib, _r in found}) > 1:
        shared = {id(r): _shared_words(words, _words(r.get("message") or "")) for _lib, r in found}
        most = max(shared.values())
        found = [(lib, r) for lib, r in found if shared[id(r)] == most]
    named = re.findall(r"[`'\"]([A-Z]\w*)\.\w+(?:\(\))?[`'\"]", said)
    if not found:
        old, new = parse_message(said)
        if not old or not new:
            return []
        found = [(lib, r) for lib in h.libraries() for r in h.renames(lib) if r["old"] == old and r.get("new") == new]
    else:
        named = []  # the message's own text decided: its owner is the record's
    stated = re.search(r"\bremoved in (?:version |v)?(\d+\.\d+(?:\.\d+)?)", said)
    if stated:  # "will be removed in version 5.0.0": a release of the library that warns, not of its caller's
        own = [(lib, r) for lib, r in found if h.release(lib, stated.group(1)) in h.versions(lib)
               and _key(h.versions(lib)[0]) <= _key(stated.group(1))]
        found = own or found
        gone = [(lib, r) for lib, r in found if r.get("first_without")
                and _key(r["first_without"]) == _key(h.release(lib, stated.group(1)) or stated.group(1))]
        found = gone or found
    if named:
        exact = [(lib, r) for lib, r in found if named[0] == r["owner"].rsplit(".", 1)[-1]]
        own = [(lib, r) for lib, r in found if named[0].endswith(r["owner"].rsplit(".", 1)[-1])]
        found = exact or own or found
    return found


def _shared_words(a: list[str], b: list[str]) -> int:
    """How many leading words two word lists share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _deprecation(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """A deprecation warning of a covered library ("FutureWarning: This implementation of AdamW is deprecated ...",
    "`torch.backends.cuda.sdp_kernel()` is deprecated ..."): the release whose source first states it, the release
    that removed the old form (the history's `until`/`first_without`), and the replacement the message names (and the
    release that first exports it). None when the history kept no such deprecation, or its records disagree."""
    said = fields["said"]
    found = _deprecation_records(h, said)
    if not found:
        return _deprecated_export(d, h, said, facts, env)
    if len({(lib, r.get("first_without")) for lib, r in found}) != 1:
        return None
    # records that agree on the library and the release that removed the old form, stated by several owners from
    # different releases (datasets' `use_auth_token`: load_dataset from 2.14.0, DownloadConfig from 2.14.2): the
    # deprecation is as old as its first statement
    first = min(_key(r["since"]) for _lib, r in found)
    lib, r = min(((lib, r) for lib, r in found if _key(r["since"]) == first),
                 key=lambda lr: (lr[1]["owner"].count("."), len(lr[1]["owner"])))
    from kb.apidrift.deprecation_text import parse_message

    own = r["owner"].rsplit(".", 1)[-1]
    if r.get("new"):
        old = r["old"]
    elif own in _words(said) or own.lower() in _words(said):  # the class or function deprecated as a whole (AdamW)
        old = own
    else:
        old = parse_message(said)[0] or r["old"]
    new = replacement(r) or _instead(said, old) or _pointed_see(said, old) or parse_message(said, old)[1]
    d.doc.update(library=lib, subject=f"{r['owner']}" + ("" if r["owner"].endswith(old) else f" ({old})"))
    old = r["owner"] if r["owner"].endswith("." + old) else old
    installed, source = _installed(lib, facts, env)
    d.doc["installed"], d.doc["installed_from"] = installed, source
    versions = h.versions(lib)
    d.doc["covered"] = f"{lib} {versions[0]}–{versions[-1]}"
    since = f" (last release without it: {r['since_last_without']})" if r.get("since_last_without") else ""
    d.fact(f"a deprecation {lib} states from {r['since']} on{since}, in `{r['owner']}`: \"{(r.get('message') or '')[:200]}\"")
    if r.get("first_without"):
        d.doc["removed_in"] = r["first_without"]
        d.fact(f"the old form is gone in {lib} {r['first_without']} (last release that accepts it: {r['until']}): "
               "the warning becomes an error there")
    else:
        d.fact(f"the old form is still accepted in {lib} {versions[-1]}, the latest covered release")
    if new:
        _set_target(d, new, old)
        first = _first_export(h, lib, new)
        d.fact(f"the replacement the message names: `{new}`" + (f" (exported from {lib} {first} on)" if first else ""))
        d.fix(f"port: use `{new}` instead of `{old}`")
    else:
        d.fact(f"no replacement recorded for `{old}`")
    if r.get("first_without"):
        d.fix(f"or keep the code and install the releases it was written for: pip install "
              f"'{lib}<{_floor(r['first_without'], versions)}'")
    return d


# the name a message opens with (after "The class", as transformers' FeatureExtractor classes word it: "The class
# CLIPFeatureExtractor is deprecated and will be removed in version 5 of Transformers. Please use CLIPImageProcessor")
_DEPRECATED_NAME = (r"^\s*(?:[Tt]he\s+(?:class|function|method)\s+)?[`'\"]?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)[`'\"]?"
                    r"(?:\(\))?\s+(?:is|was|has been)\s+deprecated\b")


def _deprecated_export(d: Drift, h, said: str, facts: dict, env: dict | None) -> Drift | None:
    """A deprecation warning of a name the history keeps no deprecation record of, because its message quotes no
    name ("prepare_model_for_int8_training is deprecated and will be removed in a future version. Use
    prepare_model_for_kbit_training instead": peft's words, unquoted) or is built at run time (transformers' f-string
    "Using `{key}` is deprecated and will be removed in v5 of Transformers. Use `HF_HOME` instead." for its cache
    variables, the module constants of the same names), dated by the exports instead: the one covered
    library whose modules exported the name it opens with (the one whose top level did, when several: trl's modules
    import peft's function), and no longer do in its latest release. The release after
    the last that exported it is the one that removed it, when it agrees with a release the message names; the
    replacement is the name the message points to. None when no library or several exported it, the latest release
    still does, or the message names another release."""
    import re

    from kb.apidrift.deprecation_text import parse_message

    m = re.match(_DEPRECATED_NAME, said)
    dotted = m.group(1) if m else parse_message(said)[0]  # or the name it quotes: "Using `TRANSFORMERS_CACHE` is ..."
    if not dotted:
        return None
    name = dotted.rsplit(".", 1)[-1]
    owners = []
    for lib in h.libraries():
        modules = h.exporting_modules(lib, name)
        if modules and (dotted == name or dotted.split(".")[0] == lib):
            owners.append((lib, modules))
    top = [(lib, modules) for lib, modules in owners if lib in modules]  # trl's modules import peft's name
    owners = top if len(top) == 1 else owners
    if len(owners) != 1:
        return None
    lib, modules = owners[0]
    module = modules[0]
    having = h.export_versions(lib, module, name)
    versions = h.versions(lib)
    if not having or having[-1] == versions[-1]:
        return None
    gone = versions[versions.index(having[-1]) + 1]
    stated = re.search(r"\bremoved in (?:version |v)?(\d+(?:\.\d+){0,2})\b", said)
    if stated and not (gone == stated.group(1) or gone.startswith(stated.group(1) + ".")):
        return None  # the message names another release than the one the exports date ("in v5": 5.0.0 agrees)
    new = _instead(said, name) or parse_message(said, name)[1]
    d.doc.update(library=lib, subject=f"{module}.{name}")
    installed, source = _installed(lib, facts, env)
    d.doc["installed"], d.doc["installed_from"] = installed, source
    d.doc["covered"] = f"{lib} {versions[0]}–{versions[-1]}"
    d.doc["removed_in"] = gone
    d.fact(f"a deprecation warning of `{name}`, whose message quotes no name, so the history keeps no record of it; "
           f"its exports date the name: `{module}` exports `{name}` in {lib} {having[0]}–{having[-1]}, "
           f"not from {lib} {gone} on")
    d.fact(f"the old form is gone in {lib} {gone} (last release that has it: {having[-1]}): "
           "the warning becomes an error there")
    if new:
        _set_target(d, new, name)
        first = _first_export(h, lib, f"{module}.{new}") or _first_export(h, lib, f"{lib}.{new}")
        d.fact(f"the replacement the message names: `{new}`" + (f" (exported from {lib} {first} on)" if first else ""))
        d.fix(f"port: use `{new}` instead of `{name}`")
    else:
        d.fact(f"no replacement recorded for `{name}`")
    d.fix(f"or keep the code and install the releases it was written for: pip install '{lib}<{_floor(gone, versions)}'")
    return d


def _pointed_see(message: str, old: str | None) -> str | None:
    """The quoted name a message sends the reader to with "Please see `x`" (torch's sdp_kernel)."""
    import re

    m = re.search(r"\b(?:[Pp]lease\s+)?see,?\s+[`'\"]?([A-Za-z_][\w.]*\.[A-Za-z_]\w*)(?:\(\))?", message)
    return m.group(1) if m and m.group(1) != old else None


def _instead(message: str, old: str | None) -> str | None:
    """The dotted name just before "instead" ("Use the PyTorch implementation torch.optim.AdamW instead")."""
    import re

    m = re.search(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?:\(\))?[`'\"]?\s+instead\b", message)
    if m is None:  # "Please use CLIPImageProcessor instead": an undotted name right after "use", a class's (CamelCase)
        # or one with an underscore, never a plain word ("use it instead", "use the PyTorch implementation instead")
        m = re.search(r"\b[Uu]se\s+[`'\"]?((?=\w*[a-z])[A-Z]\w*[A-Z]\w*|[A-Za-z]\w*_\w*)[`'\"]?(?:\(\))?\s+instead\b",
                      message)
    return m.group(1) if m and m.group(1) != old else None


def _first_export(h, lib: str, dotted: str) -> str | None:
    """The first covered release whose module `a.b` exports `c` for a dotted `a.b.c` of `lib`; None otherwise."""
    module, _, name = dotted.rpartition(".")
    if not module.startswith(lib + ".") and module != lib:
        return None
    versions = h.export_versions(lib, module, name)
    return versions[0] if versions and versions[0] != h.versions(lib)[0] else None


def _removed_stub(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """torch's raising stub of a removed function: the history's exports keep `torch.solve` (the name stays bound so
    that the call names its replacement), the stub table dates the release that made it raise (kb/apidrift/
    module_state.py: solve from 1.12.0, lstsq from 1.13.0). None when the table knows neither the name nor, alone,
    the replacement the message names."""
    from kb.apidrift.module_state import removed_stub

    got = removed_stub(fields.get("name", "")) or (None if fields.get("name") else
                                                  removed_stub(replacement=fields.get("replacement", "")))
    if got is None or "torch" not in h.libraries():
        return None
    name, since, replacement = got
    versions = h.versions("torch")
    last = versions[versions.index(since) - 1] if since in versions and versions.index(since) else None
    installed, source = _installed("torch", facts, env)
    d.doc.update(library="torch", subject=f"torch.{name}", installed=installed, installed_from=source,
                 removed_in=since, renamed_to=replacement or None,
                 covered=f"torch {versions[0]}–{versions[-1]} ({len(versions)} releases whose stubs were scanned)")
    d.fact(f"`torch.{name}` raises from torch {since} on: removed after its deprecation, kept as a stub whose message "
           f"names the replacement" + (f" (last release where it works: {last})" if last else ""))
    if replacement:
        d.fix(f"port: call {replacement} (its arguments and results differ: see the message and its documentation)")
    d.fix(f"or keep the code and install the releases it was written for: pip install 'torch<{_floor(since, versions)}'")
    return d


def _tokenizer_class(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """"Tokenizer class Qwen2Tokenizer does not exist or is not currently imported": AutoTokenizer looked the class
    that tokenizer_config.json names up among transformers' exports, its fast twin (`...Fast`) first
    (models/auto/tokenization_auto.py), and found neither. Answered as the import of the one of the two transformers
    exported first (GPTNeoXTokenizerFast from 4.20.0, while GPTNeoXTokenizer came only in 5.0.0), from the export
    history; None when no covered release exports either (a remote-code tokenizer: ChatGLMTokenizer)."""
    name = fields["name"]
    if "transformers" not in h.libraries():
        return None
    found = [(versions[0], candidate) for candidate in dict.fromkeys((name, name if name.endswith("Fast") else f"{name}Fast"))
             for versions in [h.export_versions("transformers", "transformers", candidate)] if versions]
    if not found:
        return None
    installed, _source = _installed("transformers", facts, env)
    release = h.release("transformers", installed) if installed else None
    if release and any(release in h.export_versions("transformers", "transformers", c) for _f, c in found):
        return None  # the installed release has the class: an optional dependency is missing (the family's triage)
    order = h.versions("transformers")
    _first, candidate = min(found, key=lambda f: order.index(f[0]) if f[0] in order else len(order))
    if candidate != name:
        d.fact(f"AutoTokenizer takes `{name}` or its fast twin `{candidate}` (models/auto/tokenization_auto.py), and "
               f"transformers exported `{candidate}` first: read as that class")
    answered = _import(d, h, {"name": candidate, "module": "transformers"}, facts, env)
    either = {v for _f, c in found for v in h.export_versions("transformers", "transformers", c)}
    start = order.index(_first) if _first in order else len(order)
    if answered is not None and len(found) == 2 and start < len(order) and set(order[start:]) <= either:
        # one of the two in every release since the first (GPTNeoXTokenizerFast 4.20.0-4.57.6, GPTNeoXTokenizer from
        # 5.0.0): any release from that one on resolves the class
        answered.fact(f"one of `{name}` and its fast twin is exported by every transformers release from {_first} on")
        answered.fix(f"upgrade: pip install -U 'transformers>={_floor(_first, order)}'")
    return answered


def _pipeline_task(d: Drift, h, fields: dict, facts: dict, env: dict | None) -> Drift | None:
    """"Unknown task translation, available tasks are [...]": the releases whose pipeline() knows the task, from
    the keys of SUPPORTED_TASKS read from the wheels (kb/apidrift/pipeline_tasks.py); None when no scanned release
    knows it (a typo, another library's task)."""
    from kb.apidrift.pipeline_tasks import task_versions

    got = task_versions(fields["name"])
    if got is None or "transformers" not in h.libraries():
        return None
    scanned, accepted = got
    installed, source = _installed("transformers", facts, env)
    d.doc.update(library="transformers", subject=f"transformers.pipeline(task={fields['name']!r})",
                 installed=installed, installed_from=source,
                 covered=f"transformers {scanned[0]}–{scanned[-1]} ({len(scanned)} releases whose pipelines/__init__.py "
                         f"was read)")
    _verdict(d, "transformers", f"`pipeline()` takes the task `{fields['name']}` (a key of SUPPORTED_TASKS) in",
             scanned, accepted, installed, h)
    return d


_ANSWER = {
    "pipeline-task": _pipeline_task,
    "tokenizer-class": _tokenizer_class,
    "removed-stub": _removed_stub,
    "deprecation": _deprecation,
    "not-callable": _not_callable,
    "unexpected-kwarg": _kwarg, "import-name": _import, "module-attribute": _import, "no-module": _module,
    "object-attribute": _object_attribute, "hfargparser-unused": _hfargparser, "model-type": _model_type,
    "rope-scaling": _rope, "verified-change": _verified_change, "enum-value": _enum_value,
    "default-change": _default_change, "positional-count": _positional, "value-check": _value_check,
    "feature-type": _feature_type,
}


def _tell_yanked(d: Drift, h) -> None:  # noqa: ANN001 - kb.apidrift History, imported lazily
    """A change dated to a yanked release (transformers 4.46.0) says so, and names the first regular release:
    pip skips a yanked release unless it is pinned with ==, so most users meet the change there."""
    lib = d.doc["library"]
    if not lib:
        return
    yanked = set(h.yanked(lib))
    for key in ("added_in", "removed_in"):
        version = d.doc[key]
        if version not in yanked:
            continue
        regular = h.first_regular(lib, version)
        note = f"{version} is yanked on PyPI" + (f"; {regular} is the first regular release" if regular else "")
        facts = d.doc["facts"]
        at = next((i for i, fact in enumerate(facts) if f"{lib} {version}" in fact), None)
        if at is None:
            d.fact(f"{lib} {note}")
        else:  # beside the fact that dates the change, which the one-screen answer shows
            facts[at] = f"{facts[at]} ({note})"


# The answers of this process, by question (kb diagnose in a notebook, kb check, a test run: a question is asked again
# and again; in the dev set 40% of the questions asked are repeats, and an answer costs ~2.4 ms on average, up to 1 s).
# An answer is a function of its question (form, fields, facts, env_versions: each dict's items in order) and of the
# data it reads, each loaded once per process and then kept: the history (load_history), drift/'s verified entries
# (_VERIFIED) and the tables of private.py, aliases.py, module_state.py and pipeline_tasks.py (lru_cache). The memo
# keeps those objects and is emptied when one is not the object its answers were read from (a history loaded again,
# a table's reader replaced). Bounded: ANSWER_MEMO_SIZE answers (the least recently asked go first), of questions of
# at most ANSWER_MEMO_KEY_CHARS characters; each caller gets a copy of its own (the callers edit the section).
ANSWER_MEMO = True
ANSWER_MEMO_SIZE = 1024
ANSWER_MEMO_KEY_CHARS = 4096
_MEMO: dict[tuple, dict | None] = {}
_MEMO_SOURCES: list[object] = []  # the objects the memo's answers were read from (see _sources)
_TABLE_MODULES = ("kb.apidrift.private", "kb.apidrift.aliases", "kb.apidrift.module_state", "kb.apidrift.pipeline_tasks")


def _sources(h: object) -> list[object]:
    """What an answer reads beside its question: the history, drift/'s entries once read, each table reader once its
    module is imported (a module not imported yet has read nothing)."""
    import sys

    return [h, _VERIFIED[0] if _VERIFIED else None,
            *(getattr(sys.modules.get(name), "_table", None) for name in _TABLE_MODULES)]


def _tell_working(d: Drift, facts: dict[str, str]) -> None:
    """The report's working release of the answer's library (a version it names as its fix, or one that works in its
    words: ``working_<lib>``, kb/diagnose/versions.py), never taken as the installed one, as corroboration of a dated
    change: before a removal, or at or after an addition. A downgrade to it that fixed the error says the failing
    install was newer: an "upgrade" fix, from a range alone with no installed release stated, is dropped then."""
    lib = d.doc["library"]
    working = facts.get(f"working_{lib}") if lib else None
    if not working:
        return
    removed, added = d.doc["removed_in"], d.doc["added_in"]
    said = any("the report's working" in fact for fact in d.doc["facts"])
    if removed and _key(working) < _key(removed) and not said:
        d.fact(f"the report's working {lib} {working} is before the change in {removed}")
    elif added and not _key(working) < _key(added) and not said:
        d.fact(f"the report's working {lib} {working} is {added} or newer, the release that added it")
    if facts.get(f"working_{lib}_was") == "newer" and not d.doc["installed"]:
        upgrades = [fix for fix in d.doc["fixes"] if fix.startswith(("upgrade:", f"if your {lib} is older than"))]
        if upgrades:
            d.doc["fixes"] = [fix for fix in d.doc["fixes"] if fix not in upgrades]
            d.fact(f"the report fixed the error by downgrading to {lib} {working}: the failing {lib} was newer, so no "
                   "upgrade is told")


def _question(form: str, fields: dict[str, str], facts: dict[str, str],
              env_versions: dict[str, str] | None) -> tuple | None:
    """The memo's key for a question: None (not kept) for one that is too long or holds a value of another kind."""
    parts = (tuple(fields.items()), tuple(facts.items()), None if env_versions is None else tuple(env_versions.items()))
    size = len(form)
    for items in parts:
        for k, v in items or ():
            if not (isinstance(k, str) and isinstance(v, str)):
                return None
            size += len(k) + len(v)
    return None if size > ANSWER_MEMO_KEY_CHARS else (form, *parts)


def _copied(doc: dict | None) -> dict | None:
    """A deep copy of an answer: marshal's round trip for plain values (what answers hold: its loads builds every
    container afresh, shared ones shared as in ``doc``), else copy.deepcopy. (turn 49) Not copy.deepcopy always: its
    import (copy, weakref, types, copyreg, and a search of the whole module path for Jython's org.python.core) was
    ~5 million instructions of a one-line error's ~105 (No module named 'peft'), the first answer's own copy as much."""
    try:
        return marshal.loads(marshal.dumps(doc))
    except ValueError:  # (a value marshal does not keep)
        import copy

        return copy.deepcopy(doc)


def _same_sources(sources: list[object]) -> bool:
    return len(sources) == len(_MEMO_SOURCES) and all(a is b for a, b in zip(sources, _MEMO_SOURCES))


def answer(form: str, fields: dict[str, str], facts: dict[str, str], env_versions: dict[str, str] | None) -> dict | None:
    from kb.apidrift.history import load_history

    h = load_history()
    key = _question(form, fields, facts, env_versions) if ANSWER_MEMO else None
    if key is not None and _same_sources(_sources(h)) and key in _MEMO:
        found = _MEMO[key] = _MEMO.pop(key)  # (the most recently asked last)
        return _copied(found)
    doc = _answer(form, fields, facts, env_versions, h)
    if key is not None:
        sources = _sources(h)  # (after the answer: it may have read drift/'s entries or a table first)
        if not _same_sources(sources):
            _MEMO.clear()
            _MEMO_SOURCES[:] = sources
        if len(_MEMO) >= ANSWER_MEMO_SIZE:
            del _MEMO[next(iter(_MEMO))]
        _MEMO[key] = _copied(doc)
    return doc


def _answer(form: str, fields: dict[str, str], facts: dict[str, str], env_versions: dict[str, str] | None,
            h) -> dict | None:  # noqa: ANN001 - kb.apidrift History
    d = _ANSWER[form](Drift(form, None), h, fields, facts, env_versions)
    if d is None or not d.doc["facts"]:
        return None
    _tell_working(d, facts)
    _tell_yanked(d, h)
    # the new call first, then the version range the code was written for
    d.doc["fixes"].sort(key=lambda fix: fix.startswith("or keep the code"))
    return d.doc
