"""Where the compiled JVM extension lives inside the installed package."""

from __future__ import annotations

import os
import re
from pathlib import Path

#: The class to name in ``spark.sql.extensions``.
EXTENSION_CLASS = "io.overjoin.OverjoinExtensions"

#: Spark's setting naming the class that writes streaming checkpoints, and overjoin's class for it:
#: checkpoints on the local file system written without forking a ``chmod`` or ``readlink``
#: process per file (docs/operator.md, "Checkpoints on the local file system"). Other file systems
#: get Spark's own manager. ``configure()`` and ``overjoin server`` set it unless it is set already.
CHECKPOINT_MANAGER_SETTING = "spark.sql.streaming.checkpointFileManagerClass"
CHECKPOINT_MANAGER_CLASS = "io.overjoin.streaming.LocalCheckpointFileManager"
#: Hadoop's local file system with permissions set through java.nio (no chmod process per file):
#: what `overjoin server` writes sink files with on a local master.
LOCAL_FILE_SYSTEM_SETTING = "spark.hadoop.fs.file.impl"
LOCAL_FILE_SYSTEM_CLASS = "io.overjoin.streaming.NioLocalFileSystem"

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


def named_outside_the_builder(key: str) -> bool:
    """Whether a Spark setting ``key`` is given where spark-submit reads settings before a session's
    builder: ``spark-defaults.conf`` (in ``$SPARK_CONF_DIR``, else ``$SPARK_HOME/conf`` or pyspark's
    own ``conf``) or ``--conf`` in ``$PYSPARK_SUBMIT_ARGS``. A default overjoin would set there is
    left to the user's value: a builder's setting would override it."""
    if re.search(rf"--conf[= ]+['\"]?{re.escape(key)}=", os.environ.get("PYSPARK_SUBMIT_ARGS", "")):
        return True
    folders = []
    if os.environ.get("SPARK_CONF_DIR"):
        folders.append(Path(os.environ["SPARK_CONF_DIR"]))
    else:
        if os.environ.get("SPARK_HOME"):
            folders.append(Path(os.environ["SPARK_HOME"]) / "conf")
        try:
            import pyspark

            folders.append(Path(pyspark.__file__).resolve().parent / "conf")
        except ImportError:  # pragma: no cover - overjoin's sessions need pyspark anyway
            pass
    for folder in folders:
        defaults = folder / "spark-defaults.conf"
        try:
            text = defaults.read_text(encoding="utf-8")
        except OSError:
            continue
        # Java properties: "key value", "key=value" or "key: value"; '#' or '!' starts a comment.
        if re.search(rf"^[ \t]*{re.escape(key)}[ \t]*[=: \t]", text, re.MULTILINE):
            return True
    return False
