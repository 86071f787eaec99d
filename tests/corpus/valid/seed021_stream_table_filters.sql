-- seed 001: equi-join with extra filters
SELECT STREAM * from beast_events e join animal_data a   on (e.animal_id = a.animal_id and a.edible and not a.poisonous)
