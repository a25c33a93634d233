"""TrainingArguments for transformers >= 4.51.0: `eval_strategy`."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), eval_strategy="steps", eval_steps=1, report_to="none")
print("kb-drift built", type(args).__name__)
