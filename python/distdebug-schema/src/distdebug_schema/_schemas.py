"""The JSON Schema (draft 2020-12) of each DistDebug file kind, shipped in this package.

The files under ``schemas/`` are copies of ``packages/schema/json-schema/`` of the DistDebug
repository, written by ``pnpm run schema:generate``; a test keeps them identical.
"""

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Dict, Tuple


def _kinds() -> Tuple[str, ...]:
    folder = resources.files(__package__).joinpath("schemas")
    names = [entry.name for entry in folder.iterdir() if entry.name.endswith(".schema.json")]
    return tuple(sorted(name[: -len(".schema.json")] for name in names))


KINDS: Tuple[str, ...] = _kinds()
"""Every file kind: ``attempt``, ``config``, ``dataset``, ``diagnosis``, ``gold``, ..."""


@lru_cache(maxsize=None)
def schema_of(kind: str) -> Dict[str, Any]:
    """The JSON Schema of one file kind, for example ``schema_of("diagnosis")``.

    Raises ``KeyError`` for an unknown kind.
    """
    if kind not in KINDS:
        raise KeyError(f"unknown DistDebug file kind {kind!r}; expected one of {', '.join(KINDS)}")
    text = resources.files(__package__).joinpath("schemas", f"{kind}.schema.json").read_text("utf-8")
    return json.loads(text)
