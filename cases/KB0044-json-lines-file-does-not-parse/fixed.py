"""Load a JSON Lines training file in which one line lost a comma: validate every line first.

Each line is parsed with json.loads; the lines that do not parse are reported by number and left out
(or repaired by hand), and only the clean file goes to load_dataset.
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

# The fix: find the lines that are not one JSON object each, and keep only those that are.
good, bad = [], []
with open(folder / "train.jsonl", encoding="utf-8") as source:
    for number, line in enumerate(source, start=1):
        try:
            good.append(json.dumps(json.loads(line)))
        except json.JSONDecodeError as error:
            bad.append(number)
            print(f"train.jsonl line {number}: {error}")
with open(folder / "train.clean.jsonl", "w", encoding="utf-8") as clean:
    clean.write("\n".join(good) + "\n")

dataset = load_dataset("json", data_files=str(folder / "train.clean.jsonl"), split="train", cache_dir=str(folder / "cache"))
print(f"kb-measure bad_lines={len(bad)}")
print(f"kb-measure rows={len(dataset)}")
