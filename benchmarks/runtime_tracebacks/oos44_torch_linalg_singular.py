# family: none
# set: runtime-44
# expect: singular
# note: out of scope: a least-squares probe solved with torch.linalg.solve on a rank-deficient covariance (a maths error of the analysis, no failure family of kb's)
import torch

features = torch.ones(16, 4)
cov = features.T @ features
w = torch.linalg.solve(cov, features.T @ torch.randn(16, 1))
