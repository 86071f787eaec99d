package io.overjoin.streams

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

import org.apache.spark.internal.Logging
import org.apache.spark.sql.{Column, DataFrame, Observation, Row, SparkSession}
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.expressions.{Alias, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.overjoin.Columns
import org.apache.spark.sql.execution.streaming.runtime.StreamingRelation
import org.apache.spark.sql.functions._
import org.apache.spark.sql.streaming.StreamingQueryListener
import org.apache.spark.sql.streaming.StreamingQueryListener.{QueryIdleEvent, QueryProgressEvent, QueryStartedEvent, QueryTerminatedEvent}
import org.apache.spark.sql.types.{MetadataBuilder, StringType, StructField, StructType, TimestampType}

import io.overjoin.streams.records.{DecodeRecords, RecordSchema}

/**
 * Streams over any Spark streaming source (docs/server.md, "Streams over Kinesis and other
 * sources"): `CREATE STREAM s (cols) WITH (format = 'kinesis' | 'kafka' | 'rate' | ..., options)`.
 *
 * Such a stream is a catalog table (an empty managed json table, so that Spark resolves its name
 * as it resolves any stream's) whose properties keep the source's format and options. Where a
 * statement reads it as a stream, [[AddSourceStreamColumns]] replaces the table's streaming
 * relation by the source's own (`spark.readStream.format(f).options(o).load()`) under a projection
 * onto the declared columns:
 * {{{
 *   Project [r.c1 AS c1, ..., coalesce(r.ROWTIME, arrival) AS ROWTIME]   marked with the table's name
 *   +- Filter NOT bad
 *      +- CollectMetrics overjoin_bad_records...  [count of bad records, one of them]
 *         +- Project [from_json(CAST(value AS STRING), <columns>) AS r, arrival, bad]
 *            +- StreamingRelationV2 kinesis [value, partition_key, ..., approximate_arrival_timestamp]
 * }}}
 * With `value_format` ('json' or 'csv'; the Kinesis source's `record_format`, 'json' by default)
 * the source's `value` column is decoded into the declared columns; a record that does not decode is
 * left out, counted per pump ([[BadRecords]]: DESCRIBE PUMP, the server log), never a failed pump.
 * Without it the declared columns are the source's columns of those names. The records' arrival
 * (KDA's APPROXIMATE_ARRIVAL_TIME) is the source's `approximate_arrival_timestamp` or `timestamp`
 * column (Kinesis, Kafka, rate), else the micro-batch's time.
 *
 * A pump may write such a stream when its source can be written ([[ExternalSink]]): each row as a
 * record of the declared columns in `value_format`, keyed by the column `partition_key` names.
 */
object ExternalStreams {
  val FormatProperty = "overjoin.source.format"
  val OptionPrefix = "overjoin.source.option."
  val ValueFormatProperty = "overjoin.source.value_format"
  val PartitionKeyProperty = "overjoin.source.partition_key"
  /**
   * A folder stream reads only the files whose whole name matches this Java regular expression
   * (an s-Server foreign stream's `FILENAME_PATTERN`).
   */
  val FilePatternProperty = "overjoin.source.file_pattern"
  val FileFormats: Set[String] = Set("json", "csv", "parquet", "orc")
  /** The options overjoin reads itself; every other option goes to the source. */
  val OwnOptions: Set[String] = Set("format", "rowtime", "lateness", "partition_key") ++ RecordOptions.Names
  /** Sources whose records are decoded by default (as JSON), as KDA's inputs and outputs are. */
  val RecordSources: Set[String] = Set("kinesis", "firehose", "lambda")
  private val MarkerKey = "overjoin.external"
  /** The column a Python source (Kinesis, Firehose) gives a record its Lambda preprocessor could not process. */
  val ProcessingError = "processing_error"
  private val ArrivalColumns = Seq("approximate_arrival_timestamp", "timestamp")
  private val counter = new AtomicLong()
  private val tables = new ConcurrentHashMap[String, CatalogTable]()

  def isExternal(t: CatalogTable): Boolean = t.properties.contains(FormatProperty)
  def format(t: CatalogTable): String = t.properties(FormatProperty)
  def options(t: CatalogTable): Map[String, String] =
    t.properties.collect { case (k, v) if k.startsWith(OptionPrefix) => k.stripPrefix(OptionPrefix) -> v }
  def valueFormat(t: CatalogTable): Option[String] = t.properties.get(ValueFormatProperty)
  def partitionKey(t: CatalogTable): Option[String] = t.properties.get(PartitionKeyProperty)

  /** The table a streaming relation of Spark reads, when it is an external stream's. */
  def tableOf(p: LogicalPlan): Option[CatalogTable] = p match {
    case r: StreamingRelation => r.dataSource.catalogTable.filter(isExternal)
    case _ => None
  }

  /**
   * The table a plain read (a table, not a stream) of Spark reads, when it is an external stream
   * over files (read with an input schema): replayed, decoded as the stream would be.
   */
  def batchTableOf(p: LogicalPlan): Option[CatalogTable] = p match {
    case r: org.apache.spark.sql.execution.datasources.LogicalRelation if !r.isStreaming =>
      r.catalogTable.filter(t => isExternal(t) && readsFiles(t))
    case _ => None
  }

  /** An external stream over a folder of files (each file a record). */
  def readsFiles(t: CatalogTable): Boolean = format(t) == "text"

  /** The table of a projection made by [[read]]. */
  def readBy(p: LogicalPlan): Option[CatalogTable] = p match {
    case Project(list, _) => list.collectFirst {
      case a: Alias if a.explicitMetadata.exists(_.contains(MarkerKey)) => a.explicitMetadata.get.getString(MarkerKey)
    }.flatMap(k => Option(tables.get(k)))
    case _ => None
  }

  /** The source's rows of a stream as its declared columns (see the object's documentation). */
  def read(session: SparkSession, t: CatalogTable, arrival: Boolean, batch: Boolean = false): LogicalPlan = {
    val name = Streams.qualified(t.identifier)
    tables.put(name, t)
    val plan = decoded(name, load(session, t, batch), t, arrival)
    plan.asInstanceOf[org.apache.spark.sql.classic.Dataset[Row]].queryExecution.analyzed
  }

  private def decoded(name: String, raw: DataFrame, t: CatalogTable, withArrival: Boolean): DataFrame = {
    val marker = new MetadataBuilder().putString(MarkerKey, name).build()
    val schema = Streams.writeSchema(t)
    val rawNames = raw.schema.fieldNames
    val rawRowtime = t.properties.get(Streams.ImplicitRowtimeProperty)
    val decodedNames = valueFormat(t).map(v => RecordOptions.schemaOf(t, v).columns.map(_.name.toLowerCase).toSet)
      .getOrElse(Set.empty[String])
    def field(f: StructField): Column = {
      val c = valueFormat(t) match {
        case Some(_) if decodedNames(f.name.toLowerCase) => col("_r").getField(f.name)
        case Some(_) => lit(null).cast(f.dataType)
        case None if rawNames.exists(_.equalsIgnoreCase(f.name)) => col(s"`${f.name}`").cast(f.dataType)
        case None => lit(null).cast(f.dataType)
      }
      if (rawRowtime.exists(_.equalsIgnoreCase(f.name)) && f.name.equalsIgnoreCase(Streams.Rowtime)) {
        coalesce(c, col("_arrival")).as(Streams.Rowtime, marker)
      } else c.as(f.name, marker)
    }
    val extraRowtime = rawRowtime.filterNot(_.equalsIgnoreCase(Streams.Rowtime)).map { r =>
      coalesce(field(schema.find(_.name.equalsIgnoreCase(r)).get), col("_arrival")).as(Streams.Rowtime, marker)
    }.toSeq
    val arrivalOut =
      if (withArrival && t.properties.contains(Streams.ArrivalProperty)) Seq(col("_arrival").as(Streams.ArrivalTime, marker))
      else Nil
    val select = schema.fields.toSeq.map(field) ++ extraRowtime ++ arrivalOut
    valueFormat(t) match {
      case None => raw.select(arrivalOf(raw, t).as("_arrival") +: rawNames.toSeq.map(n => col(s"`$n`")): _*).select(select: _*)
      case Some(_) =>
        val metric = s"${BadRecords.MetricPrefix}:$name:${counter.incrementAndGet()}"
        val bad = col(s"_r.${RecordSchema.ErrorName}").isNotNull
        rows(raw, t)
          .observe(metric,
            sum(when(bad, 1L).otherwise(0L)).as("bad"),
            max(when(bad, concat(col(s"_r.${RecordSchema.ErrorName}"), lit(": "),
              substring(col(s"_r.${RecordSchema.ErrorMessage}"), 1, 300)))).as("sample"))
          .where(not(bad))
          .select(select: _*)
    }
  }

  /**
   * The decoded rows of a stream's records, one per row a record holds (error rows included):
   * `_r` (the row's struct, [[records.DecodeRecords]]) and `_arrival`.
   */
  def decodedRows(raw: DataFrame, t: CatalogTable): DataFrame = rows(raw, t)

  private def rows(raw: DataFrame, t: CatalogTable): DataFrame = {
    val schema = RecordOptions.schemaOf(t, valueFormat(t).get)
    val failure = raw.schema.find(_.name.equalsIgnoreCase(ProcessingError)).map(f => col(s"`${f.name}`"))
      .getOrElse(lit(null).cast(StringType))
    val decode = Columns.of(DecodeRecords(Columns.expressionOf(col("value")), Columns.expressionOf(failure), schema))
    raw.select(explode(decode).as("_r"), arrivalOf(raw, t).as("_arrival"))
  }

  /**
   * When a stream's records arrived (KDA's APPROXIMATE_ARRIVAL_TIME): the source's
   * `approximate_arrival_timestamp` or `timestamp` column (Kinesis, Kafka, rate), a file's
   * modification time (files read with an input schema), else the micro-batch's time.
   */
  private def arrivalOf(raw: DataFrame, t: CatalogTable): Column =
    ArrivalColumns.find(c => raw.schema.find(_.name.equalsIgnoreCase(c)).exists(_.dataType == TimestampType))
      .map(c => col(s"`$c`"))
      .getOrElse(if (t.properties.get(FormatProperty).contains("text")) col("_metadata.file_modification_time")
        else current_timestamp())

  /**
   * KDA's `error_stream` rows of a stream's records (docs/server.md, "error_stream"): every row that
   * did not read, and every record a Lambda preprocessor could not process, as `ERROR_TIME` (when
   * the micro-batch read it), `ERROR_LEVEL`, `ERROR_NAME`, `MESSAGE`, `DATA_ROWTIME` (the record's
   * arrival), `DATA_ROW` (hex of its UTF-8 text), `PUMP_NAME` (NULL: no pump made it), and `ROWTIME`
   * (the record's arrival, so that error rows keep the order of the records).
   */
  def errorRows(session: SparkSession, t: CatalogTable, batch: Boolean): DataFrame = {
    val raw = load(session, t, batch)
    val e = (n: String) => col(s"_r.$n")
    rows(raw, t).where(e(RecordSchema.ErrorName).isNotNull).select(
      current_timestamp().as("ERROR_TIME"),
      lit("WARNING").as("ERROR_LEVEL"),
      e(RecordSchema.ErrorName).as("ERROR_NAME"),
      concat(lit(s"stream ${Streams.qualified(t.identifier)}: "), e(RecordSchema.ErrorMessage)).as("MESSAGE"),
      col("_arrival").as("DATA_ROWTIME"),
      e(RecordSchema.DataRow).as("DATA_ROW"),
      lit(null).cast(StringType).as("PUMP_NAME"),
      col("_arrival").as(Streams.Rowtime))
  }

  /** The source's rows of `t`, as a stream or (files only) as a table. */
  private def load(session: SparkSession, t: CatalogTable, batch: Boolean): DataFrame = {
    val name = Streams.qualified(t.identifier)
    try {
      val raw =
        if (batch) session.read.format(format(t)).options(options(t)).load()
        else session.readStream.format(format(t)).options(options(t)).load()
      t.properties.get(FilePatternProperty).map(p => raw.where(col("_metadata.file_name").rlike(s"^(?:$p)$$"))).getOrElse(raw)
    } catch {
      case e: Exception => throw new IllegalArgumentException(
        s"stream $name: its source (format '${format(t)}') cannot be read: ${firstLine(e)}", e)
    }
  }

  /** The `CREATE TABLE` of `CREATE STREAM name (columns) WITH (format = '<not a file format>', ...)`. */
  def createTable(session: SparkSession, name: String, columns: String, implicitColumns: String,
      opts: Map[String, String], implicitProps: Seq[(String, String)], comment: String,
      mappings: Seq[(String, String)] = Nil): String = {
    val format = opts("format").toLowerCase
    val lower = opts.map { case (k, v) => k.toLowerCase -> v }
    if (lower.contains("value_format") && lower.contains(RecordOptions.Format)) throw new IllegalArgumentException(
      s"stream $name: give value_format or record_format (the same option), not both")
    val valueFormat = lower.get("value_format").orElse(lower.get(RecordOptions.Format)).map(_.toLowerCase)
      .orElse(if (RecordSources(format) || mappings.nonEmpty) Some("json") else None)
    val sourceOptions = opts.filter { case (k, _) => !OwnOptions(k.toLowerCase) }
    val declared = session.sessionState.sqlParser.parseTableSchema(columns)
    lower.get("partition_key").foreach { k =>
      if (!declared.exists(_.name.equalsIgnoreCase(k))) throw new IllegalArgumentException(
        s"stream $name: partition_key = '$k' names no column (it has ${declared.fieldNames.mkString(", ")})")
    }
    mappings.foreach { case (c, _) =>
      if (!declared.exists(_.name.equalsIgnoreCase(c))) throw new IllegalArgumentException(s"stream $name: MAPPING of $c: no such column")
    }
    check(session, name, format, sourceOptions, valueFormat, declared)
    val declaredRowtime =
      if (implicitProps.exists(_._1 == Streams.ImplicitRowtimeProperty)) Streams.Rowtime
      else lower.getOrElse("rowtime", Streams.Rowtime)
    val props = Seq(Streams.KindProperty -> "external", Streams.RowtimeProperty -> declaredRowtime,
      FormatProperty -> format) ++
      sourceOptions.map { case (k, v) => (OptionPrefix + k) -> v } ++
      valueFormat.map(ValueFormatProperty -> _) ++
      RecordOptions.properties(opts, mappings) ++
      lower.get("partition_key").map(PartitionKeyProperty -> _) ++
      lower.get("lateness").map(Streams.LatenessProperty -> _) ++ implicitProps
    def lit(s: String) = Streams.literal(s)
    // An empty managed table: Spark resolves the name as any stream's; the source replaces it.
    s"CREATE TABLE $name ($columns$implicitColumns) USING json$comment " +
      s"TBLPROPERTIES (${props.map { case (k, v) => s"${lit(k)} = ${lit(v)}" }.mkString(", ")})"
  }

  /**
   * Checks a new external stream's options: the format is a source Spark can load, `value_format`
   * is json or csv, the declared columns are the source's when there is no value_format; for
   * Kinesis, that the stream exists and the endpoint answers.
   */
  def check(session: SparkSession, name: String, format: String, sourceOptions: Map[String, String],
      valueFormat: Option[String], declared: StructType): Unit = {
    valueFormat.foreach { v =>
      if (v != "json" && v != "csv") throw new IllegalArgumentException(
        s"stream $name: value_format must be 'json' or 'csv', not '$v'")
    }
    val extra = if (RecordSources(format)) Map("validate" -> "true") else Map.empty[String, String]
    val raw = try {
      if (format == "lambda") session.read.format(format).options(sourceOptions ++ extra).load()
      else session.readStream.format(format).options(sourceOptions ++ extra).load()
    } catch {
      case e: Exception =>
        val m = firstLine(e)
        val hint =
          if (m.contains("DATA_SOURCE_NOT_FOUND") || m.contains("Failed to find the data source")) {
            s"format '$format' is not a source Spark can load (json, csv, parquet, orc for files; kinesis, firehose, " +
              "lambda; or a connector given to `overjoin server --jars/--packages`, such as kafka)"
          } else s"format '$format' with these options cannot be read: $m"
        throw new IllegalArgumentException(s"stream $name: $hint", e)
    }
    val rawSchema = raw.schema
    valueFormat match {
      case Some(_) =>
        if (!rawSchema.exists(_.name.equalsIgnoreCase("value"))) throw new IllegalArgumentException(
          s"stream $name: value_format decodes the source's value column, and format '$format' has none " +
            s"(it has ${rawSchema.fieldNames.mkString(", ")}): drop value_format to take its columns by name")
      case None =>
        val missing = declared.fieldNames.filterNot(n => rawSchema.exists(_.name.equalsIgnoreCase(n)))
        if (missing.nonEmpty) throw new IllegalArgumentException(
          s"stream $name: format '$format' has no column ${missing.mkString(", ")} (it has " +
            s"${rawSchema.fieldNames.mkString(", ")}): declare those, or give value_format = 'json' or 'csv' " +
            "to decode its value column into the declared columns")
    }
  }

  /** The first line of an error that says something: a Python error's own line when there is one. */
  def firstLine(e: Throwable): String = {
    val all = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).flatMap(x => Option(x.getMessage)).mkString("\n")
    val lines = all.linesIterator.map(_.trim).filter(_.nonEmpty).toSeq
    lines.find(_.contains("kinesis: ")).map(l => l.substring(l.indexOf("kinesis: ")))
      .orElse(lines.headOption).getOrElse(e.toString).take(600)
  }

  /** A pump's rows as records of the stream's source: `value`, and `partition_key` (Kinesis) or `key`. */
  def records(t: CatalogTable, rows: DataFrame): DataFrame = {
    val declared = Streams.writeSchema(t).fields.toSeq
      .filterNot(f => t.properties.get(Streams.ImplicitRowtimeProperty).exists(_.equalsIgnoreCase(f.name)))
    val struct_ = struct(declared.map(f => col(s"`${f.name}`")): _*)
    val value = valueFormat(t).getOrElse("json") match {
      case "csv" =>
        val rowDelimiter = RecordSchema.unescape(t.properties.getOrElse(RecordOptions.RowDelimiterProperty, "\\n"))
        val sep = RecordSchema.unescape(t.properties.getOrElse(RecordOptions.ColumnDelimiterProperty, ","))
        concat(to_csv(struct_, (KdaOutput ++ Map("sep" -> sep, "quote" -> "\"", "escape" -> "\"")).asJava), lit(rowDelimiter))
      case _ => to_json(struct_, (KdaOutput ++ Map("ignoreNullFields" -> "false")).asJava)
    }
    val key = partitionKey(t).map(k => col(s"`$k`").cast(StringType)).getOrElse(lit(null).cast(StringType))
    // Kinesis's writer takes partition_key; Kafka's (and most others') take key.
    rows.select(value.as("value"), key.as(if (format(t) == "kinesis") "partition_key" else "key"))
  }

  /**
   * How KDA wrote a record's values (docs/server.md, "Outputs"): TIMESTAMP as
   * `2024-01-31 12:00:00.000` in UTC, DATE as `2024-01-31`; numbers and booleans as themselves.
   */
  private val KdaOutput = Map("timestampFormat" -> "yyyy-MM-dd HH:mm:ss.SSS", "timestampNTZFormat" -> "yyyy-MM-dd HH:mm:ss.SSS",
    "dateFormat" -> "yyyy-MM-dd", "timeZone" -> "UTC")
}

/**
 * A plain `SELECT` of a stream over a source (and `INSERT INTO` one) is refused, naming the stream
 * and what to write instead: such a stream stores no rows (its table is only a name for the
 * source), so the one would silently return nothing and the other store rows no query reads. KDA
 * has no plain query of a stream either: its streams are read by pumps, `SELECT STREAM`.
 */
object RefuseExternalBatchUse extends (LogicalPlan => Unit) {
  override def apply(plan: LogicalPlan): Unit = plan.foreachWithSubqueries {
    case r: org.apache.spark.sql.execution.datasources.LogicalRelation
        if !r.isStreaming && r.catalogTable.exists(t => ExternalStreams.isExternal(t) && !ExternalStreams.readsFiles(t)) =>
      val t = r.catalogTable.get
      val name = Streams.qualified(t.identifier)
      throw new IllegalArgumentException(
        s"stream $name is over a ${ExternalStreams.format(t)} source and stores no rows, so a plain SELECT of it " +
          s"has nothing to return: read it with SELECT STREAM in a pump (CREATE PUMP p AS INSERT INTO " +
          s"<a durable stream> SELECT STREAM ... FROM $name), then SELECT from that stream")
    case r: org.apache.spark.sql.execution.datasources.LogicalRelation
        if !r.isStreaming && r.catalogTable.exists(ErrorStream.isErrorStream) =>
      throw new IllegalArgumentException(
        s"${Streams.qualified(r.catalogTable.get.identifier)} keeps no rows: it is the error rows of the source streams as " +
          "they are read. Read it with SELECT STREAM in a pump (CREATE PUMP p AS INSERT INTO <a durable stream> " +
          "SELECT STREAM * FROM error_stream), as KDA's outputs did, then SELECT from that stream")
    case c: org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand
        if c.catalogTable.exists(ErrorStream.isErrorStream) =>
      throw new IllegalArgumentException(s"${Streams.qualified(c.catalogTable.get.identifier)} is written by the " +
        "server only: it is the error rows of the source streams as they are read")
    case c: org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand
        if c.catalogTable.exists(ExternalStreams.isExternal) =>
      val t = c.catalogTable.get
      val name = Streams.qualified(t.identifier)
      throw new IllegalArgumentException(
        s"stream $name is over a ${ExternalStreams.format(t)} source: INSERT INTO it would keep rows that no " +
          s"query reads. A pump writes it (CREATE PUMP p AS INSERT INTO $name SELECT STREAM ... FROM <stream>), " +
          "sending each row to the source")
    case _ =>
  }
}

/**
 * Where a pump writes an external stream: each micro-batch's rows through the source's batch
 * writer (`df.write.format(f).options(o).mode("append").save()`). A batch replayed after a crash
 * is written again: at least once.
 *
 * One Spark job per batch, as [[PumpSink]]: the rows are counted and their latest ROWTIME found on
 * the way to the writer (an observation), not in a job of their own over a cached copy. An empty
 * batch (a stateful pump's batch that only moves its watermark) still goes through the writer,
 * which sends nothing: finding it empty first would cost a job for every batch that is not.
 */
final class ExternalSink(
    pump: String,
    table: CatalogTable,
    project: DataFrame => DataFrame,
    errors: Option[(String, String)] = None) extends PumpOutput with Logging {

  private val written = new AtomicLong()
  @volatile private var lag: Option[Long] = None
  override def rowsOut: Long = written.get

  /**
   * For the last batch that wrote rows, the milliseconds from their latest ROWTIME to the moment
   * the writer had sent them all (Kinesis: every PutRecords answered).
   */
  override def lastLagMillis: Option[Long] = lag

  override def apply(batch: DataFrame, batchId: Long): Unit = {
    val rows = project(batch)
    val latest = rows.schema.find(f => f.name.equalsIgnoreCase(Streams.Rowtime) && f.dataType == TimestampType)
      .map(f => max(col(s"`${f.name}`"))).getOrElse(lit(null).cast(TimestampType))
    val stats = Observation(s"pump-$pump-$batchId")
    val observed = rows.observe(stats, count(lit(1)).as("n"), latest.as("latest"))
    ExternalStreams.records(table, observed).write
      .format(ExternalStreams.format(table)).options(ExternalStreams.options(table)).mode("append").save()
    val sent = System.currentTimeMillis()
    // The batch's rows that divided by zero, into the pump's error folder (error_stream's).
    errors.foreach { case (folder, prefix) =>
      org.apache.spark.sql.overjoin.ZeroDivisionRows.publish(folder, prefix, batchId, batch.sparkSession,
        batch.sparkSession.sessionState.newHadoopConf())
    }
    val m = stats.get
    val n = m.get("n").map(_.asInstanceOf[Long]).getOrElse(0L)
    if (n > 0) {
      written.addAndGet(n)
      lag = m.get("latest").flatMap(ExternalSink.epochMillis).map(sent - _)
      logInfo(s"pump $pump: batch $batchId wrote $n records to ${ExternalStreams.format(table)} stream " +
        s"${Streams.qualified(table.identifier)}" + lag.map(l => s" ($l ms after their latest ROWTIME)").getOrElse(""))
    }
  }
}

object ExternalSink {
  private def epochMillis(v: Any): Option[Long] = v match {
    case t: java.sql.Timestamp => Some(t.getTime)
    case i: java.time.Instant => Some(i.toEpochMilli)
    case _ => None
  }
}

/**
 * Records of external streams that did not decode, per query name (a pump's name), from the
 * queries' observed metrics: counted, logged with one of them, never silent.
 */
object BadRecords extends Logging {
  val MetricPrefix = "overjoin_bad_records"
  private val totals = new ConcurrentHashMap[String, AtomicLong]()
  private val samples = new ConcurrentHashMap[String, String]()
  private val installed = ConcurrentHashMap.newKeySet[SparkSession]()

  def ensureInstalled(session: SparkSession): Unit =
    if (installed.add(session)) session.streams.addListener(new Listener)

  def total(query: String): Long = Option(totals.get(query.toLowerCase)).map(_.get).getOrElse(0L)
  def sample(query: String): String = samples.get(query.toLowerCase)

  private class Listener extends StreamingQueryListener {
    override def onQueryStarted(event: QueryStartedEvent): Unit = ()
    override def onQueryIdle(event: QueryIdleEvent): Unit = ()
    override def onQueryTerminated(event: QueryTerminatedEvent): Unit = ()
    override def onQueryProgress(event: QueryProgressEvent): Unit = {
      val p = event.progress
      val query = Option(p.name).getOrElse(p.id.toString).toLowerCase
      p.observedMetrics.asScala.foreach { case (metric, row) =>
        if (metric.startsWith(MetricPrefix) && row != null && !row.isNullAt(0) && row.getLong(0) > 0) {
          val n = row.getLong(0)
          val stream = metric.split(":").drop(1).dropRight(1).mkString(":")
          val sample = if (row.isNullAt(1)) "" else row.getString(1)
          val total = totals.computeIfAbsent(query, _ => new AtomicLong()).addAndGet(n)
          samples.put(query, s"$stream: $sample")
          logWarning(s"overjoin: query ${Option(p.name).getOrElse(p.id)} batch ${p.batchId}: $n record(s) of stream " +
            s"$stream did not decode and were left out ($total so far); one of them: $sample")
        }
      }
    }
  }
}

/**
 * A pump whose query stopped because a Python worker did not connect back in time (Spark waits 10
 * seconds for one, a limit it does not let one change; a source written in Python, as Kinesis's,
 * starts one when its query starts) is started again, up to [[MaxRetries]] times in a row:
 * the failure says nothing about the pump, only that the machine was too busy to start Python.
 * Every retry is logged; a pump still failing stays FAILED in SHOW PUMPS.
 */
object PythonWorkerRetry extends Logging {
  val MaxRetries = 20
  private val retries = new ConcurrentHashMap[String, AtomicLong]()
  private val installed = ConcurrentHashMap.newKeySet[SparkSession]()
  private lazy val scheduler = java.util.concurrent.Executors.newSingleThreadScheduledExecutor { (r: Runnable) =>
    val t = new Thread(r, "overjoin-pump-retry"); t.setDaemon(true); t
  }

  def ensureInstalled(session: SparkSession): Unit =
    if (installed.add(session)) session.streams.addListener(new Listener)

  private def transient(e: String): Boolean =
    e.contains("Python worker failed to connect back") || e.contains("Timed out while waiting for the Python worker")

  private class Listener extends StreamingQueryListener {
    override def onQueryStarted(event: QueryStartedEvent): Unit = ()
    override def onQueryIdle(event: QueryIdleEvent): Unit = ()
    // A pump that makes progress has started: its count starts over.
    override def onQueryProgress(event: QueryProgressEvent): Unit =
      Option(event.progress.name).foreach(n => retries.remove(n.toLowerCase(java.util.Locale.ROOT)))
    override def onQueryTerminated(event: QueryTerminatedEvent): Unit =
      if (event.exception.exists(transient)) {
        scheduler.schedule(new Runnable { def run(): Unit = retryFailed() }, 3L, java.util.concurrent.TimeUnit.SECONDS)
      }
  }

  /** Starts again the pumps that are FAILED because a Python worker did not start in time. */
  private def retryFailed(): Unit = PumpManager.all().foreach { d =>
    try {
      val s = PumpManager.status(d)
      if (s.state == "FAILED" && Option(s.error).exists(transient)) {
        // By its query's name, which the listener above clears the count by.
        val n = retries.computeIfAbsent(d.queryName.toLowerCase(java.util.Locale.ROOT), _ => new AtomicLong()).incrementAndGet()
        if (n <= MaxRetries) {
          logWarning(s"overjoin: pump ${d.name} stopped because a Python worker did not start in time; " +
            s"starting it again (retry $n of $MaxRetries)")
          PumpManager.alter(d, start = true)
        } else logWarning(s"overjoin: pump ${d.name}: a Python worker did not start in time, $n times; left FAILED")
      }
    } catch { case e: Throwable => logWarning(s"overjoin: restarting pump ${d.name} failed", e) }
  }
}
