"""``simkit creatures``: the bundled creatures (or those of actor files) as a table.

Registered in :data:`simkit.cli.main.EXTRA_COMMANDS`. Examples::

    simkit creatures                       # the bundled sample bestiary
    simkit creatures boar crocodile        # some of them, with what is not modelled
    simkit creatures @my/actors/ --format csv

One row per creature: its name (the slug a lineup takes: ``--set monsters=boar``),
level, HP, AC, saves, Perception, the strike it uses (AP-12) with its attack and damage,
its spell DC, its area ability (AP-14, AP-15) and, in ``csv`` / ``json``, what the fight
does not model. With names or files given, that last is also one line per creature on
standard error.
"""

from __future__ import annotations

import sys

__all__ = ["configure", "creatures_frame"]

#: Columns of the listing (``not_modelled`` only in csv / json).
COLUMNS = (
    "name",
    "creature",
    "level",
    "hp",
    "ac",
    "fort",
    "reflex",
    "will",
    "perception",
    "strike",
    "attack",
    "damage",
    "spell_dc",
    "area",
    "area_dc",
    "area_uses",
    "not_modelled",
)


def _selected(names: list[str]):
    from simkit.core.names import suggest
    from simkit.core.params import ParamError
    from simkit.rules.pf2e import foundry

    if not names:
        return list(foundry.bestiary().values())
    out = []
    for name in names:
        try:
            if name.startswith("@"):
                out += list(foundry.load(name[1:]))
            else:
                out.append(foundry.bundled(name))
        except foundry.ActorError as exc:
            raise ParamError(str(exc)) from None
        except KeyError:
            near = suggest(name, foundry.bestiary())
            raise ParamError(
                f"creature {name!r} is not bundled{near} (see `simkit creatures`); "
                "a file: @PATH.json"
            ) from None
    return out


def creatures_frame(found):
    """A DataFrame of :data:`COLUMNS`, one row per creature."""
    import pandas as pd

    rows = []
    for c in found:
        a = c.area
        rows.append(
            dict(
                name=c.slug,
                creature=c.name,
                level=c.level,
                hp=c.hp,
                ac=c.ac,
                fort=c.fort,
                reflex=c.reflex,
                will=c.will,
                perception=c.perception,
                strike=c.strike.name,
                attack=c.strike.attack,
                damage=c.strike.damage,
                spell_dc=c.spell_dc,
                area=f"{a.name} {a.damage}" if a else "",
                area_dc=f"basic {a.save} {a.dc}" if a else "",
                area_uses=(f"{a.recharge} ({a.chance:.3f}/round)" if a.chance else "once")
                if a
                else "",
                not_modelled="; ".join(c.unmodelled),
            )
        )
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df["spell_dc"] = df["spell_dc"].astype("Int64")  # none: null in json, empty in csv
    return df


def _run(args) -> int:
    from simkit.cli.main import emit, prepare_output

    prepare_output(args)
    found = _selected(args.names)
    df = creatures_frame(found)
    if args.format == "table":
        df = df.drop(columns=["not_modelled"])
    emit(df, args)
    if args.names:
        for c in found:
            print(f"simkit: {c.note()}", file=sys.stderr)
    return 0


def configure(sub) -> None:
    """Add ``simkit creatures`` to the ``simkit`` parser."""
    from simkit.cli.main import add_output_args

    p = sub.add_parser(
        "creatures",
        help="list the bundled creatures (Monster Core, Foundry VTT pf2e) or those of files",
    )
    p.add_argument(
        "names",
        nargs="*",
        metavar="NAME|@FILE",
        help="bundled creatures by name, or Foundry actor files / folders (@path.json)",
    )
    add_output_args(p)
    p.set_defaults(func=_run)
