-- seed 001: stream-table join
SELECT STREAM * from beast_events e join animal_data a using (animal_id)
