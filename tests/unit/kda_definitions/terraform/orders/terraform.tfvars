prefix = "shop"
shards = 2
