"""``python -m dyncall_rewrite``: same as the ``dyncall-rewrite`` command."""

import sys

from dyncall_rewrite.cli import main

sys.exit(main())
