"""optim='paged_adamw_32bit', as QLoRA notebooks write it (bitsandbytes is needed only at train time)."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), optim="paged_adamw_32bit", report_to="none")
print("kb-drift built", type(args).__name__, args.optim)
