package io.overjoin.catalyst.parser

import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.{ParameterContext, ParameterHandler, ParseException, ParserInterface, SqlStatementSplitResult, TemporalIdentifier}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{DataType, StructType}

import io.overjoin.model.ScanResult

import io.overjoin.config.OverjoinConf
import io.overjoin.errors.OverjoinParseException
import io.overjoin.parser.{DeepStack, Lexer, QueryBlockScanner, TokenKind}
import io.overjoin.streams.{CreatePumpCommand, StreamStatementParser}

/**
 * overjoin's SQL parser. It wraps the parser Spark gives it (Spark's own, or Delta's, Iceberg's, or
 * any other extension's: whatever comes before it in `spark.sql.extensions`).
 *
 * `parsePlan`, `parseQuery` and `parsePlanWithParameters` go through one [[dispatch]]: a statement
 * whose query blocks use overjoin's dialect is parsed by [[QueryBlockScanner]], its overjoin-only
 * clauses are blanked out, the delegate parses the rest, and [[StreamPlanBuilder]] puts overjoin's
 * nodes into the plan. Every other statement goes to the delegate untouched, and every other method
 * simply forwards.
 */
class OverjoinSqlParser(val delegate: ParserInterface) extends ParserInterface {

  override def parsePlan(sqlText: String): LogicalPlan =
    dispatch(sqlText, None, delegate.parsePlan)

  /** Spark parses a view's stored text with this: a view of a `SELECT STREAM` query gets its ROWTIME. */
  override def parseQuery(sqlText: String): LogicalPlan =
    dispatch(sqlText, None, delegate.parseQuery, viewBody = true)

  override def parsePlanWithParameters(sqlText: String, parameterContext: ParameterContext): LogicalPlan =
    dispatch(sqlText, Some(parameterContext), delegate.parsePlan)

  /**
   * The one way in for statements. `parse` is the delegate's method for this kind of statement;
   * with parameters, an overjoin statement has them substituted first (as Spark does before
   * parsing), so that plan positions are those of the text that was parsed.
   */
  private def dispatch(
      sqlText: String,
      parameters: Option[ParameterContext],
      parse: String => LogicalPlan,
      viewBody: Boolean = false): LogicalPlan = {
    // Streams and pumps (CREATE STREAM, CREATE PUMP, SHOW PUMPS, ...) are whole statements of their own.
    val streamStatement = if (OverjoinConf.parserEnabled()) StreamStatementParser.parse(sqlText) else None
    streamStatement.foreach {
      case pump: CreatePumpCommand =>
        // The pump's query runs later, in the server; its syntax (overjoin's and Spark's) is
        // checked now, with positions in this statement (the text before the query blanked).
        val at = sqlText.lastIndexOf(pump.query)
        if (at > 0) dispatch(sqlText.substring(0, at).map(ch => if (ch == '\n') ch else ' ') + sqlText.substring(at),
          None, delegate.parsePlan)
      case _ =>
    }
    if (streamStatement.isDefined) return streamStatement.get
    val scan = if (OverjoinConf.parserEnabled() && QueryBlockScanner.mayBeOurs(sqlText)) QueryBlockScanner.scan(sqlText)
      else ScanResult.NotOurs
    if (!scan.isOurs) {
      return DeepStack.sparks(sqlText)(parameters match {
        case Some(ctx) => delegate.parsePlanWithParameters(sqlText, ctx)
        case None => parse(sqlText)
      })
    }
    // Parameters are substituted into the blanked text (Spark's substitution parser must not see
    // overjoin's syntax); plan positions are then mapped back through Spark's position mapper.
    val blanked = scan.blank(sqlText)
    val (text, toOriginal) = parameters match {
      case Some(ctx) if hasParameterMarkers(sqlText) =>
        val (substituted, mapper) = ParameterHandler.substituteParameters(blanked, ctx)
        (substituted, (i: Int) => mapper.mapToOriginal(i))
      case _ => (blanked, (i: Int) => i)
    }
    val plan = try DeepStack.refuse(sqlText)(parse(text)) catch {
      // Blanking keeps every position, so Spark's error points at the right place: show it
      // under the text the user wrote.
      case e: OverjoinParseException => throw e
      case e: ParseException if text eq blanked => throw e.withCommand(sqlText)
    }
    DeepStack.run(sqlText)(
      StreamPlanBuilder.attach(scan, plan, sqlText, toOriginal, if (text eq blanked) Some((blanked, sqlText)) else None,
        viewBody))
  }

  private def hasParameterMarkers(sql: String): Boolean =
    Lexer.tokenize(sql).exists(_.exists(_.kind == TokenKind.Param))

  override def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  override def parseTableIdentifier(sqlText: String): TableIdentifier = delegate.parseTableIdentifier(sqlText)
  override def parseFunctionIdentifier(sqlText: String): FunctionIdentifier = delegate.parseFunctionIdentifier(sqlText)
  override def parseMultipartIdentifier(sqlText: String): Seq[String] = delegate.parseMultipartIdentifier(sqlText)
  override def parseTemporalTableIdentifier(sqlText: String): TemporalIdentifier =
    delegate.parseTemporalTableIdentifier(sqlText)
  override def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  override def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
  override def splitStatements(sqlText: String): SqlStatementSplitResult = delegate.splitStatements(sqlText)
}

object OverjoinSqlParser {
  /**
   * True when overjoin's parser reads `sqlText` itself: a stream or pump statement, or a statement
   * with a query block in the streaming dialect.
   */
  def owns(sqlText: String): Boolean =
    scala.util.Try(StreamStatementParser.parse(sqlText).isDefined).getOrElse(true) ||
      QueryBlockScanner.scan(sqlText).isOurs

  /** True when `parser` is, or wraps somewhere in its chain, an overjoin parser. */
  def isInChain(parser: ParserInterface): Boolean = parser match {
    case _: OverjoinSqlParser => true
    case other =>
      // Other extensions' parsers usually keep their delegate in a field called `delegate`.
      scala.util.Try {
        val f = other.getClass.getDeclaredFields.find(f => classOf[ParserInterface].isAssignableFrom(f.getType))
        f.exists { field => field.setAccessible(true); isInChain(field.get(other).asInstanceOf[ParserInterface]) }
      }.getOrElse(false)
  }
}
