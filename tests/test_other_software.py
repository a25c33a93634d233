"""Errors from unrelated software stay unclaimed (issue #24): the words that name other software (ComfyUI, kohya's
scripts, A1111's web UI, ollama, llama.cpp, TensorFlow, a diffusion model...) live in ONE table, tables/priors.toml
[other], read through kb/knowledge by kb/diagnose/priors.py ``names_other_software``; every consumer honours it:

- the keyword rules: a report whose first lines name other software gets no family-keyword answer;
- the title check: a signature that matched only a title (one untyped line) does not answer one that names it;
- the learned fallback: no family-learned answer for such a report, and a family whose keyword rule the table rules
  out is never its answer (fallback.ruled_out);

and a typed error raised in a stack is exempt: its frames decide (a ComfyUI path above the transformers frame that
raised still gets the answer it got). A keyword rule's ``excludes`` must not hold those words again (the copies this
replaced): the last test fails when one does."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from kb.diagnose import fallback
from kb.diagnose.diagnosis import diagnose_chunks
from kb.diagnose.priors import LineEvidence, names_other_software, other_software_report, title_ruled_out
from kb.diagnose.stream import chunk_lines
from kb.knowledge.registry import load_knowledge
from rules_support import answers, priors, zorblax_model  # noqa: F401 (zorblax_model: a fixture)

# ---- inputs (written here in the forms real titles and logs take) -------------------------------------------------

# (the stack's title, which a keyword rule answers; the same words naming other software, which nothing may answer)
KEYWORD_PAIRS = [
    ("Training stuck at 0%", "ComfyUI stuck at 0%", "hang"),
    ("Qwen 7B LoRA training process got killed", "ollama llama3 process got killed", "host-oom"),
    ("QLoRA finetuning 7B: out of memory", "kohya lora finetuning: out of memory", "cuda-oom"),
    ("微调Qwen显存不足", "ComfyUI微调显存不足", "cuda-oom"),  # the word next to CJK text (priors.CJK_SEAM)
    ("NCCL error in multi-GPU training", "JAX NCCL error in multi-GPU training", "multi-gpu-launch"),
    ("loss is nan when training llama with lora", "loss is nan when training sd1 lora", "loss-nan"),
]

SAME_DEVICE = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"

# A ComfyUI node that calls transformers: the paths name ComfyUI, the frame that raised is the stack's.
COMFY_TRANSFORMERS = {
    "model-unsupported": r"""!!! Exception during processing !!!
Traceback (most recent call last):
  File "C:\ComfyUI\execution.py", line 151, in recursive_execute
    output_data, output_ui = get_output_data(obj, input_data_all)
  File "C:\ComfyUI\custom_nodes\ComfyUI-Florence2\nodes.py", line 97, in loadmodel
    model = AutoModelForCausalLM.from_pretrained(model_path, trust_remote_code=True)
  File "C:\ComfyUI\python_embeded\Lib\site-packages\transformers\models\auto\auto_factory.py", line 526, in from_pretrained
    config, kwargs = AutoConfig.from_pretrained(
  File "C:\ComfyUI\python_embeded\Lib\site-packages\transformers\models\auto\configuration_auto.py", line 1029, in from_pretrained
    config_class = CONFIG_MAPPING[config_dict["model_type"]]
  File "C:\ComfyUI\python_embeded\Lib\site-packages\transformers\models\auto\configuration_auto.py", line 731, in __getitem__
    raise KeyError(key)
KeyError: 'qwen2_vl'
""",
    "hub-access": """Traceback (most recent call last):
  File "/home/u/ComfyUI/custom_nodes/ComfyUI-LLM/nodes.py", line 41, in load
    tok = AutoTokenizer.from_pretrained("meta-llama/Llama-2-7b-hf")
  File "/home/u/ComfyUI/venv/lib/python3.10/site-packages/transformers/models/auto/tokenization_auto.py", line 718, in from_pretrained
    tokenizer_config = get_tokenizer_config(pretrained_model_name_or_path, **kwargs)
  File "/home/u/ComfyUI/venv/lib/python3.10/site-packages/transformers/utils/hub.py", line 429, in cached_file
    resolved_file = hf_hub_download(
  File "/home/u/ComfyUI/venv/lib/python3.10/site-packages/huggingface_hub/utils/_errors.py", line 286, in hf_raise_for_status
    raise GatedRepoError(message, response) from e
huggingface_hub.utils._errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-65a1)

Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/tokenizer_config.json.
Repo model meta-llama/Llama-2-7b-hf is gated. You must be authenticated to access it.
""",
}

# An error no signature or prior knows, for a model made up here that answers shape-mismatch on its word.
UNKNOWN_ERROR = "RuntimeError: zorblax frobnicated the weights"
UNKNOWN_UNDER_COMFY = f"""Traceback (most recent call last):
  File "/home/u/ComfyUI/custom_nodes/ComfyUI-Zorb/nodes.py", line 12, in run
    out = model(x)
  File "/home/u/ComfyUI/venv/lib/python3.10/site-packages/transformers/zorb.py", line 88, in forward
    raise RuntimeError("zorblax frobnicated the weights")
{UNKNOWN_ERROR}
"""


def head_and_errors(text: str) -> tuple[list[str], list]:
    """The first lines and the errors of ``text``, as the pipeline reads them."""
    evidence = LineEvidence(None)
    diagnosis = diagnose_chunks(evidence.scan(chunk_lines(text.splitlines(keepends=True))), load_knowledge())
    return evidence.head, diagnosis.errors



# ---- one table, read through the knowledge -------------------------------------------------------------------------

def test_the_words_are_one_table_read_through_the_knowledge() -> None:
    table = priors()
    assert table["other"]["words"], "tables/priors.toml [other] defines no words"
    for word in ("ComfyUI", "kohya_ss", "A1111", "ollama", "llama.cpp", "stable-diffusion-webui", "TensorFlow"):
        assert names_other_software(f"{word} fails", table) is not None, word
    for stack in ("transformers", "peft", "deepspeed", "Llama-2-7b", "unsloth", "segmentation fault", "vllm"):
        assert names_other_software(f"{stack} fails", table) is None, stack
    # a knowledge root whose priors have no [other]: nothing is other software's
    assert names_other_software("ComfyUI fails", {k: v for k, v in table.items() if k != "other"}) is None
    assert names_other_software("ComfyUI fails", None) is None


# ---- each consumer honours it ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("stack", "other", "family"), KEYWORD_PAIRS, ids=[p[2] + ":" + p[1] for p in KEYWORD_PAIRS])
def test_the_keyword_rules_leave_other_software_unanswered(stack: str, other: str, family: str) -> None:
    assert answers(stack)[:1] == [(family, "family-keyword")]
    assert answers(other) == []


@pytest.mark.parametrize(("stack", "other"), [
    ("Qwen 7B LoRA training process killed by the OOM killer", "ollama llama3 process killed by the OOM killer"),
    ("finetune.py: exit code -9\nKilled", "ComfyUI: exit code -9\nKilled"),
])
def test_process_evidence_leaves_other_software_unanswered(stack: str, other: str) -> None:
    """How a process died (a process prior) answers the stack's run, not a run of software [other] names."""
    assert answers(stack)[:1] == [("host-oom", "family-prior")]
    assert answers(other) == []


def test_a_title_match_of_a_signature_is_dropped_for_other_software() -> None:
    assert answers(SAME_DEVICE)[:1] == [("device-mismatch", "family-evidence")]
    assert "other software" in (title_ruled_out("A1111 webui: " + SAME_DEVICE, priors()) or "")
    assert answers("A1111 webui: " + SAME_DEVICE) == []


@pytest.mark.parametrize("program", ["ComfyUI", "llama.cpp", "ollama", "kohya_ss"])
def test_the_shipped_fallback_leaves_other_software_titles_unanswered(program: str) -> None:
    """The shipped model answered "ComfyUI: Expected all tensors ..." with device-mismatch before the fallback read
    [other]: no answer on any path now."""
    assert answers(f"{program}: {SAME_DEVICE}") == []


@pytest.mark.usefixtures("zorblax_model")
def test_the_fallback_stays_silent_when_the_first_lines_name_other_software() -> None:
    assert answers(UNKNOWN_ERROR + "\n") == [("shape-mismatch", "family-learned")]  # the made-up model answers
    assert answers("zorblax frobnicated the weights in ComfyUI\n") == []  # a title
    assert answers("ComfyUI run failed\n" + UNKNOWN_ERROR + "\n") == []  # a typed error without a stack: not exempt


def test_the_fallback_rules_out_a_family_whose_keyword_rule_other_software_rules_out() -> None:
    """The copies in the excludes are gone; [other] rules the families out instead, for every keyword rule."""
    table = priors()
    assert "cuda-oom" in fallback.ruled_out("ollama: CUDA out of memory", table)
    assert "device-mismatch" in fallback.ruled_out("ComfyUI: " + SAME_DEVICE, table)
    assert "device-mismatch" not in fallback.ruled_out(SAME_DEVICE, table)
    assert "cuda-oom" in fallback.ruled_out("cc1plus: out of memory allocating 65536 bytes", table)  # its own excludes


# ---- a typed error raised in a stack: the frames decide ------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(COMFY_TRANSFORMERS))
def test_a_stack_raising_in_the_stack_under_other_software_paths_is_answered_as_before(family: str) -> None:
    text = COMFY_TRANSFORMERS[family]
    head, errors = head_and_errors(text)
    assert names_other_software("\n".join(head) + "\n" + text, priors()) is not None  # the paths name ComfyUI
    assert other_software_report(head, errors, priors()) is None  # exempt: a typed error with frames
    # hub-access and model-unsupported (KeyError: 'qwen2_vl' from CONFIG_MAPPING: KB0050) have cases that answer
    assert answers(text)[0] == (family, "case" if family in ("hub-access", "model-unsupported") else "family-evidence")


@pytest.mark.usefixtures("zorblax_model")
def test_the_fallback_still_answers_a_typed_error_raised_in_a_stack_under_other_software() -> None:
    head, errors = head_and_errors(UNKNOWN_UNDER_COMFY)
    assert names_other_software("\n".join(head), priors()) is not None
    assert other_software_report(head, errors, priors()) is None
    assert answers(UNKNOWN_UNDER_COMFY) == [("shape-mismatch", "family-learned")]
    head, errors = head_and_errors("ComfyUI run failed\n" + UNKNOWN_ERROR + "\n")
    assert "ComfyUI" in (other_software_report(head, errors, priors()) or "")


# ---- no copies in a keyword rule's excludes --------------------------------------------------------------------------------

def _scan(pattern: str) -> tuple[list[int], bool]:
    """The offsets of ``pattern``'s top-level ``|`` (outside groups and character classes), and whether it is
    balanced without ever closing a group it did not open (a group's inside is)."""
    bars, depth, i, in_class, inside = [], 0, 0, False, True
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            inside = inside and depth >= 0
        elif c == "|" and depth == 0:
            bars.append(i)
        i += 1
    return bars, inside and depth == 0


def _split(pattern: str) -> list[str]:
    """The alternatives of ``pattern`` at its top level."""
    bars, _ = _scan(pattern)
    return [pattern[a + 1:b] for a, b in zip([-1, *bars], [*bars, len(pattern)])]


def alternatives(pattern: str) -> list[str]:
    """The words an exclude lists: its top-level alternatives, and those of a word group ``\\b(?:a|b|c)\\b`` that is
    a whole alternative (each as ``\\b(?:a)\\b``)."""
    out = []
    for alt in _split(pattern):
        m = re.fullmatch(r"\\b\(\?:(.*)\)\\b", alt)
        if m and _scan(m.group(1))[1]:  # the group opened after \b closes just before the last \b
            out += [f"\\b(?:{a})\\b" for a in _split(m.group(1))]
        else:
            out.append(alt)
    return out


def names_only_other_software(alternative: str, table: dict) -> bool:
    """Every text the alternative matches names other software (no example found that [other] does not hold)."""
    strategy = st.from_regex(re.compile(alternative, re.IGNORECASE), fullmatch=True)
    try:
        find(strategy, lambda s: names_other_software(f" {s} ", table) is None,
             settings=settings(database=None, derandomize=True, max_examples=60, phases=[Phase.generate],
                               suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        return True
    except Unsatisfiable:  # no text is all it matches ("g\+\+" then \b): it names nothing on its own
        return False
    return False


def test_the_copy_check_finds_a_copy() -> None:
    """The check below can fail: the copies it replaced, and a framework list, are found; a rule's own words are not."""
    table = priors()
    copy = r"\b(?:yolo\w{0,4}|kohya\w{0,8}|comfy\w{0,4}|ollama|llama\.cpp)\b"
    assert all(names_only_other_software(a, table) for a in alternatives(copy))
    assert all(names_only_other_software(a, table) for a in alternatives(r"\bjax\b|\btensorflow\b|\bkeras\b"))
    own = r"\b(?:build|building|install|installing)\b|\bram\b|\bxla\b|\b(?:detector|detection|segmentation)\b"
    assert not any(names_only_other_software(a, table) for a in alternatives(own))


def test_no_keyword_rule_excludes_repeat_a_word_that_other_holds() -> None:
    table = priors()
    copies = [f"keyword[{i}] ({rule['family']}): {alt}"
              for i, rule in enumerate(table["keyword"]) for pattern in rule["excludes"]
              for alt in alternatives(pattern) if names_only_other_software(alt, table)]
    assert not copies, ("words of other software belong in tables/priors.toml [other] alone, which every keyword rule "
                        "reads; drop them from these excludes:\n" + "\n".join(copies))
