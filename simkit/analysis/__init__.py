"""What designers ask of models: grids and sweeps, comparisons, calibration, sensitivity,
the ambiguity report, standard reports and plots. Imports models, rules and core."""
