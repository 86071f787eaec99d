package io.overjoin.streams.records

import java.nio.charset.StandardCharsets

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.JsonProcessingException
import com.fasterxml.jackson.databind.{DeserializationFeature, JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.{ArrayNode, JsonNodeFactory, MissingNode, ObjectNode}

import org.apache.spark.sql.types.StringType

/**
 * The rows of one record under an input schema, as Kinesis Data Analytics reads them
 * (docs/server.md, "Input schemas"), and the error rows of what does not read.
 *
 * JSON: a record holds one or more JSON documents (a Lambda preprocessor may return several in
 * one record, and KDA reads them all). Each document gives its rows: one, or one per element of
 * the row path's array (`$.records[0:]`), and again one per element of the one array a column
 * flattens (`$.orders[0:].item`; the other columns repeat on each); an empty or missing array still
 * gives one row, of NULLs for its columns. CSV: rows separated by the row delimiter, fields by the
 * column delimiter, read by position; a field in double quotes may hold either delimiter (`""` is a
 * quote); fields after the last column are ignored, missing ones are NULL, an empty field is NULL
 * (an empty string for CHAR/VARCHAR); empty rows are skipped.
 *
 * A row with a value that does not read as its column's type, or a document that is not JSON,
 * becomes an error row: the error's name and message, and the row's text as KDA's `DATA_ROW`
 * (hex of its UTF-8 bytes). Nothing is dropped silently.
 */
final class RecordDecoder(schema: RecordSchema) extends Serializable {
  import RecordDecoder._

  /** One decoded row: its values, or an error (name, message, the row's text). */
  sealed trait Decoded
  final case class Values(values: Array[Any]) extends Decoded
  final case class Failed(name: String, message: String, text: String) extends Decoded

  def decode(payload: String): Seq[Decoded] = schema.format match {
    case RecordFormat.Json(rowPath) => json(payload, rowPath)
    case RecordFormat.Csv(rows, fields, header) => csv(payload, rows, fields, header)
  }

  // ---- JSON ----------------------------------------------------------------------------------

  @transient private lazy val mapper: ObjectMapper = {
    val m = new ObjectMapper()
    m.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
    m.setNodeFactory(JsonNodeFactory.withExactBigDecimals(true))
    m
  }

  @transient private lazy val relative: Array[Seq[JsonPath.Step]] =
    schema.columns.map(c => schema.relative(c.mapping).getOrElse(c.mapping.steps)).toArray

  private def json(payload: String, rowPath: JsonPath): Seq[Decoded] = {
    val out = ArrayBuffer.empty[Decoded]
    val parser = mapper.getFactory.createParser(payload)
    var lastEnd = 0 // where the last document read ended: what follows it is the next row's text
    try {
      var more = true
      while (more) {
        val token = try parser.nextToken() catch {
          case e: JsonProcessingException => out += notJson(payload, lastEnd, e); null
        }
        if (token == null) more = false
        else {
          val start = parser.currentTokenLocation().getCharOffset.toInt
          try {
            val doc: JsonNode = mapper.readTree[JsonNode](parser)
            val end = math.min(payload.length, parser.currentLocation().getCharOffset.toInt)
            val text = payload.substring(math.max(0, start), math.max(start, end))
            lastEnd = end
            rowsOf(doc, rowPath).foreach(values => out += values.fold(e => Failed(CoercionError, e, text), Values))
          } catch {
            case e: JsonProcessingException =>
              out += Failed(ParseError, s"the record is not JSON: ${firstLine(e)}", payload.substring(math.max(0, start)))
              more = false
          }
        }
      }
    } finally parser.close()
    out.toSeq
  }

  private def notJson(payload: String, from: Int, e: JsonProcessingException): Decoded =
    Failed(ParseError, s"the record is not JSON: ${firstLine(e)}", payload.substring(math.min(from, payload.length)).trim)

  /** Each row of one document: its values, or why one of them does not read. */
  private def rowsOf(doc: JsonNode, rowPath: JsonPath): Seq[Either[String, Array[Any]]] = {
    val rowNodes: Seq[JsonNode] = rowPath.steps.lastOption match {
      case Some(JsonPath.Elements) => elements(walk(doc, rowPath.steps.init))
      case _ => Seq(walk(doc, rowPath.steps))
    }
    val flat = schema.flattened
    rowNodes.flatMap { row =>
      flat match {
        case None => Seq(values(i => walk(row, relative(i))))
        case Some(array) =>
          elements(walk(row, array.init)).map { element =>
            values(i => relative(i) match {
              case steps if steps.startsWith(array) => walk(element, steps.drop(array.length))
              case steps => walk(row, steps)
            })
          }
      }
    }
  }

  /** An array's elements; a missing, empty or non-array node gives one missing element (one row of NULLs). */
  private def elements(node: JsonNode): Seq[JsonNode] = node match {
    case a: ArrayNode if a.size > 0 => a.elements().asScala.toSeq
    case _ => Seq(MissingNode.getInstance())
  }

  private def walk(node: JsonNode, steps: Seq[JsonPath.Step]): JsonNode = steps.foldLeft(node) {
    case (o: ObjectNode, JsonPath.Field(name)) => Option(o.get(name)).getOrElse(MissingNode.getInstance())
    case (a: ArrayNode, JsonPath.Elements) => a
    case _ => MissingNode.getInstance()
  }

  private def values(at: Int => JsonNode): Either[String, Array[Any]] = {
    val out = new Array[Any](schema.columns.length)
    var i = 0
    while (i < out.length) {
      val column = schema.columns(i)
      ValueReader.read(sourceValue(at(i)), column) match {
        case Right(v) => out(i) = v
        case Left(why) => return Left(s"column ${column.name} (${column.mapping}): $why")
      }
      i += 1
    }
    Right(out)
  }

  private def sourceValue(node: JsonNode): SourceValue = {
    import SourceValue._
    if (node == null || node.isMissingNode || node.isNull) Null
    else if (node.isBoolean) Bool(node.booleanValue)
    else if (node.isNumber) Number(node.decimalValue)
    else if (node.isTextual) Text(node.textValue)
    else if (node.isContainerNode) Container(mapper.writeValueAsString(node), node.isArray)
    else Text(node.asText)
  }

  // ---- CSV -----------------------------------------------------------------------------------

  private def csv(payload: String, rowDelimiter: String, columnDelimiter: String, skipHeader: Boolean): Seq[Decoded] = {
    val out = ArrayBuffer.empty[Decoded]
    splitRows(payload, rowDelimiter).drop(if (skipHeader) 1 else 0).foreach { row =>
      if (row.nonEmpty) {
        fields(row, columnDelimiter) match {
          case Left(why) => out += Failed(ParseError, why, row)
          case Right(fs) =>
            val values = new Array[Any](schema.columns.length)
            var failure: Option[String] = None
            var i = 0
            while (i < values.length && failure.isEmpty) {
              val column = schema.columns(i)
              val source = fs.lift(i) match {
                case None => SourceValue.Null
                case Some(f) if f.isEmpty && RecordSchema.storedType(column.dataType) != StringType => SourceValue.Null
                case Some(f) => SourceValue.Text(f)
              }
              ValueReader.read(source, column) match {
                case Right(v) => values(i) = v
                case Left(why) => failure = Some(s"column ${column.name} (field ${i + 1}): $why")
              }
              i += 1
            }
            out += failure.map(Failed(CoercionError, _, row)).getOrElse(Values(values))
        }
      }
    }
    out.toSeq
  }

  /** The rows of a CSV payload: split at the row delimiter, except inside double quotes. */
  private def splitRows(payload: String, delimiter: String): Seq[String] = {
    val rows = ArrayBuffer.empty[String]
    var start = 0
    var i = 0
    var quoted = false
    while (i < payload.length) {
      val c = payload.charAt(i)
      if (c == '"') { quoted = !quoted; i += 1 }
      else if (!quoted && payload.startsWith(delimiter, i)) { rows += payload.substring(start, i); i += delimiter.length; start = i }
      else i += 1
    }
    rows += payload.substring(start)
    rows.toSeq
  }

  /** The fields of one CSV row; a field that starts with `"` runs to its closing quote. */
  private def fields(row: String, delimiter: String): Either[String, Seq[String]] = {
    val out = ArrayBuffer.empty[String]
    var i = 0
    var done = false
    while (!done) {
      if (i < row.length && row.charAt(i) == '"') {
        val value = new StringBuilder
        var j = i + 1
        var closed = false
        while (j < row.length && !closed) {
          if (row.charAt(j) == '"') {
            if (j + 1 < row.length && row.charAt(j + 1) == '"') { value += '"'; j += 2 } else { closed = true; j += 1 }
          } else { value += row.charAt(j); j += 1 }
        }
        if (!closed) return Left(s"the row has a field in quotes that does not end: ${row.take(100)}")
        out += value.toString
        if (j >= row.length) done = true
        else if (row.startsWith(delimiter, j)) i = j + delimiter.length
        else return Left(s"the quoted field ending at character ${j} is followed by '${row.charAt(j)}', not the column delimiter")
      } else {
        val next = row.indexOf(delimiter, i)
        if (next < 0) { out += row.substring(i); done = true }
        else { out += row.substring(i, next); i = next + delimiter.length }
      }
    }
    Right(out.toSeq)
  }
}

object RecordDecoder {
  /** KDA's `ERROR_NAME` of a value that does not read as its column's type. */
  val CoercionError = "Coercion error"
  /** `ERROR_NAME` of a record that is not JSON, or a CSV row whose quotes do not close. */
  val ParseError = "Parse error"
  /** `ERROR_NAME` of a record a Lambda preprocessor answered `ProcessingFailed` for. */
  val ProcessingFailed = "Processing failed"

  /** KDA's `DATA_ROW`: the row's UTF-8 bytes in hex. */
  def hex(text: String): String = {
    val bytes = text.getBytes(StandardCharsets.UTF_8)
    val sb = new StringBuilder(bytes.length * 2)
    bytes.foreach(b => sb ++= f"${b & 0xff}%02X")
    sb.toString
  }

  private def firstLine(e: Throwable): String =
    Option(e.getMessage).map(_.linesIterator.next()).getOrElse(e.toString).take(300)
}
