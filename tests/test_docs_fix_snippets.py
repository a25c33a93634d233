"""Each case's fix snippet ([fix] snippet) is tied to its fixed program: it is the fix the evidence verified.

The rule is kb/tidy/snippets.py's (`kb check` applies it too): every library word the snippet uses (an
attribute, a keyword argument, an imported name) appears in one of the case's fixed programs or in the
kb.fixtures helpers they import. The snippet itself runs as pasted into a user's script
(tests/test_fix_snippets_paste.py): it writes out what a helper stands for and uses real sizes where the
program builds a smaller model, but it cannot bring in an API the verified program never called.
"""

from __future__ import annotations

import ast

import pytest

from kb.knowledge.model import Case
from kb.knowledge.registry import all_cases, find_case
from kb.tidy.snippets import program_words, snippet_problem, words


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.id)
def test_fix_snippet_uses_only_what_a_fixed_program_uses(case: Case) -> None:
    problem = snippet_problem(case)
    assert problem is None, f"{case.id}: {problem}"


def test_the_check_rejects_an_api_the_fixed_program_never_called() -> None:
    program = program_words("import torch\nfrom kb.fixtures.qwen import four_bit_config\nx = torch.zeros(2).to(device='cpu')\n")
    assert {"torch", "zeros", "to", "device", "four_bit_config"} <= program
    assert "BitsAndBytesConfig" in program and "bnb_4bit_quant_type" in program  # the helper's own words count
    snippet = words(ast.parse("import torch\ny = torch.ones(2).to(device='cpu')\n"))
    assert snippet - program == {"ones"}
    assert "x" not in words(ast.parse("x = 1\n"))  # the snippet's own names are not library words


def test_a_snippet_that_calls_what_the_program_did_not_is_reported() -> None:
    case = find_case("KB0005")
    meta = {**case.meta, "fix": {**case.meta["fix"], "snippet": "import torch\ntorch.cuda.set_per_process_memory_fraction(0.5)\n"}}
    retyped = Case(meta, case.file, case.sections)
    assert snippet_problem(retyped) == ("[fix] snippet uses set_per_process_memory_fraction, which fixed.py never "
                                        "uses: the snippet must be the fix the recorded run verified")


def test_every_reproduced_case_has_a_snippet() -> None:
    missing = [c.id for c in all_cases() if c.reproductions and not c.fix_snippet.strip()]
    assert not missing, f"cases without [fix] snippet: {missing}"
