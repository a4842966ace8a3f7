import sys

from mnemex.cli import main

sys.exit(main())
