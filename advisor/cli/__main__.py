"""`python -m advisor.cli ...`: the same entry point as the `advisor-cli` script."""

import sys

from advisor.cli import main

sys.exit(main())
