"""Loading a file of ``scripts/`` as a module, for its tests: the scripts are not a package."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module (named ``<name>_script``, so it shadows nothing).

    The directory goes on ``sys.path`` as it does for ``python scripts/<name>.py``, so the
    scripts' shared ``_args`` module is found.
    """
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(f"{name}_script", SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
