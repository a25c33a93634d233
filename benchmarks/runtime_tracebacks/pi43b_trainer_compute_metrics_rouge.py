# family: package-install
# set: runtime-43
# wave: 2
# expect: No module named|rouge
# note: Trainer.evaluate with a compute_metrics that imports rouge_score, not installed in the evaluation image
import numpy as np
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()


def compute_metrics(pred):
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"])
    return {"rougeL": float(np.mean([0.0]))}


trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), eval_dataset=_tiny.tokenized(tok, pad_to=8),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False), compute_metrics=compute_metrics)
trainer.evaluate()
