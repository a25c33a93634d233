"""Turn 50 (drift50b, issue #25's parse bug "a working pin in the report misread as the installed version").

A version the report names as its fix, a pin in the command the user ran to fix the error, or a version that works in
the report's words is the report's WORKING version (``working_<lib>``, kb/diagnose/versions.py), never the installed
one. The answer may use it as corroboration of a dated change, never as the installed release; with no installed release
stated it still names the release of the change and the replacement. Wordings from real reports of the drift sets
(tests/fixtures/diagnose/dev/drift-*.txt; their URLs in the manifest).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.stream import chunk_lines
from kb.diagnose.versions import VersionScanner
from kb.knowledge.registry import load_knowledge

FIXTURES = Path(__file__).parent / "fixtures" / "diagnose"

# mlpc-ucsd/BLIVA#32 (drift-50): "I solved it by downgrading transformers", then the command
BLIVA = ("AttributeError: 'LlamaForCausalLM' object has no attribute 'generate'\n"
         "在执行evaluate.py的时候报错：\n"
         "AttributeError: 'LlamaForCausalLM' object has no attribute 'generate'\n"
         "我通过降级transformer得到了解决\n"
         "pip install transformers==4.28.0\n")
# huggingface/audio-transformers-course#219 (drift-37): the command in a code block under the words that it was needed
AUDIO = ("Unit 1. (datasets) dataset scripts are no longer supported\n"
         "dataset scripts are no longer supported for datasets>=4.0\n"
         "needed to use the following pip command to be able to download the dataset and follow the course\n"
         "\n```bash\npip install datasets==3.6.0\n```\n")


def scanned(text: str) -> dict[str, str]:
    """What the log's scan reads (the stream: chunks, trigger lines)."""
    scanner = VersionScanner()
    for _ in scanner.scan(chunk_lines(text.splitlines(keepends=True))):
        pass
    return scanner.facts


def read(text: str) -> dict[str, str]:
    """What the drift stage's read of one error's lines reads (VersionScanner.read_lines)."""
    return VersionScanner().read_lines(text.splitlines())


@pytest.mark.parametrize("reader", [scanned, read])
def test_a_command_under_the_words_that_fixed_it_is_the_working_version(reader) -> None:  # noqa: ANN001
    facts = reader(BLIVA)
    assert "transformers_version" not in facts
    assert facts["working_transformers"] == "4.28.0"
    assert facts["working_transformers_was"] == "newer"  # a downgrade: the failing install was newer
    facts = reader(AUDIO)
    assert "datasets_version" not in facts
    assert facts["working_datasets"] == "3.6.0"
    assert facts["working_datasets_was"] == ""


@pytest.mark.parametrize(("line", "lib", "version"), [
    ("`pip install datasets==2.16.1 --force-reinstall` works for me.", "datasets", "2.16.1"),  # AdvancedLiterateMachinery#129
    ('Issue with not pinning trl, pinning "trl==0.19.0" fixed it for me.', "trl", "0.19.0"),  # OpenPipe/ART#276
    ("Using transformers==2.1.1 worked.", "transformers", "2.1.1"),  # microsoft/nlp-recipes#516
    ("Works fine with transformers v4.45.2.", "transformers", "4.45.2"),  # OptimalScale/LMFlow#913
])
def test_a_version_that_works_in_the_reports_words_is_the_working_one(line: str, lib: str, version: str) -> None:
    facts = scanned(line)
    assert facts.get(f"working_{lib}") == version
    assert f"{lib}_version" not in facts


@pytest.mark.parametrize(("text", "lib", "installed"), [
    # a command under words that deny the fix: still the command's version (a pip install counts as stated)
    ("Downgrading did not fix it\npip install transformers==4.28.0\n", "transformers", "4.28.0"),
    ("降级也没有解决\npip install transformers==4.28.0\n", "transformers", "4.28.0"),
    # an upgrade alone is no fix: the upgraded version may be the one that failed
    ("I upgraded transformers\npip install transformers==4.46.0\n", "transformers", "4.46.0"),
    # drift-51 OmniGen#210: pip's own report of the installed version, under the upgrade command
    ("pip install -U accelerate\nRequirement already satisfied: accelerate in /x/site-packages (0.26.1)\n",
     "accelerate", "0.26.1"),
])
def test_a_command_without_a_fix_cue_is_still_read_as_before(text: str, lib: str, installed: str) -> None:
    facts = scanned(text)
    assert facts.get(f"{lib}_version") == installed
    assert f"working_{lib}" not in facts


def test_a_pull_requests_fix_title_names_the_failing_version_not_a_working_one() -> None:
    # ComfyUI_IndexTTS#39 (drift-53): "Fix X in transformers v4.56+" is where the error happens
    assert "working_transformers" not in scanned("Fix ImportError for QuantizedCacheConfig in transformers v4.56+\n")


def test_the_installed_version_outranks_and_survives_a_working_one() -> None:
    facts = scanned("- `transformers` version: 4.53.0\nA downgrade to transformers==4.51.3 fixed it\n")
    assert facts["transformers_version"] == "4.53.0"
    assert facts["working_transformers"] == "4.51.3" and facts["working_transformers_was"] == "newer"


@pytest.fixture(scope="module")
def knowledge():  # noqa: ANN201
    return load_knowledge()


def drift_of(text: str, knowledge) -> dict:  # noqa: ANN001
    answers = diagnose_lines(text.splitlines(keepends=True), knowledge).answers
    assert answers and answers[0].match.entry.family == "api-drift"
    assert answers[0].drift is not None
    return answers[0].drift


def test_bliva_names_the_release_and_the_mixin_not_an_upgrade(knowledge) -> None:  # noqa: ANN001
    drift = drift_of(BLIVA, knowledge)
    assert drift["installed"] is None  # the working pin is not the installed version
    assert drift["removed_in"] == "4.52.0"
    assert drift["moved_to"] == "transformers.GenerationMixin.generate"
    text = "\n".join([*drift["facts"], *drift["fixes"]])
    assert "the report's working transformers 4.28.0 is before the change in 4.52.0" in text
    assert "GenerationMixin" in drift["fixes"][0]
    assert not any(fix.startswith("upgrade") for fix in drift["fixes"])
    assert "transformers<4.52" in text


def test_bliva_without_the_downgrade_keeps_the_member_answer(knowledge) -> None:  # noqa: ANN001
    # the copy reading needs the report's downgrade: the error alone is not enough
    drift = drift_of(BLIVA.split("我通过")[0], knowledge)
    assert drift["removed_in"] is None
    assert drift["subject"] == "transformers.LlamaForCausalLM.generate"


def test_a_working_pin_corroborates_and_the_answer_names_release_and_replacement(knowledge) -> None:  # noqa: ANN001
    drift = drift_of(AUDIO, knowledge)
    assert drift["installed"] is None
    assert drift["removed_in"] == "4.0.0"
    assert "the report's working datasets 3.6.0 is before the change in 4.0.0" in drift["facts"]
    assert not any("the installed datasets 3.6.0" in fact for fact in drift["facts"])


@pytest.mark.parametrize(("labels", "file"), [
    ("drift-50", "dev/drift-50-BLIVA-32.txt"),
    ("drift-37", "dev/drift-37-audio-transformers-course-219.txt"),
])
def test_the_reports_answers_name_the_labelled_release_and_replacement(labels: str, file: str, knowledge) -> None:  # noqa: ANN001
    label = next(row for row in tomllib.loads((FIXTURES / f"{labels}-labels.toml").read_text())["label"]
                 if row["file"] == file)
    drift = drift_of((FIXTURES / file).read_text(encoding="utf-8"), knowledge)
    text = "\n".join([*drift["facts"], *drift["fixes"], str(drift["moved_to"])])
    assert re.search(label["replacement"], text, re.IGNORECASE)
    assert label["release"].split()[-1].removesuffix(".0") in text
