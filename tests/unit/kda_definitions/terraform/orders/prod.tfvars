prefix = "prodshop"
