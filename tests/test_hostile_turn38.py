"""Issue 26, turn 38's held-out red team: the classes its forms found, as properties and regressions.

The forms stay in tests/fixtures/secrets/forms.toml (entries with ``turn = 38``) and benchmarks/hostile_io_t38.py (the
command line). Here: every turn-38 form through redact() and a fixed sample of them through `kb diagnose` (the whole
corpus's pipeline run is tests/test_redaction_corpus.py's, for the earlier forms); a token wrapped under any prefix
both lines share (journald, pytest's ``E   ``, a mail quote), a shell's ``\\`` continuation or Python's ``... ``; a
launcher prefix on the next line only (the parser took the first line's off with the error's type); a JSON string's
``\\n`` inside a token; values on the next line (YAML block scalars, pretty JSON); full-width and look-alike names;
an OSC's text; URL-escaped UTF-8; the turn's vendor shapes; the tool-flag rules linear; the cache not trusting a
planted FIFO and not failing on a path too deep for makedirs; tokens in `kb env`'s launch variables not printed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hostile_support import (CUTTABLE, PREFIXED, SETTINGS, alone, cut_token, diagnose_leaks, redact_leaks, run_kb, sample,
                             turn_forms)
from kb.diagnose.redact import redact
from test_redaction_properties import shown, tokens
from timing_support import assert_linear

T38 = turn_forms(38)  # (turn 39's forms: tests/test_hostile_turn39.py; turn 40's: test_hostile_turn40.py)
NEW = [s for s in PREFIXED if s.get("turn") == 38]
VALUE = st.text("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", min_size=16, max_size=32).filter(
    lambda v: any(c.isdigit() for c in v) and any(c.isupper() for c in v) and any(c.islower() for c in v))


_cut = cut_token


def test_every_turn38_form_is_redacted() -> None:
    leaked = redact_leaks(T38)
    assert len(T38) > 5000
    assert not leaked, f"{len(leaked)} of {len(T38)} leak: {sorted(leaked.items())[:8]}"


def test_a_sample_of_turn38_forms_prints_no_secret_through_diagnose() -> None:
    """One form in six (fixed by its id's CRC), every class represented, through the pipeline, text and JSON."""
    chosen = sample(T38, 6)
    assert {f.cls for f in chosen} == {"S1", "S2", "S3", "S4", "S5"}
    leaked = diagnose_leaks(chosen)
    assert not leaked, f"{len(leaked)} of {len(chosen)} leak: {sorted(leaked.items())[:8]}"


# turn-38 contexts and placements whose secret kb's output never shows, redacted or not (measured with redaction off):
# a shell trace's or git's line, a rich locals panel, a Python prompt's statement, a JSON document's or a coloured
# settings line that is no error message, an OSC's text (textclean drops it whole)
QUIET = {"git-remote-error", "go-json-t38", "hf-cli-trace", "json-log-t38", "osc-title", "osc-title-t38",
         "osc8-hyperlink", "python-prompt-wrap", "rich-locals", "rich-locals-t38", "sgr-kv-t38", "shell-continuation-wrap",
         "shell-continuation-wrap-t38", "url-encoded-t38", "wandb-login-trace"}


def test_each_turn38_context_carries_its_secret_without_redaction(monkeypatch: pytest.MonkeyPatch) -> None:
    """The control for the sample above: with redaction off, each new context and placement shows its secret
    (those listed in QUIET excepted: kb's output quotes none of their lines, or its cleaning drops an OSC's text
    whole; redact() alone is their test), so the sample's passing proves something."""
    import kb.diagnose.redact as redaction
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.document import diagnosis_document
    from kb.knowledge.index import load_index
    from kb.render.diagnosis import format_diagnosis

    knowledge = load_index()
    monkeypatch.setattr(redaction, "secret_spans", lambda text: [])
    carried: dict[str, bool] = {}
    for form in T38:
        shape, place = form.id.split("@")
        if shape not in ("github-pat", "env-kaggle", "kwarg-api-key", "huggingface", "slack-bot") or place in QUIET:
            continue
        doc = diagnosis_document(diagnose_lines(form.text.splitlines(keepends=True), knowledge))
        out = format_diagnosis(doc) + format_diagnosis(doc, full=True) + json.dumps(doc, ensure_ascii=False)
        carried[place] = carried.get(place, False) or bool(form.leaks(out))
    assert len(carried) >= 16 and all(carried.values()), {k: v for k, v in carried.items() if not v}


@given(token=tokens(CUTTABLE), cut=st.floats(0.0, 1.0), prefix=st.sampled_from(
    ["May 01 12:00:0{d} gpu-host python[1234]: ", "E   ", "> ", "| ", "worker-3 :: ", "[2024-05-01 12:00:0{d}] INFO ",
     "{d}|trainer| ", "(pid={d}) "]), digit=st.integers(0, 9))
@SETTINGS
def test_a_token_wrapped_under_a_prefix_both_lines_share_never_shows(token: tuple[str, str], cut: float, prefix: str,
                                                                      digit: int) -> None:
    tok, body = token
    first = prefix.replace("{d}", "1")
    text = f"{first}RuntimeError: the upload of the checkpoint to the hub failed: client {tok} was rejected\n"
    text = _cut(text, tok, body, cut, "\n" + prefix.replace("{d}", str(digit)))
    assert not shown(body, redact(text), prefix)


@given(token=tokens(CUTTABLE), cut=st.floats(0.0, 1.0), indent=st.sampled_from(["", "  ", "    ", "\t"]),
       prompt=st.booleans())
@SETTINGS
def test_a_token_cut_by_a_shell_continuation_or_a_python_prompt_never_shows(token: tuple[str, str], cut: float,
                                                                           indent: str, prompt: bool) -> None:
    tok, body = token
    if prompt:
        text = _cut(f">>> client = Client(token='{tok}')\nValueError: rejected\n", tok, body, cut, "\n... ")
    else:
        text = _cut(f"+ curl -fsS https://api.example.test/up -d client={tok} -o out.json\n", tok, body, cut,
                    "\\\n" + indent)
    assert not shown(body, redact(text))


@given(token=tokens(CUTTABLE), cut=st.floats(0.0, 1.0), bracket=st.sampled_from(["[pod/trainer-0/trainer] ",
                                                                                "[rank3]: ", "(RayTrainWorker pid=7) "]))
@SETTINGS
def test_a_wrapped_message_whose_first_prefix_is_gone_never_shows(token: tuple[str, str], cut: float,
                                                                   bracket: str) -> None:
    """The parser takes the first line's launcher prefix off with the error's type: only the next line has it."""
    tok, body = token
    text = _cut(f"NCCL error in upload to {tok} failed", tok, body, cut, "\n" + bracket)
    assert not shown(body, redact(text), bracket)


@given(token=tokens(CUTTABLE), cut=st.floats(0.0, 1.0))
# (fix49) hypothesis's local draw: a Twitter bearer token (its URL escapes %2B, %3D its own characters) cut 4 in;
# tests/test_redaction_fix49.py has the class
@example(token=("AAAAAAAAAAAAAAAAAAAAAMq2zdYHZX4qUxXPruSnp%2BIrDOsruBwaozIjsVCm4c455m%3DtdIKOJDOQa3ycdbQdvU2pPjOtn1rmgZ7ERTODD"
                "ItcdcSMG", "Mq2zdYHZX4qUxXPruSnp%2BIrDOsruBwaozIjsVCm4c455m%3DtdIKOJDOQa3ycdbQdvU2pPjOtn1rmgZ7ERTODDItcdcSMG"),
         cut=0.0)
@SETTINGS
def test_a_json_line_end_inside_a_token_never_shows(token: tuple[str, str], cut: float) -> None:
    """A JSON log's message as the parser keeps it: a literal backslash-n where a line of full width was cut, no
    real line end."""
    tok, body = token
    text = f"the upload of the checkpoint to the hub failed: client {tok} was rejected"
    assert not shown(body, redact(_cut(text, tok, body, cut, "\\n")))


@given(value=VALUE, name=st.sampled_from(["password", "api_key", "hub_token", "client_secret"]),
       indicator=st.sampled_from(["|", "|-", ">", ">-", "|+", ""]), indent=st.sampled_from(["  ", "    ", "\t"]),
       quote=st.sampled_from(["", '"', "'"]))
@SETTINGS
def test_a_value_on_the_next_line_never_shows(value: str, name: str, indicator: str, indent: str, quote: str) -> None:
    if indicator and quote:
        return  # a block scalar's text is not quoted
    yaml = f"{name}: {indicator}\n{indent}{quote}{value}{quote}\nother: 1\n"
    pretty = f'{{\n  "{name}":\n{indent}"{value}"\n}}\n'
    for text in (yaml, pretty, yaml.replace("\n" + indent, "\n") if indicator else pretty.replace(indent, "")):
        assert value not in redact(text), text


def test_a_mapping_or_a_list_on_the_next_line_is_not_a_value() -> None:
    for text in ("password:\n  min_length: 8\n", "token:\n  - a\n", "api_key:\n  type: bearer\n",
                 "password:\n  {{ vault_password }}\n"):
        assert redact(text) == text


_LOOK = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "s": "\u0455", "i": "\u0456"}


@given(value=VALUE, name=st.sampled_from(["password", "secret", "api_key", "access_token", "passphrase"]),
       swaps=st.lists(st.integers(0, 20), max_size=3), width=st.booleans(), sep=st.sampled_from(["=", ": ", " = "]))
@SETTINGS
def test_a_full_width_or_look_alike_name_never_hides_its_value(value: str, name: str, swaps: list[int], width: bool,
                                                              sep: str) -> None:
    chars = list(name.upper() if width else name)
    for i in {k % len(chars) for k in swaps}:
        chars[i] = chr(ord(chars[i]) + 0xFEE0) if width and chars[i] != "_" else _LOOK.get(chars[i], chars[i])
    text = f"ValueError: bad settings: {''.join(chars)}{sep}{value}\n"
    assert value not in redact(text)


@given(token=tokens(PREFIXED), number=st.sampled_from(["0;", "2;", "8;;https://x.test/?t=", "1337;File="]),
       end=st.sampled_from(["\x07", "\x1b\\"]))
@SETTINGS
def test_a_token_inside_an_osc_never_shows(token: tuple[str, str], number: str, end: str) -> None:
    tok, body = token
    assert not shown(body, redact(f"\x1b]{number}{tok}{end}RuntimeError: failed\n"))


def test_url_escaped_utf8_names_are_read() -> None:
    from urllib.parse import quote

    for name in ("ＰＡＳＳＷＯＲＤ", "p\u0430ssword"):
        text = "GET /cb?state=" + quote(f"{name}=Zq8Wm2Lp5Rt9Xv3B", safe="") + " HTTP/1.1"
        assert "Zq8Wm2Lp5Rt9Xv3B" not in redact(text)


@pytest.mark.parametrize("shape", NEW, ids=[s["id"] for s in NEW])
def test_each_new_vendor_shape_is_redacted_standing_alone(shape: dict) -> None:
    text, body = alone(shape)
    assert not shown(body, redact(text))


@pytest.mark.parametrize("text", [
    "ValueError: the map of 'API-KEY-ROTATION' failed", "peak-memory-allocated as-is", "pa-ckage", "1//01/2024",
    "00Dxx0000001gPF!not a token", "local-rank 0", "sgp_value = 3", "t1.small instance", "EAAA block",
])
def test_words_near_the_new_shapes_are_kept(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("fragment", ["zip ", "login ", "sqlplus ", "mysql -x ", "curl ", "keytool ", "7z ",
                                      "password:\n  ", "api_key: |\n", "\x1b]0;", "\x1b[ h", "ＰＡＳＳＷＯＲＤ=",
                                      "%EF%BC%B0", "E   " + "aB3" * 15 + "\n", "> " + "aB3" * 15 + "\n",
                                      "aB3" * 15 + "\\\n", ">>> " + "aB3" * 15 + "\n... ",
                                      "May 01 12:00:00 h p[1]: " + "aB3" * 15 + "\n", "wandb login ", "xoxc-"])
def test_the_turns_constructs_stay_linear(fragment: str) -> None:
    """64 KiB and 256 KiB of each: under 3 CPU seconds a MB (tests/test_adversarial_time.py's bound), and the larger
    not more than 6 times the time of the smaller (linear, with room for a loaded machine)."""
    assert_linear(redact, fragment)


_kb = run_kb


def test_a_fifo_planted_as_the_cache_file_does_not_block(tmp_path: Path) -> None:
    log = tmp_path / "t.log"
    log.write_text("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "KB_CACHE_DIR": ""}
    assert _kb(["list"], env).returncode == 0  # kb writes its cache files
    planted = [p for p in (tmp_path / "cache" / "kb").iterdir() if p.is_file()]
    assert planted
    for path in planted:
        path.unlink()
        os.mkfifo(path)
    proc = _kb(["diagnose", str(log)], env, timeout=30)
    assert proc.returncode == 0 and b"KB" in proc.stdout


def test_a_cache_folder_too_deep_for_makedirs_means_no_cache(tmp_path: Path) -> None:
    log = tmp_path / "t.log"
    log.write_text("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n")
    proc = _kb(["diagnose", str(log)], {"KB_CACHE_DIR": str(tmp_path) + "/a" * 3000})
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr


def test_kb_env_prints_no_turn38_token_from_launch_variables() -> None:
    token = "xoxc-123456789012-123456789012-1234567890123-" + "a1b2c3d4e5f60718" * 4
    for fmt in ("text", "json"):
        proc = _kb(["env", "--format", fmt], {"ACCELERATE_MIXED_PRECISION": token, "MASTER_ADDR": "nfp_" + "Zq8Wm2Lp5R" * 4})
        shown_out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        assert "a1b2c3d4e5f60718" not in shown_out and "Zq8Wm2Lp5R" not in shown_out


def test_textclean_drops_an_osc_ended_by_st_whole() -> None:
    from kb.diagnose.textclean import ANSI

    line = "see \x1b]8;;https://hub.test/?t=abc\x1b\\the run\x1b]8;;\x1b\\ now \x1b]0;title\x07done"
    assert ANSI.sub("", line) == "see the run now done"


def test_many_shell_continuations_redact_in_linear_time() -> None:
    """review38: each match scanned every join of the view; a script of many `\\` continuations went quadratic
    (500 KB: 8 s). The joins inside a match are now found by bisection."""

    from kb.diagnose.redact import redact

    fragment = "export HF_TOKEN=hf_abcdefghijklmnop\\\n  qrstuvwxyz "
    assert_linear(redact, fragment)  # (was one run of ~500 KB under a fixed 4 s: review40)
    out = redact(fragment * 1000)
    assert "qrstuvwxyz" not in out and "hf_abcdefghijklmnop" not in out


@pytest.mark.parametrize("brk", ["\r", "\n", "\r\n"])
def test_a_salesforce_id_cut_right_after_its_bang_shows_no_head(brk: str) -> None:
    """Found by hypothesis in CI (turn 38's last commit): ``00D…!`` then a wrap; the head before the wrap showed."""
    head, rest = "00DMq2zdYHZX4qU!", "Ab3dEf9hIjK2LmNoPq4sTuVwXyZ" * 4
    text = "RuntimeError: upload failed for yyyyy " + head + brk + rest[:96] + " (status 401)\n"
    out = redact(text)
    assert "Mq2zdYHZX4qU" not in out and rest[:20] not in out, out


def test_a_sentence_ending_in_a_bang_masks_nothing() -> None:
    text = "RuntimeError: upload failed for checkpoint12345!\nEpoch 3 done\n"  # joined, nothing masked
    assert redact(text) == text
