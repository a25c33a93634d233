"""TrainingArguments without the removed argument."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), save_strategy="no", report_to="none")
print("kb-drift built", type(args).__name__)
