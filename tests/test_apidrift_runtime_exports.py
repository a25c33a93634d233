"""Exports as an attribute access finds them (targets' `runtime_exports`, torch; turn 43): names bound only for a type
checker, a stub's imports and submodules no running import binds are not exports."""

from __future__ import annotations

import zipfile
from pathlib import Path

from kb.apidrift.exports import ModuleIndex
from kb.apidrift.extract import read_module
from kb.apidrift.history import targets
from kb.apidrift.wheel import Wheel

# shaped like torch 2.4: the compiled torch._C known from stubs that import typing names for their annotations, a
# top level that star-imports the stub and imports Any from typing itself; torch.nn.backends a package nothing imports
FILES = {
    "torch/__init__.py": '''
from typing import Any, TYPE_CHECKING
from torch._C import *
if TYPE_CHECKING:
    from torch.types import IntLikeType
    from torch import onnx as onnx
import torch.nn
from . import optim
_lazy_modules = {"onnx"}
def __getattr__(name):
    if name in _lazy_modules:
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(name)
''',
    "torch/_C/__init__.pyi": '''
from typing import Any, Optional
from torch.types import Device
from torch._C import _nn as _nn
from collections.abc import Sequence as Sequence
class Generator: ...
def _cuda_getDeviceCount() -> int: ...
''',
    "torch/_C/_VariableFunctions.pyi": "from typing import Any, overload\ndef matmul(a: Any, b: Any) -> Any: ...\n",
    "torch/types.py": "from typing import Union\nIntLikeType = Union[int]\nDevice = Union[str]\n",
    "torch/onnx/__init__.py": "def export(model): ...\n",
    "torch/nn/__init__.py": "from .modules import Linear\n",
    "torch/nn/modules/__init__.py": "from .linear import Linear\n",
    "torch/nn/modules/linear.py": "class Linear: ...\n",
    "torch/nn/backends/__init__.py": "",
    "torch/nn/backends/thnn.py": "backend = None\n",
    "torch/optim/__init__.py": "from . import adam\nfrom .adam import Adam\ndel adam\n",
    "torch/optim/adam.py": "class Adam: ...\n",
    "torch/utils/__init__.py": "",
    "torch/utils/tensorboard.py": "class SummaryWriter: ...\n",
}


def _index(tmp_path: Path, files: dict[str, str], runtime: bool = True) -> ModuleIndex:
    path = tmp_path / "torch-2.4.0-cp312-none-macosx_11_0_arm64.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return ModuleIndex(Wheel(path, "torch"), runtime=runtime)


def test_a_stubs_typing_imports_are_not_its_exports_nor_those_of_a_star_import(tmp_path: Path) -> None:
    index = _index(tmp_path, FILES)
    assert index.exports("torch._C") == {"Generator", "Sequence"}  # `X as X` re-exports (PEP 484)
    assert index.exports("torch._C._VariableFunctions") == {"matmul"}
    top = index.exports("torch")
    assert "Generator" in top and "Optional" not in top and "Device" not in top
    assert "Any" in top  # the top level's own run-time import
    no_any = dict(FILES, **{"torch/__init__.py": FILES["torch/__init__.py"].replace("Any, ", "")})
    assert "Any" not in _index(tmp_path, no_any).exports("torch")
    # without runtime_exports (the other libraries), every binding counts as before
    assert {"Optional", "Device"} <= _index(tmp_path, FILES, runtime=False).exports("torch._C")


def test_type_checking_names_and_deleted_names_are_not_exports_unless_getattr_serves_them(tmp_path: Path) -> None:
    top = _index(tmp_path, FILES).exports("torch")
    assert "IntLikeType" not in top  # bound only for a type checker
    assert "onnx" in top  # named in the strings of a module with __getattr__: served lazily
    assert "optim" in top and "adam" not in _index(tmp_path, FILES).exports("torch.optim")  # `del adam`
    assert "IntLikeType" in _index(tmp_path, FILES, runtime=False).exports("torch")


def test_a_submodule_is_an_export_only_where_an_import_that_runs_binds_it(tmp_path: Path) -> None:
    index = _index(tmp_path, FILES)
    assert "modules" in index.exports("torch.nn")
    assert "backends" not in index.exports("torch.nn")  # torch 1.3.0 on: nothing imports torch.nn.backends
    assert "tensorboard" not in index.exports("torch.utils")
    assert "backends" in _index(tmp_path, FILES, runtime=False).exports("torch.nn")
    # torch 1.2.0: nn/modules/module.py imports torch.nn.backends.thnn, which binds backends on torch.nn
    bound = dict(FILES, **{"torch/nn/modules/linear.py": "import torch.nn.backends.thnn\nclass Linear: ...\n"})
    index = _index(tmp_path, bound)
    assert "backends" in index.exports("torch.nn") and "thnn" in index.exports("torch.nn.backends")
    # a package's own imports bind its submodules for a user who imports it alone
    own = dict(FILES, **{"torch/utils/__init__.py": "from . import tensorboard\n"})
    assert "tensorboard" in _index(tmp_path, own).exports("torch.utils")


def test_torch_is_read_for_its_runtime_exports() -> None:
    spec = targets()["torch"]
    assert spec.get("runtime_exports") is True
    assert read_module(spec, "torch._C") and not read_module(spec, "torch._inductor.codegen")
