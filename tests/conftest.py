"""Shared test setup: every test gets a cache folder of its own (``SAUVERIFY_CACHE_DIR``), so that no test reads
another's entries or writes to the user's cache folder."""

import pytest


@pytest.fixture(autouse=True)
def _own_cache_folder(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("SAUVERIFY_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
