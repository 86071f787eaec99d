"""overjoin import's CloudFormation and API JSON readers, the script it writes and its command line,
on definitions of our own (kda_definitions/): value for value, without Spark; tests/server/
test_kda_apps.py runs the scripts in the server."""

from __future__ import annotations

import io
import json
from argparse import Namespace
from pathlib import Path

import pytest

from overjoin.cli import _cmd_import
from overjoin.importer import Bindings, import_definition
from overjoin.importer.cloudformation import read_cloudformation
from overjoin.importer.model import Column, Output, RecordFormat, Resource, Schema
from overjoin.importer.script import code_streams, write_script

DEFINITIONS = Path(__file__).parent / "kda_definitions"
CLICKSTREAM = DEFINITIONS / "cloudformation" / "clickstream.yaml"
ORDER_ALERTS = DEFINITIONS / "cloudformation" / "order_alerts.template.json"
SENSOR_ALERTS = DEFINITIONS / "cloudformation" / "sensor_alerts.yaml"
ROOM_CLIMATE = DEFINITIONS / "api" / "room_climate.describe.json"


def test_yaml_short_forms_parameters_conditions_mappings_and_exports():
    bindings = Bindings(resources={"click-cleaner:FunctionArn": "click-cleaner"})
    (app,) = read_cloudformation(CLICKSTREAM, bindings)
    assert app.name == "clickstream-sessions-staging"  # !Sub of a parameter's default
    assert app.origin == "clickstream.yaml: Resources.SessionsApp"
    # The !Sub list form: the mapping's value in the SQL, the rest as written.
    assert 'CREATE OR REPLACE STREAM "PAGE_COUNTS" (' in app.code and "${" not in app.code
    assert app.code.endswith('FROM "PAGE_COUNTS" WHERE "page_views" > 5;\n')
    (inp,) = app.inputs
    assert inp.name_prefix == "CLICKS" and inp.stream_names == ["CLICKS_001"]
    assert inp.source == Resource("kinesis", "clicks-staging", "!GetAtt ClickStream.Arn", "ClickStream")
    # Fn::If on the condition (UseCleaner's default), Fn::ImportValue named by --resource.
    assert inp.preprocessor is not None and inp.preprocessor.name == "click-cleaner"
    assert inp.preprocessor.key == "click-cleaner:FunctionArn"
    assert inp.schema == Schema(
        RecordFormat("JSON", row_path="$"),
        (Column("user_id", "VARCHAR(16)", "$.user.id"), Column("page", "VARCHAR(128)", "$.page.path"),
         Column("EVENT_TIME", "TIMESTAMP", "$.ts")),
        "UTF-8",
    )  # fmt: skip
    assert [(o.name, o.record_format, o.destination.kind, o.destination.name) for o in app.outputs] == [
        ("PAGE_COUNTS", "JSON", "firehose", "page-counts-staging"),  # a !Sub ARN of a resource's Ref
        ("BURSTS", "CSV", "lambda", "click-alerts-staging"),
        ("error_stream", "JSON", "lambda", "click-alerts-staging"),
    ]
    (ref,) = app.references
    assert (ref.table_name, ref.file_key, ref.bucket.name, ref.bucket.key) == (
        "PAGES",
        "reference/pages.csv",
        None,
        "ArchiveBucket",
    )
    assert ref.schema.format == RecordFormat("CSV", row_delimiter="\n", column_delimiter="\t")
    assert bindings.unused() == []


def test_a_parameter_changes_the_names_and_the_condition():
    bindings = Bindings({"Environment": "prod", "UseCleaner": "false"}, {"ArchiveBucket": "archive"})
    (app,) = read_cloudformation(CLICKSTREAM, bindings)
    assert app.name == "clickstream-sessions-prod"
    assert app.inputs[0].source.name == "clicks-prod"
    assert app.inputs[0].preprocessor is None  # Fn::If's other branch: AWS::NoValue
    assert app.references[0].bucket.name == "archive"


def test_json_template_as_cdk_synthesizes_it():
    (app,) = read_cloudformation(ORDER_ALERTS, Bindings())
    assert app.name.endswith("-order-alerts") and app.name.startswith("${AWS.StackName}")
    assert app.code.splitlines()[1] == 'CREATE OR REPLACE STREAM "LARGE_ORDERS" ('  # Fn::Join of the lines
    (inp,) = app.inputs
    assert (inp.parallelism, inp.stream_names) == (2, ["ORDERS_001", "ORDERS_002"])
    assert inp.source == Resource("kinesis", "orders", "!GetAtt OrdersStream3F9E2A10.Arn", "OrdersStream3F9E2A10")
    assert inp.schema.format == RecordFormat("CSV", row_delimiter="\n", column_delimiter="\t")
    assert app.outputs == [
        Output("LARGE_ORDERS", Resource("kinesis", "large-orders", "!GetAtt LargeOrdersStream77B1C0D2.Arn",
                                        "LargeOrdersStream77B1C0D2"), "CSV")
    ]  # fmt: skip
    (stack,) = read_cloudformation(ORDER_ALERTS, Bindings({"AWS::StackName": "prod"}))
    assert stack.name == "prod-order-alerts"


def test_v2_application_with_v2_outputs_and_sub_arns():
    (app,) = read_cloudformation(SENSOR_ALERTS, Bindings())
    assert (app.name, len(app.inputs), len(app.outputs)) == ("sensor-alerts", 1, 2)
    assert app.inputs[0].source.name == "sensor-readings"
    assert app.inputs[0].source.region is None  # ${AWS::Region}: not a region
    assert [o.destination.name for o in app.outputs] == ["page-on-call", "alert-archive"]


def test_names_that_cannot_be_known_are_problems_naming_what_to_pass():
    result = import_definition(CLICKSTREAM, Bindings())
    assert not result.complete
    lines = result.messages()
    assert any("cannot tell which Lambda function !ImportValue !Sub '${CleanerStack}:FunctionArn' is: "
               "name it: --resource click-cleaner:FunctionArn=<name>" in line for line in lines)  # fmt: skip
    assert any(
        "S3 bucket !GetAtt ArchiveBucket.Arn" in line and "--resource ArchiveBucket=<name>" in line for line in lines
    )
    # The statements that need them are in the script, as comments.
    assert '-- CREATE OR REPLACE STREAM "CLICKS_001" (' in result.script
    assert "-- NOT MAPPED: Lambda function" in result.script


def test_the_script_holds_each_part_in_order_and_splits_at_its_semicolons():
    bindings = Bindings(resources={"click-cleaner:FunctionArn": "click-cleaner", "ArchiveBucket": "click-archive"})
    result = import_definition(CLICKSTREAM, bindings)
    assert result.complete and result.problems == []
    s = result.script
    order = [s.index(x) for x in ('CREATE OR REPLACE STREAM "CLICKS_001"', 'CREATE OR REPLACE REFERENCE TABLE "PAGES"',
                                  'CREATE OR REPLACE STREAM "PAGE_COUNTS"', '"PAGE_COUNTS__FIREHOSE"',
                                  '"BURSTS__LAMBDA"', '"error_stream__LAMBDA"')]  # fmt: skip
    assert order == sorted(order)
    assert "shard_group" not in s  # one in-application stream
    assert "preprocessor = 'click-cleaner'" in s
    assert "record_column_delimiter = '\\t'" in s and "record_row_delimiter = '\\n'" in s
    for line in s.splitlines():
        if line.startswith("--"):
            assert ";" not in line
    # The code is in the script exactly as it was written.
    assert result.applications[0].code.rstrip("\n") in s


def test_api_json_describe_v2():
    result = import_definition(ROOM_CLIMATE, Bindings())
    (app,) = result.applications
    assert app.name == "room-climate" and "LEFT JOIN" in app.code
    (inp,) = app.inputs
    assert inp.source == Resource("firehose", "room-sensors",
                                  "arn:aws:firehose:us-east-1:111122223333:deliverystream/room-sensors",
                                  "arn:aws:firehose:us-east-1:111122223333:deliverystream/room-sensors", "us-east-1")  # fmt: skip
    assert inp.schema.format.row_path == "$.readings[0:]"
    assert inp.starting_position == "NOW"
    assert app.references[0].bucket.name == "room-reference"
    assert "starting_position = 'LATEST'" in result.script
    assert (
        result.complete and len(result.notes) == 1 and "Firehose delivery stream 'room-sensors'" in result.notes[0].text
    )


def test_api_json_create_requests_and_a_later_reference_data_source(tmp_path: Path):
    """v1's CreateApplication cannot hold reference data: a list of the calls, merged by name."""
    create = {
        "ApplicationName": "ticker-alerts",
        "ApplicationCode": 'CREATE OR REPLACE STREAM "OUT" ("t" VARCHAR(8));\n',
        "Inputs": [{"NamePrefix": "TICKS", "KinesisStreamsInput": {
                        "ResourceARN": "arn:aws:kinesis:eu-west-1:1:stream/ticks", "RoleARN": "arn:aws:iam::1:role/r"},
                    "InputSchema": {"RecordFormat": {"RecordFormatType": "JSON",
                                                     "MappingParameters": {"JSONMappingParameters": {"RecordRowPath": "$"}}},
                                    "RecordColumns": [{"Name": "t", "SqlType": "VARCHAR(8)", "Mapping": "$.ticker"}]}}],
        "Outputs": [{"Name": "OUT", "LambdaOutput": {"ResourceARN": "arn:aws:lambda:eu-west-1:1:function:notify:live",
                                                    "RoleARN": "arn:aws:iam::1:role/r"},
                     "DestinationSchema": {"RecordFormatType": "JSON"}}],
    }  # fmt: skip
    add_reference = {
        "ApplicationName": "ticker-alerts",
        "CurrentApplicationVersionId": 1,
        "ReferenceDataSource": {"TableName": "NAMES", "S3ReferenceDataSource": {
            "BucketARN": "arn:aws:s3:::refs", "FileKey": "names.csv", "ReferenceRoleARN": "arn:aws:iam::1:role/r"},
            "ReferenceSchema": {"RecordFormat": {"RecordFormatType": "CSV", "MappingParameters": {
                "CSVMappingParameters": {"RecordRowDelimiter": "\n", "RecordColumnDelimiter": ";"}}},
                "RecordColumns": [{"Name": "t", "SqlType": "VARCHAR(8)"}, {"Name": "n", "SqlType": "VARCHAR(64)"}]}},
    }  # fmt: skip
    path = tmp_path / "calls.json"
    path.write_text(json.dumps([create, add_reference]))
    result = import_definition(path, Bindings())
    (app,) = result.applications
    assert app.inputs[0].source == Resource("kinesis", "ticks", "arn:aws:kinesis:eu-west-1:1:stream/ticks",
                                            "arn:aws:kinesis:eu-west-1:1:stream/ticks", "eu-west-1")  # fmt: skip
    # A function ARN with an alias keeps it.
    assert app.outputs[0].destination.name == "arn:aws:lambda:eu-west-1:1:function:notify:live"
    assert app.references[0].schema.format == RecordFormat("CSV", row_delimiter="\n", column_delimiter=";")
    assert "region = 'eu-west-1'" in result.script and result.complete


def test_outputs_need_their_in_application_stream_in_the_code(tmp_path: Path):
    template = {
        "Resources": {
            "App": {"Type": "AWS::KinesisAnalytics::Application", "Properties": {
                "ApplicationName": "a", "ApplicationCode": "CREATE STREAM \"X\" (\"a\" INT);",
                "Inputs": [{"NamePrefix": "IN", "KinesisStreamsInput": {"ResourceARN": "arn:aws:kinesis:us-east-1:1:stream/s"},
                            "InputSchema": {"RecordFormat": {"RecordFormatType": "JSON"},
                                            "RecordColumns": [{"Name": "a", "SqlType": "INTEGER", "Mapping": "$.a"}]}}]}},
            "Out": {"Type": "AWS::KinesisAnalytics::ApplicationOutput", "Properties": {
                "ApplicationName": {"Ref": "App"},
                "Output": {"Name": "MISSING", "DestinationSchema": {"RecordFormatType": "JSON"},
                           "KinesisStreamsOutput": {"ResourceARN": "arn:aws:kinesis:us-east-1:1:stream/o"}}}},
        }
    }  # fmt: skip
    path = tmp_path / "t.json"
    path.write_text(json.dumps(template))
    result = import_definition(path, Bindings())
    assert not result.complete
    assert "the in-application stream 'MISSING', which the application code does not create" in result.messages()[0]


def test_code_streams_finds_the_streams_the_code_creates():
    code = (
        '-- CREATE STREAM "NOT" (a INT);\n'
        'CREATE OR REPLACE STREAM "Out" ("a" INT, "b" VARCHAR(4));\n'
        "create stream plain (x DECIMAL(5,2));\n"
        "SELECT 'CREATE STREAM \"S\" (a INT)' FROM t;\n"
    )
    assert code_streams(code) == {"Out": '"a" INT, "b" VARCHAR(4)', "PLAIN": "x DECIMAL(5,2)"}


def test_several_applications_go_into_schemas_of_their_own():
    (a,) = read_cloudformation(SENSOR_ALERTS, Bindings())
    (b,) = read_cloudformation(ORDER_ALERTS, Bindings({"AWS::StackName": "s"}))
    script = write_script([a, b], "two")
    assert 'CREATE OR REPLACE SCHEMA "sensor_alerts";\nSET SCHEMA \'"sensor_alerts"\';' in script
    assert script.index("SET SCHEMA '\"s_order_alerts\"'") > script.index('"ALERTS__FIREHOSE"')


def _import(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    from overjoin.cli import build_parser

    args = build_parser().parse_args(["import", *argv])
    code = _cmd_import(args, out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_exit_status_and_stderr(tmp_path: Path):
    code, out, err = _import([str(SENSOR_ALERTS), "--resource", "Unused=x", "--parameter", "Nothing=1"])
    assert code == 0 and out.startswith("-- Kinesis Data Analytics application imported from sensor_alerts.yaml")
    assert "warning: --resource Unused: no definition read refers to it" in err
    assert "warning: --parameter Nothing: no definition read uses it" in err
    code, out, err = _import([str(CLICKSTREAM)])
    assert code == 1 and "the script is not complete: 2 part(s)" in err and out
    target = tmp_path / "app.sql"
    code, out, err = _import([str(SENSOR_ALERTS), "-o", str(target)])
    assert code == 0 and out == "" and target.read_text().startswith("-- Kinesis")
    code, _, err = _import([str(tmp_path / "nope.yaml")])
    assert code == 2 and "no such file or folder" in err
    (tmp_path / "other.json").write_text('{"a": 1}')
    code, _, err = _import([str(tmp_path / "other.json")])
    assert code == 2 and "neither a CloudFormation template" in err
    code, _, err = _import([str(SENSOR_ALERTS), "--resource", "novalue"])
    assert code == 2 and "write --resource NAME=VALUE" in err


def test_a_namespace_of_arguments_works_as_argparse_makes_it():
    args = Namespace(path=SENSOR_ALERTS, parameter=[], resource=[], var_file=[], output=None)
    out, err = io.StringIO(), io.StringIO()
    assert _cmd_import(args, out, err) == 0


@pytest.mark.parametrize("path", [CLICKSTREAM, ORDER_ALERTS, SENSOR_ALERTS, ROOM_CLIMATE])
def test_every_script_passes_overjoin_check(path: Path):
    from overjoin import validate

    bindings = Bindings(resources={"click-cleaner:FunctionArn": "c", "ArchiveBucket": "b"})
    script = import_definition(path, bindings).script
    assert [d for d in validate(script) if d.severity == "error"] == []
