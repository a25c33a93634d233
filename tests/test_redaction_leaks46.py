"""Issue 26, turn 46 (leaks46): redaction's leftovers from turn 45's review, its remaining leak classes and its cost
(benchmarks/results/hostile-turn46-leaks.txt).

- A password flag's ``-p`` belongs to the command right before it: after a login, another command's ``-p`` (ssh's
  port, docker run's published port, mkdir's parents) is no password, nor is anything after a shell's separator; and
  prose that names the flag (``the -p flag``, ``--password option``) holds no value.
"""

from __future__ import annotations

import pytest

from kb.diagnose.redact import redact

# a login, then another command whose -p is no password (tables/secrets.toml: password-short-flag, login-command-secret)
NOT_A_PASSWORD = [
    "sshpass -f ~/.pw ssh -p 2222 trainer@gpu-box",
    "kubectl login then ssh -p 2222 gpu-box",
    "az login && ssh -p 2222 trainer@gpu-box",
    "docker login registry.example.com; docker run -p 8080:80 trainer:latest",
    "gcloud auth login; mkdir -p /workspace/checkpoints",
    "mysql -u trainer -h db; scp -P 2200 model.bin gpu-box:/data",
    "docker login -u trainer && docker run -p 127.0.0.1:6006:6006 tensorboard",
]
PROSE = [
    "after docker login, use the -p flag to pass the password",
    "docker login -p flag is insecure, use --password-stdin",
    "docker login --password option is deprecated",
    "huggingface-cli login --token argument is read from HF_TOKEN when omitted",
    "mysql -p option prompts for the password",
]


@pytest.mark.parametrize("text", NOT_A_PASSWORD + PROSE)
def test_another_commands_p_or_prose_naming_the_flag_stays(text: str) -> None:
    assert redact(text) == text


# and the password each of those rules exists for is still masked, the same command lines with a password
SECRETS = [
    ("sshpass -p Tr0ub4dorX3 ssh -p 2222 trainer@gpu-box", "Tr0ub4dorX3", "-p 2222"),
    ("docker login -u trainer -p Tr0ub4dorX3 registry.io && docker run -p 8080:80 img", "Tr0ub4dorX3", "-p 8080:80"),
    ("docker login -p flagpole77 registry.io", "flagpole77", None),
    ("mysql -u root -pS3cretPw7 training_db", "S3cretPw7", None),
    ("hf auth login --token hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", None),
    ("az login -u trainer -p correcthorse", "correcthorse", None),
]


@pytest.mark.parametrize(("text", "secret", "kept"), SECRETS)
def test_the_login_password_is_still_masked(text: str, secret: str, kept: str | None) -> None:
    out = redact(text)
    assert secret not in out
    if kept is not None:
        assert kept in out

