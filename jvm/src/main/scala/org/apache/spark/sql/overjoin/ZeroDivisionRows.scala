package org.apache.spark.sql.overjoin

import java.io.{OutputStreamWriter, StringWriter}
import java.nio.charset.StandardCharsets
import java.time.{Instant, ZoneOffset}
import java.time.format.DateTimeFormatter
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.TaskContext
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, Nondeterministic}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.json.{JacksonGenerator, JSONOptions}
import org.apache.spark.sql.execution.streaming.runtime.{MicroBatchExecution, StreamExecution}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{BooleanType, DataType, StructType}

import io.overjoin.streams.StreamLog
import io.overjoin.streams.records.RecordDecoder

/**
 * A pump's rows that divide by zero, as rows of KDA's `error_stream` (docs/server.md,
 * "error_stream"). [[LeaveOutZeroDivisions]] leaves such a row out of the pump's output; in a
 * pump's session (the settings below, which the server gives it) the filter's condition is a
 * [[DivertedRow]], which also keeps the row: each task writes the rows it left out, as error rows
 * in JSON lines, to a file of its own under the error folder's `_staging/` (one folder per schema,
 * shared by its pumps), named after the pump's file prefix, the micro-batch, the pump's query, the
 * guard and the partition. When the micro-batch's rows have been written, and before they are put
 * into the target, the pump's sink puts those files into the error folder and its [[StreamLog]]
 * ([[publish]]), where `error_stream` reads them: one source for every pump of the schema, so a
 * reader's sources do not change as pumps come and go.
 *
 * Exactly once, as the pump's own rows: a batch replayed after a crash holds the same rows and
 * writes the same file names again; a file already in the folder is not put there twice; and the
 * error files go in before the batch's own file, so a replay that finds its own file in place (and
 * runs nothing) finds its error files in place too.
 */
object ZeroDivisionRows extends Logging {
  /** The folder a pump's error rows go to, its schema's (set in the pump's session by the server). */
  val FolderKey = "spark.overjoin.pump.errorRows.folder"
  /** The pump's name, for `PUMP_NAME`. */
  val PumpKey = "spark.overjoin.pump.errorRows.pump"
  /** The pump's file prefix ([[io.overjoin.streams.PumpDefinition.filePrefix]]): the generation's. */
  val PrefixKey = "spark.overjoin.pump.errorRows.prefix"

  /** The error rows' `ERROR_NAME` (KDA's error stream column, VARCHAR(32)). */
  val ErrorName = "Division by zero"

  /** The format of the error files' timestamps, which their reader is given. */
  val TimestampFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"
  private val Stamp = DateTimeFormatter.ofPattern(TimestampFormat).withZone(ZoneOffset.UTC)

  /** Where and as what a guard's rows go: `None` outside a pump's session. */
  final case class Spec(folder: String, prefix: String, pump: String, guard: String, divisors: String,
      row: StructType, timeZone: String)

  def spec(guard: String, divisors: String, row: StructType): Option[Spec] = {
    val conf = SQLConf.get
    for {
      folder <- Option(conf.getConfString(FolderKey, null))
      prefix <- Option(conf.getConfString(PrefixKey, null))
      pump <- Option(conf.getConfString(PumpKey, null))
    } yield Spec(folder, prefix, pump, guard, divisors, row, conf.sessionLocalTimeZone)
  }

  /** A task's error file for one guard, opened at its first row and closed when the task ends. */
  private final class Buffer(val out: java.io.Writer)

  private val buffers = new ConcurrentHashMap[(Long, String), Buffer]()

  private def micros(t: Long): String =
    Stamp.format(Instant.ofEpochSecond(Math.floorDiv(t, 1000000L), Math.floorMod(t, 1000000L) * 1000L))

  private val jsonFactory = new com.fasterxml.jackson.core.JsonFactory()

  private def json(fields: Seq[(String, Any)]): String = {
    val w = new StringWriter()
    val g = jsonFactory.createGenerator(w)
    g.writeStartObject()
    fields.foreach {
      case (k, null) => g.writeNullField(k)
      case (k, v: String) => g.writeStringField(k, v)
      case (k, v) => g.writeStringField(k, v.toString)
    }
    g.writeEndObject()
    g.close()
    w.toString
  }

  /** The row as JSON text (Spark's JSON writer, the session's time zone). */
  private def rowText(spec: Spec, row: InternalRow): String = {
    val w = new StringWriter()
    val gen = new JacksonGenerator(spec.row, w, new JSONOptions(Map.empty[String, String], spec.timeZone, ""))
    gen.write(row)
    gen.flush()
    w.toString
  }

  /**
   * Keeps a row a task left out: a line of the task's error file for the guard, written as it comes
   * (a batch after a long stop may leave out millions), the file closed when the task ends. Outside
   * a streaming query's task, nothing.
   */
  def record(spec: Spec, row: InternalRow, rowtime: Option[Long]): Unit = {
    val task = TaskContext.get()
    if (task == null || task.getLocalProperty(MicroBatchExecution.BATCH_ID_KEY) == null) return
    val key = (task.taskAttemptId(), spec.guard)
    val buffer = buffers.computeIfAbsent(key, _ => {
      val opened = new Buffer(open(spec, task))
      task.addTaskCompletionListener[Unit] { _ => Option(buffers.remove(key)).foreach(_.out.close()) }
      opened
    })
    val now = micros(System.currentTimeMillis() * 1000L)
    val text = rowText(spec, row)
    val at = rowtime.map(micros)
    buffer.out.write(json(Seq(
      "ERROR_TIME" -> now,
      "ERROR_LEVEL" -> "WARNING",
      "ERROR_NAME" -> ErrorName,
      "MESSAGE" -> s"pump ${spec.pump}: division by zero (${spec.divisors} is 0); the row was left out: $text".take(4096),
      "DATA_ROWTIME" -> at.orNull,
      "DATA_ROW" -> RecordDecoder.hex(text),
      "PUMP_NAME" -> spec.pump,
      "ROWTIME" -> at.getOrElse(now))))
    buffer.out.write("\n")
  }

  /**
   * The task's error file for `spec`'s guard under the folder's `_staging/`, named after the pump's
   * prefix, the micro-batch, the query and the partition: a task tried again, or a batch replayed,
   * writes it again whole.
   */
  private def open(spec: Spec, task: TaskContext): java.io.Writer = {
    val batch = task.getLocalProperty(MicroBatchExecution.BATCH_ID_KEY)
    val query = queryTag(task.getLocalProperty(StreamExecution.QUERY_ID_KEY))
    val name = s"${spec.prefix}$batch-$query-${spec.guard}-p${task.partitionId()}.json"
    val path = new Path(new Path(spec.folder, "_staging"), name)
    // No checksum files beside it: the file is renamed into place by the driver, which may not move them.
    val fs = path.getFileSystem(new Configuration()) match {
      case c: org.apache.hadoop.fs.ChecksumFileSystem => c.getRawFileSystem
      case other => other
    }
    new java.io.BufferedWriter(new OutputStreamWriter(fs.create(path, true), StandardCharsets.UTF_8))
  }

  /**
   * The part of an error file's name that tells the pump's checkpoint: its query id's first
   * group. A pump dropped and made again (same name, generation 1) has a new checkpoint, so its
   * files are not taken for the old one's.
   */
  private def queryTag(id: String): String = "q" + Option(id).map(_.takeWhile(_ != '-')).getOrElse("none")

  /**
   * Puts the error files micro-batch `batchId` of a pump wrote (`prefix`: its file prefix) into the
   * error folder, each logged in the folder's [[StreamLog]]; one already there is not put twice (a
   * replayed batch). Called on the micro-batch's thread, whose local properties name the pump's
   * query (`session`'s). Returns the number of files put in place.
   */
  def publish(folder: String, prefix: String, batchId: Long, session: SparkSession, conf: Configuration): Int = {
    val dir = new Path(folder)
    val fs = dir.getFileSystem(conf)
    val query = queryTag(session.sparkContext.getLocalProperty(StreamExecution.QUERY_ID_KEY))
    val pattern = s"$prefix$batchId-$query-*.json"
    val staged = Option(fs.globStatus(new Path(new Path(dir, "_staging"), pattern))).toSeq.flatten
      .map(_.getPath).sortBy(_.getName)
    if (staged.isEmpty) return 0
    val log = StreamLog(folder, conf)
    staged.count { file =>
      val target = new Path(dir, file.getName)
      if (fs.exists(target)) { fs.delete(file, false); false }
      else { log.publish(file, target); true }
    }
  }

  /** Makes an error folder and its log (empty), so that a reader of `error_stream` can start on it. */
  def ensureFolder(folder: String, conf: Configuration): Unit = {
    val dir = new Path(folder)
    dir.getFileSystem(conf).mkdirs(dir)
    StreamLog(folder, conf).position
  }
}

/**
 * The condition of the filter that leaves out a pump's rows that divide by zero: `zero` (whether
 * a divisor of the row is zero), keeping each such row ([[ZeroDivisionRows.record]]) with its
 * `ROWTIME` if it has one. Nondeterministic (it has an effect), so the optimizer neither moves nor
 * copies it.
 */
final case class DivertedRow(zero: Expression, row: Expression, rowtime: Option[Expression], spec: ZeroDivisionRows.Spec)
    extends Expression with Nondeterministic with CodegenFallback {

  override def children: Seq[Expression] = Seq(zero, row) ++ rowtime.toSeq
  override def nullable: Boolean = false
  override def dataType: DataType = BooleanType
  override protected def initializeInternal(partitionIndex: Int): Unit = ()

  override protected def evalInternal(input: InternalRow): Any = {
    val z = zero.eval(input)
    if (z == true) {
      val at = rowtime.flatMap(e => Option(e.eval(input))).map(_.asInstanceOf[Long])
      ZeroDivisionRows.record(spec, row.eval(input).asInstanceOf[InternalRow], at)
      true
    } else false
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): Expression =
    copy(zero = newChildren(0), row = newChildren(1), rowtime = if (rowtime.isDefined) Some(newChildren(2)) else None)

  override def prettyName: String = "overjoin_zero_divisor"
  override def toString: String = s"$prettyName($zero)"
  override def sql: String = s"$prettyName(${zero.sql})"
}
