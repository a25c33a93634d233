"""Issue #25, drift-40's misses made general: a keyword that reaches a callable which never accepted it, through a
caller that hands its keyword arguments down, is dated by the one change of that keyword that can hand it down; the
library's callables that still accept it in the latest release, and those that went with the keyword (the function
removed, not the keyword), say nothing about it being dropped on the way. Inputs are the reports' own lines
(tests/fixtures/diagnose/dev/drift-40-*); the releases are the history's (tables/api-history.json.gz, read from the
wheels: datasets 3.6.0's load_dataset_builder takes trust_remote_code, 4.0.0's does not). A title that names the
package, not the callable ("Datasets module got an unexpected keyword argument 'k'"), is api-drift's and is answered
from that library's callables alone."""

from __future__ import annotations


from kb.diagnose.drift import recognise
from drift_support import DEV, top



# huggingface/lighteval#856: datasets 4.0.0 let trust_remote_code fall through to DownloadConfig(**kwargs)
DOWNLOAD_CONFIG = ("Got a `TypeError: DownloadConfig.__init__() got an unexpected keyword argument "
                   "'trust_remote_code'\n")


def test_a_keyword_handed_down_is_dated_by_the_caller_that_dropped_it() -> None:
    answer = top(DOWNLOAD_CONFIG)
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift is not None and answer.drift["library"] == "datasets"
    assert answer.drift["removed_in"] == "4.0.0"
    assert any("datasets>=2.16,<4.0" in fix for fix in answer.drift["fixes"])
    assert any("no replacement" in fact for fact in answer.drift["facts"])


def test_callables_still_taking_the_keyword_are_said_not_to_hand_it_down() -> None:
    answer = top(DOWNLOAD_CONFIG)
    assert answer is not None and answer.drift is not None
    assert any("still accept `trust_remote_code`" in fact for fact in answer.drift["facts"])


def test_the_report_file_is_answered_with_the_release() -> None:
    text = (DEV / "drift-40-lighteval-856.txt").read_text(encoding="utf-8")
    answer = top(text)
    assert answer is not None and answer.drift is not None and answer.drift["removed_in"] == "4.0.0"


# huggingface/lighteval#946: the title names the package, not the callable
PACKAGE = "[BUG] Datasets module got an unexpected keyword argument 'trust_remote_code'\n"


def test_a_package_named_paraphrase_is_read_with_its_library() -> None:
    assert recognise("", PACKAGE.strip()) == (
        "unexpected-kwarg", {"callable": "", "name": "trust_remote_code", "library": "datasets"})


def test_a_package_named_paraphrase_is_api_drift_dated_by_that_library() -> None:
    answer = top(PACKAGE)
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift is not None and answer.drift["library"] == "datasets"
    assert answer.drift["removed_in"] == "4.0.0"
    assert any("datasets>=2.16,<4.0" in fix for fix in answer.drift["fixes"])


def test_a_package_the_history_does_not_cover_gets_no_dates() -> None:
    answer = top("[BUG] Sentence module got an unexpected keyword argument 'trust_remote_code'\n")
    assert answer is None or answer.drift is None


def test_the_package_report_file_is_answered_with_the_release() -> None:
    answer = top((DEV / "drift-40-lighteval-946.txt").read_text(encoding="utf-8"))
    assert answer is not None and answer.match.entry.family == "api-drift"
    assert answer.drift is not None and answer.drift["removed_in"] == "4.0.0"
