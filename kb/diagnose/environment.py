"""Facts about the machine and the run read from the log as it streams past (GPU, memory, ranks, batch,
the model and its quantization, sequence length).

They fill fix templates (``{gpu_memory_gib}``), count as evidence for signatures with an
``environment`` table, and are the numbers kb/diagnose/numbers.py computes with.

The run's facts: ``model`` (a Hub id such as ``Qwen/Qwen2.5-14B-Instruct``, from a from_pretrained
line, a ``--model_name_or_path``/``model_id`` setting, a Hub cache path or URL, or any line of the
first MODEL_HEAD_LINES), ``model_size_b`` (the parameter count its name states, in billions),
``quant`` (``4bit``/``8bit``: ``load_in_4bit=True``, a ``-bnb-4bit`` model, a ``Linear4bit`` frame),
``quant_type`` (``nf4``/``fp4``), ``batch`` (per device), ``seq`` (max_seq_length and its spellings),
``vocab`` (``vocab_size``, or the last dimension of a logits-shaped ``torch.Size``), ``lora_r`` (the LoRA rank):
read from the first RUN_FACT_LINES lines (where a run prints its settings, and all of a pasted report).
"""

from __future__ import annotations

from kb.diagnose.errors import ParsedError
from kb.diagnose.stream import trigger_lines
from kb.knowledge.precompiled import pattern as _compile

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    import re

# Patterns as text, compiled on first use (_rx): most inputs need none of them.
_CAPACITY = (r"(?:total capacity of ([\d.]+) GiB|([\d.]+) GiB total capacity)")
_GPU_NAME = (
    r"\b(Tesla T4|T4|Tesla [PVK]\d+|[PV]100|A100|H100|H200|A10G?|L4|L40S?|A6000|A40"
    r"|(?:GeForce )?(?:RTX|GTX) ?\d{3,4}(?: Ti)?)\b"
)
_VISIBLE = (r"CUDA_VISIBLE_DEVICES=[\"']?([\d,]+)")
_NPROC = (r"--nproc[_-]per[_-]node[= ](\d+)|num_processes[:=] ?(\d+)")
_PER_DEVICE_BATCH = (r"per_device_train_batch_size[\"']?\s*[=:]\s*(\d+)|--per_device_train_batch_size[= ](\d+)")
_INSTANT_BATCH = (r"Instantaneous batch size per device = (\d+)")
_BATCH = (r"(?<![\w.])batch_size[\"']?\s*[=:]\s*(\d+)|--batch_size[= ](\d+)")
_SEQ = (r"(?<![\w.])(?:max_seq_length|max_seq_len|max_length|cutoff_len|model_max_length|seq_length|seq_len)"
                  r"[\"']?\s*[=:]\s*(\d+)|--(?:max_seq_length|max_seq_len|max_length|cutoff_len|model_max_length)[= ](\d+)")
_VOCAB = (r"[\"']?vocab_size[\"']?\s*[=:]\s*(\d+)")
# A logits-shaped tensor: [batch, sequence, vocabulary] with a vocabulary of at least 30,000.
_LOGITS_SHAPE = (r"torch\.Size\(\[(\d+), (\d+), (\d{5,7})\]\)")
# A Hub model id that states its size: Qwen/Qwen2.5-14B-Instruct, meta-llama/Llama-2-7b-hf, unsloth/...-bnb-4bit
# (or, in a Hub cache path, models--Qwen--Qwen2.5-14B-Instruct).
_MODEL = (r"(?:(?<=/)models--|(?<![\w./-])(?:models--)?)([A-Za-z0-9][\w.-]{0,38}?)(?:/|--)([A-Za-z][\w.-]*?(?<![\d.])"
                    r"(?:(\d{1,2})x)?(\d{1,3}(?:\.\d{1,2})?)[bB](?![a-zA-Z\d])[\w.-]*)")
_QUANT = (r"load_in_([48])bit(?:[\"']?\s*[=:]\s*[\"']?|\s+)(?:True|true|1)\b|--load_in_([48])bit(?=\s|$)"
                    r"|-bnb-([48])bit\b|\bLinear([48])bit|\bbnb\.nn\.Linear(4)bit")
_LORA_R = (r"LoraConfig\([^)]{0,200}?\br\s*=\s*(\d+)|lora_r[\"']?\s*[=:]\s*(\d+)|--lora_r[= ](\d+)|\bLoRA r\s*=\s*(\d+)")
_QUANT_TYPE = (r"bnb_4bit_quant_type[\"']?\s*[=:]\s*[\"']?(nf4|fp4)")
_MODEL_TOKENS = ("from_pretrained", "model_name", "model_id", "base_model", "--model", "models--", "huggingface.co/")
MODEL_HEAD_LINES = 400  # a model id anywhere in the first lines (a pasted report); later, only beside _MODEL_TOKENS
MODEL_CONTEXT_BEFORE = 40  # (turn 48) lines before a model id that redaction reads with it (a PEM body's BEGIN line)
MODEL_CONTEXT_CHARS = 4096  # and characters of them at most
MODEL_REJECTS_MAX = 16  # model ids found inside a secret; after these, no model is read from the log
_ENV_TOKENS = ("GiB total capacity", "total capacity of", "Tesla", "GeForce", "NVIDIA", "CUDA_VISIBLE_DEVICES",
               "nproc", "num_processes", "per_device_train_batch_size", "Root Cause (first observed failure)",
               "(local_rank:")
# The run's settings are printed where it starts (a config, the Trainer's banner) or pasted with the error: their
# tokens are searched in the first RUN_FACT_LINES lines only, so a long training log costs what it did.
RUN_FACT_LINES = 3 * 4096
_RUN_TOKENS = _ENV_TOKENS + ("Instantaneous batch size", "batch_size", "_len", "vocab_size", "Size([", "bit",
                             "LoraConfig(", "lora_r", "LoRA r", *_MODEL_TOKENS)
# torchrun's ChildFailedError summary names the rank that failed first:
#   Root Cause (first observed failure):  ...  rank      : 1 (local_rank: 1)
_ROOT_CAUSE_RANK = (r"^\s*rank\s*:\s*(\d+) \(local_rank:")


def _rx(pattern: str) -> re.Pattern[str]:
    """The run facts' patterns, compiled on first use (most inputs need none of them: diagnose's start-up)."""
    return _compile(pattern)


class EnvironmentScanner:
    """Collect environment facts (GPU, memory, ranks, batch size) from lines as they stream past."""

    def __init__(self, cards: list[dict] | None = None) -> None:
        if cards is None:  # built without the knowledge's tables (tests, tools): read the file
            from kb.knowledge.tables import read_table

            cards = read_table("gpus")["card"]
        self.cards = cards  # tables/gpus.toml: the card a capacity means
        self.facts: dict[str, str] = {}
        self.expect_root_rank = False
        self.seen = 0
        self.at: tuple[list[str], int] = ([], 0)  # the chunk's lines and the one being read (_around)
        self.rejected = 0  # model ids that were a piece of a secret

    def scan(self, chunks: Iterable[tuple[str, list[str]]]) -> Iterator[tuple[str, list[str]]]:
        """Pass (text, lines) chunks through, reading facts from the few lines that can hold one."""
        for text, lines in chunks:
            for i in trigger_lines(text, _RUN_TOKENS if self.seen < RUN_FACT_LINES else _ENV_TOKENS):
                self.at = (lines, i)
                self._look(lines[i][:2000])
            if self.seen < MODEL_HEAD_LINES and "model" not in self.facts:
                for i, line in enumerate(lines[: MODEL_HEAD_LINES - self.seen]):
                    if "/" in line or "--" in line:
                        self.at = (lines, i)
                        self._model(line[:2000])
                        if "model" in self.facts:
                            break
            self.seen += len(lines)
            yield text, lines

    def _model(self, line: str) -> None:
        m = _rx(_MODEL).search(line)
        if m is None:
            return
        from kb.diagnose.redact import inside_secret

        # a piece of a key that reads like org/name-30B: of a key on this line, or (turn 48) of one that a wrap or a
        # launcher's label cut over this line and the next, or a PEM body's line (its BEGIN lines above)
        if self.rejected >= MODEL_REJECTS_MAX:  # (bounded work: a log of keys that read like model ids gives no model)
            return
        before, after = self._around()
        if inside_secret(before + line + after, len(before) + m.start(), len(before) + m.end()):
            self.rejected += 1
            return
        org, name, experts, size = m.group(1), m.group(2), m.group(3), m.group(4)
        self.facts["model"] = f"{org}/{name}"
        billions = float(size) * (int(experts) if experts else 1)
        self.facts["model_size_b"] = f"{billions:g}"
        if "-bnb-4bit" in name or "-bnb-8bit" in name:
            self.facts.setdefault("quant", "4bit" if "-bnb-4bit" in name else "8bit")

    def _around(self) -> tuple[str, str]:
        """The lines of the chunk before the line being read (MODEL_CONTEXT_BEFORE) and after it (one), each with its
        line end: what a secret that holds a piece of the line may stand in."""
        lines, i = self.at
        if not lines:
            return "", ""
        before = "".join(f"{line[:2000]}\n" for line in lines[max(0, i - MODEL_CONTEXT_BEFORE):i])[-MODEL_CONTEXT_CHARS:]
        return before, "".join(f"\n{line[:2000]}" for line in lines[i + 1:i + 2])

    def _run_facts(self, line: str) -> None:
        """The run's settings: model, quantization, batch, sequence length, vocabulary."""
        if "model" not in self.facts and any(t in line for t in _MODEL_TOKENS):
            self._model(line)
        if "bit" in line:
            if "quant" not in self.facts:
                q = _rx(_QUANT).search(line)
                if q:
                    self.facts["quant"] = f"{next(g for g in q.groups() if g)}bit"
            if "quant_type" not in self.facts:
                t = _rx(_QUANT_TYPE).search(line)
                if t:
                    self.facts["quant_type"] = t.group(1)
        if "batch" not in self.facts and "atch" in line:
            b = _rx(_INSTANT_BATCH).search(line) or _rx(_BATCH).search(line)
            if b:
                self.facts["batch"] = next(g for g in b.groups() if g)
        if "seq" not in self.facts and ("len" in line):
            q = _rx(_SEQ).search(line)
            if q:
                self.facts["seq"] = q.group(1) or q.group(2)
        if "lora_r" not in self.facts and ("LoRA r" in line or "lora_r" in line or "LoraConfig(" in line):
            r = _rx(_LORA_R).search(line)
            if r:
                self.facts["lora_r"] = next(g for g in r.groups() if g)
        if "vocab" not in self.facts and "vocab_size" in line:
            v = _rx(_VOCAB).search(line)
            if v:
                self.facts["vocab"] = v.group(1)
        if "torch.Size([" in line:
            s = _rx(_LOGITS_SHAPE).search(line)
            if s:
                self.facts.setdefault("batch", s.group(1))
                self.facts.setdefault("seq", s.group(2))
                self.facts.setdefault("vocab", s.group(3))

    def _look(self, line: str) -> None:
        if self.seen < RUN_FACT_LINES:
            self._run_facts(line)
        if "Root Cause (first observed failure)" in line:
            self.expect_root_rank = True
            return
        if "(local_rank:" in line:
            r = _rx(_ROOT_CAUSE_RANK).match(line)
            if r and self.expect_root_rank:
                self.facts["first_failed_rank"] = r.group(1)
                self.expect_root_rank = False
            return
        if "GiB" in line and "gpu_memory_gib" not in self.facts:
            c = _rx(_CAPACITY).search(line)
            if c:
                total = float(c.group(1) or c.group(2))
                self.facts["gpu_memory_gib"] = f"{total:g}"
                for card in self.cards:
                    if card["min_gib"] <= total <= card["max_gib"]:
                        self.facts.setdefault("gpu", card["name"])
        if "gpu" not in self.facts or "card" in self.facts["gpu"]:
            g = _rx(_GPU_NAME).search(line)
            if g:
                self.facts["gpu"] = g.group(1)
        if "CUDA_VISIBLE_DEVICES" in line:
            v = _rx(_VISIBLE).search(line)
            if v:
                self.facts["visible_gpus"] = str(len([x for x in v.group(1).split(",") if x]))
        if "nproc" in line or "num_processes" in line:
            n = _rx(_NPROC).search(line)
            if n:
                self.facts["world_size"] = n.group(1) or n.group(2)
        if "per_device_train_batch_size" in line:
            b = _rx(_PER_DEVICE_BATCH).search(line)
            if b:
                self.facts["per_device_batch"] = b.group(1) or b.group(2)
                self.facts["batch"] = self.facts["per_device_batch"]

    def result(self, errors: list[ParsedError], top_rank: int = -1) -> dict[str, str]:
        """The facts; ``ranks_seen`` from ``top_rank`` (the highest rank of every error, folded repeats
        included: see RankCounter) or, without it, from ``errors``."""
        facts = dict(self.facts)
        ranks = [int(e.rank) for e in errors if e.rank is not None and e.rank.isdigit() and len(e.rank) < 10]
        top = max([top_rank, *ranks])
        if top >= 0 and "world_size" not in facts:
            facts["ranks_seen"] = str(top + 1)
        return facts
