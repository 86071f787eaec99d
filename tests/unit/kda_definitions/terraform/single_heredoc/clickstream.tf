# One file: the SQL is a heredoc in the application, with the window taken from a variable.

variable "environment" {
  type    = string
  default = "staging"
}

variable "window_seconds" {
  type    = number
  default = 60
}

resource "aws_kinesis_stream" "clicks" {
  name        = "clicks-${var.environment}"
  shard_count = 1
}

resource "aws_kinesis_stream" "click_counts" {
  name        = "click-counts-${var.environment}"
  shard_count = 1
}

resource "aws_kinesis_analytics_application" "clicks" {
  name        = "click-counter-${var.environment}"
  description = "Counts clicks per page"

  code = <<EOF
CREATE OR REPLACE STREAM "CLICK_COUNTS" (page VARCHAR(64), clicks INTEGER);
CREATE OR REPLACE PUMP "COUNT_PUMP" AS
  INSERT INTO "CLICK_COUNTS"
  SELECT STREAM page, COUNT(*)
  FROM "CLICKS_001"
  GROUP BY page, STEP("CLICKS_001".ROWTIME BY INTERVAL '${var.window_seconds}' SECOND);
EOF

  inputs {
    name_prefix = "CLICKS"

    kinesis_stream {
      resource_arn = aws_kinesis_stream.clicks.arn
      role_arn     = aws_iam_role.reader.arn
    }

    schema {
      record_columns {
        name     = "page"
        sql_type = "VARCHAR(64)"
        mapping  = "$.page"
      }

      record_columns {
        name     = "user_id"
        sql_type = "BIGINT"
        mapping  = "$.user.id"
      }

      record_encoding = "UTF-8"

      record_format {
        mapping_parameters {
          json {
            record_row_path = "$"
          }
        }
      }
    }

    starting_position_configuration {
      starting_position = "TRIM_HORIZON"
    }
  }

  outputs {
    name = "CLICK_COUNTS"

    kinesis_stream {
      resource_arn = aws_kinesis_stream.click_counts.arn
      role_arn     = aws_iam_role.writer.arn
    }

    schema {
      record_format_type = "JSON"
    }
  }
}
