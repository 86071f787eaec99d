variable "app_name" {
  type = string
}

variable "sql" {
  type = string
}

variable "source_stream_arn" {
  type = string
}

variable "columns" {
  type = list(list(string))
}

variable "output_format" {
  type    = string
  default = "JSON"
}
