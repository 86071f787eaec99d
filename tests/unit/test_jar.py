"""Where overjoin leaves a Spark setting to the user: ``named_outside_the_builder``."""

from __future__ import annotations

from pathlib import Path

import pytest

from overjoin._jar import CHECKPOINT_MANAGER_SETTING, named_outside_the_builder

KEY = CHECKPOINT_MANAGER_SETTING


@pytest.fixture
def conf_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    monkeypatch.delenv("PYSPARK_SUBMIT_ARGS", raising=False)
    return tmp_path


@pytest.mark.parametrize(
    "line",
    [f"{KEY} com.example.M", f"{KEY}=com.example.M", f"{KEY}: com.example.M", f"  {KEY}\tcom.example.M"],
)
def test_spark_defaults_naming_the_setting(conf_dir: Path, line: str) -> None:
    (conf_dir / "spark-defaults.conf").write_text(f"spark.master local[2]\n{line}\n")
    assert named_outside_the_builder(KEY)


@pytest.mark.parametrize(
    "text",
    ["", "spark.master local[2]\n", f"# {KEY} com.example.M\n", f"{KEY}Other com.example.M\n", f"x.{KEY} y\n"],
)
def test_spark_defaults_not_naming_it(conf_dir: Path, text: str) -> None:
    (conf_dir / "spark-defaults.conf").write_text(text)
    assert not named_outside_the_builder(KEY)


def test_no_spark_defaults_file(conf_dir: Path) -> None:
    assert not named_outside_the_builder(KEY)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (f"--conf {KEY}=com.example.M pyspark-shell", True),
        (f"--conf '{KEY}=com.example.M' pyspark-shell", True),
        ("--conf spark.sql.shuffle.partitions=4 pyspark-shell", False),
        ("pyspark-shell", False),
    ],
)
def test_pyspark_submit_args(conf_dir: Path, monkeypatch: pytest.MonkeyPatch, args: str, named: bool) -> None:
    monkeypatch.setenv("PYSPARK_SUBMIT_ARGS", args)
    assert named_outside_the_builder(KEY) is named
