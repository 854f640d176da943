"""Sliders and panels: joint sliders that drive an ArmView and a live plot.

* :func:`joint_sliders` → :class:`JointSliders` — one ``FloatSlider`` per joint, named by
  ``model.joint_names``; ``.q`` is the configuration as an array, ``.observe(callback)`` calls
  ``callback(q)`` on every change.
* :func:`arm_panel` → :class:`ArmPanel` — sliders, the 3D view and a plot (``"torque_bars"``:
  gravity torques ``g(q)``; ``"mass_matrix"``: heat map of ``M(q)``; or any ``plot_fn(ax, q)``),
  all updated on every slider move. An exception in a callback is shown in the panel's ``log``
  output (it would otherwise vanish: widget callbacks do not raise into any cell).
* :func:`measure_update_latency` — how long that slider → recompute → redraw path takes, without a
  browser (the interactivity budget is 50 ms for a 7-DoF arm).

Slider grids: ``min``, ``max`` and every value are multiples of ``step`` (the browser snaps slider
values to ``min + k·step`` and sends the snapped value back, NOTES.md).

Sizes: a panel is made to fit a 1280×720 slide under a line of code or a heading (the live slideshow shows
it at its pixel size, with 17 px widget labels): the 3D view is 520×320 px by default and the plot below it
as wide as sliders and view together (850 px) and 230–270 px high, drawn in the projection style
(:data:`~lessonlib.viz.plots.SLIDE_DPI`, the style's font sizes: ticks 18 px, labels 21 px), so the whole
panel is at most 590 px high: it fits a 1280×720 slide under two lines of code.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np

from ..dynamics import crba, gravity_torques
from .plots import BAR_COLORS, SLIDE_DPI, LivePlot, heatmap, torque_bars
from .view import ArmView, _short_bundle

#: Width of one joint slider (px).
SLIDER_WIDTH = 330
#: Plot resolution in a panel (dots per inch): the projection style's, so the plot's text has the style's sizes.
PLOT_DPI = SLIDE_DPI
#: Default size of a panel's 3D view (px): with the plot below, the panel fits a 1280×720 slide.
VIEW_WIDTH, VIEW_HEIGHT = 520, 320
#: Plot margins in a panel (px): left (tick labels and the y label), right, bottom (ticks and the x labels), top (title).
PLOT_MARGINS_PX = (90, 20, 62, 34)
#: Default slider range of a prismatic joint without limits (m).
PRISMATIC_RANGE = (-0.3, 0.3)


def keep_print_options(callback):
    """``callback`` wrapped so that it prints with the NumPy print options in force *now* (in the cell).

    A widget callback runs later, outside the cell that set ``np.set_printoptions(precision=4, …)``,
    and may print with NumPy's defaults (``1.51520689e-01`` after a slider move where the cell printed
    ``0.1515``). :class:`JointSliders` and :func:`interactive_output` wrap their callbacks with this.

    >>> import numpy as np
    >>> with np.printoptions(precision=2):
    ...     show = keep_print_options(lambda x: str(x))
    >>> show(np.array([0.151520689]))
    '[0.15]'
    """
    options = np.get_printoptions()

    @functools.wraps(callback)
    def with_options(*args, **kwargs):
        with np.printoptions(**options):
            return callback(*args, **kwargs)
    return with_options


def interactive_output(f, controls):
    """``ipywidgets.interactive_output`` whose ``f`` prints numbers as the cell does (:func:`keep_print_options`)."""
    return widgets.interactive_output(keep_print_options(f), controls)


def _grid(x, step):
    """``x`` rounded to the nearest multiple of ``step`` (and cleaned of float noise)."""
    return round(round(float(x) / step) * step, 10)


class JointSliders:
    """One slider per joint of ``model`` (see :func:`joint_sliders`).

    ``.q`` (settable) / ``.value``: the configuration (n,) array; ``.sliders``: the FloatSliders;
    ``.widget``: the box to display; ``.observe(callback)``: ``callback(q)`` after every change
    (one call when ``.q`` is set as a whole); ``.log``: an ``ipywidgets.Output`` under the sliders
    in which the callbacks run, so an exception they raise is shown there instead of being lost.
    """

    def __init__(self, model, q0=None, *, on_change=None, step=0.01, limits=None):
        if not step > 0:
            raise ValueError(f"step: expected a positive number, got {step!r}")
        self.model, self.step = model, float(step)
        q0 = np.zeros(model.n) if q0 is None else model.check_q(q0, "q0")
        bounds = self._bounds(limits)
        self._callbacks, self._quiet = [], False
        self.sliders = []
        decimals = max(0, int(np.ceil(-np.log10(self.step) - 1e-9)))
        for name, joint, (lo, hi), x in zip(model.joint_names, model.joints, bounds, q0):
            unit = "rad" if joint.is_revolute else "m"
            self.sliders.append(widgets.FloatSlider(
                value=min(max(_grid(x, step), lo), hi), min=lo, max=hi, step=self.step, description=name,
                continuous_update=True, readout_format=f".{decimals}f", tooltip=f"{name} ({joint.kind}, {unit})",
                style={"description_width": "90px"}, layout=widgets.Layout(width=f"{SLIDER_WIDTH}px")))
        for s in self.sliders:
            s.observe(self._changed, names="value")
        self.log = widgets.Output()
        self.widget = widgets.VBox(self.sliders + [self.log])
        if on_change is not None:
            self.observe(on_change)

    def _bounds(self, limits):
        """Slider ``(min, max)`` per joint on the step grid, inside ``limits`` (default ±π rad / ±0.3 m)."""
        n, step = self.model.n, self.step
        if limits is None:
            limits = [(-np.pi, np.pi) if j.is_revolute else PRISMATIC_RANGE for j in self.model.joints]
        limits = np.asarray(limits, dtype=float)
        if limits.shape != (n, 2) or not np.all(limits[:, 0] < limits[:, 1]):
            raise ValueError(f"limits: expected ({n}, 2) rows (lower < upper), got {limits.tolist()}")
        lo = [round(np.ceil(a / step - 1e-9) * step, 10) for a in limits[:, 0]]
        hi = [round(np.floor(b / step + 1e-9) * step, 10) for b in limits[:, 1]]
        return list(zip(lo, hi))

    def __repr__(self):
        return f"JointSliders({self.model.name!r}, n={self.model.n}, step={self.step:g})"

    @property
    def q(self):
        """The configuration the sliders show, an (n,) array."""
        return np.array([s.value for s in self.sliders], dtype=float)

    @q.setter
    def q(self, q):
        q = self.model.check_q(q)
        self._quiet = True
        try:
            for s, x in zip(self.sliders, q):
                s.value = min(max(_grid(x, self.step), s.min), s.max)
        finally:
            self._quiet = False
        self._notify()

    value = q

    def observe(self, callback):
        """Call ``callback(q)`` after every change of any slider (with the print options in force now)."""
        self._callbacks.append(keep_print_options(callback))

    def _changed(self, change):
        if not self._quiet:
            self._notify()

    def _notify(self):
        q = self.q
        with self.log:                 # an exception in a callback is shown here, not lost
            for callback in self._callbacks:
                callback(q)

    def _repr_mimebundle_(self, **kwargs):
        return _short_bundle(self.widget, repr(self))

    def _ipython_display_(self):
        from IPython.display import display
        display(self._repr_mimebundle_(), raw=True)


def joint_sliders(model, q0=None, *, on_change=None, step=0.01, limits=None):
    """One ``FloatSlider`` per joint, named by ``model.joint_names``; returns :class:`JointSliders`.

    Revolute joints span [−π, π] rad, prismatic joints ±0.3 m, unless ``limits`` ((n, 2), lower and
    upper per joint) says otherwise; bounds and values are multiples of ``step``
    (``continuous_update=True``: the arm follows the drag). ``on_change(q)`` is called after every change.
    """
    return JointSliders(model, q0, on_change=on_change, step=step, limits=limits)


class _GravityBars:
    """Plot kind ``"torque_bars"``: gravity torques ``g(q)`` as bars on a fixed scale, updated in place."""

    HEIGHT = 230

    def __init__(self, model, live, q):
        self.model, self.live = model, live
        self.bars = torque_bars(live.ax, gravity_torques(model, q), model.joint_names, ylim=_largest(model, gravity_torques),
                                ylabel="g(q)  (N·m or N)", title="gravity torques g(q) = rnea(q, 0, 0)")
        live.set_dynamic(self.bars)

    def update(self, q):
        for bar, tau in zip(self.bars, gravity_torques(self.model, q)):
            bar.set_height(tau)
            bar.set_color(BAR_COLORS[int(tau < 0)])


class _MassHeatmap:
    """Plot kind ``"mass_matrix"``: ``M(q)`` from :func:`crba` as a heat map, updated in place.

    Entries are written in the cells up to ``ANNOTATE_MAX`` joints; larger matrices get a colour bar
    instead (redrawing 49 numbers on every slider move would blow the 50 ms budget).
    """

    ANNOTATE_MAX = 4
    HEIGHT = 270

    def __init__(self, model, live, q):
        self.model, self.live = model, live
        self.vmax = _largest(model, crba)
        small = model.n <= self.ANNOTATE_MAX
        self.image = heatmap(live.ax, crba(model, q), labels=model.joint_names, vmax=self.vmax, annotate=small,
                             colorbar=not small, title="mass matrix M(q) = crba(q)")
        self.texts = list(live.ax.texts)
        live.set_dynamic([self.image] + self.texts)

    def update(self, q):
        M = crba(self.model, q)
        self.image.set_data(M)
        for text, x in zip(self.texts, M.ravel()):
            text.set_text(f"{x:.2f}")
            text.set_color("white" if abs(x) > 0.6 * self.vmax else "black")


class _Callback:
    """A user's ``plot_fn(ax, q)``: cleared and drawn again on every change (slower than the built-in kinds)."""

    HEIGHT = 250

    def __init__(self, plot_fn, live, q):
        self.plot_fn, self.live = plot_fn, live
        self.update(q)

    def update(self, q):
        self.live.ax.clear()
        self.plot_fn(self.live.ax, q)
        self.live.redraw()


PLOT_KINDS = {"torque_bars": _GravityBars, "mass_matrix": _MassHeatmap}


def _largest(model, quantity, samples=32, seed=0):
    """A fixed plot scale for ``quantity(model, q)``: 1.1 × its largest magnitude over random poses."""
    rng = np.random.default_rng(seed)
    revolute = np.array([j.is_revolute for j in model.joints])
    Q = np.where(revolute, rng.uniform(-np.pi, np.pi, (samples, model.n)), rng.uniform(-0.2, 0.2, (samples, model.n)))
    return 1.1 * max(float(np.max(np.abs(quantity(model, q)))) for q in Q) + 1e-9


class ArmPanel:
    """Sliders + 3D view + live plot for one model (see :func:`arm_panel`).

    Attributes: ``sliders`` (:class:`JointSliders`), ``view`` (:class:`ArmView`), ``plot_image``
    (``ipywidgets.Image`` of the plot, None without a plot), ``live`` (the persistent
    :class:`~lessonlib.viz.plots.LivePlot`: ``live.fig``, ``live.ax``), ``log`` (the sliders'
    ``ipywidgets.Output`` that shows callback errors), ``widget``.
    """

    def __init__(self, model, *, plot=None, q0=None, backend="auto", step=0.01, width=VIEW_WIDTH, height=VIEW_HEIGHT,
                 frames=False, com=False):
        self.model = model
        self.view = ArmView(model, q0, width=width, height=height, frames=frames, com=com, backend=backend)
        self.sliders = JointSliders(model, q0, step=step)
        self.plot_kind = plot if isinstance(plot, str) or plot is None else getattr(plot, "__name__", "custom")
        self.live = self.plot = self.plot_image = None
        if plot is not None:
            if not (callable(plot) or plot in PLOT_KINDS):
                raise ValueError(f"plot: expected one of {tuple(PLOT_KINDS)}, a callable plot_fn(ax, q) or None, "
                                 f"got {plot!r}")
            kind = _Callback if callable(plot) else PLOT_KINDS[plot]
            plot_width = SLIDER_WIDTH + width
            left, right, bottom, top = PLOT_MARGINS_PX
            self.live = LivePlot(plot_width / PLOT_DPI, kind.HEIGHT / PLOT_DPI, dpi=PLOT_DPI,
                                 margins=(left / plot_width, 1 - right / plot_width, bottom / kind.HEIGHT,
                                          1 - top / kind.HEIGHT))
            self.plot = kind(plot if callable(plot) else model, self.live, self.sliders.q)
            self.plot_image = widgets.Image(value=self.live.png(), format="png",
                                            layout=widgets.Layout(width=f"{plot_width}px"))
        top = widgets.HBox([self.sliders.widget, self.view.widget])
        self.widget = widgets.VBox([top] + ([self.plot_image] if self.plot_image is not None else []))
        self.log = self.sliders.log
        self.sliders.observe(self.update)

    def __repr__(self):
        return f"ArmPanel({self.model.name!r}, plot={self.plot_kind!r})"      # the same with either back end

    def update(self, q):
        """Recompute and redraw for ``q``: the 3D view, then the plot (in place)."""
        self.view.update(q)
        if self.plot is not None:
            self.plot.update(self.view.q)
            self.plot_image.value = self.live.png()

    def _repr_mimebundle_(self, **kwargs):
        return _short_bundle(self.widget, repr(self))

    def _ipython_display_(self):
        from IPython.display import display
        display(self._repr_mimebundle_(), raw=True)


def arm_panel(model, *, plot=None, q0=None, backend="auto", step=0.01, width=VIEW_WIDTH, height=VIEW_HEIGHT,
              frames=False, com=False):
    """Joint sliders, the 3D view and a live plot in one widget; returns :class:`ArmPanel`.

    ``plot``: ``"torque_bars"`` (gravity torques ``g(q)``, :func:`lessonlib.dynamics.gravity_torques`,
    on a fixed scale), ``"mass_matrix"`` (heat map of ``crba(q)``), a callable ``plot_fn(ax, q)``
    that draws into ``ax`` (use the helpers of :mod:`lessonlib.viz.plots`), or None. ``width``, ``height``:
    the 3D view's size in px (the default fits a 1280×720 slide with the plot below it: see the module's notes).
    """
    return ArmPanel(model, plot=plot, q0=q0, backend=backend, step=step, width=width, height=height,
                    frames=frames, com=com)


@dataclass(frozen=True)
class UpdateLatency:
    """Timing of the slider callback path: median and 95th percentile in milliseconds."""

    model: str
    plot: object
    n_calls: int
    median_ms: float
    p95_ms: float

    def __str__(self):
        return (f"{self.model}: slider -> redraw (plot={self.plot!r}) median {self.median_ms:.1f} ms, "
                f"p95 {self.p95_ms:.1f} ms over {self.n_calls} calls")


def measure_update_latency(model, n_calls=200, *, plot="torque_bars", backend="threejs", seed=0):
    """Time the panel's slider callback (recompute + 3D update + plot redraw) ``n_calls`` times.

    Runs without a browser: the widgets are built in this process and every call goes through the
    same ``ArmPanel.update`` that a slider move triggers (kinematics, gravity torques or ``M``,
    the 3D matrices, the plot redraw and PNG). ``plot=None`` times the 3D path alone. Returns an
    :class:`UpdateLatency`.
    """
    if n_calls < 1:
        raise ValueError(f"n_calls: expected at least 1, got {n_calls}")
    panel = ArmPanel(model, plot=plot, backend=backend)
    rng = np.random.default_rng(seed)
    revolute = np.array([j.is_revolute for j in model.joints])
    Q = np.where(revolute, rng.uniform(-np.pi, np.pi, (n_calls, model.n)), rng.uniform(-0.2, 0.2, (n_calls, model.n)))
    times = np.empty(n_calls)
    for k, q in enumerate(Q):
        t0 = time.perf_counter()
        panel.sliders.q = q                    # the path a slider move takes: callbacks -> update
        times[k] = time.perf_counter() - t0
    plot_name = plot if isinstance(plot, str) or plot is None else "custom"
    return UpdateLatency(model.name, plot_name, int(n_calls), float(np.median(times) * 1e3),
                         float(np.percentile(times, 95) * 1e3))
