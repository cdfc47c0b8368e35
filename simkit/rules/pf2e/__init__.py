"""The published Pathfinder 2e tables and their readers, apart from the seed phases.

- :mod:`~simkit.rules.pf2e.levels`: numbers that change with level (DCs, saves, PP).
- :mod:`~simkit.rules.pf2e.pcs`: player characters by role and level (Player Core).
- :mod:`~simkit.rules.pf2e.creatures`: Building Creatures benchmarks (GM Core).
- :mod:`~simkit.rules.pf2e.budget`: the encounter budget (P-06) and lineups.
- :mod:`~simkit.rules.pf2e.foundry`: Foundry VTT pf2e NPC actors and the bundled sample
  bestiary (Monster Core, ORC license: ``data/foundry/NOTICE.md``).

The tables themselves are in ``simkit/rules/pf2e/data`` with their sources
(docs/pf2e-sources.md).
"""
