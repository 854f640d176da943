"""Static pictures of live widgets: what a reader without a kernel sees in place of a slider panel.

A course notebook stored from a full run (``make outputs``) shows live pythreejs views and sliders
in JupyterLab. GitHub, a static slide deck or JupyterLab without a kernel cannot run them, so each
widget output also carries a PNG in the same output bundle (``image/png`` beside the widget view):
:func:`widget_png` draws it from the widget tree as it stands, in the kernel, without a browser:

* an :class:`~lessonlib.viz.ArmView`'s widget (the pythreejs ``Renderer`` above its legend) → the view's static
  matplotlib figure (same geometry, arrows, frames and ghost, the legend's colours; :meth:`ArmView.figure`);
  a Renderer alone → the figure without the legend;
* ``HBox`` / ``VBox`` (and any ``Box``) → their children side by side / one under the other;
* ``Image`` → its picture; ``Output`` → what it captured (figures, printed text, errors);
* sliders, dropdowns, toggle buttons, check boxes → a drawn control with its description and value;
* ``Label`` / ``HTML`` → their text; ``Play``, ``Button`` and anything unknown → nothing.

``make outputs`` (``tools/outputs.py``) calls :func:`bundle_pngs` at the end of the run; in a
notebook, ``widget_png(panel.widget)`` gives the same picture.
"""
from __future__ import annotations

import base64
import html
import io
import re
from pathlib import Path

import numpy as np

#: Spacing between children of a box, and padding of a control (px).
GAP = 6
#: Font size of drawn controls and captured text (px): 16 px, what a projected 1280×720 slide needs.
FONT_PX = 16
#: Width of a drawn slider track (px).
TRACK_PX = 150
#: Widest text line drawn from an Output capture (characters); longer lines are cut with "…".
MAX_TEXT_COLUMNS = 110
_INK, _MUTED, _ACCENT, _TRACK = (30, 30, 30), (110, 110, 110), (33, 118, 199), (200, 205, 212)


def _font(mono=False):
    """DejaVu Sans (Mono) from matplotlib's data: always present where matplotlib is."""
    from matplotlib import get_data_path
    from PIL import ImageFont
    name = "DejaVuSansMono.ttf" if mono else "DejaVuSans.ttf"
    return ImageFont.truetype(str(Path(get_data_path()) / "fonts" / "ttf" / name), FONT_PX)


def _text_image(lines, mono=False, color=_INK):
    from PIL import Image, ImageDraw
    font = _font(mono)
    lines = [line if len(line) <= MAX_TEXT_COLUMNS else line[:MAX_TEXT_COLUMNS - 1] + "…" for line in lines]
    if not lines:
        return None
    height = FONT_PX + 5
    width = max(int(np.ceil(font.getlength(line))) for line in lines) + 4
    image = Image.new("RGB", (max(width, 1), height * len(lines) + 2), "white")
    draw = ImageDraw.Draw(image)
    for k, line in enumerate(lines):
        draw.text((2, 1 + k * height), line, font=font, fill=color)
    return image


def _value_text(widget):
    value = getattr(widget, "value", None)
    fmt = getattr(widget, "readout_format", None)
    if isinstance(value, float) and fmt:
        try:
            return format(value, fmt)
        except ValueError:
            pass
    if isinstance(value, float):
        return f"{value:.4g}"
    if hasattr(widget, "label") and getattr(widget, "label", None) is not None and not isinstance(value, (int, float)):
        return str(widget.label)
    return str(value)


def _control_image(widget):
    """A slider (description, track with a knob, readout) or any other value control (description: value)."""
    from PIL import Image, ImageDraw
    font = _font()
    description = str(getattr(widget, "description", "") or "")
    value = _value_text(widget)
    label_w = int(np.ceil(font.getlength(description))) + GAP + 2 if description else 0
    value_w = int(np.ceil(font.getlength(value))) + 2 * GAP
    is_slider = hasattr(widget, "min") and hasattr(widget, "max") or hasattr(widget, "options") and \
        type(widget).__name__.endswith("Slider")
    track = TRACK_PX if is_slider else 0
    height = FONT_PX + 2 * GAP
    image = Image.new("RGB", (label_w + track + value_w + 2, height), "white")
    draw = ImageDraw.Draw(image)
    y = height // 2
    if description:
        draw.text((2, y), description, font=font, fill=_INK, anchor="lm")
    if is_slider:
        x0, x1 = label_w + 4, label_w + track - 4
        draw.line([(x0, y), (x1, y)], fill=_TRACK, width=4)
        fraction = _slider_fraction(widget)
        xk = x0 + fraction * (x1 - x0)
        draw.line([(x0, y), (xk, y)], fill=_ACCENT, width=4)
        draw.ellipse([xk - 6, y - 6, xk + 6, y + 6], fill="white", outline=_ACCENT, width=2)
        draw.text((label_w + track + GAP, y), value, font=font, fill=_INK, anchor="lm")
    else:
        box = [label_w, 2, label_w + value_w, height - 3]
        draw.rectangle(box, outline=_TRACK, width=1)
        draw.text((label_w + GAP, y), value, font=font, fill=_INK, anchor="lm")
    return image


def _slider_fraction(widget):
    if hasattr(widget, "options") and not hasattr(widget, "min"):        # SelectionSlider
        n = max(len(widget.options) - 1, 1)
        return float(getattr(widget, "index", 0) or 0) / n
    lo, hi, v = float(widget.min), float(widget.max), float(widget.value)
    return 0.0 if hi <= lo else float(np.clip((v - lo) / (hi - lo), 0.0, 1.0))


def _png_image(data):
    from PIL import Image
    if isinstance(data, str):
        data = base64.b64decode(data)
    return Image.open(io.BytesIO(bytes(data))).convert("RGB")


def _output_image(outputs):
    """The outputs an ``Output`` widget captured, one under the other."""
    parts = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(_text_image(out.get("text", "").rstrip("\n").splitlines(), mono=True,
                                     color=(180, 30, 30) if out.get("name") == "stderr" else _INK))
        elif kind == "error":
            parts.append(_text_image([f"{out.get('ename')}: {out.get('evalue')}"], mono=True, color=(180, 30, 30)))
        elif kind in ("display_data", "execute_result"):
            data = out.get("data", {})
            if "image/png" in data:
                parts.append(_png_image(data["image/png"]))
            elif "text/plain" in data and "application/vnd.jupyter.widget-view+json" not in data:
                parts.append(_text_image(data["text/plain"].splitlines(), mono=True))
    return _stack([p for p in parts if p is not None], vertical=True)


def _stack(images, vertical):
    from PIL import Image
    images = [im for im in images if im is not None]
    if not images:
        return None
    if len(images) == 1:
        return images[0]
    if vertical:
        size = (max(im.width for im in images), sum(im.height for im in images) + GAP * (len(images) - 1))
    else:
        size = (sum(im.width for im in images) + GAP * (len(images) - 1), max(im.height for im in images))
    canvas = Image.new("RGB", size, "white")
    offset = 0
    for im in images:
        canvas.paste(im, (0, offset) if vertical else (offset, 0))
        offset += (im.height if vertical else im.width) + GAP
    return canvas


def _hidden(widget):
    layout = getattr(widget, "layout", None)
    return layout is not None and (getattr(layout, "display", None) == "none"
                                   or getattr(layout, "visibility", None) == "hidden")


def widget_image(widget):
    """A PIL image of ``widget`` as it stands (see the module docstring), or None when nothing is drawn."""
    import ipywidgets as w

    from .view import view_of_renderer, view_of_widget
    if widget is None or _hidden(widget):
        return None
    view = view_of_widget(widget)
    if view is not None:                                      # the view and its legend: one figure, coloured keys
        return _png_image(view.static_png(legend=True))
    view = view_of_renderer(widget)
    if view is not None:
        return _png_image(view.static_png(legend=False))     # the legend is a widget of its own (HTML)
    if isinstance(widget, w.Box):
        return _stack([widget_image(c) for c in widget.children], vertical=not isinstance(widget, w.HBox))
    if isinstance(widget, w.Image):
        return _png_image(widget.value) if widget.value else None
    if isinstance(widget, w.Output):
        return _output_image(widget.outputs)
    if isinstance(widget, (w.HTML, w.HTMLMath, w.Label)):
        text = html.unescape(re.sub(r"<[^>]+>", " ", str(widget.value)))
        return _text_image([line.strip() for line in text.splitlines() if line.strip()])
    if isinstance(widget, (w.Play, w.Button)):
        return None
    if isinstance(widget, w.ValueWidget) and isinstance(widget, w.DOMWidget):
        return _control_image(widget)
    return None


def widget_png(widget):
    """:func:`widget_image` as PNG bytes (None when nothing is drawn).

    >>> import ipywidgets as widgets
    >>> png = widget_png(widgets.VBox([widgets.FloatSlider(value=0.5, description="q1"), widgets.Label("hello")]))
    >>> png[:4]
    b'\\x89PNG'
    """
    image = widget_image(widget)
    if image is None:
        return None
    buf = io.BytesIO()
    image.save(buf, format="png", optimize=True)
    return buf.getvalue()


def bundle_pngs(model_ids):
    """``{model_id: base64 PNG}`` for the live widgets ``model_ids`` (those that draw something).

    Run in the kernel by ``make outputs`` after the last cell, so each picture shows the widget's
    final state, the same state the stored widget view restores.
    """
    from ipywidgets import Widget
    registry = getattr(Widget, "widgets", None) or {}
    try:                                      # ipywidgets ≥ 8.1: the registry lives in widget._instances
        from ipywidgets.widgets.widget import _instances
        registry = _instances
    except ImportError:
        pass
    found = {}
    for model_id in model_ids:
        widget = registry.get(model_id)
        png = widget_png(widget) if widget is not None else None
        if png is not None:
            found[model_id] = base64.b64encode(png).decode("ascii")
    return found
