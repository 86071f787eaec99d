resource "aws_kinesis_stream" "events" {
  name        = "game-events"
  shard_count = 4
}

module "leaderboard" {
  source = "./modules/kda"

  app_name          = "leaderboard"
  sql               = file("${path.module}/queries/leaderboard.sql")
  source_stream_arn = aws_kinesis_stream.events.arn
  columns = [
    ["player", "VARCHAR(32)", "$.player"],
    ["score", "INTEGER", "$.points"],
  ]
}

module "network" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "5.8.1"
  name    = "games"
}
