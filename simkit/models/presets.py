"""Named rule variants ("presets"): parameter overrides of a model.

Each model class declares its own (``Model.presets``, preset name -> overrides):

- ``seed`` (every model): the seed document as written, i.e. the defaults.
- ``pf2e-core`` (``dying``, ``encounter``): Pathfinder 2e as published
  (:data:`simkit.models.dying.PF2E_CORE`).

A model that chooses its dying system with a ``rules`` parameter (``party``, ``day``)
also has the three systems of :mod:`simkit.rules.dying_systems` as presets, ``seed000``,
``pf2e-core`` and ``seed001`` (``--preset pf2e-core`` = ``--set rules=pf2e-core``), and
they are its default variants in ``simkit compare`` (:func:`default_variants`). A model
that carries the seed-000 dying options itself and chooses the track with
``dying_rules`` (``encounter``) has them too: ``seed000`` (the seed-000 options on the
seed-000 track: the defaults, the same rules as ``seed``), ``pf2e-core`` (the published
options on that track) and ``seed001`` (``dying_rules=seed001``).

:data:`PRESETS` is a read-only view, model name -> its presets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from simkit.core.params import ParamError, spec

__all__ = ["PRESETS", "default_variants", "preset_params", "rule_set_presets"]


def rule_set_presets(cls) -> dict[str, dict]:
    """The dying systems as presets of ``cls`` (empty when it has no way to choose them):
    ``rules=<system>`` for a model with a ``rules`` choice of the systems; for a model
    with a ``dying_rules`` choice of the tracks and the seed-000 options as parameters,
    the track (``dying_rules``: the system's own, else ``seed000``) and the system's
    options (:func:`simkit.rules.dying_systems.options`)."""
    from simkit.rules.dying_systems import SYSTEMS, options

    params = spec(cls)
    rules = params.get("rules")
    if rules is not None and rules["kind"] == "choice" and set(SYSTEMS) <= set(rules["choices"]):
        return {s: {"rules": s} for s in SYSTEMS}
    track = params.get("dying_rules")
    if track is None or track["kind"] != "choice":
        return {}
    out = {}
    for s in SYSTEMS:
        opts = options(s)
        if not set(opts) <= set(params):
            return {}
        out[s] = {"dying_rules": s if s in track["choices"] else "seed000", **opts}
    return out


class _Presets(Mapping):
    """Model name -> {preset name: overrides}, read from the registered model classes."""

    def __getitem__(self, name: str) -> dict[str, dict]:
        from simkit.models import REGISTRY

        cls = REGISTRY[name]
        own = dict(cls.presets)
        for k, v in rule_set_presets(cls).items():
            own.setdefault(k, v)
        return own

    def __iter__(self) -> Iterator[str]:
        from simkit.models import REGISTRY

        return iter(REGISTRY)

    def __len__(self) -> int:
        from simkit.models import REGISTRY

        return len(REGISTRY)


PRESETS: Mapping[str, dict[str, dict]] = _Presets()


def preset_params(model: str, preset: str) -> dict:
    """Overrides of ``preset`` for ``model``."""
    table = PRESETS.get(model, {"seed": {}})
    if preset not in table:
        raise ParamError(
            f"unknown preset {preset!r} for model {model!r}; known: {', '.join(table)}"
        )
    return dict(table[preset])


def default_variants(model: str) -> list[str]:
    """The presets ``simkit compare MODEL`` (and :func:`simkit.analysis.compare.variants`)
    compares unless told: the dying systems of a model that chooses them
    (:func:`rule_set_presets`: ``party``, ``day``, ``encounter``: seed000, pf2e-core,
    seed001), else every preset of the model."""
    from simkit.models import REGISTRY

    cls = REGISTRY.get(model)
    if cls is not None:
        systems = rule_set_presets(cls)
        if systems:
            return list(systems)
    return list(PRESETS.get(model, {"seed": {}}))
