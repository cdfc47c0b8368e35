"""Planning a sweep: the grid resolved into models and seeds, checked before anything runs."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from simkit.analysis.grid import Grid, make_grid, resolve_point, sweep_keys_for
from simkit.core.params import ParamError, seed_params, spec
from simkit.core.stats import check_level
from simkit.core.streams import point_seed, resolve_seed

EXECUTORS = ("local", "dask")


def version_string() -> str:
    from simkit.core.version import __version__

    return __version__


@dataclass(frozen=True)
class SweepPlan:
    """Every point of a sweep, checked and built before anything runs."""

    model_name: str
    grid: Grid
    base: dict  # preset and model-instance values under the grid
    n: int | None  # None in exact-only mode
    seed: int | None
    mode: str  # "mc", "exact" or "survival"
    exact_survival: bool
    level: float
    points: list  # grid values of each point
    derived: list  # derived parameters of each point
    models: list  # rules of each point
    seeds: list  # point seed of each point (None in exact mode)
    keys: list  # journal key of each point
    params_json: list = dataclasses.field(default_factory=list)  # the ``params`` column

    @property
    def fixed_key_columns(self) -> list[str]:
        """Sweep keys held fixed (``fixed={"level": 5}``, ``--set level=5``): columns too."""
        params = spec(self.grid.model)
        return [k for k in self.grid.fixed if k not in params and k not in self.grid.axes]

    @property
    def derived_columns(self) -> list[str]:
        cols: list[str] = []
        for d in self.derived:
            for k in d:
                if k not in cols and k not in self.grid.axes:
                    cols.append(k)
        return cols

    def fingerprint(self) -> dict:
        """What must match for a journal to be resumed."""
        return {
            "model": self.model_name,
            "base": self.base,
            "fixed": self.grid.fixed,
            "axes": {k: list(v) for k, v in self.grid.axes.items()},
            "n": self.n,
            "seed": self.seed,
            "mode": self.mode,
            "level": self.level,
            "version": version_string(),
        }


def _model_class_and_base(model, preset):
    from simkit.core.model import Rules
    from simkit.models import REGISTRY, get_model
    from simkit.models.presets import preset_params

    if isinstance(model, dict):  # {"model": name, "preset": ..., params and derived keys}
        from simkit.models import as_rules

        model = as_rules(model)
    if isinstance(model, str):
        cls, base = get_model(model), {}
    elif isinstance(model, type) and issubclass(model, Rules):
        cls, base = model, {}
    elif isinstance(model, Rules):
        cls = type(model)
        defaults = {k: m["default"] for k, m in spec(cls).items()}
        base = {k: v for k, v in model.params().items() if v != defaults[k]}
    else:
        raise ParamError(
            f"model must be a model name ({', '.join(REGISTRY)}), a rules class, rules or a "
            f"parameter dict ({{'model': 'dying', 'level': 3}}); got {model!r}"
        )
    if preset:
        base = {**preset_params(cls.name, preset), **base}
    return cls, base


#: One encoder for every key (``json.dumps`` with options builds a new one at each call).
_CANONICAL = json.JSONEncoder(sort_keys=True, default=str, separators=(",", ":"))


def _explicit_dc_wins(base: dict, explicit: set) -> dict:
    """``base`` (the rules a sweep starts from) without the recovery DC a monster's level set
    (``monster_level``, R0-06; ``level`` sets it on dying) when the grid or its fixed values
    give ``dc`` (the two are exclusive): the DC asked for replaces the level's."""
    if "dc" in explicit and "monster_level" not in explicit and "monster_level" in base:
        return {k: v for k, v in base.items() if k != "monster_level"}
    return base


def canonical(values: dict) -> str:
    """``values`` as compact JSON, keys sorted (a point's journal key, its ``params``)."""
    return _CANONICAL.encode(values)


def plan_sweep(
    model,
    grid=None,
    n: int | None = 100_000,
    rng=None,
    *,
    fixed=None,
    preset=None,
    exact_only: bool = False,
    survival: bool = False,
    level: float = 0.95,
    max_points: int | None = None,
) -> SweepPlan:
    """Check a sweep and build the rules of every point (no simulation).

    Errors are :class:`~simkit.core.params.ParamError` with one line naming the key, or
    the point and the parameter, at fault.
    """
    from simkit.core.engine import check_n

    cls, base = _model_class_and_base(model, preset)
    g = grid if isinstance(grid, Grid) else make_grid(cls, grid or {}, fixed or {}, max_points)
    if isinstance(grid, Grid) and fixed:
        raise ParamError("give fixed values either in the Grid or as fixed=, not both")
    base = _explicit_dc_wins(base, set(g.fixed) | set(g.axes))
    _check_axes_take_effect(cls, g, {**base, **g.fixed})
    level = float(check_level(level))
    if exact_only:
        if not _has_exact_cls(cls, base, g):
            raise ParamError(
                f"model {cls.name!r} has no exact solver: drop exact_only (--exact-only)"
            )
        n_ = seed = None
    else:
        n_ = check_n(n)
        seed = resolve_seed(rng)
    mode = "survival" if survival else ("exact" if exact_only else "mc")
    points: list[dict] = []
    derived: list[dict] = []
    models: list = []
    seeds: list[int | None] = []
    keys: list[str] = []
    params_json: list[str] = []
    pspec = spec(cls)
    defaults = {k: m["default"] for k, m in pspec.items()}
    cache = (pspec, sweep_keys_for(cls))
    for point in g.points():
        values = {**base, **g.fixed, **point}
        try:
            params, der = resolve_point(cls, values, cache)
            m = cls(**params)  # keys were checked by make_grid
        except ParamError as exc:
            where = ", ".join(f"{k}={v}" for k, v in point.items())
            raise ParamError(f"grid point {where}: {exc}" if where else str(exc)) from None
        if exact_only:
            _check_exact_size(m, point)
        points.append(point)
        derived.append(der)
        models.append(m)
        keys.append(canonical(point))
        full = {k: getattr(m, k) for k in defaults}
        params_json.append(canonical({k: v for k, v in full.items() if v != defaults[k]}))
        if seed is not None:
            # the options declared seed_neutral are left out at their default (an option
            # added later does not re-seed the sweeps made before it)
            seeds.append(point_seed(seed, {"model": cls.name, **seed_params(m)}))
        else:
            seeds.append(None)
    return SweepPlan(
        cls.name,
        g,
        base,
        n_,
        seed,
        mode,
        bool(exact_only and survival),
        level,
        points,
        derived,
        models,
        seeds,
        keys,
        params_json,
    )


def _check_axes_take_effect(cls, g: Grid, given: dict) -> None:
    """A grid key that only sets parameters already given would change nothing: say so."""
    from simkit.analysis.grid import sweep_keys_for
    from simkit.core.params import spec

    params = spec(cls)
    keys = sweep_keys_for(cls)
    for name in g.axes:
        k = keys.get(name)
        if k is None or k.derive is None or k.adds:
            continue
        targets = [t for t in k.sets if t in params]
        if targets and all(t in given for t in targets):
            shown = ", ".join(f"{t}={given[t]!r}" for t in targets)
            raise ParamError(
                f"--grid {name}: it sets {', '.join(targets)}, which the model or --set already "
                f"gives ({shown}); drop that value to sweep {name}"
            )


def _check_exact_size(model, point: dict) -> None:
    """Exact-only: refuse, before anything runs, a point whose chain is known to be too
    large from its first states (:meth:`exact_initial` raises
    :class:`~simkit.core.exact.ExactTooLarge`, e.g. a party duel past its state bound;
    microseconds per point). A chain found too large only once enumerated is refused when
    it is solved."""
    from simkit.core.exact import ExactTooLarge

    if model.is_chain or not model.has_exact:
        return
    try:
        model.exact_initial()  # (a party duel refuses past its bound; others with exact_hist: none)
    except ExactTooLarge as exc:
        where = ", ".join(f"{k}={v}" for k, v in point.items())
        raise ParamError(
            f"--exact-only: {f'grid point {where}: ' if where else ''}{exc}; drop --exact-only "
            "(its exact column is then empty)"
        ) from None
    except NotImplementedError:
        return


def _has_exact_cls(cls, base, g) -> bool:
    has = cls.has_exact  # a bool, or a property of chains (it depends on their stages)
    if isinstance(has, bool):
        return has
    # a property (chains): ask one point
    first: dict = next(iter(g.points()), {})
    try:
        params, _ = resolve_point(cls, {**base, **g.fixed, **first})
        return bool(cls.from_params(**params).has_exact)
    except ParamError:
        return True  # the point's own error will be reported by the planner


def outcome_names(model) -> tuple[str, ...]:
    return tuple(model.all_outcomes)
