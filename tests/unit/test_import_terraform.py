"""overjoin import's Terraform reader (overjoin.importer.terraform, with the HCL evaluator in
overjoin.importer.hcl): the definitions under kda_definitions/terraform/ read into the model, value
for value.

The SQL texts, names and columns expected here are the ones ``terraform plan`` (Terraform 1.11.4,
hashicorp/aws 5.100.0) gave for the same definitions, and the expressions' values the ones Terraform
evaluated; among them, how ``<<-`` heredocs and ``~`` strip markers combine
(hashicorp/terraform#23710), which the reader reproduces so that the SQL is the text Terraform sends.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from overjoin.importer.model import Column, Problem, RecordFormat, Resource, Schema
from overjoin.importer.names import Bindings
from overjoin.importer.terraform import read_terraform

DEFINITIONS = Path(__file__).parent / "kda_definitions" / "terraform"
V1 = "aws_kinesis_analytics_application"


def read(name: str, parameters: dict[str, str] | None = None, resources: dict[str, str] | None = None,
         var_files: tuple[Path, ...] = ()):  # fmt: skip
    return read_terraform(DEFINITIONS / name, Bindings(parameters, resources), var_files)


def test_single_file_heredoc_and_variables():
    (app,) = read("single_heredoc/clickstream.tf")
    assert app.name == "click-counter-staging"
    assert app.origin == "clickstream.tf: aws_kinesis_analytics_application.clicks"
    assert app.description == "Counts clicks per page"
    assert app.code == (
        'CREATE OR REPLACE STREAM "CLICK_COUNTS" (page VARCHAR(64), clicks INTEGER);\n'
        'CREATE OR REPLACE PUMP "COUNT_PUMP" AS\n'
        '  INSERT INTO "CLICK_COUNTS"\n'
        "  SELECT STREAM page, COUNT(*)\n"
        '  FROM "CLICKS_001"\n'
        "  GROUP BY page, STEP(\"CLICKS_001\".ROWTIME BY INTERVAL '60' SECOND);\n"
    )  # the heredoc's last newline is kept, as Terraform keeps it
    (source,) = app.inputs
    assert source.name_prefix == "CLICKS"
    assert source.source == Resource(
        "kinesis", "clicks-staging", "aws_kinesis_stream.clicks.arn", "aws_kinesis_stream.clicks"
    )
    assert source.schema == Schema(
        RecordFormat("JSON", row_path="$"),
        (Column("page", "VARCHAR(64)", "$.page"), Column("user_id", "BIGINT", "$.user.id")),
        "UTF-8",
    )
    assert source.parallelism == 1
    assert source.preprocessor is None
    assert source.starting_position == "TRIM_HORIZON"
    (output,) = app.outputs
    assert output.name == "CLICK_COUNTS"
    assert output.record_format == "JSON"
    assert output.destination == Resource(
        "kinesis", "click-counts-staging", "aws_kinesis_stream.click_counts.arn", "aws_kinesis_stream.click_counts"
    )
    assert app.references == []
    assert app.problems == []
    assert app.notes == []


def test_parameter_overrides_a_variable_and_takes_its_type():
    bindings = Bindings({"environment": "prod", "window_seconds": "30"})
    (app,) = read_terraform(DEFINITIONS / "single_heredoc/clickstream.tf", bindings)
    assert app.name == "click-counter-prod"
    assert "INTERVAL '30' SECOND" in app.code
    assert app.inputs[0].source.name == "clicks-prod"
    assert app.outputs[0].destination.name == "click-counts-prod"
    assert bindings.unused() == []


def test_folder_with_tfvars_file_sql_and_dynamic_columns():
    (app,) = read("orders")
    assert app.name == "shop-order-analytics"  # terraform.tfvars's prefix, not the default
    assert app.origin == "app.tf: aws_kinesis_analytics_application.orders"
    # file() gives the file as it is: what looks like an interpolation in it is not one
    assert app.code == (DEFINITIONS / "orders" / "app.sql").read_bytes().decode()
    assert app.code.startswith(
        "-- Totals per customer, every minute (a ${placeholder} in a file is not interpolated).\n"
    )
    (source,) = app.inputs
    assert source.source == Resource(
        "kinesis", "shop-orders", "aws_kinesis_stream.orders.arn", "aws_kinesis_stream.orders"
    )
    assert source.preprocessor == Resource(
        "lambda", "shop-normalise-orders", "aws_lambda_function.normalise.arn", "aws_lambda_function.normalise"
    )
    assert source.schema.format == RecordFormat("JSON", row_path="$")
    assert source.schema.columns == (
        Column("order_id", "VARCHAR(36)", "$.id"),
        Column("customer", "VARCHAR(64)", "$.customer.name"),
        Column("amount", "DECIMAL(10,2)", "$.total.amount"),
        Column("placed_at", "TIMESTAMP", "$.placedAt"),
    )
    assert source.schema.encoding is None
    assert [(o.name, o.record_format, o.destination) for o in app.outputs] == [
        ("TOTALS", "CSV", Resource("firehose", "shop-order-totals", "aws_kinesis_firehose_delivery_stream.totals.arn",
                                   "aws_kinesis_firehose_delivery_stream.totals")),
        ("BIG_ORDERS", "JSON", Resource("lambda", "shop-big-order-alert", "aws_lambda_function.alert.arn",
                                        "aws_lambda_function.alert")),
    ]  # fmt: skip
    assert app.problems == []


def test_var_files_win_over_tfvars_and_parameters_over_both():
    (app,) = read("orders", var_files=(DEFINITIONS / "orders" / "prod.tfvars",))
    assert app.name == "prodshop-order-analytics"
    assert app.inputs[0].source.name == "prodshop-orders"
    (app,) = read("orders", {"prefix": "cli"}, var_files=(DEFINITIONS / "orders" / "prod.tfvars",))
    assert app.name == "cli-order-analytics"
    assert app.outputs[1].destination.name == "cli-big-order-alert"


PARALLEL_CODE = (
    'CREATE OR REPLACE STREAM "NAMESPACE_ACTIVITY" (\n'
    "  namespace VARCHAR(128),\n"
    "  verb      VARCHAR(16),\n"
    "  events    INTEGER);\n"
    + "".join(
        # The first line after "%{ for ... ~}" keeps its indentation: the strip marker took the
        # newline before it, so <<- does not see it start a line (Terraform sends it so).
        f'    CREATE OR REPLACE PUMP "PUMP_{i:03d}" AS\n'
        '  INSERT INTO "NAMESPACE_ACTIVITY"\n'
        "  SELECT STREAM namespace, verb, COUNT(*)\n"
        f'  FROM "AUDIT_{i:03d}"\n'
        f"  GROUP BY namespace, verb, STEP(\"AUDIT_{i:03d}\".ROWTIME BY INTERVAL '10' SECOND);\n"
        for i in (1, 2, 3)
    )
    + "    -- ${not_a_variable} and %{ not_a_directive } stay as they are\n"
)


def test_indented_heredoc_with_a_for_directive_making_one_pump_per_stream():
    (app,) = read("parallel_pumps/audit.tf")
    assert app.code == PARALLEL_CODE
    (source,) = app.inputs
    assert source.parallelism == 3
    assert source.stream_names == ["AUDIT_001", "AUDIT_002", "AUDIT_003"]
    assert source.starting_position == "NOW"
    # a variable holding an ARN: read as an ARN, nothing for --resource to name
    assert source.source == Resource("kinesis", "audit-events", "var.source_stream_arn", None, "eu-west-1")
    assert [c.mapping for c in source.schema.columns] == ["$.objectRef.namespace", "$.verb", "$.requestObject"]
    (output,) = app.outputs
    assert output.name == "NAMESPACE_ACTIVITY"
    assert output.destination == Resource(
        "kinesis",
        "namespace_activity",
        '"arn:aws:kinesis:eu-west-1:123456789012:stream/${lower(local.output_stream)}"',
        None,
        "eu-west-1",
    )
    assert app.problems == []


def test_parallelism_from_a_parameter_changes_the_pumps():
    (app,) = read("parallel_pumps/audit.tf", {"parallelism": "2"})
    assert app.inputs[0].parallelism == 2
    assert app.code.count("CREATE OR REPLACE PUMP") == 2
    assert '"AUDIT_002"' in app.code and "AUDIT_003" not in app.code


TEMPLATED_CODE = """\
CREATE OR REPLACE STREAM "ALARMS" (sensor VARCHAR(32), metric VARCHAR(16), reading DOUBLE);
CREATE OR REPLACE PUMP "HUMIDITY_PUMP" AS
  INSERT INTO "ALARMS"
  SELECT STREAM sensor, metric, reading FROM "READINGS_001"
  WHERE metric = 'humidity' AND reading > 95;
CREATE OR REPLACE PUMP "TEMPERATURE_PUMP" AS
  INSERT INTO "ALARMS"
  SELECT STREAM sensor, metric, reading FROM "READINGS_001"
  WHERE metric = 'temperature' AND reading > 80;
"""


def test_templatefile_with_for_and_if_directives():
    (app,) = read("templated")
    assert app.code == TEMPLATED_CODE + "-- no debug stream\n"  # a map's for goes in key order
    assert app.inputs[0].source == Resource(
        "kinesis", "sensor-readings", "aws_kinesis_stream.readings.arn", "aws_kinesis_stream.readings"
    )  # written "${...}", the 0.11 way: the same reference
    assert app.inputs[0].schema.format == RecordFormat("JSON", row_path="$.readings[0:]")
    (app,) = read("templated", {"with_debug_stream": "true", "thresholds": "{temperature = 70}"})
    assert app.code == (
        'CREATE OR REPLACE STREAM "ALARMS" (sensor VARCHAR(32), metric VARCHAR(16), reading DOUBLE);\n'
        'CREATE OR REPLACE PUMP "TEMPERATURE_PUMP" AS\n'
        '  INSERT INTO "ALARMS"\n'
        '  SELECT STREAM sensor, metric, reading FROM "READINGS_001"\n'
        "  WHERE metric = 'temperature' AND reading > 70;\n"
        'CREATE OR REPLACE STREAM "DEBUG" (sensor VARCHAR(32));\n'
    )


def test_csv_input_reference_data_and_other_references():
    (app,) = read("reference_csv/plant.tf")
    assert app.code == (
        'CREATE OR REPLACE STREAM "HOT_MACHINES" (machine VARCHAR(16), hall VARCHAR(32), temp DOUBLE);\n'
        'CREATE OR REPLACE PUMP "HOT_PUMP" AS INSERT INTO "HOT_MACHINES"\n'
        '  SELECT STREAM r.machine, m.hall, r.temp FROM "RAW_001" AS r\n'
        '  JOIN "MACHINES" AS m ON r.machine = m.machine WHERE r.temp > 90;\n'
    )
    (source,) = app.inputs
    arn = "arn:aws:firehose:eu-central-1:123456789012:deliverystream/raw-readings"
    assert source.source == Resource("firehose", "raw-readings", arn, None, "eu-central-1")
    assert source.schema == Schema(
        RecordFormat("CSV", row_delimiter="\n", column_delimiter="\t"),
        (Column("machine", "VARCHAR(16)"), Column("temp", "DOUBLE")),
    )
    assert [(o.name, o.record_format, o.destination) for o in app.outputs] == [
        ("HOT_MACHINES", "CSV", Resource("kinesis", "plant-alerts", "data.aws_kinesis_stream.shared_alerts.arn",
                                         "data.aws_kinesis_stream.shared_alerts")),
        ("HOT_MACHINES", "JSON", Resource("lambda", "plant-pager-1", "aws_lambda_function.pager[1].arn",
                                          "aws_lambda_function.pager[1]")),
    ]  # fmt: skip
    (ref,) = app.references
    assert ref.table_name == "MACHINES"
    assert ref.bucket == Resource("bucket", "plant-lookup-tables", "aws_s3_bucket.lookup.arn", "aws_s3_bucket.lookup")
    assert ref.file_key == "plant/machines.csv"
    assert ref.schema == Schema(
        RecordFormat("CSV", row_delimiter="\r\n", column_delimiter=";"),
        (Column("machine", "VARCHAR(16)"), Column("hall", "VARCHAR(32)")),  # a CSV column maps by position
    )
    assert app.problems == []


def test_v2_sql_application_and_the_flink_one_left_out():
    (app,) = read("v2_sql/payments.tf")
    assert app.name == "payments-in-eur"
    assert app.origin == "payments.tf: aws_kinesisanalyticsv2_application.payments"
    assert app.code == (
        'CREATE OR REPLACE STREAM "IN_EUR" (payment_id VARCHAR(40), eur DOUBLE);\n'
        'CREATE OR REPLACE PUMP "EUR_PUMP" AS\n'
        '  INSERT INTO "IN_EUR"\n'
        "  SELECT STREAM p.payment_id, p.amount * r.rate\n"
        '  FROM "PAYMENTS_001" AS p JOIN "RATES" AS r ON p.currency = r.currency;\n'
    )
    (source,) = app.inputs
    assert source.name_prefix == "PAYMENTS"
    assert source.source == Resource(
        "kinesis", "payments-prod", "aws_kinesis_stream.payments.arn", "aws_kinesis_stream.payments"
    )
    assert source.preprocessor == Resource(
        "lambda", "payments-decode", "aws_lambda_function.decode.qualified_arn", "aws_lambda_function.decode"
    )
    assert source.starting_position == "LAST_STOPPED_POINT"
    assert source.schema == Schema(
        RecordFormat("JSON", row_path="$"),
        (  # a dynamic block over a map, with an iterator: in key order
            Column("amount", "DOUBLE", "$.payment.amount"),
            Column("currency", "CHAR(3)", "$.payment.currency"),
            Column("payment_id", "VARCHAR(40)", "$.payment.id"),
        ),
        "UTF-8",
    )
    (output,) = app.outputs
    alias = "arn:aws:lambda:eu-west-1:123456789012:function:payments-sink:live"
    assert (output.name, output.record_format) == ("IN_EUR", "JSON")
    assert output.destination == Resource("lambda", alias, alias, None, "eu-west-1")  # an alias: the ARN keeps it
    (ref,) = app.references
    assert (ref.table_name, ref.file_key) == ("RATES", "rates/latest.json")
    assert ref.bucket == Resource("bucket", "fx-rates-prod", "aws_s3_bucket.rates.arn", "aws_s3_bucket.rates")
    assert ref.schema == Schema(
        RecordFormat("JSON", row_path="$.rates[0:]"),
        (Column("currency", "CHAR(3)", "$.ccy"), Column("rate", "DOUBLE", "$.rate")),
    )
    assert app.problems == []


def test_local_module_called_with_arguments():
    bindings = Bindings()
    (app,) = read_terraform(DEFINITIONS / "module_call", bindings)  # the remote module "network" is not read
    assert app.name == "leaderboard"
    assert app.origin == "modules/kda/main.tf: module.leaderboard.aws_kinesis_analytics_application.this"
    assert app.code == (DEFINITIONS / "module_call" / "queries" / "leaderboard.sql").read_text()
    (source,) = app.inputs
    # the caller's aws_kinesis_stream.events.arn, passed in as a variable
    assert source.source == Resource("kinesis", "game-events", "var.source_stream_arn", "aws_kinesis_stream.events")
    assert source.schema.columns == (
        Column("player", "VARCHAR(32)", "$.player"),
        Column("score", "INTEGER", "$.points"),
    )
    (output,) = app.outputs
    assert output.record_format == "JSON"  # the module variable's default
    assert output.destination == Resource(
        "kinesis",
        "leaderboard-results",
        "aws_kinesis_stream.results.arn",
        "module.leaderboard.aws_kinesis_stream.results",
    )
    assert app.problems == []
    assert bindings.unused() == []


def test_module_resource_named_by_its_full_or_its_own_address():
    (app,) = read("module_call", resources={"module.leaderboard.aws_kinesis_stream.results": "top-players"})
    assert app.outputs[0].destination.name == "top-players"
    (app,) = read("module_call", resources={"aws_kinesis_stream.results": "top"})
    assert app.outputs[0].destination == Resource(
        "kinesis", "top", "aws_kinesis_stream.results.arn", "aws_kinesis_stream.results"
    )


UNRESOLVED = "main.tf: aws_kinesis_analytics_application.anomalies"


def test_what_the_files_do_not_say_is_a_problem_naming_what_to_pass():
    (app,) = read("unresolved")
    assert app.name == "anomaly-detector"
    assert app.code.endswith("  WHERE m.reading > ${var.threshold} * d.baseline;\n")  # left as written
    assert app.inputs[0].source == Resource("kinesis", None, "var.metrics_stream_arn")
    assert app.inputs[0].preprocessor == Resource(
        "lambda", None, "aws_lambda_function.unpack.arn", "aws_lambda_function.unpack"
    )  # not in the files
    assert app.outputs[0].destination == Resource("kinesis", None, "module.sink.stream_arn", "module.sink")  # from git
    assert app.references[0].bucket == Resource(
        "bucket", None, "data.aws_s3_bucket.lookup.arn", "data.aws_s3_bucket.lookup"
    )  # its bucket is a variable with no value
    assert app.problems == [
        Problem(f"{UNRESOLVED}: code",
                "var.threshold is not known: the variable threshold has no value (no default, no .tfvars value)",
                "--parameter threshold=<value>"),
        Problem(f"{UNRESOLVED}: inputs.kinesis_stream.resource_arn",
                "cannot tell which Kinesis data stream var.metrics_stream_arn is",
                "--parameter metrics_stream_arn=<value>"),
        Problem(f"{UNRESOLVED}: inputs.processing_configuration.lambda.resource_arn",
                "cannot tell which Lambda function aws_lambda_function.unpack.arn is",
                "name it: --resource aws_lambda_function.unpack=<function name>"),
        Problem(f"{UNRESOLVED}: outputs.kinesis_stream.resource_arn",
                "cannot tell which Kinesis data stream module.sink.stream_arn is",
                "name it: --resource module.sink=<stream name>"),
        Problem(f"{UNRESOLVED}: reference_data_sources.s3.bucket_arn",
                "cannot tell which S3 bucket data.aws_s3_bucket.lookup.arn is",
                "name it: --resource data.aws_s3_bucket.lookup=<bucket name>"),
    ]  # fmt: skip


def test_parameters_and_resources_fix_the_problems_and_unused_ones_are_named():
    bindings = Bindings(
        {"metrics_stream_arn": "arn:aws:kinesis:us-east-2:111122223333:stream/device-metrics", "threshold": "2.5",
         "lookup_bucket": "device-baselines", "retention": "24"},
        {"aws_lambda_function.unpack": "unpack-metrics", "module.sink": "anomalies",
         "aws_kinesis_stream.unused": "nothing"},
    )  # fmt: skip
    (app,) = read_terraform(DEFINITIONS / "unresolved", bindings)
    assert app.problems == []
    assert app.code.endswith("  WHERE m.reading > 2.5 * d.baseline;\n")
    assert app.inputs[0].source == Resource("kinesis", "device-metrics", "var.metrics_stream_arn", None, "us-east-2")
    assert app.inputs[0].preprocessor == Resource(
        "lambda", "unpack-metrics", "aws_lambda_function.unpack.arn", "aws_lambda_function.unpack"
    )
    assert app.outputs[0].destination.name == "anomalies"
    assert app.references[0].bucket.name == "device-baselines"
    assert bindings.unused() == [
        "--parameter retention: no definition read uses it",
        "--resource aws_kinesis_stream.unused: no definition read refers to it",
    ]


def test_a_data_source_named_without_its_data_prefix():
    (app,) = read("unresolved", {"metrics_stream_arn": "metrics", "threshold": "1"},
                  {"aws_s3_bucket.lookup": "baselines", "aws_lambda_function.unpack": "u", "module.sink": "s"})  # fmt: skip
    assert app.references[0].bucket == Resource(
        "bucket", "baselines", "data.aws_s3_bucket.lookup.arn", "data.aws_s3_bucket.lookup"
    )
    assert app.inputs[0].source.name == "metrics"  # a name where an ARN goes
    assert app.problems == []


def test_for_each_and_count_make_one_application_per_instance():
    apps = read("instances/tenants.tf")
    assert [(a.name, a.origin) for a in apps] == [
        ("acme-usage", 'tenants.tf: aws_kinesis_analytics_application.tenant["acme"]'),
        ("globex-usage", 'tenants.tf: aws_kinesis_analytics_application.tenant["globex"]'),
    ]  # for_each in key order; the legacy application's count is 0
    acme, globex = apps
    assert "SELECT STREAM 'acme', COUNT(*)" in acme.code
    assert acme.inputs[0].parallelism == 2 and globex.inputs[0].parallelism == 1
    assert acme.inputs[0].source == Resource(
        "kinesis", "acme-events", "aws_kinesis_stream.tenant[each.key].arn", 'aws_kinesis_stream.tenant["acme"]'
    )
    assert [o.record_format for a in apps for o in a.outputs] == ["JSON", "CSV"]
    assert acme.outputs[0].destination.name == "acme-usage"  # region and account unknown: the name is enough
    assert acme.outputs[0].destination.region is None
    assert all(a.problems == [] for a in apps)
    apps = read("instances/tenants.tf", {"legacy_enabled": "true"})
    assert [a.origin for a in apps][-1] == "tenants.tf: aws_kinesis_analytics_application.legacy[0]"
    assert apps[-1].name == "legacy-usage-0"
    assert apps[-1].code == 'CREATE OR REPLACE STREAM "LEGACY" (events INTEGER);\n'


def test_a_syntax_error_names_the_file_and_line():
    with pytest.raises(ValueError, match=r"broken\.tf: line 6, column 18: unexpected"):
        read("syntax_error/broken.tf")


# --------------------------------------------------------------------------------------------------
# Expressions and templates, each as the code of a one-file application


def code_of(tmp_path: Path, expression: str, before: str = "", parameters: dict[str, str] | None = None):
    (tmp_path / "main.tf").write_text(f'{before}\nresource "{V1}" "a" {{\n  name = "a"\n  code = {expression}\n}}\n')
    (app,) = read_terraform(tmp_path / "main.tf", Bindings(parameters))
    return app


# What Terraform 1.11.4 gave for each expression.
EXPRESSIONS = [
    ('format("%03d", 7)', "007"),
    ('format("%03.0f", 2.6)', "003"),
    ('format("%s-%d-%.2f-%5s|%-5s|", "a", 42, 3.14159, "r", "l")', "a-42-3.14-    r|l    |"),
    (r'format("%q %v %t %x %%", "say \"hi\"", 15, true, 255)', r'"say \"hi\"" 15 true ff %'),
    ('format("%[2]s %[1]s", "a", "b")', "b a"),
    ('jsonencode({b = [1, "x<&>"], a = 1.5, c = null, d = 1e3, e = true})',
     r'{"a":1.5,"b":[1,"x\u003c\u0026\u003e"],"c":null,"d":1000,"e":true}'),
    (r'replace("orders-v1-raw", "/-v(\\d+)-/", "_$1_")', "orders_raw"),  # $1_ is the group "1_": empty
    (r'replace("orders-v1-raw", "/-v(\\d+)-/", "_$${1}_")', "orders_1_raw"),
    ('replace("a.b.c", ".", "/")', "a/b/c"),
    ('substr("kinesis", 2, 3)', "nes"),
    ('substr("kinesis", -3, -1)', "sis"),
    ('upper(trimspace("  in  "))', "IN"),
    ('trimsuffix(trimprefix("arn:stream/clicks.v2", "arn:"), ".v2")', "stream/clicks"),
    ('join(",", concat(["a"], ["b", "c"]), ["d"])', "a,b,c,d"),
    ('lookup({a = "x"}, "b", "fallback")', "fallback"),
    ('element(["a", "b", "c"], 4)', "b"),
    ('coalesce("", null, "third")', "third"),
    ("length(range(1, 10, 3))", "3"),
    ('jsonencode([for s in ["b", "", "a"] : upper(s) if s != ""])', '["B","A"]'),
    ("jsonencode({for k, v in {b = 1, a = 2} : v => k})", '{"1":"b","2":"a"}'),
    ('jsonencode({for s in ["x", "y", "x"] : s => s...})', '{"x":["x","x"],"y":["y"]}'),
    ("jsonencode([{n = 1}, {n = 2}][*].n)", "[1,2]"),
    ("jsonencode(keys({z = 1, a = 2}))", '["a","z"]'),
    ('"${1 + 2 * 3 - 4 / 2} ${7 % 3} ${-7 % 3} ${2 > 1 && !false} ${1 == 1.0} ${"1" == 1}"', "5 1 -1 true true false"),
    ('"${10 / 4} ${0.1 + 0.2} ${1.5e3}"', "2.5 0.3 1500"),
    ('"a$${b}c %%{ d }"', "a${b}c %{ d }"),
    (r'"tab\there\u00e9\\"', "tab\there\u00e9\\"),
    ('tostring(tonumber("12") + 1)', "13"),
    ("jsonencode(merge({a = 1, b = 2}, {b = 3}))", '{"a":1,"b":3}'),
    ("jsonencode(flatten([[1, [2]], 3]))", "[1,2,3]"),
    ('jsonencode(split(",", "a,b,,c"))', '["a","b","","c"]'),
    ('title("hello kinesis world")', "Hello Kinesis World"),
    ('try(local.settings.missing, "fallback")', "fallback"),
    ('jsonencode(can(tonumber("x")))', "false"),
    ('jsonencode(toset(["b", "a", "b"]))', '["a","b"]'),
    ('jsonencode(zipmap(["a", "b"], [1, 2]))', '{"a":1,"b":2}'),
    (r'chomp("line\n\n")', "line"),
    (r'indent(2, "a\nb")', "a\n  b"),
    (r'jsonencode(regex("^(\\w+)-(\\d+)$", "app-42"))', '["app","42"]'),
    ('format("%s", 1.50)', "1.5"),
    ('"%{ for i, s in ["x", "y"] }${i}:${s};%{ endfor }"', "0:x;1:y;"),
    ('"%{ if 1 > 2 }yes%{ else }no%{ endif }"', "no"),
    ('"x-%{ if true ~}  \\n  big %{~ else } small%{ endif }"', "x-big"),
    ('local.settings.name == "n" ? upper(local.settings.name) : "other"', "N"),
    ("local.settings.list[1]", "b"),
    ("local.settings.list.0", "a"),
    ('"${local.settings.count}"', "3"),  # one interpolation alone: the value itself
]  # fmt: skip


@pytest.mark.parametrize(("expression", "value"), EXPRESSIONS, ids=[e for e, _ in EXPRESSIONS])
def test_expression(tmp_path, expression, value):
    app = code_of(tmp_path, expression, 'locals {\n  settings = { name = "n", list = ["a", "b"], count = 3 }\n}')
    assert app.problems == []
    assert app.code == value


# Heredocs as Terraform renders them, strip markers and <<- together included.
HEREDOCS = [
    ("<<EOT\n  a\n%{ for i in [1,2] ~}\n  ${i}\n\n%{ endfor ~}\n\nend\nEOT", "  a\n  1\n\n  2\n\n\nend\n"),
    ("<<-EOT\n    x\n    %{~ if true }\n      y\n    %{~ endif }\n    z\n    EOT", "    x\n\n      y\n\n    z\n"),
    ('<<-EOT\n      ${"x"}\n    y\n    EOT', "  x\ny\n"),
    ("<<-EOT\n    a\n\n      b\n  EOT", "a\n\n  b\n"),
    ("<<EOT\nEOT", ""),
    ('<<-EOT\n    %{ for s in ["x", "y"] }\n    ${s}\n    %{ endfor }\n    EOT', "\nx\n\ny\n\n"),
]


@pytest.mark.parametrize(("heredoc", "value"), HEREDOCS)
def test_heredoc(tmp_path, heredoc, value):
    app = code_of(tmp_path, heredoc)
    assert app.problems == []
    assert app.code == value


def test_unknown_function_is_a_problem(tmp_path):
    app = code_of(tmp_path, 'base64gzip("x")')
    assert app.code == ""
    (problem,) = app.problems
    assert problem.where == f"main.tf: {V1}.a: code"
    assert "overjoin import does not evaluate the function base64gzip()" in problem.what


def test_an_attribute_known_only_after_apply_is_a_problem(tmp_path):
    before = 'resource "aws_iam_role" "r" {\n  name = "r"\n}'
    app = code_of(tmp_path, '"-- role ${aws_iam_role.r.arn}\\n"', before)
    assert app.code == "-- role ${aws_iam_role.r.arn}\n"
    assert app.problems == [
        Problem(f"main.tf: {V1}.a: code",
                "aws_iam_role.r.arn is not known: AWS sets it when Terraform creates the resource",
                "write the value in the files, or give the values it depends on"),
    ]  # fmt: skip


def test_count_that_cannot_be_known_is_a_problem(tmp_path):
    (tmp_path / "main.tf").write_text(
        f'variable "n" {{}}\nresource "{V1}" "a" {{\n  count = var.n\n  name = "a-${{count.index}}"\n  code = "x"\n}}\n'
    )
    (app,) = read_terraform(tmp_path / "main.tf", Bindings())
    assert (app.name, app.origin, app.code) == ("a", f"main.tf: {V1}.a", "")
    assert app.problems == [
        Problem(f"main.tf: {V1}.a: count",
                "cannot tell how many applications it makes (the variable n has no value (no default, no .tfvars value))",
                "--parameter n=<value>"),
    ]  # fmt: skip
    apps = read_terraform(tmp_path / "main.tf", Bindings({"n": "2"}))
    assert [a.name for a in apps] == ["a-0", "a-1"]


def test_v2_code_in_s3_is_a_problem(tmp_path):
    (tmp_path / "main.tf").write_text("""
resource "aws_kinesisanalyticsv2_application" "a" {
  name                = "a"
  runtime_environment = "SQL-1_0"
  application_configuration {
    application_code_configuration {
      code_content_type = "PLAINTEXT"
      code_content {
        s3_content_location {
          bucket_arn = "arn:aws:s3:::code"
          file_key   = "app.sql"
        }
      }
    }
  }
}
""")
    (app,) = read_terraform(tmp_path / "main.tf", Bindings())
    assert app.code == ""
    assert app.problems == [
        Problem("main.tf: aws_kinesisanalyticsv2_application.a: "
                "application_configuration.application_code_configuration.code_content",
                "the SQL is not in the files (an S3 object)",
                "put the SQL in text_content, or import the DescribeApplication JSON"),
    ]  # fmt: skip


def test_tfvars_json_and_auto_tfvars(tmp_path):
    (tmp_path / "main.tf").write_text(
        f'variable "a" {{\n  default = "d"\n}}\nvariable "b" {{}}\nresource "{V1}" "x" {{\n  name = "${{var.a}}-${{var.b}}"\n  code = ""\n}}\n'
    )
    (tmp_path / "terraform.tfvars.json").write_text('{"a": "json", "b": "json"}')
    (tmp_path / "z.auto.tfvars").write_text('b = "auto"\n')
    (app,) = read_terraform(tmp_path, Bindings())
    assert app.name == "json-auto"


def test_one_file_of_a_folder_is_read_alone_with_the_folders_tfvars():
    (app,) = read("orders/app.tf")
    assert app.name == "shop-order-analytics"  # terraform.tfvars is read
    assert app.notes[-1].text == (
        "app.tf is read alone; streams.tf, variables.tf in its folder are not (give the folder to read them all, "
        "as Terraform does)"
    )
    assert app.outputs[1].destination == Resource(
        "lambda", None, "aws_lambda_function.alert.arn", "aws_lambda_function.alert"
    )
    assert (
        Problem(
            "app.tf: aws_kinesis_analytics_application.orders: inputs.schema.record_columns (dynamic).for_each",
            "var.order_columns is not known: the files read declare no variable order_columns",
            "--parameter order_columns=<value>",
        )
        in app.problems
    )


def test_arguments_the_provider_does_not_have_are_noted(tmp_path):
    (tmp_path / "main.tf").write_text(f"""
resource "{V1}" "a" {{
  name = "a"
  code = ""
  inputs {{
    name_prefix    = "IN"
    schema_version = 1
    kinesis_stream {{
      resource_arn = "arn:aws:kinesis:us-east-1:123456789012:stream/in"
      role_arn     = "arn:aws:iam::123456789012:role/kda"
    }}
    schema {{
      record_columns {{
        name     = "a"
        sql_type = "INTEGER"
      }}
      record_format {{
        record_format_type = "JSON"
        mapping_parameters {{
          json {{
            record_row_path = "$"
          }}
        }}
      }}
    }}
  }}
}}
""")
    (app,) = read_terraform(tmp_path / "main.tf", Bindings())
    assert app.problems == []
    assert [n.line() for n in app.notes] == [
        f"main.tf: {V1}.a: inputs.schema_version: inputs has no schema_version (Terraform would reject it): left out"
    ]  # record_format_type, which old configurations have, is accepted
    assert app.inputs[0].source.name == "in"


def test_module_with_for_each_makes_one_application_per_instance(tmp_path):
    (tmp_path / "kda").mkdir()
    (tmp_path / "kda" / "main.tf").write_text(f"""
variable "stream" {{}}
resource "{V1}" "app" {{
  name = "reader-${{var.stream}}"
  code = "-- ${{var.stream}}\\n"
}}
""")
    (tmp_path / "main.tf").write_text("""
module "readers" {
  source   = "./kda"
  for_each = toset(["orders", "clicks"])
  stream   = each.value
}
""")
    apps = read_terraform(tmp_path, Bindings())
    assert [(a.name, a.origin, a.code) for a in apps] == [
        ("reader-clicks", f'kda/main.tf: module.readers["clicks"].{V1}.app', "-- clicks\n"),
        ("reader-orders", f'kda/main.tf: module.readers["orders"].{V1}.app', "-- orders\n"),
    ]
