"""``python -m tricktable.cli``: the ``tricktable`` command (a server of its own is started so)."""

import sys

from tricktable.cli import main

sys.exit(main())
