"""rt46 (issue #24, turn 46): what runtime-46's first score taught.

- Ray's ActorDiedError / RayActorError (how verl, OpenRLHF and other Ray-based trainers report a worker that died: 15 of
  runtime-46's 27 reports end there) get a meaning (families/exception-types.toml) and no family: they say that an
  actor died, not why.
- Ray re-raises a task's exception in its caller as "ray.exceptions.RayTaskError(<class>): ray::Actor.f() (pid=...)".
  The parser reads that line as an error of the class in parentheses (patterns.RAY_TASK_ERROR), and tables/noise.toml
  marks it as Ray's report: an error line before it (a title) stays the root, the task's own traceback after it
  decides, and alone it is reported as a follow-on error ("the error that started it is not in the input"), not as a
  truncated traceback.
- runtime-45's kohya-trainer-105 is out of scope (family "none"): training-data's statement is the stack's trainer
  meeting data of the wrong shape, not a Stable Diffusion trainer's image folder.
"""

from __future__ import annotations

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import type_meaning
from kb.knowledge.examples import devset_manifest, load_examples
from kb.knowledge.registry import load_knowledge


def _result(text: str):
    return diagnose_lines(text.splitlines(keepends=True), load_knowledge())


@pytest.mark.parametrize("line", [
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
    "ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
])
def test_rays_actor_died_is_explained_and_claimed_by_no_family(line: str) -> None:
    result = _result(line + "\n")
    assert result.answers == []
    meaning = type_meaning(result.root_error, load_knowledge())
    assert meaning is not None and "Ray actor" in meaning and "worker logs" in meaning


def test_kohya_trainer_105_is_labelled_out_of_scope() -> None:
    entries = {e["file"]: e for e in load_examples(devset_manifest())}
    assert entries["dev/runtime-45-kohya-trainer-105.txt"]["family"] == "none"
    assert entries["dev/runtime-45-bitsandbytes-1464.txt"]["family"] == "cuda-setup"  # (cuda-setup's statement holds)


# The caller's side of a Ray task that raised (OpenRLHF's driver), with made-up paths and ids.
_RAY_CALLER = """Traceback (most recent call last):
  File "/tmp/ray/session_1/runtime_resources/working_dir_files/_ray_pkg_1/openrlhf/cli/train_ppo_ray.py", line 181, in train
    ray.get(refs)
  File "/opt/env/lib/python3.10/site-packages/ray/_private/auto_init_hook.py", line 21, in auto_init_wrapper
    return fn(*args, **kwargs)
  File "/opt/env/lib/python3.10/site-packages/ray/_private/worker.py", line 861, in get_objects
    raise value.as_instanceof_cause()
ray.exceptions.RayTaskError({cls}): ray::ActorModelRayActor.fit() (pid=4242, ip=10.0.0.7, actor_id=0a1b2c3d4e5f, repr=<x>)
"""
_RAY_TASK = """  File "/opt/env/lib/python3.10/site-packages/openrlhf/trainer/ppo_trainer.py", line 240, in fit
    status = self.ppo_train(steps)
  File "/opt/env/lib/python3.10/site-packages/transformers/models/llama/modeling_llama.py", line 1189, in forward
    logits = logits.float()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.83 GiB. GPU 0 has a total capacity of 79.15 GiB of which 3.20 GiB is free.
"""


@pytest.mark.parametrize("cls", ["ActorDiedError", "RuntimeError", "OutOfMemoryError"])
def test_rays_task_error_line_is_read_as_the_tasks_exception_and_as_rays_report(cls: str) -> None:
    result = _result(_RAY_CALLER.format(cls=cls))
    root = result.root_error
    assert root is not None and root.type == cls and root.message.startswith("ray::ActorModelRayActor.fit() (pid=")
    assert root.noise is not None and "Ray" in root.noise
    assert [f.function for f in root.frames][0] == "train"


@pytest.mark.parametrize("cls", ["ActorDiedError", "RuntimeError", "ValueError"])
def test_rays_report_of_a_generic_class_is_claimed_by_no_family(cls: str) -> None:
    assert _result(_RAY_CALLER.format(cls=cls)).answers == []


def test_rays_report_of_an_out_of_memory_error_is_cuda_oom() -> None:
    """The class is the task's evidence: torch's OutOfMemoryError is the GPU's (the task's traceback was not pasted)."""
    answers = _result(_RAY_CALLER.format(cls="OutOfMemoryError")).answers
    assert answers and answers[0].kind == "family" and answers[0].match.entry.key == "cuda-oom"


def test_an_error_line_above_rays_report_stays_the_root() -> None:
    title = "RuntimeError: CUDA error: unspecified launch failure\n"
    root = _result(title + _RAY_CALLER.format(cls="RuntimeError")).root_error
    assert root is not None and (root.type, root.message) == ("RuntimeError", "CUDA error: unspecified launch failure")


def test_the_tasks_own_error_after_rays_report_decides() -> None:
    answers = _result(_RAY_CALLER.format(cls="OutOfMemoryError") + _RAY_TASK).answers
    assert answers and answers[0].kind == "family" and answers[0].match.entry.key == "cuda-oom"


@pytest.mark.parametrize("line", [
    "ray.exceptions.RayTaskError: ray::f() (pid=1)",  # no class in parentheses: Ray's own class, read as before
    "RayTaskError(ActorDiedError) was raised",  # prose
    "my.RayTaskError(x y): z",  # not a class name
])
def test_lines_that_only_look_like_rays_report_are_not_read_as_one(line: str) -> None:
    from kb.diagnose import patterns
    assert patterns.RAY_TASK_ERROR.match(line) is None


def test_lines_shaped_like_rays_report_cost_no_more_than_ordinary_text() -> None:
    """patterns.RAY_TASK_ERROR is anchored, its dotted prefix and class bounded: long prefixes, long class names and
    many wrapper lines inside a traceback stay linear."""
    from timing_support import assert_cheap, diagnose_text

    frame = '  File "/x/ray/_private/worker.py", line 861, in get_objects\n    raise value.as_instanceof_cause()\n'
    long_prefix = "Traceback (most recent call last):\n" + frame + "a." * 10000 + "RayTaskError(E): ray::f() (pid=1)\n"
    long_class = "Traceback (most recent call last):\n" + frame + "RayTaskError(" + "E" * 20000 + "\n"
    many = ("Traceback (most recent call last):\n" + frame + "ray.exceptions.RayTaskError(Foo): ray::g() (pid=2)\n") * 800
    for text in (long_prefix * 2, long_class * 2, many):
        assert_cheap(diagnose_text, text)
