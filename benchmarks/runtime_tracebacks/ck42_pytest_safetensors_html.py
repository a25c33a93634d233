# family: checkpoint-io
# set: runtime-42
# mode: pytest
# expect: SafetensorError|HeaderTooLarge|deserializ
# note: pytest: load_file on a model.safetensors that is an HTML error page saved in its place
import tempfile
from safetensors.torch import load_file


def test_load_weights():
    path = tempfile.mktemp(suffix=".safetensors")
    with open(path, "w") as f:
        f.write("<!DOCTYPE html><html><head><title>Error</title></head><body>Not found</body></html>")
    state = load_file(path)
    assert state
