"""A local dataset loading script, run with trust_remote_code=True as datasets <= 3.6 allows."""
import tempfile
from pathlib import Path

from datasets import load_dataset

folder = Path(tempfile.mkdtemp()) / "tiny_texts"
folder.mkdir()
(folder / "tiny_texts.py").write_text('''
import datasets

class TinyTexts(datasets.GeneratorBasedBuilder):
    def _info(self):
        return datasets.DatasetInfo(features=datasets.Features({"text": datasets.Value("string")}))

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN)]

    def _generate_examples(self):
        for i, text in enumerate(["the model answers", "in a short sentence"]):
            yield i, {"text": text}
''')
dataset = load_dataset(str(folder / "tiny_texts.py"), split="train", trust_remote_code=True)
print("kb-drift rows", len(dataset))
