-- seed 000: three-way join
-- options: double_quoted_identifiers
select stream * from bids over (range interval '1' hour preceding) as b1
  join asks over (range interval '2' second preceding)
    on b1."ticker" = asks."ticker"
  join bids over (range interval '3' minute preceding) as b2
    on b2."ticker" = asks."ticker"
