# The v2 API's resource: one SQL application (read) and one Flink application (not a SQL one: left out).

locals {
  env         = "prod"
  stream_name = "payments-${local.env}"
  columns = {
    payment_id = { type = "VARCHAR(40)", path = "$.payment.id" }
    amount     = { type = "DOUBLE", path = "$.payment.amount" }
    currency   = { type = "CHAR(3)", path = "$.payment.currency" }
  }
}

resource "aws_kinesis_stream" "payments" {
  name             = local.stream_name
  shard_count      = 1
  retention_period = 48
}

resource "aws_lambda_function" "decode" {
  function_name = "payments-decode"
  role          = "arn:aws:iam::123456789012:role/lambda"
  handler       = "decode.handler"
  runtime       = "python3.12"
  filename      = "decode.zip"
}

resource "aws_s3_bucket" "rates" {
  bucket = "fx-rates-${local.env}"
}

resource "aws_kinesisanalyticsv2_application" "payments" {
  name                   = "payments-in-eur"
  runtime_environment    = "SQL-1_0"
  service_execution_role = "arn:aws:iam::123456789012:role/kda"

  application_configuration {
    application_code_configuration {
      code_content_type = "PLAINTEXT"
      code_content {
        text_content = <<-SQL
          CREATE OR REPLACE STREAM "IN_EUR" (payment_id VARCHAR(40), eur DOUBLE);
          CREATE OR REPLACE PUMP "EUR_PUMP" AS
            INSERT INTO "IN_EUR"
            SELECT STREAM p.payment_id, p.amount * r.rate
            FROM "PAYMENTS_001" AS p JOIN "RATES" AS r ON p.currency = r.currency;
        SQL
      }
    }

    sql_application_configuration {
      input {
        name_prefix = "PAYMENTS"

        input_parallelism {
          count = 1
        }

        input_processing_configuration {
          input_lambda_processor {
            resource_arn = aws_lambda_function.decode.qualified_arn
          }
        }

        input_schema {
          dynamic "record_column" {
            for_each = local.columns
            iterator = col
            content {
              name     = col.key
              sql_type = col.value.type
              mapping  = col.value.path
            }
          }

          record_encoding = "UTF-8"

          record_format {
            record_format_type = "JSON"

            mapping_parameters {
              json_mapping_parameters {
                record_row_path = "$"
              }
            }
          }
        }

        input_starting_position_configuration {
          input_starting_position = "LAST_STOPPED_POINT"
        }

        kinesis_streams_input {
          resource_arn = aws_kinesis_stream.payments.arn
        }
      }

      output {
        name = "IN_EUR"

        destination_schema {
          record_format_type = "JSON"
        }

        lambda_output {
          resource_arn = "arn:aws:lambda:eu-west-1:123456789012:function:payments-sink:live"
        }
      }

      reference_data_source {
        table_name = "RATES"

        reference_schema {
          record_column {
            name     = "currency"
            sql_type = "CHAR(3)"
            mapping  = "$.ccy"
          }
          record_column {
            name     = "rate"
            sql_type = "DOUBLE"
            mapping  = "$.rate"
          }

          record_format {
            record_format_type = "JSON"

            mapping_parameters {
              json_mapping_parameters {
                record_row_path = "$.rates[0:]"
              }
            }
          }
        }

        s3_reference_data_source {
          bucket_arn = aws_s3_bucket.rates.arn
          file_key   = "rates/latest.json"
        }
      }
    }
  }
}

resource "aws_kinesisanalyticsv2_application" "flink" {
  name                   = "payments-flink"
  runtime_environment    = "FLINK-1_18"
  service_execution_role = "arn:aws:iam::123456789012:role/kda"

  application_configuration {
    application_code_configuration {
      code_content_type = "ZIPFILE"
      code_content {
        s3_content_location {
          bucket_arn = aws_s3_bucket.rates.arn
          file_key   = "flink/app.jar"
        }
      }
    }
  }
}
