-- found by the fuzzer: a WATERMARK clause cut short after OF once made the JVM scanner read past the last token
SELECT STREAM * FROM clicks WATERMARK ts DELAY OF
