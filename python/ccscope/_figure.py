"""The matplotlib figure class of :mod:`ccscope.report`: a notebook shows it as a PNG by itself.

Jupyter draws a plain :class:`matplotlib.figure.Figure` only once pyplot's inline backend is
active (after ``import matplotlib.pyplot`` or ``%matplotlib inline``); before that it prints
``<Figure size 900x1350 with 6 Axes>``. ``result.plot()`` makes its figures without pyplot, so
they carry their own ``_repr_png_``. Where the inline backend is active, IPython's formatter for
figures is found first and draws it as it draws any figure.
"""

from __future__ import annotations

import io

from matplotlib.figure import Figure


class ShownFigure(Figure):
    """A :class:`~matplotlib.figure.Figure` with ``_repr_png_`` (at the figure's own dpi)."""

    def _repr_png_(self) -> bytes:
        out = io.BytesIO()
        self.savefig(out, format="png")
        return out.getvalue()
