package io.overjoin.streams

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.streaming.runtime.StreamingRelation

/**
 * Kinesis Data Analytics' in-application `error_stream` (docs/server.md, "error_stream"): the rows
 * of a database's source streams that did not read (a record that is not JSON, a value that is
 * not of its column's type), the records a Lambda preprocessor answered `ProcessingFailed` for,
 * and (in a server) the rows its pumps left out because they divided by zero
 * ([[org.apache.spark.sql.overjoin.ZeroDivisionRows]]), with KDA's columns:
 * {{{
 *   ERROR_TIME TIMESTAMP, ERROR_LEVEL VARCHAR(10), ERROR_NAME VARCHAR(32), MESSAGE VARCHAR(4096),
 *   DATA_ROWTIME TIMESTAMP, DATA_ROW VARCHAR(49152), PUMP_NAME VARCHAR(128)   (and ROWTIME)
 * }}}
 * It is a catalog table of the database (made with its first source stream that reads records,
 * or its first pump whose rows can divide by zero, so that the name resolves as any stream's) that
 * holds no rows: read as a stream (by a pump, as KDA's outputs read it) it is replaced by the union
 * of the error rows of every such source stream of the database when the query starts
 * ([[ExternalStreams.errorRows]]) and, last, the schema's folder of its pumps' error rows, read
 * from its log. A pump reading it reads those sources again, with offsets of its own: its rows are
 * exactly once, like any pump's.
 */
object ErrorStream {
  val Name = "error_stream"
  val Kind = "errors"

  /**
   * `spark.overjoin.errorStream.pumpRows` (default true): `error_stream` read in a server includes
   * the schema's pumps' rows that divide by zero. False for a pump whose checkpoint an earlier
   * release began, which has no such source ([[PumpManager]]).
   */
  val PumpRowsKey = "spark.overjoin.errorStream.pumpRows"

  val Columns: String = "ERROR_TIME TIMESTAMP, ERROR_LEVEL VARCHAR(10), ERROR_NAME VARCHAR(32), " +
    "MESSAGE VARCHAR(4096), DATA_ROWTIME TIMESTAMP, DATA_ROW VARCHAR(49152), PUMP_NAME VARCHAR(128), ROWTIME TIMESTAMP"

  def isErrorStream(t: CatalogTable): Boolean = Streams.kind(t) == Kind

  /** The error stream a streaming relation of Spark reads. */
  def tableOf(p: LogicalPlan): Option[CatalogTable] = p match {
    case r: StreamingRelation => r.dataSource.catalogTable.filter(isErrorStream)
    case _ => None
  }

  /** Makes `database`'s error_stream unless it has one (or a table of that name of its own). */
  def ensure(session: SparkSession, database: String): Unit = {
    val id = org.apache.spark.sql.catalyst.TableIdentifier(Name, Some(database))
    if (!session.sessionState.catalog.tableExists(id)) {
      session.sql(s"CREATE TABLE ${Streams.qualified(id)} ($Columns) USING json " +
        s"COMMENT 'KDA''s in-application error stream: rows of the source streams that do not read' " +
        s"TBLPROPERTIES (${Streams.literal(Streams.KindProperty)} = '$Kind', " +
        s"${Streams.literal(Streams.RowtimeProperty)} = '${Streams.Rowtime}')")
    }
  }

  /**
   * The source streams of the error stream's database whose records are decoded (so can fail to
   * read): the external streams no pump writes (a stream a pump writes is an output, as KDA's
   * destinations, whose records the server makes itself).
   */
  def sources(session: SparkSession, errors: CatalogTable): Seq[CatalogTable] = {
    val catalog = session.sessionState.catalog
    val db = errors.identifier.database.getOrElse(session.catalog.currentDatabase)
    catalog.listTables(db).flatMap(id => scala.util.Try(catalog.getTableMetadata(id)).toOption)
      .filter(t => ExternalStreams.isExternal(t) && ExternalStreams.valueFormat(t).isDefined &&
        ExternalStreams.format(t) != "lambda" && PumpManager.writersOf(Streams.qualified(t.identifier)).isEmpty)
      .sortBy(_.identifier.table)
  }

  /** The error rows of the pumps whose error folder is `folder` (a schema's), as a stream, read from its log. */
  private def pumpRows(session: SparkSession, folder: java.io.File): org.apache.spark.sql.DataFrame = {
    // The error stream's own columns, its VARCHARs plain strings (as a decoded source's error rows are).
    val schema = org.apache.spark.sql.types.StructType(org.apache.spark.sql.types.StructType.fromDDL(Columns).map(f =>
      org.apache.spark.sql.types.StructField(f.name, org.apache.spark.sql.catalyst.util.CharVarcharUtils.replaceCharVarcharWithString(f.dataType))))
    session.readStream.format(classOf[org.apache.spark.sql.overjoin.StreamLogProvider].getName).schema(schema)
      .option(org.apache.spark.sql.overjoin.StreamLogProvider.FormatOption, "json")
      .option("timestampFormat", org.apache.spark.sql.overjoin.ZeroDivisionRows.TimestampFormat)
      .load(folder.getAbsolutePath)
  }

  /**
   * The error rows of every source of `errors`' database and of every pump of it (its rows that
   * divided by zero, in a server), as one stream.
   */
  def read(session: SparkSession, errors: CatalogTable): LogicalPlan = {
    val of = sources(session, errors)
    // In a server, the schema's pumps' rows too: one folder for all of them, there whether or not
    // any pump has divided by zero yet, so that the reader's sources stay the same as pumps come and go.
    val withPumpRows = session.conf.get(PumpRowsKey, "true").trim.equalsIgnoreCase("true")
    val fromPumps = if (!PumpManager.isInitialized || !withPumpRows) None else {
      val folder = PumpManager.errorFolder(errors.identifier.database.getOrElse(session.catalog.currentDatabase))
      org.apache.spark.sql.overjoin.ZeroDivisionRows.ensureFolder(folder.getAbsolutePath, session.sessionState.newHadoopConf())
      Some(folder)
    }
    if (of.isEmpty && fromPumps.isEmpty) throw new IllegalArgumentException(
      s"${Streams.qualified(errors.identifier)} reports the rows of the database's source streams that do not read, " +
        "and the database has no source stream that reads records: create one first (CREATE STREAM ... WITH " +
        "(format = 'kinesis', ...))")
    val union = (of.map(t => ExternalStreams.errorRows(session, t, batch = false)) ++
      fromPumps.map(pumpRows(session, _))).reduce(_ unionByName _)
    union.asInstanceOf[org.apache.spark.sql.classic.Dataset[org.apache.spark.sql.Row]].queryExecution.analyzed
  }
}
