resource "aws_kinesis_stream" "results" {
  name        = "${var.app_name}-results"
  shard_count = 1
}

resource "aws_kinesis_analytics_application" "this" {
  name = var.app_name
  code = var.sql

  inputs {
    name_prefix = "EVENTS"

    kinesis_stream {
      resource_arn = var.source_stream_arn
      role_arn     = "arn:aws:iam::123456789012:role/kda"
    }

    schema {
      dynamic "record_columns" {
        for_each = var.columns
        content {
          name     = record_columns.value[0]
          sql_type = record_columns.value[1]
          mapping  = element(record_columns.value, 2)
        }
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
    name = "TOP_PLAYERS"

    kinesis_stream {
      resource_arn = aws_kinesis_stream.results.arn
      role_arn     = "arn:aws:iam::123456789012:role/kda"
    }

    schema {
      record_format_type = var.output_format
    }
  }
}

output "results_stream_arn" {
  value = aws_kinesis_stream.results.arn
}
