"""Matplotlib drawings the notebooks reuse: the static arm, torque bars, heat maps, scaling and trajectory plots.

Notebook authors call these and write no plotting code of their own. Each helper draws into an
``ax`` it is given (so a panel can redraw the same axes in place) and returns what it drew.

* :func:`draw_arm_matplotlib` — the same geometry as the 3D viewer, as a static 3D figure (the
  fallback when pythreejs cannot render: headless runs, tests, nbval);
* :func:`torque_bars` — one bar per joint (``τ``, ``g(q)``, …), labelled by joint name;
* :func:`heatmap` — a matrix (``M(q)``) with a colour bar and its entries;
* :func:`loglog_scaling` — run time against ``n`` on log–log axes, with slope guides;
* :func:`trajectory_plot` — joint trajectories against time;
* :func:`inertia_ellipsoid` — the ellipsoid of gyration of a rigid body (3D wireframe), semi-axes from
  :func:`gyration_axes`;
* :func:`new_figure` — a detached Figure (:class:`NotebookFigure`: shown as a PNG in any kernel) and its Axes;
* :func:`figure_png` — a Figure rendered to PNG bytes (for ``ipywidgets.Image``);
* :class:`LivePlot` — a Figure redrawn in place fast enough for a slider (the still part is drawn
  once and kept; only the artists that change are drawn again).
"""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from .. import so3, spatial
from ..kinematics import fk
from . import geometry

#: Colours shared by both back ends.
COLORS = {"link": "#4a5a70", "tool": "#7d8a9c", "com": "#7d8a9c", "revolute": "#e8710a",
          "prismatic": "#1a9e77", "com_marker": "#c0392b", "ghost": "#5b8bd0", "arrow": "#d62728",
          "ellipsoid": "#7d8a9c"}

#: Colours of a coordinate frame's x, y, z axes (red, green, blue), both back ends.
FRAME_COLORS = ("#d62728", "#2ca02c", "#1f77b4")

#: The course's one projection style. Every figure is drawn to be read on a 1280×720 slide (the static
#: deck shows it at its pixel size, up to the slide's width; the live slideshow the same): at SLIDE_DPI
#: a point is 1.39 px, so ticks and legends (13 pt) are 18 px and labels 21 px, above the 16 px a
#: projected slide needs. A figure across the slide is WIDE inches wide (1100 px), one beside text HALF.
SLIDE_DPI = 100
TITLE_PT, LABEL_PT, TICK_PT, NOTE_PT = 16, 15, 13, 13
WIDE, HALF = 11.0, 6.4
#: matplotlib settings of the projection style (applied with the first figure: :func:`use_projection_style`).
PROJECTION_RC = {"figure.dpi": SLIDE_DPI, "savefig.dpi": "figure", "font.size": NOTE_PT,
                 "axes.titlesize": TITLE_PT, "axes.labelsize": LABEL_PT, "xtick.labelsize": TICK_PT,
                 "ytick.labelsize": TICK_PT, "legend.fontsize": NOTE_PT, "legend.title_fontsize": NOTE_PT,
                 "figure.titlesize": TITLE_PT, "lines.linewidth": 2.0, "lines.markersize": 7.0,
                 "axes.linewidth": 1.0, "legend.framealpha": 0.9}


def use_projection_style():
    """Set matplotlib's defaults to the course's projection style (:data:`PROJECTION_RC`): every figure a lesson
    makes afterwards, with the course's helpers or with pyplot, has slide-sized text and lines."""
    import matplotlib
    matplotlib.rcParams.update(PROJECTION_RC)

#: Bar colours for positive / negative values (index with ``value < 0``).
BAR_COLORS = ("#1f77b4", "#d62728")

#: Where a CJK font may be (Debian's fonts-noto-cjk first); the first that exists serves Chinese text in figures.
CJK_FONT_FILES = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
                  "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
                  "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")


def use_cjk_font(paths=CJK_FONT_FILES):
    """Let matplotlib draw Chinese: DejaVu Sans first, then a CJK font for the glyphs it lacks.

    Called once, when the first figure is made (:func:`new_figure`, :class:`LivePlot`). Returns the
    CJK family used, or None when no font file can be read (Chinese then shows as empty boxes:
    install ``fonts-noto-cjk``; a confined process, e.g. the grader's, reads no font and goes on).
    """
    import matplotlib
    from matplotlib import font_manager
    for path in paths:
        before = {f.name for f in font_manager.fontManager.ttflist}
        try:
            if not Path(path).is_file():
                continue
            font_manager.fontManager.addfont(path)
        except (OSError, RuntimeError):
            continue
        added = sorted({f.name for f in font_manager.fontManager.ttflist} - before) or \
            sorted(f.name for f in font_manager.fontManager.ttflist if f.fname == path)
        family = next((name for name in added if name.endswith(" SC")), added[0] if added else None)
        if family:
            matplotlib.rcParams["font.family"] = ["DejaVu Sans", family]
            return family
    return None


_FONTS = []


def _fonts_ready():
    """:func:`use_cjk_font` once per process, before the first figure."""
    if not _FONTS:
        use_projection_style()
        _FONTS.append(use_cjk_font())


_GID_LINK = "link"
_GID_AXIS = "joint-axis"


class NotebookFigure(Figure):
    """A detached Figure that shows itself as a PNG in a notebook, with or without ``%matplotlib inline``.

    A plain ``Figure`` made without pyplot is displayed as an image only once the inline backend has
    registered its formatter (``%matplotlib inline``, or importing pyplot in the kernel); in a fresh
    kernel it shows up as the text ``<Figure size …>``. This class adds ``_repr_png_``, rendered
    like the inline backend does (IPython's ``print_figure`` with ``InlineBackend.print_figure_kwargs``,
    default ``bbox_inches="tight"``). When the inline formatter *is* registered, IPython uses it
    first, so the output is what it was. ``repr`` (the ``text/plain`` that nbval compares) is a plain
    Figure's.
    """

    def __repr__(self):
        return super().__repr__().replace(f"<{type(self).__name__} ", "<Figure ", 1)

    def _repr_png_(self):
        return inline_png(self)


def inline_png(fig):
    """``fig`` as PNG bytes the way ``%matplotlib inline`` shows it (cropped to its content); None if empty.

    Uses the running kernel's ``InlineBackend.print_figure_kwargs`` when there is one.
    """
    try:
        from IPython import get_ipython
        from IPython.core.pylabtools import print_figure
    except ImportError:                                   # no IPython: the whole canvas
        return figure_png(fig) if fig.axes else None
    kwargs = {"bbox_inches": "tight"}
    shell = get_ipython()
    if shell is not None:
        try:
            from matplotlib_inline.config import InlineBackend
            kwargs = dict(InlineBackend.instance(parent=shell).print_figure_kwargs)
        except ImportError:
            pass
    return print_figure(fig, "png", **kwargs)


def new_figure(width=WIDE, height=4.0, dpi=SLIDE_DPI, projection=None):
    """A detached Figure (no pyplot: nothing is shown twice) and its one Axes.

    The figure is a :class:`NotebookFigure`: as the last line of a cell, or in ``display(fig)``, it
    shows as a PNG even in a kernel that never ran ``%matplotlib inline``.

    >>> fig, ax = new_figure(3.0, 2.0, dpi=50)
    >>> fig, inline_png(fig)[:4]                       # 150 × 100 pixels; shown as a PNG
    (<Figure size 150x100 with 1 Axes>, b'\x89PNG')
    """
    _fonts_ready()
    fig = NotebookFigure(figsize=(width, height), dpi=dpi, layout="constrained")
    ax = fig.add_subplot(projection=projection)
    return fig, ax


def figure_png(fig):
    """``fig`` rendered to PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _encode_png(canvas):
    """The canvas's current pixels as PNG bytes (fast zlib level: this runs on every slider move)."""
    from PIL import Image
    width, height = canvas.get_width_height()
    image = Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buf = io.BytesIO()
    image.save(buf, format="png", compress_level=1)
    return buf.getvalue()


class LivePlot:
    """One Axes on a detached Agg Figure, re-rendered to PNG on every change without a full redraw.

    Draw the plot into ``.ax`` once, then name the artists that will change with
    :meth:`set_dynamic`; :meth:`png` draws the still part (axes, ticks, labels) only the first time,
    keeps its pixels, and afterwards paints just the dynamic artists over them. Call :meth:`redraw`
    after changing anything else (limits, labels) to draw everything again.
    """

    def __init__(self, width=HALF, height=3.2, dpi=SLIDE_DPI, *, margins=(0.11, 0.98, 0.2, 0.88)):
        _fonts_ready()
        self.fig = Figure(figsize=(width, height), dpi=dpi)
        self.canvas = FigureCanvasAgg(self.fig)
        self.ax = self.fig.add_subplot()
        left, right, bottom, top = margins
        self.fig.subplots_adjust(left=left, right=right, bottom=bottom, top=top)
        self._dynamic, self._background = [], None

    def set_dynamic(self, artists):
        """The artists that change between frames (they are left out of the kept background)."""
        for a in self._dynamic:
            a.set_animated(False)
        self._dynamic = list(artists)
        for a in self._dynamic:
            a.set_animated(True)
        self._background = None

    def redraw(self):
        """Forget the kept background: the next :meth:`png` draws everything."""
        self._background = None

    def png(self):
        """The current plot as PNG bytes."""
        if self._background is None:
            self.canvas.draw()
            self._background = self.canvas.copy_from_bbox(self.fig.bbox)
        else:
            self.canvas.restore_region(self._background)
        for artist in self._dynamic:
            self.fig.draw_artist(artist)
        return _encode_png(self.canvas)


def drawn_points(model, q, *, ghost=None, arrows=None, poses=None):
    """World points (k, 3) that a drawing of ``model`` at ``q`` covers: the base, every link segment end,
    joint points, COMs, the ghost, arrow origins and tips, and the free frames' origins and axis tips.

    Both back ends frame their view with these (the 3D camera and the static figure's limits).
    """
    T = fk(model, q)
    segments = geometry.link_segments(model)
    parts = [np.zeros((1, 3)), *geometry.segment_endpoints(model, T, segments),
             geometry.world_points(model, T, range(model.n), model.com)]
    if ghost is not None:
        parts += list(geometry.segment_endpoints(model, fk(model, ghost), segments))
    for origins, vectors, _ in (arrows or {}).values():
        o, v = np.atleast_2d(origins), np.atleast_2d(vectors)
        parts += [o, o + v]
    for T_pose, length, _ in (poses or {}).values():
        parts += [T_pose[:3, 3][None], T_pose[:3, 3] + length * T_pose[:3, :3].T]
    return np.vstack(parts)


def _axis_name(e):
    """``"x"``, ``"y"`` or ``"z"`` (with a sign) when the unit vector ``e`` is a world axis, else None."""
    k = int(np.argmax(np.abs(e)))
    if abs(abs(e[k]) - 1.0) > 1e-9:
        return None
    return ("" if e[k] > 0 else "−") + "xyz"[k]


def draw_arm_matplotlib(model, q=None, ax=None, *, frames=False, com=False, ghost=None, arrows=None, poses=None,
                        reach=None, fit=True):
    """Draw ``model`` at ``q`` (default zeros) as a static figure; returns the Axes.

    One line per link segment (:func:`lessonlib.viz.geometry.link_segments`, gid ``"link"``), one
    mark per joint axis (gid ``"joint-axis"``; orange revolute, green prismatic), optional
    body frames (``frames=True``), COM markers sized by mass^(1/3) (``com=True``), a grey
    ``ghost`` configuration, ``arrows``: a dict ``name -> (origins, vectors, color)`` in world
    coordinates, and ``poses``: a dict ``name -> (T, length, colors)`` of coordinate frames at world
    poses ``T`` (4×4; three arrows of ``length`` m along its x, y, z axes in ``colors``, gid
    ``"pose:name"``).

    A **planar** arm (every joint axis parallel, :func:`lessonlib.viz.geometry.is_planar`) is drawn in
    2D, in its plane, with equal aspect (a revolute axis, perpendicular to the plane, is a dot); any
    other arm in 3D. ``ax``: the Axes to draw into (a 2D Axes gives the planar drawing, a 3D one the
    3D drawing); None makes a new figure of the right kind. ``fit``: axis limits tight around
    everything drawn (:func:`drawn_points`), equal scale on every axis; False: the box ±``reach``.
    ``reach``: the scene size in metres (default :func:`lessonlib.viz.geometry.reach`); marker sizes
    scale with it.
    """
    q = np.zeros(model.n) if q is None else model.check_q(q)
    ghost = None if ghost is None else model.check_q(ghost, "ghost")
    if ax is None:
        planar = geometry.is_planar(model)
        _, ax = new_figure(5.0, 4.0, projection=None if planar else "3d")
    flat = getattr(ax, "name", "") != "3d"
    R = geometry.reach(model) if reach is None else geometry.check_reach(reach)
    if flat:
        e1, e2 = geometry.plane_axes(model) if geometry.is_planar(model) else (np.eye(3)[0], np.eye(3)[1])
        P = np.vstack([e1, e2])                                  # world → plane coordinates

        def xy(*points):
            return tuple(np.atleast_2d(points) @ P.T)

        def line(a, b, **kw):
            return ax.plot(*np.transpose(xy(a, b)), **kw)
    else:
        def line(a, b, **kw):
            return ax.plot(*np.transpose([a, b]), **kw)
    segments = geometry.link_segments(model)
    T = fk(model, q)
    if ghost is not None:
        for a, b in zip(*geometry.segment_endpoints(model, fk(model, ghost), segments)):
            line(a, b, color=COLORS["ghost"], lw=2, alpha=0.5, gid="ghost")
    for s, a, b in zip(segments, *geometry.segment_endpoints(model, T, segments)):
        line(a, b, color=COLORS[s.kind], lw=4 if s.kind == "link" else 2.5, solid_capstyle="round", gid=_GID_LINK)
    half = 0.06 * R
    for i, joint in enumerate(model.joints):
        c = T[i][:3, :3] @ geometry.joint_point(model, i) + T[i][:3, 3]
        e = T[i][:3, :3] @ joint.axis
        if flat and joint.is_revolute:
            ax.plot(*xy(c)[0], marker="o", ms=9, color=COLORS[joint.kind], mec="white", mew=1.2, gid=_GID_AXIS,
                    zorder=3)
        else:
            line(c - half * e, c + half * e, color=COLORS[joint.kind], lw=3.5, gid=_GID_AXIS)
    if frames:
        for i in range(model.n):
            for k, color in enumerate(FRAME_COLORS):
                line(T[i][:3, 3], T[i][:3, 3] + 0.1 * R * T[i][:3, k], color=color, lw=1, gid="frame")
    if com:
        c = geometry.world_points(model, T, range(model.n), model.com)
        sizes = 50 * (model.mass / model.mass.max()) ** (2 / 3)
        if flat:
            ax.scatter(*np.transpose(xy(*c)), s=sizes, color=COLORS["com_marker"], gid="com", zorder=4)
        else:
            ax.scatter(*c.T, s=sizes, color=COLORS["com_marker"], depthshade=False, gid="com")
    for name, (origins, vectors, color) in (arrows or {}).items():
        o, v = np.atleast_2d(origins), np.atleast_2d(vectors)
        if flat:
            (ox, oy), (vx, vy) = np.transpose(xy(*o)), np.transpose(xy(*v))
            ax.quiver(ox, oy, vx, vy, color=color, angles="xy", scale_units="xy", scale=1, width=0.006,
                      gid=f"arrow:{name}", zorder=5)
        else:
            ax.quiver(*o.T, *v.T, color=color, arrow_length_ratio=0.2, gid=f"arrow:{name}")
    for name, (T_pose, length, colors) in (poses or {}).items():
        for k, color in enumerate(colors):
            if flat:
                (ox, oy), (vx, vy) = xy(T_pose[:3, 3])[0], xy(length * T_pose[:3, k])[0]
                ax.quiver([ox], [oy], [vx], [vy], color=color, angles="xy", scale_units="xy", scale=1, width=0.006,
                          gid=f"pose:{name}")
            else:
                ax.quiver(*T_pose[:3, 3], *(length * T_pose[:3, k]), color=color, arrow_length_ratio=0.2,
                          gid=f"pose:{name}")
    points = drawn_points(model, q, ghost=ghost, arrows=arrows, poses=poses)
    if flat:
        points = np.array(xy(*points))
    if fit:
        lo, hi = points.min(axis=0), points.max(axis=0)
        margin = 0.06 * max(float(np.max(hi - lo)), 1e-3) + 0.5 * half
        lo, hi = geometry.bounding_box(np.vstack([lo - margin, hi + margin]), floor=0.5 * float(np.max(hi - lo)))
    else:
        lo, hi = -R * np.ones(points.shape[1]), R * np.ones(points.shape[1])
    if flat:
        ax.plot(*xy(np.zeros(3))[0], marker="s", ms=7, color="#555555")
        (x0, y0), (x1, y1) = lo, hi
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.set_aspect("equal", adjustable="datalim")
        n1, n2 = (_axis_name(e) for e in (e1, e2))
        ax.set_xlabel(f"{n1} (m)" if n1 else "along the plane (m)")
        ax.set_ylabel(f"{n2} (m)" if n2 else "up the plane (m)")
        ax.grid(alpha=0.25)
    else:
        ax.scatter([0], [0], [0], marker="s", s=40, color="#555555")
        ax.set(xlim=(lo[0], hi[0]), ylim=(lo[1], hi[1]), zlim=(lo[2], hi[2]))
        for axis, label in zip((ax.xaxis, ax.yaxis, ax.zaxis), "xyz"):
            axis.set_label_text(label, fontsize=LABEL_PT)
            axis.labelpad = 6                                  # clear of the slide-sized tick labels
        ax.set_box_aspect(tuple(hi - lo), zoom=0.9)           # equal scale on every axis, no empty cube; room for labels
        from matplotlib.ticker import MaxNLocator
        for axis, extent in zip((ax.xaxis, ax.yaxis, ax.zaxis), hi - lo):   # few ticks, so slide-sized ones do not
            axis.set_major_locator(MaxNLocator(nbins=2 if extent > 0.6 * np.max(hi - lo) else 1))   # crowd
        ax.tick_params(labelsize=TICK_PT, pad=3)
        ax.grid(False)                                         # a grid triples the PNG size and adds little here
        up = geometry.up_vector(model)
        d = geometry.view_direction(model)
        if abs(up[2]) > 0.9:        # z up: matplotlib's own "up"
            ax.view_init(elev=np.degrees(np.arcsin(np.clip(d[2], -1, 1))), azim=np.degrees(np.arctan2(d[1], d[0])))
        else:
            ax.view_init(elev=90, azim=-90)
            if geometry.is_planar(model):      # a planar arm in a 3D Axes (pass a 2D one, or none, to get 2D):
                ax.set_zticks([])              # no depth ticks piled up in a corner
                ax.zaxis.set_label_text("")
    ax.set_title(model.name if flat else f"{model.name}   (x, y, z in m)", fontsize=TITLE_PT)
    return ax


def _joint_labels(names, n):
    return list(names) if names is not None else [f"q{i + 1}" for i in range(n)]


def _bar_range(ylim, values):
    """``(lower, upper)`` of a bar plot from ``ylim``: None, a symmetric limit ``L`` or a pair."""
    if ylim is None:
        lim = 1.1 * max(float(np.max(np.abs(values))), 1e-9)
        return -lim, lim
    limits = np.asarray(ylim, dtype=float)
    if limits.shape == () and np.isfinite(limits) and limits > 0:
        return -float(limits), float(limits)
    if limits.shape == (2,) and np.all(np.isfinite(limits)) and limits[0] < limits[1]:
        return float(limits[0]), float(limits[1])
    raise ValueError(f"ylim: expected a limit L > 0 (range ±L) or a pair (lower, upper) with lower < upper, "
                     f"got {ylim!r}")


def torque_bars(ax, tau, names=None, *, ylabel="τ (N·m or N)", title=None, ylim=None):
    """One bar per joint, labelled by ``names``; returns the BarContainer.

    ``ylim``: a number ``L`` for the fixed symmetric range ``(−L, L)`` (a panel keeps it fixed so
    bars move against a still scale), or a pair ``(lower, upper)`` for any range (e.g. ``(0, 1.2)``
    for values that are never negative); default: ± the largest magnitude plus 10 %.

    >>> _, ax = new_figure()
    >>> limits = lambda: tuple(float(y) for y in ax.get_ylim())
    >>> bars = torque_bars(ax, [1.0, -2.0])
    >>> limits(), torque_bars(ax, [1.0, 0.5], ylim=(0.0, 1.5)) and limits()
    ((-2.2, 2.2), (0.0, 1.5))
    """
    tau = np.asarray(tau, dtype=float).ravel()
    labels = _joint_labels(names, tau.size)
    lower, upper = _bar_range(ylim, tau)
    ax.clear()
    bars = ax.bar(range(tau.size), tau, color=[BAR_COLORS[int(x < 0)] for x in tau])
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_xticks(range(tau.size), labels, rotation=30 if tau.size > 4 else 0, fontsize=TICK_PT)
    ax.set_ylim(lower, upper)
    ax.set_ylabel(ylabel, fontsize=LABEL_PT)
    ax.tick_params(axis="y", labelsize=TICK_PT)
    if title:
        ax.set_title(title, fontsize=TITLE_PT)
    return bars


def heatmap(ax, M, *, labels=None, title=None, annotate=True, colorbar=False, vmax=None, cmap="RdBu_r"):
    """Show the matrix ``M`` as a heat map (colour scale symmetric about 0, ±``vmax``); returns the image.

    ``annotate``: write every entry in its cell (matrices up to 10×10); ``colorbar``: add a colour bar.
    """
    M = np.asarray(M, dtype=float)
    ax.clear()
    v = vmax if vmax is not None else max(float(np.max(np.abs(M))), 1e-12)
    im = ax.imshow(M, cmap=cmap, vmin=-v, vmax=v)
    ticks = _joint_labels(labels, M.shape[0])
    ax.set_xticks(range(M.shape[1]), ticks[:M.shape[1]], fontsize=TICK_PT, rotation=30 if M.shape[1] > 4 else 0)
    ax.set_yticks(range(M.shape[0]), ticks[:M.shape[0]], fontsize=TICK_PT)
    if annotate and M.size <= 100:
        for (r, c), x in np.ndenumerate(M):
            ax.text(c, r, f"{x:.2f}", ha="center", va="center", fontsize=NOTE_PT,
                    color="white" if abs(x) > 0.6 * v else "black")
    if colorbar:
        ax.figure.colorbar(im, cax=ax.inset_axes([1.04, 0.0, 0.04, 1.0]))   # beside the image box
    if title:
        ax.set_title(title, fontsize=TITLE_PT)
    return im


def loglog_scaling(ax, n, times, labels, *, slopes=(1, 2, 3), unit="s", xlabel="n (joints)", ylabel=None,
                   integer_ticks=True):
    """Run time against ``n`` on log–log axes: one line per row of ``times``, dashed guides of ``slopes``.

    ``times``: (k, len(n)) — row ``j`` labelled ``labels[j]``. The guides start at the first
    point of the lowest curve, so "O(n)" and "O(n²)" can be read off directly. ``ylabel`` None:
    ``"time (unit)"``. ``integer_ticks``: the x ticks sit at the values of ``n`` (every k-th when
    there are more than 10) and read as plain numbers (``2, 4, 8``, not ``10⁰, 10¹``); False leaves
    matplotlib's log ticks.

    >>> _, ax = new_figure()
    >>> lines = loglog_scaling(ax, [2, 4, 8, 16], [[1.0, 2.0, 4.0, 8.0]], ["rnea"], unit="ms")
    >>> [t.get_text() for t in ax.get_xticklabels()], ax.get_ylabel()
    (['2', '4', '8', '16'], 'time (ms)')
    """
    n = np.asarray(n, dtype=float)
    times = np.atleast_2d(np.asarray(times, dtype=float))
    if times.shape != (len(labels), n.size):
        raise ValueError(f"times: expected shape ({len(labels)}, {n.size}), got {times.shape}")
    ax.clear()
    lines = [ax.loglog(n, t, marker="o", label=lab)[0] for t, lab in zip(times, labels)]
    t0 = float(np.min(times[:, 0]))
    for p in slopes:
        ax.loglog(n, t0 * (n / n[0]) ** p, ls="--", lw=0.8, color="gray")
        ax.annotate(f"O(n{'' if p == 1 else '²' if p == 2 else '³' if p == 3 else f'^{p}'})",
                    (n[-1], t0 * (n[-1] / n[0]) ** p), fontsize=NOTE_PT, color="gray")
    if integer_ticks:
        ticks = n if n.size <= 10 else n[::int(np.ceil(n.size / 10))]
        ax.set_xticks(ticks, [f"{x:g}" for x in ticks])
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"time ({unit})" if ylabel is None else ylabel)
    ax.legend(fontsize=TICK_PT)
    return lines


def trajectory_plot(ax, t, Y, labels=None, *, xlabel="t (s)", ylabel=None, title=None, legend="best"):
    """Columns of ``Y`` (shape (len(t), k)) against ``t``, one labelled line each; returns the lines.

    ``t`` is time by default; any other abscissa (a joint angle, a velocity) names itself with ``xlabel``.
    ``legend``: where the legend goes (a matplotlib ``loc``: ``"upper right"``, …), or None for none (e.g. one
    legend for the whole figure).

    >>> _, ax = new_figure()
    >>> lines = trajectory_plot(ax, [0.0, 0.5, 1.0], [[0.0, 1.0], [0.5, 2.0], [1.0, 3.0]], ["M11", "M22"],
    ...                         xlabel="q2 (rad)", ylabel="kg·m²")
    >>> [line.get_label() for line in lines], ax.get_xlabel(), lines[1].get_ydata().tolist()
    (['M11', 'M22'], 'q2 (rad)', [1.0, 2.0, 3.0])
    >>> ax.get_legend()._loc, trajectory_plot(ax, [0.0, 1.0], [1.0, 2.0], legend=None) and ax.get_legend()
    (0, None)
    >>> _ = trajectory_plot(ax, [0.0, 1.0], [1.0, 2.0], legend="upper right"); ax.get_legend()._loc
    1
    """
    t = np.asarray(t, dtype=float)
    Y = np.asarray(Y, dtype=float).reshape(t.size, -1)
    ax.clear()
    lines = ax.plot(t, Y)
    for line, lab in zip(lines, _joint_labels(labels, Y.shape[1])):
        line.set_label(lab)
    ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=TITLE_PT)
    if legend:
        ax.legend(loc=legend, fontsize=NOTE_PT, ncol=2 if Y.shape[1] > 4 else 1)
    ax.grid(alpha=0.3)
    return lines


def gyration_axes(I_c, mass):
    """Radii of gyration ``k_j = √(I_j / m)`` (ascending) and the principal axes (columns) of an inertia.

    ``I_c`` (3, 3) is a rotational inertia (about the COM, or about any point) in some axes; the
    principal moments ``I_j`` and axes ``e_j`` are its eigen-pairs, ``I_c e_j = I_j e_j``. A body
    of ``mass`` m turning about ``e_j`` has the inertia of a point mass m at distance ``k_j``: the
    ``k_j`` are the semi-axes of its ellipsoid of gyration (:func:`inertia_ellipsoid`).

    >>> m, (a, b, c) = 2.0, (0.3, 0.2, 0.1)                           # a 2 kg box, 0.3 × 0.2 × 0.1 m
    >>> I_c = m / 12 * np.diag([b**2 + c**2, a**2 + c**2, a**2 + b**2])
    >>> k, axes = gyration_axes(I_c, m)
    >>> k.round(6), np.abs(axes).round(6).tolist()                    # √((b² + c²)/12), …
    (array([0.06455 , 0.091287, 0.104083]), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    """
    I_c = np.asarray(I_c, dtype=float)
    spatial.check_inertia_params(mass, np.zeros(3), I_c, "I_c")
    moments, axes = np.linalg.eigh(0.5 * (I_c + I_c.T))
    return np.sqrt(np.maximum(moments, 0.0) / mass), axes


def inertia_ellipsoid(ax, I_c, mass=None, *, center=(0.0, 0.0, 0.0), R=None, color=COLORS["ellipsoid"],
                      resolution=(24, 12), principal_axes=True, autoscale=True):
    """Draw the ellipsoid of gyration of a rigid body into the 3D ``ax``; returns the wireframe.

    Semi-axes ``√(I_j / m)`` along the principal axes of ``I_c`` (:func:`gyration_axes`). ``I_c``:
    the (3, 3) rotational inertia about the COM in body axes, with ``mass`` (kg) — or the body's
    (6, 6) spatial inertia about its origin (:func:`lessonlib.spatial.inertia`; ``mass`` None),
    whose COM ``c`` and ``I_c`` are used. ``center``: world position of the point ``I_c`` refers
    to (the COM for a 3×3 ``I_c``, the body origin for a 6×6 one); ``R``: body axes in world axes
    (default identity). The ellipsoid is centred at ``center + R c``.

    ``principal_axes`` also draws the three semi-axes (both ways; first to third principal axis
    red, green, blue; gid ``"gyration-axes"``); ``resolution``: (around, pole to pole) wireframe
    lines; ``autoscale`` sets equal axis limits around the ellipsoid (turn it off when the ellipsoid
    joins a larger drawing). The wireframe has gid ``"inertia-ellipsoid"``.

    >>> _, ax = new_figure(projection="3d")
    >>> wire = inertia_ellipsoid(ax, np.diag([0.3, 0.3, 0.12]), 3.0, center=[0.0, 0.0, 1.0])
    >>> wire.get_gid(), [round(float(z), 4) for z in ax.get_zlim()]     # equal limits 1 ± 1.25·√(0.3/3)
    ('inertia-ellipsoid', [0.6047, 1.3953])
    """
    I_c = np.asarray(I_c, dtype=float)
    c = np.zeros(3)
    if I_c.shape == (6, 6):
        if mass is not None:
            raise ValueError(f"mass: a 6x6 spatial inertia already holds the mass; expected None, got {mass!r}")
        mass, c, I_c = spatial.inertia_params(spatial.check_spatial_inertia(I_c, "I_c"), "I_c")
    elif I_c.shape != (3, 3):
        raise ValueError(f"I_c: expected a 3x3 rotational inertia (with mass) or a 6x6 spatial inertia, "
                         f"got shape {I_c.shape}")
    elif mass is None:
        raise ValueError("mass: required with a 3x3 rotational inertia (kg), got None")
    k, axes = gyration_axes(I_c, float(mass))
    R = np.eye(3) if R is None else so3.check_rotation(R, "R")
    center = np.asarray(center, dtype=float)
    if center.shape != (3,) or not np.all(np.isfinite(center)):
        raise ValueError(f"center: expected a finite 3-vector, got {center!r}")
    around, poles = resolution
    u, v = np.meshgrid(np.linspace(0.0, 2 * np.pi, int(around) + 1), np.linspace(0.0, np.pi, int(poles) + 1))
    sphere = np.stack([np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v)])        # (3, poles+1, around+1)
    world_axes = R @ axes * k                                                          # semi-axis j: column j
    middle = center + R @ c
    X, Y, Z = middle[:, None, None] + np.einsum("ij,jab->iab", world_axes, sphere)
    wire = ax.plot_wireframe(X, Y, Z, color=color, lw=0.6, alpha=0.6, gid="inertia-ellipsoid")
    if principal_axes:
        for j, axis_color in enumerate(FRAME_COLORS):
            ax.plot(*np.transpose([middle - world_axes[:, j], middle + world_axes[:, j]]), color=axis_color, lw=1.5,
                    gid="gyration-axes")
    if autoscale:
        half = 1.25 * max(float(k.max()), 1e-6)
        ax.set(xlim=(middle[0] - half, middle[0] + half), ylim=(middle[1] - half, middle[1] + half),
               zlim=(middle[2] - half, middle[2] + half))
        ax.set_box_aspect((1, 1, 1))
    return wire


__all__ = ["draw_arm_matplotlib", "drawn_points", "use_cjk_font", "torque_bars", "heatmap", "loglog_scaling", "trajectory_plot", "new_figure",
           "figure_png", "inline_png", "NotebookFigure", "COLORS", "BAR_COLORS", "FRAME_COLORS", "LivePlot",
           "gyration_axes", "inertia_ellipsoid"]
