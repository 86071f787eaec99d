-- error: OJ125 3:57
CREATE REFERENCE TABLE "PRODUCTS" (
    "id" INT MAPPING '$.id', "name" VARCHAR(8) MAPPING 'name')
  WITH (bucket = 'ref', key = 'products.json')
