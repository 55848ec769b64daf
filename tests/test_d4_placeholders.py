"""Which method bodies D4 reads as placeholders whose overrides run in their place (rules/d4_ordering.py,
``_placeholder``): abstract ones always, empty ones only when nothing builds their class (``_overrides_run``)."""

import libcst as cst
import pytest

from rules.d4_ordering import _ABSTRACT, _EMPTY, _placeholder


@pytest.mark.parametrize("source, kind", [
    ("def m(self):\n    raise NotImplementedError\n", _ABSTRACT),
    ("def m(self):\n    '''Subclasses train one epoch.'''\n    raise NotImplementedError('override me')\n", _ABSTRACT),
    ("@abc.abstractmethod\ndef m(self):\n    return self.x + 1\n", _ABSTRACT),
    ("@abstractmethod\ndef m(self): ...\n", _ABSTRACT),
    ("def m(self): ...\n", _EMPTY),
    ("def m(self):\n    '''A hook: nothing by default.'''\n    pass\n", _EMPTY),
    ("def m(self):\n    '''Only a docstring.'''\n", _EMPTY),
    ("def m(self):\n    raise ValueError('bad input')\n", None),
    ("def m(self):\n    if self.x:\n        raise NotImplementedError\n", None),
    ("def m(self):\n    self.x = 1\n    raise NotImplementedError\n", None),
    ("def m(self):\n    return 0\n", None),
])
def test_placeholder_bodies(source: str, kind: str | None) -> None:
    node = cst.parse_module(source).body[0]
    assert isinstance(node, cst.FunctionDef)
    assert _placeholder(node) == kind
