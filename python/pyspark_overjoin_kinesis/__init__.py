"""Kinesis data streams as the Spark data source ``kinesis`` (read as a stream, written): Spark
registers a top-level module named ``pyspark_*`` whose ``DefaultSource`` is a data source. The code
is :mod:`overjoin.aws` (``kinesis_source``, ``kinesis_sink``, ``datasources``)."""

from overjoin.aws.datasources import KinesisDataSource as DefaultSource

__all__ = ["DefaultSource"]
