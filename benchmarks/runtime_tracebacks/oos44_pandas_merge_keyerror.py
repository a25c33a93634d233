# family: none
# set: runtime-44
# mode: pyc
# expect: KeyError
# note: out of scope: python -c, a results table joined on a column one of the frames does not have (pandas)
import pandas as pd
runs = pd.DataFrame({"run_id": [1, 2], "lr": [1e-4, 2e-4]})
scores = pd.DataFrame({"run": [1, 2], "rouge": [0.31, 0.29]})
table = runs.merge(scores, on="run_id")
