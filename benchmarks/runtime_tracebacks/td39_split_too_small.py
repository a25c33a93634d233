# family: training-data
# set: runtime-39
# wave: 1
# expect: test_size|resulting train set|empty
# note: train_test_split on a filtered dataset that kept two rows
import _tiny

ds = _tiny.text_dataset(8).filter(lambda r: r["text"].startswith("hello"))
ds = ds.select(range(1))
splits = ds.train_test_split(test_size=0.1)
