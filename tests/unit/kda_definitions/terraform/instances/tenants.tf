# One application per tenant (for_each), and a legacy one that only exists when it is enabled (count).

variable "tenants" {
  type = map(object({
    shards = number
    format = string
  }))
  default = {
    globex = { shards = 1, format = "CSV" }
    acme   = { shards = 2, format = "JSON" }
  }
}

variable "legacy_enabled" {
  type    = bool
  default = false
}

data "aws_region" "current" {}

data "aws_caller_identity" "me" {}

resource "aws_kinesis_stream" "tenant" {
  for_each    = var.tenants
  name        = "${each.key}-events"
  shard_count = each.value.shards
}

resource "aws_kinesis_analytics_application" "tenant" {
  for_each = var.tenants

  name = "${each.key}-usage"
  code = "CREATE OR REPLACE STREAM \"USAGE\" (tenant VARCHAR(16), events INTEGER);\nCREATE OR REPLACE PUMP \"USAGE_PUMP\" AS INSERT INTO \"USAGE\" SELECT STREAM '${each.key}', COUNT(*) FROM \"EVENTS_001\" GROUP BY STEP(\"EVENTS_001\".ROWTIME BY INTERVAL '1' HOUR);\n"

  inputs {
    name_prefix = "EVENTS"

    kinesis_stream {
      resource_arn = aws_kinesis_stream.tenant[each.key].arn
      role_arn     = "arn:aws:iam::${data.aws_caller_identity.me.account_id}:role/kda"
    }

    parallelism {
      count = each.value.shards
    }

    schema {
      record_columns {
        name     = "kind"
        sql_type = "VARCHAR(16)"
        mapping  = "$.kind"
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
    name = "USAGE"

    kinesis_firehose {
      resource_arn = "arn:aws:firehose:${data.aws_region.current.name}:${data.aws_caller_identity.me.account_id}:deliverystream/${each.key}-usage"
      role_arn     = "arn:aws:iam::${data.aws_caller_identity.me.account_id}:role/kda"
    }

    schema {
      record_format_type = each.value.format
    }
  }
}

resource "aws_kinesis_analytics_application" "legacy" {
  count = var.legacy_enabled ? 1 : 0

  name = "legacy-usage-${count.index}"
  code = "CREATE OR REPLACE STREAM \"LEGACY\" (events INTEGER);\n"
}
