"""kb/apidrift/private.py reads deepspeed's sdists (deepspeed ships no wheels for most releases)."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

from kb.apidrift import private

MODULE = '''
from .utils import _helper


class DeepSpeedZeRoOffload:
    def _register_hooks_recursively(self, module):
        pass


def _private_function():
    pass
'''


def _sdist(path: Path) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in (("deepspeed-0.16.2/deepspeed/runtime/zero/parameter_offload.py", MODULE),
                           ("deepspeed-0.16.2/setup.py", "import _not_the_package\n"),
                           ("deepspeed-0.16.2/deepspeed/ops/csrc/kernel.cu", "_not_python")):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_scan_of_an_sdist_drops_its_first_folder(tmp_path: Path) -> None:
    path = tmp_path / "deepspeed-0.16.2.tar.gz"
    _sdist(path)
    found = private.scan_wheel(str(path), "deepspeed")
    assert list(found) == ["deepspeed.runtime.zero.parameter_offload"]  # setup.py and the .cu file are not modules
    bound, words, classes = found["deepspeed.runtime.zero.parameter_offload"]
    assert {"_helper", "_private_function"} <= bound
    assert classes["DeepSpeedZeRoOffload"] == {"_register_hooks_recursively"}


def test_scan_of_a_wheel_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "deepspeed-0.16.3-cp310-cp310-win_amd64.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("deepspeed/runtime/zero/parameter_offload.py", MODULE.replace("_register_hooks_recursively", "_register_deepspeed_module"))
        wheel.writestr("deepspeed-0.16.3.dist-info/METADATA", "Name: deepspeed")
    found = private.scan_wheel(str(path), "deepspeed")
    assert found["deepspeed.runtime.zero.parameter_offload"][2]["DeepSpeedZeRoOffload"] == {"_register_deepspeed_module"}



def test_shipped_private_table_dates_deepspeeds_register_hooks_recursively() -> None:
    private._TABLE.clear()
    found = private.private_member_states("DeepSpeedZeRoOffload", "_register_hooks_recursively")
    assert found is not None
    lib, path, versions, states = found
    assert (lib, path) == ("deepspeed", "deepspeed.runtime.zero.parameter_offload.DeepSpeedZeRoOffload")
    state = dict(zip(versions, states))
    assert state["0.16.3"] == "P" and state["0.16.4"] == "A"  # gone in 0.16.4 (VLM-R1#32's release)
