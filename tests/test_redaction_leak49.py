"""Issue 26 (leak49): a token cut by a line wrap (a real line end) whose piece after the cut is shorter than 16 characters
and followed by a colon: the next line reads ``Uqms0L10KOl5I: unauthorized``, which views.joined took for a setting's
name (``Name: value``: _starts_setting; only a name of RANDOM_NAME_MIN or more that reads as random was a token's rest),
so no view joined the two pieces and the piece showed (fix49 noticed it: benchmarks/results/fix-turn49.txt).

The class: the previous line ends inside a token-shaped run and the piece reads as random (mixed case with a capital
past its first letter or a digit, or one case with digits among its letters, or consonants drawn at random): the piece
is the token's rest, colon or not. A real ``name: value`` line after a wrap (``RuntimeError: ...``, ``loss: 0.123``,
``model.layers.0.mlp: 12``, YAML keys) stays as it is.
"""

from __future__ import annotations

from hypothesis import assume, example, given
from hypothesis import strategies as st

from hostile_support import CUTTABLE, SETTINGS
from kb.diagnose.redact import redact
from kb.diagnose.redact.rules import token_rules
from kb.diagnose.redact.views import HEAD_TAIL, _random_piece
from secret_corpus import PIECE
from test_redaction_properties import shown, tokens

SUFFIXLESS = [s for s in CUTTABLE if not s.get("suffix")]  # (a suffix, `;EndpointSuffix=...`, would be the piece)
# the brief's example: a GitHub token cut 13 characters before its end
EXAMPLE_TOKEN = "ghp_zQcsX9kLm2Pq7RtVwY3nB5cUqms0L10KOl5I"
CONTEXTS = [
    "client {head}\n{rest}: some message",
    "RuntimeError: the upload of the checkpoint to the hub failed for client {head}\n{rest}: some message",
    "[rank0]: HTTPError: 401 Client Error: Unauthorized for the token {head}\n[rank0]: {rest}: some message",
    "2024-05-01 12:00:01 ERROR push failed, token={head}\n2024-05-01 12:00:01 ERROR {rest}: some message",
]


def test_the_example_shows_no_piece() -> None:
    assert len(EXAMPLE_TOKEN) == 40
    text = f"client {EXAMPLE_TOKEN[:-13]}\n{EXAMPLE_TOKEN[-13:]}: unauthorized"
    out = redact(text)
    assert "Uqms0L10KOl5I" not in out, out
    assert "zQcs" not in out and out.endswith(": unauthorized"), out


def _rest_shape(rest: str) -> bool:
    """Whether the piece after the cut is a name that _SETTING_START reads (``Name: ``): the class under test."""
    return (rest[0].isascii() and (rest[0].isalpha() or rest[0] == "_")
            and all(c.isascii() and (c.isalnum() or c in "_.-") for c in rest))


@given(token=tokens(SUFFIXLESS), length=st.integers(PIECE, 15), context=st.sampled_from(CONTEXTS))
@example(token=(EXAMPLE_TOKEN, EXAMPLE_TOKEN[4:]), length=13, context=CONTEXTS[0])
@example(token=("ory_pat_Mq2zdYHZX4qUxXPruSnpIrDOsruBwaoz", "Mq2zdYHZX4qUxXPruSnpIrDOsruBwaoz"), length=8,
         context=CONTEXTS[0])  # (a piece that reads as words, ``sruBwaoz``: the rule's match is the evidence)
@SETTINGS
def test_a_token_cut_before_a_short_piece_and_a_colon_never_shows(token: tuple[str, str], length: int,
                                                                  context: str) -> None:
    """A token of the corpus's shapes cut so that its last ``length`` characters (8 to 15: PIECE, the leak measure's
    piece, to RANDOM_NAME_MIN - 1) begin the next line, followed by ``: some message``. The class: the piece reads as
    random by the module's measure (views._random_piece), or a rule with keywords matches the head and the piece
    together to the colon and not the head alone (__init__._short_rests). A piece that is neither (``sruBwaoz`` after a
    head that is a whole token by a rule of variable length: it reads as a camelCase name) is left: the sweep in
    benchmarks/results/leak-turn49.txt counts them."""
    tok, body = token
    head, rest = tok[:-length], tok[-length:]
    text = context.format(head=head, rest=rest)
    # (a piece with a `=` inside, a Bitbucket token's `c=8F7CD1AD`, reads as NAME=value: _setting_rests' class, left)
    assume("=" not in rest.rstrip("="))
    name = rest.rstrip("=")  # (a base64 piece's padding before the colon)
    assume(not _rest_shape(name) or _random_piece(name, head[-HEAD_TAIL:]) or _incomplete(head, name))
    out = redact(text)
    assert not shown(body, out, context), (text, out)
    if _rest_shape(rest):  # (a piece read as a name: the class; a piece of another shape must not show either)
        assert f"{rest}: some message" not in out, (text, out)


def _incomplete(head: str, rest: str) -> bool:
    """Whether a keyword rule matches ``head + rest`` to its end from within ``head`` and not ``head`` alone."""
    run = head.split()[-1]
    candidate = run + rest
    for rule in token_rules():
        if not rule.wraps or not rule.keywords or not any(k in candidate.lower() for k in rule.keywords):
            continue
        for m in rule.pattern.finditer(candidate):
            if m.start() < len(run) < m.end() == len(candidate):
                alone = rule.pattern.match(run, m.start())
                if alone is None or alone.end() != len(run):
                    return True
    return False


def test_every_cut_of_the_example_before_a_colon_shows_no_piece() -> None:
    """The example's token cut at every place that leaves 8 to 15 characters on the next line, in each context."""
    leaked = []
    for length in range(PIECE, 16):
        for context in CONTEXTS:
            text = context.format(head=EXAMPLE_TOKEN[:-length], rest=EXAMPLE_TOKEN[-length:])
            if shown(EXAMPLE_TOKEN[4:], redact(text), context):
                leaked.append((length, context))
    assert not leaked, leaked


KEPT = [
    "Traceback (most recent call last):\nRuntimeError: CUDA error: out of memory",
    "  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1501, in _call_impl\n"
    "RuntimeError: CUDA error: device-side assert triggered",
    "parameter counts of the adapter layers after loading the checkpoint shard 3\nmodel.layers.0.mlp: 12",
    "epoch 3 of 3 finished, evaluating on the validation split of openassistant\nloss: 0.123",
    "output_dir: ./outputs/llama-3-8b-sft-qlora-r16-alpha32-lr2e4-seq2048\nfp16: true\nbf16: false\nlr: 2.0e-4",
    "run_name: Llama3-8B-Instruct-QLoRA-r16-a32-seq2048-bs4-ga8-v2\nwarmupSteps: 100\nmaxSteps: 1000",
    "commit 3f2a9c1e0b7d4a6f8e2c5b9d1a0f7e3c6b8d2a4f\nAuthor: Jane Doe\nDate:   Mon May 1 12:00:00 2024",
    "Loading checkpoint shards from ./Meta-Llama-3-8B-Instruct/model-00004-of-00004\nWarning: the tokenizer has no pad",
    "wandb: Syncing run eager-sun-12 at the project llama-sft with the id 3kx9a7qz\nwandb: View run at the site",
    "[rank1]: torch.distributed.elastic.multiprocessing.errors.ChildFailedError\n[rank1]: ValueError: bad shape",
    "ValueError: Expected input batch_size (16) to match target batch_size (8) 9fXk2LqP7\nTypeError: bad operand",
    "  lora_target_modules: q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj\n  lora_r: 16\n  lora_alpha: 32",
    "datasets.builder.DatasetGenerationError: An error occurred while generating the dataset\nGPU0: 14.7 GiB",
    "tensor shapes in the state dict differ for the key base_model.model.lm_head.weight\nQwen2Config: vocab 151936",
]


def test_name_value_lines_after_a_long_line_are_kept() -> None:
    for text in KEPT:
        assert redact(text) == text, text


def test_a_whole_token_before_a_message_line_masks_the_token_only() -> None:
    """A token whole at a line's end, then a real message on the next line: the message stays."""
    for message in ("RuntimeError: CUDA error", "loss: 0.123", "model.layers.0.mlp: 12", "fp16: true"):
        text = f"hub_token: {EXAMPLE_TOKEN}\n{message}"
        out = redact(text)
        assert EXAMPLE_TOKEN[8:] not in out and out.endswith("\n" + message), (text, out)
