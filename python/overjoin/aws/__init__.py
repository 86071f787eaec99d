"""AWS services as Spark data sources, for a Kinesis Data Analytics application's inputs and outputs.

One module per service and direction, over one way of reaching AWS (:mod:`overjoin.aws.connection`):

============================  ============================================================
module                        what it does
============================  ============================================================
``kinesis_source``            reads a Kinesis data stream (shard groups, offsets, resharding)
``kinesis_sink``              PutRecords, resending what Kinesis refuses
``firehose_source``           reads what a Firehose delivery stream carries (its Kinesis
                              source, or the objects it delivers to S3)
``firehose_sink``             PutRecordBatch, resending failed records
``lambda_sink``               a Lambda function as an output (KDA's delivery event)
``lambda_preprocessor``       a Lambda function that transforms records before they are read
``s3_reference``              an S3 object, read whole (reference data)
``datasources``               the Spark data sources (``kinesis``, ``firehose``, ``lambda``,
                              ``s3object``) that the server's SQL names
============================  ============================================================

Spark finds each data source through a top-level module named ``pyspark_overjoin_*`` whose
``DefaultSource`` is one of :mod:`overjoin.aws.datasources`' classes. Everything here needs boto3
(``pip install 'overjoin[aws]'``), imported only when a source or sink is used.
"""
