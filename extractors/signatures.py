"""Positional parameters of library calls (``extractors/signatures.yaml``): which setting each positional argument
of a known consumer binds, so that ``nn.Dropout(0.1)`` yields the same fact as ``nn.Dropout(dropout=0.1)``."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

import yaml

SIGNATURES_FILE = "signatures.yaml"


class SignaturesError(ValueError):
    """``signatures.yaml`` is not a mapping of callee -> list of parameter names (or nulls); names the file."""


@lru_cache(maxsize=None)
def table() -> dict[str, tuple[str | None, ...]]:
    """The packaged table: callee's last component (str, as the library spells it) -> its positional parameters
    in order, ``None`` for a position that holds no setting. Raises ``SignaturesError`` for a malformed file and
    ``yaml.YAMLError`` when it does not parse."""
    data = yaml.safe_load(resources.files("extractors").joinpath(SIGNATURES_FILE).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise SignaturesError(f"extractors/{SIGNATURES_FILE} must be a mapping of callee -> parameters")
    out: dict[str, tuple[str | None, ...]] = {}
    for callee, parameters in data.items():
        if not isinstance(parameters, list) or not all(p is None or isinstance(p, str) for p in parameters):
            raise SignaturesError(f"extractors/{SIGNATURES_FILE}: {callee!r} must hold a list of names or nulls")
        out[str(callee)] = tuple(parameters)
    return out


def positional_parameters(callee: str) -> tuple[str | None, ...]:
    """The parameters the positional arguments of a call to ``callee`` (dotted, as written) bind, by its last
    component; empty for a callee the table does not know."""
    return table().get(callee.rsplit(".", 1)[-1], ())
