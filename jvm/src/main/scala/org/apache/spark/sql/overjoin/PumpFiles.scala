package org.apache.spark.sql.overjoin

import java.util.Locale

import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.{Job, JobID, TaskAttemptID, TaskID, TaskType}
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl

import org.apache.spark.TaskContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BindReferences, Expression, UnsafeProjection}
import org.apache.spark.sql.catalyst.optimizer.CollapseProject
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, Project}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.classic.{Dataset => ClassicDataset, SparkSession => ClassicSession}
import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.streaming.Sink
import org.apache.spark.sql.types.{StructType, TimestampType}
import org.apache.spark.util.SerializableConfiguration

/**
 * Writes a pump's micro-batch into one Parquet file straight from the batch's own plan.
 *
 * Spark's way to write a micro-batch from `foreachBatch` (`batch.write.parquet(...)`) runs a
 * second query for every batch: the write command is analyzed, optimized and planned, the file
 * commit protocol makes and merges its `_temporary` folders and a `_SUCCESS` file, the session's
 * Hadoop configuration is copied and broadcast again, and the SQL listeners get the plan of one
 * more execution. At an application's rates (a hundred rows a batch) that is a large part of a
 * pump's CPU. Here the pump's projection onto its target's columns is analyzed once, when the
 * pump starts, the Parquet writer is prepared and its configuration broadcast once, and each
 * batch runs one job over the rows the micro-batch's plan gives: one task projects them, writes
 * the file (with Spark's own Parquet writer, so the file is the same) and counts the rows and
 * their latest ROWTIME on the way. A batch without rows writes no file.
 */
object PumpFiles {

  /**
   * What a batch's job wrote: its rows, their latest ROWTIME (microseconds), the file if any, and
   * the attempt of the task that wrote it (earlier attempts may have left files of their own).
   */
  final case class Written(rows: Long, latestMicros: Option[Long], file: Option[String], attempt: Int = 0)

  /**
   * The pump's projection bound to its batches' columns by position, the Parquet writer's
   * factory and its configuration (broadcast once): what a pump's batches are written with.
   */
  final class Prepared private[PumpFiles] (
      val exprs: Seq[Expression],
      val schema: StructType,
      val rowtime: Int,
      val factory: OutputWriterFactory,
      val conf: Broadcast[SerializableConfiguration])

  /**
   * Prepares the writes of batches with columns `input` projected by `project`, or None when the
   * projection is not a plain select list over the batch's columns (its batches are then written
   * the general way).
   */
  def prepare(session: SparkSession, input: StructType, project: DataFrame => DataFrame, rowtimeName: String): Option[Prepared] = {
    val s = session.asInstanceOf[ClassicSession]
    val relation = LocalRelation(DataTypeUtils.toAttributes(input))
    val projected = project(ClassicDataset.ofRows(s, relation)).asInstanceOf[ClassicDataset[Row]]
    CollapseProject(projected.queryExecution.analyzed) match {
      case Project(list, r: LocalRelation) if r.output == relation.output && list.forall(_.deterministic) =>
        val exprs = list.map(e => BindReferences.bindReference(e: Expression, r.output))
        // Spark writes files with every column nullable whatever the plan says; so does this.
        val schema = projected.schema.asNullable
        val job = Job.getInstance(s.sessionState.newHadoopConf())
        val factory = new ParquetFileFormat().prepareWrite(s, job, Map.empty, schema)
        val conf = s.sparkContext.broadcast(new SerializableConfiguration(job.getConfiguration))
        val rowtime = schema.fields.indexWhere(f => f.name.equalsIgnoreCase(rowtimeName) && f.dataType == TimestampType)
        Some(new Prepared(exprs, schema, rowtime, factory, conf))
      case _ => None
    }
  }

  /**
   * Runs one job over `rows` (the micro-batch's, from its own plan) that writes them, projected,
   * into one Parquet file named `staging` plus `-<attempt>.parquet`; returns what it wrote.
   */
  def write(p: Prepared, rows: RDD[InternalRow], staging: String): Written = {
    val exprs = p.exprs
    val schema = p.schema
    val rowtime = p.rowtime
    val factory = p.factory
    val conf = p.conf
    val job = rows.sparkContext.runJob(rows.coalesce(1), (ctx: TaskContext, it: Iterator[InternalRow]) => {
      val projection = UnsafeProjection.create(exprs)
      projection.initialize(ctx.partitionId())
      val file = f"$staging-${ctx.attemptNumber()}%d.parquet"
      var writer: OutputWriter = null
      var n = 0L
      var latest = Long.MinValue
      try {
        while (it.hasNext) {
          val row = projection(it.next())
          if (writer == null) writer = open(factory, conf.value.value, schema, file, ctx)
          writer.write(row)
          n += 1
          if (rowtime >= 0 && !row.isNullAt(rowtime)) latest = math.max(latest, row.getLong(rowtime))
        }
        if (writer != null) { val w = writer; writer = null; w.close() }
      } finally {
        if (writer != null) try writer.close() catch { case _: Exception => () }
      }
      Written(n, if (n > 0 && latest != Long.MinValue) Some(latest) else None, if (n > 0) Some(file) else None,
        ctx.attemptNumber())
    })
    job.headOption.getOrElse(Written(0L, None, None))
  }

  private def open(factory: OutputWriterFactory, conf: org.apache.hadoop.conf.Configuration, schema: StructType,
      file: String, ctx: TaskContext): OutputWriter = {
    // A failed attempt may have left its file; this attempt's name is its own, but a retried
    // stage reuses attempt numbers.
    val path = new Path(file)
    path.getFileSystem(conf).delete(path, false)
    val jobId = new JobID(f"overjoin${ctx.stageId()}%08d".toLowerCase(Locale.ROOT), ctx.stageId())
    val attempt = new TaskAttemptID(new TaskID(jobId, TaskType.MAP, ctx.partitionId()), ctx.attemptNumber())
    factory.newInstance(file, schema, new TaskAttemptContextImpl(conf, attempt))
  }

  /** A streaming sink that hands each micro-batch's own rows (not a new query's) to `addBatch`. */
  final class RowsSink(add: (Long, SparkSession, RDD[InternalRow]) => Unit) extends Sink {
    override def addBatch(batchId: Long, data: DataFrame): Unit = {
      val d = data.asInstanceOf[ClassicDataset[Row]]
      add(batchId, d.sparkSession, d.queryExecution.toRdd)
    }

    override def toString: String = "overjoin pump files: one Parquet file per micro-batch, from its own plan"
  }
}
