"""A library that calls an overridden method with more positional arguments than the override takes.

``CPMTrainer.training_step() takes 3 positional arguments but 4 were given``: from transformers 4.46.0 the
training loop calls ``self.training_step(model, inputs, num_items_in_batch)``; a subclass written for an older
release overrides ``training_step(self, model, inputs)``. Read from the history's parameters of the tracked method
of that name: the one release where its parameters grew from what the override takes to what the caller passes
(the old ones first, unchanged), or, for a method the history does not track (a private hook:
``Trainer._get_train_sampler``), from the [[hook]] rows of tables/api-history-before.toml read off the wheels. The
override's class is the user's; the method's name finds the library's.
"""

from __future__ import annotations


def _grew(h, lib: str, path: str, takes: int, given: int) -> tuple[str, str, list[str], list[str]] | None:  # noqa: ANN001
    """(release, release before, parameters before, parameters from then) for the first release where ``path``'s
    parameters (self not counted) went from ``takes`` to ``given`` or more, the old ones kept in front."""
    versions = h.versions(lib)
    before = None
    for version in versions:
        params = h.params(lib, path, version)
        if params is None:
            continue
        if before is not None and len(before[1]) == takes and len(params) >= given and params[:takes] == before[1]:
            return version, before[0], before[1], params
        before = (version, params)
    return None


def _listed(params: list[str]) -> str:
    return f"({', '.join(params)})" if params else "no argument besides self"


def _hooks(h, method: str, takes: int, given: int) -> list:  # noqa: ANN001 - History
    """The [[hook]] rows of tables/api-history-before.toml (an untracked method the library calls on its own
    object) for ``method`` whose positional parameters went from ``takes`` to ``given`` or more, in the form
    _grew returns; [] when the table has none (a checkout without it)."""
    return [(row["library"], row["callable"], (row["added_in"], row["last_without"], row["before"], row["after"]))
            for row in h.noted_hooks() if row["callable"].rsplit(".", 1)[-1] == method and h.versions(row["library"])
            and not row.get("keywords") and len(row["before"]) == takes and len(row["after"]) >= given]


def positional(d, h, fields: dict, facts: dict, env: dict | None):  # noqa: ANN001, ANN201 - answer.Drift, History
    """The drift section for "C.m() takes N positional arguments but M were given" (self counted in both)."""
    from kb.apidrift.answer import _floor

    callable_ = fields["callable"]
    method = callable_.rsplit(".", 1)[-1]
    takes, given = int(fields["takes"]) - 1, int(fields["given"]) - 1
    if given <= takes or method.startswith("__"):
        return None
    found = []
    for lib in h.libraries():
        for path in h.callables(lib):
            if path.count(".") >= 2 and path.rsplit(".", 1)[-1] == method:
                grew = _grew(h, lib, path, takes, given)
                if grew:
                    found.append((lib, path, grew))
    if not found:
        found = _hooks(h, method, takes, given)
    if len(found) != 1:
        return None
    lib, path, (release, prev, old, new) = found[0]
    versions = h.versions(lib)
    added = [p for p in new if p not in old]
    _release_facts(d, lib, f"{path}({', '.join(new)})", release, versions, method, facts, env)
    d.fact(f"`{path}` takes {_listed(old)} up to {lib} {prev} and {_listed(new)} from {lib} {release}: "
           f"from {release} {lib} calls `{method}` with {', '.join(f'`{p}`' for p in added)} as well")
    d.fact(f"`{callable_}` overrides it with the old parameters ({takes} besides self): the override was written "
           f"for {lib} < {release}")
    last_old = max((new.index(p) for p in old if p in new), default=-1)  # a parameter inserted between old ones
    params = [f"{p}=None" if p not in old and i > last_old else p for i, p in enumerate(new)]  # takes no default
    d.fix(f"add the parameter to your override: def {method}(self, {', '.join(params)})")
    d.fix(f"or keep the code and install the releases it was written for: pip install '{lib}<{_floor(release, versions)}'")
    return d


def keyword_hook(d, h, callable_: str, name: str, facts: dict, env: dict | None):  # noqa: ANN001, ANN201 - Drift, History
    """The drift section for "C.m() got an unexpected keyword argument 'k'" where ``m`` is a hook the library calls on
    its own object (a [[hook]] row of tables/api-history-before.toml naming ``k`` among its ``keywords``) and whose
    override (the user's class, a model's remote code) was written for the release before the library began to pass
    ``k``: transformers 4.35.0 calls ``_set_gradient_checkpointing(enable=..., gradient_checkpointing_func=...)``
    where 4.34.x's models defined ``_set_gradient_checkpointing(self, module, value=False)``. None when no row, or
    more than one, names the method and the keyword."""
    from kb.apidrift.answer import _floor

    method = callable_.rsplit(".", 1)[-1]
    rows = [row for row in h.noted_hooks() if row["callable"].rsplit(".", 1)[-1] == method
            and name in row.get("keywords", []) and name not in row["before"] and h.versions(row["library"])]
    if len(rows) != 1:
        return None
    row = rows[0]
    lib, path, release, prev = row["library"], row["callable"], row["added_in"], row["last_without"]
    versions = h.versions(lib)
    if release not in versions:
        return None
    _release_facts(d, lib, f"{path}({', '.join(row['after'])})", release, versions, method, facts, env)
    passed = ", ".join(f"`{k}=`" for k in row["keywords"])
    d.fact(f"{lib} up to {prev} calls `{method}` with {_listed(row['before'])}; from {lib} {release} it calls "
           f"`{path}` with {passed} (as the released wheels' source reads)")
    d.fact(f"`{callable_}` overrides it with the old parameters: the code (yours, or a model's remote code) was "
           f"written for {lib} < {release}")
    d.fix(f"update the override to the new parameters: def {method}(self, {', '.join(k + '=None' for k in row['after'])})"
          " (or take the model code's release written for it)")
    d.fix(f"or keep the code and install the releases it was written for: pip install '{lib}<{_floor(release, versions)}'"
          f" ({lib} {prev} is the last such release)")
    return d


def _release_facts(d, lib: str, subject: str, release: str, versions: list[str], method: str, facts, env) -> None:
    """What both hook readings state alike: the subject, the releases that accept it, the installed release."""
    from kb.apidrift.answer import _installed, _key, _span

    d.doc.update(library=lib, subject=subject, added_in=release,
                 accepted=_span(versions, versions[versions.index(release):]),
                 covered=f"{lib} {versions[0]}–{versions[-1]} ({len(versions)} releases)")
    installed, source = _installed(lib, facts, env)
    d.doc["installed"], d.doc["installed_from"] = installed, source
    if installed and _key(installed) >= _key(release):
        d.fact(f"the installed {lib} {installed} is {release} or newer: it calls `{method}` so")
