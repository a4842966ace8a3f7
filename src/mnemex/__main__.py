import sys

from mnemex.entry import main

sys.exit(main())
