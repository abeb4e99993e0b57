import sys

from masta.cli import main

sys.exit(main())
