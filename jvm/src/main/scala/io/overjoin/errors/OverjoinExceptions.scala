package io.overjoin.errors

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.trees.Origin

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

/** Shared by overjoin's exceptions: the condition, its code and the text in Spark's layout. */
trait OverjoinError {
  def condition: ErrorCondition
  def params: Map[String, String]
  def code: String = condition.code

  /** `[CONDITION] OJ123: message Hint: hint SQLSTATE: 42K0L`, as Spark writes its own. */
  def headline: String = {
    val (msg, hint) = condition.render(params)
    s"[${condition.name}] ${condition.code}: $msg Hint: $hint SQLSTATE: ${condition.sqlState}"
  }
}

/**
 * A syntax error in overjoin's dialect, raised as a Spark `ParseException` (so pyspark raises
 * `pyspark.errors.ParseException`) with its position in the user's own text, in the layout of
 * Spark's parse errors: ` (line 1, pos 7)` (0-based position) and the statement with a marker.
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
    val pos = position.column - 1
    val b = new StringBuilder("\n").append(headline).append(s" (line ${position.line}, pos $pos)\n")
    val (above, below) = sql.split("\n", -1).toSeq.splitAt(position.line)
    b.append("\n== SQL ==\n")
    above.foreach(l => b.append(l).append('\n'))
    b.append("-" * pos).append("^^^\n")
    below.foreach(l => b.append(l).append('\n'))
    b.toString
  }
}

/** An error found while analyzing an overjoin query (after parsing), e.g. an input with no rowtime. */
final class OverjoinAnalysisException(
    val condition: ErrorCondition,
    val params: Map[String, String],
    origin: Origin = Origin())
  extends AnalysisException(
    ErrorCatalogue(condition.name).render(params) match {
      case (m, h) => s"[${condition.name}] ${condition.code}: $m Hint: $h SQLSTATE: ${condition.sqlState}"
    },
    origin.line, origin.startPosition, None, None, Map.empty[String, String], Array.empty)
  with OverjoinError {
  override def getCondition: String = condition.name
  override def getSqlState: String = condition.sqlState
  override def getMessageParameters: java.util.Map[String, String] = params.asJava
}

/**
 * An error overjoin finds while a query runs (on an executor, say), such as state it cannot read.
 * It fails the query with the condition's text; Spark reports it as the cause of the failure.
 */
final class OverjoinRuntimeException(val condition: ErrorCondition, val params: Map[String, String])
  extends RuntimeException(
    ErrorCatalogue(condition.name).render(params) match {
      case (m, h) => s"[${condition.name}] ${condition.code}: $m Hint: $h SQLSTATE: ${condition.sqlState}"
    })
  with OverjoinError
