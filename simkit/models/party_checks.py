"""The party model's checks of its parameters together (:meth:`Party.validate
<simkit.models.party.Party.validate>`): what one parameter's range cannot say, each refusal
naming the parameters and what is allowed."""

from __future__ import annotations

from typing import Any

from simkit.core.params import ParamError
from simkit.core.result import pc_names
from simkit.models.downed_rule import any_custom, check_pcs, check_pf2e, fight_needs
from simkit.models.dying_keys import OPTION_KEYS
from simkit.models.party_lineups import check_lineups
from simkit.rules.pf2e import bestiary

__all__ = ["check"]


def check(p: Any) -> None:
    """Raise :class:`~simkit.core.params.ParamError` where the parameters of the party ``p``
    (a :class:`~simkit.models.party.Party`) do not go together: the engine, a dying option
    with a custom track or agonising, a custom track the fight cannot play, a PC's own track
    or PF2e options, a dying effect off its track, what the compiled loop does not support,
    ``monsters`` with ``xp_budget``, a level without a bundled creature, ``hp`` above a PC's
    maximum, ``retreat_at`` above the party's size, and the lineups."""
    if p.engine != "loop":
        raise ParamError(
            f"engine={p.engine!r}: the party plays on the compiled fight loop only "
            "(engine='loop'); the vectorised kernel of 0.3 was retired"
        )
    given = [k for k in OPTION_KEYS if getattr(p, k) is not None]
    if given and (p.dying is not None or not p.seed000):
        raise ParamError(
            f"dying.{given[0]}={getattr(p, given[0])!r} is a reading of the seed000/"
            f"pf2e-core dying track; "
            + (
                f"dying={getattr(p.downed_track, 'name', p.dying)} is a custom track "
                "(set its own parameters: dying.KEY)"
                if p.dying is not None
                else f"rules={p.rules} plays agonising (R1-01)"
            )
        )
    if p.dying is not None:
        why = fight_needs(p.downed_track)
        if why is None and not p.seed000:
            why = (
                f"dying= replaces the dying track of seed000 or pf2e-core; rules={p.rules} "
                "keeps its own (agonising, R1-01)"
            )
        if why is not None:
            raise ParamError(why)
    why = check_pcs(p)  # a PC's own track (``fighter(dying=dnd5e)``, issue 31)
    if why is None and any_custom(p) and p.dying is None and not p.seed000:
        why = f"a PC's dying= replaces seed000/pf2e-core's track; rules={p.rules}"
    why = why or check_pf2e(p)  # PF2e's options per PC (P-13..P-16)
    if why is None and p.dying_effect > 0 and (not p.seed000 or any_custom(p)):
        why = (
            f"dying_effect={p.dying_effect:g} gives the dying condition (R0-12, AP-35) of "
            "seed000/pf2e-core's own track; "
            + (
                f"rules={p.rules} plays agonising"
                if not p.seed000
                else "a PC here follows a custom track at 0 HP (dying=)"
            )
        )
    if why is not None:
        raise ParamError(why)
    from simkit.fight.tables import supported

    why = supported(p)
    if why is not None:
        raise ParamError(f"engine='loop': {why}")
    if p.monsters is not None and p.xp_budget is not None:
        raise ParamError("monsters and xp_budget are exclusive: give one of them")
    if bestiary.applies(p):
        p.lineup_rules  # a level without a bundled creature: a ParamError (AP-19)
    if p.hp is not None:
        over = [
            (name, pc.hp) for name, pc in zip(pc_names(p.roles), p.fighters.pcs) if p.hp > pc.hp
        ]
        if over:
            name, most = min(over, key=lambda o: o[1])
            raise ParamError(
                f"hp={p.hp} is above the maximum HP of the {name} ({most} at level "
                f"{p.level}): hp is every PC's starting HP, at most each one's maximum "
                f"(hp_max); give hp <= {most}, or each PC's HP in a start state (FightStart)"
            )
    if p.retreat_at is not None and p.retreat_at > p.n_pcs:
        raise ParamError(
            f"retreat_at={p.retreat_at} is not allowed: at most the party's size ({p.n_pcs})"
        )
    if p.lineups:
        check_lineups(p)
