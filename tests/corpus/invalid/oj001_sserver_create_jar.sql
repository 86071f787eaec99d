-- error: OJ001 2:19
CREATE OR REPLACE JAR "ShopUdx"
    LIBRARY 'file:/opt/shop/shop-udx.jar'
    OPTIONS(0)
