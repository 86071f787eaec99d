"""overjoin.configure / overjoin.session / overjoin.jar_path, and the extension's parser chain."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest
from pyspark.sql import SparkSession

import overjoin


def test_jar_is_inside_the_installed_package():
    jar = overjoin.jar_path()
    assert os.path.isfile(jar)
    assert os.path.dirname(os.path.dirname(jar)) == os.path.dirname(overjoin.__file__)
    with zipfile.ZipFile(jar) as z:
        names = set(z.namelist())
    assert "io/overjoin/OverjoinExtensions.class" in names
    assert "overjoin-error-conditions.json" in names


def test_installed_package_registers_its_sqlglot_dialects():
    # A fresh interpreter that has not imported overjoin: sqlglot loads the dialects through the
    # `sqlglot.dialects` entry points of the installed package.
    code = (
        "import sys, sqlglot\n"
        "sql = \"SELECT STREAM * FROM s OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS a\"\n"
        "out = sqlglot.transpile(sql, read='overjoin', write='overjoin')[0]\n"
        "assert 'overjoin' in sys.modules\n"
        "print(out)\n"
        "print(sqlglot.Dialect.get_or_raise('overjoindq').__class__.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.splitlines() == [
        "SELECT STREAM * FROM s OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS a",
        "OverjoinDQ",
    ]


def test_configure_rejects_what_is_not_a_builder():
    with pytest.raises(TypeError, match=r"SparkSession\.Builder"):
        overjoin.configure("local[2]")
    with pytest.raises(TypeError):
        overjoin.configure(None)


def test_configure_appends_to_existing_extensions_and_jars():
    builder = SparkSession.Builder()
    builder.config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
    builder.config("spark.jars", "/opt/other.jar")
    assert overjoin.configure(builder) is builder
    opts = builder._options
    assert opts["spark.sql.extensions"] == "io.delta.sql.DeltaSparkSessionExtension,io.overjoin.OverjoinExtensions"
    assert opts["spark.jars"] == "/opt/other.jar," + overjoin.jar_path()
    # Configuring twice does not add it twice.
    overjoin.configure(builder)
    assert builder._options["spark.sql.extensions"].count("io.overjoin.OverjoinExtensions") == 1


def test_configure_on_an_empty_builder():
    builder = overjoin.configure(SparkSession.Builder())
    assert builder._options["spark.sql.extensions"] == overjoin.EXTENSION_CLASS
    assert builder._options["spark.jars"] == overjoin.jar_path()
    assert builder._options["spark.sql.streaming.checkpointFileManagerClass"] == (
        "io.overjoin.streaming.LocalCheckpointFileManager"
    )


def test_configure_leaves_a_checkpoint_manager_of_spark_defaults(tmp_path, monkeypatch):
    (tmp_path / "spark-defaults.conf").write_text("spark.sql.streaming.checkpointFileManagerClass com.example.M\n")
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    builder = overjoin.configure(SparkSession.Builder())
    assert "spark.sql.streaming.checkpointFileManagerClass" not in builder._options


def test_configure_keeps_a_checkpoint_manager_already_named():
    builder = SparkSession.Builder()
    builder.config("spark.sql.streaming.checkpointFileManagerClass", "com.example.S3Manager")
    overjoin.configure(builder)
    assert builder._options["spark.sql.streaming.checkpointFileManagerClass"] == "com.example.S3Manager"


def test_extension_is_active_in_the_test_session(spark):
    assert overjoin.is_active(spark)
    parser = spark._jsparkSession.sessionState().sqlParser()
    assert parser.getClass().getName() == "io.overjoin.catalyst.parser.OverjoinSqlParser"
    # It wraps Spark's parser rather than replacing it.
    assert parser.delegate().getClass().getName() == "org.apache.spark.sql.execution.SparkSqlParser"


def test_session_returns_the_running_overjoin_session(spark):
    assert overjoin.session() is spark or overjoin.session()._jsparkSession.equals(spark._jsparkSession)
