-- seed 001: valid left outer join
SELECT STREAM * from beast_events e left join animal_data a using (animal_id)
