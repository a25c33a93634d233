"""No secret from the input is printed, whole or in part, by any output of `kb diagnose` or `kb env` (issue 15).

Every form of secret is put where each output path shows input text: the error message (text and
JSON), a user frame's code, a nearby line shown as hint evidence, the headline quoted in "not the
root error (that is ...)", a JSON message cut at 1,000 characters, a frame's code cut at 300; and
`--env` with a password in an ``ACCELERATE_*`` URL. A secret counts as shown when any 10 characters of
its private part appear in the output. Runs in-process through kb's entry point (kb.cli.main).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.cli import main
from kb.diagnose.redact import clip, redact

HF = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWx12"
WANDB = "0123456789abcdef0123456789abcdef01234567"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
PAT = "github_pat_11ABCDEFG0ZYXWVUTSRQ_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ9876543210zy"
GHP = "ghp_" + "Zz9" * 12
OPENAI = "sk-proj-" + "Qw7" * 10
BEARER = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PASSWORD = "S3cretPassw0rd"
EMAIL = "alice.smith@mail-corp.test"
ENV_VALUE = "Vv8vV8vV8vV8vV8"
SECRETS = {"hf": HF, "wandb": WANDB, "aws-secret": AWS, "aws-id": AWS_ID, "github_pat": PAT, "ghp": GHP,
           "sk": OPENAI, "bearer": BEARER, "url-password": PASSWORD, "email": EMAIL, "env-value": ENV_VALUE}
PUBLIC_PREFIXES = ("github_pat_", "hf_", "ghp_", "sk-proj-", "AKIA")

# Every secret in one line of text, in the form it has in the wild.
ALL_FORMS = (f"token {HF} wandb {WANDB} aws_secret {AWS} id {AWS_ID} pat {PAT} ghp {GHP} key {OPENAI} "
             f"Authorization: Bearer {BEARER} url https://alice:{PASSWORD}@hub.example.com/m mail {EMAIL} "
             f"HF_TOKEN={ENV_VALUE}")
DTYPE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float"

SCENARIOS = {
    "message": f"{DTYPE}; {ALL_FORMS}\n",
    "user frame code": ("Traceback (most recent call last):\n"
                        f'  File "/w/train.py", line 12, in <module>\n    run("{ALL_FORMS}")\n'
                        '  File "/usr/lib/python3.11/site-packages/torch/nn/functional.py", line 9, in linear\n'
                        "    return torch.matmul(a, b)\n" + DTYPE + "\n"),
    "hint evidence line": (f"numpy float64 {ALL_FORMS}\n"
                           "Traceback (most recent call last):\n"
                           '  File "/w/model.py", line 287, in forward\n'
                           "    embedding = torch.matmul(label, self.label_weight)\n" + DTYPE + "\n"),
    "root headline": f"ValueError: {ALL_FORMS}\n{DTYPE}\n",
    "message cut at 1000": "ValueError: " + "x" * 961 + f" {WANDB} tail\n{DTYPE}\n",
    "headline cut at 120": "ValueError: " + "y" * 94 + f" {HF} end\n{DTYPE}\n",
    "code cut at 300": ("Traceback (most recent call last):\n"
                        f'  File "/w/train.py", line 12, in <module>\n    {"z" * 284} {HF}\n' + DTYPE + "\n"),
    "context cut at 300": "numpy " + "q" * 284 + f" {AWS}\n{DTYPE}\n",
    "exception type": f"{HF}Error: boom\n",
}


def shown(text: str) -> list[str]:
    """The secrets of which ``text`` shows 10 characters or more (past their public prefix)."""
    found = []
    for name, secret in SECRETS.items():
        private = secret
        for prefix in PUBLIC_PREFIXES:
            private = private.removeprefix(prefix)
        if any(private[i:i + 10] in text for i in range(len(private) - 9)):
            found.append(name)
    return found


def run_kb(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("mode", [[], ["--format", "json"]], ids=["text", "json"])
def test_no_secret_is_shown_by_diagnose(tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: str,
                                        mode: list[str]) -> None:
    log = tmp_path / "err.log"
    log.write_text(SCENARIOS[scenario])
    code, out = run_kb(["diagnose", str(log), *mode], capsys)
    assert code in (0, 1), out
    assert shown(out) == [], f"{scenario}: {shown(out)} shown in\n{out}"
    if mode:
        json.loads(out)


@pytest.mark.parametrize("mode", [["--env"], ["--env", "--format", "json"]], ids=["env-text", "env-json"])
def test_no_secret_is_shown_with_env(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch, mode: list[str]) -> None:
    """`--env` adds the `kb env` report: an ACCELERATE_* URL with a password, an e-mail in another variable."""
    monkeypatch.setenv("ACCELERATE_CONFIG_URL", f"https://alice:{PASSWORD}@cfg.example.com/c.yaml")
    monkeypatch.setenv("ACCELERATE_CONTACT", EMAIL)
    log = tmp_path / "err.log"
    log.write_text(SCENARIOS["user frame code"])
    code, out = run_kb(["diagnose", str(log), *mode], capsys)
    assert code == 0, out
    assert shown(out) == [], out


@pytest.mark.parametrize("mode", [[], ["--format", "json"]], ids=["text", "json"])
def test_kb_env_shows_no_url_password(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                      mode: list[str]) -> None:
    monkeypatch.setenv("ACCELERATE_CONFIG_URL", f"https://alice:{PASSWORD}@cfg.example.com/c.yaml")
    monkeypatch.setenv("ACCELERATE_CONTACT", EMAIL)
    code, out = run_kb(["env", *mode], capsys)
    assert code == 0, out
    assert "ACCELERATE_CONFIG_URL" in out
    assert shown(out) == [], out


def test_every_form_is_redacted_and_the_rest_kept() -> None:
    text = redact(ALL_FORMS)
    assert shown(text) == [], text
    for kept in ("token", "wandb", "Authorization: Bearer ***", "https://alice:***@hub.example.com/m", "mail ***@***"):
        assert kept in text


@pytest.mark.parametrize("prose", [
    "the token embeddings were resized to 32000",
    "a basic training loop with Bearer of bad news",
    "/usr/local/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py",
    "checkpoints/step-1000/adapter_model.safetensors",
    "torch.Size([4096, 4096]) at 0x7f3a2b1c4d50",
])
def test_ordinary_text_is_left_alone(prose: str) -> None:
    assert redact(prose) == prose


def test_clip_never_leaves_part_of_a_token() -> None:
    text = "x" * 100 + " " + HF
    for limit in range(95, len(text)):
        cut = clip(text, limit)
        assert len(cut) <= limit + 1
        assert HF[:6] not in cut or HF in cut
    assert clip("short", 10) == "short"
