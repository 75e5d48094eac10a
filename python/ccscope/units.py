"""Units written as strings: "15Mbps", "20ms", "1000B", "50pkts".

Rates are returned in bits/s, times in nanoseconds (int) or seconds, sizes in bytes. Decimal
prefixes are powers of 1000 (k, M, G); binary ones (KiB, MiB) powers of 1024. A bare number is
refused for anything with a unit, so a value never silently means the wrong thing.
"""

from __future__ import annotations

import math
import re

_NUMBER = r"([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*"

_RATE = {
    "bps": 1.0, "b/s": 1.0, "bit/s": 1.0,
    "kbps": 1e3, "kb/s": 1e3, "kbit/s": 1e3,
    "mbps": 1e6, "mb/s": 1e6, "mbit/s": 1e6,
    "gbps": 1e9, "gb/s": 1e9, "gbit/s": 1e9,
    "tbps": 1e12, "tb/s": 1e12,
}
_BYTE_RATE = {"bytes/s": 8.0, "kbytes/s": 8e3, "mbytes/s": 8e6}
_TIME = {
    "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0,
    "min": 60.0, "h": 3600.0,
}
_SIZE = {
    "b": 1, "byte": 1, "bytes": 1,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3,
    "kib": 1024, "mib": 1024**2, "gib": 1024**3,
}
_PACKETS = {"pkt", "pkts", "packet", "packets", "p"}

RATE_EXAMPLE = "a rate such as '15Mbps', '500kbps' or '1Gbps'"
TIME_EXAMPLE = "a time such as '20ms', '1.5s' or '250us'"
SIZE_EXAMPLE = "a size such as '1000B', '64KB' or '1.5KiB'"


def _split(text: object, what: str) -> tuple[float, str]:
    if isinstance(text, bool) or not isinstance(text, str):
        raise ValueError(f"expected {what} written with its unit, as a string")
    m = re.fullmatch(_NUMBER + r"([A-Za-zµ/]*)", text.strip())
    if m is None:
        raise ValueError(f"cannot read {text!r} as {what}")
    value = float(m.group(1))
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite number")
    return value, m.group(2)


def rate_bps(text: object) -> float:
    """Parses a rate; returns bits/s."""
    value, unit = _split(text, RATE_EXAMPLE)
    # "MBps" / "MB/s" (bytes) vs "Mbps" (bits): the case of the 'b' decides, as is usual.
    if unit and unit[:-3].lower() in ("", "k", "m", "g") and unit.endswith("Bps"):
        factor = {"": 8.0, "k": 8e3, "m": 8e6, "g": 8e9}[unit[:-3].lower()]
    elif unit.lower() in _BYTE_RATE:
        factor = _BYTE_RATE[unit.lower()]
    elif unit.lower() in _RATE:
        factor = _RATE[unit.lower()]
    else:
        raise ValueError(f"unknown rate unit {unit!r} in {text!r}; expected {RATE_EXAMPLE}")
    return value * factor


def seconds(text: object) -> float:
    """Parses a time; returns seconds."""
    value, unit = _split(text, TIME_EXAMPLE)
    factor = _TIME.get(unit if unit in ("ms", "us", "ns", "µs") else unit.lower())
    if factor is None:
        raise ValueError(f"unknown time unit {unit!r} in {text!r}; expected {TIME_EXAMPLE}")
    return value * factor


def nanoseconds(text: object) -> int:
    """Parses a time; returns whole nanoseconds (rounded to nearest)."""
    return round(seconds(text) * 1e9)


def size_bytes(text: object) -> float:
    """Parses a size; returns bytes. A lower-case 'b' after a prefix ('kb') would mean bits, so
    it is refused: write 'kB' or 'KB'."""
    value, unit = _split(text, SIZE_EXAMPLE)
    if unit in ("kb", "mb", "gb"):
        raise ValueError(f"{text!r}: sizes are in bytes; write {unit[0]}B")
    factor = _SIZE.get(unit.lower())
    if factor is None:
        raise ValueError(f"unknown size unit {unit!r} in {text!r}; expected {SIZE_EXAMPLE}")
    return value * factor


def packets_or_bytes(text: object) -> tuple[str, float]:
    """Parses a buffer limit: '50pkts' -> ('packets', 50), '64KB' -> ('bytes', 64000)."""
    if isinstance(text, int) and not isinstance(text, bool):
        return "packets", float(text)
    value, unit = _split(text, "a buffer such as '50pkts' or '64KB'")
    if unit.lower() in _PACKETS:
        return "packets", value
    return "bytes", size_bytes(text)
