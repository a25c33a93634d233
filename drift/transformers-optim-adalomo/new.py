"""optim='adalomo', as the LOMO docs of transformers >= 4.42 write it (the optimizer itself is built at train time)."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), optim="adalomo", report_to="none")
print("kb-drift built", type(args).__name__, args.optim)
