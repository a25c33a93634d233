"""KB0053 device-map-auto-under-distributed-launch: the failing program.

A causal LM loaded with device_map="auto" and trained with the Trainer under a distributed launch (torchrun,
2 processes). Every process spreads its own copy of the model over the devices it can see, so the model's
hf_device_map has several entries; when the Trainer prepares the model, accelerate refuses to train such a
model in any distributed mode. On a multi-GPU machine "auto" spreads the layers over cuda:0, cuda:1, ...;
on this CPU machine the process's memory budget (max_memory) plays the GPUs' part and "auto" spreads the
layers over the CPU and the disk: either way the map has more than one entry, which is what accelerate
checks. Launched with 2 CPU processes (use_cpu=True: gloo); tiny Llama with random weights saved to a
temporary folder: nothing is downloaded.
"""

import tempfile

from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

from kb.fixtures import tiny

tokenizer = tiny.tokenizer()
checkpoint = tiny.saved(tiny.causal_lm(tokenizer), tokenizer)
args = TrainingArguments(
    output_dir=tempfile.mkdtemp(), max_steps=2, per_device_train_batch_size=1, report_to="none", save_strategy="no",
    use_cpu=True,  # the distributed run on CPU processes (gloo); on GPUs this line is absent
)

model = AutoModelForCausalLM.from_pretrained(
    checkpoint,
    device_map="auto",
    max_memory={"cpu": "300KB"},  # stands in for the GPUs' memory: the model does not fit on one device
    offload_folder=tempfile.mkdtemp(),
)
print(f"hf_device_map: {model.hf_device_map}")

ids = tokenizer(tiny.texts(16))["input_ids"]
train_data = [{"input_ids": row, "labels": row} for row in ids]
trainer = Trainer(model=model, args=args, train_dataset=train_data)
result = trainer.train()
if trainer.is_world_process_zero():
    print(f"kb-measure train_steps={result.global_step}")
