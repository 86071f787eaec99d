resource "aws_kinesis_analytics_application" "broken" {
  name = "broken"
  code = "CREATE OR REPLACE STREAM \"OUT\" (a INTEGER);"

  inputs {
    name_prefix =
  }
}
