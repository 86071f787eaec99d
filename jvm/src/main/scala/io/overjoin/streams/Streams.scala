package io.overjoin.streams

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.NamedStreamingRelation
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, SubqueryAlias}
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.streaming.runtime.StreamingRelation
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.types.{StructType, TimestampType}

/**
 * Streams are catalog tables marked with the table property `overjoin.stream`:
 *  - `durable`: a parquet table in the warehouse whose last column is the implicit
 *    `ROWTIME TIMESTAMP` (default: the time of the insert). Pumps append one file per micro-batch
 *    (see [[PumpSink]]), `INSERT INTO` appends with Spark's own writer, each logging its files in
 *    the stream's [[StreamLog]]; `SELECT` reads every row so far, `STREAM name` reads it as a
 *    stream (in the server's pumps from its log, elsewhere Spark's file source over its folder);
 *  - `source`: a table over a folder that files arrive in (`WITH (format, path, ...)`).
 */
object Streams {
  val KindProperty = "overjoin.stream"
  val RowtimeProperty = "overjoin.rowtime"
  val LatenessProperty = "overjoin.lateness"
  val Rowtime = "ROWTIME"
  /** A source stream's implicit ROWTIME: the name of the records' field it is read from. */
  val ImplicitRowtimeProperty = "overjoin.implicit.rowtime"
  /** A source stream has KDA's implicit APPROXIMATE_ARRIVAL_TIME (its records' arrival). */
  val ArrivalProperty = "overjoin.implicit.arrival"
  val ArrivalTime = "APPROXIMATE_ARRIVAL_TIME"

  def identifier(session: SparkSession, name: String): TableIdentifier = {
    val parts = session.sessionState.sqlParser.parseMultipartIdentifier(name)
    parts match {
      case Seq(t) => TableIdentifier(t, Some(session.catalog.currentDatabase))
      case Seq(db, t) => TableIdentifier(t, Some(db))
      case _ => throw new IllegalArgumentException(s"$name: a stream name is `name` or `database.name`")
    }
  }

  def lookup(session: SparkSession, id: TableIdentifier): Option[CatalogTable] = {
    val catalog = session.sessionState.catalog
    if (catalog.tableExists(id)) Some(catalog.getTableMetadata(id)) else None
  }

  def isStream(t: CatalogTable): Boolean = t.properties.contains(KindProperty)

  /**
   * The stream a join input reads directly (under its alias), with its declared rowtime column and
   * lateness: as a stream (Spark's file source over the table) or replayed as a table.
   */
  def readBy(plan: LogicalPlan): Option[CatalogTable] = plan match {
    case s: SubqueryAlias => readBy(s.child)
    case p if ExternalStreams.readBy(p).isDefined => ExternalStreams.readBy(p)
    case SourceColumns(_, child) => readBy(child)
    case n: NamedStreamingRelation => readBy(n.child)
    case r: StreamingRelation => r.dataSource.catalogTable.filter(isStream)
    case r: LogicalRelation => r.catalogTable.filter(isStream)
    case _ => None
  }

  /** A source stream's `rowtime = 'column'`, when it names a column other than ROWTIME. */
  def declaredRowtime(t: CatalogTable): Option[String] = t.properties.get(RowtimeProperty)

  /** A source stream's `lateness = '10 seconds'`, in microseconds. */
  def latenessMicros(t: CatalogTable): Option[Long] = t.properties.get(LatenessProperty).map(latenessOf)

  /** `'10 seconds'`, `'1 minute'`, `'500 milliseconds'` ... (Spark's interval strings) in microseconds. */
  def latenessOf(text: String): Long = {
    val i = IntervalUtils.stringToInterval(UTF8String.fromString(text))
    if (i.months != 0) throw new IllegalArgumentException(s"lateness '$text': months and years have no fixed length")
    val micros = i.days * 86400000000L + i.microseconds
    if (micros < 0) throw new IllegalArgumentException(s"lateness '$text' is negative")
    micros
  }
  def kind(t: CatalogTable): String = t.properties.getOrElse(KindProperty, "")

  /** A durable stream: a parquet table in the warehouse that pumps and `INSERT INTO` write. */
  def isDurable(t: CatalogTable): Boolean = kind(t) == "durable"

  /** A stream's name as messages show it: its schema as the user wrote it ([[SchemaNames.shown]]). */
  def shown(session: SparkSession, id: TableIdentifier): String =
    id.database.map(db => SchemaNames.shown(session, db) + ".").getOrElse("") + StreamStatementParser.quoteIfNeeded(id.table)

  /** The database of the s-Server schema `schema` ([[SchemaNames]]), in lower case as Spark keeps it. */
  def database(session: SparkSession, schema: String): String =
    SchemaNames.checkedDatabase(session, schema).toLowerCase(java.util.Locale.ROOT)

  def qualified(id: TableIdentifier): String =
    id.database.map(db => StreamStatementParser.quoteIfNeeded(db) + ".").getOrElse("") +
      StreamStatementParser.quoteIfNeeded(id.table)

  /** `s` as a Spark SQL string literal. */
  def literal(s: String): String = "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"

  /** The schema rows are written with (CHAR/VARCHAR read as STRING). */
  def writeSchema(t: CatalogTable): StructType = CharVarcharUtils.replaceCharVarcharWithStringInSchema(t.schema)

  /** Checks a column list and tells whether it declares ROWTIME itself. */
  def declaresRowtime(session: SparkSession, name: String, columns: String): Boolean = {
    val schema = try session.sessionState.sqlParser.parseTableSchema(columns) catch {
      case e: Exception => throw new IllegalArgumentException(s"stream $name: bad column list: ${e.getMessage}", e)
    }
    if (schema.isEmpty) throw new IllegalArgumentException(s"stream $name: a stream needs at least one column")
    schema.find(_.name.equalsIgnoreCase(Rowtime)) match {
      case Some(f) if f.dataType != TimestampType =>
        throw new IllegalArgumentException(s"stream $name: ROWTIME must be a TIMESTAMP, not ${f.dataType.sql}")
      case found => found.isDefined
    }
  }
}
