package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.OverjoinErrors
import io.overjoin.model.{CountDistinctCall, CursorCall, HotspotsCall, RcfCall, TopKCall}

/**
 * Kinesis Data Analytics' functions of a cursor, read as a relation of a `FROM` clause
 * (docs/semantics.md §14):
 * {{{
 *   TABLE(RANDOM_CUT_FOREST(CURSOR(query) [, numberOfTrees [, subSampleSize [, timeDecay [, shingleSize]]]]))
 *   TABLE(RANDOM_CUT_FOREST_WITH_EXPLANATION(CURSOR(query) [, numberOfTrees [, subSampleSize [, timeDecay
 *     [, shingleSize [, withDirectionality]]]]]))
 *   TABLE(HOTSPOTS(CURSOR(query), windowSize, scanRadius, minimumNumberOfPointsInAHotspot))
 *   TABLE(TOP_K_ITEMS_TUMBLING(CURSOR(query), 'columnName', K, windowSize))
 *   TABLE(COUNT_DISTINCT_ITEMS_TUMBLING(CURSOR(query), 'columnName', windowSize))
 * }}}
 * Spark's parser reads the cursor's `(query)` alone, as a subquery: the rest is blanked, and
 * [[io.overjoin.catalyst.parser.StreamPlanBuilder]] puts the call above the subquery's node.
 * Parameters are checked here, each at its place (OJ001), against KDA's ranges.
 */
private[parser] final class CursorFunctionParser(c: TokenCursor) {
  import c.{sql, tokens}
  import CursorFunctionParser._

  /** `TABLE ( f ( CURSOR (` at `i`, `f` one of KDA's functions of a cursor. */
  def startsAt(i: Int, to: Int): Boolean =
    i + 5 < to && tokens(i).isWord("TABLE") && tokens(i + 1).isSymbol("(") &&
      tokens(i + 2).isWordIn(Functions.keySet) && tokens(i + 3).isSymbol("(") &&
      tokens(i + 4).isWord("CURSOR") && tokens(i + 5).isSymbol("(")

  /** The call at `i`, where its subquery's node starts, and the index after the call. */
  def call(b: BlockBuilder, i: Int, to: Int): (CursorCall, Int, Int) = {
    val name = tokens(i + 2).upper
    val params = Functions(name)
    val tableClose = c.close(i + 1, to)
    val callClose = c.close(i + 3, tableClose)
    if (callClose + 1 != tableClose) c.syntax(callClose + 1, s"')' after $name(...)")
    val cursorOpen = i + 5
    val cursorClose = c.close(cursorOpen, callClose)
    if (cursorClose == cursorOpen + 1) c.syntax(cursorClose, "a query in CURSOR(...)")
    val values = ArrayBuffer.empty[Any]
    var k = cursorClose + 1
    while (k < callClose) {
      if (!tokens(k).isSymbol(",")) c.syntax(k, s"',' and a parameter of $name")
      if (k + 1 >= callClose) c.syntax(k + 1, s"a parameter of $name")
      val v = tokens(k + 1)
      if (values.size >= params.size) {
        throw OverjoinErrors.syntaxDetail(c.span(v), c.shown(v), s"$name takes at most ${params.size} parameters " +
          s"after its cursor: ${params.map(_.name).mkString(", ")}")
      }
      values += value(name, params(values.size), v)
      k += 2
    }
    val required = params.count(_.required)
    if (values.size < required) {
      c.syntax(callClose, s"${params(values.size).name} of $name (it takes ${params.take(required).map(_.name).mkString(", ")})")
    }
    val text = sql.substring(tokens(i).start, tokens(tableClose).end)
    val start = tokens(i).start
    val call = name match {
      case "RANDOM_CUT_FOREST" | "RANDOM_CUT_FOREST_WITH_EXPLANATION" =>
        val d = RcfCall(start, text, explanation = name != "RANDOM_CUT_FOREST")
        def int(n: Int, default: Long): Long = values.lift(n).map(_.asInstanceOf[Long]).getOrElse(default)
        d.copy(trees = int(0, d.trees).toInt, sampleSize = int(1, d.sampleSize).toInt, timeDecay = int(2, d.timeDecay),
          shingleSize = int(3, d.shingleSize).toInt,
          directionality = values.lift(4).exists(_.asInstanceOf[Boolean]))
      case "HOTSPOTS" =>
        val window = values(0).asInstanceOf[Long]
        val minPoints = values(2).asInstanceOf[Long]
        if (minPoints > window) {
          val at = tokens(callClose - 1)
          throw OverjoinErrors.syntaxDetail(c.span(at), c.shown(at),
            s"minimumNumberOfPointsInAHotspot of HOTSPOTS is a whole number from 2 to windowSize ($window)")
        }
        HotspotsCall(start, text, window.toInt, values(1).asInstanceOf[Double], minPoints.toInt)
      case "TOP_K_ITEMS_TUMBLING" =>
        TopKCall(start, text, values(0).asInstanceOf[String], values(1).asInstanceOf[Long].toInt,
          values(2).asInstanceOf[Long].toInt)
      case _ =>
        CountDistinctCall(start, text, values(0).asInstanceOf[String], values(1).asInstanceOf[Long].toInt)
    }
    b.dialect = true
    b.blanks += ((tokens(i).start, tokens(cursorOpen - 1).end))
    b.blanks += ((tokens(cursorClose).end, tokens(tableClose).end))
    (call, tokens(cursorOpen).start, tableClose + 1)
  }

  private def value(function: String, p: Param, v: Token): Any = p match {
    case Whole(name, lo, hi, _) =>
      val number = if (v.kind == TokenKind.Number && v.text.forall(_.isDigit)) v.text.toLongOption else None
      if (number.isEmpty || number.exists(x => x < lo || x > hi)) {
        throw OverjoinErrors.syntaxDetail(c.span(v), c.shown(v), s"$name of $function is a whole number from $lo to $hi")
      }
      number.get
    case Positive(name) =>
      val number = if (v.kind == TokenKind.Number) v.text.toDoubleOption.filter(x => x > 0 && !x.isInfinite) else None
      number.getOrElse(throw OverjoinErrors.syntaxDetail(c.span(v), c.shown(v), s"$name of $function is a number above 0"))
    case Flag(name) =>
      if (!v.isWordIn(Set("TRUE", "FALSE"))) {
        throw OverjoinErrors.syntaxDetail(c.span(v), c.shown(v), s"$name of $function is TRUE or FALSE")
      }
      v.isWord("TRUE")
    case Column(name) =>
      if (v.kind != TokenKind.Str || c.unquote(v.text).isEmpty) {
        throw OverjoinErrors.syntaxDetail(c.span(v), c.shown(v),
          s"$name of $function is the name of a column of the cursor's query in single quotes, such as 'TICKER_SYMBOL'")
      }
      c.unquote(v.text)
  }
}

private[parser] object CursorFunctionParser {
  sealed trait Param { def name: String; def required: Boolean }
  final case class Whole(name: String, lo: Long, hi: Long, required: Boolean) extends Param
  final case class Column(name: String) extends Param { def required: Boolean = true }
  final case class Flag(name: String) extends Param { def required: Boolean = false }
  final case class Positive(name: String) extends Param { def required: Boolean = true }

  private val ForestParams = Seq(Whole("numberOfTrees", 1, 1000, required = false),
    Whole("subSampleSize", 10, 1000, required = false), Whole("timeDecay", 1, Int.MaxValue, required = false),
    Whole("shingleSize", 1, 30, required = false))

  /** Each function's parameters after its cursor, in order, with KDA's ranges. */
  val Functions: Map[String, Seq[Param]] = Map(
    "RANDOM_CUT_FOREST" -> ForestParams,
    "RANDOM_CUT_FOREST_WITH_EXPLANATION" -> (ForestParams :+ Flag("withDirectionality")),
    "HOTSPOTS" -> Seq(Whole("windowSize", 100, 1000, required = true), Positive("scanRadius"),
      Whole("minimumNumberOfPointsInAHotspot", 2, 1000, required = true)),
    "TOP_K_ITEMS_TUMBLING" -> Seq(Column("columnName"), Whole("K", 1, 100000, required = true),
      Whole("windowSize", 1, 3600, required = true)),
    "COUNT_DISTINCT_ITEMS_TUMBLING" -> Seq(Column("columnName"), Whole("windowSize", 1, 3600, required = true)))
}
