"""Root pytest configuration: keep global state (NumPy's print options, the checker folders) from leaking between tests."""
import numpy as np
import pytest

from lessonlib.grading.checks import registry

_DEFAULT_PRINT_OPTIONS = np.get_printoptions()


@pytest.fixture(autouse=True)
def _default_numpy_print_options():
    """Doctests print arrays, so every test starts from NumPy's default print options.

    (Some tests execute notebook setup cells, which call ``np.set_printoptions``, in fixtures of a
    wider scope; resetting before each test — not only after — undoes that too.)
    """
    np.set_printoptions(**_DEFAULT_PRINT_OPTIONS)
    yield
    np.set_printoptions(**_DEFAULT_PRINT_OPTIONS)


@pytest.fixture(autouse=True)
def _only_the_course_checkers():
    """A test that calls ``lessonlib-author`` or ``lessonlib-grade --checkers`` in-process adds folders to this
    process's exercise sources; the next test in the same worker must again see the course's thirteen only."""
    before = list(registry._FOLDERS)
    yield
    if registry._FOLDERS != before:
        registry._FOLDERS[:] = before
        registry._CACHE.clear()
