"""The course's viewers: a 3D arm (pythreejs), joint sliders, live plots, and the source shown in lessons.

Optional layer: it needs ipywidgets, pythreejs and matplotlib, and no core module imports it.

* :class:`ArmView` — 3D view of any Model (``.update(q)``, ``.show_arrows``, ``.show_frame``, ``.set_ghost``); static
  matplotlib fallback (:func:`draw_arm_matplotlib`) under test or headless;
* :func:`joint_sliders` (:class:`JointSliders`), :func:`arm_panel` (:class:`ArmPanel`) — sliders,
  view and a live plot in one widget; :func:`measure_update_latency` times that path;
  :func:`interactive_output` (ipywidgets' own, printing numbers as the cell does: :func:`keep_print_options`);
* plot helpers for notebooks: :func:`torque_bars`, :func:`heatmap`, :func:`loglog_scaling`,
  :func:`trajectory_plot`, :func:`inertia_ellipsoid` (each draws into a given ``ax``), :func:`new_figure`;
  :func:`figure_png` (a Figure as PNG bytes, e.g. for ``ipywidgets.Image``) and :class:`LivePlot`
  (a Figure redrawn in place on every slider move);
* :func:`show_source` — the real library source ("Look inside");
* :func:`widget_png` — a static picture of any widget tree (sliders, 3D view, plots) as it stands: the PNG
  that ``make outputs`` stores beside each widget view for readers without a kernel;
* :func:`running_under_test`, :func:`headless` — the one definition of those switches.

Notebook authors: cells whose output is a widget, an ``Output`` capture or ``show_source`` get the
``nbval-ignore-output`` tag; cells whose output depends on the mode or the clock also get
``mode-dependent`` (``course/README.md``); see ``tests/nbval_sanitize.cfg`` for the rest.
"""
from .env import headless, running_under_test
from .geometry import link_segments, reach
from .panels import (ArmPanel, JointSliders, UpdateLatency, arm_panel, interactive_output, joint_sliders,
                     keep_print_options, measure_update_latency)
from .plots import (LivePlot, draw_arm_matplotlib, figure_png, gyration_axes, heatmap, inertia_ellipsoid,
                    loglog_scaling, new_figure, torque_bars, trajectory_plot)
from .snapshot import widget_png
from .source import show_source
from .view import ArmView, choose_backend

__all__ = ["ArmView", "choose_backend", "draw_arm_matplotlib", "joint_sliders", "JointSliders", "arm_panel",
           "ArmPanel", "measure_update_latency", "interactive_output", "keep_print_options", "UpdateLatency", "torque_bars", "heatmap", "loglog_scaling",
           "trajectory_plot", "inertia_ellipsoid", "gyration_axes", "new_figure", "figure_png", "LivePlot",
           "show_source", "widget_png", "running_under_test", "headless", "link_segments", "reach"]
