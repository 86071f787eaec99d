package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.{OverjoinErrors, TextSpan}
import io.overjoin.model.Lexicon

/**
 * The productions `interval` and `duration` of docs/syntax.md: Lenses durations (`5s`, `500ms`)
 * and `INTERVAL` literals in every form Spark and the SQL standard write, valued by
 * [[IntervalValues]] from the shared lexicon.
 */
private[parser] final class IntervalParser(c: TokenCursor) {
  import c.{sql, tokens}

  /** A Lenses duration or an INTERVAL literal at `i`; returns microseconds and the next index. */
  def duration(i: Int, to: Int, window: String): (Long, Int) = {
    if (i >= to) c.syntax(i, "a duration such as 5s or INTERVAL '5' SECOND", atEnd = true)
    val t = tokens(i)
    if (t.isWord("INTERVAL")) interval(i, to, window, allowNegative = false)
    else if (t.kind == TokenKind.Number) (lenses(t), i + 1)
    else if (t.isSymbol("-") && i + 1 < to && tokens(i + 1).kind == TokenKind.Number) {
      throw OverjoinErrors.negativeSize(c.span(t, tokens(i + 1)), window, c.text(i, i + 2))
    } else if (t.kind == TokenKind.Str && i + 1 < to && tokens(i + 1).isWordIn(Lexicon.unitWords)) {
      c.syntax(i, "INTERVAL before the interval value")
    } else if (t.kind == TokenKind.Word) {
      throw OverjoinErrors.badDuration(c.span(t), t.text)
    } else c.syntax(i, "a duration such as 5s or INTERVAL '5' SECOND")
  }

  private def lenses(t: Token): Long =
    IntervalValues.duration(t.text).getOrElse(throw OverjoinErrors.badDuration(c.span(t), t.text))

  /**
   * `INTERVAL [-] 'v' unit [(p)] [TO unit [(p)]]`, `INTERVAL [-] 'n unit ...'`, `INTERVAL [-] n unit [n unit ...]`
   * (docs/syntax.md, "Interval values"). Returns microseconds and the index after the literal. A
   * minus sign, before the value or in it, is refused unless `allowNegative` (a watermark delay
   * is Spark's to judge).
   */
  def interval(at: Int, to: Int, window: String, allowNegative: Boolean): (Long, Int) = {
    val intervalTok = tokens(at)
    var i = at + 1
    val minus = i < to && tokens(i).isSymbol("-")
    if (minus) i += 1
    if (i >= to) c.syntax(i, "an interval value in quotes, such as INTERVAL '5' SECOND", atEnd = true)
    val v = tokens(i)
    def negative(end: Int): Nothing = throw OverjoinErrors.negativeSize(
      TextSpan(sql, intervalTok.start, tokens(math.min(i, to - 1)).end), window, c.text(at, end))
    def refused(p: IntervalValues.Problem, valueTok: Token, unit: String): Nothing = p match {
      case IntervalValues.VariableUnit(u) => throw OverjoinErrors.variableUnit(c.span(valueTok), window, u)
      case IntervalValues.BadValue(detail) =>
        throw OverjoinErrors.badInterval(c.span(valueTok), valueTok.text, window, unit, detail)
    }
    if (v.kind == TokenKind.Str) {
      val body = c.unquote(v.text).trim
      if (i + 1 < to && tokens(i + 1).isWordIn(Lexicon.unitWords)) {
        val (unit1, j1) = unitAt(i + 1, to, window)
        var j = j1
        var unit2: Option[String] = None
        if (j < to && tokens(j).isWord("TO")) {
          val (u2, j2) = unitAt(j + 1, to, window)
          unit2 = Some(u2); j = j2
        }
        val isNegative = minus || body.startsWith("-")
        if (isNegative && !allowNegative) negative(j)
        val unsigned = if (body.startsWith("-") || body.startsWith("+")) body.substring(1) else body
        val value = unit2.map(u2 => IntervalValues.fields(unsigned, unit1, u2))
          .getOrElse(IntervalValues.single(unsigned, unit1))
          .fold(p => refused(p, v, unit1 + unit2.map(" TO " + _).getOrElse("")), identity)
        (if (isNegative) -value else value, j)
      } else if (i + 1 < to && tokens(i + 1).kind == TokenKind.Word &&
        !tokens(i + 1).isWordIn(Set("PRECEDING", "FOLLOWING", "AND", "ON", "AS", "JOIN", "WHERE"))) {
        c.syntax(i + 1, "SECOND, MINUTE, HOUR or DAY")
      } else {
        val pairs = IntervalValues.splitPairs(body).getOrElse(
          refused(IntervalValues.BadValue(Lexicon.expected("multiUnit")), v, "interval"))
        val isNegative = minus || pairs.exists(_._1.startsWith("-"))
        if (isNegative && !allowNegative) negative(i + 1)
        val value = IntervalValues.pairs(pairs).fold(p => refused(p, v, "interval"), identity)
        (if (isNegative) -value else value, i + 1)
      }
    } else if (v.kind == TokenKind.Number) {
      // Spark's unquoted form: INTERVAL 5 SECONDS [3 MILLISECONDS ...].
      var j = i
      val pairs = ArrayBuffer.empty[(Token, String)]
      while (j + 1 < to && tokens(j).kind == TokenKind.Number && tokens(j + 1).isWordIn(Lexicon.unitWords)) {
        val (unit, next) = unitAt(j + 1, to, window)
        pairs += ((tokens(j), unit))
        j = next
      }
      if (pairs.isEmpty) c.syntax(i + 1, "a unit such as SECOND, MINUTE, HOUR or DAY", atEnd = i + 1 >= to)
      if (minus && !allowNegative) negative(j)
      var total = 0L
      pairs.foreach { case (num, unit) =>
        IntervalValues.single(num.text, unit) match {
          case Right(micros) if total <= Long.MaxValue - micros => total += micros
          case Right(_) => refused(IntervalValues.BadValue(Lexicon.expected("tooLarge")), num, unit)
          case Left(p) => refused(p, num, unit)
        }
      }
      (if (minus) -total else total, j)
    } else c.syntax(i, "an interval value in quotes, such as INTERVAL '5' SECOND")
  }

  /** A unit word with its optional precision, as its singular name; MONTH, YEAR, QUARTER are refused here. */
  private def unitAt(i: Int, to: Int, window: String): (String, Int) = {
    val t = tokens(i)
    val unit = Lexicon.baseUnit(t.text)
    if (Lexicon.variableUnits.contains(unit)) throw OverjoinErrors.variableUnit(c.span(t), window, unit)
    if (!Lexicon.unitMicros.contains(unit)) c.syntax(i, "SECOND, MINUTE, HOUR or DAY")
    var j = i + 1
    if (j < to && tokens(j).isSymbol("(")) {
      val p = tokens.lift(j + 1)
      if (!p.exists(p => p.kind == TokenKind.Number && p.text.forall(_.isDigit)) || !(j + 2 < to && tokens(j + 2).isSymbol(")"))) {
        c.syntax(j + 1, "a precision such as (3)", atEnd = j + 1 >= to)
      }
      if (BigInt(p.get.text) > Lexicon.maxPrecision) {
        throw OverjoinErrors.badPrecision(c.span(p.get), p.get.text, unit, window)
      }
      j += 3
    }
    (unit, j)
  }
}
