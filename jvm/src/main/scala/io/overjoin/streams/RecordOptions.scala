package io.overjoin.streams

import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.types.{StructField, TimestampType}

import io.overjoin.errors.{OverjoinErrors, TextSpan}
import io.overjoin.parser.Token
import io.overjoin.streams.records.{JsonPath, RecordColumn, RecordFormat, RecordSchema}

/**
 * The options of a KDA input schema in `CREATE STREAM ... WITH (...)` (and `CREATE REFERENCE
 * TABLE`), docs/server.md, "Input schemas":
 * {{{
 *   record_format = 'json' | 'csv'          KDA's RecordFormatType (value_format is the same option)
 *   record_row_path = '$.records[0:]'       JSON: where a document's rows are (default '$')
 *   record_row_delimiter = '\n'             CSV: between rows (default '\n')
 *   record_column_delimiter = ','           CSV: between fields (default ',')
 *   record_encoding = 'UTF-8'               the only encoding KDA reads
 * }}}
 * with a `MAPPING '$.path'` per column. They are checked where they are written (the parser), so
 * that `overjoin check` and the server refuse the same text at the same place; the table keeps
 * them as properties, from which [[schemaOf]] builds what [[records.DecodeRecords]] reads.
 */
object RecordOptions {
  /** One `key = 'value'` of WITH (...), with the token of its value. */
  final case class Option_(key: String, value: String, token: Token)

  val Format = "record_format"
  val RowPath = "record_row_path"
  val RowDelimiter = "record_row_delimiter"
  val ColumnDelimiter = "record_column_delimiter"
  val Encoding = "record_encoding"
  /** Options that make a stream's records read by KDA's rules (any of them, or a MAPPING). */
  val Names: Set[String] = Set(Format, "value_format", RowPath, RowDelimiter, ColumnDelimiter, Encoding)

  val RowPathProperty = "overjoin.record.row_path"
  val RowDelimiterProperty = "overjoin.record.row_delimiter"
  val ColumnDelimiterProperty = "overjoin.record.column_delimiter"
  val MappingPrefix = "overjoin.record.mapping."
  /** CSV records whose first row is a header (an s-Server foreign stream's `SKIP_HEADER 'true'`). */
  val SkipHeaderProperty = "overjoin.record.skip_header"

  /**
   * Checks the options and mappings of `stream` as KDA would; errors point at the option's value.
   * `describe` and `describeMapping` name an option and a column's mapping in the message as the
   * statement wrote them (an s-Server foreign stream writes them as options of its own).
   */
  def check(sql: String, stream: String, options: Seq[Option_], mappings: Seq[(String, JsonPath)],
      describe: Option_ => String = o => s"the option ${o.key} = '${o.value}'",
      describeMapping: (String, String) => String = (c, p) => s"the MAPPING '$p' of column $c"): Unit = {
    def fail(o: Option_, problem: String, fix: String): Nothing = {
      val quoted = o.token.text.length >= 2 && (o.token.text.startsWith("'") || o.token.text.startsWith("\""))
      val start = if (quoted) o.token.start + 1 else o.token.start
      throw OverjoinErrors.inputSchema(TextSpan(sql, start, math.max(start + 1, if (quoted) o.token.end - 1 else o.token.end)),
        stream, describe(o), problem, fix)
    }
    val byKey = options.map(o => o.key -> o).toMap
    val format = byKey.get(Format).orElse(byKey.get("value_format"))
    format.foreach { o =>
      if (!Set("json", "csv").contains(o.value.toLowerCase)) fail(o, "is not a record format KDA reads", "write 'json' or 'csv'")
    }
    // A folder of CSV files (format = 'csv') holds CSV records unless record_format says otherwise.
    val isCsv = format.map(_.value.equalsIgnoreCase("csv")).getOrElse(byKey.get("format").exists(_.value.equalsIgnoreCase("csv")))
    byKey.get(Encoding).foreach { o =>
      if (!o.value.equalsIgnoreCase("UTF-8")) fail(o, "is not an encoding KDA reads", "records are UTF-8: write 'UTF-8' or drop the option")
    }
    Seq(RowDelimiter, ColumnDelimiter).flatMap(byKey.get).foreach { o =>
      if (!isCsv) fail(o, "applies to CSV records only", "add record_format = 'csv', or drop it")
      if (RecordSchema.unescape(o.value).isEmpty) fail(o, "is empty", "give the delimiter, such as ',' or '\\t' (a tab) or '\\n' (a newline)")
    }
    val rowPath = byKey.get(RowPath).map { o =>
      if (isCsv) fail(o, "applies to JSON records only", "drop it, or write record_format = 'json'")
      JsonPath.parse(o.value) match {
        case Right(p) =>
          if (p.arrays > 0 && p.steps.last != JsonPath.Elements) fail(o, "must end at its [0:] (the rows are that array's elements)",
            "write the path of the array, such as '$.records[0:]'")
          p
        case Left((problem, _)) => fail(o, problem, "write '$' (each document is a row) or '$.records[0:]' (each element of records)")
      }
    }.getOrElse(JsonPath.Root)
    if (!isCsv) {
      val columns = mappings.map { case (c, p) => RecordColumn(c, org.apache.spark.sql.types.StringType, p) }
      RecordSchema(RecordFormat.Json(rowPath), columns).check() match {
        case Left((problem, i)) =>
          if (i < 0) fail(byKey(RowPath), problem, "flatten one array")
          // The offending column's MAPPING: found again in the text for its position.
          val (column, path) = mappings(i)
          val at = sql.indexOf("'" + path.text + "'")
          throw OverjoinErrors.inputSchema(TextSpan(sql, math.max(0, at + 1), math.max(1, at + 1 + path.text.length)),
            stream, describeMapping(column, path.text), problem, "flatten one array, read the others whole")
        case Right(()) =>
      }
    }
  }

  /** Whether the options or mappings ask for KDA's reading of records. */
  def declared(options: Map[String, String], mappings: Seq[(String, String)]): Boolean =
    mappings.nonEmpty || options.keys.exists(k => Names(k.toLowerCase))

  /** The table properties that keep the schema's options and mappings. */
  def properties(options: Map[String, String], mappings: Seq[(String, String)]): Seq[(String, String)] = {
    val lower = options.map { case (k, v) => k.toLowerCase -> v }
    lower.get(RowPath).map(RowPathProperty -> _).toSeq ++
      lower.get(RowDelimiter).map(RowDelimiterProperty -> _) ++
      lower.get(ColumnDelimiter).map(ColumnDelimiterProperty -> _) ++
      mappings.map { case (c, p) => (MappingPrefix + c.toLowerCase) -> p }
  }

  /**
   * The input schema a stream's records are read with: its declared columns (their mappings, by
   * default `$.<name>`) and, for JSON, its implicit ROWTIME read from the records' field of that
   * name (for CSV the implicit ROWTIME is the records' arrival: CSV fields are read by position).
   */
  def schemaOf(t: CatalogTable, format: String): RecordSchema = {
    val props = t.properties
    val declared = CharVarcharUtils.getRawSchema(t.schema)
    val implicitRowtime = props.get(Streams.ImplicitRowtimeProperty)
    def mapping(f: StructField): JsonPath =
      props.get(MappingPrefix + f.name.toLowerCase).map(p => JsonPath.parse(p).toOption.get).getOrElse(JsonPath.ofName(f.name))
    val fields = declared.fields.toSeq.filterNot(f => implicitRowtime.exists(_.equalsIgnoreCase(f.name)) && format == "csv")
    val columns = fields.map { f =>
      val t = if (implicitRowtime.exists(_.equalsIgnoreCase(f.name))) TimestampType else f.dataType
      RecordColumn(f.name, t, mapping(f))
    }
    val recordFormat = format match {
      case "csv" => RecordFormat.Csv(
        RecordSchema.unescape(props.getOrElse(RowDelimiterProperty, "\\n")),
        RecordSchema.unescape(props.getOrElse(ColumnDelimiterProperty, ",")),
        skipHeader = props.get(SkipHeaderProperty).contains("true"))
      case _ => RecordFormat.Json(props.get(RowPathProperty).map(p => JsonPath.parse(p).toOption.get).getOrElse(JsonPath.Root))
    }
    RecordSchema(recordFormat, columns)
  }
}
