"""Issue #25, drift-46's misses made general, each on the real report it must answer and on input it must decline.

(1) datasets' schema reader, "ValueError: Feature type 'List' not found": data saved by a datasets release names a
feature class the installed one lacks; the class's release range as a top-level export of datasets dates it
(`List` from 4.0.0), answered by api-drift where no signature matched (drift-46-lerobot-1571, -datasets-7676).
(2) A private name a release replaced by a public one in the same module, holding all of its words
(transformers.trainer's `_model_unwrap` -> `unwrap_model` in 4.4.0; drift-46-SimCSE-199).
(3) A name a module had, lost for some releases and got back (A -> B -> A): transformers.trainer exports
`unwrap_model` in 4.4.0-4.40.2 and from 4.47.0, not in between, where transformers.modeling_utils has it
(drift-46-dlrover-1221). Without the installed version the answer names the hole and where the name lived.
(4) A deprecation message that names its replacement with an article or as a command-line flag ("Please pass an
`accelerate.DataLoaderConfiguration` instead", "Use `--accelerator_config {...}` instead"), and a bare `__init__()`
keyword's other droppers told with their own replacement (drift-43-instructlab-2542)."""

from __future__ import annotations

from kb.apidrift.deprecations import parse_message
from kb.apidrift.holes import gap_homes, holes
from kb.diagnose.drift import drift_section, recognise
from drift_support import DEV, drift_of, top


def test_a_feature_type_the_installed_datasets_lacks_is_dated_by_the_class_s_first_release() -> None:
    found = drift_of((DEV / "drift-46-datasets-7676.txt").read_text())
    assert found is not None and found["library"] == "datasets" and found["added_in"] == "4.0.0"
    assert found["installed"] == "3.6.0"
    assert any(fix.startswith("upgrade: pip install -U 'datasets>=4.0'") for fix in found["fixes"])


def test_a_title_alone_with_the_feature_type_error_is_answered_by_api_drift() -> None:
    found = drift_of((DEV / "drift-46-lerobot-1571.txt").read_text())
    assert found is not None and found["added_in"] == "4.0.0" and "4.0" in " ".join(found["fixes"])


def test_a_feature_type_no_release_defines_or_one_every_release_has_is_no_dated_change() -> None:
    assert recognise("ValueError", "Feature type 'lowercase' not found.") is None
    made_up = drift_section("ValueError", "Feature type 'NoSuchFeatureKind' not found. Available feature types: []")
    assert made_up is not None and made_up["added_in"] is None and made_up["removed_in"] is None
    assert top("ValueError: Feature type 'NoSuchFeatureKind' not found. Available feature types: ['Value']\n") is None
    # a feature type every covered release has: no release's change, so the history does not answer it
    assert top("ValueError: Feature type 'Sequence' not found. Available feature types: ['Value']\n") is None


def test_a_private_name_replaced_by_a_public_one_with_its_words_names_it() -> None:
    found = drift_of((DEV / "drift-46-SimCSE-199.txt").read_text())
    assert found is not None and found["removed_in"] == "4.4.0"
    assert found["renamed_to"] == "transformers.trainer.unwrap_model"
    assert any("from transformers.trainer import unwrap_model" in fix for fix in found["fixes"])


def test_a_private_successor_still_comes_before_a_public_one() -> None:
    found = drift_section("ImportError", "cannot import name '_BaseLazyModule' from 'transformers.file_utils'")
    assert found is not None and found["removed_in"] == "4.9.0"
    assert found["renamed_to"] == "transformers.file_utils._LazyModule"


def test_holes_are_runs_without_the_name_between_releases_with_it() -> None:
    versions = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5"]
    assert holes(versions, ["1.1", "1.2", "1.5"]) == [(3, 4)]
    assert holes(versions, ["1.0", "1.1"]) == []  # gone for good: a removal, not a hole
    assert holes(versions, ["1.3", "1.4", "1.5"]) == []  # added late: no hole
    assert holes(versions, ["1.0", "1.2", "1.4"]) == [(1, 1), (3, 3)]


def test_a_name_a_module_lost_for_some_releases_names_the_hole_and_where_it_lived() -> None:
    found = drift_of((DEV / "drift-46-dlrover-1221.txt").read_text())
    assert found is not None
    assert any("gone in 4.41.0" in fact and "transformers.modeling_utils" in fact for fact in found["facts"])
    assert any("from transformers.modeling_utils import unwrap_model" in fix and ">=4.47.0" in fix
               for fix in found["fixes"])


def test_a_known_installed_release_leaves_the_hole_to_the_verdict() -> None:
    text = ("transformers 4.43.3\n"
            "ImportError: cannot import name 'unwrap_model' from 'transformers.trainer' (/x/transformers/trainer.py)\n")
    found = drift_of(text)
    assert found is not None and found["installed"] == "4.43.3"
    assert any("lies in a gap" in fact for fact in found["facts"])
    assert not any(fix.startswith("if your transformers is 4.41.0") for fix in found["fixes"])


def test_deprecation_messages_naming_the_replacement_with_an_article_or_as_a_flag_are_read() -> None:
    accelerate = ("Passing the following arguments to `Accelerator` is deprecated and will be removed in version 1.0 of "
                  "Accelerate: {deprecated_dl_args.keys()}. Please pass an `accelerate.DataLoaderConfiguration` "
                  "instead: dataloader_config = DataLoaderConfiguration({values})")
    assert parse_message(accelerate, "Accelerator") == ("Accelerator", "accelerate.DataLoaderConfiguration")
    flag = ("Using `--dispatch_batches` is deprecated and will be removed in version 4.41 of 🤗 Transformers. "
            "Use `--accelerator_config {'dispatch_batches':VALUE} instead")
    assert parse_message(flag, "dispatch_batches") == ("dispatch_batches", "accelerator_config")
    # an article before a type the text only describes, with no "instead": no replacement
    assert parse_message("`x` is deprecated; please pass a `dict` to the call", "x") == ("x", None)


def test_a_bare_init_keyword_tells_the_other_library_s_replacement() -> None:
    found = drift_of((DEV / "drift-43-instructlab-2542.txt").read_text())
    assert found is not None and found["library"] == "transformers"
    assert found["renamed_to"] == "accelerator_config"
    assert any(fact.startswith("`accelerate.Accelerator` also dropped `dispatch_batches`") and "1.0.0" in fact
               and "DataLoaderConfiguration" in fact for fact in found["facts"])


def test_a_hole_where_the_module_s_names_collapse_names_no_other_home() -> None:
    """A gap whose edges are not steady (the module's names collapse or swell: huggingface_hub 0.8.0-0.9.1 read
    lazily, 20 names for 71) may be the history's reading: no import from elsewhere is advised on it."""

    class History:
        def __init__(self, exports: dict[str, set[str]]) -> None:
            self._exports = exports

        def exports(self, lib: str, module: str, version: str) -> set[str]:
            return self._exports[version]

        def exporting_modules(self, lib: str, name: str, version: str) -> list[str]:
            return ["pkg.other", "pkg._private", "pkg"]

    names = {f"n{i}" for i in range(20)}
    versions = ["1.0", "1.1", "1.2", "1.3"]
    steady_edges = History({"1.0": names | {"x"}, "1.1": names, "1.2": names, "1.3": names | {"x"}})
    assert gap_homes(steady_edges, "pkg", "pkg", "x", versions, 1, 2) == ["pkg.other"]
    collapsed = History({"1.0": names | {"x"}, "1.1": {"n0"}, "1.2": {"n0"}, "1.3": names | {"x"}})
    assert gap_homes(collapsed, "pkg", "pkg", "x", versions, 1, 2) == []
