"""Root pytest configuration: keep global NumPy state from leaking between tests and doctests."""
import numpy as np
import pytest

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
