"""Secrets that leaked through redaction in turn 48's measurement (issue 26; benchmarks/results/safe-turn48.txt's
"Left", safe-turn49's file for the numbers), each closed by its class:

- a random key whose lower-case runs are long by chance (``...kqczreh...cyyfo...``: ~1 % of random keys of 24-40
  characters): the runs of a word are syllables, a random key's are consonants (rules.random_word);
- a value that a table's cell cut (pandas' ``...``) whose head alone reads as no key (hex, one case, letters): the line
  is completed as the value would go on and searched in its context (``wandb login b958...``, ``"value": "Md...``);
- a named value's rest after a wrap, with more words after it on its line (``0: JQSbhpIqve trainer.max_steps=10``), or
  a wrap between the name and its separator (``--from-literal=HUB_PASSWORD`` / ``=VALUE``);
- a literal that a secret's type wraps (``SecretStr("...")``, ``String::from("...")``);
- a form body whose spaces in a row are as many ``+`` (``wandb%3A+++db_password+...``);
- a terminal sequence that a JSON escape spelled before a secret's context (a notebook's traceback: ``\\u001b[0;31mnet
  use``);
- a value loguru's ``diagnose`` prints under a secret-like name;
- commands whose positional value is the secret (``gh secret set NAME --body``, ``dvc remote modify R password``,
  ``poetry config http-basic.R USER PASSWORD``) and MLflow's param error (rules in tables/secrets.toml);
- a launcher's prefix relayed to the next line after a line that starts with ``name:``; a fold whose prefix (srun -l's
  ``0: ``) is missing before a line of the text's own; a key cut a few characters in (its head reads as a word).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from secret_corpus import forms

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.diagnose.redact import redact
from kb.diagnose.redact.rules import entropy
from kb.knowledge.index import load_index
from kb.render.diagnosis import format_diagnosis

PIECE = 8
MIXED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def leaked(secret: str, output: str) -> list[str]:
    return sorted(p for p in {secret[i:i + PIECE] for i in range(len(secret) - PIECE + 1)} if p in output)


def shown(text: str) -> str:
    doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_index()))
    return format_diagnosis(doc) + format_diagnosis(doc, full=True) + json.dumps(doc, ensure_ascii=False)


# ---- a random key whose lower-case runs are consonants


@st.composite
def consonant_keys(draw: st.DrawFn) -> str:
    """A random key of 24-40 characters whose lower-case letters come in runs of 3-8 consonants: the shape the old
    measure (runs shorter than 3 on average) read as words. Drawn from a seed (a shrunk draw of few distinct
    characters would be no random key)."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    size = draw(st.integers(24, 40))
    out = ""
    while len(out) < size:
        out += "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(rng.randint(1, 2)))
        out += "".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(rng.randint(3, 8)))
    return out[:size - 2] + "Q7"


@given(consonant_keys(), st.sampled_from(["upload to {} failed", "client {} (status 401)", "for {}<br>done"]))
@settings(max_examples=60, deadline=None)
@example("xTLCqLTuReihzDzyha3iuQFcckjvbsnN", "upload to {} failed")
@example("AKIAB1YAcoQwnAf00kqczreh10VGNonq9cyyfoKF", "upload failed for {} (401)")
def test_a_random_key_of_consonant_runs_is_masked(key: str, context: str) -> None:
    assume(entropy(key) >= 4.0)  # (the class is the runs' shape; a key of few distinct characters is another matter)
    text = f"RuntimeError: {context.format(key)}\n"
    assert not leaked(key, redact(text)), (text, redact(text))


def test_the_html_line_break_draw_hypothesis_found() -> None:
    """test_redaction_leaks47's draw: an AWS-prefixed key cut 4 characters after AKIA at a <br> (the key's body is
    mixed case: no AWS key id; the whole word is a random key that the run measure took for words)."""
    text = '<div class="output_error">RuntimeError: upload failed for AKIAB1YA<br>coQwnAf00kqczreh10VGNonq9cyyfoKF (401)</div>\n'
    assert not leaked("coQwnAf00kqczreh10VGNonq9cyyfoKF", redact(text))


@pytest.mark.parametrize("word", ["Wav2Vec2ForSequenceClassification", "modelWav2Vec2Qwen2Mistral",
                                  "getTrainingArgumentsFromConfig4", "LlamaForCausalLMWithValueHead2",
                                  "Qwen2VLForConditionalGeneration"])
def test_names_of_words_stay(word: str) -> None:
    text = f"AttributeError: module has no attribute {word}\n"
    assert redact(text) == text


# ---- a value that a table's cell cut


CELL = "   run_id                                           settings\n0      42  {}...\n"
CUT_CONTEXTS = [  # (context, the value's alphabet, its length)
    ('{{"name": "WANDB_API_KEY", "value": "{}', MIXED + "-", 17),
    ("wandb login {}", "0123456789abcdef", 40),
    ("poetry config http-basic.internal ci {}", MIXED, 32),
    ('setattr(args, "hub_token", "{}', "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 34),
    ('server.login("alerts@example.test", "{}', MIXED, 20),
    ("fsspec: s3://AKIAIOSFODNN7EXAMPLE:{}", MIXED + "/", 40),
    ("fatal: unable to access 'ssh://git:{}", MIXED, 20),
]


@given(st.sampled_from(CUT_CONTEXTS), st.integers(10, 37), st.integers(0, 2**32))
@settings(max_examples=80, deadline=None)
def test_a_value_a_cell_cut_is_masked_in_its_context(context: tuple[str, str, int], cut: int, seed: int) -> None:
    rng = random.Random(seed)  # (a seed, not hypothesis's text: a shrunk draw of one letter is no random key)
    template, alphabet, size = context
    value = "".join(rng.choice(alphabet) for _ in range(size))
    if alphabet.startswith("ABC") and "0" in alphabet:  # (a random key of this length has both cases and a digit)
        value = "aQ7" + value[3:]
    elif alphabet.isalpha() and alphabet != alphabet.lower():  # (turn 49, integration) a letters-only key: a head of
        # one case (CI's fixed profile drew "DUSMSEYVQK") is read as a word or a constant by the documented rule (a cut
        # head is masked when it looks random: a digit, or upper and lower case), as `hub_token = "YOUR_TOKEN..."` must
        # be; a random key of 34 letters has both cases, so the head is made to start with both
        value = "aQ" + value[2:]
    head = value[:min(cut, size - 2)]
    text = CELL.format(template.format(head))
    out = redact(text)
    assert not leaked(head, out), (text, out)


KEPT_CELLS = [  # cut cells that are no secrets: a module path, words, a commit in a pip freeze, a model id
    CELL.format("model.layers.0.self_attn.q_proj.lora_A"),
    CELL.format("Traceback (most recent call last): File"),
    CELL.format("peft @ git+https://github.com/huggingface/peft@24d64a82def0e78661af"),
    CELL.format('{"model": "meta-llama/Llama-3.1-8B-Instruct'),
    CELL.format("RuntimeError: CUDA error: device-side assert triggered"),
    # a URL that a quote's clip cut in its path (no user information: the completion adds no host; an address the
    # completion would make is no secret)
    "that is \"httpx2.HTTPStatusError: Client error '404 Not Found' for url "
    "'https://huggingface.co/someuser/merged-model/resolv\u2026\" on line 6",
    "(that is \"httpx2.HTTPStatusError: Client error '401 Unauthorized' for url "
    "'https://huggingface.co/my-org/llama-3-8b-sft-v2/resol\u2026\" on line 3)",
]


@pytest.mark.parametrize("text", KEPT_CELLS)
def test_a_cut_cell_that_holds_no_secret_stays(text: str) -> None:
    assert redact(text) == text


# ---- a named value's rest after a wrap with more words after it; a wrap before the separator


NAMED = [("+db.password=", " trainer.max_steps=10"), ("gpg --batch --passphrase ", " -d creds.gpg"),
         ("hub: {user: ci, password: ", ", push: true}"), ("config: {User:trainer Password:", " Host:db.internal}"),
         ('curl -H "PRIVATE-TOKEN: ', '" https://gitlab.example.test/api/v4/projects')]
PREFIXES = ["0: ", "wandb: ", "[rank0]: ", "(RayTrainWorker pid=48213, ip=10.0.4.7) "]


@given(st.sampled_from(NAMED), st.sampled_from(PREFIXES), st.integers(8, 14), st.integers(0, 2**32))
@settings(max_examples=60, deadline=None)
def test_a_named_value_wrapped_before_more_words_is_masked(named: tuple[str, str], prefix: str, cut: int,
                                                           seed: int) -> None:
    rng = random.Random(seed)
    name, after = named
    value = "aQ7" + "".join(rng.choice(MIXED) for _ in range(17))
    line = f"{prefix}ValueError: could not load the run's settings: {name}{value}{after}"
    at = line.index(value) + cut
    text = f"{line[:at]}\n{prefix}{line[at:]}\n"
    out = redact(text)
    assert not leaked(value, out), (text, out)
    assert after.split()[-1] in out  # the words after it stay


def test_a_wrap_between_two_workers_lines_is_no_name_and_value() -> None:
    """(a dev-set log: a line that ends in `access.` and the next worker's `[default1]:httpx2.HTTPStatusError: ...`,
    which a join read as `access.:httpx2...`: the name does not end the line, its `.` does)"""
    text = ("[default0]:Access to model google/gemma-2-2b-it is restricted. Visit https://huggingface.co/google/"
            "gemma-2-2b-it to ask for access.\n[default1]:httpx2.HTTPStatusError: Client error '403 Forbidden' for url "
            "'https://huggingface.co/google/gemma-2-2b-it/resolve/main/config.json'\n")
    assert redact(text) == text


def test_a_wrap_between_a_name_and_its_separator() -> None:
    text = ("\x1b[31mValueError: could not load the run's settings from the environment of worke\x1b[0m\n"
            "\x1b[31mr 3 (node gpu-07): kubectl create secret generic hub --from-literal=HUB_PASSWORD\x1b[0m\n"
            "\x1b[31m=uxw8HEmFX1D7JEiyzOFL\x1b[0m\n")
    assert not leaked("uxw8HEmFX1D7JEiyzOFL", redact(text))
    kept = "model_name_or_path: meta-llama/Llama-3.1-8B-Instruct and the tokenizer's max_length\n=2048 tokens\n"
    assert redact(kept) == kept


# ---- a literal a secret's type wraps; a form's +; an escaped colour; loguru; commands; MLflow


@pytest.mark.parametrize("text", [
    'Settings(db_password=SecretStr("gJMvIfPKaD4anBoDPIPFKnio"))\n',
    '<div>ValueError: Settings(db_password=SecretStr("gJMvIfPKaD4a<br>nBoDPIPFKnio"))</div>\n',
    '    password: String::from("gJMvIfPKaD4anBoDPIPFKnio"),\n',
])
def test_a_literal_a_secret_type_wraps(text: str) -> None:
    assert not leaked("gJMvIfPKaD4anBoDPIPFKnio", redact(text))


@given(st.integers(1, 6), st.sampled_from(["text=wandb%3A{}db_password+{}\n", "GET /report?q=wandb%3A{}db_password+{} HTTP/1.1\n"]))
@settings(max_examples=20, deadline=None)
def test_a_form_body_with_spaces_in_a_row(pluses: int, template: str) -> None:
    secret = "nTBPOWntzY0v2XFqYtazYFAs"
    text = template.format("+" * pluses, secret)
    assert not leaked(secret, redact(text)), text


def test_an_escaped_colour_before_a_secret_context() -> None:
    text = ('{"ename": "ValueError", "evalue": "x", "traceback": ["ValueError: \\u001b[0;31mnet use '
            '\\\\\\\\fileserver\\\\runs Nzq7WPaGOLucaYqOF6i7 /user:CORP\\\\trainer\\u001b[0m"]}\n')
    assert not leaked("Nzq7WPaGOLucaYqOF6i7", redact(text))


def test_a_value_loguru_prints_under_a_secret_name() -> None:
    secret = "SxySnQTEaNT5xaNDQ5kyArn9"
    plain = (f"    client.login(user, password, retries)\n    │            │     │         └ 3\n"
             f"    │            │     └ '{secret}'\n    │            └ 'alice'\n    └ <Client object>\n")
    out = redact(plain)
    assert not leaked(secret, out) and "'alice'" in out and "└ 3" in out
    logged = '{"log": "\\"    client.login(password)\\\\n    │            └ \'' + secret + '\'\\"", "stream": "stderr"}\n'
    assert not leaked(secret, redact(logged))
    kept = "    model.generate(max_new_tokens)\n    │              └ 512\n    └ <Model>\n"
    assert redact(kept) == kept


@pytest.mark.parametrize(("text", "secret"), [
    ('gh secret set UPLOAD_KEY --body "ydehAxIO8DDOouNujufxsok7OQEodkX26WQOs8la" --repo team/sft\n',
     "ydehAxIO8DDOouNujufxsok7OQEodkX26WQOs8la"),
    ("dvc remote modify --local storage password LUHulwDLLgww653v6EPHYug9\n", "LUHulwDLLgww653v6EPHYug9"),
    ("poetry config http-basic.internal ci PYUMZU85P31jBBuhfJVUOSCxaVGS6YBZ\n", "PYUMZU85P31jBBuhfJVUOSCxaVGS6YBZ"),
    ("mlflow.exceptions.MlflowException: Changing param values is not allowed. Param with key='db_password' was "
     "already logged with value='7Yur2ZrgqYjiYqiw97Abu8qE' for run ID='0f1e2d3c'. Attempted logging new value "
     "'hunter3xyz'.\n", "7Yur2ZrgqYjiYqiw97Abu8qE"),
])
def test_a_command_s_positional_secret(text: str, secret: str) -> None:
    assert not leaked(secret, redact(text))


@pytest.mark.parametrize("text", [
    "mlflow.exceptions.MlflowException: Param with key='lr' was already logged with value='0.001' for run ID='0f1e'.\n",
    "dvc remote modify --local storage url s3://bucket/path\n",
    "gh secret list --repo team/sft\n",
])
def test_commands_without_a_secret_stay(text: str) -> None:
    assert redact(text) == text


# ---- wraps: a relayed prefix, a fold's missing prefix, a key cut a few characters in


def test_a_prefix_relayed_after_a_name_and_colon_line() -> None:
    text = ('[rank1]: ValueError: could not load the run\'s settings: [remote "storage"]\nsecret_access_key: '
            'zeQGxFtBnAsbyO9gF9V9\n[rank1]: /lWCwHop7hdPslKUkd4D\n')
    assert not leaked("zeQGxFtBnAsbyO9gF9V9/lWCwHop7hdPslKUkd4D", redact(text))


_BASE64 = MIXED + "+/"


@given(st.integers(1, 6), st.integers(0, 2**32))
@settings(max_examples=40, deadline=None)
def test_an_aws_secret_cut_a_few_characters_in(cut: int, seed: int) -> None:
    rng = random.Random(seed)
    key = "aQ7/" + "".join(rng.choice(_BASE64) for _ in range(36))
    head = "RuntimeError: the upload of checkpoint-1" + "0" * (6 - cut) + " to "  # (a line of 50: fold -w 50)
    text = f"{head}{key[:cut]}\n{key[cut:]} failed\n"
    assert len(f"{head}{key[:cut]}") == 50
    out = redact(text)
    assert not leaked(key, out), (text, out)


# ---- the corpus forms closed, one by one (each leaked through redact() at aca22df3)

CLOSED = ["aws-secret-access-key@fold-50-t47", "aws-secret-access-key@wrap-after-token-t40", "pem-body-bare-ec@srun-fold-40-t42",
          "aws-secret-slash-first@comment-wrap-t41", "mistral-bare@fold-72-t47",
          "gitlab-private-token-header@html-br-wrap-t47", "k8s-env-json@pandas-truncated-t40",
          "go-struct-print@wandb-wrap-t40", "wandb-login-positional@pandas-truncated-t40",
          "dvc-remote-modify-t39@ray-prefix-wrap-t47", "poetry-config-t39@pandas-truncated-t40",
          "poetry-config-t39@html-br-wrap-t47", "gh-secret-set-t39@wandb-wrap-t40",
          "curl-user-key-empty-pass-t39@docker-json-split-t40", "setattr-t39@pandas-truncated-t40",
          "yaml-flow-mapping-t39@srun-label-wrap-t41", "azure-devops-pat-user-t39@pandas-truncated-t40",
          "kubectl-from-literal-t39@rich-soft-wrap-t39", "ipython-out-repr-t40@cdata-t42",
          "mlflow-key-value-t40@html-hex-upper-t42", "wandb-summary-row-t40@form-body-plus-t42",
          "wandb-summary-row-t40@url-plus-json-t47", "loguru-marker-t40@json-log-t38",
          "rust-string-from-t41@docker-json-split-t40", "pydantic-secretstr-arg-t41@html-br-wrap-t47",
          "smtp-login-t42@pandas-truncated-t40", "net-use-t42@ipynb-traceback-t39",
          "hydra-plus-override-t47@srun-label-wrap-t41", "s3-url-userinfo-t47@quoted-printable-t39",
          "s3-url-userinfo-t47@pandas-truncated-t40", "gpg-passphrase-t47@srun-label-wrap-t41",
          "ssh-url-userinfo-t47@pandas-truncated-t40", "ini-colon-t47@message-wrapped-rank"]


@pytest.fixture(scope="module")
def by_id() -> dict:
    wanted = set(CLOSED)
    return {f.id: f for f in forms() if f.id in wanted}


@pytest.mark.parametrize("fid", CLOSED)
def test_a_closed_form_shows_nothing(fid: str, by_id: dict) -> None:
    form = by_id[fid]
    assert not form.leaks(redact(form.text))
    assert not form.leaks(shown(form.text))
