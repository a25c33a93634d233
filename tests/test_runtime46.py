"""runtime46 (issue #24, turn 46): what the silent in-scope reports of the corpus and runtime-45 taught
(benchmarks/results/runtime-turn46-silences.txt groups them by why kb is silent). Group J: an excerpt that starts
inside a frame line, its head (`File "` and the start of the path) cut off or hidden by its writer ("**/deepspeed/...py",
line N, in f"). The parser reads it as the frame it is (kb/diagnose/parser.py, patterns.CUT_FRAME), a path that starts
at a known library's package folder counts as that library's installed code, and the raising frame's priors decide.
"""

from __future__ import annotations

import pytest

import kb.diagnose.stream as stream
from runtime_support import diagnosis, top_answer


# The shape of IDEA-CCNL/Fengshenbang-LM#257 (corpus gh-titles-01), with its own names: the writer hid the path's head.
_ZERO = '''**/deepspeed/runtime/zero/stage_1_and_2.py", line 1088, in set_norm_for_param_grad_in_gpu
    [i, source_offset, dest_offset, num_elements] = self.grad_position[param_id]
KeyError: 0
'''


def test_a_frame_line_cut_at_its_head_is_read_as_a_frame() -> None:
    root = diagnosis(_ZERO).root_error
    assert root is not None and (root.type, root.message) == ("KeyError", "0")
    assert [(f.file, f.line, f.function) for f in root.frames] == [
        ("**/deepspeed/runtime/zero/stage_1_and_2.py", 1088, "set_norm_for_param_grad_in_gpu")]
    assert root.frames[0].code.startswith("[i, source_offset")
    assert root.frames[0].is_library


def test_a_cut_frame_in_deepspeed_zero_decides_sharding_config() -> None:
    """Before runtime46 the line was no frame: a bare "KeyError: 0", which no rule can tell."""
    assert top_answer(_ZERO) == ("family", "sharding-config")


@pytest.mark.parametrize("head", ["**/", ".../", "/", "…/", "", "C:\\Users\\me\\env\\Lib\\site-packages\\"])
def test_the_cut_head_may_be_hidden_or_partly_kept(head: str) -> None:
    text = _ZERO.replace("**/", head, 1)
    root = diagnosis(text).root_error
    assert len(root.frames) == 1 and root.frames[0].is_library
    assert top_answer(text) == ("family", "sharding-config")


def test_a_cut_path_of_the_users_own_code_is_no_library_frame() -> None:
    """The frame is read, but a path that starts at no library's folder is the user's: its priors do not apply, and the
    bare KeyError stays unanswered (a wrong answer costs more than silence)."""
    text = _ZERO.replace("**/deepspeed/runtime/zero/", "my_project/zero/", 1)
    root = diagnosis(text).root_error
    assert len(root.frames) == 1 and not root.frames[0].is_library
    assert top_answer(text) is None


@pytest.mark.parametrize("line", [
    'see stage_1_and_2.py", line 1088, in set_norm_for_param_grad_in_gpu',  # prose before it: no path
    'deepspeed/runtime/zero/stage_1_and_2.py", line 1088',  # no function: not a frame line's tail
    '"**/deepspeed/runtime/zero/stage_1_and_2.py", line 1088, in set_norm',  # quoted both sides: no cut head
])
def test_lines_that_only_look_like_a_cut_frame_are_not_read_as_one(line: str) -> None:
    root = diagnosis(f"{line}\n    x = table[key]\nKeyError: 0\n").root_error
    assert root is not None and root.type == "KeyError" and root.frames == []


def test_cut_frames_are_read_alike_with_and_without_the_prefilter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prefilter reads only lines holding a trigger token: the cut frame line has no "File " (parser's
    STRUCTURAL_TOKENS holds its '.py", line ')."""
    log = "step 10 loss 1.2\n" * 50 + _ZERO
    with_filter = [(f.file, f.line, f.function) for f in diagnosis(log).root_error.frames]
    assert len(with_filter) == 1
    monkeypatch.setattr(stream, "PREFILTER", False)
    monkeypatch.setattr(stream, "FAST_CONTINUATION", False)
    assert [(f.file, f.line, f.function) for f in diagnosis(log).root_error.frames] == with_filter


def test_lines_shaped_like_cut_frames_cost_no_more_than_ordinary_text() -> None:
    """Every line holding '.py", line ' reaches the parser now (a trigger token): long paths without a ".py" closing
    quote, and many cut frames, stay linear (patterns.CUT_FRAME is anchored and bounded)."""
    from timing_support import assert_cheap, diagnose_text

    long_paths = ("a/" * 5000 + 'x.py", line 1, in f\n') * 20  # longer than CUT_FRAME's 400 characters: no frame
    many = ('deepspeed/runtime/zero/stage3.py", line 10, in step\n    x = 1\n' * 4000) + "KeyError: 0\n"
    for text in (long_paths, many):
        assert_cheap(diagnose_text, text)
