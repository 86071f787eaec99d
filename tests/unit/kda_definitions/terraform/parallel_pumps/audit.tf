# The input is read into var.parallelism in-application streams; the SQL has one pump per stream,
# written by a template directive in an indented heredoc.

variable "parallelism" {
  type    = number
  default = 3
}

variable "source_stream_arn" {
  type    = string
  default = "arn:aws:kinesis:eu-west-1:123456789012:stream/audit-events"
}

locals {
  output_stream = "NAMESPACE_ACTIVITY"
}

resource "aws_kinesis_analytics_application" "audit" {
  name              = "audit-activity"
  start_application = true

  code = <<-EOT
    CREATE OR REPLACE STREAM "${local.output_stream}" (
      namespace VARCHAR(128),
      verb      VARCHAR(16),
      events    INTEGER);
    %{ for i in range(1, var.parallelism + 1) ~}
    CREATE OR REPLACE PUMP "PUMP_${format("%03d", i)}" AS
      INSERT INTO "${local.output_stream}"
      SELECT STREAM namespace, verb, COUNT(*)
      FROM "AUDIT_${format("%03.0f", i)}"
      GROUP BY namespace, verb, STEP("AUDIT_${format("%03d", i)}".ROWTIME BY INTERVAL '10' SECOND);
    %{ endfor ~}
    -- $${not_a_variable} and %%{ not_a_directive } stay as they are
  EOT

  inputs {
    name_prefix = "AUDIT"

    kinesis_stream {
      resource_arn = var.source_stream_arn
      role_arn     = "arn:aws:iam::123456789012:role/kda-audit"
    }

    parallelism {
      count = var.parallelism
    }

    schema {
      record_columns {
        name     = "namespace"
        sql_type = "VARCHAR(128)"
        mapping  = "$.objectRef.namespace"
      }
      record_columns {
        name     = "verb"
        sql_type = "VARCHAR(16)"
        mapping  = "$.verb"
      }
      record_columns {
        name     = "request"
        sql_type = "VARCHAR(1000)"
        mapping  = "$.requestObject"
      }

      record_format {
        mapping_parameters {
          json {
            record_row_path = "$"
          }
        }
      }
    }

    starting_position_configuration {
      starting_position = "NOW"
    }
  }

  outputs {
    name = local.output_stream

    kinesis_stream {
      resource_arn = "arn:aws:kinesis:eu-west-1:123456789012:stream/${lower(local.output_stream)}"
      role_arn     = "arn:aws:iam::123456789012:role/kda-audit"
    }

    schema {
      record_format_type = "JSON"
    }
  }
}
