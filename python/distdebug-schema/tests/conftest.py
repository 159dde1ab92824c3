from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[3]


@pytest.fixture
def repository() -> Path:
    """The DistDebug repository this package lives in (its examples and generated schemas)."""
    if not (REPOSITORY / "packages" / "schema" / "json-schema").is_dir():
        pytest.skip("not inside the DistDebug repository")
    return REPOSITORY
