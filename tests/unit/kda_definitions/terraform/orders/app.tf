locals {
  app_name = "${var.prefix}-order-analytics"
}

resource "aws_kinesis_analytics_application" "orders" {
  name = local.app_name
  code = file("${path.module}/app.sql")

  inputs {
    name_prefix = "ORDERS"

    kinesis_stream {
      resource_arn = aws_kinesis_stream.orders.arn
      role_arn     = aws_iam_role.kda.arn
    }

    processing_configuration {
      lambda {
        resource_arn = aws_lambda_function.normalise.arn
        role_arn     = aws_iam_role.kda.arn
      }
    }

    schema {
      dynamic "record_columns" {
        for_each = var.order_columns
        content {
          name     = record_columns.value.name
          sql_type = record_columns.value["sql_type"]
          mapping  = lookup(record_columns.value, "mapping", null)
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
    name = "TOTALS"

    kinesis_firehose {
      resource_arn = aws_kinesis_firehose_delivery_stream.totals.arn
      role_arn     = aws_iam_role.kda.arn
    }

    schema {
      record_format_type = "CSV"
    }
  }

  outputs {
    name = "BIG_ORDERS"

    lambda {
      resource_arn = aws_lambda_function.alert.arn
      role_arn     = aws_iam_role.kda.arn
    }

    schema {
      record_format_type = "JSON"
    }
  }
}
