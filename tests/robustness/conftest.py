# The window fixtures of the GUI tests, for the window's cases.
from tests.gui.conftest import kept_executor, settings, window  # noqa: F401
