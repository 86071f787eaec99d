# What the files do not say: a stream made by another stack, a bucket named at plan time, a sink
# module from a git repository, a preprocessor defined elsewhere, and a threshold with no default.

variable "metrics_stream_arn" {
  type        = string
  description = "The ARN of the stream the metrics arrive on (another stack makes it)"
}

variable "lookup_bucket" {
  type = string
}

variable "threshold" {
  type = number
}

module "sink" {
  source = "git::https://git.example.com/platform/kinesis-sink.git?ref=v2.1.0"
  name   = "anomalies"
}

data "aws_s3_bucket" "lookup" {
  bucket = var.lookup_bucket
}

resource "aws_kinesis_analytics_application" "anomalies" {
  name = "anomaly-detector"
  code = <<EOF
CREATE OR REPLACE STREAM "ANOMALIES" (device VARCHAR(16), reading DOUBLE);
CREATE OR REPLACE PUMP "ANOMALY_PUMP" AS
  INSERT INTO "ANOMALIES"
  SELECT STREAM m.device, m.reading FROM "METRICS_001" AS m
  JOIN "DEVICES" AS d ON m.device = d.device
  WHERE m.reading > ${var.threshold} * d.baseline;
EOF

  inputs {
    name_prefix = "METRICS"

    kinesis_stream {
      resource_arn = var.metrics_stream_arn
      role_arn     = "arn:aws:iam::123456789012:role/kda"
    }

    processing_configuration {
      lambda {
        resource_arn = aws_lambda_function.unpack.arn
        role_arn     = "arn:aws:iam::123456789012:role/kda"
      }
    }

    schema {
      record_columns {
        name     = "device"
        sql_type = "VARCHAR(16)"
        mapping  = "$.device"
      }
      record_columns {
        name     = "reading"
        sql_type = "DOUBLE"
        mapping  = "$.reading"
      }

      record_format {
        mapping_parameters {
          json {
            record_row_path = "$"
          }
        }
      }
    }
  }

  outputs {
    name = "ANOMALIES"

    kinesis_stream {
      resource_arn = module.sink.stream_arn
      role_arn     = "arn:aws:iam::123456789012:role/kda"
    }

    schema {
      record_format_type = "JSON"
    }
  }

  reference_data_sources {
    table_name = "DEVICES"

    s3 {
      bucket_arn = data.aws_s3_bucket.lookup.arn
      file_key   = "devices/baselines.json"
      role_arn   = "arn:aws:iam::123456789012:role/kda"
    }

    schema {
      record_columns {
        name     = "device"
        sql_type = "VARCHAR(16)"
        mapping  = "$.id"
      }
      record_columns {
        name     = "baseline"
        sql_type = "DOUBLE"
        mapping  = "$.baseline"
      }

      record_format {
        mapping_parameters {
          json {
            record_row_path = "$"
          }
        }
      }
    }
  }
}
