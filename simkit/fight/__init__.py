"""The fight, written once per track and compiled (issue 28, first stage).

Between :mod:`simkit.rules` (what each rule says, as scalar references) and
:mod:`simkit.models` (what a designer asks): the fight's state (:mod:`.state`), the
tables the loop reads, built from the rules (:mod:`.tables`), dice by counter
(:mod:`.dice`), what happens to a PC (:mod:`.phases`), the roles' tactics
(:mod:`.tactics`), the loop (:mod:`.loop`) and a block of tracks (:mod:`.block`).
This package imports only :mod:`simkit.core` and :mod:`simkit.rules`.
"""

__all__: list[str] = []
