"""kb/knowledge/versions.py: the PEP 440 subset behind `[versions] affected`, and the case field."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.knowledge.load import KnowledgeError, load_case

from casefiles import write_case
from kb.knowledge.versions import InvalidSpecifier, InvalidVersion, contains, contains_subset, parse_spec, parse_version


@pytest.mark.parametrize(
    "spec, version, expected",
    [
        (">=4.51,<4.57", "4.55.0", True),
        (">=4.51,<4.57", "4.57.0", False),
        (">=4.51,<4.57", "4.51", True),
        (">=4.51,<4.57", "4.50.9", False),
        ("<4.57", "4.57.0.dev0", False),  # PEP 440: <V excludes pre-releases of V
        ("<4.57", "4.57.0rc1", False),
        ("<4.57.0rc1", "4.57.0.dev0", True),
        (">4.51", "4.51.post1", False),  # >V excludes post-releases of V
        (">4.51", "4.52.0", True),
        ("==2.5.1", "2.5.1+cu121", True),  # local labels are ignored
        ("==2.5.*", "2.5.1+cu121", True),
        ("!=2.5.*", "2.6.0", True),
        ("~=4.51", "4.99", True),
        ("~=4.51.1", "4.52", False),
        ("<=4.57", "4.57.0+cu1", True),
        ("==0.45", "0.45.0", True),
    ],
)
def test_ranges(spec: str, version: str, expected: bool) -> None:
    assert contains_subset(spec, version) is expected
    assert contains(spec, version) is expected


@pytest.mark.parametrize("spec", ["", "4.51", ">=4.51,", "===4.51", ">=1!2.0", ">=4.51+cu1", ">=4.*", "~=4", ">=x.y"])
def test_bad_specs_are_refused(spec: str) -> None:
    with pytest.raises(InvalidSpecifier):
        parse_spec(spec)


def test_uncomparable_installed_version() -> None:
    with pytest.raises(InvalidVersion):
        contains_subset(">=1.0", "not-a-version")


def test_pre_dev_post_order() -> None:
    order = ["1.0.dev0", "1.0a1", "1.0b2", "1.0rc1", "1.0", "1.0.post1", "1.1"]
    keys = [parse_version(v).key() for v in order]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


_release = st.lists(st.integers(0, 3), min_size=1, max_size=3).map(lambda xs: ".".join(map(str, xs)))
_version = st.tuples(
    _release,
    st.sampled_from(["", "a1", "b0", "rc2", ".dev0", ".post1", "rc1.dev3", "+cu121"]),
).map("".join)
_op = st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "~="])


@settings(max_examples=400, deadline=None)
@given(_op, _release, _version)
def test_subset_agrees_with_packaging(op: str, spec_version: str, installed: str) -> None:
    """The fallback gives the same answer as `packaging` wherever the subset accepts the range."""
    packaging = pytest.importorskip("packaging.specifiers")
    from packaging.version import Version

    spec = f"{op}{spec_version}"
    try:
        parse_spec(spec)
    except InvalidSpecifier:
        return  # e.g. "~=3": outside the subset, refused when a case loads
    expected = packaging.SpecifierSet(spec).contains(Version(installed), prereleases=True)
    assert contains_subset(spec, installed) is expected, (spec, installed)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["==", "!="]), _release, _version)
def test_wildcards_agree_with_packaging(op: str, prefix: str, installed: str) -> None:
    packaging = pytest.importorskip("packaging.specifiers")
    from packaging.version import Version

    spec = f"{op}{prefix}.*"
    expected = packaging.SpecifierSet(spec).contains(Version(installed), prereleases=True)
    assert contains_subset(spec, installed) is expected, (spec, installed)


def _write_case(tmp_path: Path, versions: str) -> Path:
    return write_case(tmp_path / "KB9999-some-case", f'id = "KB9999"\nslug = "some-case"\ntitle = "X"\n{versions}')


def test_case_without_affected_loads(tmp_path: Path) -> None:
    case = load_case(_write_case(tmp_path, '[versions]\nobserved = "torch 2.x"'))
    assert case.affected == ()


def test_case_affected_field(tmp_path: Path) -> None:
    folder = _write_case(
        tmp_path,
        '[versions]\naffected = [{package = "transformers", spec = ">=4.51,<4.57", note = "n_gpu"}]',
    )
    (rng,) = load_case(folder).affected
    assert (rng.package, rng.spec, rng.note) == ("transformers", ">=4.51,<4.57", "n_gpu")


@pytest.mark.parametrize(
    "versions, needle",
    [
        ('[versions]\naffected = [{package = "transformers", spec = "4.51"}]', r"affected\[0\]: .*start each part"),
        ('[versions]\naffected = [{package = "transformers"}]', "lacks the required key 'spec'"),
        ('[versions]\naffected = "transformers>=4.51"', "must be a list"),
    ],
)
def test_case_bad_affected_is_a_case_error(tmp_path: Path, versions: str, needle: str) -> None:
    with pytest.raises(KnowledgeError, match=needle):
        load_case(_write_case(tmp_path, versions))
