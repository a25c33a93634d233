"""rt47 (issue #24, turn 47): what runtime-47's first score taught (benchmarks/results/runtime-turn47-rules.txt).

- A launcher's or a wrapper's report that a worker failed (tables/noise.toml: torchrun's ChildFailedError, accelerate's
  CalledProcessError, Ray's RayTaskError and now Ray Train's TrainingFailedError) says nothing of the cause. With only
  such reports in the input, the report's own words (a title above them) decide, as for an input with no typed error
  (kb/diagnose/prior_rules.py, prior_answers). A warning is no such report.
- A native backtrace whose frame is NCCL's own (ncclGetUniqueId, ncclGroupEnd, a frame of libnccl.so) is process
  evidence of multi-gpu-launch (tables/priors.toml [[process]]).
- torch.randperm's own device check ("Expected a 'mps:0' generator device but found 'cpu'") is device-mismatch's
  (families/device-mismatch.md randperm-generator-device), and argparse's "unrecognized arguments: --local_rank=1" is
  multi-gpu-launch's (a launcher that passes --local_rank to a script that does not take it).
"""

from __future__ import annotations

import pytest

from runtime_support import diagnosis, top_answer


_RAY_TRAIN = "TrainingFailedError: The Ray Train run failed. Please inspect the previous error messages for a cause.\n"
_CALLED = ("subprocess.CalledProcessError: Command '['/usr/bin/python3', '-m', 'mytrainer.train', 'cfg.yml']' returned "
           "non-zero exit status 1.\n")
_CHILD = """torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 4242)
============================================================
"""
_TITLE = "NCCL Proxy Call to rank 1 failed when fine-tuning on two nodes\n"


def test_ray_train_failed_error_is_a_follow_on_report() -> None:
    root = diagnosis(_RAY_TRAIN).root_error
    assert root is not None and root.type == "TrainingFailedError" and root.noise is not None
    assert top_answer(_RAY_TRAIN) is None  # alone, it tells nothing


@pytest.mark.parametrize("report", [_RAY_TRAIN, _CALLED, _CHILD])
def test_a_title_above_a_wrappers_report_decides(report: str) -> None:
    """Before rt47 the wrapper's typed (follow-on) error kept the report's words from being read: silent."""
    assert top_answer(_TITLE) == ("family", "multi-gpu-launch")  # the title alone
    assert top_answer(_TITLE + report) == ("family", "multi-gpu-launch")


def test_a_warning_still_counts_as_a_typed_error() -> None:
    """Only a launcher's or wrapper's report is passed over: with a warning line the title's words are not read, as
    before."""
    text = _TITLE + "UserWarning: TypedStorage is deprecated. It will be removed in the future.\n"
    assert top_answer(text) is None


def test_a_wrappers_report_under_words_of_no_family_stays_silent() -> None:
    assert top_answer("Training stops after the first epoch\n" + _CALLED) is None


_NCCL_BACKTRACE = """[host:2498 :0:2599] Caught signal 7 (Bus error: nonexistent physical address)
==== backtrace (tid:   2599) ====
 0 0x0000000000014420 __funlockfile()  ???:0
 1 0x000000000006929c ncclGroupEnd()  ???:0
 2 0x0000000000050853 ncclGetUniqueId()  ???:0
 3 0x00000000000417b4 ???()  /usr/lib/x86_64-linux-gnu/libnccl.so.2:0
 4 0x0000000000008609 start_thread()  ???:0
=================================
"""


@pytest.mark.parametrize("frames", [
    _NCCL_BACKTRACE,
    _NCCL_BACKTRACE.replace(" 1 0x000000000006929c ncclGroupEnd()  ???:0\n", "").replace(
        " 2 0x0000000000050853 ncclGetUniqueId()  ???:0\n", ""),  # only libnccl.so's unnamed frame
    "#3  0x00007f3b2c41a9e2 in ncclCommInitRank () from /usr/lib/libnccl.so.2\nSegmentation fault (core dumped)\n",
])
def test_a_native_backtrace_in_nccl_is_multi_gpu_launch(frames: str) -> None:
    """Before rt47: no error line, no rule (the shm-transport rule names ncclShmOpen and shm.cc only): silent."""
    assert top_answer(frames) == ("family", "multi-gpu-launch")


@pytest.mark.parametrize("text", [
    "gpu1:77:77 [0] NCCL INFO ncclCommInitRank comm 0x55d0c0 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n",
    " 1 0x000000000006929c my_nccl_wrapper()  ???:0\n",  # not NCCL's own function
])
def test_nccl_log_lines_and_other_frames_are_not_read_as_a_crash_in_nccl(text: str) -> None:
    """No process evidence: (NCCL's log line may still answer from the report's words, a keyword prior.)"""
    answers = diagnosis("Caught signal 7 (Bus error: nonexistent physical address)\n" + text).answers
    assert all(a.match.basis != "process" for a in answers)


def test_lines_shaped_like_nccl_frames_cost_no_more_than_ordinary_text() -> None:
    from timing_support import assert_cheap, diagnose_text

    many = " 1 0x000000000006929c " + "x" * 60 + " " + "/a" * 200 + "\n"
    for text in (many * 2000, (" 3 0x00000000000417b4 ???() " + "/lib" * 120 + "nccl.so\n") * 2000):
        assert_cheap(diagnose_text, text)


@pytest.mark.parametrize("expected, found", [("mps:0", "cpu"), ("cuda:0", "cpu"), ("cuda", "cpu")])
def test_randperms_generator_check_is_device_mismatch(expected: str, found: str) -> None:
    text = f"RuntimeError: Expected a '{expected}' generator device but found '{found}'\n"
    assert top_answer(text) == ("family", "device-mismatch")


@pytest.mark.parametrize("line, family", [
    ("pretrain_gpt.py: error: unrecognized arguments: --local_rank=1", "multi-gpu-launch"),
    ("train.py: error: unrecognized arguments: --deepspeed ds.json --local-rank=3", "multi-gpu-launch"),
    ("train.py: error: unrecognized arguments: --local_rankings 3", None),
    ("train.py: error: unrecognized arguments: --lora_r 8", None),
])
def test_an_unrecognized_local_rank_argument_is_a_launch_mismatch(line: str, family: str | None) -> None:
    got = top_answer(line + "\n")
    assert (got[1] if got else None) == family
