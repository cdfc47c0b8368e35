"""Named rule variants ("presets"): parameter overrides of a model.

Each model class declares its own (``Model.presets``, preset name -> overrides):

- ``seed`` (every model): the seed document as written, i.e. the defaults.
- ``pf2e-core`` (``dying``, ``encounter``): Pathfinder 2e as published
  (:data:`simkit.models.dying.PF2E_CORE`).

:data:`PRESETS` is a read-only view, model name -> its presets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from simkit.core.params import ParamError

__all__ = ["PRESETS", "preset_params"]


class _Presets(Mapping):
    """Model name -> {preset name: overrides}, read from the registered model classes."""

    def __getitem__(self, name: str) -> dict[str, dict]:
        from simkit.models import REGISTRY

        return REGISTRY[name].presets

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
