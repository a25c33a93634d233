# family: none
# set: runtime-44
# expect: inconsistent numbers of samples
# note: out of scope: an evaluation script's scikit-learn f1_score over predictions and references of different lengths (no fine-tuning library involved)
from sklearn.metrics import f1_score

preds = [0, 1, 1, 0, 2]
refs = [0, 1, 1, 0]
print(f1_score(refs, preds, average="macro"))
