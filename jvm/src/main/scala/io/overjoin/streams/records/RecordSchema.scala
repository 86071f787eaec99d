package io.overjoin.streams.records

import org.apache.spark.sql.types.{CharType, DataType, StructField, StructType, VarcharType}

/** How a record's bytes hold rows: KDA's `RecordFormat` (docs/server.md, "Input schemas"). */
sealed trait RecordFormat {
  def name: String
}

object RecordFormat {
  /**
   * JSON: a record holds one or more JSON documents; `rowPath` is KDA's `RecordRowPath`, where
   * each document's rows are (`$`: the document; `$.records[0:]`: each element of `records`).
   */
  final case class Json(rowPath: JsonPath) extends RecordFormat { def name: String = "json" }

  /**
   * CSV: rows separated by `rowDelimiter`, fields by `columnDelimiter` (each any non-empty string);
   * with `skipHeader` a record's first row is a header, not a row (s-Server's `SKIP_HEADER` of a
   * file: each file of a folder stream is one record).
   */
  final case class Csv(rowDelimiter: String, columnDelimiter: String, skipHeader: Boolean = false) extends RecordFormat {
    def name: String = "csv"
  }
}

/**
 * One column of an input schema: KDA's `RecordColumn`. `dataType` is as declared (CHAR and
 * VARCHAR keep their length, which a read value is cut to, as KDA does); `mapping` is where a
 * JSON record holds it (`$.<name>` when not declared; unused for CSV, whose fields are read by
 * position).
 */
final case class RecordColumn(name: String, dataType: DataType, mapping: JsonPath) {
  /** The length CHAR(n) and VARCHAR(n) values are cut to. */
  def maxLength: Option[Int] = dataType match {
    case v: VarcharType => Some(v.length)
    case c: CharType => Some(c.length)
    case _ => None
  }
}

/**
 * An input schema (KDA's `InputSchema` or `ReferenceSchema`): the record format and the columns.
 * The decoded rows are [[RecordDecoder]]'s; what each value becomes is [[ValueReader]]'s.
 */
final case class RecordSchema(format: RecordFormat, columns: Seq[RecordColumn]) {
  import RecordSchema._

  /** The one array the rows are flattened over (KDA flattens at most one), relative to a row. */
  lazy val flattened: Option[Seq[JsonPath.Step]] = columns.flatMap(c => relative(c.mapping)).collectFirst {
    case steps if steps.contains(JsonPath.Elements) && steps.last != JsonPath.Elements =>
      steps.take(steps.indexOf(JsonPath.Elements) + 1)
  }

  /**
   * A column's steps from its row: a mapping that starts with the row path is read under each
   * row (`$.records[0:].ticker` with row path `$.records[0:]`), any other relative to the row (with
   * row path `$`, every mapping: KDA's own examples).
   */
  def relative(mapping: JsonPath): Option[Seq[JsonPath.Step]] = format match {
    case RecordFormat.Json(rowPath) => Some(mapping.after(rowPath).getOrElse(mapping.steps))
    case _: RecordFormat.Csv => None
  }

  /**
   * KDA's rules a schema must keep, checked where it is declared: at most one flattened array (an
   * array read with `[0:].name`), the row path's included. Left((problem, index of the column)).
   */
  def check(): Either[(String, Int), Unit] = format match {
    case _: RecordFormat.Csv => Right(())
    case RecordFormat.Json(rowPath) =>
      if (rowPath.steps.count(_ == JsonPath.Elements) > 0 && rowPath.steps.last != JsonPath.Elements) {
        return Left((s"the row path ${rowPath.text} must end at its [0:] (rows are that array's elements)", -1))
      }
      val arrays = columns.zipWithIndex.flatMap { case (c, i) =>
        relative(c.mapping).filter(s => s.contains(JsonPath.Elements) && s.last != JsonPath.Elements).map { s =>
          (JsonPath.render(s.take(s.indexOf(JsonPath.Elements) + 1)), i)
        }
      }
      val distinct = arrays.map(_._1).distinct
      if (rowPath.arrays > 0 && arrays.nonEmpty) {
        Left((s"the rows are the elements of ${rowPath.text} already: a column cannot flatten " +
          s"${arrays.head._1} too (KDA flattens one array per schema; map it to a VARCHAR as ${arrays.head._1})", arrays.head._2))
      } else if (distinct.size > 1) {
        val second = arrays.find(_._1 == distinct(1)).get
        Left((s"${distinct(1)} is a second flattened array after ${distinct.head}: KDA flattens one array per " +
          s"schema (read the other whole into a VARCHAR, as ${distinct(1)})", second._2))
      } else Right(())
  }

  /** The struct each decoded row has: the columns as Spark stores them, then the error fields. */
  def rowType: StructType = StructType(columns.map(c => StructField(c.name, storedType(c.dataType))) ++ Seq(
    StructField(ErrorName, org.apache.spark.sql.types.StringType),
    StructField(ErrorMessage, org.apache.spark.sql.types.StringType),
    StructField(DataRow, org.apache.spark.sql.types.StringType)))
}

object RecordSchema {
  /** Fields of a decoded row that say why it is an error row (null for a row of the stream). */
  val ErrorName = "_error_name"
  val ErrorMessage = "_error_message"
  val DataRow = "_data_row"

  /** CHAR and VARCHAR are strings once read. */
  def storedType(t: DataType): DataType = t match {
    case _: CharType | _: VarcharType => org.apache.spark.sql.types.StringType
    case other => other
  }

  /** `\n`, `\t`, `\r`, `\\`, `\'` and `\uXXXX` in a delimiter as written in SQL ('\t' is a tab, as in KDA's JSON). */
  def unescape(s: String): String = {
    val out = new StringBuilder
    var i = 0
    while (i < s.length) {
      val c = s.charAt(i)
      if (c == '\\' && i + 1 < s.length) {
        s.charAt(i + 1) match {
          case 'n' => out += '\n'; i += 2
          case 't' => out += '\t'; i += 2
          case 'r' => out += '\r'; i += 2
          case '\\' => out += '\\'; i += 2
          case '\'' => out += '\''; i += 2
          case 'u' if i + 5 < s.length && s.substring(i + 2, i + 6).matches("[0-9A-Fa-f]{4}") =>
            out += Integer.parseInt(s.substring(i + 2, i + 6), 16).toChar; i += 6
          case _ => out += c; i += 1
        }
      } else { out += c; i += 1 }
    }
    out.toString
  }

  /** A delimiter as SQL writes it again ('\n' for a newline), for SHOW and DESCRIBE. */
  def escape(s: String): String = s.flatMap {
    case '\n' => "\\n"
    case '\t' => "\\t"
    case '\r' => "\\r"
    case '\\' => "\\\\"
    case c => c.toString
  }
}
