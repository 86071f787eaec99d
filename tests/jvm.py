"""JVM options for the JVMs the tests start in processes of their own, which live seconds to minutes.

Restart children (tests/spark/restart_child.py), ``overjoin server`` processes, beeline, and the
standalone clusters' master, workers and executors: each starts a JVM that loads Spark, runs a few
small micro-batches or statements, and exits. HotSpot's optimizing compiler (C2) spends most of its
CPU on code such a JVM never runs long enough to profit from, and G1 keeps threads of its own
busy; on the 2-core machine ``make test`` targets, both compete with the other test process.
``-XX:TieredStopAtLevel=1`` (the quick C1 compiler only) and ``-XX:+UseSerialGC`` halved a restart
child's CPU (32 -> 16 CPU seconds for the same stream). They change how fast the JVM runs the same
code, not what runs: every test checks the same rows and states.

The test processes' own SparkSessions (pytest.ini) keep the JVM's defaults: they live for the whole
run.
"""

from __future__ import annotations

import os

# C1 alone reserves a 48 MB code cache (the JVM's default is 240 MB): the shared server of a
# tests/server module runs its tests' pumps for minutes, compiling every micro-batch's generated
# code, and filled it ("CodeCache is full. Compiler has been disabled", then a pump's stream thread
# died with "Out of space in CodeCache for adapters"). The cache is reserved, not committed.
SHORT_LIVED_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=240m"

# spark-submit (pyspark sessions, `overjoin server`), beeline, a standalone master and worker, and
# the small JVM of spark-class that builds each of their command lines.
_VARIABLES = ("SPARK_SUBMIT_OPTS", "SPARK_BEELINE_OPTS", "SPARK_DAEMON_JAVA_OPTS", "SPARK_LAUNCHER_OPTS")


def short_lived_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (else this process's environment) with the JVMs Spark's scripts start given
    :data:`SHORT_LIVED_JVM_OPTIONS` (after any options already set there)."""
    env = dict(os.environ if base is None else base)
    for name in _VARIABLES:
        env[name] = f"{env.get(name, '')} {SHORT_LIVED_JVM_OPTIONS}".strip()
    return env
