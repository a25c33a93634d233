"""datasets 3 has no metrics: they live in the `evaluate` library (evaluate.load("accuracy")).

evaluate is not part of this stack, so the program computes the metric itself and shows
that datasets itself still imports.
"""
import datasets

predictions, references = [1, 0, 1, 1], [1, 0, 0, 1]
accuracy = sum(p == r for p, r in zip(predictions, references)) / len(references)
print("kb-drift accuracy", accuracy, datasets.__version__)
