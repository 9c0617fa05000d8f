import sys

from orderdash.cli import main

sys.exit(main())
