"""load_dataset(ignore_verifications=...), as datasets 2.x code writes it."""
import tempfile
from pathlib import Path

from datasets import load_dataset

folder = Path(tempfile.mkdtemp())
(folder / "train.csv").write_text("text\nthe model answers\nin a short sentence\n")
dataset = load_dataset("csv", data_files=str(folder / "train.csv"), split="train", ignore_verifications=True)
print("kb-drift rows", len(dataset))
