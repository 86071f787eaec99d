package io.overjoin.errors

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.trees.Origin

/** One entry of `overjoin-error-conditions.json`, the catalogue shared with the Python validator. */
final case class ErrorCondition(name: String, code: String, sqlState: String, message: String, hint: String) {

  /** Fill the `<param>` placeholders of the message and hint. */
  def render(params: Map[String, String]): (String, String) = {
    def fill(t: String) = params.foldLeft(t) { case (acc, (k, v)) => acc.replace(s"<$k>", v) }
    (fill(message), fill(hint))
  }
}

object ErrorCatalogue {
  private val Resource = "overjoin-error-conditions.json"

  lazy val conditions: Map[String, ErrorCondition] = {
    val in = Option(getClass.getClassLoader.getResourceAsStream(Resource)).getOrElse(
      throw new IllegalStateException(s"$Resource is missing from overjoin's jar: the jar is broken, rebuild it"))
    try {
      val root: JsonNode = new ObjectMapper().readTree(in)
      root.fields().asScala.filterNot(_.getKey.startsWith("_")).map { e =>
        val v = e.getValue
        e.getKey -> ErrorCondition(e.getKey, v.get("code").asText(), v.get("sqlState").asText(),
          v.get("message").asText(), v.get("hint").asText())
      }.toMap
    } finally in.close()
  }

  def apply(name: String): ErrorCondition = conditions.getOrElse(name,
    throw new IllegalArgumentException(s"unknown overjoin error condition $name"))
}

/** A position in the user's SQL text: character offsets, plus 1-based line and column. */
final case class SqlPosition(start: Int, stop: Int, line: Int, column: Int)

object SqlPosition {
  def of(sql: String, start: Int, stop: Int): SqlPosition = {
    val s = math.max(0, math.min(start, sql.length))
    val before = sql.substring(0, s)
    val line = before.count(_ == '\n') + 1
    val column = s - (before.lastIndexOf('\n') + 1) + 1
    SqlPosition(s, math.max(s, stop), line, column)
  }
}

/** Shared by overjoin's exceptions: the condition, its code and the rendered text. */
trait OverjoinError {
  def condition: ErrorCondition
  def params: Map[String, String]
  def code: String = condition.code
  def rendered: (String, String) = condition.render(params)
  def headline: String = {
    val (msg, hint) = rendered
    s"[${condition.name}] ${condition.code}: $msg Hint: $hint"
  }
}

/**
 * A syntax error in overjoin's dialect, raised as a Spark `ParseException` (so pyspark raises
 * `pyspark.errors.ParseException`) with the position in the user's own text.
 */
final class OverjoinParseException(
    val condition: ErrorCondition,
    val params: Map[String, String],
    val sql: String,
    val position: SqlPosition)
  extends ParseException(
    Some(sql),
    Origin(line = Some(position.line), startPosition = Some(position.column - 1),
      startIndex = Some(position.start), stopIndex = Some(math.max(position.start, position.stop - 1)),
      sqlText = Some(sql)),
    // Spark's constructor formats a message from one of its own conditions; ours replaces it below.
    "PARSE_SYNTAX_ERROR",
    Map("error" -> "", "hint" -> ""))
  with OverjoinError {

  override def getCondition: String = condition.name
  override def getSqlState: String = condition.sqlState
  override def getMessageParameters: java.util.Map[String, String] = params.asJava

  override def getMessage: String = {
    val b = new StringBuilder(headline)
    b ++= s"\n== SQL (line ${position.line}, position ${position.column}) ==\n"
    val lines = sql.split("\n", -1)
    lines.zipWithIndex.foreach { case (l, i) =>
      b ++= l + "\n"
      if (i + 1 == position.line) {
        val width = math.max(1, math.min(position.stop, position.start + l.length) - position.start)
        b ++= "-" * (position.column - 1) + "^" * math.min(width, math.max(1, l.length - position.column + 1)) + "\n"
      }
    }
    b.toString.stripSuffix("\n")
  }
}

/** An error found while analyzing an overjoin query (after parsing), e.g. an input with no rowtime. */
final class OverjoinAnalysisException(
    val condition: ErrorCondition,
    val params: Map[String, String],
    origin: Origin = Origin())
  extends AnalysisException(
    ErrorCatalogue(condition.name).render(params) match {
      case (m, h) => s"[${condition.name}] ${condition.code}: $m Hint: $h"
    },
    origin.line, origin.startPosition, None, None, Map.empty[String, String], Array.empty)
  with OverjoinError {
  override def getCondition: String = condition.name
  override def getSqlState: String = condition.sqlState
  override def getMessageParameters: java.util.Map[String, String] = params.asJava
}

/** Constructors for every overjoin error, so that messages are written in one place. */
object OverjoinErrors {
  def parse(name: String, sql: String, start: Int, stop: Int, params: (String, String)*): OverjoinParseException =
    new OverjoinParseException(ErrorCatalogue(name), params.toMap, sql, SqlPosition.of(sql, start, stop))

  def analysis(name: String, params: (String, String)*): OverjoinAnalysisException =
    new OverjoinAnalysisException(ErrorCatalogue(name), params.toMap)

  /** An analysis error about the text at `origin` (line and position in the user's SQL). */
  def analysisAt(origin: Origin, name: String, params: (String, String)*): OverjoinAnalysisException =
    new OverjoinAnalysisException(ErrorCatalogue(name), params.toMap, origin)

  def quote(id: String): String = s"`$id`"
}
