-- s-Server: a schema, as its programs start
CREATE OR REPLACE SCHEMA "Test"
