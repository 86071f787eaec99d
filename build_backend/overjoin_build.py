"""PEP 517 build backend for overjoin: setuptools, plus the Scala module compiled without sbt.

``pip install .`` must work on a machine that reaches PyPI and nothing else (no Maven Central),
so the JVM module cannot be built with sbt or Maven. pyspark's wheel already carries every jar
the module needs, including the Scala 2.13 compiler, so this backend runs ``scala.tools.nsc.Main``
from those jars and packs the classes, with the shared error catalogue, into
``python/overjoin/jars/overjoin.jar`` before setuptools builds the wheel.

The jar is rebuilt only when a source file changed: a digest of every input is stored beside it.

It can also be run by hand: ``python build_backend/overjoin_build.py`` compiles the jar in place.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools

ROOT = Path(__file__).resolve().parent.parent
SCALA_SOURCES = ROOT / "jvm" / "src" / "main" / "scala"
RESOURCES = ROOT / "python" / "overjoin" / "resources"
JAR_DIR = ROOT / "python" / "overjoin" / "jars"
JAR = JAR_DIR / "overjoin.jar"
DIGEST = JAR_DIR / "overjoin.jar.sha256"
SCALA_VERSION = "2.13.18"


def _inputs() -> list[Path]:
    files = sorted(SCALA_SOURCES.rglob("*.scala"))
    files += sorted(p for p in RESOURCES.rglob("*") if p.is_file())
    return files


def _digest(files: list[Path], spark_jars: Path) -> str:
    h = hashlib.sha256()
    h.update(str(sorted(p.name for p in spark_jars.glob("*.jar"))).encode())
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def spark_jars_dir() -> Path:
    """The ``jars`` folder of the pyspark this build runs with."""
    try:
        import pyspark
    except ImportError as e:  # pragma: no cover - only without the build requirements
        raise RuntimeError(
            "overjoin's build needs pyspark (it compiles the JVM module with the Scala compiler "
            "that pyspark ships). Install it first, or let pip's build isolation do it."
        ) from e
    jars = Path(pyspark.__file__).resolve().parent / "jars"
    if not (jars / f"scala-compiler-{SCALA_VERSION}.jar").exists():
        raise RuntimeError(f"{jars} has no scala-compiler-{SCALA_VERSION}.jar: pyspark 4.3 is needed")
    return jars


def compile_jar(force: bool = False, log=print) -> Path:
    """Compile ``jvm/`` into ``python/overjoin/jars/overjoin.jar`` unless it is up to date."""
    jars = spark_jars_dir()
    files = _inputs()
    digest = _digest(files, jars)
    if not force and JAR.exists() and DIGEST.exists() and DIGEST.read_text().strip() == digest:
        log(f"overjoin: {JAR.relative_to(ROOT)} is up to date")
        return JAR
    java = shutil.which("java") or (
        os.path.join(os.environ["JAVA_HOME"], "bin", "java") if "JAVA_HOME" in os.environ else None
    )
    if not java:
        raise RuntimeError("overjoin's build needs a Java 17+ runtime: no `java` on PATH or JAVA_HOME")
    compiler_cp = os.pathsep.join(
        str(jars / f"{name}-{SCALA_VERSION}.jar") for name in ("scala-compiler", "scala-library", "scala-reflect")
    )
    sources = [str(p) for p in files if p.suffix == ".scala"]
    log(f"overjoin: compiling {len(sources)} Scala files with scalac {SCALA_VERSION} from {jars}")
    with tempfile.TemporaryDirectory(prefix="overjoin-classes-") as out:
        cmd = [
            java,
            "-Xss8m",
            "-cp",
            compiler_cp,
            "scala.tools.nsc.Main",
            "-classpath",
            str(jars / "*"),
            "-d",
            out,
            "-deprecation",
            "-feature",
            "-release",
            "17",
            "-nowarn",
            *sources,
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout + proc.stderr)
            raise RuntimeError("overjoin: scalac failed (messages above)")
        JAR_DIR.mkdir(parents=True, exist_ok=True)
        tmp = JAR.with_suffix(".jar.tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: overjoin build\n\n")
            for p in sorted(Path(out).rglob("*")):
                if p.is_file():
                    z.write(p, p.relative_to(out).as_posix())
            for p in files:
                if p.suffix != ".scala":
                    z.write(p, p.relative_to(RESOURCES).as_posix())
        tmp.replace(JAR)
    DIGEST.write_text(digest + "\n")
    log(f"overjoin: wrote {JAR.relative_to(ROOT)} ({JAR.stat().st_size // 1024} KiB)")
    return JAR


def clean_build_lib() -> None:
    """Empty setuptools' staging folder ``build/lib``: setuptools copies the package there and never
    removes what the source tree no longer has, so a module that became a package (``dialect.py``
    -> ``dialect/``) would go into every later wheel beside it."""
    shutil.rmtree(ROOT / "build" / "lib", ignore_errors=True)


# PEP 517 hooks: setuptools', with the jar compiled first.
get_requires_for_build_sdist = _setuptools.get_requires_for_build_sdist
get_requires_for_build_wheel = _setuptools.get_requires_for_build_wheel
get_requires_for_build_editable = _setuptools.get_requires_for_build_editable
prepare_metadata_for_build_wheel = _setuptools.prepare_metadata_for_build_wheel
prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable
build_sdist = _setuptools.build_sdist


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    compile_jar(log=lambda m: print(m, file=sys.stderr))
    clean_build_lib()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    compile_jar(log=lambda m: print(m, file=sys.stderr))
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)


if __name__ == "__main__":
    compile_jar(force="--force" in sys.argv)
