"""simkit: how deadly are your rules? Monte Carlo and exact odds for tabletop-RPG dying rules.

Quick start::

    import simkit
    # a level-5 PC downed by a level-5 monster
    model = simkit.Dying(save_bonus=11, monster_level=5)
    res = simkit.simulate(model, 1_000_000, rng=42)        # vectorised Monte Carlo
    res.summary()        # outcome, kind, count, n, p, ci_low, ci_high, exact
    res.survival()       # P(dead by round t), P(still dying)... with intervals
    simkit.solve(model)["dead"]                            # the exact answer
    simkit.make_model("dying", "pf2e-core")                # the published variant
    simkit.simulate("dying", 10_000, rng=1, level=3)       # as --set level=3 (HP, save)
    simkit.calibrate("dying", "10%", "dc", character_level=5)  # the DC that gives 10% deaths

Models (``simkit models`` on the command line, ``simkit.REGISTRY`` here): ``dying`` (seed
000), ``perseverance``, ``recovery``, ``agony`` (seed 001), ``fatigue``, ``fall``,
``fall_dying``, ``fall_perseverance`` (seed 004), ``encounter``, and D&D presets.
``help(simkit.Dying)`` (or any model class) lists every parameter with its default,
range and rule id; the rules themselves are stated in ``docs/rules.md``.

Layers: :mod:`simkit.core` (engine, exact solver, results), :mod:`simkit.rules` (each
rule written once), :mod:`simkit.models`, :mod:`simkit.analysis` (sweeps, compare,
calibrate, reports, plots), :mod:`simkit.cli`.
"""

import functools
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below are imported on first use (a fast `simkit --help`)
    from simkit.analysis.compare import compare
    from simkit.analysis.design import calibrate, sensitivity
    from simkit.analysis.sweep import sweep
    from simkit.core.engine import simulate
    from simkit.core.exact import ExactResult, solve
    from simkit.core.params import ParamError
    from simkit.core.result import Result
    from simkit.core.version import __version__
    from simkit.models import REGISTRY, get_model, make_model
    from simkit.models.custom import CustomTrack, track
    from simkit.models.dying import Dying

#: public name -> the module that defines it
_HOMES = {
    "compare": "simkit.analysis.compare",
    "calibrate": "simkit.analysis.design",
    "sensitivity": "simkit.analysis.design",
    "sweep": "simkit.analysis.sweep",
    "simulate": "simkit.core.engine",
    "ExactResult": "simkit.core.exact",
    "solve": "simkit.core.exact",
    "ParamError": "simkit.core.params",
    "Result": "simkit.core.result",
    "__version__": "simkit.core.version",
    "REGISTRY": "simkit.models",
    "get_model": "simkit.models",
    "make_model": "simkit.models",
    "CustomTrack": "simkit.models.custom",
    "track": "simkit.models.custom",
    "Dying": "simkit.models.dying",
}


#: public functions whose first argument is a model: here they also take a model's name
#: (``simkit.simulate("dying", 1000)``), its class (``simkit.solve(simkit.Dying)``) or a
#: parameter dict (``simkit.simulate({"model": "dying", "level": 3}, 1000)``).
#: ``sweep`` and ``compare`` take both already.
_TAKE_A_MODEL = ("simulate", "solve", "calibrate", "sensitivity")


def _as_model(model: Any) -> Any:
    """A model's rules from rules, a rules class (its defaults), a registered name or a
    parameter dict (``{"model": "dying", "level": 3}``): :func:`simkit.models.as_rules`."""
    from simkit.models import as_rules

    return as_rules(model)


def _taking_names(fn: Any) -> Any:
    """``fn`` with its first argument (``model``) resolved by :func:`_as_model`."""

    import inspect

    sig = inspect.signature(fn).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.values())

    @functools.wraps(fn)
    def wrapper(model: Any, *args: Any, **kwargs: Any) -> Any:
        if takes_any:  # calibrate, sensitivity: they apply the model's parameters themselves
            return fn(_as_model(model), *args, **kwargs)
        # simulate, solve: keywords they do not take are the model's parameters and keys
        # (``simkit.simulate("dying", 1000, 1, level=3)``, as ``--set level=3``)
        params = {k: kwargs.pop(k) for k in list(kwargs) if k not in sig}
        from simkit.models import as_rules

        rules = _as_model(model)
        if params:
            from simkit.core.names import suggest
            from simkit.core.params import spec
            from simkit.models.keys import sweep_keys_for
            from simkit.rules.penalties import FATIGUE_KEYS

            known = [*spec(type(rules)), *sweep_keys_for(type(rules)), *FATIGUE_KEYS]
            bad = [k for k in params if k not in known]
            if bad:
                raise TypeError(
                    f"{fn.__name__}() got an unexpected keyword argument {bad[0]!r}, not a "
                    f"parameter of model {rules.name!r} either"
                    f"{suggest(bad[0], [*sig, *known])}"
                )
            rules = as_rules(rules, **params)
        return fn(rules, *args, **kwargs)

    doc = fn.__doc__ or ""
    for was in ("    model : Rules or str\n", "    model : Rules\n"):
        if was in doc:
            doc = doc.replace(
                was, "    model : Rules, Rules class, str (model name) or dict (parameters)\n", 1
            )
            break
    wrapper.__doc__ = doc
    return wrapper


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562): ``import simkit`` stays light."""
    home = _HOMES.get(name)
    if home is None:
        from simkit.core.names import suggest

        raise AttributeError(f"module 'simkit' has no attribute {name!r}{suggest(name, _HOMES)}")
    value = getattr(import_module(home), name)
    if name in _TAKE_A_MODEL:
        value = _taking_names(value)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


__all__ = [
    "simulate",
    "solve",
    "sweep",
    "compare",
    "Result",
    "ExactResult",
    "ParamError",
    "REGISTRY",
    "get_model",
    "make_model",
    "Dying",
    "calibrate",
    "sensitivity",
    "track",
    "CustomTrack",
    "__version__",
]
