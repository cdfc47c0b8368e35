"""``python -m simkit`` runs the ``simkit`` command."""

import sys

from .cli import main

sys.exit(main())
