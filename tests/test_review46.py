"""review46 (turn 46): defects found in what turn 46 merged, each with the test that failed before its fix
(benchmarks/results/review-turn46.txt says where each was found and how)."""

from __future__ import annotations

import pytest
from rules_support import families, top

# ---- 1. 卡 is also a GPU ("显卡", "多卡", "8卡"): "多卡在训练时报错" is "on several GPUs, an error during training" ----------
# mix46's Chinese hang rule (tables/priors.toml, block mix46) and mix37's read "卡在" ("stuck at") wherever it stood, so a
# title that names the cards and then says where something happened (在 + 训练时, "during training") answered hang.


@pytest.mark.parametrize("title", [
    "双卡在微调时报错",  # two cards, an error while fine-tuning
    "单卡训练正常，多卡在训练时报错",  # one card trains, several raise an error
    "显卡在训练时温度过高",  # the GPU runs hot during training
    "A100显卡在训练时利用率很低",  # low utilisation
    "显卡在微调时掉卡",  # the GPU drops off the bus
    "多卡在用deepspeed训练lora时报错",  # (mix37's rule, which asks a word of the stack)
])
def test_a_card_then_where_it_was_is_no_hang(title: str) -> None:
    assert "hang" not in families(title + "\n")


@pytest.mark.parametrize("title", [
    "训练卡在第一个step",  # stuck at the first step
    "多卡训练时一直卡在加载模型",  # several cards, stuck loading the model: 卡在 after 一直
    "显卡训练卡在0%",  # stuck at 0%
    "用deepspeed训练lora卡在tokenizer",  # (mix37's rule)
])
def test_stuck_at_still_says_hang(title: str) -> None:
    assert top(title + "\n") == ("hang", "family-keyword")


# ---- 2. A test file that the sources and docs name exists ------------------------------------------------------------
# kb/knowledge/fallback_pack.py (speed46) said its verdicts were checked by tests/test_fallback_pack.py, which no commit
# wrote: the checks are tests/test_startup_fallback.py's. A reader who looks for the proof of a claim finds the file.

def test_every_test_file_the_sources_and_docs_name_exists() -> None:
    import re
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    texts = [*repo.glob("kb/**/*.py"), *repo.glob("docs/**/*.md"), *repo.glob("families/*.md"), *repo.glob("tables/*.toml"),
             repo / "README.md", repo / "ARCHITECTURE.md"]
    named = {m for path in texts for m in re.findall(r"tests/[A-Za-z0-9_/]+\.py", path.read_text(encoding="utf-8"))}
    assert len(named) > 20
    assert sorted(n for n in named if not (repo / n).exists()) == []


# ---- 3. "overflow" is not always float16's: Stack Overflow, an integer's, a buffer's, a text's ------------------------
# qa46's half-precision rule (tables/priors.toml, block qa46) answered loss-nan for any title with fp16 and the word
# overflow; a forum title names the site Stack Overflow, and an integer, a buffer or a text overflows too. None of these
# was answered before qa46.


@pytest.mark.parametrize("title", [
    "stack overflow answer: how to use fp16 with peft lora",
    "Question from StackOverflow: fp16 training of llama with the transformers Trainer",
    "integer overflow in tokenizer when using fp16 model with transformers",
    "buffer overflow in bitsandbytes 8-bit optimizer with fp16",
    "fp16 fine-tuning llama: text overflows the context window",
    "token ids overflow int16 when saving dataset for fp16 training with transformers",
])
def test_an_overflow_that_is_not_float16s_is_no_loss_nan(title: str) -> None:
    assert "loss-nan" not in families(title + "\n")


@pytest.mark.parametrize("title", [
    "fp16 overflow when fine-tuning llama with lora",
    "float16 values overflow to inf in llama attention with transformers",
    "Gradient overflow with fp16 deepspeed lora, skipping step",
])
def test_float16_overflow_still_says_loss_nan(title: str) -> None:
    assert top(title + "\n") == ("loss-nan", "family-keyword")


# ---- 4. Hugging Face's other services are not the Hub's downloads ------------------------------------------------------
# qa46's hub-access title rule (authentication + a Hub word, "hugging face" among them) answered "cannot download the
# model from the Hub" for titles about a Space's OAuth, the Inference API, a model server's own authentication or an
# account's two-factor login, none of which the family (families/hub-access.md: from_pretrained / hf_hub_download could
# not get the files) covers. None was answered before qa46.


@pytest.mark.parametrize("title", [
    "authentication with Hugging Face Spaces OAuth in gradio app",
    "Authorization error when calling the Hugging Face Inference API from my app",
    "from_pretrained works, but authentication to my private vLLM server fails",
    "two-factor authentication for my huggingface account is broken",
])
def test_authentication_to_another_hugging_face_service_is_no_hub_access(title: str) -> None:
    assert "hub-access" not in families(title + "\n")


@pytest.mark.parametrize("title", [
    "Gemma 3 Authentication Issue With `hf_hub_download`",
    "huggingface hub authentication failed when loading mistral 7b",
    "Authentication error with from_pretrained for llama 3 on a server behind a proxy",
])
def test_hub_download_authentication_still_says_hub_access(title: str) -> None:
    assert top(title + "\n") == ("hub-access", "family-keyword")


# ---- 5. A password after a flag whose value is a command's name is still a password ------------------------------------
# leaks46 stopped password-short-flag and login-command-secret (tables/secrets.toml) at another command's name between the
# client and its -p ("kubectl login then ssh -p 2222": ssh's port), but any word counted: a user name, a host or a
# database named git, read, run or python, given to the client's own flag, let the password through ("mysql -u git
# -pSECRET"; masked before leaks46). A command's name that is a flag's value (-u git, --user git, --user=git) is not
# another command. The tokens are made up.

from kb.diagnose.redact import redact  # noqa: E402

LEAKED = [
    ("mysql -u git -pQx7vRt2LmZ9w", "Qx7vRt2LmZ9w"),
    ("mysql -h db.internal -u read -p Qx7vRt2LmZ9w", "Qx7vRt2LmZ9w"),
    ("mysql --user=git -pQx7vRt2LmZ9w", "Qx7vRt2LmZ9w"),
    ("mysql --user git -pQx7vRt2LmZ9w", "Qx7vRt2LmZ9w"),
    ("docker login registry.example.com -u python -p Qx7vRt2LmZ9w", "Qx7vRt2LmZ9w"),
    ("docker login registry.example.com --username python -p Qx7vRt2LmZ9w", "Qx7vRt2LmZ9w"),
]


@pytest.mark.parametrize(("text", "secret"), LEAKED)
def test_a_password_after_a_flag_whose_value_names_a_command_is_masked(text: str, secret: str) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize("text", [
    "sshpass -f ~/.pw ssh -p 2222 trainer@gpu-box",
    "kubectl login then ssh -p 2222 gpu-box",
    "docker login -u trainer && docker run -p 127.0.0.1:6006:6006 tensorboard",
])
def test_another_commands_p_after_a_login_still_stays(text: str) -> None:
    assert redact(text) == text
