"""ArmView: a 3D view of any Model (pythreejs), with a static matplotlib fallback.

The scene is built once. :meth:`ArmView.update` only sets 4×4 matrices: one ``Group`` per body
(matrix ``T_0_i`` from :func:`lessonlib.kinematics.fk`; it carries the joint marker, body frame and
COM sphere) and one stretched unit cylinder per link segment (both ends follow their bodies, so a
prismatic joint's segment grows and shrinks). Arrows (:meth:`ArmView.show_arrows`), free coordinate
frames (:meth:`ArmView.show_frame`: one Group per frame, its matrix the frame's pose) and the
translucent ghost (:meth:`ArmView.set_ghost`) are updated in place the same way.

Lights: AmbientLight + HemisphereLight only (Directional/Point/SpotLight make pythreejs log
"Error setting state: t.on is not a function", NOTES.md).
"""
from __future__ import annotations

import contextlib
import html
import logging
import weakref

import numpy as np

from .. import _validate as validate
from .. import se3
from ..conventions import BASE
from ..kinematics import fk
from . import geometry
from .env import headless, running_under_test
from .plots import (COLORS, FRAME_COLORS, NOTE_PT, SLIDE_DPI, draw_arm_matplotlib, drawn_points, figure_png,
                    new_figure)

BACKENDS = ("auto", "threejs", "matplotlib")
#: Resolution of the static fallback image: the projection style's (:data:`~lessonlib.viz.plots.SLIDE_DPI`, 100
#: dpi), so the image has the widget's pixel size and its text the style's sizes.
FALLBACK_DPI = SLIDE_DPI
#: Font size of the arrow legend under a 3D view (px): a widget label's size on a projected slide (≥ 16 px).
LEGEND_PX = 17
#: Every pythreejs view built in this process, by the ``id`` of its Renderer (for :func:`view_of_renderer`).
_VIEWS = weakref.WeakValueDictionary()


def view_of_renderer(widget):
    """The :class:`ArmView` whose pythreejs Renderer is ``widget`` (None for any other widget)."""
    view = _VIEWS.get(id(widget))
    return view if view is not None and getattr(view, "renderer", None) is widget else None


def view_of_widget(widget):
    """The :class:`ArmView` whose displayable :attr:`ArmView.widget` (the Renderer above its legend) is ``widget``."""
    children = getattr(widget, "children", None)
    view = view_of_renderer(children[0]) if children else None
    return view if view is not None and view._box is widget else None


def choose_backend(backend="auto"):
    """``"threejs"`` or ``"matplotlib"`` for the requested ``backend``.

    ``"auto"`` gives matplotlib under test (:func:`running_under_test`), when headless
    (:func:`headless`) or when pythreejs cannot be imported; pythreejs otherwise.
    """
    validate.one_of(backend, BACKENDS, "backend")
    if backend == "matplotlib":
        return backend
    if backend == "auto" and (running_under_test() or headless()):
        return "matplotlib"
    try:
        import pythreejs  # noqa: F401
    except ImportError:
        if backend == "threejs":
            raise
        return "matplotlib"
    return "threejs"


def _short_bundle(widget, text):
    """The widget's display bundle with a short, stable ``text/plain`` (what nbval compares)."""
    data = widget._repr_mimebundle_()
    data["text/plain"] = text
    return data


class _Sizes:
    """Every length of the drawing, as a fraction of the robot's reach ``R``."""

    def __init__(self, R):
        self.R = R
        self.link = 0.016 * R
        self.joint_radius = 0.024 * R
        self.joint_half = 0.035 * R
        self.cone_radius = 0.014 * R
        self.cone_length = 0.035 * R
        self.com = 0.035 * R
        self.axes = 0.12 * R
        self.shaft = 0.007 * R
        self.head_radius = 0.018 * R
        self.head_length = 0.05 * R


class ArmView:
    """A 3D view of ``model`` at ``q`` that follows :meth:`update` without rebuilding its scene.

    The camera frames everything drawn (arm, ghost, arrows, frames: :func:`~lessonlib.viz.plots.drawn_points`)
    and keeps it framed: when the drawing leaves the framed sphere, or shrinks below half of it, the
    view is fitted again (from the direction the camera looks now, so an orbit by the user is kept).

    Parameters: ``q`` (default zeros); ``width, height`` in pixels (default 560×360: with controls or a line of
    text and its legend it fits a 1280×720 slide); ``frames`` draws every body
    frame (x red, y green, z blue); ``com`` draws a sphere at every COM, radius ∝ mass^(1/3);
    ``background`` colour; ``backend`` ``"auto"`` | ``"threejs"`` | ``"matplotlib"``
    (:func:`choose_backend`); ``reach``: the scene size in metres — marker sizes, the grid, the
    camera distance and the fallback's axis limits scale with it (None: :func:`geometry.reach`, a
    bound on how far the model reaches; give a smaller value to zoom in on a small scene, e.g.
    free frames drawn around a one-body stage).

    Attributes: ``model``, ``q``, ``backend``, ``widget`` (the pythreejs ``Renderer``; with the
    matplotlib backend an ``ipywidgets.Image`` of the static figure), ``body_groups`` and
    ``link_meshes`` (pythreejs objects, for tests and lessons).

    In a notebook: ``view = ArmView(arm)`` then ``view`` as the last line of a cell shows it.
    """

    #: Vertical field of view of the camera (degrees).
    FOV = 40.0
    #: Fraction of the canvas (half-width or half-height, whichever binds) a fitted drawing fills.
    FILL = 0.88
    #: Refit when the drawing spans less than this fraction of ``FILL``, or comes closer to an edge than ``REFIT_EDGE``.
    REFIT_SHRINK, REFIT_EDGE = 0.5, 0.95

    def __init__(self, model, q=None, *, width=560, height=360, frames=False, com=False,
                 background="#f5f6f8", backend="auto", reach=None):
        self.model = model
        self.backend = choose_backend(backend)
        self.q = np.zeros(model.n) if q is None else model.check_q(q).copy()
        self.width, self.height = int(width), int(height)
        self.frames, self.com, self.background = bool(frames), bool(com), background
        self.segments = geometry.link_segments(model)
        self.size = _Sizes(geometry.reach(model) if reach is None else geometry.check_reach(reach))
        self.ghost_q = None
        self._arrows = {}              # name -> (origins, vectors, color) in world coordinates
        self._arrow_legend = {}        # name -> (label, unit, scale text, color)
        self._legend = None            # threejs backend: the ipywidgets.HTML legend under the canvas
        self._frames = {}              # name -> (T, length, colors): free frames on show, world poses
        self._image = None             # matplotlib backend: the ipywidgets.Image, made on demand
        self._box = None               # threejs backend: VBox(renderer, legend), made on demand
        self.body_groups, self.link_meshes = [], []
        if self.backend == "threejs":
            self._build_scene()
        self.update(self.q)

    def __repr__(self):
        # The same text with either back end: nbval compares it between a full run and a test run.
        return f"ArmView({self.model.name!r})"

    # --- public API ------------------------------------------------------------------------------
    @property
    def widget(self):
        """The displayable widget: the pythreejs Renderer above the arrow legend (with matplotlib, an ``ipywidgets.Image``)."""
        if self.backend == "threejs":
            if self._box is None:
                import ipywidgets
                self._box = ipywidgets.VBox([self.renderer, self.legend])
            return self._box
        if self._image is None:
            import ipywidgets
            # shown at its pixel size (the 3D view's width; its own height, with the arrow legend under the
            # drawing): a box stretches a child of no set size (align-items: stretch), a VBox its width, an HBox
            # its height
            self._image = ipywidgets.Image(value=self._png(), format="png",
                                           layout=ipywidgets.Layout(width=f"{self.width}px", align_self="flex-start"))
        return self._image

    def update(self, q):
        """Move the arm to ``q``: only matrices change (no object is created or removed)."""
        self.q = self.model.check_q(q).copy()
        if self.backend == "threejs":
            self._place(fk(self.model, self.q), self.body_groups, self.link_meshes)
            self._fit_camera()
        elif self._image is not None:
            self._image.value = self._png()

    def set_ghost(self, q):
        """Show a translucent second copy of the arm at ``q`` (e.g. the target beside the actual pose)."""
        self.ghost_q = self.model.check_q(q, "q").copy()
        if self.backend == "threejs":
            self._place(fk(self.model, self.ghost_q), self.ghost_groups, self.ghost_link_meshes)
            self.ghost_root.visible = True
            self._fit_camera()
        elif self._image is not None:
            self._image.value = self._png()

    def hide_ghost(self):
        """Hide the ghost copy (it stays built, ready for the next :meth:`set_ghost`)."""
        self.ghost_q = None
        if self.backend == "threejs":
            self.ghost_root.visible = False
            self._fit_camera()
        elif self._image is not None:
            self._image.value = self._png()

    def show_arrows(self, name, origins, vectors, color=COLORS["arrow"], *, bodies=None, scale=1.0, label=None,
                    unit=""):
        """Draw (or move) the arrow set ``name``: arrow ``k`` from ``origins[k]`` along ``vectors[k]``, scaled.

        ``origins``, ``vectors``: (k, 3) in world coordinates, or — when ``bodies`` is given (one body
        index per arrow) — in those bodies' frames at the current ``q`` (e.g. the linear parts of
        ``rnea_trace(...).f``, which are body-frame quantities). ``scale``:

        * a number — metres of arrow per unit of the quantity (one scale for every arrow);
        * ``"per_body"`` — every arrow the same length (a quarter of the scene), the direction only;
          the magnitudes are listed in the legend (a force on the hand is as visible as one on the base);
        * ``"log"`` — length ∝ log(1 + |v| / v_min), v_min = 10⁻³ of the largest: small and large
          values both visible, order kept.

        The legend under the view (``legend``; in the static figure, its legend box) gives the
        set's colour, ``label`` (default ``name``) with ``unit``, and the scale. Called again with the
        same ``name``, the existing arrow objects are moved and recoloured in place. Zero vectors are hidden.
        """
        o = np.atleast_2d(np.asarray(origins, dtype=float))
        v = np.atleast_2d(np.asarray(vectors, dtype=float))
        if o.shape != v.shape or o.shape[1:] != (3,):
            raise ValueError(f"origins, vectors: expected two (k, 3) arrays, got {o.shape} and {v.shape}")
        if bodies is not None:
            bodies = [int(b) for b in bodies]
            if len(bodies) != len(o):
                raise ValueError(f"bodies: expected {len(o)} body indices (one per arrow), got {len(bodies)}")
            T = fk(self.model, self.q)
            o = geometry.world_points(self.model, T, bodies, o)
            v = np.array([vk if b == BASE else T[b][:3, :3] @ vk for b, vk in zip(bodies, v)]).reshape(-1, 3)
        v, scale_text = _scaled_arrows(v, scale, self.size.R, unit)
        self._arrow_legend[name] = (label or name, unit, scale_text, color)
        self._update_legend()
        self._arrows[name] = (o, v, color)
        if self.backend == "threejs":
            self._place_arrows(name, o, v, color)
            self._fit_camera()
        elif self._image is not None:
            self._image.value = self._png()

    def clear_arrows(self, name=None):
        """Remove the arrow set ``name`` (every set when ``name`` is None)."""
        names = list(self._arrows) if name is None else [name]
        for key in names:
            if key not in self._arrows:
                raise ValueError(f"name: no arrow set called {key!r}; sets are {list(self._arrows)}")
            del self._arrows[key]
            self._arrow_legend.pop(key, None)
            self._update_legend()
            if self.backend == "threejs":
                group = self._arrow_groups.pop(key)
                self.root.remove(group)
        if self.backend == "threejs":
            self._fit_camera()
        if self.backend != "threejs" and self._image is not None:
            self._image.value = self._png()

    @property
    def legend(self):
        """An ``ipywidgets.HTML``: colour → quantity and scale of every arrow set (hidden while there are none)."""
        if self._legend is None:
            import ipywidgets
            self._legend = ipywidgets.HTML(layout=ipywidgets.Layout(width=f"{self.width}px"))
            self._update_legend()
        return self._legend

    def legend_lines(self):
        """``[(colour, text)]``: one line per arrow set, e.g. ``("#d62728", "force f_i (N): 1 m of arrow = 120 N")``."""
        return [(color, f"{label}{f' ({unit})' if unit else ''}: {text}")
                for label, unit, text, color in self._arrow_legend.values()]

    def _update_legend(self):
        if self._legend is None:
            return
        lines = self.legend_lines()
        self._legend.value = "".join(f'<div style="font-size:{LEGEND_PX}px;line-height:1.35;white-space:normal">'
                                     f'<span style="color:{c}">'
                                     f"&#9632;</span> {html.escape(t)}</div>" for c, t in lines)
        self._legend.layout.display = None if lines else "none"

    @property
    def arrow_names(self):
        """Names of the arrow sets on show."""
        return tuple(self._arrows)

    def show_frame(self, name, T, length=0.1, *, colors=None):
        """Draw (or move) the coordinate frame ``name`` at the world pose ``T``: three arrows of ``length`` m.

        ``T`` (4×4) is the frame's pose in world coordinates (``T_0_f``); arrows start at its origin
        along its x, y, z axes, coloured red, green, blue (``colors``: one colour for all three, or
        three). Called again with the same ``name``, the frame moves in place: one matrix changes
        (the arrows are rebuilt only when ``length`` changes, never recreated).

        >>> from lessonlib import samples, se3, so3
        >>> view = ArmView(samples.pendulum(), backend="matplotlib", reach=0.3)
        >>> view.show_frame("b", se3.from_Rp(so3.rot_z(0.5), [0.1, 0.0, 0.0]), length=0.05)
        >>> view.frame_names, view.size.R
        (('b',), 0.3)
        """
        T = se3.check_transform(T, "T")
        length = geometry.check_reach(length, "length")
        colors = _frame_colors(colors)
        self._frames[name] = (T.copy(), length, colors)
        if self.backend == "threejs":
            self._place_frame(name, T, length, colors)
            self._fit_camera()
        elif self._image is not None:
            self._image.value = self._png()

    def hide_frame(self, name):
        """Hide the frame ``name`` drawn by :meth:`show_frame` (its objects stay built for the next call)."""
        if name not in self._frames:
            raise ValueError(f"name: no frame called {name!r} on show; frames are {list(self._frames)}")
        del self._frames[name]
        if self.backend == "threejs":
            self._frame_groups[name].visible = False
            self._fit_camera()
        elif self._image is not None:
            self._image.value = self._png()

    @property
    def frame_names(self):
        """Names of the free frames on show (:meth:`show_frame`)."""
        return tuple(self._frames)

    def figure(self, legend=True):
        """A static matplotlib Figure of the current state (any backend): 2D for a planar arm, else 3D.

        ``width`` × ``height`` px at the projection style's resolution. ``legend``: add the arrow legend (colour →
        quantity, scale) under the drawing; the figure grows by the legend's height, as the 3D view's legend
        sits under its canvas.
        """
        import textwrap
        projection = None if geometry.is_planar(self.model) else "3d"
        lines = []
        if legend and self._arrow_legend:
            columns = max(20, int(self.width / (0.75 * NOTE_PT * FALLBACK_DPI / 72)))   # characters a line holds
            lines = [(c, textwrap.fill(t, columns)) for c, t in self.legend_lines()]
        rows = sum(t.count("\n") + 1 for _, t in lines)
        extra = (rows * 1.3 * NOTE_PT / 72 + 0.15 * len(lines) + 0.1) if lines else 0.0       # inches
        fig, ax = new_figure(self.width / FALLBACK_DPI, self.height / FALLBACK_DPI + extra, dpi=FALLBACK_DPI,
                             projection=projection)
        draw_arm_matplotlib(self.model, self.q, ax, frames=self.frames, com=self.com, ghost=self.ghost_q,
                            arrows=self._arrows, poses=self._frames, reach=self.size.R)
        if lines:
            from matplotlib.lines import Line2D
            handles = [Line2D([], [], color=c, lw=3, label=t) for c, t in lines]
            fig.legend(handles=handles, loc="outside lower center", fontsize=NOTE_PT, frameon=False, ncol=1)
        return fig

    def static_png(self, legend=True):
        """The static picture of the current state as PNG bytes (any back end): what a reader without a kernel sees."""
        with _aspect_wins():
            return figure_png(self.figure(legend=legend))

    def _repr_mimebundle_(self, **kwargs):
        if self.backend == "threejs":
            return _short_bundle(self.widget, repr(self))          # the canvas above its arrow legend
        return {"image/png": self._png(), "text/plain": repr(self)}

    def _ipython_display_(self):
        from IPython.display import display
        display(self._repr_mimebundle_(), raw=True)

    # --- matplotlib back end -------------------------------------------------------------------
    def _png(self):
        with _aspect_wins():
            return figure_png(self.figure())

    # --- pythreejs back end --------------------------------------------------------------------
    def _build_scene(self):
        import pythreejs as p3

        s, model = self.size, self.model
        self._p3 = p3
        self._cylinder = p3.CylinderGeometry(radiusTop=1, radiusBottom=1, height=1, radialSegments=20)
        self._cone = p3.ConeGeometry(radius=1, height=1, radialSegments=20)
        self._sphere = p3.SphereGeometry(radius=1, widthSegments=20, heightSegments=14)

        def material(color, ghost=False):
            if ghost:
                return p3.MeshLambertMaterial(color=color, transparent=True, opacity=0.35, depthWrite=False)
            return p3.MeshLambertMaterial(color=color)

        self.body_groups, self.link_meshes = self._build_arm(material, ghost=False)
        self.ghost_groups, self.ghost_link_meshes = self._build_arm(material, ghost=True)
        self.ghost_root = p3.Group(children=self.ghost_groups + self.ghost_link_meshes, visible=False)
        self._arrow_groups, self._arrow_materials = {}, {}
        self._frame_groups, self._frame_materials, self._frame_lengths = {}, {}, {}
        self.root = p3.Group(children=self.body_groups + self.link_meshes + [self.ghost_root])

        up = geometry.up_vector(model)
        R = s.R
        # The grid is the floor of a spatial arm; behind a planar arm it is a backdrop in the arm's
        # plane (a floor would be seen edge-on, as a stack of lines across the picture).
        if geometry.is_planar(model):
            normal = geometry.view_direction(model) - (geometry.view_direction(model) @ up) * up
            normal /= np.linalg.norm(normal)
            grid_pose = self._pose(geometry.frame_along(normal), -0.05 * R * normal)
        else:
            grid_pose = self._pose(geometry.frame_along(up), np.zeros(3))
        grid = p3.GridHelper(size=2.4 * R, divisions=12, colorCenterLine="#b0b6c0", colorGrid="#d5d9e0",
                             matrixAutoUpdate=False, matrix=geometry.three_matrix(grid_pose))
        base = self._mesh(self._cylinder, material("#555c66"),
                          geometry.cylinder_matrix(-0.03 * R * up, 0.0 * up, 0.07 * R))
        lights = [p3.AmbientLight(color="#ffffff", intensity=0.55),
                  p3.HemisphereLight(color="#ffffff", groundColor="#667080", intensity=0.65)]
        # The camera orbits the three.js origin (pythreejs' OrbitControls ignore a target set at
        # creation), so the world is shifted to put the look-at point there (see _fit_camera).
        self.world = p3.Group(children=[self.root, grid, base], matrixAutoUpdate=False, matrix=geometry.three_matrix(np.eye(4)))
        self.scene = p3.Scene(children=[self.world] + lights, background=self.background)
        position = 2.5 * R * geometry.view_direction(model)
        self.camera = p3.PerspectiveCamera(position=tuple(position), up=tuple(up), fov=self.FOV,
                                           aspect=self.width / self.height, near=0.01 * R, far=100 * R,
                                           quaternion=tuple(geometry.look_at_quaternion(position, np.zeros(3), up)))
        self.fit = None                  # (the world point at the look-at point, the world's scale) of the last fit
        self.controls = p3.OrbitControls(controlling=self.camera)
        self.renderer = p3.Renderer(camera=self.camera, scene=self.scene, controls=[self.controls],
                                    width=self.width, height=self.height, antialias=True,
                                    background=self.background)
        _VIEWS[id(self.renderer)] = self

    def drawn_points(self):
        """World points (k, 3) the view shows now: arm, ghost, arrows, free frames and the base."""
        return drawn_points(self.model, self.q, ghost=self.ghost_q, arrows=self._arrows, poses=self._frames)

    def _camera_axes(self):
        """The camera's axes (columns: right, up, toward the camera) from where it is now (a user's orbit included)."""
        position = np.array(self.camera.position, dtype=float)
        z = position / np.linalg.norm(position)
        up = geometry.up_vector(self.model)
        x = np.cross(up, z)
        x = geometry._perpendicular(z) if np.linalg.norm(x) < 1e-9 else x / np.linalg.norm(x)
        return np.column_stack([x, np.cross(z, x), z])

    def _screen(self, points):
        """Normalised screen coordinates (k, 2) of world ``points`` as the camera sees them (|x|, |y| ≤ 1: on the canvas)."""
        centre, scale = self.fit
        X = scale * (np.asarray(points) - centre) @ self._camera_axes()
        t = np.tan(np.radians(self.FOV) / 2)
        depth = np.linalg.norm(self.camera.position) - X[:, 2]
        return np.c_[X[:, 0] / (depth * t * self.width / self.height), X[:, 1] / (depth * t)]

    def _fit_camera(self, force=False):
        """Frame :meth:`drawn_points` when they come near the canvas edge or shrink below ``REFIT_SHRINK`` of it.

        The camera itself never moves (a user's orbit and zoom stay theirs, and nothing fights the
        browser's OrbitControls): the fit is the ``world`` group's matrix, which moves the middle of
        the drawing on screen to the look-at point and scales the scene so that it fills ``FILL`` of
        the canvas — the same picture as moving the camera closer or farther.
        """
        P = self.drawn_points()
        if not force and self.fit is not None:
            xy = self._screen(P)
            span = float(np.max(xy.max(axis=0) - xy.min(axis=0))) / 2
            if np.all(np.abs(xy) <= self.REFIT_EDGE) and span >= self.REFIT_SHRINK * self.FILL:
                return
        axes = self._camera_axes()
        lo, hi = geometry.bounding_box(P)
        centre = (lo + hi) / 2
        X = (P - centre) @ axes
        centre = centre + axes[:, :2] @ ((X[:, :2].max(axis=0) + X[:, :2].min(axis=0)) / 2)
        X = (P - centre) @ axes
        pad = 1.5 * self.size.joint_half                         # markers have a size
        t_v = np.tan(np.radians(self.FOV) / 2) * self.FILL
        t_h = t_v * self.width / self.height
        distance = float(np.max(X[:, 2] + np.maximum((np.abs(X[:, 0]) + pad) / t_h, (np.abs(X[:, 1]) + pad) / t_v)))
        distance = max(distance, float(X[:, 2].max()) + 0.2 * self.size.R)
        scale = float(np.linalg.norm(self.camera.position)) / distance
        self.fit = (centre, scale)
        M = np.eye(4)
        M[:3, :3], M[:3, 3] = scale * np.eye(3), -scale * centre
        self.world.matrix = geometry.three_matrix(M)

    @staticmethod
    def _pose(R, p):
        M = np.eye(4)
        M[:3, :3], M[:3, 3] = R, p
        return M

    def _mesh(self, geometry_, material, M):
        return self._p3.Mesh(geometry_, material, matrixAutoUpdate=False, matrix=geometry.three_matrix(M))

    def _build_arm(self, material, ghost):
        """One Group per body (joint marker, frame, COM) and one mesh per link segment."""
        p3, s, model = self._p3, self.size, self.model
        mats = {k: material(COLORS["ghost"] if ghost else COLORS[k], ghost)
                for k in ("link", "tool", "com", "revolute", "prismatic", "com_marker")}
        groups = []
        for i, joint in enumerate(model.joints):
            r, e = geometry.joint_point(model, i), joint.axis
            children = [self._mesh(self._cylinder, mats[joint.kind],
                                   geometry.cylinder_matrix(r - s.joint_half * e, r + s.joint_half * e,
                                                            s.joint_radius)),
                        self._mesh(self._cone, mats[joint.kind],
                                   geometry.cylinder_matrix(r + s.joint_half * e,
                                                            r + (s.joint_half + s.cone_length) * e, s.cone_radius))]
            if self.frames and not ghost:
                children.append(p3.AxesHelper(size=s.axes))
            if self.com and not ghost:
                radius = s.com * (model.mass[i] / model.mass.max()) ** (1 / 3)
                children.append(self._mesh(self._sphere, mats["com_marker"],
                                           self._pose(radius * np.eye(3), model.com[i])))
            groups.append(p3.Group(children=children, matrixAutoUpdate=False))
        links = [self._mesh(self._cylinder, mats[seg.kind], np.eye(4)) for seg in self.segments]
        return groups, links

    def _place(self, T, groups, links):
        for group, T_0_i in zip(groups, T):
            group.matrix = geometry.three_matrix(T_0_i)
        for mesh, a, b in zip(links, *geometry.segment_endpoints(self.model, T, self.segments)):
            mesh.matrix = geometry.three_matrix(geometry.cylinder_matrix(a, b, self.size.link))

    def _place_arrows(self, name, origins, vectors, color):
        p3 = self._p3
        group = self._arrow_groups.get(name)
        if group is None:
            self._arrow_materials[name] = p3.MeshLambertMaterial(color=color)
            group = self._arrow_groups[name] = p3.Group()
            self.root.add(group)
        material = self._arrow_materials[name]
        material.color = color
        meshes = list(group.children)
        missing = len(origins) - len(meshes) // 2
        if missing > 0:
            group.add([self._mesh(g, material, np.eye(4)) for _ in range(missing) for g in (self._cylinder, self._cone)])
            meshes = list(group.children)
        for k in range(len(meshes) // 2):
            shaft, head = meshes[2 * k], meshes[2 * k + 1]
            length = np.linalg.norm(vectors[k]) if k < len(origins) else 0.0
            visible = bool(length > geometry.MIN_LENGTH)
            shaft.visible = head.visible = visible
            if visible:
                shaft.matrix, head.matrix = (geometry.three_matrix(M) for M in self._arrow_matrices(origins[k],
                                                                                                   vectors[k]))

    def _arrow_matrices(self, origin, vector):
        """Poses of the shaft (cylinder) and head (cone) of one arrow from ``origin`` along ``vector`` (≠ 0)."""
        s = self.size
        length = np.linalg.norm(vector)
        o, d = origin, vector / length
        head_len = min(s.head_length, 0.4 * length)
        neck = o + (length - head_len) * d
        return geometry.cylinder_matrix(o, neck, s.shaft), geometry.cylinder_matrix(neck, o + length * d, s.head_radius)

    def _place_frame(self, name, T, length, colors):
        """One Group per free frame (matrix ``T``) holding three arrows along its local axes."""
        p3 = self._p3
        if name not in self._frame_groups:
            materials = [p3.MeshLambertMaterial(color=c) for c in colors]
            arrows = [self._mesh(g, m, np.eye(4)) for m in materials for g in (self._cylinder, self._cone)]
            group = p3.Group(children=arrows, matrixAutoUpdate=False)
            self._frame_groups[name], self._frame_materials[name], self._frame_lengths[name] = group, materials, None
            self.root.add(group)
        group = self._frame_groups[name]
        for material, color in zip(self._frame_materials[name], colors):
            material.color = color
        if self._frame_lengths[name] != length:
            meshes = group.children
            for k, axis in enumerate(np.eye(3)):
                meshes[2 * k].matrix, meshes[2 * k + 1].matrix = (
                    geometry.three_matrix(M) for M in self._arrow_matrices(np.zeros(3), length * axis))
            self._frame_lengths[name] = length
        group.matrix = geometry.three_matrix(T)
        group.visible = True


class _AspectNote(logging.Filter):
    """Drops matplotlib's "Ignoring fixed y limits to fulfill fixed data aspect with adjustable data limits."."""

    def filter(self, record):
        return "to fulfill fixed data aspect" not in record.getMessage()


@contextlib.contextmanager
def _aspect_wins():
    """Silence matplotlib's note that the equal aspect overrides the limits while a planar arm is drawn.

    The aspect is meant to win there (:func:`draw_arm_matplotlib`); the note, logged on every redraw, would show
    in red on the slide above the panel.
    """
    logger, note = logging.getLogger("matplotlib.axes._base"), _AspectNote()
    logger.addFilter(note)
    try:
        yield
    finally:
        logger.removeFilter(note)


def _scaled_arrows(v, scale, R, unit=""):
    """Arrow vectors (k, 3) for the quantity ``v`` (k, 3) drawn with ``scale``, and the scale in words."""
    norms = np.linalg.norm(v, axis=1)
    top = float(norms.max()) if norms.size else 0.0
    u = f" {unit}" if unit else ""
    if isinstance(scale, str):
        if scale not in ("per_body", "log"):
            raise ValueError(f"scale: expected a number, 'per_body' or 'log', got {scale!r}")
        if top <= 0.0:
            return np.zeros_like(v), "all zero"
        direction = np.divide(v, norms[:, None], out=np.zeros_like(v), where=norms[:, None] > 0)
        if scale == "per_body":
            lengths = np.where(norms > 0, 0.25 * R, 0.0)
            listed = ", ".join(f"{x:.3g}" for x in norms)
            return direction * lengths[:, None], f"direction only, every arrow {0.25 * R:.3g} m; |·| = {listed}{u}"
        floor = 1e-3 * top
        lengths = 0.3 * R * np.log1p(norms / floor) / np.log1p(top / floor)
        return direction * lengths[:, None], (f"log scale: the longest arrow ({0.3 * R:.3g} m) is {top:.3g}{u}; "
                                              f"a tenth of it draws {np.log1p(100) / np.log1p(1000):.0%} as long")
    scale = geometry.check_reach(scale, "scale", "a number > 0 (metres of arrow per unit), 'per_body' or 'log'")
    if scale == 1.0 and not unit:
        return v, "drawn to scale (m)"
    return v * scale, f"1 m of arrow = {1 / scale:.3g}{u}"


def _frame_colors(colors):
    """The x, y, z colours of a frame: FRAME_COLORS (None), one colour for all three, or three colours."""
    if colors is None:
        return FRAME_COLORS
    if isinstance(colors, str):
        return (colors,) * 3
    colors = tuple(colors)
    if len(colors) != 3 or not all(isinstance(c, str) for c in colors):
        raise ValueError(f"colors: expected None, one colour or three colours (x, y, z), got {colors!r}")
    return colors
