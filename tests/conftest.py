import os

os.environ.setdefault("MPLBACKEND", "Agg")
# Tables print at full width in every test: a COLUMNS of the runner (a terminal, or
# pytest-xdist's workers, which set it to 80) would wrap them (simkit.cli.text). A test
# about wrapping sets COLUMNS itself.
os.environ.pop("COLUMNS", None)
