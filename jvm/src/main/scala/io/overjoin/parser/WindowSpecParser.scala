package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.OverjoinErrors
import io.overjoin.model.{JoinFrame, JoinWindow, Lexicon, RangeFrame, RowsFrame}

/** One definition of a block's `WINDOW` clause: its name and the token ranges of its spec and of what to blank. */
private[parser] final case class WindowDefinition(name: String, nameTok: Token, specFrom: Int, specTo: Int,
    blankFrom: Int, blankTo: Int)

/**
 * The productions `window_def`, `window_spec`, `frame` and the bounds of docs/syntax.md: the
 * `WINDOW` clause and what is inside `OVER ( ... )`.
 */
private[parser] final class WindowSpecParser(c: TokenCursor, intervals: IntervalParser) {
  import c.{sql, tokens}

  /** The definitions `name AS (...)` of a `WINDOW` clause, tokens [windowIdx, to). */
  def definitions(windowIdx: Int, to: Int): Seq[WindowDefinition] = {
    val defs = ArrayBuffer.empty[WindowDefinition]
    var i = windowIdx + 1
    var prevComma: Option[Token] = None
    while (i + 3 <= to && c.isName(tokens(i)) && tokens(i + 1).isWord("AS") && tokens(i + 2).isSymbol("(")) {
      val nameTok = tokens(i)
      val close = c.close(i + 2, to)
      if (defs.exists(_.name.equalsIgnoreCase(nameTok.identifier))) {
        throw OverjoinErrors.duplicateWindow(c.span(nameTok), nameTok.text)
      }
      val hasNextComma = close + 1 < to && tokens(close + 1).isSymbol(",")
      // Blank a definition with one of its commas so that the rest stays a valid list.
      val (bf, bt) = prevComma match {
        case Some(comma) => (comma.start, tokens(close).end)
        case None => (nameTok.start, if (hasNextComma) tokens(close + 1).end else tokens(close).end)
      }
      defs += WindowDefinition(nameTok.identifier, nameTok, i + 3, close, bf, bt)
      if (hasNextComma) { prevComma = if (defs.size == 1) None else Some(tokens(close + 1)); i = close + 2 }
      else i = to
    }
    defs.toSeq
  }

  /** The inside of `OVER ( ... )` or `WINDOW w AS ( ... )`, tokens [from, to). */
  def spec(from: Int, to: Int, input: String): JoinWindow = {
    var i = from
    var partitionBy = Seq.empty[String]
    var orderBy: Option[Seq[String]] = None
    val partitionTok = if (i < to && tokens(i).isWord("PARTITION")) Some(tokens(i)) else None
    if (partitionTok.isDefined) {
      if (!(i + 1 < to && tokens(i + 1).isWord("BY"))) c.syntax(i + 1, "BY after PARTITION")
      val stop = c.findAtDepth0(i + 2, to)(k => tokens(k).isWordIn(Set("ORDER", "RANGE", "ROWS")))
      partitionBy = c.splitAtCommas(i + 2, stop).map { case (s, e) => c.text(s, e) }
      if (partitionBy.isEmpty) c.syntax(i + 2, "an expression after PARTITION BY")
      i = stop
    }
    if (i < to && tokens(i).isWord("ORDER")) {
      orderBy = Some(orderColumn(i, to, input))
      i = c.findAtDepth0(i + 2, to)(k => tokens(k).isWordIn(Set("RANGE", "ROWS")))
    }
    if (i >= to) {
      partitionTok.foreach(p => throw OverjoinErrors.partitionWithoutFrame(c.span(p), input))
      c.syntax(math.min(i, c.n - 1), "RANGE or ROWS in the join window", atEnd = i >= c.n || i == to)
    }
    val (frame, next) = tokens(i) match {
      case t if t.isWord("RANGE") => range(i + 1, to, WindowNames.join(input))
      case t if t.isWord("ROWS") => rows(i + 1, to, WindowNames.join(input))
      case _ => c.syntax(i, "RANGE or ROWS in the join window")
    }
    if (next != to) c.syntax(next, "the end of the window specification")
    JoinWindow(frame, partitionBy, orderBy, explicit = true)
  }

  /**
   * A frame alone, tokens [from, to): `RANGE ...` or `ROWS ...` as in a join window (the window of
   * a window function in a streaming block, docs/semantics.md §12). `window` names the window in
   * errors ([[WindowNames]]).
   */
  def frame(from: Int, to: Int, window: String): JoinFrame = {
    val (frame, next) = tokens(from) match {
      case t if t.isWord("RANGE") => range(from + 1, to, window)
      case t if t.isWord("ROWS") => rows(from + 1, to, window)
      case _ => c.syntax(from, "RANGE or ROWS")
    }
    if (next != to) c.syntax(next, "the end of the window specification")
    frame
  }

  /** `ORDER BY column [ASC]` at `i`: the column's name parts; anything else is OJ109. */
  private def orderColumn(i: Int, to: Int, input: String): Seq[String] = {
    if (!(i + 1 < to && tokens(i + 1).isWord("BY"))) c.syntax(i + 1, "BY after ORDER")
    val stop = c.findAtDepth0(i + 2, to)(k => tokens(k).isWordIn(Set("RANGE", "ROWS")))
    var j = i + 2
    val parts = ArrayBuffer.empty[String]
    if (j < stop && c.isName(tokens(j))) {
      parts += tokens(j).identifier; j += 1
      while (j + 1 < stop && tokens(j).isSymbol(".") && c.isName(tokens(j + 1))) { parts += tokens(j + 1).identifier; j += 2 }
      if (j < stop && tokens(j).isWordIn(Set("ASC"))) j += 1
    }
    if (parts.isEmpty || j != stop) {
      val at = if (i + 2 < to) i + 2 else i + 1
      throw OverjoinErrors.orderByNotAColumn(c.span(tokens(at), tokens(math.max(at, stop - 1))), input,
        if (i + 2 < stop) c.text(i + 2, stop) else "nothing")
    }
    parts.toSeq
  }

  /** A bound: `CURRENT ROW` or `x PRECEDING` (microseconds or rows). */
  private sealed trait Bound { def amount: Long }
  private case object Current extends Bound { val amount = 0L }
  private final case class Preceding(amount: Long) extends Bound

  private def range(from: Int, to: Int, window: String): (JoinFrame, Int) = {
    if (from < to && tokens(from).isWord("BETWEEN")) {
      val (a, i1) = rangeBound(from + 1, to, window)
      if (!(i1 < to && tokens(i1).isWord("AND"))) c.syntax(i1, "AND in RANGE BETWEEN ... AND ...", atEnd = i1 >= to)
      val (b, i2) = rangeBound(i1 + 1, to, window)
      if (a.amount < b.amount) boundsOrder(from, i1, i2, window)
      (RangeFrame(a.amount, b.amount), i2)
    } else {
      val (a, i1) = rangeBound(from, to, window)
      (RangeFrame(a.amount, 0L), i1)
    }
  }

  /** `CURRENT ROW`, or the error for `UNBOUNDED`, as RANGE and ROWS frames share them; None otherwise. */
  private def currentRowOrUnbounded(i: Int, to: Int, expected: String, window: String): Option[(Bound, Int)] = {
    if (i >= to) c.syntax(i, expected, atEnd = true)
    val t = tokens(i)
    if (t.isWord("CURRENT")) {
      if (!(i + 1 < to && tokens(i + 1).isWord("ROW"))) c.syntax(i + 1, "ROW after CURRENT", atEnd = i + 1 >= to)
      Some((Current, i + 2))
    } else if (t.isWord("UNBOUNDED")) {
      throw OverjoinErrors.unbounded(c.span(t), window)
    } else None
  }

  private def rangeBound(i: Int, to: Int, window: String): (Bound, Int) =
    currentRowOrUnbounded(i, to, "INTERVAL ... PRECEDING or CURRENT ROW", window).getOrElse {
      val (micros, next) = intervals.duration(i, to, window)
      direction(next, to, window)
      (Preceding(micros), next + 1)
    }

  private def direction(i: Int, to: Int, window: String): Unit = {
    if (i < to && tokens(i).isWord("FOLLOWING")) throw OverjoinErrors.following(c.span(tokens(i)), window)
    if (!(i < to && tokens(i).isWord("PRECEDING"))) c.syntax(i, "PRECEDING", atEnd = i >= to)
  }

  private def rows(from: Int, to: Int, window: String): (JoinFrame, Int) = {
    def bound(i: Int): (Bound, Int) = currentRowOrUnbounded(i, to, "a row count PRECEDING or CURRENT ROW", window).getOrElse {
      val t = tokens(i)
      if (t.isSymbol("-") && i + 1 < to && tokens(i + 1).kind == TokenKind.Number) {
        throw OverjoinErrors.negativeSize(c.span(t, tokens(i + 1)), window, "-" + tokens(i + 1).text)
      } else if (t.kind == TokenKind.Number && t.text.forall(_.isDigit)) {
        val count = BigInt(t.text.dropWhile(_ == '0').take(20).padTo(1, '0'))
        if (!count.isValidLong) throw OverjoinErrors.syntaxDetail(c.span(t), s"'${t.text}'", Lexicon.expected("rowsTooLarge"))
        direction(i + 1, to, window)
        (Preceding(count.toLong), i + 2)
      } else c.syntax(i, "a row count PRECEDING or CURRENT ROW")
    }
    if (from < to && tokens(from).isWord("BETWEEN")) {
      val (a, i1) = bound(from + 1)
      if (!(i1 < to && tokens(i1).isWord("AND"))) c.syntax(i1, "AND in ROWS BETWEEN ... AND ...", atEnd = i1 >= to)
      val (b, i2) = bound(i1 + 1)
      if (a.amount < b.amount) boundsOrder(from, i1, i2, window)
      if (b.amount != 0) throw OverjoinErrors.rowsEndingBeforeCurrentRow(c.span(tokens(i1 + 1), tokens(i2 - 1)), window)
      (RowsFrame(a.amount), i2)
    } else {
      val (a, i1) = bound(from)
      (RowsFrame(a.amount), i1)
    }
  }

  /** `BETWEEN a AND b` with `a` nearer than `b`: the bounds as the user wrote them. */
  private def boundsOrder(between: Int, and: Int, end: Int, window: String): Nothing =
    throw OverjoinErrors.boundsOrder(c.span(tokens(between)), window, c.text(between + 1, and), c.text(and + 1, end))
}
