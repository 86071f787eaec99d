package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.OverjoinErrors
import io.overjoin.model.{Lexicon, Replacement, TimeFloorCall}

/**
 * The production `time-floor` of docs/syntax.md: Kinesis Data Analytics' and s-Server's
 * `STEP(ts BY INTERVAL '60' SECOND)` (or `BY n` for a number) and `FLOOR(ts TO MINUTE)`, and
 * Calcite's `CEIL(ts TO HOUR)` (also spelled `CEILING`). None is Spark SQL, so each makes its
 * query block overjoin's.
 *
 * Spark's parser reads the call as a function of two arguments: `BY`/`TO` becomes a comma and
 * what follows it a `0`, the rest blanked (same length, so every offset stays):
 * {{{
 *   STEP(s.ROWTIME BY INTERVAL '60' SECOND)   ==>   STEP(s.ROWTIME ,  0                 )
 *   FLOOR(ROWTIME TO MINUTE)                  ==>   FLOOR(ROWTIME ,  0     )
 * }}}
 * and [[io.overjoin.catalyst.parser.StreamPlanBuilder]] swaps that call for overjoin's expression.
 */
private[parser] final class TimeFloorParser(c: TokenCursor, intervals: IntervalParser) {
  import c.tokens

  /** What Spark's parser must read instead of the calls' own syntax. */
  final case class Found(call: TimeFloorCall, replacements: Seq[Replacement], blanks: Seq[(Int, Int)])

  /** Every call in tokens [from, to), subqueries (other blocks) skipped. */
  def calls(from: Int, to: Int): Seq[Found] = {
    val out = ArrayBuffer.empty[Found]
    var i = from
    while (i < to) {
      val t = tokens(i)
      if (c.opensSubquery(i, to)) {
        i = c.close(i, to) + 1
      } else if (t.kind == TokenKind.Word && t.isWordIn(TimeFloorParser.Functions) && i + 1 < to &&
        tokens(i + 1).isSymbol("(") && !(i > 0 && tokens(i - 1).isSymbol("."))) {
        val close = c.close(i + 1, to)
        val word = TimeFloorParser.separator(t)
        val sep = c.findAtDepth0(i + 2, close)(k => tokens(k).isWord(word))
        if (sep < close) out += call(i, sep, close)
        // Calls inside the argument (FLOOR(STEP(...) TO HOUR)) are found as the scan goes on.
        i += 2
      } else i += 1
    }
    out.toSeq
  }

  private def call(at: Int, sep: Int, close: Int): Found = {
    val fn = TimeFloorParser.functionOf(tokens(at))
    val text = c.text(at, close + 1)
    if (fn == "FLOOR") floorOfDifference(at, sep, close, text).foreach(found => return found)
    if (sep == at + 2) c.syntax(sep, s"the time to ${if (fn == "CEIL") "round up" else "floor"} before ${tokens(sep).upper}")
    if (sep + 1 >= close) c.syntax(close, if (fn == "STEP") TimeFloorParser.stepExpected(tokens(close)) else
      s"a unit (${TimeFloorCall.FloorUnits.mkString(", ")})")
    val first = tokens(sep + 1)
    val last = tokens(close - 1)
    val replacements = Seq(Replacement(tokens(sep).start, ", "), Replacement(first.start, "0"))
    val blanks = if (last.end > first.start + 1) Seq((first.start + 1, last.end)) else Nil
    val parsed = if (fn == "STEP") step(at, sep, close, text) else floor(fn, sep, close, text)
    Found(parsed.copy(start = tokens(at).start), replacements, blanks)
  }

  private def step(at: Int, sep: Int, close: Int, text: String): TimeFloorCall = {
    val v = tokens(sep + 1)
    if (v.kind == TokenKind.Number) {
      if (sep + 2 < close) c.syntax(sep + 2, "')' after the step")
      IntervalValues.stepNumber(v.text).left.foreach(d => throw OverjoinErrors.syntaxDetail(c.span(v), s"'${v.text}'", d))
      return TimeFloorCall(0, "STEP", text, stepNumber = Some(v.text))
    }
    if (!v.isWord("INTERVAL")) c.syntax(sep + 1, TimeFloorParser.stepExpected(v))
    (sep + 1 until close).find(k => tokens(k).kind == TokenKind.Word && Lexicon.variableUnits.contains(Lexicon.baseUnit(tokens(k).text)))
      .foreach { k =>
        throw OverjoinErrors.syntaxDetail(c.span(tokens(k)), s"'${tokens(k).text}'",
          s"STEP takes an interval of fixed length (SECOND, MINUTE, HOUR or DAY); " +
            s"for calendar ${tokens(k).upper.stripSuffix("S").toLowerCase}s write FLOOR(ts TO ${tokens(k).upper.stripSuffix("S")})")
      }
    val (micros, next) = intervals.interval(sep + 1, close, text, allowNegative = false)
    if (next < close) c.syntax(next, "')' after the interval")
    if (micros <= 0) throw OverjoinErrors.syntaxDetail(c.span(v, tokens(close - 1)), c.text(sep + 1, close),
      "the interval of STEP must be longer than zero")
    TimeFloorCall(0, "STEP", text, stepMicros = Some(micros))
  }

  /**
   * KDA's template tumbling window, `FLOOR((ts - TIMESTAMP '1970-01-01 00:00:00') SECOND / 10 TO
   * SECOND)`: the SQL standard's difference of two times in a unit (an interval), divided by a
   * number of units and floored to whole units: the number of steps since the origin. Spark's
   * parser reads it as `FLOOR((ts), 0)`:
   * {{{
   *   FLOOR((s.ROWTIME - TIMESTAMP '1970-01-01') SECOND / 10 TO SECOND)
   *   FLOOR((s.ROWTIME                          )             ,  0     )
   * }}}
   * None when the argument is not `(...) unit`, which is then read as any FLOOR.
   */
  private def floorOfDifference(at: Int, sep: Int, close: Int, text: String): Option[Found] = {
    val open = at + 2
    if (!tokens(open).isSymbol("(") || c.opensSubquery(open, sep)) return None
    val pc = c.close(open, sep)
    if (pc + 1 >= sep || !TimeFloorParser.isFixedUnit(tokens(pc + 1))) return None
    val unit = TimeFloorParser.unitOf(tokens(pc + 1))
    var k = pc + 2
    var steps = 1L
    if (k < sep && tokens(k).isSymbol("/")) {
      val n = tokens.lift(k + 1).filter(_ => k + 1 < sep)
      val value = n.filter(_.kind == TokenKind.Number).flatMap(t => scala.util.Try(t.text.toLong).toOption).filter(_ > 0)
      if (value.isEmpty) c.syntax(k + 1, s"a whole number of ${unit}S above zero (the step of the window)")
      steps = value.get
      k += 2
    }
    if (k != sep) c.syntax(k, "TO after the step, as in FLOOR((ts - TIMESTAMP '1970-01-01 00:00:00') SECOND / 10 TO SECOND)")
    val minus = c.findAtDepth0(open + 1, pc)(j => tokens(j).isSymbol("-"))
    val shape = "the difference of the time and a TIMESTAMP literal, as in (ts - TIMESTAMP '1970-01-01 00:00:00') " + unit
    if (minus == open + 1 || minus >= pc) c.syntax(if (minus >= pc) pc else minus, shape)
    if (!tokens(minus + 1).isWord("TIMESTAMP") || minus + 2 >= pc || tokens(minus + 2).kind != TokenKind.Str ||
      minus + 3 != pc) c.syntax(minus + 1, shape)
    val literal = tokens(minus + 2)
    val origin = TimeFloorParser.epochMicros(c.unquote(literal.text)).getOrElse(
      throw OverjoinErrors.syntaxDetail(c.span(literal), literal.text,
        "a TIMESTAMP literal such as '1970-01-01 00:00:00' (the origin of the windows)"))
    val to = tokens(sep + 1)
    if (sep + 1 >= close || !TimeFloorParser.isFixedUnit(to) || TimeFloorParser.unitOf(to) != unit) {
      c.syntax(sep + 1, s"$unit: the difference is in ${unit}S, and is floored to whole ${unit}S")
    }
    if (sep + 2 < close) c.syntax(sep + 2, "')' after the unit")
    val replacements = Seq(Replacement(tokens(sep).start, ", "), Replacement(to.start, "0"))
    val blanks = Seq((tokens(minus).start, literal.end), (tokens(pc + 1).start, tokens(sep - 1).end)) ++
      (if (to.end > to.start + 1) Seq((to.start + 1, to.end)) else Nil)
    val call = TimeFloorCall(tokens(at).start, "FLOOR", text, stepMicros = Some(steps * TimeFloorParser.micros(unit)),
      unit = Some(unit), origin = Some(origin))
    Some(Found(call, replacements, blanks))
  }

  /** `FLOOR(ts TO unit)` or `CEIL(ts TO unit)`: the unit after TO. */
  private def floor(fn: String, sep: Int, close: Int, text: String): TimeFloorCall = {
    val u = tokens(sep + 1)
    val unit = u.upper.stripSuffix("S")
    if (u.kind != TokenKind.Word || !TimeFloorCall.FloorUnits.contains(unit))
      c.syntax(sep + 1, s"a unit (${TimeFloorCall.FloorUnits.mkString(", ")})")
    if (sep + 2 < close) c.syntax(sep + 2, "')' after the unit")
    TimeFloorCall(0, fn, text, unit = Some(unit))
  }
}

private[parser] object TimeFloorParser {
  private val Fixed = Set("SECOND", "MINUTE", "HOUR", "DAY")

  /** The words of the calls this parser reads; `CEILING` is `CEIL`'s other spelling. */
  val Functions: Set[String] = Set("STEP", "FLOOR", "CEIL", "CEILING")

  /** The function a call's name means: `STEP`, `FLOOR` or `CEIL`. */
  def functionOf(t: Token): String = if (t.isWord("CEILING")) "CEIL" else t.upper

  /** The word that separates a call's time from its step or unit: `STEP(ts BY ...)`, `FLOOR(ts TO ...)`. */
  def separator(t: Token): String = if (t.isWord("STEP")) "BY" else "TO"

  def unitOf(t: Token): String = t.upper.stripSuffix("S")
  def isFixedUnit(t: Token): Boolean = t.kind == TokenKind.Word && Fixed(unitOf(t))

  def micros(unit: String): Long = unit match {
    case "SECOND" => 1000000L
    case "MINUTE" => 60000000L
    case "HOUR" => 3600000000L
    case _ => 86400000000L
  }

  /** A TIMESTAMP literal's text (`1970-01-01`, `1970-01-01 00:00:00[.f]`) as microseconds since the epoch, UTC. */
  def epochMicros(s: String): Option[Long] = {
    val m = """(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?""".r
    s.trim match {
      case m(y, mo, d, h, mi, sec, f) => scala.util.Try {
        val t = java.time.LocalDateTime.of(y.toInt, mo.toInt, d.toInt, Option(h).map(_.toInt).getOrElse(0),
          Option(mi).map(_.toInt).getOrElse(0), Option(sec).map(_.toInt).getOrElse(0),
          Option(f).map(x => (x + "000000000").take(9).toInt).getOrElse(0))
        val i = t.toInstant(java.time.ZoneOffset.UTC)
        i.getEpochSecond * 1000000L + i.getNano / 1000L
      }.toOption
      case _ => None
    }
  }

  /**
   * What `STEP(ts BY ...)` takes, said at a token that is not it (a quoted value is the interval
   * without its INTERVAL: the fix is named).
   */
  def stepExpected(t: Token): String =
    if (t.kind == TokenKind.Str && t.text.startsWith("'")) {
      s"an INTERVAL literal such as INTERVAL '1' MINUTE after BY, not a string: write INTERVAL ${t.text}; " +
        "or a number, when the time is a number"
    } else "an INTERVAL literal such as INTERVAL '1' MINUTE after BY, or a number, when the time is a number"
}
