"""Issue 26, turn 42 (wrap42's hostile set of wraps, S4; hostile42's other classes: tests/test_hostile_turn42.py): tokens wrapped under line prefixes and in narrow panes, through
redact() and through `kb diagnose`.

The forms stay in tests/fixtures/secrets/forms.toml (entries with ``turn = 42``: pdsh, GNU parallel --tag, kubectl
logs --prefix, docker compose, journald, RFC 5424 syslog, GitHub Actions' timestamp, ##[error] and ##[group], a
logging format's time and level, a clock, a `\\` continuation, a soft hyphen, a tab continuation, panes of 40, 60 and
132 columns, srun -l over a 40-column pane); the first score and what was fixed are in
benchmarks/results/hostile-turn42.txt. The class fixed: what the pipeline quotes of an error (its message, headline,
user frame, a nearby line, a capture, the drift section, the JSON document) is redacted with the raw input lines it came
from (kb/diagnose/quoted.py), so a token that a label or a narrow pane cut into pieces is masked in every piece; and
redaction reads a logging format's level after each line's time as part of the prefix.
"""

from __future__ import annotations

import json
import tomllib

import pytest

from hostile_support import diagnose_leaks, redact_leaks, sample, turn_forms
from secret_corpus import CORPUS
from kb.diagnose.redact import redact
from test_redaction_properties import shown
from timing_support import assert_linear_on

# wrap42's contexts and placements (ids after a form's `@`), crossed with the shapes and names of the turns before 42
# (a shape or name another helper of turn 42 adds is crossed with them too: counted in that helper's score, not here)
WRAP42 = frozenset({
    "pdsh-prefix-wrap-t42", "parallel-tag-wrap-t42", "kubectl-prefix-wrap-t42", "compose-prefix-wrap-t42",
    "journald-prefix-wrap-t42", "syslog-5424-wrap-t42", "gha-timestamp-wrap-t42", "gha-error-wrap-t42",
    "gha-group-wrap-t42", "logging-level-wrap-t42", "clock-prefix-wrap-t42", "backslash-continuation-t42",
    "soft-hyphen-wrap-t42", "tab-continuation-t42", "fold-40-t42", "fold-60-t42", "fold-132-t42", "srun-fold-40-t42",
})
_DATA = tomllib.loads(CORPUS.read_text(encoding="utf-8"))
_NEW = {e["id"] for e in (*_DATA["shape"], *_DATA["named"]) if e.get("turn", 0) >= 42}
T42 = [f for f in turn_forms(42) if f.id.split("@")[1] in WRAP42 and f.id.split("@")[0] not in _NEW]

# Turn 42's forms that redact() still leaks (benchmarks/results/hostile-turn42.txt, "Known gaps"): listed so that a new
# leak fails this test and a gap closed is noticed (then take it off the list). By class: a value beside a name whose
# rest, under a launcher's prefix, does not read as a token's rest (FTP's PASS, configparser's set, curl -u KEY:, a
# WireGuard key); srun -l's label over a 40-column pane with a value that has spaces or a name cut inside itself.
# (turn 48 closed the PEM bodies folded at 40 or 60 columns: tests/test_redaction_leaks48.py; left, one under srun -l)
GAPS: set[str] = set(  # (turn 49 closed the last forms of this list: tests/test_redaction_leaks49.py)
)


def test_every_turn42_form_is_redacted_but_the_named_gaps() -> None:
    leaked = set(redact_leaks(T42))
    assert len(T42) > 2000
    assert leaked <= GAPS, f"{len(leaked - GAPS)} new leaks: {sorted(leaked - GAPS)[:10]}"
    assert GAPS <= {f.id for f in T42}, sorted(GAPS - {f.id for f in T42})
    closed = GAPS - leaked
    assert not closed, f"gaps closed, take them off GAPS: {sorted(closed)}"


def test_turn42_forms_print_no_secret_through_diagnose() -> None:
    """One form in four (fixed by its id's CRC), every context and placement represented, through the pipeline, text
    and JSON. At the first score 470 of the 2,452 forms leaked here (pdsh's host, syslog's header, parallel's tag and
    ##[error] read off each line; a 40-column pane's first line without its type)."""
    chosen = sample(T42, 4, GAPS)
    assert len(chosen) > 500 and len({f.id.split("@")[1] for f in chosen}) == 18  # (placements share contexts' ids)
    leaked = diagnose_leaks(chosen)
    assert not leaked, f"{len(leaked)} of {len(chosen)} leak: {sorted(leaked.items())[:8]}"


def _shown_by_diagnose(text: str) -> str:
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.document import diagnosis_document
    from kb.knowledge.index import load_index
    from kb.render.diagnosis import format_diagnosis

    doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_index()))
    return format_diagnosis(doc) + format_diagnosis(doc, full=True) + json.dumps(doc, ensure_ascii=False)


TOKEN = "ghp_Qw7Er5Ty3Ui1Op9As8Df6Gh4Jk2Lz0XcVbNm"
BODY = TOKEN[4:]
ALIBABA = "LTAI5tQw7Er5Ty3Ui1Op9As8"  # an Alibaba Cloud AccessKey ID: neither piece of a cut one reads as one alone


@pytest.mark.parametrize("prefix", ["0: ", "gpu-node07: ", "lr=2e-05\t", "##[error]", "[rank3]: ",
                                    "<11>1 2026-11-27T05:00:01.003Z gpu01 train 48213 - - "])
def test_a_token_cut_under_a_label_is_masked_in_every_piece(prefix: str) -> None:
    """A launcher's or a collector's label before each line, the token's second half on its own line: the parser takes
    the label off both lines, and each piece alone reads as no token (srun -l, pdsh, parallel --tag, GitHub Actions,
    torchrun, syslog; turn 41's PIPELINE_GAPS and turn 42's first score)."""
    for token, cut in ((TOKEN, 22), (ALIBABA, 14)):
        text = (f"{prefix}RuntimeError: upload failed for client {token[:cut]}\n"
                f"{prefix}{token[cut:]} (status 401)\n")
        assert not shown(token[4:cut], redact(text)) and not shown(token[cut:], redact(text))
        out = _shown_by_diagnose(text)
        assert "upload failed" in out
        assert not shown(token[4:cut], out) and not shown(token[cut:], out), out[-600:]


@pytest.mark.parametrize("width", [20, 40])
def test_a_token_over_the_lines_of_a_narrow_pane_is_masked_in_every_piece(width: int) -> None:
    """A pane of one width: the parser takes the exception's type off the first line, which then is no longer of the
    pane's width, and quotes the message line by line."""
    line = f"RuntimeError: upload failed for client {TOKEN} (status 401)"
    text = "\n".join(line[i:i + width] for i in range(0, len(line), width)) + "\n"
    assert BODY[8:16] not in redact(text)
    out = _shown_by_diagnose(text)
    assert "upload" in out
    for k in range(0, len(BODY) - 8):
        assert BODY[k:k + 8] not in out, (BODY[k:k + 8], out[-600:])


def test_a_nearby_line_under_a_label_is_quoted_redacted() -> None:
    """A hint's line (the lines before an error, which a signature's hint quotes) is kept cleaned, its label taken off:
    redacted with the raw lines too."""
    text = ("0: loading the adapter from the hub with the access key " + ALIBABA[:14] + "\n0: " + ALIBABA[14:]
            + " of the team\n0: Traceback (most recent call last):\n0:   File \"/tmp/train.py\", line 5, in <module>\n"
            "0:     model.load_adapter(name)\n0: ValueError: Can't find 'adapter_config.json' at 'org/adapter'\n")
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.index import load_index

    root = diagnose_lines(text.splitlines(keepends=True), load_index()).root_error
    assert root is not None and "adapter_config.json" in root.message
    nearby = "\n".join([*root.context, *root.after])
    assert "loading the adapter" in nearby
    assert not shown(ALIBABA[4:14], nearby) and not shown(ALIBABA[14:], nearby), nearby
    out = _shown_by_diagnose(text)
    assert not shown(ALIBABA[4:14], out) and not shown(ALIBABA[14:], out), out[-800:]


def test_a_token_cut_at_a_chunk_boundary_is_masked() -> None:
    """The parser reads the input in chunks of lines: an error whose first line ends one chunk keeps the raw lines of
    the chunk before (stream.SOURCE_CARRY)."""
    from kb.diagnose.diagnosis import diagnose_chunks
    from kb.diagnose.document import diagnosis_document
    from kb.diagnose.stream import chunk_lines
    from kb.knowledge.index import load_index

    lines = ["step 1 loss 2.31\n", "step 2 loss 2.29\n", "step 3 loss 2.27\n",
             f"0: RuntimeError: upload failed for client {ALIBABA[:14]}\n", f"0: {ALIBABA[14:]} (status 401)\n",
             "step 4 loss 2.25\n"]
    for size in (2, 3, 4, 5):
        doc = diagnosis_document(diagnose_chunks(chunk_lines(lines, size), load_index()))
        out = json.dumps(doc)
        assert "upload failed" in out
        assert not shown(ALIBABA[4:14], out) and not shown(ALIBABA[14:], out), (size, out[:600])


@pytest.mark.parametrize("text", [
    "0: TypeError: LlamaForCausalLM.forward() got an unexpected keyword argument 'max_new_tokens_per_step_config'\n"
    "0: (the generation config of Qwen2ForCausalLM_with_value_head_and_lora_adapters)\n",
    "gpu-node07: ValueError: hf_hub_download_with_retries_and_backoff failed for\ngpu-node07: "
    "meta-llama/Llama-3.1-8B-Instruct/model-00001-of-00004.safetensors\n",
    "RuntimeError: Error(s) in loading state_d\nict for PeftModelForCaus\nalLM: size mismatch for\n base_model.model.lm_he\n"
    "ad.weight\n",
])
def test_what_an_error_quotes_without_a_secret_is_kept(text: str) -> None:
    """Code identifiers, a hub path and a narrow pane's pieces of a message are no secret: quoted as they are."""
    from kb.diagnose.quoted import secret_pieces, source_text

    assert secret_pieces(source_text(text.splitlines())[0]) == ()
    out = _shown_by_diagnose(text)
    assert "***" not in out, out[-600:]
    for word in ("max_new_tokens_per_step_config", "hf_hub_download_with_retries_and_backoff",
                 "model-00001-of-00004.safetensors", "PeftModelForCaus"):
        if word in text:
            assert word in out


def test_a_log_formats_level_after_each_lines_time_is_a_prefix() -> None:
    """A logging format's time and level before every line (`%(asctime)s %(levelname)s`): the token's second half after
    the next line's `ERROR ` (redact() leaked 111 of 171 forms at the first score)."""
    text = (f"2026-11-27 05:00:01,123 ERROR RuntimeError: upload failed for client {TOKEN[:22]}\n"
            f"2026-11-27 05:00:01,124 ERROR {TOKEN[22:]} (status 401)\n")
    out = redact(text)
    assert not shown(BODY[18:], out), out
    assert out.count("2026-11-27 05:00:01,12") == 2 and out.count(" ERROR ") == 2, out
    plain = "2026-11-27 05:00:01,123 ERROR step 12 of the run failed\n2026-11-27 05:00:01,124 ERROR retrying in 5 s\n"
    assert redact(plain) == plain


def _many_errors(n: int) -> str:
    """``n`` distinct errors under srun's label, each wrapped, half of them with a token."""
    out = []
    for k in range(n):
        word = "".join(chr(97 + (k // 26 ** j) % 26) for j in range(4))
        if k % 2:
            out.append(f"0: ValueError: bad {word} for client {TOKEN[:22]}\n0: {TOKEN[22:]} (status 401)\n")
        else:
            out.append(f"0: KeyError: the column {word} is missing from the\n0: dataset's features\n")
        out.append("step 1 loss 2.31\n" * 3)
    return "".join(out)


def test_quoting_with_the_source_stays_linear() -> None:
    """Each kept error's source is read once (at most SOURCE_CHARS): a log of 4 times as many distinct errors costs
    about 4 times as much (and no more a MB than ordinary reports)."""
    from timing_support import diagnose_text

    assert_linear_on(diagnose_text, _many_errors(100), _many_errors(400))


def test_a_source_is_bounded() -> None:
    from kb.diagnose.quoted import SOURCE_CHARS, SOURCE_LINE_CHARS, source_text

    text, _starts = source_text(["x" * 100_000, "ValueError: " + "y" * 50_000, *(["z" * 3000] * 200)])
    assert len(text) <= SOURCE_CHARS + 1
    assert all(len(line) <= SOURCE_LINE_CHARS for line in text.split("\n"))


def test_a_frames_code_far_above_the_exception_line_is_redacted_with_its_lines() -> None:
    """The user's frame is the first of a long traceback, more than CONTEXT_LINES above the exception line: an error's
    source reaches back over its frames (stream.SOURCE_FRAME_LINES), so its code's token, cut by srun's label, is
    masked where the user frame is quoted."""
    frames = "".join(f'0:   File "/usr/lib/python3/site-packages/huggingface_hub/api_{k}.py", line {k + 10}, in call_{k}\n'
                     f"0:     return call_{k + 1}(token)\n" for k in range(10))
    text = ("0: Traceback (most recent call last):\n0:   File \"/tmp/train.py\", line 5, in <module>\n"
            f'0:     login(token="{ALIBABA[:14]}\n0: {ALIBABA[14:]}", add_to_git_credential=False)\n'
            + frames + "0: ValueError: Invalid token passed!\n")
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.index import load_index

    root = diagnose_lines(text.splitlines(keepends=True), load_index()).root_error
    assert root is not None and root.frames and root.frames[0].file == "/tmp/train.py"
    assert not shown(ALIBABA[4:14], root.frames[0].code), root.frames[0]
    out = _shown_by_diagnose(text)
    assert "train.py" in out
    assert not shown(ALIBABA[4:14], out) and not shown(ALIBABA[14:], out), out[-800:]
