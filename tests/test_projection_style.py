"""One projection style for every figure on a slide (issue 29; ``lessonlib/viz/plots.py``).

* after :func:`new_figure` (or a :class:`LivePlot`), matplotlib's rcParams are the style's (:data:`PROJECTION_RC`:
  100 dpi, titles 16 pt, labels 15 pt, ticks and legends 13 pt, 2 pt lines);
* no lesson's code passes ``dpi=`` to ``new_figure`` / ``LivePlot`` (the style's ``SLIDE_DPI``) or a numeric
  ``fontsize=`` (the style's sizes, or ``plots.TICK_PT``, ``plots.NOTE_PT``, …);
* the widget panels (``arm_panel``, ``ArmView``'s static picture) draw with the style: its dpi, no text below its
  smallest size, and a panel fits a 1280×720 slide.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import matplotlib
import nbformat
import numpy as np
import pytest

from lessonlib import samples
from lessonlib.viz import ArmView, LivePlot, arm_panel, new_figure, panels, plots

REPO = Path(__file__).resolve().parents[1]
LESSONS = sorted((REPO / "course").glob("[0-9][0-9]_*.ipynb"))
STYLE_CALLS = {"new_figure", "LivePlot"}
#: The widest content of a 1280×720 slide (the live slideshow's side margins are 36 px) and its height.
SLIDE_WIDTH, SLIDE_HEIGHT = 1208, 720


def test_new_figure_leaves_matplotlib_in_the_projection_style():
    matplotlib.rcParams.update({"font.size": 8, "axes.titlesize": 9, "figure.dpi": 72})   # something else first
    plots._FONTS.clear()                                   # as in a fresh kernel
    fig, ax = new_figure(plots.WIDE, 3.6)
    for key, value in plots.PROJECTION_RC.items():
        assert matplotlib.rcParams[key] == value, (key, matplotlib.rcParams[key], value)
    assert fig.dpi == plots.SLIDE_DPI and tuple(fig.get_size_inches()) == (plots.WIDE, 3.6)
    ax.set_title("t")
    ax.set_xlabel("x")
    assert ax.title.get_fontsize() == plots.TITLE_PT and ax.xaxis.label.get_fontsize() == plots.LABEL_PT
    assert ax.get_xticklabels()[0].get_fontsize() == plots.TICK_PT
    live = LivePlot()
    assert live.fig.dpi == plots.SLIDE_DPI


def style_violations(source):
    """``dpi=`` given to new_figure/LivePlot, or a numeric ``fontsize=``, in a code cell's source (line, text)."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]  # IPython magics
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return [(0, "the cell does not parse")]
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for kw in node.keywords:
            if kw.arg == "dpi" and name in STYLE_CALLS:
                found.append((node.lineno, f"{name}(…, dpi=…): the style's SLIDE_DPI is the only resolution"))
            if kw.arg == "fontsize" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, (int, float)):
                found.append((node.lineno, f"{name}(…, fontsize={kw.value.value}): use the style's sizes "
                                           "(or plots.TICK_PT, plots.NOTE_PT, …)"))
    return found


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lessons_leave_dpi_and_font_sizes_to_the_style(lesson):
    cells = nbformat.read(lesson, as_version=4).cells
    found = [f"cell {k} ({cell.get('id', '?')}) line {line}: {what}" for k, cell in enumerate(cells)
             if cell.cell_type == "code" for line, what in style_violations(cell.source)]
    assert not found, f"{lesson.name}:\n" + "\n".join(found)


def test_style_violations_are_found():
    source = ("%matplotlib inline\nfig, ax = new_figure(5.6, 2.8, dpi=110)\nlive = viz.LivePlot(3, 2, dpi=80)\n"
              "ax.legend(fontsize=8)\nax.set_title('t', fontsize=plots.TITLE_PT)\nax.text(0, 0, 'a', fontsize='large')\n"
              "fig.savefig(buf, dpi=100)\n")
    found = style_violations(source)
    assert [line for line, _ in found] == [2, 3, 4], found
    assert "dpi" in found[0][1] and "LivePlot" in found[1][1] and "fontsize=8" in found[2][1]
    assert style_violations("fig, ax = new_figure(plots.WIDE, 3.6)\nax.legend(fontsize=plots.NOTE_PT)") == []


def _texts(fig):
    """Every visible, non-empty text of a figure (titles, labels, tick labels, legends, annotations)."""
    fig.draw_without_rendering()                          # tick labels exist once the figure is laid out
    return [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]


@pytest.mark.parametrize("plot", ["torque_bars", "mass_matrix", "callback"])
@pytest.mark.parametrize("arm", [samples.planar_2link(), samples.ur5()], ids=lambda a: a.name)
def test_panel_plots_use_the_style_and_fit_a_slide(plot, arm):
    def plot_fn(ax, q):
        plots.trajectory_plot(ax, np.linspace(0, 1, 5), np.outer(np.linspace(0, 1, 5), q[:2]), ["a", "b"],
                              ylabel="N·m", title="a callback")

    panel = arm_panel(arm, plot=plot_fn if plot == "callback" else plot, backend="matplotlib")
    fig = panel.live.fig
    assert fig.dpi == plots.SLIDE_DPI
    small = [(t.get_text(), t.get_fontsize()) for t in _texts(fig) if t.get_fontsize() < plots.TICK_PT]
    assert not small, f"text below the style's {plots.TICK_PT} pt: {small}"
    width, height = fig.canvas.get_width_height()
    view = panel.view
    assert width == panels.SLIDER_WIDTH + view.width <= SLIDE_WIDTH
    assert view.height + height <= 600, "the panel leaves no room for two lines of code on a 720 px slide"
    assert panel.plot_image.layout.width == f"{width}px"


@pytest.mark.parametrize("arm", [samples.planar_2link(), samples.ur5()], ids=lambda a: a.name)
def test_arm_view_picture_uses_the_style(arm):
    view = ArmView(arm, np.full(arm.n, 0.3), width=480, height=320, backend="matplotlib")
    view.show_arrows("f", np.zeros((1, 3)), np.array([[0.1, 0.0, 0.2]]), label="force", unit="N")
    fig = view.figure()
    assert fig.dpi == plots.SLIDE_DPI and fig.canvas.get_width_height()[0] == 480
    small = [(t.get_text(), t.get_fontsize()) for t in _texts(fig) if t.get_fontsize() < plots.TICK_PT]
    assert not small, f"text below the style's {plots.TICK_PT} pt: {small}"
    image = view.widget                                   # shown at its pixel size, not stretched by a box
    assert image.layout.width == "480px" and int.from_bytes(image.value[16:20], "big") == 480
    assert image.layout.align_self == "flex-start"              # an HBox does not stretch its height either
    assert int.from_bytes(image.value[20:24], "big") > 320      # the legend under the 480 × 320 drawing
    assert view.figure(legend=False).canvas.get_width_height() == (480, 320)
    sizes = [int(px) for px in re.findall(r"font-size:(\d+)px", view.legend.value)]
    assert sizes and min(sizes) >= 16, view.legend.value
