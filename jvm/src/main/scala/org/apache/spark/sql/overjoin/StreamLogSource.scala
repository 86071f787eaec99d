package org.apache.spark.sql.overjoin

import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.{DataFrame, SQLContext}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.classic.{Dataset => ClassicDataset, SparkSession => ClassicSession}
import org.apache.spark.sql.execution.datasources.{DataSource, LogicalRelation}
import org.apache.spark.sql.execution.streaming.{Offset, Source}
import org.apache.spark.sql.execution.streaming.runtime.{SerializedOffset, StreamingRelation}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.{DataSourceRegister, StreamSourceProvider}
import org.apache.spark.sql.types.StructType
import org.json4s.{DefaultFormats, Formats}
import org.json4s.jackson.JsonMethods

import io.overjoin.streams.{StreamLog, Streams}

/**
 * How the server's pumps read a durable stream: from its [[StreamLog]], the files in the order
 * they became visible, instead of Spark's file source, which lists the whole folder at every
 * trigger (about 18 µs a file here: a second and a half per trigger for a stream a day old at one
 * file a second, bench/RESULTS.md "A stream's folder as it fills"). Finding new files costs one
 * look at the log's identity file and reading the new entries; nothing is written per batch (the
 * offset is the entry number, so the batch's files follow from the log).
 *
 * A pump whose checkpoint was written by Spark's file source (before this reader, or with
 * `spark.overjoin.server.streamLogs=false`) keeps reading with it: its offsets are that source's.
 */
final class StreamLogSource(session: ClassicSession, location: String, format: String, override val schema: StructType,
    options: Map[String, String]) extends Source with Logging {

  private val streamLog = StreamLog(location, session.sessionState.newHadoopConf())

  override def getOffset: Option[Offset] = streamLog.position match {
    case (_, 0L) => None
    case (id, n) => Some(StreamLogOffset(id, n))
  }

  override def getBatch(start: Option[Offset], end: Offset): DataFrame = {
    val to = StreamLogOffset(end)
    val (id, _) = streamLog.position
    if (to.log != id) throw new IllegalStateException(s"stream folder $location: this batch was planned on its log " +
      s"${to.log}, which is gone (the stream was dropped, replaced or reset since): start the pump over " +
      "(CREATE OR REPLACE PUMP) to read the stream as it is now")
    val from = start.map(StreamLogOffset(_)).filter(_.log == to.log).map(_.entry).getOrElse(0L)
    val files = streamLog.files(from, to.entry).map(n => new Path(new Path(location), n).toString)
    logDebug(s"stream folder $location: entries ${from + 1} to ${to.entry}, ${files.size} file(s)")
    val plan: LogicalPlan =
      if (files.isEmpty) LocalRelation(DataTypeUtils.toAttributes(schema), Nil, isStreaming = true)
      else {
        val source = DataSource(session, className = format, paths = files, userSpecifiedSchema = Some(schema),
          options = options)
        LogicalRelation(source.resolveRelation(checkFilesExist = false, readOnly = true), isStreaming = true)
      }
    ClassicDataset.ofRows(session, plan)
  }

  override def stop(): Unit = ()

  override def toString: String = s"overjoin stream log[$location]"
}

/** Where a reader of a durable stream is: entry `entry` of the log `log` (its identity). */
final case class StreamLogOffset(log: String, entry: Long) extends Offset {
  override def json(): String = JsonMethods.compact(JsonMethods.render(
    org.json4s.JObject("streamLog" -> org.json4s.JString(log), "entry" -> org.json4s.JLong(entry))))
}

object StreamLogOffset {
  private implicit val formats: Formats = DefaultFormats

  def apply(o: org.apache.spark.sql.connector.read.streaming.Offset): StreamLogOffset = o match {
    case s: StreamLogOffset => s
    case s: SerializedOffset => parse(s.json)
    case other => parse(other.json())
  }

  private def parse(json: String): StreamLogOffset = {
    val v = JsonMethods.parse(json)
    ((v \ "streamLog").extractOpt[String], (v \ "entry").extractOpt[Long]) match {
      case (Some(l), Some(e)) => StreamLogOffset(l, e)
      case _ => throw new IllegalArgumentException(s"not an offset of a durable stream's log: $json")
    }
  }
}

/**
 * The provider Spark creates a [[StreamLogSource]] with, given a durable stream's relation by
 * [[ReadDurableStreamsFromLogs]]. It keeps Spark's file source for a checkpoint that source began.
 */
class StreamLogProvider extends StreamSourceProvider with DataSourceRegister with Logging {
  import StreamLogProvider._

  override def shortName(): String = "overjoin-stream-log"

  override def sourceSchema(sqlContext: SQLContext, schema: Option[StructType], providerName: String,
      parameters: Map[String, String]): (String, StructType) =
    (shortName(), schema.getOrElse(throw new IllegalArgumentException("a durable stream's log is read with its table's schema")))

  override def createSource(sqlContext: SQLContext, metadataPath: String, schema: Option[StructType],
      providerName: String, parameters: Map[String, String]): Source = {
    val session = sqlContext.sparkSession.asInstanceOf[ClassicSession]
    val format = parameters.getOrElse(FormatOption, "parquet")
    val options = parameters - FormatOption
    val location = options.find(_._1.equalsIgnoreCase("path")).map(_._2)
      .getOrElse(throw new IllegalArgumentException("a durable stream's relation has no path"))
    if (startedByFileSource(session, metadataPath)) {
      logInfo(s"stream folder $location: read by Spark's file source, as this checkpoint began")
      DataSource(session, className = format, userSpecifiedSchema = schema, options = options).createSource(metadataPath)
    } else new StreamLogSource(session, location, format, schema.get, options - "path")
  }
}

object StreamLogProvider extends Logging {
  /** The stream's own format (its table's provider), passed through the relation's options. */
  val FormatOption = "overjoin.streamLog.format"

  /** Spark's file source keeps a log of the files of each batch in its metadata folder; this reader keeps none. */
  private def startedByFileSource(session: ClassicSession, metadataPath: String): Boolean = {
    val p = new Path(metadataPath)
    val fs = p.getFileSystem(session.sessionState.newHadoopConf())
    fs.exists(p) && Option(fs.listStatus(p)).toSeq.flatten.exists(s => !s.getPath.getName.startsWith("."))
  }
}

/**
 * In the server's pump sessions (`spark.overjoin.streamLogs.read`, set by the server), a durable
 * stream read as a stream is read from its log ([[StreamLogSource]]); elsewhere, and for every
 * other relation, Spark's own source.
 */
object ReadDurableStreamsFromLogs extends Rule[LogicalPlan] {
  /** A session setting the server's pump sessions get; off everywhere else. */
  val Key = "spark.overjoin.streamLogs.read"

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!SQLConf.get.getConfString(Key, "false").equalsIgnoreCase("true")) return plan
    plan.transformUp {
      case r: StreamingRelation if r.dataSource.className != classOf[StreamLogProvider].getName &&
          r.dataSource.catalogTable.exists(Streams.isDurable) =>
        val ds = r.dataSource
        r.copy(dataSource = ds.copy(className = classOf[StreamLogProvider].getName,
          options = ds.options + (StreamLogProvider.FormatOption -> ds.className)))
    }
  }
}
