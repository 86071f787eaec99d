variable "thresholds" {
  type = map(number)
  default = {
    temperature = 80
    humidity    = 95
  }
}

variable "with_debug_stream" {
  type    = bool
  default = false
}

resource "aws_kinesis_stream" "readings" {
  name        = "sensor-readings"
  shard_count = 1
}

resource "aws_kinesis_analytics_application" "alarms" {
  name = "sensor-alarms"
  code = templatefile("${path.module}/sql/alarms.sql.tftpl", {
    source     = "READINGS_001"
    thresholds = var.thresholds
    debug      = var.with_debug_stream
  })

  inputs {
    name_prefix = "READINGS"

    kinesis_stream {
      resource_arn = "${aws_kinesis_stream.readings.arn}"
      role_arn     = "arn:aws:iam::123456789012:role/kda"
    }

    schema {
      record_columns {
        name     = "sensor"
        sql_type = "VARCHAR(32)"
        mapping  = "$.sensor"
      }
      record_columns {
        name     = "metric"
        sql_type = "VARCHAR(16)"
        mapping  = "$.metric"
      }
      record_columns {
        name     = "reading"
        sql_type = "DOUBLE"
        mapping  = "$.value"
      }

      record_format {
        mapping_parameters {
          json {
            record_row_path = "$.readings[0:]"
          }
        }
      }
    }
  }
}
