"""Firehose delivery streams as the Spark data source ``firehose`` (written; read from what they
carry). The code is :mod:`overjoin.aws` (``firehose_source``, ``firehose_sink``, ``datasources``)."""

from overjoin.aws.datasources import FirehoseDataSource as DefaultSource

__all__ = ["DefaultSource"]
