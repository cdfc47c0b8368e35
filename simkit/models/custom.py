"""Your own track: a rule written as states and one dice roll per step.

A designer describes a new dying (or any) rule as

- a start state (small integers: an ``int`` or a tuple of ``int``), or an outcome;
- the dice rolled each step (``"1d20"``, a :class:`~simkit.rules.dice.Dice`, or a tuple of
  them for several dice rolled together: the roll is then a tuple);
- a transition ``step(state, roll) -> new state or outcome name``, plain Python;
- the absorbing outcomes (names).

simkit then builds, once per rule configuration, the lookup table
``next[state, roll]`` (every state reachable from the start, every face of the
dice), and gets both answers without more code:

- **Monte Carlo** (:func:`simkit.simulate`): a vectorised kernel that draws one roll
  index per active track from the engine's :class:`~simkit.core.streams.BlockRng` and looks
  the next state up in the table (several steps per draw for uniform dice, through
  packed tables), with the engine's blocks, streams and workers;
- **exact** (:func:`simkit.solve`): an absorbing Markov chain whose transitions come
  from the dice's exact PMF pushed through ``step`` (probability propagation, no
  table, no draws).

The two share only the rule itself, so their agreement (within Monte Carlo error)
checks the table, the packing and the kernel. Steps are homogeneous: a rule that
depends on time keeps a counter in its state.

Two ways to write a track
-------------------------
In a notebook, without registering anything, :func:`track` builds one::

    import simkit
    from simkit.models.custom import track

    def step(state, roll, rules):
        successes, failures = state
        if roll == 20:
            return "revived"                       # natural 20: 1 HP
        failures += 2 if roll == 1 else int(roll + rules.bonus < 10)
        successes += int(roll != 1 and roll + rules.bonus >= 10)
        if failures >= 3:
            return "dead"
        if successes >= 3:
            return "stable"
        return successes, failures

    saves = track("my5e", start=(0, 0), step=step, dice="1d20",
                  outcomes=("stable", "dead", "revived"), params={"bonus": 0})
    simkit.solve(saves)["dead"]                    # exact
    simkit.simulate(saves, 10**6, rng=1)["dead"]   # Monte Carlo
    simkit.solve(saves.replace(bonus=2))["dead"]   # a variant

In a module (so that it can be registered, pickled to worker processes and listed by
``simkit models``), subclass :class:`CustomTrack`; see :mod:`simkit.models.dnd` for
D&D 5e and 4e death saving throws written this way.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from simkit.core.model import Rules
from simkit.core.packing import pack_steps
from simkit.core.params import ParamError, param
from simkit.rules.dice import Dice
from simkit.rules.parameters import shared

__all__ = ["CustomTrack", "TrackError", "TrackTable", "track"]

#: Largest number of entries (states x faces) of a packed multi-step table.
PACK_ENTRIES = 2**21
#: Largest number of faces drawn at once for a packed table.
PACK_FACES = 2**16


class TrackError(ParamError):
    """A custom track whose definition is unusable (bad state, unknown outcome...)."""


@dataclass(frozen=True)
class TrackTable:
    """The lookup tables of one custom-track configuration.

    Attributes
    ----------
    states : tuple
        Transient states reachable from the start, in discovery order (index = code).
    rolls : tuple
        Faces of the dice (an ``int``, or a tuple for several dice), index = roll code.
    probs : ndarray, shape (K,)
        Probability of each face.
    uniform : bool
        Whether all faces are equally likely (then a roll code is one uniform integer).
    next : ndarray, shape (S * K,), int32
        ``next[s * K + r]``: the next state's code (>= 0) or ``-1 - outcome``.
    packed : dict
        ``k -> table`` of shape ``(S * K**k,)`` for ``k`` steps at once (uniform dice
        only): index ``s * K**k + r`` with roll ``i`` (0-based) = ``r // K**i % K``;
        entry: a state code, or ``-1 - (outcome + n_outcomes * offset)`` for a track
        absorbed at step ``offset`` (0-based) of the ``k``.
    start : int
        Code of the start state, or ``-1 - outcome`` when the track ends at step 0.
    """

    states: tuple
    rolls: tuple
    probs: np.ndarray
    uniform: bool
    next: np.ndarray
    packed: dict
    start: int

    @property
    def n_faces(self) -> int:
        return len(self.rolls)


@dataclass(frozen=True, slots=True)
class CustomTrack(Rules):
    """Base class of a rule written as states and a per-step transition.

    A subclass sets the class attributes ``name``, ``outcomes``, ``time_unit``,
    ``dice`` (``"1d20"``, a :class:`~simkit.rules.dice.Dice`, or a tuple of them), declares
    its parameters with :func:`simkit.core.params.param`, and defines :meth:`start` and
    :meth:`transition`. Everything else (Monte Carlo kernel, exact chain, lookup
    table) is inherited.
    """

    #: Dice rolled each step: a spec like ``"1d20"``, a ``Dice``, or a tuple of them.
    dice: ClassVar[Any] = "1d20"
    #: Refuse definitions with more reachable states than this.
    max_states: ClassVar[int] = 100_000
    has_exact: ClassVar[bool] = True

    max_rounds: int = shared("max_rounds")

    # -- the rule (to override) ------------------------------------------------------
    def start(self) -> Hashable:
        """The state at step 0 (an int or a tuple of ints), or an outcome name."""
        raise NotImplementedError

    def transition(self, state, roll) -> Hashable:
        """The state after one step from ``state`` with ``roll``, or an outcome name."""
        raise NotImplementedError

    # -- normalisation ------------------------------------------------------------------
    def _normal(self, value, where: str):
        """An outcome name, or the state as an int / tuple of ints."""
        if isinstance(value, str):
            if value not in self.outcomes:
                raise TrackError(
                    f"track {self.name!r}: {where} returned outcome {value!r}; "
                    f"outcomes are {', '.join(self.outcomes)}"
                )
            return value
        try:
            if isinstance(value, tuple):
                return tuple(_int(v) for v in value)
            return _int(value)
        except TypeError:
            raise TrackError(
                f"track {self.name!r}: {where} returned {value!r}; a state must be an int or a "
                "tuple of ints, an outcome a name from outcomes"
            ) from None

    def faces(self) -> tuple[tuple, np.ndarray]:
        """(faces, probabilities) of one step's roll, from the dice's exact PMFs."""
        return _faces(type(self).dice)

    # -- the lookup table -------------------------------------------------------------------
    def table(self) -> TrackTable:
        """The lookup table of this configuration (built once, then cached)."""
        return _table(self)

    def table_frame(self) -> pd.DataFrame:
        """The transition table as a frame: ``state, roll, p, next`` (state or outcome)."""
        tab = self.table()
        K = tab.n_faces
        rows = []
        for s, state in enumerate(tab.states):
            for r, roll in enumerate(tab.rolls):
                nxt = int(tab.next[s * K + r])
                rows.append(
                    (
                        state,
                        roll,
                        float(tab.probs[r]),
                        tab.states[nxt] if nxt >= 0 else self.outcomes[-1 - nxt],
                    )
                )
        return pd.DataFrame(rows, columns=["state", "roll", "p", "next"])

    # -- Monte Carlo kernel ---------------------------------------------------------------------
    def init(self, n: int, rng):
        tab = self.table()
        s = np.full(n, max(tab.start, 0), dtype=np.int32)  # (n,) state codes
        codes = np.full(n, -1 if tab.start >= 0 else -1 - tab.start, dtype=np.int8)
        return {"s": s}, codes

    def step(self, state, t: int, rng):
        """Advance the active tracks: one roll code per track, one table lookup."""
        tab = self.table()
        s = state["s"]  # (m,) int32 state codes of the active tracks
        m = len(s)
        K = tab.n_faces
        k = min(max(tab.packed, default=1), self.horizon - t + 1)
        if k > 1:
            width = K**k
            r = rng.integers(0, width, size=m, dtype=np.uint16 if width <= 2**16 else np.uint32)
            nxt = tab.packed[k].take(s.astype(np.int64) * width + r)
            state["s"] = nxt
            return -1 - nxt, k
        if tab.uniform:
            r = rng.integers(0, K, size=m, dtype=np.uint16 if K <= 2**16 else np.uint32)
        else:
            r = _inverse_cdf(tab.probs, rng.random(size=m))
        nxt = tab.next.take(s.astype(np.int64) * K + r)
        state["s"] = nxt
        return -1 - nxt

    # -- exact chain (probabilities through the rule itself, no table) -----------------------------
    def exact_initial(self) -> dict:
        # The chain is built from transition() below; building the table first only
        # checks that the definition is finite and valid (max_states, outcome names).
        self.table()
        return {self._normal(self.start(), "start()"): 1.0}

    def exact_step(self, state, t: int) -> dict:
        rolls, probs = self.faces()
        out: dict = {}
        for roll, p in zip(rolls, probs):
            key = self._normal(self.transition(state, roll), f"transition({state!r}, {roll!r})")
            out[key] = out.get(key, 0.0) + float(p)
        return out


def _int(v) -> int:
    if isinstance(v, (bool, np.bool_)) or not hasattr(v, "__index__"):
        raise TypeError
    return int(v.__index__())


def _inverse_cdf(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    cdf = np.cumsum(probs)
    cdf[-1] = 1.0
    return np.minimum(np.searchsorted(cdf, u, side="right"), len(probs) - 1)


def _faces(spec) -> tuple[tuple, np.ndarray]:
    if isinstance(spec, (list, tuple)):
        if not spec:
            raise TrackError("dice: give at least one die, e.g. '1d20'")
        parts = [_one_die(d) for d in spec]
        rolls, probs = [], []
        for combo in itertools.product(*(zip(v, p) for v, p in parts)):
            rolls.append(tuple(v for v, _ in combo))
            probs.append(float(np.prod([p for _, p in combo])))
        return tuple(rolls), np.asarray(probs)
    values, probs = _one_die(spec)
    return tuple(values), np.asarray(probs, dtype=np.float64)


def _one_die(spec) -> tuple[list[int], list[float]]:
    try:
        d = Dice.parse(spec)
    except ValueError as exc:
        raise TrackError(f"dice: {exc}") from None
    values, probs = d.pmf()
    keep = probs > 0
    return [int(v) for v in values[keep]], [float(p) for p in probs[keep]]


_TABLE_CACHE: dict = {}


def _table(rules: CustomTrack) -> TrackTable:
    hit = _TABLE_CACHE.get(rules)
    if hit is not None:
        return hit
    rolls, probs = rules.faces()
    K = len(rolls)
    out_index = {o: i for i, o in enumerate(rules.outcomes)}
    first = rules._normal(rules.start(), "start()")
    states: list = []
    index: dict = {}
    rows: list[list[int]] = []
    if not isinstance(first, str):
        index[first] = 0
        states.append(first)
    i = 0
    while i < len(states):  # breadth-first over reachable states
        state = states[i]
        row = []
        for roll in rolls:
            nxt = rules._normal(rules.transition(state, roll), f"transition({state!r}, {roll!r})")
            if isinstance(nxt, str):
                row.append(-1 - out_index[nxt])
                continue
            if nxt not in index:
                if len(states) >= rules.max_states:
                    raise TrackError(
                        f"track {rules.name!r} reaches more than {rules.max_states} states; "
                        "keep states small (e.g. cap counters)"
                    )
                index[nxt] = len(states)
                states.append(nxt)
            row.append(index[nxt])
        rows.append(row)
        i += 1
    nxt_tab = np.asarray(rows, dtype=np.int32).reshape(len(states), K)
    uniform = bool(np.allclose(probs, probs[0], rtol=0, atol=1e-15))
    packed = _pack(nxt_tab, len(rules.outcomes)) if uniform else {}
    start = -1 - out_index[first] if isinstance(first, str) else 0
    for arr in [nxt_tab, *packed.values()]:
        arr.setflags(write=False)
    probs = np.asarray(probs, dtype=np.float64)
    probs.setflags(write=False)
    res = TrackTable(tuple(states), rolls, probs, uniform, nxt_tab.ravel(), packed, start)
    if len(_TABLE_CACHE) > 256:
        _TABLE_CACHE.clear()
    _TABLE_CACHE[rules] = res
    return res


def _pack(nxt: np.ndarray, n_out: int) -> dict:
    """Tables for k = 2, 3 steps at once (see :class:`TrackTable`), from the shared builder."""
    tabs = pack_steps(nxt, n_out, 3, max_width=PACK_FACES, max_entries=PACK_ENTRIES)
    return {k: v for k, v in tabs.items() if k > 1}


# -- the notebook builder ----------------------------------------------------------------------
def track(
    name: str,
    *,
    start,
    step: Callable,
    outcomes: tuple[str, ...],
    dice="1d20",
    params: dict | None = None,
    max_rounds: int = 100,
    time_unit: str = "rounds",
    doc: str = "",
    max_states: int = 100_000,
) -> CustomTrack:
    """Build a custom track in one call (no class, no registration).

    Parameters
    ----------
    name : str
        Name shown in results.
    start : int, tuple of int, str or callable
        The state at step 0, an outcome name, or ``start(rules)`` returning either.
    step : callable
        ``step(state, roll)`` (or ``step(state, roll, rules)`` when ``params`` is
        given) returning the next state (int or tuple of ints) or an outcome name.
        ``roll`` is the face rolled (a tuple when ``dice`` is a tuple).
    outcomes : tuple of str
        The absorbing outcomes (``unresolved`` is added by simkit).
    dice : str, Dice or tuple
        What is rolled each step (default one d20).
    params : dict, optional
        Parameter name -> default value (int, float or bool) or a
        :func:`simkit.core.params.param` field; read in ``step`` as ``rules.<name>``, and
        changed with ``.replace(...)``.
    max_rounds : int
        Horizon, in steps.
    time_unit : str
        Unit of one step, plural ("rounds").
    doc : str
        One-line description.
    max_states : int
        Refuse a rule that reaches more transient states than this.

    Returns
    -------
    CustomTrack
        An instance of a new :class:`CustomTrack` subclass, ready for
        :func:`simkit.simulate` (in this process: ``workers=1``) and
        :func:`simkit.solve`.
    """
    if not isinstance(name, str) or not name:
        raise TrackError(f"name must be a non-empty string, got {name!r}")
    outcomes = tuple(outcomes)
    if (
        not outcomes
        or not all(isinstance(o, str) and o for o in outcomes)
        or len(set(outcomes)) != len(outcomes)
    ):
        raise TrackError(f"outcomes must be distinct non-empty names, got {outcomes!r}")
    if "unresolved" in outcomes:
        raise TrackError("outcomes: 'unresolved' is added by simkit; do not list it")
    if not callable(step):
        raise TrackError(f"step must be a function step(state, roll), got {step!r}")
    _faces(dice)  # validate now
    fields = []
    for pname, spec_ in (params or {}).items():
        if pname == "max_rounds" or not pname.isidentifier() or pname.startswith("_"):
            raise TrackError(f"params: {pname!r} is not a usable parameter name")
        fields.append((pname, _field_type(spec_), _as_field(pname, spec_)))
    with_rules = params is not None
    namespace = {
        "name": name,
        "outcomes": outcomes,
        "time_unit": time_unit,
        "dice": dice,
        "max_states": int(max_states),
        "__doc__": doc or f"custom track {name!r}",
        "_start": start,
        "_step": staticmethod(step),
        "start": _start_method,
        "transition": _transition_with_rules if with_rules else _transition_plain,
    }
    cls = dataclasses.make_dataclass(
        f"Track_{''.join(c if c.isalnum() else '_' for c in name)}",
        fields,
        bases=(CustomTrack,),
        namespace=namespace,
        frozen=True,
        slots=True,
    )
    return cls(max_rounds=max_rounds)


def _start_method(self):
    s = type(self)._start
    return s(self) if callable(s) else s


def _transition_plain(self, state, roll):
    return type(self)._step(state, roll)


def _transition_with_rules(self, state, roll):
    return type(self)._step(state, roll, self)


def _field_type(spec_):
    if isinstance(spec_, dataclasses.Field):
        return Any
    return type(spec_)


def _as_field(pname: str, spec_):
    if isinstance(spec_, dataclasses.Field):
        if "kind" not in spec_.metadata:
            raise TrackError(
                f"params: {pname!r}: use simkit.core.params.param(...) or a plain default value"
            )
        return spec_
    if isinstance(spec_, bool):
        return param(spec_, kind="bool", help=pname)
    if isinstance(spec_, int):
        return param(spec_, kind="int", help=pname)
    if isinstance(spec_, float):
        return param(spec_, kind="float", help=pname)
    raise TrackError(
        f"params: {pname}={spec_!r}: give an int, float or bool default, "
        "or a simkit.core.params.param(...)"
    )
