"""Makes the shared test modules importable from every folder of tests/.

pytest imports each test file with its own folder first on ``sys.path`` (the default
``prepend`` import mode; the folders have no ``__init__.py``, so every file's basename is unique
across tests/).  The modules other folders import by name are put on ``sys.path`` here, so
that one test file also runs alone (``python -m pytest tests/unit/isa/test_instructions_fuzz.py``):

- ``support/helpers.py``: legal type combinations and the CliRunner checks;
- ``project/test_readme.py``: the README's console examples (production/test_golden_outputs.py);
- ``cli/test_fuzz.py``: the fuzzing strategies (unit/isa/test_instructions_fuzz.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for _folder in ("support", "project", "cli"):
    _path = str(_HERE / _folder)
    if _path not in sys.path:
        sys.path.insert(0, _path)
