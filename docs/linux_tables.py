"""docs/realnet.md's tables of Linux's TCP beside ccscope's model of it, from Linux's stored
runs (ccscope/linuxruns.json, written by `python bench/linux_spread.py ... --store`) and the
model's runs, made here (the packet engine: deterministic for a seed, and quick):

    python docs/linux_tables.py quick            # linux-reno, -cubic, -bbr's quick cases
    python docs/linux_tables.py friendliness     # linux-friendliness's ratios
    python docs/linux_tables.py grid reno        # the full grid of one algorithm
    python docs/linux_tables.py episodes         # Linux Reno's drops grouped into overflows

The page shows the output between markers (docs/tables.py); tests/test_linux_store.py compares
the quick, friendliness and episodes blocks with this script's output (the grid's under `make
validate`).
"""

from __future__ import annotations

import sys

from ccscope.experiments import linux


def main(args: list[str]) -> None:
    if args == ["quick"]:
        print(linux.quick_table(), end="")
    elif args == ["friendliness"]:
        print(linux.friendliness_table(), end="")
    elif args == ["episodes"]:
        print(linux.episodes_table(), end="")
    elif len(args) == 2 and args[0] == "grid" and args[1] in linux.CONTROLLER:
        print(linux.grid_table(args[1]), end="")
    else:
        tables = "quick | friendliness | episodes | grid " + "|".join(linux.CONTROLLER)
        raise SystemExit(f"usage: python docs/linux_tables.py {tables}")


if __name__ == "__main__":
    main(sys.argv[1:])
