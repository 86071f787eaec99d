-- seed 001: theta join (rejected by s-Server, accepted by overjoin: docs/semantics.md §5 does not require an equi-join)
SELECT STREAM * from beast_events e left join animal_data a on (e.animal_id > a.animal_id)
