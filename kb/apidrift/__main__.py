import sys

from kb.apidrift.build import main

sys.exit(main(sys.argv[1:]))
