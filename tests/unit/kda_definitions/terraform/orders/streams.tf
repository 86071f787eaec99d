resource "aws_kinesis_stream" "orders" {
  name        = "${var.prefix}-orders"
  shard_count = var.shards
}

resource "aws_kinesis_firehose_delivery_stream" "totals" {
  name        = "${var.prefix}-order-totals"
  destination = "extended_s3"

  extended_s3_configuration {
    role_arn   = aws_iam_role.firehose.arn
    bucket_arn = aws_s3_bucket.archive.arn
  }
}

resource "aws_lambda_function" "normalise" {
  function_name = "${var.prefix}-normalise-orders"
  runtime       = "python3.12"
  handler       = "normalise.handler"
  role          = aws_iam_role.lambda.arn
  filename      = "normalise.zip"
}

resource "aws_lambda_function" "alert" {
  function_name = "${var.prefix}-big-order-alert"
  runtime       = "python3.12"
  handler       = "alert.handler"
  role          = aws_iam_role.lambda.arn
  filename      = "alert.zip"
}
