"""The `overjoin server` launcher's spark-submit command: what it turns on and where it binds."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from overjoin.server import add_arguments, build_command

pytestmark = pytest.mark.server


def command_for(*argv: str) -> tuple[list[str], dict[str, str]]:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return build_command(parser.parse_args(list(argv)))


def confs(cmd: list[str]) -> dict[str, str]:
    pairs = [cmd[i + 1] for i, arg in enumerate(cmd) if arg == "--conf"]
    return dict(p.split("=", 1) for p in pairs)


def test_the_spark_ui_is_on_and_on_loopback_whatever_host_says(tmp_path: Path) -> None:
    cmd, env = command_for("--state-dir", str(tmp_path / "s"), "--host", "0.0.0.0", "--ui-port", "4999")
    assert confs(cmd)["spark.ui.enabled"] == "true"
    assert confs(cmd)["spark.ui.port"] == "4999"
    # Spark's UI binds to SPARK_LOCAL_IP; the driver's own ports stay on loopback too.
    assert env["SPARK_LOCAL_IP"] == "127.0.0.1"
    assert confs(cmd)["spark.driver.bindAddress"] == "127.0.0.1"
    assert cmd[cmd.index("--host") + 1] == "0.0.0.0"


def test_no_ui_turns_it_off_and_conf_comes_after_the_defaults(tmp_path: Path) -> None:
    cmd, _ = command_for("--state-dir", str(tmp_path / "s"), "--no-ui", "--conf", "spark.sql.shuffle.partitions=8")
    assert confs(cmd)["spark.ui.enabled"] == "false"
    assert confs(cmd)["spark.sql.shuffle.partitions"] == "8"


def test_checkpoints_get_overjoins_manager_unless_conf_names_another(tmp_path: Path) -> None:
    key = "spark.sql.streaming.checkpointFileManagerClass"
    cmd, _ = command_for("--state-dir", str(tmp_path / "s"))
    assert confs(cmd)[key] == "io.overjoin.streaming.LocalCheckpointFileManager"
    cmd, _ = command_for("--state-dir", str(tmp_path / "s"), "--conf", f"{key}=com.example.S3Manager")
    assert [cmd[i + 1] for i, a in enumerate(cmd) if a == "--conf" and cmd[i + 1].startswith(key)] == [
        f"{key}=com.example.S3Manager"
    ]


def test_a_manager_in_spark_defaults_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "spark.sql.streaming.checkpointFileManagerClass"
    (tmp_path / "spark-defaults.conf").write_text(f"{key} com.example.S3Manager\n")
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    cmd, _ = command_for("--state-dir", str(tmp_path / "s"))
    assert key not in confs(cmd)


def test_sink_files_get_overjoins_local_file_system_on_a_local_master(tmp_path: Path) -> None:
    key = "spark.hadoop.fs.file.impl"
    cmd, _ = command_for("--state-dir", str(tmp_path / "s"))
    assert confs(cmd)[key] == "io.overjoin.streaming.NioLocalFileSystem"
    cmd, _ = command_for("--state-dir", str(tmp_path / "s"), "--master", "spark://127.0.0.1:7077")
    assert key not in confs(cmd)  # a cluster's executors load the jar after Hadoop's file systems
    cmd, _ = command_for("--state-dir", str(tmp_path / "s"), "--conf", f"{key}=org.apache.hadoop.fs.LocalFileSystem")
    assert [cmd[i + 1] for i, a in enumerate(cmd) if a == "--conf" and cmd[i + 1].startswith(key)] == [
        f"{key}=org.apache.hadoop.fs.LocalFileSystem"
    ]
