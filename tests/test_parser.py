"""The traceback parser on every noise form error output really comes in (issue 5).

Each test feeds text in one form and asserts what the parser must recover from it:
the exception type and message, the frames, the rank, the chain links and noise flags.
"""

from __future__ import annotations

from kb.diagnose.textclean import clean_line
from kb.diagnose.errors import ParsedError
from kb.diagnose.stream import parse
from kb.knowledge.registry import load_knowledge

MATMUL = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float"


KNOWN = load_knowledge().literals()  # the signatures' literals: what marks a message pasted without its type
LEADING = load_knowledge().leading_literals()


def errors(text: str) -> list[ParsedError]:
    return list(parse(text.splitlines(keepends=True), KNOWN, LEADING))


def typed(text: str) -> list[ParsedError]:
    return [e for e in errors(text) if e.type]


PLAIN = f"""Traceback (most recent call last):
  File "/home/alice/train.py", line 12, in <module>
    out = model(x)
  File "/usr/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1532, in _call_impl
    return forward_call(*args, **kwargs)
  File "/home/alice/model.py", line 30, in forward
    return torch.matmul(label, self.w)
{MATMUL}
"""


def test_plain_traceback_frames_and_user_vs_library() -> None:
    [e] = errors(PLAIN)
    assert (e.type, e.line_no, e.in_traceback) == ("RuntimeError", 8, True)
    assert e.message.endswith("double != float")
    assert [f.function for f in e.frames] == ["<module>", "_call_impl", "forward"]
    assert e.frames[-1].code == "return torch.matmul(label, self.w)"
    assert [f.is_library for f in e.frames] == [False, True, False]


def test_only_the_last_error_line() -> None:
    [e] = errors(MATMUL + "\n")
    assert e.type == "RuntimeError" and not e.frames and "double != float" in e.message


def test_notebook_traceback_flattened_onto_one_line() -> None:
    flat = (
        'Traceback (most recent call last): File "/content/train.py", line 5, in <module> main() '
        'File "/content/train.py", line 3, in main out = torch.matmul(a, b) ' + MATMUL
    )
    [e] = errors(flat)
    assert e.type == "RuntimeError" and "double != float" in e.message
    assert [f.function for f in e.frames] == ["<module>", "main"]
    assert e.frames[-1].code == "out = torch.matmul(a, b)"


def test_ipython_traceback() -> None:
    text = """---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
Cell In[18], line 3
      1 from trl import SFTTrainer
----> 3 trainer = SFTTrainer(
      4     model=model,

File ~/venvs/x/lib/python3.11/site-packages/transformers/utils/deprecation.py:165, in wrapper(*args, **kwargs)
    163     warnings.warn(message, FutureWarning, stacklevel=2)
--> 165 return func(*args, **kwargs)

TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'
"""
    [e] = errors(text)
    assert e.type == "TypeError" and e.message.endswith("'tokenizer'")
    assert e.frames[0].file == "<notebook cell>" and e.frames[0].code == "trainer = SFTTrainer("
    assert e.frames[1].line == 165 and e.frames[1].code == "return func(*args, **kwargs)"


def test_interleaved_rank_lines_keep_each_ranks_traceback_apart() -> None:
    text = """[rank1]: Traceback (most recent call last):
[rank0]: Traceback (most recent call last):
[rank1]:   File "/w/train.py", line 10, in <module>
[rank0]:   File "/w/train.py", line 10, in <module>
[rank1]:     loss.backward()
[rank0]:     loss.backward()
[rank0]: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.90 GiB. GPU 1 has a total capacity of 14.74 GiB
"""
    es = typed(text)
    assert [(e.rank, e.short_type) for e in es] == [("0", "RuntimeError"), ("1", "OutOfMemoryError")]
    assert all(len(e.frames) == 1 for e in es)
    assert "2.90 GiB" in es[1].message


def test_ansi_colours_and_carriage_return_progress_bars() -> None:
    text = "\x1b[31mTraceback (most recent call last):\x1b[0m\n" + PLAIN.split("\n", 1)[1].replace(
        "RuntimeError", "\x1b[1;31mRuntimeError\x1b[0m"
    )
    text = " 10%|#  | 1/10\r 20%|## | 2/10\r" + text
    [e] = errors(text)
    assert e.type == "RuntimeError" and "\x1b" not in e.message and len(e.frames) == 3


def test_timestamps_and_logging_prefixes() -> None:
    text = (
        "2025-04-21 10:00:01,123 - INFO - step 10 loss 2.3\n"
        "2025-04-21 10:00:02,456 - ERROR - " + MATMUL + "\n"
        "[2025-04-21 10:00:03] ERROR: ValueError: Your setup doesn't support bf16/gpu.\n"
        "18:57:53-195282 ERROR    KeyError: 'labels'\n"
    )
    es = typed(text)
    assert [e.short_type for e in es] == ["RuntimeError", "ValueError", "KeyError"]
    assert es[0].message.startswith("expected mat1")


def test_container_runtime_log_stream_tag_after_the_timestamp() -> None:
    # a CRI log file (Kubernetes nodes, log collectors): "<time> stderr F <line>"; the frames under it are the
    # traceback's (runtime-40's logprefix fixtures: without them no frame decided and kb was silent)
    stamp = "2026-11-27T09:55:52.0{:02d}000Z std{} {} "
    lines = PLAIN.rstrip("\n").split("\n")
    text = "".join(stamp.format(i, "err" if i % 2 else "out", "F" if i % 3 else "P") + line + "\n"
                   for i, line in enumerate(lines))
    [e] = errors(text)
    assert e.type == "RuntimeError" and len(e.frames) == 3 and e.message == errors(PLAIN)[0].message
    assert clean_line("2026-11-27T09:55:52.001000Z stderr F   File \"/w/a.py\", line 3, in f")[0] == \
        '  File "/w/a.py", line 3, in f'
    # a word that only starts like a stream's name is the line's own
    assert clean_line("2026-11-27T09:55:52Z stderrors F x")[0] == "stderrors F x"


def test_warnings_in_between_are_noise_not_root() -> None:
    text = (
        "/usr/lib/python3.11/site-packages/trl/trainer.py:90: FutureWarning: `tokenizer` is deprecated\n"
        "  warnings.warn(\n" + PLAIN
    )
    es = typed(text)
    assert es[0].short_type == "FutureWarning" and es[0].noise
    assert es[1].short_type == "RuntimeError" and es[1].noise is None


def test_chained_exceptions_direct_cause_and_during_handling() -> None:
    text = f"""Traceback (most recent call last):
  File "/w/a.py", line 1, in f
    g()
{MATMUL}

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/w/a.py", line 9, in <module>
    f()
ValueError: wrapped

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/w/a.py", line 12, in <module>
    log(e)
KeyError: 'x'
"""
    es = errors(text)
    assert [e.type for e in es] == ["RuntimeError", "ValueError", "KeyError"]
    assert [e.chained for e in es] == [True, True, False]
    assert [e.cause_of_previous for e in es] == [False, True, True]


def test_cpp_frames_end_the_message_and_are_not_part_of_it() -> None:
    text = """torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1287, invalid usage, NCCL version 2.17.1
ncclInvalidUsage: This usually reflects invalid usage of NCCL library.
Last error:
Duplicate GPU detected : rank 3 and rank 2 both on CUDA device e2000
Exception raised from getNCCLComm at /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1287 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f in libc10.so)
frame #1: <unknown function> + 0x1 (0x7f in libtorch_cuda.so)
"""
    [e] = errors(text)
    assert e.short_type == "DistBackendError"
    assert e.message.splitlines()[-1] == "Duplicate GPU detected : rank 3 and rank 2 both on CUDA device e2000"
    assert "frame #0" not in e.message and "Exception raised from" in e.advice[0]


def test_nccl_warn_lines_and_watchdog_timeouts() -> None:
    text = """[1,2]<stdout>:smc-gpu-03:29880:30398 [0] init.cc:497 NCCL WARN Duplicate GPU detected : rank 2 and rank 0 both on CUDA device 1000
[1,2]<stdout>:smc-gpu-03:29880:30398 [0] NCCL INFO init.cc:867 -> 5
[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9, NumelOut=9, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.
"""
    nccl, watchdog = errors(text)
    assert (nccl.type, nccl.rank, nccl.noise) == ("NCCLWarning", "2", None)
    assert nccl.message.startswith("Duplicate GPU detected : rank 2 and rank 0")
    assert (watchdog.type, watchdog.rank) == ("NCCLWatchdogTimeout", "1") and watchdog.noise


def test_cuda_kernel_assertions_fold_into_one_error() -> None:
    line = (
        "../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: block: [18,0,0], "
        "thread: [{t},0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
    )
    [e] = errors("".join(line.format(t=t) for t in range(40)))
    assert e.type == "CUDAAssertion" and e.repeats == 39
    assert e.message.startswith("indexSelectLargeIndex: Assertion `srcIndex < srcSelectDimSize` failed.")


def test_cuda_launch_blocking_advice_is_not_part_of_the_message() -> None:
    flat = (
        "RuntimeError: CUDA error: device-side assert triggered CUDA kernel errors might be asynchronously "
        "reported at some other API call. For debugging consider passing CUDA_LAUNCH_BLOCKING=1."
    )
    lines = """RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
"""
    for text in (flat, lines):
        [e] = errors(text)
        assert e.message == "CUDA error: device-side assert triggered"


def test_windows_paths() -> None:
    text = r"""Traceback (most recent call last):
  File "C:\Users\bob\proj\train.py", line 287, in forward
    embedding = torch.matmul(label, self.label_weight)
  File "D:\AI\venv\Lib\site-packages\torch\nn\modules\module.py", line 1518, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
""" + MATMUL
    [e] = errors(text)
    assert e.frames[0].file == r"C:\Users\bob\proj\train.py" and not e.frames[0].is_library
    assert e.frames[1].is_library and e.frames[1].code.startswith("return self._call_impl")


def test_issue_thread_markdown_quotes_and_fences() -> None:
    text = "I get this:\n\n> ```python\n> Traceback (most recent call last):\n" + "".join(
        f"> {line}\n" for line in PLAIN.splitlines()[1:]
    ) + "> ```\n\nany idea?\n"
    [e] = errors(text)
    assert e.type == "RuntimeError" and len(e.frames) == 3 and e.message.endswith("double != float")


def test_inline_code_and_prose_around_a_bare_error_line() -> None:
    es = typed("This is also helpful for\n`IndexError: index out of range in self`\nBut it is strange.\n")
    assert [(e.type, e.message) for e in es] == [("IndexError", "index out of range in self")]
    es = typed("训练模型的时候出现这个报错：ValueError: Your setup doesn't support bf16/gpu.\n")
    assert es[0].type == "ValueError"


def test_several_unrelated_errors_are_all_reported_in_order() -> None:
    text = "KeyError: 'labels'\n\n" + PLAIN + "\nModuleNotFoundError: No module named 'flash_attn'\n"
    assert [e.short_type for e in typed(text)] == ["KeyError", "RuntimeError", "ModuleNotFoundError"]


def test_truncated_traceback_without_header_or_error_line() -> None:
    text = '  File "/w/train.py", line 3, in <module>\n    main()\n  File "/w/train.py", line 2, in main\n    x = y\n'
    [e] = errors(text)
    assert e.type == "" and e.in_traceback and [f.line for f in e.frames] == [3, 2]


def test_childfailederror_and_repr_form() -> None:
    text = (
        "ERROR: an <class 'RuntimeError'> error occurred: RuntimeError('CUDA out of memory. Tried to allocate 20.00 MiB',)\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "train.py FAILED\n"
    )
    es = typed(text)
    assert es[0].type == "RuntimeError" and es[0].message.startswith("CUDA out of memory")
    assert es[1].short_type == "ChildFailedError" and es[1].noise


def test_clean_line_prefixes() -> None:
    assert clean_line("[rank3]: RuntimeError: x\n") == ("RuntimeError: x", "3")
    assert clean_line("[default1]:   File \"a.py\", line 1, in f\n") == ('  File "a.py", line 1, in f', "1")
    assert clean_line("[80746] [rank0]:[E321 02:07:08.408 ProcessGroupNCCL.cpp:607] [Rank 0] x") == ("[Rank 0] x", "0")
    assert clean_line("2024-11-20 14:37:16 [rank3]: torch.OutOfMemoryError: y") == ("torch.OutOfMemoryError: y", "3")
    assert clean_line("> > quoted") == ("quoted", None)
    assert clean_line("```python\n") == ("", None)
    assert clean_line("```torch.cuda.OutOfMemoryError: z```") == ("torch.cuda.OutOfMemoryError: z", None)
    assert clean_line("File \u201c/a.py\u201d, line 3") == ('File "/a.py", line 3', None)


def test_error_glued_to_cjk_text_and_typeless_messages() -> None:
    [e] = typed("有提示None of the inputs，报错RuntimeError: element 0 of tensors does not require grad，是哪里有问题呢？\n")
    assert e.type == "RuntimeError" and e.message.startswith("element 0 of tensors")
    [e] = errors("SFTTrainer.__init__() got an unexpected keyword argument 'tokenizer'\n")
    # Python's own message standing alone: read as the type it implies (tests/test_parser_notebook_shapes.py)
    assert e.type == "TypeError" and e.message.endswith("'tokenizer'")
    [e] = errors("CUDA out of memory. Tried to allocate 294.00 MiB (GPU 0; 15.90 GiB total capacity)\n")
    assert e.type == "" and "294.00 MiB" in e.message
    assert typed("fooRuntimeError: x\n")[0].type == "fooRuntimeError"  # never split an identifier


def test_rich_boxed_traceback() -> None:
    text = """╭─────────────────────────────── Traceback (most recent call last) ────────────────────────────────╮
│ /home/u/train.py:85 in <module>                                                                  │
│                                                                                                  │
│   84 │   model = load()                                                                          │
│ ❱ 85 │   model = prepare_model_for_kbit_training(model)                                          │
│   86                                                                                             │
│                                                                                                  │
│ /usr/local/lib/python3.10/dist-packages/peft/utils/other.py:98 in                                │
│ prepare_model_for_kbit_training                                                                  │
│                                                                                                  │
│ ❱  98 │   │   param.data = param.data.to(torch.float32)                                          │
╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
OutOfMemoryError: CUDA out of memory. Tried to allocate 2.90 GiB. GPU 0 has a total capacity of 14.74 GiB
"""
    [e] = errors(text)
    assert e.type == "OutOfMemoryError" and "2.90 GiB" in e.message
    assert [(f.file, f.line, f.function) for f in e.frames] == [
        ("/home/u/train.py", 85, "<module>"),
        ("/usr/local/lib/python3.10/dist-packages/peft/utils/other.py", 98, "prepare_model_for_kbit_training"),
    ]
    assert e.frames[0].code == "model = prepare_model_for_kbit_training(model)"
    assert e.frames[1].code == "param.data = param.data.to(torch.float32)"


def test_known_message_inside_prose_quotes_or_a_glued_fence() -> None:
    """A case's message pasted mid-sentence, in quotes or glued to a fence, without its exception type."""
    [e] = errors('"Duplicate GPU detected : rank 1 and rank 0 both on CUDA device a4000" from NCCL INFO.\n')
    assert e.type == "" and e.message.startswith("Duplicate GPU detected")
    [e] = errors("```Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40```\n")
    assert e.message.startswith("Duplicate GPU detected")
    [e] = errors("PEFT 做 SFT 微调报错 element 0 of tensors does not require grad and does not have a grad_fn\n")
    assert e.message.startswith("element 0 of tensors") and any("微调" in c for c in e.context)
    assert clean_line("```python import torch") == ("import torch", None)  # a known language tag goes


def test_lines_after_an_error_are_kept_for_hints() -> None:
    text = (
        "I met `RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
        "cpu and cuda:0!`\n"
        "It seems inv_freq_expanded @ position_ids_expanded mixes a CPU and a GPU tensor; inv_freq is a cpu tensor\n"
        + "filler\n" * 10
    )
    [e] = typed(text)
    assert e.after and "inv_freq" in e.after[0] and len(e.after) <= 6


def test_typeless_messages_are_looked_for_at_the_start_of_the_input() -> None:
    """A message without its exception type is a paste; deep in a long log, errors carry their types."""
    from kb.diagnose.parser import TYPELESS_SEARCH_LINES

    message = "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.80 GiB total capacity)\n"
    filler = ["step 1 loss 2.0\n"] * TYPELESS_SEARCH_LINES
    assert [e.type for e in parse(["intro\n", message], KNOWN)] == [""]
    assert list(parse(filler + [message], KNOWN)) == []
    assert [e.type for e in parse(filler + ["RuntimeError: " + message], KNOWN)] == ["RuntimeError"]


def test_a_known_message_whose_literal_sits_inside_it_keeps_its_start() -> None:
    [e] = errors("Found dtype Long but expected Float\n")
    assert e.type == "" and e.message == "Found dtype Long but expected Float"
    [e] = errors("I got this: mat1 and mat2 must have the same dtype, but got Float and BFloat16\n")
    assert e.message.startswith("mat1 and mat2 must have")


def test_an_error_quoted_in_a_sentence_ends_at_its_closing_quote() -> None:
    """A forum title or sentence quotes the error: the message stops at the quote that closes the one before the
    exception type; quotes the message itself holds (in pairs) stay in it; an unquoted error keeps its line."""
    [e] = typed("""after the upgrade the error "KeyError: 'qwen2'" becomes "qwen2 isn't supported yet"\n""")
    assert (e.type, e.message) == ("KeyError", "'qwen2'")
    [e] = typed('I get "RuntimeError: "addmm_impl_cpu_" not implemented for \'Half\'" when training\n')
    assert e.message == '"addmm_impl_cpu_" not implemented for \'Half\''
    [e] = typed("I get \u201cValueError: the key \"text\" is missing\u201d on my dataset\n")
    assert e.message == 'the key "text" is missing'
    [e] = typed('KeyError: \'qwen2\'" becomes "later"\n')  # no quote opens it: the line as it is
    assert e.message == '\'qwen2\'" becomes "later"'
