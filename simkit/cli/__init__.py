"""The ``simkit`` command line (``simkit.cli.main.main``)."""
