"""``python -m pyrua_local``: see ``pyrua_local.cli``."""

import sys

from .cli import main

sys.exit(main())
