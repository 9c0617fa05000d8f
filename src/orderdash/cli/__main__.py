"""`python -m orderdash.cli`: the same as `orderdash`."""

import sys

from orderdash.cli import main

sys.exit(main())
