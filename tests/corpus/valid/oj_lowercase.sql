select stream * from a over (range interval '1' minute preceding) as x left outer join b over (rows between 2 preceding and current row) as y on x.k = y.k
