"""A view of :mod:`ccscope.views` drawn straight onto matplotlib's Agg renderer, as a PNG:
``ccscope run``'s overview.png and playback.png.

:func:`ccscope.report.draw` builds a :class:`matplotlib.figure.Figure` with an axes per panel,
which a notebook can change before showing; importing the figure and axes machinery and drawing
through it took as long as the rest of ``ccscope run`` of the quick start. A file written once
needs none of it: this module draws the same panels (title, unit, ticks and grid, the warm-up
shaded, one legend of the view's groups above, the x label under the last panel) with the
renderer, its fonts and tick locator only. Views with confidence bands or markers (the sweep's)
are left to :func:`ccscope.report.draw`.
"""

from __future__ import annotations

import math
from pathlib import Path

from . import views

#: Pixels: the figure's width, a panel's height (its axes and the space under them), the
#: space under each panel's axes (its title's, or the x axis's), the margins left and right.
WIDTH, PANEL, GAP, LEFT, RIGHT = 900, 210, 45, 72, 18
#: Pixels: a row of the legend, and the space under the legend (the first panel's title).
LEGEND_ROW, HEAD = 18, 30
#: Font sizes (points): titles and units, tick labels and the legend, the warm-up note.
TITLE_PT, TICK_PT, NOTE_PT = 8.5, 7.5, 7.0
DPI = 100


def drawable(view: views.View) -> bool:
    """Whether the view has only lines and steps (no bands, no markers) to draw."""
    return all(
        ln.low is None and not ln.markers and ln.lines for p in view.panels for ln in p.lines
    )


def _range(values: list[float], pad: float) -> tuple[float, float]:
    """The finite values' span widened by `pad` of itself each side (a flat line by one)."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return 0.0, 1.0
    lo, hi = min(finite), max(finite)
    if hi == lo:
        return lo - 1.0, hi + 1.0
    return lo - pad * (hi - lo), hi + pad * (hi - lo)


def _label(value: float) -> str:
    return f"{value:.6g}".replace("-", "\N{MINUS SIGN}")


def write(view: views.View, path: str | Path) -> Path:
    """Draws `view` (:func:`drawable`) into a PNG at `path`."""
    import numpy as np
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.colors import to_rgba
    from matplotlib.font_manager import FontProperties
    from matplotlib.path import Path as Curve
    from matplotlib.ticker import MaxNLocator
    from matplotlib.transforms import Affine2D, Bbox
    from PIL import Image

    n = len(view.panels)
    colour = {g: f"C{i % 10}" for i, g in enumerate(view.groups)} | view.colors
    names = list(dict.fromkeys(ln.name for p in view.panels for ln in p.lines))
    groups = {ln.name: ln.group for p in view.panels for ln in p.lines}
    legend_rows = -(-len(names) // 4)
    top = LEGEND_ROW * legend_rows + HEAD
    height = top + PANEL * n
    canvas = RendererAgg(WIDTH, height, DPI)
    gc = canvas.new_gc()
    fonts = {pt: FontProperties(size=pt) for pt in (TITLE_PT, TICK_PT, NOTE_PT)}
    identity = Affine2D()

    def rgba(colour: str, alpha: float = 1.0) -> tuple[float, float, float, float]:
        r, g, b, _ = to_rgba(colour)
        return (r, g, b, alpha)

    def box(x0: float, y0: float, x1: float, y1: float) -> Curve:
        """A rectangle in pixels from the top left (the renderer's y runs upwards)."""
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
        return Curve([(x, height - y) for x, y in corners], closed=True)

    def text(s: str, x: float, y: float, pt: float, ha: str = "left", angle: int = 0) -> None:
        """`s` with its baseline at `y` (pixels from the top), aligned at `x` by `ha`; at 90°
        centred on `y` with its baseline at `x`."""
        w, _, d = canvas.get_text_width_height_descent(s, fonts[pt], False)
        if angle:
            canvas.draw_text(gc, x - d, y + w / 2, s, fonts[pt], angle)
            return
        x -= {"left": 0.0, "center": w / 2, "right": w}[ha]
        canvas.draw_text(gc, x, y + d, s, fonts[pt], 0)

    gc.set_foreground("white")
    canvas.draw_path(gc, box(0, 0, WIDTH, height), identity, (1.0, 1.0, 1.0, 1.0))
    xs = [v for p in view.panels for ln in p.lines for v in ln.x]
    x0, x1 = _range(xs, 0.05)
    x_ticks = [t for t in MaxNLocator(8).tick_values(x0, x1) if x0 <= t <= x1]
    right = WIDTH - RIGHT
    for k, panel in enumerate(view.panels):
        y_top = top + PANEL * k
        y_bottom = y_top + PANEL - GAP
        y0, y1 = _range([v for ln in panel.lines for v in ln.y], 0.05)
        y_ticks = [t for t in MaxNLocator(4).tick_values(y0, y1) if y0 <= t <= y1]
        # Data to pixels (the renderer's y upwards).
        to_px = (
            Affine2D()
            .translate(-x0, -y0)
            .scale((right - LEFT) / (x1 - x0), (y_bottom - y_top) / (y1 - y0))
            .translate(LEFT, height - y_bottom)
        )
        gc.set_clip_rectangle(None)
        if view.shade and view.shade[1] > view.shade[0]:
            a, b = to_px.transform([(view.shade[0], 0), (min(view.shade[1], x1), 0)])[:, 0]
            gc.set_foreground(rgba("0.6", 0.18), isRGBA=True)
            canvas.draw_path(gc, box(a, y_top, b, y_bottom), identity, rgba("0.6", 0.18))
        gc.set_linewidth(0.8)
        gc.set_foreground(rgba("#b0b0b0", 0.3), isRGBA=True)
        for t in y_ticks:
            canvas.draw_path(gc, Curve([(x0, t), (x1, t)]), to_px)
        for t in x_ticks:
            canvas.draw_path(gc, Curve([(t, y0), (t, y1)]), to_px)
        gc.set_foreground("black")
        for t in y_ticks:
            y = height - to_px.transform((x0, t))[1]
            canvas.draw_path(gc, Curve([(LEFT - 3.5, height - y), (LEFT, height - y)]), identity)
            text(_label(t), LEFT - 5, y + 3, TICK_PT, "right")
        for t in x_ticks:
            x = to_px.transform((t, y0))[0]
            canvas.draw_path(
                gc, Curve([(x, height - y_bottom), (x, height - y_bottom - 3.5)]), identity
            )
            if k == n - 1:
                text(_label(t), x, y_bottom + 14, TICK_PT, "center")
        canvas.draw_path(gc, box(LEFT, y_top, right, y_bottom), identity)
        text(panel.title, LEFT, y_top - 8, TITLE_PT)
        text(panel.ylabel, 34, (y_top + y_bottom) / 2, TITLE_PT, angle=90)
        if k == n - 1:
            text(panel.xlabel, (LEFT + right) / 2, y_bottom + 30, TITLE_PT, "center")
        gc.set_clip_rectangle(
            Bbox.from_bounds(LEFT, height - y_bottom, right - LEFT, y_bottom - y_top)
        )
        gc.set_linewidth(1.0)
        for ln in panel.lines:
            x = np.asarray(ln.x, dtype=float)
            y = np.asarray(ln.y, dtype=float)
            if ln.step and len(x) > 1:
                x = np.repeat(x, 2)[1:]
                y = np.repeat(y, 2)[:-1]
            gc.set_foreground(colour[ln.group])
            canvas.draw_path(gc, Curve(np.column_stack([x, y])), to_px)
    gc.set_clip_rectangle(None)
    # The legend: up to four entries a row, each row centred.
    for row in range(legend_rows):
        entries = names[4 * row : 4 * row + 4]
        widths = [
            canvas.get_text_width_height_descent(s, fonts[TICK_PT], False)[0] + 60 for s in entries
        ]
        x = (WIDTH - sum(widths)) / 2
        y = 16 + LEGEND_ROW * row
        for s, w in zip(entries, widths, strict=True):
            gc.set_foreground(colour[groups[s]])
            gc.set_linewidth(1.0)
            canvas.draw_path(gc, Curve([(x + 10, height - y), (x + 30, height - y)]), identity)
            gc.set_foreground("black")
            text(s, x + 36, y + 3, TICK_PT)
            x += w
    if view.shade and view.shade[1] > view.shade[0]:
        gc.set_foreground("0.4")
        text("warm-up shaded", WIDTH - 9, height - 4, NOTE_PT, "right")
    out = Path(path)
    image = Image.frombuffer("RGBA", (WIDTH, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    # Opaque, so RGB; zlib level 3 compresses it about as well as 6 in half the time.
    image.convert("RGB").save(out, format="png", compress_level=3)
    return out
