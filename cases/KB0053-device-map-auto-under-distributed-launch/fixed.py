"""KB0053 device-map-auto-under-distributed-launch: the fixed program.

The same run, with each process loading the whole model on its own device: device_map={"": args.device}
(cuda:<local rank> on a GPU machine, the CPU here; accelerate's PartialState().process_index names the same
GPU). All the weights are on that one device, the Trainer wraps the model in DistributedDataParallel and
the two processes train together.
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

model = AutoModelForCausalLM.from_pretrained(checkpoint, device_map={"": args.device})
if args.process_index == 0:  # one process prints: two writing at once can join their lines
    print(f"kb-measure devices={len({p.device for p in model.parameters()})}")

ids = tokenizer(tiny.texts(16))["input_ids"]
train_data = [{"input_ids": row, "labels": row} for row in ids]
trainer = Trainer(model=model, args=args, train_dataset=train_data)
result = trainer.train()
if trainer.is_world_process_zero():
    print(f"kb-measure world_size={args.world_size}")
    print(f"kb-measure train_steps={result.global_step}")
