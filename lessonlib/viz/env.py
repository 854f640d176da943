"""Where the viewers run: the one definition of "running under test" and "headless".

* ``LESSONLIB_TESTING=1`` — set by ``make test`` for the whole test run (pytest, nbval and every
  kernel they start: an nbval kernel does not inherit ``PYTEST_CURRENT_TEST``, but it does inherit
  the environment of the process that started it);
* ``PYTEST_CURRENT_TEST`` — set by pytest while an in-process test runs;
* ``LESSONLIB_HEADLESS=1`` — a user's switch: no browser will ever show a 3D widget here.

When any holds, the viewers draw static matplotlib figures instead of pythreejs scenes, so stored
notebook outputs are images and text, not widget views that need a live kernel.
"""
from __future__ import annotations

import os

_TRUE = ("1", "true", "yes", "on")


def _flag(environ, name):
    return environ.get(name, "").strip().lower() in _TRUE


def running_under_test(environ=None):
    """True when ``LESSONLIB_TESTING`` is set (``make test``) or an in-process pytest test is running.

    ``environ``: the environment to read (default ``os.environ``).

    >>> running_under_test({"LESSONLIB_TESTING": "1"}), running_under_test({"LESSONLIB_TESTING": "0"})
    (True, False)
    >>> running_under_test({"PYTEST_CURRENT_TEST": "tests/test_viz.py::test_x (call)"})
    True
    """
    environ = os.environ if environ is None else environ
    return _flag(environ, "LESSONLIB_TESTING") or "PYTEST_CURRENT_TEST" in environ


def headless(environ=None):
    """True when ``LESSONLIB_HEADLESS`` is set: draw with matplotlib, never with pythreejs.

    >>> headless({"LESSONLIB_HEADLESS": "yes"}), headless({})
    (True, False)
    """
    return _flag(os.environ if environ is None else environ, "LESSONLIB_HEADLESS")
