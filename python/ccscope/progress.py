"""Progress of one long run: a rich bar of simulated time (packet model) or steps (round
model) on a terminal or in a notebook, a plain line now and then in a log.

>>> ccscope.run("scenarios/dumbbell-mix.toml", progress=True)
"""

from __future__ import annotations

import time
from collections.abc import Callable


class RunProgress:
    """A ``progress(done, total)`` callback for :func:`ccscope.run`. It shows nothing for the
    first `delay` seconds of wall time, so short runs stay quiet; then a bar on a terminal, or
    one line every `every` seconds when the output is not a terminal."""

    def __init__(
        self,
        unit: str = "s",
        delay: float = 0.0,
        every: float = 5.0,
        console=None,
        label: str = "simulated",
    ):
        from rich.console import Console

        self.unit = unit
        self.label = label
        self.delay = delay
        self.every = every
        self.console = console or Console(stderr=True)
        self.start = time.monotonic()
        self.printed = -float("inf")
        self.bar = None

    def __call__(self, done: float, total: float) -> None:
        now = time.monotonic()
        if now - self.start < self.delay:
            return
        if self.console.is_terminal or self.console.is_jupyter:
            if self.bar is None:
                import rich.progress as rp

                self.bar = rp.Progress(
                    rp.TextColumn(self.label),
                    rp.BarColumn(),
                    rp.TextColumn(f"{{task.completed:.6g}} / {{task.total:.6g}} {self.unit}"),
                    rp.TimeElapsedColumn(),
                    rp.TextColumn("ETA"),
                    rp.TimeRemainingColumn(),
                    console=self.console,
                )
                self.task = self.bar.add_task("run", total=total)
                self.bar.start()
            self.bar.update(self.task, completed=done)
        elif now - self.printed >= self.every:
            self.printed = now
            self.console.print(
                f"{self.label} {done:.6g} of {total:.6g} {self.unit}", highlight=False
            )
            self.console.file.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def callback(
    progress: bool | Callable[[float, float], None], unit: str
) -> Callable[[float, float], None] | None:
    """The callback the engine gets for ``run(..., progress=...)``: None for False, a
    :class:`RunProgress` for True, the callable itself otherwise."""
    if progress is True:
        return RunProgress(unit)
    return progress or None
