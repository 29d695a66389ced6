import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _only_this_plugin(monkeypatch):
    """Inner sessions load perfgate with -p, never also through an installed
    entry point (that would register it twice)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
