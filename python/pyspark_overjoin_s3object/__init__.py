"""An S3 object, read whole, as the Spark data source ``s3object`` (reference data). The code is
:mod:`overjoin.aws` (``s3_reference``, ``datasources``)."""

from overjoin.aws.datasources import S3ObjectDataSource as DefaultSource

__all__ = ["DefaultSource"]
