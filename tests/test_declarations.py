"""One parameter name, one declaration: kind, range, choices, unit, rule id and help are the
same wherever a name appears in the package (a model picks only its default and whether
``none`` is allowed, see simkit.rules.parameters)."""

from __future__ import annotations

from collections import defaultdict

import simkit  # noqa: F401  (imports every registered model)
from simkit.core.model import Rules
from simkit.core.params import spec
from simkit.models import REGISTRY

_DECLARATION = ("kind", "lo", "hi", "choices", "unit", "rule", "help")


def _package_models() -> list[type]:
    out, todo = [], [Rules]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("simkit.") and spec(sub):
                out.append(sub)
    return out


def test_every_registered_model_is_checked():
    assert set(REGISTRY.values()) <= set(_package_models())


def test_one_declaration_per_parameter_name():
    seen: dict[str, dict[tuple, list[str]]] = defaultdict(lambda: defaultdict(list))
    for cls in _package_models():
        for name, meta in spec(cls).items():
            key = tuple(meta[k] for k in _DECLARATION)
            seen[name][key].append(f"{cls.__module__}.{cls.__qualname__}")
    clashes = {name: list(decls.values()) for name, decls in seen.items() if len(decls) > 1}
    assert not clashes, "parameters declared differently: " + "; ".join(
        f"{name}: {' vs '.join(str(sorted(set(m))) for m in ms)}" for name, ms in clashes.items()
    )


def test_a_clash_is_detected():
    """The check above can fail: two toy models declaring ``dc`` differently."""
    from dataclasses import dataclass

    from simkit.core.params import param

    @dataclass(frozen=True, slots=True)
    class A(Rules):
        dc: int = param(10, kind="int", lo=1, hi=30, help="one meaning")

    @dataclass(frozen=True, slots=True)
    class B(Rules):
        dc: int = param(10, kind="int", lo=1, hi=100, help="another")

    keys = {tuple(spec(c)["dc"][k] for k in _DECLARATION) for c in (A, B)}
    assert len(keys) == 2
