"""Print the requirements of overjoin's optional extras (and, with ``--core``, of the package itself),
one per line, for ``pip install -r``: ``make check`` installs its tools this way without building
the JVM extension. Python 3.10 needs ``tomli`` (``make dev`` installs it there).

    python build_backend/requirements_of.py [--core] EXTRA ...
"""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def main(argv: list[str]) -> int:
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    core = "--core" in argv
    extras = [a for a in argv if a != "--core"]
    unknown = [e for e in extras if e not in project["optional-dependencies"]]
    if unknown:
        print(f"unknown extra(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    wanted = list(project["dependencies"]) if core else []
    for extra in extras:
        wanted += project["optional-dependencies"][extra]
    print("\n".join(dict.fromkeys(wanted)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
