# family: api-drift
# set: runtime-41
# mode: srunlabel
# expect: list_metrics|has no attribute
# note: srun --label; an evaluation script calls datasets.list_metrics() (metrics moved out to evaluate)
import datasets

print(datasets.list_metrics()[:5])
