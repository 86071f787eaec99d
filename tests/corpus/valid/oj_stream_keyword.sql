SELECT * FROM STREAM clicks AS c JOIN STREAM(impressions) AS i ON c.ad = i.ad
