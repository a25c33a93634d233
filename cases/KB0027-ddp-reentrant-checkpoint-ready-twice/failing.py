"""LoRA fine-tuning with Trainer under torchrun (2 CPU processes, gloo) and reentrant activation checkpointing.

The script asks for activation (gradient) checkpointing with use_reentrant=True, as many LoRA/QLoRA
recipes do. Trainer wraps the PeftModel in DistributedDataParallel; because a PeftModel is not a
PreTrainedModel, Trainer leaves ddp_find_unused_parameters at True. The reentrant checkpoint runs
each decoder layer's forward under no_grad, so DDP finds the LoRA weights unused and marks them
ready at the end of forward; the backward pass then recomputes the layer and their hooks fire again.
"""

import inspect
import tempfile
from peft import LoraConfig, get_peft_model
from transformers import DataCollatorForLanguageModeling, Trainer, TrainingArguments

from kb.fixtures import tiny

tok = tiny.tokenizer()
base = tiny.causal_lm(tok)
# As LoRA recipes do (prepare_model_for_kbit_training calls it): the embeddings' output requires grad, so a
# reentrant checkpoint of the first layer has an input to differentiate. Without it, transformers releases
# before 5 (4.56 here) fail the first backward with "element 0 of tensors does not require grad" instead.
base.enable_input_require_grads()
model = get_peft_model(
    base,
    LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"),
)
train = [tok(text) for text in tiny.texts(8)]

# transformers 5.23 renamed gradient_checkpointing(_kwargs) to activation_checkpointing(_kwargs): use the
# names the installed release knows, so the program runs on every release in the case's range.
if "activation_checkpointing" in inspect.signature(TrainingArguments.__init__).parameters:
    checkpointing = dict(activation_checkpointing=True, activation_checkpointing_kwargs={"use_reentrant": True})
else:
    checkpointing = dict(gradient_checkpointing=True, gradient_checkpointing_kwargs={"use_reentrant": True})

args = TrainingArguments(
    output_dir=tempfile.mkdtemp(prefix="kb-KB0027-"),
    max_steps=2,
    per_device_train_batch_size=2,
    learning_rate=1e-3,
    **checkpointing,
    ddp_backend="gloo",
    use_cpu=True,
    save_strategy="no",
    report_to=[],
    logging_steps=1,
    disable_tqdm=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train,
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
result = trainer.train()
if trainer.is_world_process_zero():
    print(f"kb-measure steps={result.global_step}")
    print(f"kb-measure train_loss={result.training_loss:.4f}")
