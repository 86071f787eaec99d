"""Where the compiled JVM extension lives inside the installed package."""

from __future__ import annotations

from pathlib import Path

#: The class to name in ``spark.sql.extensions``.
EXTENSION_CLASS = "io.overjoin.OverjoinExtensions"

_JAR = Path(__file__).resolve().parent / "jars" / "overjoin.jar"


def jar_path() -> str:
    """Return the absolute path of overjoin's extension jar.

    Raises:
        FileNotFoundError: the package was installed without its jar (for example by copying the
            source tree instead of ``pip install``); the message says how to build it.
    """
    if not _JAR.is_file():
        raise FileNotFoundError(
            f"overjoin's extension jar is missing at {_JAR}. Install overjoin with `pip install .` "
            "(which compiles it), or build it in a source checkout with "
            "`python build_backend/overjoin_build.py`."
        )
    return str(_JAR)
