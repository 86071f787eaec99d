-- seed 002: SET
SET defaults.topic.autocreate=true
