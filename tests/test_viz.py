"""The viewer layer without a browser: scene objects, in-place updates, fallback drawing, sliders, helpers.

pythreejs and ipywidgets objects can be built and changed outside a kernel (their messages go
nowhere), so everything but the pixels is checked here; tests/test_browser.py checks the pixels.
"""
from __future__ import annotations

import inspect
import io
from pathlib import Path

import matplotlib.colors
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.dynamics import crba, gravity_torques
from lessonlib.kinematics import fk
from lessonlib.viz import (ArmView, arm_panel, choose_backend, draw_arm_matplotlib, geometry, heatmap, joint_sliders,
                           loglog_scaling, measure_update_latency, new_figure, running_under_test, show_source,
                           torque_bars, trajectory_plot)
from lessonlib.viz.plots import LivePlot

ALL = dict(samples.ALL, panda=samples.panda)


def _matrix(obj):
    """A pythreejs object's 16-tuple matrix back as a 4×4 array (three.js stores it column-major)."""
    return np.array(obj.matrix, dtype=float).reshape(4, 4, order="F")


def _random_q(model, seed):
    rng = np.random.default_rng(seed)
    return np.where([j.is_revolute for j in model.joints], rng.uniform(-np.pi, np.pi, model.n),
                    rng.uniform(-0.2, 0.2, model.n))


# --- geometry ----------------------------------------------------------------------------------------
def test_cylinder_matrix_maps_the_unit_cylinder_ends_onto_the_segment():
    rng = np.random.default_rng(0)
    for _ in range(50):
        a, b = rng.normal(size=3), rng.normal(size=3)
        M = geometry.cylinder_matrix(a, b, 0.05)
        np.testing.assert_allclose(M @ [0, -0.5, 0, 1], np.r_[a, 1], atol=1e-12)
        np.testing.assert_allclose(M @ [0, 0.5, 0, 1], np.r_[b, 1], atol=1e-12)
        side = M[:3, :3] @ [1, 0, 0]                      # the radius direction: perpendicular, length 0.05
        assert abs(side @ (b - a)) < 1e-12 and np.isclose(np.linalg.norm(side), 0.05)


def test_three_matrix_is_column_major():
    M = np.arange(16.0).reshape(4, 4)
    flat = geometry.three_matrix(M)
    assert flat[12:15] == (3.0, 7.0, 11.0)                # three.js: translation in elements 12..14
    np.testing.assert_array_equal(np.array(flat).reshape(4, 4, order="F"), M)


def test_look_at_quaternion_points_the_camera_minus_z_at_the_target():
    from lessonlib import so3
    position, target, up = np.array([2.0, 1.5, 1.0]), np.array([0.0, 0.0, 0.3]), np.array([0.0, 0.0, 1.0])
    x, y, z, w = geometry.look_at_quaternion(position, target, up)
    angle = 2 * np.arctan2(np.linalg.norm([x, y, z]), w)
    R = so3.exp(angle * np.array([x, y, z]) / np.linalg.norm([x, y, z]))
    forward = -R[:, 2]
    np.testing.assert_allclose(forward, (target - position) / np.linalg.norm(target - position), atol=1e-12)
    assert R[:, 1] @ up > 0                               # camera's up is on the world's up side


@pytest.mark.parametrize("name, count", [("pendulum", 1), ("planar_2link", 2), ("planar_3link", 3),
                                         ("seed002_7dof", 5), ("branched_tree", 7), ("scara", 5)])
def test_link_segment_counts(name, count):
    # pendulum: the rod to its tip frame; planar chains: one link per joint after the first + tool;
    # seed002: joints 1-2, 3-4, 5-6 coincide (3 zero links), 4 links + the last COM;
    # branched_tree: 5 joint-to-joint links + the COM of each of its 2 leaves;
    # scara (standard DH): base -> frame 1, frame 1 -> frame 2, the quill (stretches), the roll joint's
    # offset d4 and the last COM.
    assert len(geometry.link_segments(ALL[name]())) == count


def test_prismatic_segment_stretches_with_q():
    arm = samples.scara()
    segments = geometry.link_segments(arm)
    quill = [s for s in segments if s.b_body == 2 and s.a_body == 1]
    assert len(quill) == 1
    lengths = []
    for d in (0.0, 0.2):
        a, b = geometry.segment_endpoints(arm, fk(arm, [0.0, 0.0, d, 0.0]), quill)
        lengths.append(np.linalg.norm(b - a))
    assert lengths[1] - lengths[0] == pytest.approx(0.2)


def test_reach_bounds_every_drawn_point():
    for name, build in ALL.items():
        model = build()
        R = geometry.reach(model)
        segments = geometry.link_segments(model)
        for seed in range(5):
            a, b = geometry.segment_endpoints(model, fk(model, _random_q(model, seed)), segments)
            assert np.max(np.linalg.norm(np.r_[a, b], axis=1)) <= R + 1e-9, name


# --- ArmView, pythreejs back end ------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ALL))
def test_armview_builds_for_every_sample(name):
    model = ALL[name]()
    q = _random_q(model, 1)
    view = ArmView(model, q, frames=True, com=True, backend="threejs")
    assert view.backend == "threejs" and view.widget.children == (view.renderer, view.legend)
    assert len(view.body_groups) == model.n
    assert len(view.link_meshes) == len(geometry.link_segments(model))
    T = fk(model, q)
    for group, T_0_i in zip(view.body_groups, T):
        np.testing.assert_allclose(_matrix(group), T_0_i, atol=1e-12)
        assert group.matrixAutoUpdate is False
    a, b = geometry.segment_endpoints(model, T, view.segments)
    for mesh, a_k, b_k in zip(view.link_meshes, a, b):
        M = _matrix(mesh)
        np.testing.assert_allclose(M @ [0, -0.5, 0, 1], np.r_[a_k, 1], atol=1e-9)
        np.testing.assert_allclose(M @ [0, 0.5, 0, 1], np.r_[b_k, 1], atol=1e-9)
    light_types = {type(c).__name__ for c in view.scene.children if "Light" in type(c).__name__}
    assert light_types == {"AmbientLight", "HemisphereLight"}   # NOTES.md: no Directional/Point/Spot
    assert repr(view) == f"ArmView({model.name!r})"
    assert view._repr_mimebundle_()["text/plain"] == repr(view)


def test_update_changes_matrices_not_objects():
    arm = samples.seed002_7dof()
    view = ArmView(arm, backend="threejs", com=True)
    scene_children, root_children = view.scene.children, view.root.children
    group_children = [g.children for g in view.body_groups]
    before = [g.matrix for g in view.body_groups]
    q = np.linspace(0.2, 0.8, arm.n)
    view.update(q)
    assert view.scene.children is scene_children and view.root.children is root_children
    assert all(g.children is c for g, c in zip(view.body_groups, group_children))
    assert view.body_groups[0].matrix != before[0]
    for group, T_0_i in zip(view.body_groups, fk(arm, q)):
        np.testing.assert_allclose(_matrix(group), T_0_i, atol=1e-12)
    np.testing.assert_array_equal(view.q, q)


def test_update_rejects_a_wrong_q():
    view = ArmView(samples.planar_2link(), backend="threejs")
    with pytest.raises(ValueError, match="q: expected shape"):
        view.update([0.0, 0.0, 0.0])


def test_arrows_update_in_place_and_clear():
    arm = samples.planar_3link()
    view = ArmView(arm, backend="threejs")
    origins = np.array([[0.0, 0, 0], [0.5, 0, 0], [1.0, 0, 0]])
    view.show_arrows("f", origins, [[0, 1.0, 0], [0, 2.0, 0], [0, 0, 0]], color="#00ff00")
    group = view._arrow_groups["f"]
    meshes = group.children
    assert len(meshes) == 6                                   # shaft + head per arrow
    assert [m.visible for m in meshes] == [True, True, True, True, False, False]   # zero vector hidden
    tip = _matrix(meshes[3]) @ [0, 0.5, 0, 1]                 # head of arrow 1 ends at origin + vector
    np.testing.assert_allclose(tip[:3], [0.5, 2.0, 0.0], atol=1e-12)
    view.show_arrows("f", origins, [[1.0, 0, 0], [0, 0, 0.5], [0, 3.0, 0]], color="#0000ff")
    assert view._arrow_groups["f"] is group and all(a is b for a, b in zip(group.children, meshes))
    assert all(m.visible for m in group.children)
    np.testing.assert_allclose((_matrix(meshes[5]) @ [0, 0.5, 0, 1])[:3], [1.0, 3.0, 0.0], atol=1e-12)
    assert view._arrow_materials["f"].color == "#0000ff"
    view.show_arrows("f", origins[:1], [[0, 1.0, 0]])         # fewer arrows: the rest are hidden, not removed
    assert len(group.children) == 6 and [m.visible for m in group.children] == [True, True] + [False] * 4
    view.clear_arrows("f")
    assert group not in view.root.children and view.arrow_names == ()
    with pytest.raises(ValueError, match="no arrow set"):
        view.clear_arrows("f")


def test_arrows_in_body_frames_follow_the_pose():
    arm = samples.planar_2link()
    q = [np.pi / 2, 0.0]                                      # the arm points along +y
    view = ArmView(arm, q, backend="threejs")
    view.show_arrows("x", [[0.5, 0, 0]], [[1.0, 0, 0]], bodies=[0])
    shaft, head = view._arrow_groups["x"].children
    np.testing.assert_allclose((_matrix(shaft) @ [0, -0.5, 0, 1])[:3], [0.0, 0.5, 0.0], atol=1e-12)
    np.testing.assert_allclose((_matrix(head) @ [0, 0.5, 0, 1])[:3], [0.0, 1.5, 0.0], atol=1e-12)
    with pytest.raises(ValueError, match="bodies"):
        view.show_arrows("x", [[0, 0, 0]], [[1, 0, 0]], bodies=[0, 1])


def test_ghost_shows_a_second_pose():
    arm = samples.ur5()
    view = ArmView(arm, backend="threejs")
    assert view.ghost_root.visible is False
    q_ghost = _random_q(arm, 3)
    view.set_ghost(q_ghost)
    assert view.ghost_root.visible is True
    for group, T_0_i in zip(view.ghost_groups, fk(arm, q_ghost)):
        np.testing.assert_allclose(_matrix(group), T_0_i, atol=1e-12)
    for group, T_0_i in zip(view.body_groups, fk(arm, np.zeros(arm.n))):   # the arm itself did not move
        np.testing.assert_allclose(_matrix(group), T_0_i, atol=1e-12)
    assert view.ghost_link_meshes[0].material.transparent is True
    view.hide_ghost()
    assert view.ghost_root.visible is False and view.ghost_q is None


def _ndc(view, points):
    """Normalised device coordinates (k, 2) and depths of world ``points`` as the view's camera sees them."""
    x, y, z, w = view.camera.quaternion
    Rc = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                   [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                   [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    W = np.array(view.world.matrix).reshape(4, 4, order="F")               # the world group's pose and scale
    X = np.asarray(points) @ W[:3, :3].T + W[:3, 3]
    Xc = (X - np.array(view.camera.position)) @ Rc
    depth = -Xc[:, 2]
    t = np.tan(np.radians(view.camera.fov) / 2)
    return np.c_[Xc[:, 0] / (depth * t * view.camera.aspect), Xc[:, 1] / (depth * t)], depth


def _framed(view):
    ndc, depth = _ndc(view, view.drawn_points())
    assert np.all(depth > view.camera.near), "a drawn point is behind the camera or too near"
    assert np.all(np.abs(ndc) <= 1.0), f"drawn points outside the canvas: max |ndc| = {np.abs(ndc).max():.2f}"
    return float(np.max(ndc.max(axis=0) - ndc.min(axis=0))) / 2          # fraction of the canvas spanned


@pytest.mark.parametrize("name", ["ur5", "planar_2link", "seed002_7dof", "branched_tree", "panda"])
def test_camera_frames_the_arm_and_keeps_it_framed(name):
    """Every drawn point is on the canvas and the drawing fills a good part of it, as the arm moves and arrows come."""
    model = ALL[name]()
    view = ArmView(model, _random_q(model, 0), backend="threejs")
    assert _framed(view) > 0.45
    camera = (view.camera.position, view.camera.quaternion)    # refits move the scene, never the camera
    for seed in range(1, 6):
        view.update(_random_q(model, seed))
        assert _framed(view) > 0.3
    R = geometry.reach(model)
    view.show_arrows("far", [[0.0, 0.0, 0.0]], [[1.5 * R, 0.0, 0.0]])      # an arrow out of the old frame
    assert _framed(view) > 0.3
    view.clear_arrows("far")
    assert _framed(view) > 0.3
    assert (view.camera.position, view.camera.quaternion) == camera


def test_ur5_in_lesson_05s_pose_is_not_cut_off():
    """Issue 12: the UR5's wrist was cut off at the bottom of the canvas while the top half was empty."""
    ur5 = samples.ur5()
    view = ArmView(ur5, [0.0, -np.pi / 2, 0.0, 0.0, np.pi / 2, 0.0], frames=True, backend="threejs")
    ndc, _ = _ndc(view, view.drawn_points())
    assert np.all(np.abs(ndc) <= 1.0) and ndc[:, 1].max() - ndc[:, 1].min() > 0.9
    assert abs(ndc[:, 1].max() + ndc[:, 1].min()) < 0.25               # vertically centred


def test_reach_overrides_the_scene_size():
    arm = samples.planar_2link()                              # automatic reach 2.0 m
    auto = ArmView(arm, backend="threejs")
    assert auto.size.R == geometry.reach(arm) == 2.0
    small = ArmView(arm, backend="threejs", reach=0.5)
    assert small.size.R == 0.5 and small.size.link == pytest.approx(0.016 * 0.5)
    _, ax = new_figure(projection="3d")
    draw_arm_matplotlib(arm, None, ax, reach=0.5, fit=False)
    assert ax.get_xlim() == pytest.approx((-0.5, 0.5)) and ax.get_zlim() == pytest.approx((-0.5, 0.5))
    for bad in (0.0, -1.0, np.nan, "big"):
        with pytest.raises(ValueError, match="reach"):
            ArmView(arm, backend="matplotlib", reach=bad)


def _pose(angle, p):
    from lessonlib import se3, so3
    return se3.from_Rp(so3.rot_z(angle) @ so3.rot_x(0.3), p)


def test_show_frame_draws_three_axes_at_a_pose_and_moves_in_place():
    from lessonlib.viz.plots import FRAME_COLORS

    view = ArmView(samples.pendulum(), backend="threejs", reach=0.5)
    T = _pose(0.5, [0.1, 0.2, 0.3])
    view.show_frame("b", T, length=0.2)
    group = view._frame_groups["b"]
    meshes = list(group.children)
    assert group in view.root.children and len(meshes) == 6 and view.frame_names == ("b",)
    np.testing.assert_allclose(_matrix(group), T, atol=1e-12)
    for k in range(3):                                        # arrow k: from the origin to 0.2 along axis k
        world = T @ _matrix(meshes[2 * k])
        np.testing.assert_allclose((world @ [0, -0.5, 0, 1])[:3], T[:3, 3], atol=1e-12)
        np.testing.assert_allclose((T @ _matrix(meshes[2 * k + 1]) @ [0, 0.5, 0, 1])[:3],
                                   T[:3, 3] + 0.2 * T[:3, k], atol=1e-12)
        assert meshes[2 * k].material.color == meshes[2 * k + 1].material.color == FRAME_COLORS[k]
    head = meshes[1].matrix
    T2 = _pose(-1.0, [0.0, -0.1, 0.05])
    view.show_frame("b", T2, length=0.2)                      # same name: moved, not rebuilt
    assert view._frame_groups["b"] is group and all(a is b for a, b in zip(group.children, meshes))
    np.testing.assert_allclose(_matrix(group), T2, atol=1e-12)
    assert meshes[1].matrix == head                           # same length: the arrows did not change
    view.show_frame("b", T2, length=0.1, colors="#888888")
    np.testing.assert_allclose((T2 @ _matrix(meshes[5]) @ [0, 0.5, 0, 1])[:3], T2[:3, 3] + 0.1 * T2[:3, 2],
                               atol=1e-12)
    assert {m.material.color for m in meshes} == {"#888888"}
    view.hide_frame("b")
    assert group.visible is False and view.frame_names == () and group in view.root.children
    view.show_frame("b", T)
    assert group.visible is True and view._frame_groups["b"] is group
    with pytest.raises(ValueError, match="no frame called 'c'"):
        view.hide_frame("c")
    with pytest.raises(ValueError, match="T: "):
        view.show_frame("c", np.diag([1.0, 1.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="length"):
        view.show_frame("c", T, length=0.0)
    with pytest.raises(ValueError, match="colors"):
        view.show_frame("c", T, colors=("red", "green"))
    assert view.frame_names == ("b",)


def test_show_frame_in_the_matplotlib_fallback():
    from lessonlib.viz.plots import FRAME_COLORS

    T = _pose(0.5, [0.1, 0.2, 0.3])
    _, ax = new_figure(projection="3d")
    draw_arm_matplotlib(samples.pendulum(), None, ax, poses={"a": (T, 0.2, FRAME_COLORS)})
    arrows = [c for c in ax.collections if c.get_gid() == "pose:a"]
    assert len(arrows) == 3
    for k, arrow in enumerate(arrows):
        np.testing.assert_allclose(arrow.get_color()[0][:3], matplotlib.colors.to_rgb(FRAME_COLORS[k]))
        ends = np.array(arrow._segments3d[0])                 # the shaft: origin to tip
        expected = [tuple(T[:3, 3]), tuple(T[:3, 3] + 0.2 * T[:3, k])]
        np.testing.assert_allclose(sorted(map(tuple, ends)), sorted(expected), atol=1e-12)
    view = ArmView(samples.pendulum(), backend="matplotlib")
    image = view.widget
    png0 = image.value
    view.show_frame("a", T)
    assert image.value != png0 and view.frame_names == ("a",)
    view.hide_frame("a")
    assert image.value == png0 and view.frame_names == ()


# --- back-end choice and the matplotlib fallback ------------------------------------------------------
def test_backend_choice(monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    monkeypatch.delenv("LESSONLIB_TESTING", raising=False)
    monkeypatch.delenv("LESSONLIB_HEADLESS", raising=False)
    assert not running_under_test() and choose_backend("auto") == "threejs"
    monkeypatch.setenv("LESSONLIB_TESTING", "1")
    assert running_under_test() and choose_backend("auto") == "matplotlib"
    assert choose_backend("threejs") == "threejs"             # an explicit choice wins
    monkeypatch.delenv("LESSONLIB_TESTING")
    monkeypatch.setenv("LESSONLIB_HEADLESS", "1")
    assert choose_backend("auto") == "matplotlib"
    with pytest.raises(ValueError, match="backend"):
        choose_backend("vtk")


def test_auto_backend_under_pytest_is_matplotlib():
    view = ArmView(samples.pendulum())                        # PYTEST_CURRENT_TEST is set in here
    assert view.backend == "matplotlib"
    bundle = view._repr_mimebundle_()
    assert bundle["image/png"].startswith(b"\x89PNG") and bundle["text/plain"] == "ArmView('pendulum')"


@pytest.mark.parametrize("name", ["planar_2link", "seed002_7dof", "branched_tree", "scara"])
def test_matplotlib_fallback_draws_every_segment_and_axis(name):
    model = ALL[name]()
    _, ax = new_figure(projection="3d")
    q = _random_q(model, 2)
    draw_arm_matplotlib(model, q, ax, com=True, ghost=np.zeros(model.n),
                        arrows={"f": (np.zeros((1, 3)), np.ones((1, 3)), "red")})
    by_gid = {}
    for line in ax.lines:
        by_gid.setdefault(line.get_gid(), []).append(line)
    segments = geometry.link_segments(model)
    assert len(by_gid["link"]) == len(segments)
    assert len(by_gid["joint-axis"]) == model.n
    assert len(by_gid["ghost"]) == len(segments)
    a, b = geometry.segment_endpoints(model, fk(model, q), segments)
    x, y, z = by_gid["link"][-1].get_data_3d()
    np.testing.assert_allclose(np.c_[x, y, z], [a[-1], b[-1]], atol=1e-12)
    assert any(c.get_gid() == "arrow:f" for c in ax.collections)


def test_matplotlib_view_keeps_state_and_image():
    arm = samples.planar_2link()
    view = ArmView(arm, backend="matplotlib")
    image = view.widget
    png0 = image.value
    view.update([0.5, -0.5])
    assert view.widget is image and image.value != png0
    view.set_ghost([0.0, 0.0])
    assert view.ghost_q is not None and image.value != png0


# --- sliders ------------------------------------------------------------------------------------------
def test_joint_sliders_names_grid_and_round_trip():
    arm = samples.rpr_arm()                                   # R, P, R
    q0 = [0.7854, 0.123, -2.5]
    sliders = joint_sliders(arm, q0, step=0.01)
    assert [s.description for s in sliders.sliders] == list(arm.joint_names)
    assert [(s.min, s.max) for s in sliders.sliders] == [(-3.14, 3.14), (-0.3, 0.3), (-3.14, 3.14)]
    np.testing.assert_array_equal(sliders.q, [0.79, 0.12, -2.5])      # snapped to the step grid
    np.testing.assert_array_equal(sliders.value, sliders.q)
    assert all(s.continuous_update and s.readout_format == ".2f" for s in sliders.sliders)
    assert joint_sliders(arm, step=0.001).sliders[0].readout_format == ".3f"
    for s in sliders.sliders:                                 # bounds and values are multiples of step
        for x in (s.min, s.max, s.value):
            assert abs(x / 0.01 - round(x / 0.01)) < 1e-9
    sliders.q = [1.0, 0.5, -9.0]                              # out of range: clipped to the bounds
    np.testing.assert_array_equal(sliders.q, [1.0, 0.3, -3.14])
    assert repr(sliders) == "JointSliders('rpr_arm', n=3, step=0.01)"


def test_joint_sliders_callbacks_and_limits():
    arm = samples.planar_2link()
    seen = []
    sliders = joint_sliders(arm, on_change=seen.append, step=0.05, limits=[(-1.0, 1.0), (-0.52, 0.52)])
    assert [(s.min, s.max) for s in sliders.sliders] == [(-1.0, 1.0), (-0.5, 0.5)]   # inside the limits
    sliders.sliders[1].value = 0.25                           # one slider move: one call
    assert len(seen) == 1 and np.array_equal(seen[0], [0.0, 0.25])
    sliders.q = [0.5, -0.5]                                   # setting q as a whole: one call
    assert len(seen) == 2 and np.array_equal(seen[1], [0.5, -0.5])
    with pytest.raises(ValueError, match="limits"):
        joint_sliders(arm, limits=[(1.0, -1.0), (0.0, 1.0)])
    with pytest.raises(ValueError, match="step"):
        joint_sliders(arm, step=0)


def test_callback_errors_are_not_swallowed_outside_a_kernel():
    sliders = joint_sliders(samples.pendulum())
    sliders.observe(lambda q: [][1])
    with pytest.raises(IndexError):
        sliders.q = [0.5]


# --- panels -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("plot", ["torque_bars", "mass_matrix"])
def test_panel_slider_move_updates_view_and_plot(plot):
    arm = samples.seed002_7dof()
    panel = arm_panel(arm, plot=plot, backend="threejs")
    png0 = panel.plot_image.value
    panel.sliders.sliders[1].value = 1.0                      # the shoulder
    q = panel.sliders.q
    np.testing.assert_allclose(_matrix(panel.view.body_groups[-1]), fk(arm, q)[-1], atol=1e-12)
    assert panel.plot_image.value != png0
    if plot == "torque_bars":
        heights = [bar.get_height() for bar in panel.plot.bars]
        np.testing.assert_allclose(heights, gravity_torques(arm, q), atol=1e-12)
    else:
        np.testing.assert_allclose(panel.plot.image.get_array(), crba(arm, q), atol=1e-12)
    assert repr(panel) == f"ArmPanel('seed002_7dof', plot={plot!r})"


def test_panel_with_a_plot_function_and_bad_kind():
    arm = samples.planar_2link()
    calls = []

    def plot_fn(ax, q):
        calls.append(np.array(q))
        ax.plot([0, 1], [0, q[0]])

    panel = arm_panel(arm, plot=plot_fn, backend="threejs")
    panel.sliders.q = [0.5, 0.0]
    assert len(calls) == 2 and calls[-1][0] == 0.5
    with pytest.raises(ValueError, match="plot"):
        arm_panel(arm, plot="bode")


def test_measure_update_latency_returns_numbers():
    result = measure_update_latency(samples.planar_2link(), n_calls=5)
    assert result.n_calls == 5 and 0.0 < result.median_ms <= result.p95_ms
    assert "median" in str(result)
    with pytest.raises(ValueError, match="n_calls"):
        measure_update_latency(samples.planar_2link(), n_calls=0)


# --- plot helpers and show_source ----------------------------------------------------------------------
def test_plot_helpers_draw_what_they_are_given():
    _, ax = new_figure()
    bars = torque_bars(ax, [1.0, -2.0, 0.5], ["a", "b", "c"])
    assert [b.get_height() for b in bars] == [1.0, -2.0, 0.5]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    M = np.array([[2.0, 0.5], [0.5, 1.0]])
    im = heatmap(ax, M, labels=["q1", "q2"])
    np.testing.assert_array_equal(im.get_array(), M)
    assert [t.get_text() for t in ax.texts] == ["2.00", "0.50", "0.50", "1.00"]
    lines = loglog_scaling(ax, [2, 4, 8], [[1e-4, 2e-4, 4e-4], [1e-4, 4e-4, 1.6e-3]], ["aba", "crba"])
    assert [line.get_label() for line in lines] == ["aba", "crba"]
    with pytest.raises(ValueError, match="times"):
        loglog_scaling(ax, [2, 4], [[1.0, 2.0, 3.0]], ["x"])
    t = np.linspace(0, 1, 11)
    lines = trajectory_plot(ax, t, np.c_[t, t**2], ["q1", "q2"])
    np.testing.assert_array_equal(lines[1].get_ydata(), t**2)


def test_plot_helper_keywords_and_their_defaults():
    _, ax = new_figure()
    limits = lambda: tuple(float(y) for y in ax.get_ylim())
    torque_bars(ax, [1.0, -2.0])
    assert limits() == pytest.approx((-2.2, 2.2))                            # default: ±1.1 max |τ|
    torque_bars(ax, [1.0, -2.0], ylim=3)
    assert limits() == (-3.0, 3.0)                                         # a number: symmetric, as before
    bars = torque_bars(ax, [0.2, 0.9], ylim=(0.0, 1.2))
    assert limits() == (0.0, 1.2) and [b.get_height() for b in bars] == [0.2, 0.9]
    for bad in ((1.0, 0.0), -1.0, (0.0, 1.0, 2.0), (0.0, np.inf)):
        with pytest.raises(ValueError, match="ylim"):
            torque_bars(ax, [1.0], ylim=bad)

    t = np.linspace(0, 1, 11)
    trajectory_plot(ax, t, t, ["q1"])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("t (s)", "")
    trajectory_plot(ax, t, t, ["q1"], xlabel="q̇ (rad/s)", ylabel="τ_f (N·m)")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("q̇ (rad/s)", "τ_f (N·m)")

    n, times = [2, 4, 8, 16], [[1e-4, 2e-4, 4e-4, 8e-4]]
    loglog_scaling(ax, n, times, ["rnea"])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("n (joints)", "time (s)")
    assert [x.get_text() for x in ax.get_xticklabels()] == ["2", "4", "8", "16"]
    np.testing.assert_array_equal(ax.get_xticks(), n)
    assert all(x.get_text() == "" for x in ax.get_xticklabels(minor=True))
    loglog_scaling(ax, n, times, ["rnea"], unit="ms", xlabel="bodies", ylabel="µs per call", integer_ticks=False)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("bodies", "µs per call")
    assert not np.array_equal(ax.get_xticks(), n)                            # matplotlib's log ticks
    many = np.arange(2, 40)
    loglog_scaling(ax, many, [many * 1e-5], ["aba"])
    np.testing.assert_array_equal(ax.get_xticks(), many[::4])               # at most 10 labelled ticks


def _wire_points(wire):
    return np.concatenate([np.asarray(seg) for seg in wire._segments3d])


def test_inertia_ellipsoid_has_the_radii_of_gyration_as_semi_axes():
    from lessonlib import so3, spatial
    from lessonlib.viz import gyration_axes, inertia_ellipsoid

    m, (a, b, c) = 2.0, (0.3, 0.2, 0.1)                        # a box: k = √((b² + c²)/12), …
    k_box = np.sqrt(np.array([b**2 + c**2, a**2 + c**2, a**2 + b**2]) / 12)
    Q = so3.exp([0.4, -0.2, 0.9])                               # the box's edges in body axes
    I_c = Q @ np.diag(m * k_box**2) @ Q.T
    k, axes = gyration_axes(I_c, m)
    np.testing.assert_allclose(k, [0.0645497, 0.0912871, 0.1040833], atol=1e-7)
    np.testing.assert_allclose(np.abs(axes.T @ Q), np.eye(3), atol=1e-9)
    R, center = so3.exp([-0.3, 0.5, 0.1]), np.array([0.2, -0.1, 0.4])
    _, ax = new_figure(projection="3d")
    wire = inertia_ellipsoid(ax, I_c, m, center=center, R=R)
    assert wire.get_gid() == "inertia-ellipsoid"
    P = _wire_points(wire) - center
    u = P @ (R @ Q) / k_box                                     # coordinates along the semi-axes, in units of k
    np.testing.assert_allclose(np.linalg.norm(u, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.abs(u).max(axis=0), 1.0, atol=1e-12)   # the grid passes through every vertex
    lines = [line for line in ax.lines if line.get_gid() == "gyration-axes"]
    assert len(lines) == 3
    for j, line in enumerate(lines):
        ends = np.array(line.get_data_3d()).T - center
        np.testing.assert_allclose(ends[0], -ends[1], atol=1e-12)
        np.testing.assert_allclose(abs(ends[1] @ R @ Q[:, j]), k_box[j], atol=1e-12)
    assert ax.get_xlim() == pytest.approx((0.2 - 1.25 * k_box[2], 0.2 + 1.25 * k_box[2]))

    c_body = np.array([0.05, 0.0, -0.1])                        # the same body as a spatial inertia at its origin
    _, ax6 = new_figure(projection="3d")
    wire6 = inertia_ellipsoid(ax6, spatial.inertia(m, c_body, I_c), center=center, R=R, principal_axes=False)
    np.testing.assert_allclose(_wire_points(wire6), _wire_points(wire) + R @ c_body, atol=1e-12)
    assert not ax6.lines


def test_inertia_ellipsoid_of_a_thin_rod_and_bad_inputs():
    from lessonlib.viz import inertia_ellipsoid

    _, ax = new_figure(projection="3d")
    rod = np.diag([1.0, 1.0, 0.0]) / 12                         # 1 kg, 1 m along z: valid, flat ellipsoid
    P = _wire_points(inertia_ellipsoid(ax, rod, 1.0))
    np.testing.assert_allclose(np.abs(P).max(axis=0), [np.sqrt(1 / 12), np.sqrt(1 / 12), 0.0], atol=1e-12)
    with pytest.raises(ValueError, match="mass: required"):
        inertia_ellipsoid(ax, rod)
    with pytest.raises(ValueError, match="mass: a 6x6"):
        inertia_ellipsoid(ax, np.eye(6), 1.0)
    with pytest.raises(ValueError, match="triangle"):
        inertia_ellipsoid(ax, np.diag([0.1, 0.1, 0.5]), 1.0)
    with pytest.raises(ValueError, match="I_c: expected"):
        inertia_ellipsoid(ax, np.eye(2), 1.0)
    with pytest.raises(ValueError, match="R"):
        inertia_ellipsoid(ax, rod, 1.0, R=2 * np.eye(3))
    with pytest.raises(ValueError, match="center"):
        inertia_ellipsoid(ax, rod, 1.0, center=[0.0, 1.0])


def test_live_plot_redraws_only_when_something_changed():
    live = LivePlot(3, 2, dpi=50)
    bars = torque_bars(live.ax, [1.0, 2.0], ylim=3.0)
    live.set_dynamic(bars)
    first = live.png()
    assert live.png() == first                                # background kept, same bars: same pixels
    bars[0].set_height(-2.5)
    assert live.png() != first


def test_package_exports_the_plot_helpers_notebooks_use():
    import lessonlib.viz as viz
    from lessonlib.viz import plots
    assert viz.LivePlot is plots.LivePlot and viz.figure_png is plots.figure_png
    assert {"LivePlot", "figure_png"} <= set(viz.__all__)
    assert all(hasattr(viz, name) for name in viz.__all__)
    fig, ax = viz.new_figure(2.0, 1.0, dpi=50)
    ax.plot([0, 1], [0, 1])
    png = viz.figure_png(fig)
    assert png.startswith(b"\x89PNG") and int.from_bytes(png[16:20], "big") == 100   # 2 in × 50 dpi wide


def test_new_figure_shows_as_png_without_the_inline_backend():
    from IPython.core.formatters import PlainTextFormatter, PNGFormatter
    from IPython.core.pylabtools import print_figure
    from matplotlib.figure import Figure

    def made():
        fig, ax = new_figure(3.0, 2.0, dpi=50)
        ax.plot([0, 1], [0, 1])
        return fig

    fig = made()
    assert isinstance(fig, Figure)
    png = PNGFormatter()(fig)                                 # a fresh kernel: no formatter registered
    assert png.startswith(b"\x89PNG")
    # the inline backend's default rendering of the same figure drawn for the first time (matplotlib's first
    # draw of a figure may differ from a second one by a few grey levels of anti-aliasing)
    assert png == print_figure(made(), "png", bbox_inches="tight")
    assert PlainTextFormatter()(fig) == repr(fig) == "<Figure size 150x100 with 1 Axes>"   # as a plain Figure's
    inline = PNGFormatter()
    inline.for_type(Figure, lambda f: b"from %matplotlib inline")
    assert inline(fig) == b"from %matplotlib inline"          # the inline backend's printer still wins
    empty, _ = new_figure()
    empty.clear()
    assert PNGFormatter()(empty) is None                      # an empty figure shows nothing


def test_show_source_gives_the_real_source():
    src = show_source(gravity_torques)
    assert src.data == inspect.getsource(gravity_torques)
    assert "rnea(model, q, zero, zero, gravity=gravity)" in src.data
    assert repr(src).startswith("<source of lessonlib.dynamics.terms.gravity_torques:")
    assert "<div" in src._repr_html_()                        # highlighted for the notebook


# --- static pictures of widgets (lessonlib.viz.snapshot): what GitHub and the static decks show --------
def test_widget_png_draws_the_arm_sliders_and_captured_outputs():
    import ipywidgets as widgets
    from PIL import Image

    from lessonlib.viz.snapshot import widget_png
    view = ArmView(samples.planar_2link(), [0.3, 0.6], width=320, height=240, backend="threejs")
    slider = widgets.FloatSlider(value=0.25, min=0.0, max=1.0, step=0.05, description="q1", readout_format=".2f")
    out = widgets.Output()
    out.outputs = ({"output_type": "stream", "name": "stdout", "text": "tau = [1.0000 2.0000]\n"},)
    image = Image.open(io.BytesIO(widget_png(widgets.HBox([widgets.VBox([slider, out]), view.widget]))))
    arm = Image.open(io.BytesIO(view.static_png()))
    assert image.height == arm.height and image.width > arm.width + 150, (image.size, arm.size)
    assert len(image.getcolors(1 << 16) or []) > 50                       # a drawing, not a blank box
    hidden = widgets.VBox([slider], layout=widgets.Layout(display="none"))
    assert widget_png(hidden) is None and widget_png(widgets.Button(description="go")) is None
    # with arrows, the view's widget (Renderer above its HTML legend) is drawn as one figure with the legend in it:
    # coloured keys, wrapped lines, the view's width (not the HTML text, black squares, in one cut line)
    view.show_arrows("f", [[0.5, 0.0, 0.0]], [[0.0, -20.0, 0.0]], "#8c564b", scale=0.01, label="a force at the "
                     "elbow of the arm, with a long label", unit="N")
    picture = Image.open(io.BytesIO(widget_png(view.widget)))
    with_legend = Image.open(io.BytesIO(view.static_png(legend=True)))
    assert picture.size == with_legend.size and picture.width <= 320 + 2, (picture.size, with_legend.size)
    assert picture.height > Image.open(io.BytesIO(view.static_png(legend=False))).height + 30
    assert (0x8c, 0x56, 0x4b) in {c for _, c in picture.convert("RGB").getcolors(1 << 16)}    # the key's colour


@pytest.mark.parametrize("backend", ["threejs", "matplotlib"])
def test_arrow_scales_and_legend(backend):
    """A force on the base 1000× the one on the hand: one scale hides the small arrow, per-body and log show it."""
    arm = samples.planar_3link()
    view = ArmView(arm, [0.3, 0.4, 0.5], backend=backend)
    R = view.size.R
    origins, forces = np.zeros((2, 3)), np.array([[0.0, 300.0, 0.0], [0.3, 0.0, 0.0]])
    view.show_arrows("f", origins, forces, "#d62728", scale=0.001, label="force f", unit="N")
    lengths = np.linalg.norm(view._arrows["f"][1], axis=1)
    assert lengths == pytest.approx([0.3, 0.0003])
    assert view.legend_lines() == [("#d62728", "force f (N): 1 m of arrow = 1e+03 N")]
    view.show_arrows("f", origins, forces, "#d62728", scale="per_body", label="force f", unit="N")
    assert np.linalg.norm(view._arrows["f"][1], axis=1) == pytest.approx([0.25 * R, 0.25 * R])
    assert "|·| = 300, 0.3 N" in view.legend_lines()[0][1]
    view.show_arrows("f", origins, forces, "#d62728", scale="log", label="force f", unit="N")
    short, long_ = sorted(np.linalg.norm(view._arrows["f"][1], axis=1))
    assert long_ == pytest.approx(0.3 * R) and 0.1 < short / long_ < 0.2        # log(1 + 1) / log(1 + 1000)
    if backend == "threejs":
        assert "force f (N): log scale" in view.legend.value and view.legend.layout.display is None
        view.clear_arrows("f")
        assert view.legend.layout.display == "none" and view.legend_lines() == []
    else:
        assert any(t.get_text().startswith("force f (N)") for t in view.figure().legends[0].get_texts())
    with pytest.raises(ValueError, match="scale"):
        view.show_arrows("g", origins, forces, scale="huge")


def test_planar_arms_are_drawn_flat_with_equal_aspect():
    fig = ArmView(samples.planar_2link(), [0.4, 0.9], backend="matplotlib").figure()
    ax = fig.axes[0]
    assert ax.name != "3d" and ax.get_aspect() == 1.0 and ax.get_xlabel() == "x (m)" and ax.get_ylabel() == "y (m)"
    x0, x1 = ax.get_xlim()
    assert x1 - x0 < 3.0                                    # fitted to the arm (reach 2 m), not the ±R box
    fig3 = ArmView(samples.ur5(), backend="matplotlib").figure()
    assert fig3.axes[0].name == "3d"
    lo = np.array([fig3.axes[0].get_xlim()[0], fig3.axes[0].get_ylim()[0], fig3.axes[0].get_zlim()[0]])
    hi = np.array([fig3.axes[0].get_xlim()[1], fig3.axes[0].get_ylim()[1], fig3.axes[0].get_zlim()[1]])
    points = ArmView(samples.ur5(), backend="matplotlib").drawn_points()
    assert np.all(points >= lo) and np.all(points <= hi)
    assert np.all((points.max(axis=0) - points.min(axis=0)) >= 0.5 * (hi - lo) - 1e-9) or \
        np.max(points.max(axis=0) - points.min(axis=0)) >= 0.8 * np.max(hi - lo)   # tight around the arm


def test_widget_callbacks_print_like_the_cell():
    """One number format in cells and callbacks: the options in force when the widget was made are kept."""
    import ipywidgets as widgets

    from lessonlib.viz import interactive_output
    printed = []
    with np.printoptions(precision=4, suppress=True):
        slider = widgets.FloatSlider(value=0.0, min=0.0, max=1.0, step=0.5)
        interactive_output(lambda x: printed.append(str(np.array([0.151520689, 2e-5]) + x)), {"x": slider})
        sliders = joint_sliders(samples.planar_2link(), on_change=lambda q: printed.append(str(q + 0.151520689)))
    slider.value = 0.5                                   # outside the block: NumPy's defaults are back
    sliders.q = [0.0, 0.0]
    assert printed[-2:] == ["[0.6515 0.5   ]", "[0.1515 0.1515]"], printed


def test_figures_draw_chinese_with_a_cjk_font(recwarn):
    from lessonlib.viz.plots import CJK_FONT_FILES, figure_png, use_cjk_font
    if not any(Path(p).exists() for p in CJK_FONT_FILES):
        pytest.skip("no CJK font installed (apt-get install fonts-noto-cjk)")
    assert use_cjk_font() is not None
    fig, ax = new_figure(3.0, 1.5)
    ax.set_title("递推牛顿–欧拉算法 (RNEA) 空间惯量")
    png = figure_png(fig)
    assert png[:4] == b"\x89PNG"
    assert not [w for w in recwarn if "missing from font" in str(w.message)], [str(w.message) for w in recwarn]
