# family: package-install
# set: runtime-41
# expect: No module named 'evaluate'
# note: a training script with logging set up first, then `import evaluate` in an environment that lacks it
import logging

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", level=logging.INFO)
logging.getLogger(__name__).info("starting the run")
import _tiny  # noqa: E402,F401
import evaluate  # noqa: E402

metric = evaluate.load("rouge")
