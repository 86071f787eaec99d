"""Lambda functions as the Spark data source ``lambda`` (an output: records delivered with KDA's
event). The code is :mod:`overjoin.aws` (``lambda_sink``, ``datasources``)."""

from overjoin.aws.datasources import LambdaDataSource as DefaultSource

__all__ = ["DefaultSource"]
