# family: training-data
# set: runtime-42
# wave: 2
# expect: ArrowInvalid|ArrowTypeError|Could not convert|convert
# note: Dataset.from_pandas over a DataFrame whose 'score' column mixes numbers and strings ('n/a')
import pandas as pd
from datasets import Dataset

df = pd.DataFrame({"text": ["a", "b", "c"], "score": [1, 2, "n/a"]})
ds = Dataset.from_pandas(df)
