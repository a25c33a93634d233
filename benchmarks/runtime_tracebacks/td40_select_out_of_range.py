# family: training-data
# set: runtime-40
# expect: out of range|IndexError
# note: a subsampling step select(range(1000)) on a dataset that kept 8 rows after filtering
import _tiny

ds = _tiny.text_dataset()
small = ds.select(range(1000))
print(len(small))
