-- found by the fuzzer: the scanner read past the last token of a statement cut inside a window
SELECT STREAM CROSS  * FROM clicks WATERMARK ts DELAY OF
