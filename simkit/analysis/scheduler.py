"""The address of a Dask scheduler (``--scheduler``, ``scheduler=``), checked before a
sweep connects to it."""

from __future__ import annotations

from simkit.core.params import ParamError, shown

__all__ = ["check_scheduler"]


def check_scheduler(address, what: str = "--scheduler") -> str:
    """A Dask scheduler address, else one line.

    Accepted: ``HOST:PORT``, ``tcp://HOST:PORT``, ``[IPv6]:PORT``.
    """
    import re

    ok = isinstance(address, str) and len(address) <= 300 and address.isascii()
    if ok:
        m = re.fullmatch(
            r"(?:(tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(?::(\d{1,5}))?/?",
            address.strip(),
        )
        ok = m is not None and (m.group(3) is None or 1 <= int(m.group(3)) <= 65535)
        ok = ok or re.fullmatch(r"inproc://\S+", address.strip()) is not None
    if not ok:
        raise ParamError(
            f"{what} {shown(address)} is not a scheduler address: write HOST:PORT or "
            "tcp://HOST:PORT (an IPv6 host in brackets: [::1]:8786)"
        )
    return address.strip()
