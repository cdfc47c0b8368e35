"""Hostile input found by issue 30 ("Nothing lost, nothing silently wrong (3)").

Each case is refused in one line on stderr, exit status 2, nothing on stdout, with the
field or parameter named; through the Python API the same inputs raise
:class:`~simkit.core.params.ParamError` (a ``ValueError``).
"""

from __future__ import annotations

import pytest

from simkit.analysis.sweep import journal_path, sweep_csv
from simkit.core.params import ParamError
from simkit.testing import run_cli


def _refused(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2, (code, err)
    assert out == "", out
    assert err.count("\n") == 1 and err.startswith("simkit: error: "), err
    assert "Traceback" not in err
    assert len(err) <= 420, len(err)
    for w in words:
        assert w in err, (w, err)


# -- D1: --resume with nothing to resume ----------------------------------------------------

SWEEP = ("sweep", "dying", "--grid", "dc=14..15", "-n", "200")


def test_resume_without_a_journal_leaves_the_output_alone(tmp_path):
    out = tmp_path / "r.csv"
    code, _, err = run_cli(*SWEEP, "--seed", "5", "-o", out)
    assert code == 0, err
    before = out.read_bytes()
    code, o, err = run_cli(*SWEEP, "--resume", "-o", out)  # no --seed, no journal
    _refused(code, o, err, "nothing to resume", "r.csv")
    assert out.read_bytes() == before
    assert not journal_path(out).exists()
    with pytest.raises(ParamError, match="nothing to resume"):
        sweep_csv(out, "dying", {"dc": [14, 15]}, 200, 5, resume=True)
    assert out.read_bytes() == before and not journal_path(out).exists()

