"""KDA applications run from their definitions (docs/server.md, "Importing a KDA application"), as a
migrating team runs them: ``overjoin import`` of a CloudFormation template, a CDK-synthesized JSON
template, a Terraform folder and an API DescribeApplication JSON (definitions of our own writing in
the styles published ones take, tests/unit/kda_definitions/), the script run in ``overjoin server``,
records made from each input schema sent to moto's Kinesis and Firehose, and every destination
read back: Kinesis streams, Firehose delivery streams (their S3 objects) and Lambda functions (a
stand-in on loopback answering the Invoke API).

The server is started with AWS's variables only (``AWS_ENDPOINT_URL`` at moto,
``AWS_ENDPOINT_URL_LAMBDA`` at the stand-in, credentials and region): no endpoint is written in SQL.
Expected rows come from tests/kda_records.py, a model of KDA's input schemas written apart from the
server's decoder. Each application runs in a schema of its own, and its pumps are stopped after
its test.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.kda_records import decode, make_records
from tests.server.kinesis import CREDENTIALS, REGION, Moto
from tests.server.lambda_standin import LambdaStandIn
from tests.server.serverproc import Server
from tests.server.serverproc import wait_until as _wait_until

pytestmark = pytest.mark.server

DEFINITIONS = Path(__file__).resolve().parent.parent / "unit" / "kda_definitions"
WAIT = 300.0

import boto3  # noqa: E402, F401  (test dependencies: missing, this fails at import)
import pyhive.hive  # noqa: E402, F401


def wait_until(check, what: str):  # type: ignore[no-untyped-def]
    return _wait_until(check, timeout=WAIT, what=what)


@pytest.fixture(scope="module")
def moto(tmp_path_factory):  # type: ignore[no-untyped-def]
    m = Moto(tmp_path_factory.mktemp("moto") / "moto.log").start()
    yield m
    m.stop()


@pytest.fixture(scope="module")
def lam():  # type: ignore[no-untyped-def]
    s = LambdaStandIn().start()
    yield s
    s.stop()


class Servers:
    """The module's server, with AWS's variables only; the last test kills it and starts another
    on the same state directory."""

    def __init__(self, state: Path, moto: Moto, lam: LambdaStandIn) -> None:
        self.state = state
        self.env = {**os.environ, **CREDENTIALS, "AWS_REGION": REGION, "AWS_ENDPOINT_URL": moto.endpoint,
                    "AWS_ENDPOINT_URL_LAMBDA": lam.endpoint}  # fmt: skip
        self.current = Server(state, env=self.env).start()

    def kill_and_restart(self) -> Server:
        self.current.kill()
        self.current = Server(self.state, env=self.env).start()
        return self.current


@pytest.fixture(scope="module")
def servers(tmp_path_factory, moto, lam):  # type: ignore[no-untyped-def]
    s = Servers(tmp_path_factory.mktemp("kdaserver") / "state", moto, lam)
    yield s
    s.current.stop()


@pytest.fixture
def server(servers):  # type: ignore[no-untyped-def]
    return servers.current


def overjoin_import(path: Path, *args: str) -> tuple[str, str]:
    """`overjoin import` as a user runs it: the script and stderr; the import must be complete."""
    done = subprocess.run([sys.executable, "-m", "overjoin", "import", str(path), *args],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def statements(script: str) -> list[str]:
    """The script's statements: it ends each with ';' and holds none in a comment."""
    out = []
    for chunk in script.split(";"):
        if any(line.strip() and not line.strip().startswith("--") for line in chunk.splitlines()):
            out.append(chunk)
    return out


def run(server: Server, script: str, schema: str) -> None:
    """Runs the script in one session, in a schema of the application's own."""
    conn = server.hive()
    try:
        cur = conn.cursor()
        cur.execute(f'CREATE OR REPLACE SCHEMA "{schema}"')
        cur.execute(f"SET SCHEMA '\"{schema}\"'")
        for s in statements(script):
            cur.execute(s)
    finally:
        conn.close()


def stop_pumps(server: Server, schema: str) -> None:
    server.execute(f'ALTER PUMP "{schema}".* STOP')


def application(path: Path, *args: str) -> Any:
    """The application the importer reads (its input schema makes the records)."""
    from overjoin.importer import Bindings, import_definition

    pairs = [(args[i], args[i + 1].split("=", 1)) for i in range(0, len(args), 2)]
    parameters = {k: v for option, (k, v) in pairs if option == "--parameter"}
    resources = {k: v for option, (k, v) in pairs if option == "--resource"}
    return import_definition(path, Bindings(parameters, resources)).applications[0]


def kinesis_arrivals(moto: Moto, stream: str) -> dict[bytes, list[datetime]]:
    """Each record's bytes -> when Kinesis says it arrived (ROWTIME of a source without one)."""
    out: dict[bytes, list[datetime]] = {}
    for r in moto.records(stream):
        t = r["ApproximateArrivalTimestamp"]
        t = t if isinstance(t, datetime) else datetime.fromtimestamp(t, tz=timezone.utc)
        out.setdefault(bytes(r["Data"]), []).append(t.astimezone(timezone.utc))
    return out


def concatenated_json(blobs: list[bytes]) -> list[dict[str, Any]]:
    decoder = json.JSONDecoder()
    out = []
    for blob in blobs:
        text, i = blob.decode(), 0
        while i < len(text):
            doc, i = decoder.raw_decode(text, i)
            out.append(doc)
    return out


def lambda_records(lam: LambdaStandIn, function: str) -> list[str]:
    return [base64.b64decode(r["data"]).decode() for c in lam.calls_of(function) if not c.failed
            for r in c.event["records"]]  # fmt: skip


# ---- CloudFormation YAML: preprocessor, STEP windows, Firehose and Lambda outputs, error_stream --


def test_cloudformation_yaml_application_with_preprocessor_outputs_and_error_stream(server, moto, lam):
    """clickstream.yaml: short-form intrinsics, parameters, a condition, a mapping, an export of
    another stack (named with --resource), a `!Sub` list SQL block, a Lambda preprocessor, a STEP
    aggregation into a Firehose delivery stream (JSON), a filter into a Lambda function (CSV),
    error_stream into the same function (JSON) and reference data from S3 (tab-separated)."""
    path = DEFINITIONS / "cloudformation" / "clickstream.yaml"
    args = ("--resource", "click-cleaner:FunctionArn=click-cleaner", "--resource", "ArchiveBucket=click-archive")
    script, _ = overjoin_import(path, *args)
    app = application(path, *args)
    moto.create("clicks-staging", shards=2)
    moto.delivery_stream("page-counts-staging", "click-archive", "counts/")
    moto.client("s3").put_object(
        Bucket="click-archive", Key="reference/pages.csv", Body=b"/home\tlanding\n/cart\tshop\n"
    )
    preprocessed: list[dict[str, Any]] = []

    def cleaner(event: dict[str, Any]) -> dict[str, Any]:
        preprocessed.append(event)
        out = []
        for r in event["records"]:
            data = base64.b64decode(r["data"])
            try:
                doc = json.loads(data)
            except ValueError:
                out.append({"recordId": r["recordId"], "result": "Ok", "data": r["data"]})
                continue
            if doc.get("drop"):
                out.append({"recordId": r["recordId"], "result": "Dropped"})
            elif doc.get("fail"):
                out.append({"recordId": r["recordId"], "result": "ProcessingFailed"})
            else:
                out.append({"recordId": r["recordId"], "result": "Ok",
                            "data": base64.b64encode(json.dumps({**doc, "cleaned": True}).encode()).decode()})  # fmt: skip
        return {"records": out}

    def alerts(event: dict[str, Any]) -> dict[str, Any]:
        return {"records": [{"recordId": r["recordId"], "result": "Ok"} for r in event["records"]]}

    lam.functions.update({"click-cleaner": cleaner, "click-alerts-staging": alerts})
    run(server, script, "clicks")
    assert sorted(server.query("SELECT path, section FROM clicks.PAGES")) == [("/cart", "shop"), ("/home", "landing")]

    schema = app.inputs[0].schema
    records = make_records(schema, 40, seed=7, bad=0.1)
    for i in (3, 11):
        records[i] = json.dumps({**json.loads(records[i]), "drop": True}).encode()
    for i in (5, 17):
        records[i] = json.dumps({**json.loads(records[i]), "fail": True}).encode()
    records.append(b"this is not json")
    moto.put("clicks-staging", records, keys=[f"user{i % 7}" for i in range(len(records))])
    # A record two windows later closes the records' windows (a STEP window is emitted once the
    # watermark passes its end).
    time.sleep(4.5)
    moto.put("clicks-staging", [{"user": {"id": "zz-late"}, "page": {"path": "/"}}], key="late")

    # The model: what the preprocessor lets through, decoded, counted per user and window.
    arrivals = kinesis_arrivals(moto, "clicks-staging")
    counts: Counter[tuple[str, datetime]] = Counter()
    errors: Counter[str] = Counter()
    for data in records:
        arrived = arrivals[data].pop(0)
        try:
            doc = json.loads(data)
        except ValueError:
            errors["Parse error"] += 1
            continue
        if doc.get("drop"):
            continue
        if doc.get("fail"):
            errors["Processing failed"] += 1
            continue
        for row in decode(json.dumps({**doc, "cleaned": True}).encode(), schema):
            if row.error:
                errors[row.error] += 1
            else:
                assert row.values is not None
                start = datetime.fromtimestamp(int(arrived.timestamp() * 1000) // 2000 * 2, tz=timezone.utc)
                counts[(row.values["user_id"], start)] += 1
    expected = sorted(((user, n, start.strftime("%Y-%m-%d %H:%M:%S.000")) for (user, start), n in counts.items()),
                      key=str)  # fmt: skip

    def delivered() -> list[tuple[str, int, str]] | None:
        docs = concatenated_json(moto.objects("click-archive", "counts/"))
        got = sorted(((d["user_id"], d["page_views"], d["window_start"]) for d in docs), key=str)
        return got if len(got) >= len(expected) else None

    assert wait_until(delivered, "the page counts in the Firehose delivery stream's objects") == expected
    bursts = sorted(f"{user or ''},{n}\n" for user, n, _ in expected if n > 5)
    error_total = sum(errors.values())

    def alerted() -> tuple[list[str], list[dict[str, Any]]] | None:
        got = lambda_records(lam, "click-alerts-staging")
        csv = sorted(g for g in got if not g.startswith("{"))
        rows = [json.loads(g) for g in got if g.startswith("{")]
        return (csv, rows) if len(csv) >= len(bursts) and len(rows) >= error_total else None

    csv, error_rows = wait_until(alerted, "the bursts and error_stream's rows at the Lambda function")
    assert csv == bursts
    assert Counter(r["ERROR_NAME"] for r in error_rows) == errors
    # KDA's columns; DATA_ROW is the record as it came, in hex.
    assert all(set(r) == {"ERROR_TIME", "ERROR_LEVEL", "ERROR_NAME", "MESSAGE", "DATA_ROWTIME", "DATA_ROW",
                          "PUMP_NAME"} for r in error_rows)  # fmt: skip
    parse = next(r for r in error_rows if r["ERROR_NAME"] == "Parse error")
    assert bytes.fromhex(parse["DATA_ROW"]) == b"this is not json"
    # The preprocessor got KDA's event, every record of the stream once (one pump reads the stream
    # for the counts, another for error_stream: each sends what it reads).
    sent = [r for e in preprocessed for r in e["records"]]
    assert all(set(e) == {"invocationId", "applicationArn", "streamArn", "records"} for e in preprocessed)
    assert all(set(r["kinesisStreamRecordMetadata"]) >= {"shardId", "partitionKey", "sequenceNumber",
                                                         "approximateArrivalTimestamp"} for r in sent)  # fmt: skip
    assert Counter(base64.b64decode(r["data"]) for r in sent) >= Counter(records)
    stop_pumps(server, "clicks")


# ---- CDK-synthesized JSON: CSV records, InputParallelism 2, Kinesis output as CSV ---------------


def test_cdk_template_csv_input_shared_among_two_streams_into_kinesis(server, moto):
    """order_alerts.template.json (what `cdk synth` writes: long forms, Fn::Join SQL, hashed logical
    IDs): tab-separated CSV records, several rows a record, InputParallelism 2 (the shards shared
    between ORDERS_001 and ORDERS_002), a filter of each into one stream sent to Kinesis as CSV."""
    path = DEFINITIONS / "cloudformation" / "order_alerts.template.json"
    script, _ = overjoin_import(path)
    assert "shard_group = '1 of 2'" in script and "shard_group = '2 of 2'" in script
    app = application(path)
    moto.create("orders", shards=2)
    moto.create("large-orders")
    run(server, script, "orders")
    schema = app.inputs[0].schema
    keys = moto.keys_by_shard("orders")
    records = make_records(schema, 60, seed=11)
    moto.put("orders", records, keys=[keys[i % 2] for i in range(len(records))])
    expected = []
    for i, data in enumerate(records):
        for row in decode(data, schema):
            assert row.values is not None
            if row.values["amount"] is not None and row.values["amount"] > 100:
                v = row.values
                expected.append(f"{v['order_id'] if v['order_id'] is not None else ''},{v['customer'] or ''},"
                                f"{v['amount']},{i % 2 + 1}\n")  # fmt: skip

    def written() -> list[str] | None:
        got = [r.decode() for r in moto.read_all("large-orders")]
        return sorted(got) if len(got) >= len(expected) else None

    got = wait_until(written, "the large orders in the output Kinesis stream")
    assert got == sorted(expected)
    stop_pumps(server, "orders")


# ---- API JSON: a Firehose input read from S3, rows of an array, reference data reloaded ---------


def test_api_json_firehose_input_rows_of_an_array_joined_with_reloaded_reference_data(server, moto):
    """room_climate.describe.json (a v2 DescribeApplication response): a Firehose input whose
    delivery stream delivers to S3 (overjoin reads its objects), RecordRowPath $.readings[0:], a
    LEFT JOIN with reference data from S3 (JSON, nested mapping), a Firehose output as CSV; then
    REFRESH REFERENCE TABLE and the rows after it have the new reference rows."""
    path = DEFINITIONS / "api" / "room_climate.describe.json"
    script, stderr = overjoin_import(path)
    assert "Firehose delivery stream 'room-sensors'" in stderr  # the note on how it is read
    app = application(path)
    moto.delivery_stream("room-sensors", "room-raw", "raw/")
    moto.delivery_stream("room-readings", "room-out", "out/")
    s3 = moto.client("s3")
    s3.create_bucket(Bucket="room-reference")
    buildings = {"r1": "North", "r2": "South"}
    s3.put_object(Bucket="room-reference", Key="buildings.json",
                  Body="".join(json.dumps({"room": k, "site": {"name": v}}) for k, v in buildings.items()).encode())  # fmt: skip
    run(server, script, "rooms")
    schema = app.inputs[0].schema
    firehose = moto.client("firehose")

    def send(docs: list[bytes]) -> None:
        firehose.put_record_batch(DeliveryStreamName="room-sensors", Records=[{"Data": d} for d in docs])

    def expected_rows(docs: list[bytes], names: dict[str, str]) -> list[str]:
        out = []
        for d in docs:
            for row in decode(d, schema):
                assert row.values is not None
                v = row.values
                celsius = "" if v["celsius"] is None else repr(float(v["celsius"]))
                out.append(f"{v['room'] or ''},{names.get(v['room'] or '', '')},{celsius},{v['sensor'] or ''}\n")
        return sorted(out)

    def rooms(i: int) -> bytes:
        return json.dumps({"batch": i, "readings": [{"room": f"r{(i + k) % 3 + 1}", "temp": {"c": 20 + k + i / 10},
                                                     "device": f"d{k}"} for k in range(i % 3 + 1)]}).encode()  # fmt: skip

    first = [rooms(i) for i in range(6)]
    send(first)

    def csv_rows() -> list[str]:
        rows: list[str] = []
        for blob in moto.objects("room-out", "out/"):
            rows.extend(line + "\n" for line in blob.decode().split("\n") if line)
        return sorted(rows)

    want = expected_rows(first, buildings)
    assert wait_until(lambda: csv_rows() if len(csv_rows()) >= len(want) else None, "the joined rows") == want
    s3.put_object(Bucket="room-reference", Key="buildings.json",
                  Body=json.dumps({"room": "r3", "site": {"name": "East"}}).encode())  # fmt: skip
    result = server.query('REFRESH REFERENCE TABLE rooms."BUILDINGS"')
    assert result == [("rooms.buildings", 1, 0, None)]
    second = [rooms(i) for i in range(6, 9)]
    send(second)
    want = sorted(want + expected_rows(second, {"r3": "East"}))
    assert wait_until(lambda: csv_rows() if len(csv_rows()) >= len(want) else None, "the rows after the reload") == want
    stop_pumps(server, "rooms")


# ---- Terraform: a folder with tfvars, file(), dynamic columns, a preprocessor, a Lambda output ----


def test_terraform_folder_application_with_preprocessor_into_lambda(server, moto, lam):
    """terraform/orders/: variables and terraform.tfvars, `code = file(...)`, the columns from a
    `dynamic "record_columns"` block over a variable's default, references to the stream, delivery
    stream and functions of the files (their names from their blocks), a Lambda preprocessor, and the
    large orders into a Lambda function as JSON (KDA's output event)."""
    path = DEFINITIONS / "terraform" / "orders"
    script, _ = overjoin_import(path)
    app = application(path)
    moto.create("shop-orders", shards=2)
    moto.delivery_stream("shop-order-totals", "shop-archive", "totals/")

    def normalise(event: dict[str, Any]) -> dict[str, Any]:
        return {"records": [{"recordId": r["recordId"], "result": "Ok", "data": r["data"]} for r in event["records"]]}

    def alert(event: dict[str, Any]) -> dict[str, Any]:
        return {"records": [{"recordId": r["recordId"], "result": "Ok"} for r in event["records"]]}

    lam.functions.update({"shop-normalise-orders": normalise, "shop-big-order-alert": alert})
    run(server, script, "shop")
    schema = app.inputs[0].schema
    records = make_records(schema, 50, seed=23)
    moto.put("shop-orders", records, keys=[f"c{i % 5}" for i in range(len(records))])
    expected = []
    for data in records:
        for row in decode(data, schema):
            assert row.values is not None
            if row.values["amount"] is not None and row.values["amount"] > 1000:
                expected.append((row.values["order_id"], row.values["amount"]))

    def alerts() -> list[tuple[Any, Decimal]] | None:
        got = [json.loads(r) for r in lambda_records(lam, "shop-big-order-alert")]
        return (
            sorted(((g["order_id"], _decimal(g["amount"])) for g in got), key=str)
            if len(got) >= len(expected)
            else None
        )

    assert wait_until(alerts, "the large orders at the Lambda function") == sorted(expected, key=str)
    # Every call is KDA's delivery event.
    calls = lam.calls_of("shop-big-order-alert")
    assert all(set(c.event) == {"invocationId", "applicationArn", "records"} for c in calls)
    assert all(r["lambdaDeliveryRecordMetadata"] == {"retryHint": 0} for c in calls for r in c.event["records"])
    stop_pumps(server, "shop")


def test_lambda_and_firehose_outputs_lose_nothing_across_kill_9(servers, moto, lam):
    """sensor_alerts.yaml (a v2 application, two outputs of one in-application stream): readings are
    sent while the server runs, while it is killed (`kill -9`) and after it is started again on the
    same state directory; every alert (a reading with a positive value) must reach both the Lambda
    function and the Firehose delivery stream, once or more: KDA's outputs were at least once, and so
    are these (docs/server.md, "Outputs"). The module's last test: it replaces the server."""
    delivered: list[int] = []
    lock = threading.Lock()

    def page_on_call(event: dict[str, Any]) -> dict[str, Any]:
        with lock:
            delivered.extend(json.loads(base64.b64decode(r["data"]))["reading_id"] for r in event["records"])
        return {"records": [{"recordId": r["recordId"], "result": "Ok"} for r in event["records"]]}

    lam.functions["page-on-call"] = page_on_call
    moto.create("sensor-readings", shards=2)
    moto.delivery_stream("alert-archive", "alerts", "archive/")
    run(servers.current, overjoin_import(DEFINITIONS / "cloudformation" / "sensor_alerts.yaml")[0], "sensors")
    total, per_batch = 400, 20
    sent = threading.Event()

    def feed() -> None:
        for start in range(0, total, per_batch):
            batch = [{"id": i, "reading": {"value": (i % 5) - 1.5, "sensor": f"s{i % 3}"}}
                     for i in range(start, start + per_batch)]  # fmt: skip
            moto.put("sensor-readings", batch, keys=[f"s{i % 3}" for i in range(start, start + per_batch)])
            time.sleep(0.25)
        sent.set()

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    # Killed once the alerts are flowing, while readings are still being sent.
    wait_until(lambda: len(delivered) > 40, "the first alerts at the Lambda function")
    servers.kill_and_restart()
    feeder.join(120)
    assert sent.is_set()
    expected = {i for i in range(total) if (i % 5) - 1.5 > 0}

    def archived() -> set[int]:
        return {d["reading_id"] for d in concatenated_json(moto.objects("alerts", "archive/"))}

    wait_until(lambda: expected <= set(delivered), "every alert at the Lambda function")
    wait_until(lambda: expected <= archived(), "every alert in the delivery stream")
    with lock:
        assert set(delivered) == expected  # nothing else: at least once, never a wrong row
    assert archived() == expected


def _decimal(v: Any) -> Decimal:
    return Decimal(str(v))
