"""Load a JSON Lines training file in which one line was edited by hand and lost a comma.

datasets' JSON builder reads the file with pyarrow, falls back to pandas, and gives up on the whole file.
Nothing is downloaded: the file is written to a temporary folder.
"""

import json
import tempfile
from pathlib import Path

from datasets import load_dataset

folder = Path(tempfile.mkdtemp())
rows = [{"instruction": f"say hello {i} times", "output": " ".join(["hello"] * i)} for i in range(1, 12)]
lines = [json.dumps(row) for row in rows]
lines[5] = '{"instruction": "say hello 6 times" "output": "hello hello hello hello hello hello"}'  # the comma is missing
(folder / "train.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

dataset = load_dataset("json", data_files=str(folder / "train.jsonl"), split="train", cache_dir=str(folder / "cache"))
print(f"kb-measure rows={len(dataset)}")
