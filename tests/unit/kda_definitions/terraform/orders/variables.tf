variable "prefix" {
  type    = string
  default = "dev"
}

variable "order_columns" {
  description = "The columns of an order record"
  type        = any
  default = [
    { name = "order_id", sql_type = "VARCHAR(36)", mapping = "$.id" },
    { name = "customer", sql_type = "VARCHAR(64)", mapping = "$.customer.name" },
    { name = "amount", sql_type = "DECIMAL(10,2)", mapping = "$.total.amount" },
    { name = "placed_at", sql_type = "TIMESTAMP", mapping = "$.placedAt" },
  ]
}

variable "shards" {
  type    = number
  default = 1
}
