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
    mappings: Seq[(String, String)] = Nil,
    filePattern: Option[String] = None,
    skipHeader: Boolean = false) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val id = Streams.identifier(session, name)
    val qualified = Streams.qualified(id)
    id.database.filterNot(session.sessionState.catalog.databaseExists).foreach { _ =>
      throw new IllegalArgumentException(s"stream ${Streams.shown(session, id)}: its schema does not exist " +
        "(CREATE OR REPLACE SCHEMA it first)")
    }
    // Spark's catalog takes letters, digits and _ in a table's name; an s-Server schema's name is
    // escaped into a database name (SchemaNames), a stream's is not (plain Spark SQL reads it by name).
    if (!SchemaNames.isPlain(id.table)) throw new IllegalArgumentException(
      s"stream ${SchemaNames.quoted(id.table)}: Spark's catalog takes only letters, digits and _ in a stream's " +
        s"name (a schema's name may hold any character): name it ${SchemaNames.quoted(SchemaNames.plainSpelling(id.table))}")
    filePattern.foreach { p =>
      try java.util.regex.Pattern.compile(p) catch {
        case e: java.util.regex.PatternSyntaxException => throw new IllegalArgumentException(
          s"stream ${Streams.shown(session, id)}: FILENAME_PATTERN '$p' is not a Java regular expression " +
            s"(${e.getDescription} at ${e.getIndex}): write one that matches the files' whole names, such as '.*\\.csv'")
      }
    }
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
    // An s-Server foreign stream's file rules (ForeignStreams): kept with the stream's records' options.
    implicitProps ++= filePattern.map(ExternalStreams.FilePatternProperty -> _) ++
      (if (skipHeader) Seq(RecordOptions.SkipHeaderProperty -> "true") else Nil)
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
    replace: Boolean,
    inSchema: Option[String] = None) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    // The SQL settings the client set that change how the query reads are kept with the pump.
    val kept = session.conf.getAll.filter { case (k, _) => CreatePumpCommand.keep(k) }
    inSchema.foreach { s =>
      if (!session.sessionState.catalog.databaseExists(Streams.database(session, s))) throw new IllegalArgumentException(
        s"pump ${SchemaNames.quoted(s)}.$name: the schema ${SchemaNames.quoted(s)} does not exist (CREATE OR REPLACE SCHEMA it first)")
    }
    PumpManager.create(session, name, target, columns, query, started, replace, kept, inSchema)
    Nil
  }
}

object CreatePumpCommand {
  private[streams] def keep(key: String): Boolean =
    key.startsWith("spark.overjoin.") || key == "spark.sql.ansi.doubleQuotedIdentifiers" ||
      key == "spark.sql.shuffle.partitions" || key == "spark.sql.session.timeZone" || key == "spark.sql.ansi.enabled"
}

/**
 * One name of s-Server's lists (`ALTER PUMP`, `ALTER STREAM`): `name`, `schema.name`, or `schema.*`
 * (`name` None), as written.
 */
final case class ObjectRef(schema: Option[String], name: Option[String]) {
  def shown: String = schema.map(s => SchemaNames.quoted(s) + ".").getOrElse("") +
    name.map(StreamStatementParser.quoteIfNeeded).getOrElse("*")
}

/** `ALTER PUMP item {, item} START | STOP`, each item `name`, `schema.name` or `schema.*` (s-Server's forms). */
case class AlterPumpCommand(items: Seq[ObjectRef], start: Boolean) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = { PumpManager.alter(session, items, start); Nil }
}

/**
 * s-Server's `CREATE OR REPLACE SCHEMA name`: a Spark database (namespace) for it ([[SchemaNames]]:
 * the name itself, or its escaped form). **Decision:** an existing schema is kept with its
 * streams, tables and pumps (replacing it would drop running pumps' targets); the description
 * becomes the database's comment when it is new.
 */
case class CreateSchemaCommand(name: String, description: Option[String]) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    val db = SchemaNames.checkedDatabase(session, name)
    val comment = description.map(d => s" COMMENT ${Streams.literal(d)}").getOrElse("")
    val props = if (SchemaNames.isPlain(name)) "" else
      s" WITH DBPROPERTIES (${Streams.literal(SchemaNames.Property)} = ${Streams.literal(name)})"
    session.sql(s"CREATE DATABASE IF NOT EXISTS ${StreamStatementParser.quoteIfNeeded(db)}$comment$props")
    Nil
  }
}

/** s-Server's `SET SCHEMA 'name'` (also `'"name"'`): Spark's `USE` of its database for this session. */
case class SetSchemaCommand(name: String) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    val db = SchemaNames.checkedDatabase(session, name)
    if (!session.sessionState.catalog.databaseExists(db)) throw new IllegalArgumentException(
      s"schema ${SchemaNames.quoted(name)} does not exist (CREATE OR REPLACE SCHEMA ${SchemaNames.quoted(name)} first)")
    session.sql(s"USE ${StreamStatementParser.quoteIfNeeded(db)}")
    Nil
  }
}

/**
 * s-Server's `SET PATH '"s" [, ...]'`, where unqualified routines (functions) are looked up
 * (docs/server.md, "Schemas"). **Decision:** with Spark's SQL path on (`spark.sql.path.enabled`),
 * it is Spark's `SET PATH` to the built-in and temporary functions and then those schemas, in
 * order. With it off (Spark's default), a function is looked up in the built-ins, the session's
 * temporary functions and the current schema: the statement is accepted when every schema it
 * names is the current schema (as s-Server programs write it after `SET SCHEMA`), since that is
 * then the lookup it asks for, and refused otherwise, saying what to write.
 */
case class SetPathCommand(schemas: Seq[String], written: String) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    val dbs = schemas.map(s => Streams.database(session, s))
    schemas.zip(dbs).foreach { case (s, db) =>
      if (!session.sessionState.catalog.databaseExists(db)) throw new IllegalArgumentException(
        s"SET PATH '$written': schema ${SchemaNames.quoted(s)} does not exist")
    }
    if (session.conf.get("spark.sql.path.enabled", "false").equalsIgnoreCase("true")) {
      val path = (Seq("system.builtin", "system.session") ++
        dbs.distinct.map(db => "spark_catalog." + StreamStatementParser.quoteIfNeeded(db))).mkString(", ")
      session.sql(s"SET PATH = $path")
    } else {
      val current = session.catalog.currentDatabase
      schemas.zip(dbs).find { case (_, db) => !db.equalsIgnoreCase(current) }.foreach { case (s, _) =>
        throw new IllegalArgumentException(
          s"SET PATH '$written' looks functions up in schema ${SchemaNames.quoted(s)}, but this session looks them up in " +
            s"its current schema (${SchemaNames.shown(session, current)}) after the built-in and temporary ones: " +
            s"SET SCHEMA '${SchemaNames.quoted(s)}' first, qualify the function with its schema, or set " +
            "spark.sql.path.enabled = true for a path of its own")
      }
    }
    Nil
  }
}

/**
 * s-Server's `DROP SCHEMA [IF EXISTS] "name" [CASCADE | RESTRICT]`. With CASCADE the schema's
 * pumps (those of its name, those that write its streams, and those of other schemas that read
 * them) are stopped and their definitions and checkpoints removed, then its streams, tables and
 * views are dropped with the database; a session whose current schema it was is moved to
 * `default`. RESTRICT (the default) drops an empty schema only, naming what it holds otherwise.
 */
case class DropSchemaCommand(name: String, ifExists: Boolean, cascade: Boolean) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    val db = Streams.database(session, name)
    val catalog = session.sessionState.catalog
    if (!catalog.databaseExists(db)) {
      if (ifExists) return Nil
      throw new IllegalArgumentException(s"schema ${SchemaNames.quoted(name)} does not exist")
    }
    if (db == "default") throw new IllegalArgumentException(
      s"schema ${SchemaNames.quoted(name)} is Spark's default database, which cannot be dropped")
    val prefix = StreamStatementParser.quoteIfNeeded(db).toLowerCase + "."
    val pumps = PumpManager.all().filter { d =>
      d.member.equalsIgnoreCase(db) || d.target.toLowerCase.startsWith(prefix) ||
        PumpManager.readsOf(d).exists(_.startsWith(prefix))
    }
    val objects = catalog.listTables(db).map(_.table).sorted
    if (!cascade && (pumps.nonEmpty || objects.nonEmpty)) throw new IllegalArgumentException(
      s"schema ${SchemaNames.quoted(name)} is not empty: it holds ${
        (pumps.map(p => s"pump ${p.name}") ++ objects.map(o => s"stream or table $o")).mkString(", ")}: drop them first, " +
        "or write DROP SCHEMA ... CASCADE to drop it with everything in it")
    pumps.foreach(PumpManager.drop)
    session.sql(s"DROP DATABASE ${StreamStatementParser.quoteIfNeeded(db)} CASCADE")
    if (session.catalog.currentDatabase.equalsIgnoreCase(db)) session.sql("USE default")
    Nil
  }
}

/**
 * s-Server's `ALTER STREAM item {, item} RESET` (docs/semantics.md §10): a stream starts over, as
 * if new. **Decision:** s-Server resets a stream's clock (the `ROWTIME` its rows have reached) so
 * that a pipeline started again may send it rows of earlier times. Here a stream accepts rows of any
 * time; the clock is in the pumps that read it (their watermark and state, kept in their
 * checkpoints). So a durable stream's rows so far are set aside (moved into a hidden folder of its
 * own, `_reset-<time>`, kept on disk, read by no query) and every pump that reads it starts over
 * at its next start, with no state and no watermark, on the rows that arrive after the reset.
 * Refused, before anything changes, while a pump that writes or reads the stream runs (stop them
 * first, as s-Server programs do), and when a pump that reads it also reads a stream this statement
 * does not reset (starting over, it would read that one again from its start). A stream over a
 * source (a folder, Kinesis, ...) is s-Server's foreign stream, which RESET leaves as it is.
 */
case class ResetStreamCommand(items: Seq[ObjectRef]) extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq(Cols.string("stream"), Cols.string("action"))

  override def run(session: SparkSession): Seq[Row] = {
    val catalog = session.sessionState.catalog
    val streams = scala.collection.mutable.LinkedHashMap.empty[String, org.apache.spark.sql.catalyst.catalog.CatalogTable]
    items.foreach { item =>
      item.name match {
        case None =>
          val db = Streams.database(session, item.schema.get)
          if (!catalog.databaseExists(db)) throw new IllegalArgumentException(
            s"ALTER STREAM ${item.shown} RESET: schema ${SchemaNames.quoted(item.schema.get)} does not exist")
          catalog.listTables(db).sortBy(_.table).flatMap(id => scala.util.Try(catalog.getTableMetadata(id)).toOption)
            .filter(Streams.isStream).foreach(t => streams(Streams.qualified(t.identifier).toLowerCase) = t)
        case Some(n) =>
          val id = Streams.identifier(session, item.schema.map(s =>
            StreamStatementParser.quoteIfNeeded(SchemaNames.database(s)) + ".").getOrElse("") + StreamStatementParser.quoteIfNeeded(n))
          val t = Streams.lookup(session, id).filter(Streams.isStream).getOrElse(
            throw new IllegalArgumentException(s"ALTER STREAM ${item.shown} RESET: stream ${Streams.shown(session, id)} does not exist"))
          streams(Streams.qualified(t.identifier).toLowerCase) = t
      }
    }
    val durable = streams.filter { case (_, t) => Streams.isDurable(t) }
    val pumps = PumpManager.all()
    val writers = pumps.filter(d => durable.contains(d.target.toLowerCase))
    val reads = pumps.map(d => d -> PumpManager.readsOf(d)).filter(_._2.exists(durable.contains))
    (writers ++ reads.map(_._1)).distinct.filter(PumpManager.isRunning).foreach { d =>
      throw new IllegalArgumentException(s"stream(s) ${durable.values.map(t => Streams.shown(session, t.identifier)).mkString(", ")} " +
        s"cannot be reset while pump ${d.name} runs, which writes or reads them: stop it first (ALTER PUMP ${d.name} STOP, " +
        "or ALTER PUMP \"schema\".* STOP), then reset")
    }
    reads.foreach { case (d, tables) =>
      val others = tables.filter { t =>
        !durable.contains(t) && scala.util.Try(catalog.getTableMetadata(Streams.identifier(session, t))).toOption.exists { m =>
          Streams.isStream(m) && Streams.kind(m) != "reference"
        }
      }
      if (others.nonEmpty) throw new IllegalArgumentException(
        s"pump ${d.name} reads the stream(s) being reset and also ${others.toSeq.sorted.mkString(", ")}, which this " +
          s"statement does not reset: starting over, it would read those again from their start. Reset them in the same " +
          s"statement, or drop the pump (DROP PUMP ${d.name}) and create it again after the reset")
    }
    val stamp = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS").withZone(java.time.ZoneOffset.UTC)
      .format(java.time.Instant.now())
    val conf = session.sessionState.newHadoopConf()
    durable.values.foreach { t =>
      val folder = new org.apache.hadoop.fs.Path(t.location)
      val fs = folder.getFileSystem(conf)
      val aside = new org.apache.hadoop.fs.Path(folder, s"_reset-$stamp")
      val files = Option(fs.listStatus(folder)).toSeq.flatten
        .filterNot(f => f.getPath.getName.startsWith("_") || f.getPath.getName.startsWith("."))
      if (files.nonEmpty) {
        fs.mkdirs(aside)
        files.foreach(f => if (!fs.rename(f.getPath, new org.apache.hadoop.fs.Path(aside, f.getPath.getName)))
          throw new IllegalStateException(s"stream ${Streams.shown(session, t.identifier)}: could not move ${f.getPath} aside"))
      }
      // Its log goes with its files: the stream's next file is entry 1 of a new log.
      val log = new org.apache.hadoop.fs.Path(folder, StreamLog.LogDir)
      if (fs.exists(log)) {
        fs.mkdirs(aside)
        if (!fs.rename(log, new org.apache.hadoop.fs.Path(aside, StreamLog.LogDir)))
          throw new IllegalStateException(s"stream ${Streams.shown(session, t.identifier)}: could not move $log aside")
      }
      StreamLog.reopenAt(t.location.toString, conf)
      session.catalog.refreshTable(Streams.qualified(t.identifier))
    }
    reads.map(_._1).foreach(PumpManager.startOver)
    streams.values.toSeq.map { t =>
      val action =
        if (durable.contains(Streams.qualified(t.identifier).toLowerCase)) "reset: its rows set aside, its readers start over"
        else "left as it is (a stream over a source, s-Server's foreign stream)"
      Row(Streams.shown(session, t.identifier), action)
    }
  }
}

/** `DROP PUMP [IF EXISTS] [schema.]name`: a running pump is stopped first; the rows it wrote stay. */
case class DropPumpCommand(name: String, ifExists: Boolean, inSchema: Option[String] = None) extends LeafRunnableCommand {
  override def run(session: SparkSession): Seq[Row] = {
    PumpManager.drop(session, name, ifExists, inSchema.map(s => Streams.database(session, s)))
    Nil
  }
}

/**
 * `SHOW PUMPS`: every pump of the server, by name and then schema (a pump is named within its
 * schema, so two schemas may each have one of a name; the last column says whose it is).
 */
case class ShowPumpsCommand() extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq(Cols.string("name"), Cols.string("state"), Cols.string("target"),
    Cols.bool("idle"), Cols.long("rows_out"), Cols.long("late_rows"), Cols.string("watermark"),
    Cols.long("batch"), Cols.string("error"), Cols.long("last_batch_ms"), Cols.long("output_lag_ms"),
    Cols.string("schema"))

  override def run(session: SparkSession): Seq[Row] =
    PumpManager.status().sortBy(s => (s.d.name.toLowerCase(java.util.Locale.ROOT), s.d.member.toLowerCase(java.util.Locale.ROOT)))
      .map { s =>
        Row(s.d.name, s.state, Streams.shown(session, Streams.identifier(session, s.d.target)), s.idle, s.rowsOut,
          s.lateRows, s.watermark, s.batch, s.error, s.lastBatchMillis, s.outputLagMillis, SchemaNames.shown(session, s.d.member))
      }
}

/** `DESCRIBE PUMP [schema.]name`: one row per property. */
case class DescribePumpCommand(name: String, inSchema: Option[String] = None) extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq(Cols.string("property"), Cols.string("value"))

  override def run(session: SparkSession): Seq[Row] = {
    val s = PumpManager.status(session, name, inSchema.map(x => Streams.database(session, x)))
    val (partitions, from) = PumpManager.shufflePartitions(s.d)
    Seq(
      "name" -> s.d.name, "state" -> s.state, "target" -> Streams.shown(session, Streams.identifier(session, s.d.target)),
      "columns" -> s.d.columns.mkString(", "), "query" -> s.d.query, "database" -> SchemaNames.shown(session, s.d.database),
      "schema" -> SchemaNames.shown(session, s.d.member),
      "generation" -> s.d.generation.toString, "idle" -> s.idle.toString, "rows_out" -> s.rowsOut.toString,
      "late_rows" -> s.lateRows.toString, "watermark" -> s.watermark,
      "bad_records" -> BadRecords.total(s.d.queryName).toString, "bad_record_sample" -> BadRecords.sample(s.d.queryName),
      "error_rows" -> org.apache.spark.sql.overjoin.ZeroDivisions.total(s.d.queryName).toString,
      "error_row_sample" -> Option(org.apache.spark.sql.overjoin.ZeroDivisions.sample(s.d.queryName))
        .map(d => s"divided by zero: $d is 0").orNull,
      "batch" -> Option(s.batch).map(_.toString).orNull, "error" -> s.error,
      "last_batch_ms" -> Option(s.lastBatchMillis).map(_.toString).orNull,
      "output_lag_ms" -> Option(s.outputLagMillis).map(_.toString).orNull,
      "shuffle_partitions" -> partitions, "shuffle_partitions_from" -> from,
      "sources" -> s.sources, "sink" -> s.sink,
      "settings" -> s.d.conf.toSeq.sorted.map { case (k, v) => s"$k=$v" }.mkString(", ")
    ).map { case (k, v) => Row(k, v) }
  }
}
