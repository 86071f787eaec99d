-- seed 002: joining more than 2 sources (typos fixed)
WITH customerOrders AS (
 SELECT
    customers.name
   , orders.item
   , orders._key AS order_id
 FROM
    customers INNER JOIN orders
        ON orders.customer_id = customers.id
)
INSERT INTO target
SELECT *
FROM customerOrders INNER JOIN deliveryAddress
    ON customerOrders.order_id = deliveryAddress.order_id
