"""Root pytest configuration: keep global NumPy state from leaking between tests and doctests."""
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _restore_numpy_print_options():
    """Doctests print arrays: a test that changes ``np.set_printoptions`` must not change them."""
    saved = np.get_printoptions()
    yield
    np.set_printoptions(**saved)
