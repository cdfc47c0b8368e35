"""The rules of the seeds, each written once: dice, the rule phases that models compose,
PF2e numbers by level, fall heights, fatigue penalties, rest and healing. Imports only
:mod:`simkit.core`."""
