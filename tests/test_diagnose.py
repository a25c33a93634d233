"""`kb diagnose` behaviour: root error, demotion, environment hints, filled fixes, no-match, secrets, colour."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kb import site_url
from kb.cli import output as cli_output
from kb.render import diagnosis as diagnose_output
from kb.knowledge.load import load_case

from casefiles import write_case
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.diagnose.match import template_message
from kb.knowledge.model import Knowledge
from kb.knowledge.registry import load_knowledge

REPO = Path(__file__).resolve().parent.parent
MATMUL = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float"
TRACE = f"""Traceback (most recent call last):
  File "/home/alice/proj/train.py", line 40, in <module>
    out = model(x)
  File "/home/alice/proj/model.py", line 30, in forward
    return torch.matmul(label, self.w)
{MATMUL}
"""


def doc_for(text: str, cases: object = None) -> dict:
    knowledge = Knowledge(tuple(cases), load_knowledge().families, {}) if cases else load_knowledge()
    return diagnosis_document(diagnose_lines(text.splitlines(keepends=True), knowledge))


def kb(*args: str, stdin: bytes | None = None, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "kb", *args], input=stdin, capture_output=True, cwd=REPO,
                          timeout=60, env=env)
    out = subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())
    assert "Traceback (most recent call last)" not in out.stderr, out.stderr
    return out


def test_match_carries_evidence_captures_fix_and_user_frame() -> None:
    m = doc_for(TRACE)["matches"][0]
    assert (m["id"], m["slug"], m["confidence"]) == ("KB0001", "dtype-double-vs-float", "high")
    assert m["captures"] == {"dtype_a": "double", "dtype_b": "float"}
    assert "One operand is double, the other float" in m["fix"]
    assert m["user_frame"].startswith("/home/~/proj/model.py:30 in forward")
    assert any(e.startswith("line 6: message matches") for e in m["evidence"])
    assert any(e.startswith("frame /home/~/proj/model.py:30") for e in m["evidence"])
    assert m["docs"] == site_url() + "cases/KB0001-dtype-double-vs-float/" and m["more"] == "kb show KB0001"


def test_half_vs_float_is_a_near_miss_not_kb0001_but_its_family() -> None:
    doc = doc_for("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: float != c10::Half\n")
    top = doc["matches"][0]
    assert (top["kind"], top["id"], top["family"]) == ("family", "dtype-mismatch", "dtype-mismatch")
    assert "KB0001" not in [m["id"] for m in doc["matches"]]
    assert top["triage"] and top["candidates"] and top["docs"].endswith("families/dtype-mismatch/")


def test_a_card_size_alone_never_selects_a_case() -> None:
    """A T4-sized OOM without KB0005's frames: the cuda-oom family answers, KB0005 is only a candidate."""
    doc = doc_for(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.45 GiB. GPU 0 has a total capacity of "
        "14.74 GiB of which 80.00 MiB is free. Of the allocated memory 13.30 GiB is allocated by PyTorch, and "
        "105.90 MiB is reserved by PyTorch but unallocated.\n")
    top = doc["matches"][0]
    assert (top["kind"], top["id"]) == ("family", "cuda-oom"), [(m["kind"], m["id"]) for m in doc["matches"]]
    assert "KB0005" not in [m["id"] for m in doc["matches"] if m["kind"] == "case"]
    assert "KB0005" in [c["id"] for c in top["candidates"]]
    assert "13.30 GiB" in top["fix"] or "1.45 GiB" in top["fix"]


def test_a_case_with_a_discriminator_ranks_above_its_family() -> None:
    doc = doc_for(TRACE)
    kinds = [(m["kind"], m["id"]) for m in doc["matches"]]
    assert kinds[0] == ("case", "KB0001") and ("family", "dtype-mismatch") in kinds[1:], kinds
    assert doc["matches"][0]["family"] == "dtype-mismatch" and doc["matches"][0]["discriminators"]


def test_only_the_users_values_are_redacted_not_the_knowledge() -> None:
    """A fix that itself contains `pad_token = ...` prints as written; a token in the user's input does not."""
    from kb.diagnose.match import fill_template
    from kb.diagnose.redact import redact

    template = "tokenizer.pad_token = tokenizer.eos_token  # then retry with {device}"
    assert redact(template) == template  # code is never masked (issue 23: the old rule printed `pad_token = ***`)
    doc = doc_for(TRACE)
    assert fill_template(template, {"device": "cuda:0"}) == "tokenizer.pad_token = tokenizer.eos_token  # then retry with cuda:0"
    assert "***" not in doc["matches"][0]["fix"]


def test_a_bare_oom_line_without_its_type_is_answered() -> None:
    doc = doc_for("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.69 GiB total capacity; 22.80 GiB "
                  "already allocated; 3.69 MiB free; 22.95 GiB reserved in total by PyTorch)\n")
    assert doc["root_error"] is not None and doc["matches"][0]["family"] == "cuda-oom"


def test_root_error_is_the_first_rank_and_childfailederror_is_demoted() -> None:
    text = (
        f"[rank1]: {MATMUL}\n"
        "[rank0]: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n"
        "[rank0]:[E626 06:24:44.9 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=8, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \ntrain.py FAILED\n"
    )
    doc = doc_for(text)
    assert doc["root_error"]["rank"] == "1" and doc["root_error"]["message"].endswith("double != float")
    noise = {e["type"].rsplit(".", 1)[-1] for e in doc["errors"] if e["noise"]}
    assert noise == {"NCCLWatchdogTimeout", "ChildFailedError"}
    assert doc["environment"]["ranks_seen"] == "2"


def test_a_bare_error_line_does_not_steal_the_root_from_a_traceback() -> None:
    doc = doc_for("KeyError: 'labels' (sample 12 skipped)\n" + TRACE)
    assert doc["root_error"]["message"].endswith("double != float")


def test_a_match_on_a_non_root_error_scores_lower() -> None:
    first = doc_for(TRACE)["matches"][0]["score"]
    earlier = "Traceback (most recent call last):\n  File \"/w/data.py\", line 3, in <module>\n    x = row['labels']\nKeyError: 'labels'\n"
    later = doc_for(earlier + TRACE)["matches"][0]
    assert later["score"] == pytest.approx(first - 0.1)
    assert any(e.startswith("demoted: not the root error") for e in later["evidence"])


def test_only_follow_on_noise_answers_its_family_and_says_the_cause_is_elsewhere() -> None:
    text = (
        "[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"
    )
    proc = kb("diagnose", "-", stdin=text.encode())
    assert proc.returncode == 0 and "family hang" in proc.stdout.split("\n")[0]
    assert "Only follow-on errors were found" in proc.stdout and "first process that failed" in proc.stdout
    # With the error that started it in the log, the watchdog's family is not an answer.
    doc = doc_for("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n" + text)
    assert "hang" not in [m["id"] for m in doc["matches"]]


def test_environment_hints_from_the_log() -> None:
    text = (
        "torchrun --nproc_per_node 2 train.py --per_device_train_batch_size 2\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.90 GiB. GPU 0 has a total capacity of "
        "14.74 GiB of which 1.2 GiB is free.\n"
    )
    env = doc_for(text)["environment"]
    assert env["gpu_memory_gib"] == "14.74" and env["gpu"].startswith("T4")
    assert env["world_size"] == "2" and env["per_device_batch"] == "2"


def _synthetic_case(tmp_path: Path) -> object:
    folder = tmp_path / "cases" / "KB9999-synthetic-device-split"
    folder.mkdir(parents=True)
    write_case(folder, """id = "KB9999"
slug = "synthetic-device-split"
family = "device-mismatch"
title = "RuntimeError: Expected all tensors to be on the same device"
hardware = ["cpu"]

[[signatures]]
name = "two-gpus"
exception = "RuntimeError"
message = 'found at least two devices, (?P<device_a>cuda:\\d+) and (?P<device_b>cuda:\\d+)'
hints = ['device_map']
environment = { gpu = 'T4' }

[fix]
template = "Your tensors are on {device_a} and {device_b}; on a {gpu} move the input to {device_a}."
""")
    return load_case(folder)


def test_case_hints_and_environment_raise_the_score_and_fill_the_fix(tmp_path: Path) -> None:
    case = _synthetic_case(tmp_path)
    bare = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!\n"
    plain = doc_for(bare, [case])["matches"][0]
    rich = doc_for(
        "model = AutoModelForCausalLM.from_pretrained(name, device_map='auto')\n"
        "OutOfMemoryError earlier: GPU 1 has a total capacity of 14.75 GiB\n" + bare,
        [case],
    )["matches"][0]
    # Without the hint the message alone cannot tell this case from its family's other causes.
    assert (plain["kind"], plain["id"], plain["score"]) == ("family", "device-mismatch", pytest.approx(0.8))
    assert [c["id"] for c in plain["candidates"] if c["matched"]] == ["KB9999"]
    assert (rich["kind"], rich["id"], rich["score"]) == ("case", "KB9999", pytest.approx(0.9))
    assert any(e.startswith("nearby line matches hint /device_map/") for e in rich["evidence"])
    assert any(e.startswith("environment: gpu = T4") for e in rich["evidence"])
    assert rich["fix"] == "Your tensors are on cuda:1 and cuda:0; on a T4 (15 GB; Colab/Kaggle) move the input to cuda:1."
    from kb.diagnose.match import fill_template

    assert fill_template(case.fix_template, {"device_a": "cuda:1", "device_b": "cuda:0"}).endswith(
        "on a {gpu} move the input to cuda:1.")  # unknown facts stay visible


def test_fix_templates_with_code_braces_are_still_filled() -> None:
    from kb.diagnose.match import fill_template

    template = 'Ranks {rank_a} and {rank_b}; do not hard-code device_map={"": 0} or {f"x.{i}": 1}; {unknown} stays.'
    assert fill_template(template, {"rank_a": "7", "rank_b": "0"}) == (
        'Ranks 7 and 0; do not hard-code device_map={"": 0} or {f"x.{i}": 1}; {unknown} stays.'
    )


def test_message_template_turns_values_into_placeholders() -> None:
    template, values = template_message(
        "CUDA out of memory. Tried to allocate 2.90 GiB. GPU 1 has a total capacity of 14.74 GiB on cuda:1 "
        "at /home/a/b.py shape torch.Size([2, 4])"
    )
    assert template == (
        "CUDA out of memory. Tried to allocate <size>. GPU <number> has a total capacity of <size> on <device> "
        "at <path> shape <shape>"
    )
    assert values["size_1"] == "2.90 GiB" and values["device_1"] == "cuda:1"


def test_no_match_explains_the_exception_and_exits_1() -> None:
    # flash_attn is the package-install family's; a package outside the fine-tuning stack matches nothing
    proc = kb("diagnose", "-", stdin=b"ModuleNotFoundError: No module named 'matplotlib'\n")
    assert proc.returncode == 1
    assert "No known case or family matches this error." in proc.stdout
    assert "what it usually means: A package is not installed" in proc.stdout
    doc = json.loads(kb("diagnose", "-", "--format", "json", stdin=b"KeyError: 'labels'\n").stdout)
    assert doc["matches"] == [] and doc["root_error"]["meaning"].startswith("A dict/config lookup")


def test_json_schema_keys() -> None:
    proc = kb("diagnose", str(REPO / "examples" / "dtype-double-vs-float.txt"), "--format", "json")
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0
    assert {"schema_version", "matches", "errors_seen", "root_error", "errors", "environment", "notes"} <= set(doc)
    m = doc["matches"][0]
    assert {"id", "slug", "title", "score", "confidence", "why", "signature", "error", "evidence", "captures",
            "fix", "user_frame", "raised_in", "more", "docs"} <= set(m)
    assert {"type", "message", "line", "rank"} <= set(m["error"])
    assert {"type", "message", "line", "rank", "template", "noise", "user_frame", "meaning"} <= set(doc["root_error"])


SECRET_LOG = """HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz123456
WANDB_API_KEY=0123456789abcdef0123456789abcdef01234567
OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz
Traceback (most recent call last):
  File "/home/alice/secret-project/train.py", line 3, in <module>
    login(token="hf_abcdefghijklmnopqrstuvwxyz123456")
  File "C:\\Users\\alice\\proj\\model.py", line 30, in forward
    return torch.matmul(label, self.w)
RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float (token hf_abcdefghijklmnopqrstuvwxyz123456)
"""


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_secrets_and_home_paths_are_never_echoed(fmt: str) -> None:
    proc = kb("diagnose", "-", "--format", fmt, stdin=SECRET_LOG.encode())
    assert proc.returncode == 0
    out = proc.stdout + proc.stderr
    for secret in ("hf_abcdefghijklmnop", "0123456789abcdef0123", "sk-proj-abcdefghij", "alice"):
        assert secret not in out, secret
    assert "KB0001" in out


def test_no_match_output_is_redacted_too() -> None:
    proc = kb("diagnose", "-", stdin=b'  File "/home/alice/x.py", line 1, in f\nKeyError: hf_abcdefghijklmnopqrstuvwxyz123456\n')
    assert proc.returncode == 1 and "alice" not in proc.stdout and "hf_abcdefghijklmnop" not in proc.stdout


class _FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_tty(monkeypatch: pytest.MonkeyPatch) -> None:
    piped = kb("diagnose", str(REPO / "examples" / "dtype-double-vs-float.txt"))
    assert piped.returncode == 0 and "\x1b[" not in piped.stdout
    doc = doc_for(TRACE)
    monkeypatch.delenv("NO_COLOR", raising=False)
    # Style marks its colours; the terminal boundary (kb/cli/output.py) turns only those marks into codes
    out = diagnose_output.format_diagnosis(doc, style=cli_output.Style(_FakeTTY()))
    assert "\x1b[1mKB0001" in cli_output.terminal_text(out)
    full = diagnose_output.format_diagnosis(doc, full=True, style=cli_output.Style(_FakeTTY()))
    assert "1. \x1b[1mKB0001" in cli_output.terminal_text(full)
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in cli_output.terminal_text(diagnose_output.format_diagnosis(doc, style=cli_output.Style(_FakeTTY())))


def test_torchrun_root_cause_rank_picks_the_root() -> None:
    text = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/w/train.py", line 9, in <module>\n'
        "[rank0]: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n"
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/w/train.py", line 9, in <module>\n'
        f"[rank1]: {MATMUL}\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\n"
        "train.py FAILED\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2025-04-01_12:00:00\n"
        "  rank      : 1 (local_rank: 1)\n"
        "  exitcode  : 1 (pid: 1234)\n"
    )
    doc = doc_for(text)
    assert doc["environment"]["first_failed_rank"] == "1"
    assert doc["root_error"]["rank"] == "1" and doc["root_error"]["message"].endswith("double != float")


@pytest.mark.parametrize(
    "text, slug",
    [
        # torch < 2.1 OOM wording: 13.71 reserved - 8.77 allocated = 4.94 GiB idle >= 2.87 requested
        ("RuntimeError: CUDA out of memory. Tried to allocate 2.87 GiB (GPU 0; 14.76 GiB total capacity; "
         "8.77 GiB already allocated; 19.75 MiB free; 13.71 GiB reserved in total by PyTorch)", "cuda-oom-fragmentation"),
        # same wording, 40 MiB idle on an 8 GB card: not fragmentation, not a T4
        ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.80 GiB total capacity; "
         "1.28 GiB already allocated; 5.44 MiB free; 1.32 GiB reserved in total by PyTorch)", "cuda-oom"),
        # a T4 full of PyTorch's own allocations, both wordings
        ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB (GPU 0; 14.56 GiB total "
         "capacity; 13.77 GiB already allocated; 240.44 MiB free; 13.78 GiB reserved in total by PyTorch)",
         "cuda-oom"),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.45 GiB. GPU 0 has a total capacity of "
         "14.74 GiB of which 1.12 GiB is free. Process 7 has 13.62 GiB memory in use. Of the allocated memory "
         "13.40 GiB is allocated by PyTorch, and 85.20 MiB is reserved by PyTorch but unallocated.", "cuda-oom"),
        # a 24 GB card is not a T4
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.45 GiB. GPU 0 has a total capacity of "
         "23.65 GiB of which 1.12 GiB is free. Process 7 has 22.50 GiB memory in use. Of the allocated memory "
         "22.40 GiB is allocated by PyTorch, and 85.20 MiB is reserved by PyTorch but unallocated.", "cuda-oom"),
        ("RuntimeError: Found dtype Double but expected Float", "dtype-double-vs-float"),
        ("RuntimeError: Found dtype Half but expected Float", "dtype-mismatch"),
        ("RuntimeError: Expected object of scalar type Double but got scalar type Float for argument #2 'mat2' "
         "in call to _th_mm", "dtype-double-vs-float"),
        ("IndexError: index out of range in self", "device-side-assert"),  # token or position table: the text cannot tell
        ("huggingface_hub.errors.GatedRepoError: 403 Client Error. Access to model meta-llama/Llama-3.1-8B is "
         "restricted and you are not in the authorized list.", "gated-model-access-denied"),
    ],
)
def test_other_wordings_of_a_case(text: str, slug: str | None) -> None:
    """Wordings of older/newer library versions (each seen in public issue threads, see the dev set): the
    case when the text singles it out, else its family (a T4's card size alone never selects KB0005)."""
    matches = doc_for(text + "\n")["matches"]
    assert (matches[0]["slug"] if matches else None) == slug, matches[:1]


def test_fix_template_default_for_a_value_the_output_did_not_show() -> None:
    from kb.diagnose.match import fill_template

    assert fill_template("killed by {signal|(not shown)}", {"signal": "Killed"}) == "killed by Killed"
    assert fill_template("killed by {signal|(not shown)}", {}) == "killed by (not shown)"
    assert fill_template('device_map={"": 0} {missing}', {}) == 'device_map={"": 0} {missing}'


def test_excludes_rule_a_case_out() -> None:
    """KB0014 does not claim an index error raised by a position-embedding lookup."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/site-packages/transformers/models/bert/modeling_bert.py", line 217, in forward\n'
        "    position_embeddings = self.position_embeddings(position_ids)\n"
        "IndexError: index out of range in self\n"
    )
    assert not [m for m in doc_for(trace)["matches"] if m["slug"] == "embedding-index-out-of-range"]
    assert doc_for(trace.replace("position_embeddings = self.position_embeddings(position_ids)",
                                 "inputs_embeds = self.word_embeddings(input_ids)"))["matches"][0]["slug"] == \
        "embedding-index-out-of-range"


def test_rotary_hint_read_after_the_error() -> None:
    text = (
        "I met `RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
        "cpu and cuda:0! (when checking argument for argument mat2 in method wrapper_CUDA_bmm)`\n"
        "as I debugged, inv_freq is a cpu tensor, I wonder why this happened?\n"
    )
    assert doc_for(text)["matches"][0]["slug"] == "rotary-emb-left-on-cpu"
