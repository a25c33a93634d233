"""The shapes real reports give error output in, where the parser used to lose the error (issue #24).

Five classes: (1) an exception class without the usual suffix (``Exception: ...``, ``StopIteration: ...``, a class of
an ``errors``/``exc`` module); (2) a traceback flattened onto one line, or written with escaped ``\\n``; (3) a
traceback quoted with indentation or under a launcher's or viewer's per-line prefix; (4) a traceback cut before its
exception line, whose frames are then the evidence; (5) a chain of exceptions, whose other members are read when the
root error decides nothing. Each example follows the shape of a real report (its URL beside it); where the corpus
holds the report itself (corpus/*.jsonl), the record is read and checked too. The texts here are written for the
test: paths and messages are shaped like the reports', not copied from them.
"""

from __future__ import annotations


import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.priors import basis
from kb.diagnose.textclean import clean_line
from kb.knowledge.registry import load_knowledge
from parse_support import cpu_seconds_per_mb, errors
from corpus_support import record

KNOWLEDGE = load_knowledge()
SITE = "/opt/conda/lib/python3.10/site-packages"


def top(text: str) -> tuple[str, str, str] | None:
    """(kind, key, basis) of the top answer, or None."""
    answers = diagnose_lines(text.splitlines(keepends=True), KNOWLEDGE).answers
    return (answers[0].kind, answers[0].match.entry.key, basis(answers[0])) if answers else None


# -- (1) exception classes without the usual suffix ------------------------------------------------------------

# https://github.com/hiyouga/LlamaFactory/issues/5482 : "Exception: cublasLt ran into an error!" under bitsandbytes
# frames; before, the line was no exception line and the traceback read as cut.
BARE_EXCEPTION = f"""Traceback (most recent call last):
  File "/home/u/train.py", line 40, in <module>
    out = model(**batch)
  File "{SITE}/bitsandbytes/autograd/_functions.py", line 410, in forward
    out32, Sout32 = F.igemmlt(C32A, state.CxB, SA, state.SB)
  File "{SITE}/bitsandbytes/functional.py", line 2011, in igemmlt
    raise Exception("cublasLt ran into an error!")
Exception: cublasLt ran into an error!
"""


def test_bare_exception_is_the_traceback_exception_line() -> None:
    found = [e for e in errors(BARE_EXCEPTION) if e.type]
    assert [(e.type, e.message, len(e.frames), e.in_traceback) for e in found] == [
        ("Exception", "cublasLt ran into an error!", 3, True)]


def test_bare_exception_in_the_corpus_record() -> None:
    found = [e for e in errors(record("gh:hiyouga/LlamaFactory#5482")) if e.type]
    assert found and found[0].type == "Exception" and found[0].message.startswith("cublasLt ran into an error")
    assert found[0].frames


def test_bare_exception_needs_its_colon_or_the_line_end() -> None:
    assert not [e for e in errors("Exceptional circumstances: none of this is an error\n") if e.type]


# https://github.com/huggingface/transformers/issues/12890 : DataParallel's "StopIteration: Caught StopIteration in
# replica 0 on device 0." ends a traceback; before, the traceback read as cut and the message typeless.
def test_stopiteration_ends_its_traceback_in_the_corpus_record() -> None:
    found = [e for e in errors(record("gh:huggingface/transformers#12890")) if e.type == "StopIteration"]
    assert found and found[0].frames and found[0].message.startswith("Caught StopIteration in replica 0")
    assert top(record("gh:huggingface/transformers#12890"))[:2] == ("family", "multi-gpu-launch")


def test_class_of_an_errors_module_needs_no_suffix() -> None:
    text = ("Traceback (most recent call last):\n  File \"/home/u/train.py\", line 3, in <module>\n    trainer.train()\n"
            "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, "
            "Hardware limit: 65536.\n")
    found = [e for e in errors(text) if e.type]
    assert [(e.short_type, e.in_traceback) for e in found] == [("OutOfResources", True)]
    assert KNOWLEDGE.meanings.get("OutOfResources")  # kb diagnose says what it usually means
    # a capitalised word after a module that is not named for its errors stays no exception
    assert not [e for e in errors("see torch.nn.Module: it holds the layers\n") if e.type]


# -- (2) flattened tracebacks ---------------------------------------------------------------------------------

# https://huggingface.co/meta-llama/Llama-3.1-70B-Instruct/discussions/9 : autotrain's log record holds the whole
# traceback on one line ("train has failed due to an exception: Traceback (most recent call last): File ...").
FLAT = ('ERROR | train has failed due to an exception: Traceback (most recent call last): File '
        f'"{SITE}/autotrain/trainers/common.py", line 117, in wrapper return func(*args, **kwargs) File '
        f'"{SITE}/safetensors/torch.py", line 308, in load_file with safe_open(filename, framework="pt") as f: '
        'safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge\n')


def test_flattened_traceback_keeps_type_message_and_frames() -> None:
    found = [e for e in errors(FLAT) if e.type]
    assert [(e.short_type, e.message, len(e.frames)) for e in found] == [
        ("SafetensorError", "Error while deserializing header: HeaderTooLarge", 2)]
    assert found[0].frames[-1].file.endswith("safetensors/torch.py")


# A JSON log record (or a repr) writes the traceback with escaped line breaks; the exception type used to come out
# as "nRuntimeError" (the n of the escape glued to it).
ESCAPED = ('{"level": "error", "msg": "Traceback (most recent call last):\\n  File \\"/home/u/train.py\\", line 10, '
           f'in <module>\\n    import bitsandbytes\\n  File \\"{SITE}/bitsandbytes/cextension.py\\", line 20, in '
           '<module>\\n    raise RuntimeError(msg)\\nRuntimeError: CUDA Setup failed despite GPU being available."}\n')


def test_escaped_newlines_split_into_the_traceback() -> None:
    found = [e for e in errors(ESCAPED) if e.type]
    assert [(e.type, len(e.frames)) for e in found] == [("RuntimeError", 2)]
    assert found[0].message.startswith("CUDA Setup failed despite GPU being available.")
    assert found[0].frames[-1].file == f"{SITE}/bitsandbytes/cextension.py"


def test_a_windows_path_backslash_n_is_no_line_break() -> None:
    text = 'Traceback (most recent call last):\n  File "C:\\new\\train.py", line 3, in <module>\n    f()\nValueError: x\n'
    found = [e for e in errors(text) if e.type]
    assert [(e.type, [f.file for f in e.frames]) for e in found] == [("ValueError", ["C:\\new\\train.py"])]


# https://github.com/huggingface/transformers/issues/11102 : a progress bar copied without its carriage return,
# the traceback's header glued to its end.
def test_header_glued_to_a_progress_bar_opens_the_traceback() -> None:
    text = ("  0%|          | 0/40995 [00:00<?, ?it/s]Traceback (most recent call last):\n"
            "  File \"run_clm.py\", line 459, in <module>\n    main()\nValueError: boom\n")
    found = [e for e in errors(text) if e.type]
    assert [(e.type, e.in_traceback, len(e.frames)) for e in found] == [("ValueError", True, 1)]


# -- (3) indented and prefixed tracebacks -------------------------------------------------------------------------

# https://github.com/Dao-AILab/flash-attention/issues/1028 : pip indents the build's traceback six spaces; a
# markdown code block indents a pasted one four. The exception line sits at the header's indentation; before, it
# was read as a frame's code line and the error was lost.
INDENTED = f"""    Traceback (most recent call last):
      File "/home/u/train.py", line 10, in <module>
        trainer.train()
      File "{SITE}/torch/nn/modules/module.py", line 1501, in _call_impl
        return forward_call(*args, **kwargs)
    torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 14.75 GiB total capacity)
"""


def test_indented_traceback_keeps_its_exception_line() -> None:
    found = [e for e in errors(INDENTED) if e.type]
    assert [(e.short_type, len(e.frames), e.frames[0].code) for e in found] == [
        ("OutOfMemoryError", 2, "trainer.train()")]
    assert top(INDENTED)[:2] == ("family", "cuda-oom")


def _traceback_under(prefix: str) -> str:
    lines = ["Traceback (most recent call last):", '  File "/home/u/train.py", line 10, in <module>',
             "    trainer.train()", f'  File "{SITE}/deepspeed/runtime/zero/stage3.py", line 923, in initialize_optimizer_states',
             "    largest_numel = max(sizes)", "ValueError: max() arg is an empty sequence"]
    return "".join(f"{prefix}{line}\n" for line in lines)


# Ray's worker prefix: https://github.com/verl-project/verl/issues/2012 ("(WorkerDict pid=1896673) ..."); pdsh's host
# prefix (DeepSpeed's multi-node launcher), srun --label's task number, a paste quoted with "| ", docker compose.
@pytest.mark.parametrize("prefix", ["(RayTrainWorker pid=2345, ip=10.0.0.1) ", "(pid=7) ", "worker-1: ",
                                    "10.0.0.12: ", "0: ", "| ", "trainer-1  | "])
def test_per_line_prefix_is_cut_and_the_traceback_holds(prefix: str) -> None:
    found = [e for e in errors(_traceback_under(prefix)) if e.type or e.frames]
    assert [(e.type, e.message, len(e.frames)) for e in found] == [("ValueError", "max() arg is an empty sequence", 2)]
    assert top(_traceback_under(prefix))[:3] == ("family", "sharding-config", "family-prior")


def test_ray_prefix_in_the_corpus_record() -> None:
    assert clean_line(record("gh:verl-project/verl#2012").splitlines()[0])[0].startswith("[ERROR] TBE Subprocess")


def test_srun_label_is_the_rank() -> None:
    assert clean_line("3: Traceback (most recent call last):") == ("Traceback (most recent call last):", "3")
    assert clean_line("3: RuntimeError: x") == ("RuntimeError: x", "3")


@pytest.mark.parametrize("line", ["HTTP2Error:  x", "rank2:    x", "| a | b |", "Epoch 1:  loss 0.5", "note:  hi",
                                  "RuntimeError:  x"])
def test_prefix_cuts_leave_other_lines_alone(line: str) -> None:
    text, rank = clean_line(line)
    if line.startswith("rank2"):  # torchrun's own prefix keeps its rank
        assert (text, rank) == ("   x", "2")
    else:
        assert (text, rank) == (line, None)


# https://github.com/huggingface/datasets/issues/6315 : pytest's "E   pyarrow.lib.ArrowInvalid: ..."
def test_pytest_prefix_is_cut() -> None:
    assert clean_line("E       RuntimeError: CUDA error: an illegal memory access was encountered") == (
        "RuntimeError: CUDA error: an illegal memory access was encountered", None)
    first = record("gh:huggingface/datasets#6315").splitlines()[0]
    assert clean_line(first)[0].startswith("pyarrow.lib.ArrowInvalid: JSON parse error")


# https://github.com/unslothai/unsloth/issues/599 (Colab: "<ipython-input-7-6df1> in <cell line: 60>()", "1 frames",
# "/usr/local/lib/python3.10/dist-packages/trl/trainer/sft_trainer.py in __init__(self, ...)") and
# https://github.com/virtualramblas/Domain-Specific-Small-Language-Models/issues/6 ("[/tmp/ipython-input-36.py] in
# <cell line: 0>()"): the cell's frame line used to end the traceback, so nothing was kept.
def test_colab_traceback_frames_in_the_corpus_records() -> None:
    found = errors(record("gh:unslothai/unsloth#599"))
    assert [(e.type, [f.file.rsplit("/", 1)[-1] for f in e.frames]) for e in found] == [
        ("AttributeError", ["<ipython-input-7-6df167867e64>", "sft_trainer.py"])]
    found = errors(record("gh:virtualramblas/Domain-Specific-Small-Language-Models#6"))
    assert [(e.type, [f.file for f in e.frames]) for e in found] == [("TypeError", ["/tmp/ipython-input-3689096619.py"])]


# https://github.com/huggingface/autotrain-advanced/issues/147 : rich's box cuts a long path at its edge
# ("│ .../site-packages/autotrain/cli/autotrain.p │" then "│ y:32 in main │"): the two pieces are one frame.
def test_rich_frame_wrapped_at_the_box_edge_in_the_corpus_record() -> None:
    found = errors(record("gh:huggingface/autotrain-advanced#147"))
    assert [[(f.file.rsplit("/", 3)[-3:], f.line, f.function) for f in e.frames] for e in found] == [
        [(["autotrain", "cli", "autotrain.py"], 32, "main")]]


# https://github.com/huggingface/transformers/issues/29966 : an IPython traceback pasted from a frame on, without its
# header ("File /opt/conda/.../datasets/arrow_dataset.py:3105, in Dataset.map(...)").
def test_ipython_frames_without_their_header() -> None:
    text = (f"File {SITE}/datasets/arrow_dataset.py:3105, in Dataset.map(self, function)\n"
            "-> 3105 for rank, done, content in Dataset._map_single(**dataset_kwargs):\n\n"
            f"File {SITE}/datasets/arrow_dataset.py:3482, in Dataset._map_single(shard, function)\n"
            "-> 3482 batch = apply_function_on_filtered_inputs(\n\n"
            "NameError: name 'tokenizer' is not defined\n")
    found = [e for e in errors(text) if e.type]
    assert [(e.type, len(e.frames), e.in_traceback) for e in found] == [("NameError", 2, True)]


# -- (4) tracebacks cut before their exception line --------------------------------------------------------------

def _cut(*inner: str) -> str:
    lines = ["Traceback (most recent call last):", '  File "/home/u/train.py", line 10, in <module>', "    main()"]
    for path, function in inner:
        lines += [f'  File "{SITE}/{path}", line 100, in {function}', "    call()"]
    return "".join(line + "\n" for line in lines)


def test_cut_traceback_answers_by_its_frames() -> None:
    text = _cut(("transformers/modeling_utils.py", "from_pretrained"), ("bitsandbytes/cuda_setup/main.py", "evaluate_cuda_setup"))
    assert top(text) == ("family", "cuda-setup", "family-prior")


def test_cut_traceback_whose_frames_name_two_families_is_silent() -> None:
    # safetensors (checkpoint-io) raised inside DeepSpeed ZeRO's code (sharding-config): no exception line says which
    text = _cut(("deepspeed/runtime/zero/stage3.py", "load_state_dict"), ("safetensors/torch.py", "load_file"))
    assert top(text) is None


def test_cut_traceback_after_a_warning_still_answers_by_its_frames() -> None:
    # The shape of https://github.com/Liuziyu77/Visual-RFT/issues/147 : a UserWarning before the traceback becomes the
    # root error. (That report's own warning, checkpointing's "None of the inputs have requires_grad=True", is itself
    # evidence of no-grad-fn, its label: tests/test_diagnose_priors_famb.py; a warning that says nothing is used here.)
    text = ("/x/lib/python3.10/site-packages/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be "
            "removed in the future\n  warnings.warn(\n"
            + _cut(("deepspeed/runtime/zero/partition_parameters.py", "_all_gather")))
    assert top(text) == ("family", "sharding-config", "family-prior")


# -- (5) chained exceptions ----------------------------------------------------------------------------------------

# The root error (the innermost cause) says nothing of the stack: a reset connection raised in urllib3. The final
# error of the chain was raised in huggingface_hub's download code: its frames name the family.
CHAIN = f"""Traceback (most recent call last):
  File "{SITE}/urllib3/connectionpool.py", line 703, in urlopen
    httplib_response = self._make_request(
ConnectionResetError: [Errno 104] Connection reset by peer

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/home/u/train.py", line 8, in <module>
    model = AutoModelForCausalLM.from_pretrained("org/model")
  File "{SITE}/huggingface_hub/file_download.py", line 1238, in hf_hub_download
    metadata = get_hf_file_metadata(
  File "{SITE}/requests/adapters.py", line 501, in send
    raise ConnectionError(err, request=request)
requests.exceptions.ConnectionError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))
"""


def test_chain_final_error_decides_when_the_root_cause_does_not() -> None:
    found = errors(CHAIN)
    assert [(e.short_type, e.chained, e.cause_of_previous) for e in found] == [
        ("ConnectionResetError", True, False), ("ConnectionError", False, True)]
    assert top(CHAIN) == ("family", "hub-access", "family-prior")


def test_chain_root_cause_decides_first() -> None:
    text = CHAIN.replace(f"{SITE}/urllib3/connectionpool.py", f"{SITE}/safetensors/torch.py")
    assert top(text) == ("family", "checkpoint-io", "family-prior")


# https://github.com/huggingface/blog/issues/1575 : HTTPError, then "The above exception was the direct cause",
# then huggingface_hub's BadRequestError; both are kept and linked.
def test_chain_in_the_corpus_record() -> None:
    found = [e for e in errors(record("gh:huggingface/blog#1575")) if e.type]
    assert [(e.short_type, e.chained, e.cause_of_previous) for e in found] == [
        ("HTTPError", True, False), ("BadRequestError", False, True)]


# -- linear time on hostile lines of the new shapes -----------------------------------------------------------------

HOSTILE = [
    "worker-1: " + " " * 60_000 + "x", "1" * 60 + ": " + "a" * 60_000, "(pid=1) " + "(" * 60_000, "| " * 30_000,
    "E " + " " * 60_000, "Traceback (most recent call last):" + "\\n" * 30_000, "File \\n" + "\\na" * 30_000,
    "x.errors." * 7_000 + "A", "a.exc.A" * 9_000 + ":", "Exception" * 7_000, "[" + "ipython-input-" * 4_000,
    "<ipython-input-1> in " + "<cell line: " * 5_000, "Traceback (most recent call last):\\n" + "a." * 30_000 + "Error",
]


def test_new_shapes_take_linear_time() -> None:
    """Each hostile line of about 60 KiB, 16 times (about 1 MB per shape): under 3 CPU seconds per MB."""
    slow = []
    for line in HOSTILE:
        per_mb = cpu_seconds_per_mb([line + "\n"] * 16)
        if per_mb > 3.0:
            slow.append((round(per_mb, 2), line[:40]))
    assert not slow, slow
