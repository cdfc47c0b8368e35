"""The engine room: parameters, random streams, the Monte Carlo engine, the exact solver,
chains of models, results and their statistics. Imports nothing else from simkit."""
