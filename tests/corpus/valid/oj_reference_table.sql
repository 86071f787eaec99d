-- KDA's reference data: an S3 object loaded as a table with its reference schema.
CREATE OR REPLACE REFERENCE TABLE "COMPANIES" (
    "ticker" VARCHAR(8) MAPPING '$.symbol',
    "name"   VARCHAR(64) MAPPING '$.company.name')
  WITH (bucket = 'reference-data', key = 'companies.json', record_format = 'json')
