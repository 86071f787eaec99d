"""Where the compiled JVM extension lives inside the installed package."""

from __future__ import annotations

from pathlib import Path

#: The class to name in ``spark.sql.extensions``.
EXTENSION_CLASS = "io.overjoin.OverjoinExtensions"

#: Spark's setting naming the class that writes streaming checkpoints, and overjoin's class for it:
#: checkpoints on the local file system written without forking a ``chmod`` or ``readlink``
#: process per file (docs/operator.md, "Checkpoints on the local file system"). Other file systems
#: get Spark's own manager. ``configure()`` and ``overjoin server`` set it unless it is set already.
CHECKPOINT_MANAGER_SETTING = "spark.sql.streaming.checkpointFileManagerClass"
CHECKPOINT_MANAGER_CLASS = "io.overjoin.streaming.LocalCheckpointFileManager"

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
