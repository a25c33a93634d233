"""The parser's regexes (kb/diagnose/patterns.py SHAPES) are built on first use (issue 26, start-up): each name reads
as the regex its source compiles to, is built once, and a one-line error builds only the few shapes it meets."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kb.diagnose import patterns

REPO = Path(__file__).resolve().parent.parent
DTYPE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n"


@pytest.mark.parametrize("name", sorted(patterns.SHAPES))
def test_each_shape_reads_as_its_regex_and_is_built_once(name: str) -> None:
    built = getattr(patterns, name)
    assert built == re.compile(patterns.SHAPES[name])
    assert getattr(patterns, name) is built
    assert vars(patterns)[name] is built  # an ordinary attribute now: __getattr__ is not asked again


def test_a_name_that_is_no_shape_is_no_attribute() -> None:
    with pytest.raises(AttributeError, match="NO_SUCH_SHAPE"):
        patterns.NO_SUCH_SHAPE  # noqa: B018


IMPLIED_SAMPLES = {  # a message Python prints for each type, each matched by exactly one shape of that type
    "'LlamaModel' object has no attribute 'rotary_emb'": "AttributeError",
    "module 'torch' has no attribute 'float8_e4m3fn'": "AttributeError",
    "cannot import name 'top_k_top_p_filtering' from 'transformers' (/x/transformers/__init__.py)": "ImportError",
    "__init__() got an unexpected keyword argument 'use_auth_token'": "TypeError",
    "No module named 'torch._six'": "ModuleNotFoundError",
    "name 'init_empty_weights' is not defined": "NameError",
    "log() takes 2 positional arguments but 3 were given": "TypeError",
    "__init__() missing 1 required positional argument: 'processing_class'": "TypeError",
    "'NoneType' object is not subscriptable": "TypeError",
}


def test_the_implied_messages_say_their_type() -> None:
    """Each implied shape matches a message of its own type, and every shape is met by one of the samples."""
    met = set()
    for message, implied_type in IMPLIED_SAMPLES.items():
        hits = [i for i, (t, source) in enumerate(patterns.IMPLIED_MESSAGES) if re.match(source, message)]
        assert len(hits) == 1 and patterns.IMPLIED_MESSAGES[hits[0]][0] == implied_type, message
        met.update(hits)
    assert met == set(range(len(patterns.IMPLIED_MESSAGES)))


def test_a_one_line_error_builds_few_of_the_shapes(tmp_path: Path) -> None:
    """`kb diagnose` (kb.cli's main) on a one-line error, caches warm: the shapes it met are built, the rest are not
    (IPython's, rich's, NCCL's, a CUDA assert's...)."""
    source = tmp_path / "input.txt"
    source.write_text(DTYPE, encoding="utf-8")
    code = ("import sys; sys.argv = ['kb', 'diagnose', %r]\n"
            "from kb.cli import main; rc = main()\n"
            "from kb.diagnose import patterns\n"
            "print(' '.join(n for n in patterns.SHAPES if n in vars(patterns)), file=sys.stderr)\n"
            "raise SystemExit(rc)") % str(source)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update({"PYTHONPATH": str(REPO), "KB_CACHE_DIR": str(tmp_path / "cache")})
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    built = set(proc.stderr.split())
    assert "EXCEPTION_LINE" in built  # the line's shape was read
    assert not built & {"IPY_FRAME", "IPY_ANY_HEADER", "RICH_FRAME", "NCCL_WARN", "CUDA_ASSERT", "WATCHDOG",
                        "REPR_EXCEPTION", "INLINE_FRAME", "SPLIT_MARKERS"}
    assert len(built) <= len(patterns.SHAPES) // 2
