"""Kinesis pumps of `overjoin server` on a Spark standalone cluster (docs/server.md, "Streams over
Kinesis"), chained through a durable stream (its reader woken by its writer), their rows that divide
by zero kept by the executors' tasks as rows of `error_stream`: a master and one worker on 127.0.0.1 (tests/spark/test_cluster.py's ``Cluster``), the
server started with ``--master spark://127.0.0.1:PORT``, moto's Kinesis server on loopback. The
Kinesis writer runs in Python workers of the cluster's executor, which must find boto3 and the data
source: they run the server's ``python-worker``. Every process is stopped by PID at the end.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.jvm import SHORT_LIVED_JVM_OPTIONS
from tests.server.kinesis import CREDENTIALS, REGION, Moto
from tests.server.serverproc import Server
from tests.server.serverproc import wait_until as _wait_until
from tests.spark.test_cluster import Cluster

pytestmark = pytest.mark.server

WAIT = 400.0


def wait_until(check, what: str = "condition"):  # type: ignore[no-untyped-def]
    return _wait_until(check, timeout=WAIT, what=what)


def test_kinesis_pump_on_a_standalone_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The executors have no AWS configuration (and look for none beyond loopback): the writers on
    # them get the credentials the server reads with.
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    (tmp_path / "cluster").mkdir()
    cluster = Cluster(tmp_path / "cluster", workers=1)
    moto = Moto(tmp_path / "moto.log").start()
    server = Server(
        tmp_path / "state",
        extra=[
            "--master",
            cluster.url,
            "--conf",
            "spark.executor.memory=512m",
            "--conf",
            "spark.executor.cores=1",
            "--conf",
            f"spark.executor.extraJavaOptions={SHORT_LIVED_JVM_OPTIONS}",
        ],
        env={**os.environ, **CREDENTIALS},
    )
    try:
        server.start()
        moto.create("cluster_in", shards=2)
        moto.create("cluster_out", shards=1)
        moto.put("cluster_in", [{"id": i, "k": f"k{i % 3}"} for i in range(100)])
        opts = f"format = 'kinesis', region = '{REGION}', endpoint = '{moto.endpoint}'"
        server.execute(
            f"CREATE STREAM c_in (id INT, k VARCHAR(4)) WITH ({opts}, stream = 'cluster_in', starting_position = 'TRIM_HORIZON')",
            f"CREATE STREAM c_out (id INT, k VARCHAR(4), twice INT) WITH ({opts}, stream = 'cluster_out', partition_key = 'k')",
            # Through a durable stream: its reader is woken when the first pump has written a batch.
            # Both pumps divide by zero for some records (c_first: id % 10 = 0, c_pump: id % 7 = 0),
            # which the executors' tasks keep as rows of error_stream, sent on into c_err.
            "CREATE STREAM c_mid (id INT, k VARCHAR(4))",
            "CREATE STREAM c_err (ERROR_TIME TIMESTAMP, ERROR_LEVEL VARCHAR(10), ERROR_NAME VARCHAR(32), "
            "MESSAGE VARCHAR(4096), DATA_ROWTIME TIMESTAMP, DATA_ROW VARCHAR(49152), PUMP_NAME VARCHAR(128))",
            "CREATE PUMP c_pump AS INSERT INTO c_out SELECT STREAM id, k, id * 2 FROM c_mid WHERE 14 / MOD(id, 7) > 0",
            "CREATE PUMP c_first AS INSERT INTO c_mid SELECT STREAM id, k FROM c_in WHERE 10 / MOD(id, 10) > 0",
            "CREATE PUMP c_errors AS INSERT INTO c_err SELECT STREAM * FROM error_stream",
        )
        mid = [i for i in range(150) if i % 10]
        out = [i for i in mid if i % 7]
        errors = sorted(
            [("c_first", i) for i in range(150) if i % 10 == 0] + [("c_pump", i) for i in mid if i % 7 == 0]
        )

        def error_rows() -> list[tuple[str, int]]:
            rows = server.query("SELECT PUMP_NAME, DATA_ROW FROM c_err")
            return sorted((p, json.loads(bytes.fromhex(d))["id"]) for p, d in rows)

        def sent() -> list[dict]:
            return [json.loads(r) for r in moto.read_all("cluster_out")]

        first = len([i for i in out if i < 100])
        wait_until(lambda: len(sent()) >= first, what=f"{first} records in cluster_out")
        moto.put("cluster_in", [{"id": i, "k": f"k{i % 3}"} for i in range(100, 150)])
        wait_until(lambda: len(sent()) >= len(out), what=f"{len(out)} records in cluster_out")
        wait_until(lambda: len(error_rows()) >= len(errors), what="the rows that divided by zero")
        # Idle: its last trigger found no new record and no batch is in flight (a later batch would
        # add nothing), so any record written twice is in cluster_out now.
        pumps = ("c_first", "c_pump", "c_errors")
        wait_until(lambda: all(server.settled(p) for p in pumps), what="the pumps idle")
        got = sent()
        # At least once is the promise; without failures, each record exactly once.
        assert sorted(r["id"] for r in got) == out
        assert all(r == {"id": r["id"], "k": f"k{r['id'] % 3}", "twice": 2 * r["id"]} for r in got)
        shown = {r[0]: r for r in server.query("SHOW PUMPS")}
        for name, n in (("c_first", len(mid)), ("c_pump", len(out)), ("c_errors", len(errors))):
            assert shown[name][1] == "RUNNING" and shown[name][4] == n, shown[name]
        assert server.query("SELECT count(*), count(DISTINCT id) FROM c_mid") == [(len(mid), len(mid))]
        assert error_rows() == errors
        # The pump's tasks ran on the cluster's executor (on a cluster the driver runs none), whose
        # Python workers unpickled the Kinesis writer: only the server's Python has its package.
        assert list((tmp_path / "cluster" / "worker0").glob("app-*/0/stderr")), "no executor on the worker"
    finally:
        server.stop()
        moto.stop()
        cluster.stop()
