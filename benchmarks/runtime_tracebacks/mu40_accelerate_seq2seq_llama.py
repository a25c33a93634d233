# family: model-unsupported
# set: runtime-40
# mode: accelerate
# expect: Unrecognized configuration class
# note: accelerate launch, 2 processes; AutoModelForSeq2SeqLM on a Llama checkpoint (a summarisation recipe pointed at a decoder-only model)
import _tiny
from accelerate import Accelerator
from transformers import AutoModelForSeq2SeqLM

acc = Accelerator(cpu=True)
folder = _tiny.saved_llama()
model = AutoModelForSeq2SeqLM.from_pretrained(folder)
