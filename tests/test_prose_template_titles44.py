"""A prose report pasted with its issue template (titles44, issue #24 item 3): the keyword rules read the first three
non-blank lines that are not the template's (tables/priors.toml [template]: section headers such as "### Describe the
bug", checklist items such as "- [x] I have searched the existing issues"), so the report's own sentences decide, as a
title's words do, at the keyword basis. Other software named in those sentences still leaves the report unclaimed,
and a header that is the report's own words (not a template's section) is still read."""

from __future__ import annotations

import re
from pathlib import Path

from rules_support import priors, top

DEV = Path(__file__).parent / "fixtures" / "diagnose" / "dev"

# The shape of LLaMA-Factory's and transformers' issue forms, with made-up prose.
TEMPLATED_OOM = """### Reminder

- [X] I have read the above rules and searched the existing issues.

### System Info

- Platform: Linux, 2x T4

### Reproduction

Fine-tuning qwen2.5-7b with LoRA on two T4s runs out of memory at the first step.
"""


def test_a_templated_prose_report_is_read_by_its_prose() -> None:
    assert top(TEMPLATED_OOM) == ("cuda-oom", "family-keyword")


def test_the_keyword_answer_points_at_the_prose_line() -> None:
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.document import diagnosis_document
    from kb.knowledge.registry import load_knowledge

    doc = diagnosis_document(diagnose_lines(TEMPLATED_OOM.splitlines(keepends=True), load_knowledge()))
    first = doc["matches"][0]
    assert first["error"]["line"] == TEMPLATED_OOM.splitlines().index(
        "Fine-tuning qwen2.5-7b with LoRA on two T4s runs out of memory at the first step.") + 1


def test_a_dev_set_prose_report_under_a_summary_header() -> None:
    """tests/fixtures/diagnose/dev/h3b-kbitprep-peft-3265.txt (huggingface/peft#3265): the title, a "### Summary"
    header, then the sentences that say the QLoRA run hit OOM. Silent while the header took one of the three lines."""
    text = (DEV / "h3b-kbitprep-peft-3265.txt").read_text(encoding="utf-8")
    assert top(text) == ("cuda-oom", "family-keyword")


def test_other_software_in_the_prose_is_not_claimed() -> None:
    text = TEMPLATED_OOM.replace("qwen2.5-7b with LoRA", "a Stable Diffusion XL LoRA with kohya")
    assert top(text) is None


def test_a_header_of_the_reports_own_words_is_still_read() -> None:
    assert top("# llama lora training hangs after 100 steps with deepspeed\n\nno output since\n") == (
        "hang", "family-keyword")


def test_the_template_lines_are_data() -> None:
    lines = re.compile(priors()["template"]["lines"], re.IGNORECASE)
    for line in ("### Describe the bug", "## System Info", "**To Reproduce**", "### 当前行为 | Current Behavior",
                 "- [x] I have searched the existing issues", "### Expected behavior"):
        assert lines.search(line), line
    for line in ("### llama training hangs", "- the loss goes to nan", "# OOM on 2x T4 with qwen 7b"):
        assert not lines.search(line), line
