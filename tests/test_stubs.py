"""The typed stubs of the extension describe what it exports, no more and no less."""

import ast
import inspect
from pathlib import Path

from ccscope import _core

STUBS = Path(_core.__file__).parent / "_core.pyi"


def test_stubs_list_every_export_with_its_parameters():
    tree = ast.parse(STUBS.read_text())
    stubbed = {
        n.name: [a.arg for a in n.args.args] for n in tree.body if isinstance(n, ast.FunctionDef)
    }
    exported = {
        n: o
        for n, o in vars(_core).items()
        if callable(o) and not n.startswith("_") and not isinstance(o, type)
    }
    assert set(stubbed) == set(exported)
    for name, fn in exported.items():
        assert stubbed[name] == list(inspect.signature(fn).parameters), name
