# Tab-separated readings from a delivery stream, joined with a semicolon-separated lookup table in S3.

resource "aws_s3_bucket" "lookup" {
  bucket = "plant-lookup-tables"
}

data "aws_kinesis_stream" "shared_alerts" {
  name = "plant-alerts"
}

resource "aws_lambda_function" "pager" {
  count         = 2
  function_name = "plant-pager-${count.index}"
  role          = "arn:aws:iam::123456789012:role/lambda"
  handler       = "pager.handle"
  runtime       = "nodejs20.x"
}

resource "aws_kinesis_analytics_application" "plant" {
  name = "plant-monitor"
  code = join("\n", [
    "CREATE OR REPLACE STREAM \"HOT_MACHINES\" (machine VARCHAR(16), hall VARCHAR(32), temp DOUBLE);",
    "CREATE OR REPLACE PUMP \"HOT_PUMP\" AS INSERT INTO \"HOT_MACHINES\"",
    "  SELECT STREAM r.machine, m.hall, r.temp FROM \"RAW_001\" AS r",
    "  JOIN \"MACHINES\" AS m ON r.machine = m.machine WHERE r.temp > 90;",
    "",
  ])

  inputs {
    name_prefix = "RAW"

    kinesis_firehose {
      resource_arn = "arn:aws:firehose:eu-central-1:123456789012:deliverystream/raw-readings"
      role_arn     = "arn:aws:iam::123456789012:role/kda"
    }

    schema {
      record_columns {
        name     = "machine"
        sql_type = "VARCHAR(16)"
      }
      record_columns {
        name     = "temp"
        sql_type = "DOUBLE"
      }

      record_format {
        mapping_parameters {
          csv {
            record_row_delimiter    = "\n"
            record_column_delimiter = "\t"
          }
        }
      }
    }
  }

  outputs {
    name = "HOT_MACHINES"

    kinesis_stream {
      resource_arn = data.aws_kinesis_stream.shared_alerts.arn
      role_arn     = "arn:aws:iam::123456789012:role/kda"
    }

    schema {
      record_format_type = "CSV"
    }
  }

  outputs {
    name = "HOT_MACHINES"

    lambda {
      resource_arn = "${aws_lambda_function.pager[1].arn}"
      role_arn     = "arn:aws:iam::123456789012:role/kda"
    }

    schema {
      record_format_type = "JSON"
    }
  }

  reference_data_sources {
    table_name = "MACHINES"

    s3 {
      bucket_arn = aws_s3_bucket.lookup.arn
      file_key   = "plant/machines.csv"
      role_arn   = "arn:aws:iam::123456789012:role/kda"
    }

    schema {
      record_columns {
        name     = "machine"
        sql_type = "VARCHAR(16)"
        mapping  = "$.ignored_for_csv"
      }
      record_columns {
        name     = "hall"
        sql_type = "VARCHAR(32)"
      }

      record_format {
        mapping_parameters {
          csv {
            record_row_delimiter    = "\r\n"
            record_column_delimiter = ";"
          }
        }
      }
    }
  }
}
