package io.overjoin.streams

import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.functions.{col, count, first, lit, when}
import org.apache.spark.sql.types.{LongType, StringType}

import io.overjoin.streams.records.RecordSchema

/**
 * KDA's reference data (docs/server.md, "Reference data"): a table loaded from one object, an S3
 * object (KDA's `S3ReferenceDataSource`: a bucket and a key) or a file, decoded with a reference
 * schema (the same record formats and mappings as a stream's input schema):
 * {{{
 *   CREATE [OR REPLACE] REFERENCE TABLE "COMPANIES" ("ticker" VARCHAR(4) MAPPING '$.t', "name" VARCHAR(64))
 *     WITH (bucket = 'ref-data', key = 'companies.json', record_format = 'json');
 *   REFRESH REFERENCE TABLE "COMPANIES";      -- loads the object again (KDA: UpdateApplication)
 * }}}
 * The rows are copied into a parquet table of the warehouse (in a folder of their own per load,
 * so that a reload never takes files from under a query reading the last one), which queries join
 * as any table; pumps that read it are restarted after a reload (they resume where they were) so
 * that they see the new rows, as KDA's running application did. Rows that do not read are left
 * out and reported in the statement's result (`rows_not_read`, `first_problem`) and the log.
 */
object ReferenceTables extends Logging {
  /** Marks a reference table (a table, not a stream: Streams.KindProperty would make it one). */
  val Property = "overjoin.reference"
  val SourcePrefix = "overjoin.reference.option."
  val VersionProperty = "overjoin.reference.version"

  def isReference(t: CatalogTable): Boolean = t.properties.get(Property).contains("true")

  /** The loaded version's folder: `<table folder>/v<n>`. */
  private def folder(base: String, version: Long): String = s"${base.stripSuffix("/")}/v$version"

  val Result: Seq[Attribute] = Seq(
    AttributeReference("table", StringType)(), AttributeReference("rows", LongType)(),
    AttributeReference("rows_not_read", LongType)(), AttributeReference("first_problem", StringType)())

  /** The object's rows, decoded: good rows and error rows apart (`_r` structs). */
  private def decoded(session: SparkSession, t: CatalogTable): DataFrame = {
    val opts = t.properties.collect { case (k, v) if k.startsWith(SourcePrefix) => k.stripPrefix(SourcePrefix) -> v }
    val raw = try {
      if (opts.contains("path")) session.read.format("text").option("wholetext", "true").load(opts("path"))
      else session.read.format("s3object").options(opts).load()
    } catch {
      case e: Exception => throw new IllegalArgumentException(
        s"reference table ${Streams.qualified(t.identifier)}: its object cannot be read: ${ExternalStreams.firstLine(e)}", e)
    }
    ExternalStreams.decodedRows(raw, t)
  }

  /** Loads (again) the table's object into a new folder and points the table at it; (rows, not read, first problem). */
  def load(session: SparkSession, t: CatalogTable, base: String): Row = {
    val name = Streams.qualified(t.identifier)
    val version = t.properties.get(VersionProperty).map(_.toLong + 1).getOrElse(1L)
    val rows = decoded(session, t).cache()
    try {
      val bad = col(s"_r.${RecordSchema.ErrorName}").isNotNull
      val stats = rows.agg(count(when(!bad, lit(1))).as("good"), count(when(bad, lit(1))).as("bad"),
        first(when(bad, col(s"_r.${RecordSchema.ErrorMessage}")), ignoreNulls = true).as("problem")).head()
      val columns = Streams.writeSchema(t).fields.toSeq.map(f => col(s"_r.`${f.name}`").cast(f.dataType).as(f.name))
      val target = folder(base, version)
      try rows.where(!bad).select(columns: _*).write.mode("overwrite").parquet(target) catch {
        case e: Exception => throw new IllegalArgumentException(
          s"reference table $name: its object cannot be read: ${ExternalStreams.firstLine(e)}", e)
      }
      session.sql(s"ALTER TABLE $name SET LOCATION ${Streams.literal(target)}")
      session.sql(s"ALTER TABLE $name SET TBLPROPERTIES (${Streams.literal(VersionProperty)} = '$version')")
      session.catalog.refreshTable(name)
      // The version before stays for a query still reading it; older ones go.
      val fs = new Path(base).getFileSystem(session.sessionState.newHadoopConf())
      Option(fs.listStatus(new Path(base))).toSeq.flatten.map(_.getPath)
        .filter(p => p.getName.matches("v\\d+") && p.getName.drop(1).toLong < version - 1)
        .foreach(p => fs.delete(p, true))
      val (good, notRead) = (stats.getLong(0), stats.getLong(1))
      val problem = Option(stats.getString(2)).orNull
      if (notRead > 0) logWarning(s"reference table $name: $notRead row(s) of its object did not read and were left out; " +
        s"the first: $problem")
      logInfo(s"reference table $name: loaded $good row(s) (version $version)")
      Row(name, good, notRead, problem)
    } finally rows.unpersist()
  }

  /** The folder the table's loads go under: its own location's parent for a table already loaded. */
  def base(session: SparkSession, t: CatalogTable): String = {
    val loc = t.location.toString
    if (t.properties.contains(VersionProperty)) loc.substring(0, loc.lastIndexOf('/')) else loc
  }
}

/** `CREATE [OR REPLACE] REFERENCE TABLE name (cols [MAPPING '...']) WITH (...)`: made, then loaded. */
case class CreateReferenceTableCommand(
    name: String,
    columns: String,
    options: Seq[(String, String)],
    mappings: Seq[(String, String)],
    replace: Boolean) extends LeafRunnableCommand {

  override val output: Seq[Attribute] = ReferenceTables.Result

  override def run(session: SparkSession): Seq[Row] = {
    val id = Streams.identifier(session, name)
    val qualified = Streams.qualified(id)
    val opts = options.map { case (k, v) => k.toLowerCase -> v }.toMap
    val fromS3 = opts.contains("bucket") || opts.contains("key")
    if (fromS3 == opts.contains("path")) throw new IllegalArgumentException(
      s"reference table $qualified: give bucket and key (an S3 object, KDA's S3ReferenceDataSource) or path (a file), " +
        "one of the two")
    val format = opts.get(RecordOptions.Format).orElse(opts.get("value_format")).map(_.toLowerCase).getOrElse("json")
    val source = opts.filter { case (k, _) => !RecordOptions.Names(k) && k != "format" }
    Streams.lookup(session, id).foreach { existing =>
      if (!replace) throw new IllegalArgumentException(s"$qualified already exists (use CREATE OR REPLACE REFERENCE TABLE)")
      if (!ReferenceTables.isReference(existing)) throw new IllegalArgumentException(
        s"$qualified already exists and is not a reference table: it cannot be replaced by one")
      session.sql(s"DROP TABLE $qualified")
    }
    val props = Seq(ReferenceTables.Property -> "true", ExternalStreams.ValueFormatProperty -> format) ++
      source.map { case (k, v) => (ReferenceTables.SourcePrefix + k) -> v } ++ RecordOptions.properties(opts, mappings)
    session.sql(s"CREATE TABLE $qualified ($columns) USING parquet TBLPROPERTIES " +
      s"(${props.map { case (k, v) => s"${Streams.literal(k)} = ${Streams.literal(v)}" }.mkString(", ")})")
    val t = Streams.lookup(session, id).get
    try Seq(ReferenceTables.load(session, t, ReferenceTables.base(session, t))) catch {
      case e: Exception =>
        session.sql(s"DROP TABLE IF EXISTS $qualified")
        throw e
    }
  }
}

/** `REFRESH REFERENCE TABLE name`: its object loaded again; pumps reading it restarted. */
case class RefreshReferenceTableCommand(name: String) extends LeafRunnableCommand {
  override val output: Seq[Attribute] = ReferenceTables.Result

  override def run(session: SparkSession): Seq[Row] = {
    val id = Streams.identifier(session, name)
    val qualified = Streams.qualified(id)
    val t = Streams.lookup(session, id).filter(ReferenceTables.isReference).getOrElse(
      throw new IllegalArgumentException(s"$qualified is not a reference table (CREATE REFERENCE TABLE makes one)"))
    val row = ReferenceTables.load(session, t, ReferenceTables.base(session, t))
    PumpManager.restartReaders(qualified)
    Seq(row)
  }
}
