# family: model-unsupported
# set: runtime-43
# expect: Unrecognized configuration class|AutoModelForSeq2SeqLM
# note: a summarisation fine-tune script loading a Llama checkpoint through AutoModelForSeq2SeqLM before Seq2SeqTrainer
import _tiny
from transformers import AutoModelForSeq2SeqLM, Seq2SeqTrainer, Seq2SeqTrainingArguments

model = AutoModelForSeq2SeqLM.from_pretrained(_tiny.saved_llama())
trainer = Seq2SeqTrainer(model=model, args=Seq2SeqTrainingArguments(output_dir="/tmp/s2s43", use_cpu=True, report_to=[]))
