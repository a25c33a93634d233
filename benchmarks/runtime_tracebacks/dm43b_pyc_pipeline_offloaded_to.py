# family: device-mismatch
# set: runtime-43
# wave: 2
# mode: pyc
# expect: offloaded|move|meta
# note: python -c: a text-generation pipeline built with device_map='auto' and a small max_memory, its model then moved with pipe.model.to('cpu')
import tempfile, _tiny
from transformers import pipeline
pipe = pipeline("text-generation", model=_tiny.saved_llama(), device_map="auto",
                model_kwargs={"max_memory": {"cpu": "20KB"}, "offload_folder": tempfile.mkdtemp()})
pipe.model.to("cpu")
