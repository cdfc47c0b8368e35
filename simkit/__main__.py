"""``python -m simkit`` runs the ``simkit`` command.

Run without simkit's environment (``python3 -m simkit`` from the repository root, where
the package is found but its dependencies are not), it says in one line what to run.
"""

import sys
from importlib.util import find_spec

#: What every verb needs (numpy and pandas are imported lazily, so look before running).
NEEDED = ("numpy", "pandas", "scipy")


def _without_environment(name: str) -> int:
    print(
        f"simkit: {name} is not installed for {sys.executable}: run `python3 tasks.py install` "
        "once, then `.venv/bin/simkit ...` (or `. .venv/bin/activate` first)",
        file=sys.stderr,
    )
    return 2


def _run() -> int:
    missing = [m for m in NEEDED if find_spec(m) is None]
    if missing:
        return _without_environment(missing[0])
    try:
        from simkit.cli.main import main

        return main()
    except ModuleNotFoundError as exc:  # a dependency imported on first use
        if exc.name is None or exc.name.split(".")[0] == "simkit":
            raise
        return _without_environment(exc.name)


sys.exit(_run())
