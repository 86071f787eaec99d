package io.overjoin.streams

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.{BooleanType, LongType, StringType, TimestampNTZType, TimestampType}

private object Cols {
  def string(name: String): AttributeReference = AttributeReference(name, StringType)()
  def long(name: String): AttributeReference = AttributeReference(name, LongType)()
  def bool(name: String): AttributeReference = AttributeReference(name, BooleanType, nullable = false)()
}

/**
 * `CREATE [OR REPLACE] STREAM name (cols [MAPPING '...']) [DESCRIPTION '...'] [WITH (...)]`;
 * `mappings` are the columns' KDA mappings (docs/server.md, "Input schemas").
 */
case class CreateStreamCommand(
    name: String,
    columns: String,
    description: Option[String],
    options: Seq[(String, String)],
    replace: Boolean,
    mappings: Seq[(String, String)] = Nil) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val id = Streams.identifier(session, name)
    val qualified = Streams.qualified(id)
    if (id.table.equalsIgnoreCase(ErrorStream.Name)) throw new IllegalArgumentException(
      s"$qualified is KDA's in-application error stream, which the server makes with a database's first source " +
        "stream: give this stream another name")
    val given = options.toMap
    val fileFormat = given.get("format").map(_.toLowerCase).forall(ExternalStreams.FileFormats)
    // Files read with a KDA input schema (a MAPPING, a record_* option): each file is a record
    // (a payload of JSON documents or CSV rows), read by Spark's text source and decoded as any
    // stream's records, so a folder stands in for a Kinesis stream with the same schema.
    val recordFiles = fileFormat && given.contains("path") && RecordOptions.declared(given, mappings)
    val opts =
      if (!recordFiles) given
      else {
        val fmt = given.getOrElse("format", "json").toLowerCase
        if (fmt != "json" && fmt != "csv") throw new IllegalArgumentException(
          s"stream $qualified: an input schema reads JSON or CSV records, not $fmt files")
        val recordFormat = given.get(RecordOptions.Format).orElse(given.get("value_format")).getOrElse(fmt)
        (given - RecordOptions.Format - "value_format") ++
          Map("format" -> "text", "wholetext" -> "true", RecordOptions.Format -> recordFormat.toLowerCase)
      }
    // A format other than a file format is a stream over that Spark source (ExternalStreams):
    // its options go to the source.
    val external = !fileFormat || recordFiles
    val known = Set("format", "path", "rowtime", "lateness")
    if (!external) opts.keys.filterNot(known).foreach { k =>
      throw new IllegalArgumentException(s"stream $qualified: unknown option $k (known: ${known.toSeq.sorted.mkString(", ")}; " +
        "or a format other than json, csv, parquet, orc: a Spark streaming source such as kinesis, with its options)")
    }
    if (!external && mappings.nonEmpty) throw new IllegalArgumentException(
      s"stream $qualified: MAPPING reads the fields of records: declare the stream over a source (WITH (format = ..., ...))")
    val declaresRowtime = Streams.declaresRowtime(session, qualified, columns)
    val source = opts.contains("path") || external
    if (!source && opts.nonEmpty) throw new IllegalArgumentException(
      s"stream $qualified: WITH (...) makes a stream over a folder and needs path = '...'")
    val rowtime = opts.getOrElse("rowtime", Streams.Rowtime)
    // A source stream that declares no rowtime column has KDA's implicit one (docs/semantics.md
    // §10): the records' field `rowtime` names (ROWTIME by default), read as a TIMESTAMP, else
    // the record's arrival; and APPROXIMATE_ARRIVAL_TIME unless a column has that name.
    var implicitColumns = ""
    var implicitProps = Seq.empty[(String, String)]
    if (source) {
      val schema = session.sessionState.sqlParser.parseTableSchema(columns)
      schema.find(_.name.equalsIgnoreCase(rowtime)) match {
        case None =>
          if (rowtime.equalsIgnoreCase(Streams.Rowtime) || !schema.exists(_.name.equalsIgnoreCase(Streams.Rowtime))) {
            implicitColumns += s", ${StreamStatementParser.quoteIfNeeded(rowtime)} TIMESTAMP"
            implicitProps :+= Streams.ImplicitRowtimeProperty -> rowtime
          } else throw new IllegalArgumentException(
            s"stream $qualified: rowtime = '$rowtime' names no column, and ${Streams.Rowtime} is one of its " +
              s"columns (it has ${schema.fieldNames.mkString(", ")}): declare $rowtime, or drop the option")
        case Some(f) if f.dataType != TimestampType && f.dataType != TimestampNTZType => throw new IllegalArgumentException(
          s"stream $qualified: its rowtime ${f.name} must be a TIMESTAMP, not ${f.dataType.sql}")
        case _ =>
      }
      if (!schema.exists(_.name.equalsIgnoreCase(Streams.ArrivalTime))) implicitProps :+= Streams.ArrivalProperty -> "true"
      opts.get("lateness").foreach { l =>
        try Streams.latenessOf(l) catch {
          case e: Exception => throw new IllegalArgumentException(
            s"stream $qualified: bad lateness '$l' (write it as '10 seconds'): ${e.getMessage}")
        }
      }
    }
    Streams.lookup(session, id).foreach { existing =>
      if (!replace) throw new IllegalArgumentException(s"$qualified already exists (use CREATE OR REPLACE STREAM)")
      if (!Streams.isStream(existing)) throw new IllegalArgumentException(
        s"$qualified already exists and is not a stream: it cannot be replaced by one")
      val writers = PumpManager.writersOf(qualified)
      if (writers.nonEmpty) throw new IllegalArgumentException(
        s"stream $qualified cannot be replaced: pump(s) ${writers.mkString(", ")} write it (drop them first)")
      session.sql(s"DROP TABLE $qualified")
    }
    val comment = description.map(d => s" COMMENT ${Streams.literal(d)}").getOrElse("")
    def lit(s: String) = Streams.literal(s)
    if (recordFiles) {
      val folder = new org.apache.hadoop.fs.Path(opts("path"))
      folder.getFileSystem(session.sessionState.newHadoopConf()).mkdirs(folder)
    }
    val ddl = if (external) {
      ExternalStreams.createTable(session, qualified, columns, implicitColumns, opts, implicitProps, comment, mappings)
    } else if (source) {
      val format = opts.getOrElse("format", "json").toLowerCase
      if (!Set("json", "csv", "parquet", "orc").contains(format)) throw new IllegalArgumentException(
        s"stream $qualified: format must be json, csv, parquet or orc, not $format")
      val header = if (format == "csv") ", header 'true'" else ""
      val declaredRowtime = if (implicitProps.exists(_._1 == Streams.ImplicitRowtimeProperty)) Streams.Rowtime else rowtime
      val props = Seq(Streams.KindProperty -> "source", Streams.RowtimeProperty -> declaredRowtime) ++
        opts.get("lateness").map(Streams.LatenessProperty -> _) ++ implicitProps
      s"CREATE TABLE $qualified ($columns$implicitColumns) USING $format OPTIONS (path ${lit(opts("path"))}$header)$comment " +
        s"TBLPROPERTIES (${props.map { case (k, v) => s"${lit(k)} = ${lit(v)}" }.mkString(", ")})"
    } else {
      val rowtimeColumn = if (declaresRowtime) "" else s", ${Streams.Rowtime} TIMESTAMP DEFAULT current_timestamp()"
      s"CREATE TABLE $qualified ($columns$rowtimeColumn) USING parquet$comment " +
        s"TBLPROPERTIES (${lit(Streams.KindProperty)} = 'durable')"
    }
    if (source && !external) {
      // Files arrive in the folder later: it need not exist yet (Spark's file source requires it).
      val folder = new org.apache.hadoop.fs.Path(opts("path"))
      folder.getFileSystem(session.sessionState.newHadoopConf()).mkdirs(folder)
    }
    session.sql(ddl)
    Streams.lookup(session, id).filter(t => ExternalStreams.isExternal(t) && ExternalStreams.valueFormat(t).isDefined &&
      ExternalStreams.format(t) != "lambda").foreach(_ => ErrorStream.ensure(session, id.database.get))
    Nil
  }
}

/** `DROP STREAM [IF EXISTS] name`: refused while a pump writes it. */
case class DropStreamCommand(name: String, ifExists: Boolean) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    val id = Streams.identifier(session, name)
    val qualified = Streams.qualified(id)
    Streams.lookup(session, id) match {
      case None => if (!ifExists) throw new IllegalArgumentException(s"stream $qualified does not exist")
      case Some(t) if !Streams.isStream(t) =>
        throw new IllegalArgumentException(s"$qualified is not a stream (use DROP TABLE)")
      case Some(_) =>
        val writers = PumpManager.writersOf(qualified)
        if (writers.nonEmpty) throw new IllegalArgumentException(
          s"stream $qualified cannot be dropped: pump(s) ${writers.mkString(", ")} write it (drop them first)")
        session.sql(s"DROP TABLE $qualified")
    }
    Nil
  }
}

/** `SHOW STREAMS`: the streams of the current database. */
case class ShowStreamsCommand() extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq(Cols.string("name"), Cols.string("kind"), Cols.string("columns"),
    Cols.string("writers"), Cols.string("description"), Cols.string("location"))

  override def run(session: SparkSession): Seq[Row] = {
    val catalog = session.sessionState.catalog
    val db = session.catalog.currentDatabase
    catalog.listTables(db).filter(_.database.isDefined).sortBy(_.table).flatMap { id =>
      scala.util.Try(catalog.getTableMetadata(id)).toOption.filter(Streams.isStream).map { t =>
        val q = Streams.qualified(id)
        Row(id.table, Streams.kind(t), t.schema.toDDL, PumpManager.writersOf(q).mkString(","),
          t.comment.orNull, t.location.toString)
      }
    }
  }
}

/** `CREATE [OR REPLACE] PUMP name [STARTED | STOPPED] AS INSERT INTO stream [(cols)] query`. */
case class CreatePumpCommand(
    name: String,
    target: String,
    columns: Seq[String],
    query: String,
    started: Boolean,
    replace: Boolean) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    // The SQL settings the client set that change how the query reads are kept with the pump.
    val kept = session.conf.getAll.filter { case (k, _) => CreatePumpCommand.keep(k) }
    PumpManager.create(session, name, target, columns, query, started, replace, kept)
    Nil
  }
}

object CreatePumpCommand {
  private[streams] def keep(key: String): Boolean =
    key.startsWith("spark.overjoin.") || key == "spark.sql.ansi.doubleQuotedIdentifiers" ||
      key == "spark.sql.shuffle.partitions" || key == "spark.sql.session.timeZone" || key == "spark.sql.ansi.enabled"
}

/**
 * `ALTER PUMP name START | STOP`; `ALTER PUMP schema.* ...` every pump of a schema, and
 * `ALTER PUMP schema.name ...` one pump, checked to be that schema's (s-Server's forms).
 */
case class AlterPumpCommand(name: Option[String], start: Boolean, inSchema: Option[String] = None)
  extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    val database = inSchema.map(s => Streams.identifier(session, StreamStatementParser.quoteIfNeeded(s) + ".x").database.get)
    name match {
      case Some(n) => PumpManager.alter(n, start, database)
      case None => PumpManager.alterAll(database.get, start)
    }
    Nil
  }
}

/**
 * s-Server's `CREATE OR REPLACE SCHEMA name`: a Spark database (namespace) of that name.
 * **Decision:** an existing schema is kept with its streams, tables and pumps (replacing it would
 * drop running pumps' targets); the description becomes the database's comment when it is new.
 */
case class CreateSchemaCommand(name: String, description: Option[String]) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    val comment = description.map(d => s" COMMENT ${Streams.literal(d)}").getOrElse("")
    session.sql(s"CREATE DATABASE IF NOT EXISTS ${StreamStatementParser.quoteIfNeeded(name)}$comment")
    Nil
  }
}

/** s-Server's `SET SCHEMA 'name'` (also `'"name"'`): Spark's `USE name` for this session. */
case class SetSchemaCommand(name: String) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    session.sql(s"USE ${StreamStatementParser.quoteIfNeeded(name)}")
    Nil
  }
}

/** `DROP PUMP [IF EXISTS] name`: a running pump is stopped first; the rows it wrote stay. */
case class DropPumpCommand(name: String, ifExists: Boolean) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = { PumpManager.drop(name, ifExists); Nil }
}

/** `SHOW PUMPS`. */
case class ShowPumpsCommand() extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq(Cols.string("name"), Cols.string("state"), Cols.string("target"),
    Cols.bool("idle"), Cols.long("rows_out"), Cols.long("late_rows"), Cols.string("watermark"),
    Cols.long("batch"), Cols.string("error"), Cols.long("last_batch_ms"), Cols.long("output_lag_ms"))

  override def run(session: SparkSession): Seq[Row] = PumpManager.status().map { s =>
    Row(s.d.name, s.state, s.d.target, s.idle, s.rowsOut, s.lateRows, s.watermark, s.batch, s.error,
      s.lastBatchMillis, s.outputLagMillis)
  }
}

/** `DESCRIBE PUMP name`: one row per property. */
case class DescribePumpCommand(name: String) extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq(Cols.string("property"), Cols.string("value"))

  override def run(session: SparkSession): Seq[Row] = {
    val s = PumpManager.status(name)
    val (partitions, from) = PumpManager.shufflePartitions(s.d)
    Seq(
      "name" -> s.d.name, "state" -> s.state, "target" -> s.d.target,
      "columns" -> s.d.columns.mkString(", "), "query" -> s.d.query, "database" -> s.d.database,
      "generation" -> s.d.generation.toString, "idle" -> s.idle.toString, "rows_out" -> s.rowsOut.toString,
      "late_rows" -> s.lateRows.toString, "watermark" -> s.watermark,
      "bad_records" -> BadRecords.total(s.d.name).toString, "bad_record_sample" -> BadRecords.sample(s.d.name),
      "batch" -> Option(s.batch).map(_.toString).orNull, "error" -> s.error,
      "last_batch_ms" -> Option(s.lastBatchMillis).map(_.toString).orNull,
      "output_lag_ms" -> Option(s.outputLagMillis).map(_.toString).orNull,
      "shuffle_partitions" -> partitions, "shuffle_partitions_from" -> from,
      "settings" -> s.d.conf.toSeq.sorted.map { case (k, v) => s"$k=$v" }.mkString(", ")
    ).map { case (k, v) => Row(k, v) }
  }
}
