"""``python -m simkit`` runs the ``simkit`` command."""

import sys

from simkit.cli.main import main

sys.exit(main())
