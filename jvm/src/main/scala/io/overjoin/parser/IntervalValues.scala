package io.overjoin.parser

import io.overjoin.model.Lexicon

/**
 * The values of interval literals with fixed-length units, in microseconds, by the rules of
 * docs/syntax.md ("Interval values"), from the data in [[Lexicon]]. The Python validator follows
 * the same rules from the same data (`overjoin/intervals.py`); each step here has its twin there.
 *
 * Values are exact: a seconds fraction has at most nanoseconds, and the result is truncated to
 * microseconds. A sign is read by the caller, which rejects negative windows with its own error.
 */
object IntervalValues {

  /** Why a value was refused: the `expected` text for OJ106, or a variable unit (OJ101). */
  sealed trait Problem
  final case class BadValue(detail: String) extends Problem
  final case class VariableUnit(unit: String) extends Problem

  private def number(unit: String): String =
    (if (Lexicon.fractionalUnits.contains(unit)) Lexicon.decimal else Lexicon.integer).stripPrefix("[+-]?")

  /** Exact microseconds of `v` (unsigned decimal text) units, truncated. */
  private def micros(v: String, unit: String): BigInt =
    (BigDecimal(fix(v)) * Lexicon.unitMicros(unit)).setScale(0, BigDecimal.RoundingMode.DOWN).toBigInt

  /** A total that fits Spark's timestamps; a larger one is refused like any other bad value. */
  private def bounded(total: BigInt): Either[Problem, Long] =
    if (total.isValidLong) Right(total.toLong) else Left(BadValue(Lexicon.expected("tooLarge")))

  /** `'v' UNIT` (unit singular, fixed): the unsigned value's microseconds. */
  def single(body: String, unit: String): Either[Problem, Long] = {
    val re = ("^" + number(unit) + "$").r
    body match {
      case re() => bounded(micros(body, unit))
      case _ => Left(BadValue(expectedForm(unit, None)))
    }
  }

  /** `'v' UNIT TO UNIT2`: the fields of the form, separated as the standard writes them. */
  def fields(body: String, unit: String, to: String): Either[Problem, Long] = {
    val order = Lexicon.fieldOrder
    val (a, b) = (order.indexOf(unit), order.indexOf(to))
    if (a < 0 || b < 0 || a >= b) return Left(BadValue(expectedForm(unit, Some(to))))
    val names = order.slice(a, b + 1)
    val parts = names.map(f => "(" + number(f) + ")")
    val pattern = (if (names.head == "DAY") "^" + parts.head + "\\s+" + parts.tail.mkString(":") + "$"
      else "^" + parts.mkString(":") + "$").r
    pattern.unapplySeq(body) match {
      case Some(values) if names.zip(values).drop(1).forall { case (f, v) => BigDecimal(fix(v)) < Lexicon.fieldLimits(f) } =>
        bounded(names.zip(values).map { case (f, v) => micros(v, f) }.sum)
      case _ => Left(BadValue(expectedForm(unit, Some(to))))
    }
  }

  private def fix(v: String): String = if (v.startsWith(".")) "0" + v else if (v.endsWith(".")) v + "0" else v

  /**
   * `'1 hour 30 minutes'` and the pairs of `INTERVAL 1 HOUR 30 MINUTES`: (number, unit word)
   * pairs. A negative pair is the caller's to refuse; here its absolute value counts.
   */
  def pairs(values: Seq[(String, String)]): Either[Problem, Long] = {
    var total = BigInt(0)
    values.foreach { case (num, word) =>
      val unit = Lexicon.baseUnit(word)
      if (Lexicon.variableUnits.contains(unit)) return Left(VariableUnit(unit))
      if (!Lexicon.unitMicros.contains(unit)) return Left(BadValue(Lexicon.expected("multiUnit")))
      val unsigned = num.stripPrefix("-").stripPrefix("+")
      if (!("^" + number(unit) + "$").r.matches(unsigned)) return Left(BadValue(Lexicon.expected("multiUnit")))
      total += micros(unsigned, unit)
    }
    bounded(total)
  }

  /** The pairs of a multi-unit string, or None when the string is not made of pairs only. */
  def splitPairs(body: String): Option[Seq[(String, String)]] = {
    val b = body.trim
    val found = Lexicon.multiUnitPair.findAllMatchIn(b).toList
    if (found.isEmpty) return None
    val covered = found.map(_.matched).mkString
    if (covered.replaceAll("\\s", "") != b.replaceAll("\\s", "")) None
    else Some(found.map(m => (m.group(1), m.group(2))))
  }

  def expectedForm(unit: String, to: Option[String]): String = to match {
    case None if Lexicon.fractionalUnits.contains(unit) => Lexicon.expected("seconds")
    case None => Lexicon.expected("wholeUnits", "units" -> (unit.toLowerCase + "s"))
    case Some(u2) =>
      val order = Lexicon.fieldOrder
      val (a, b) = (order.indexOf(unit), order.indexOf(u2))
      if (a < 0 || b < 0 || a >= b) Lexicon.expected("notAForm", "unit" -> unit, "to" -> u2)
      else {
        val shown = order.slice(a, b + 1).map(Lexicon.fieldShown)
        val form = if (order(a) == "DAY") shown.head + " " + shown.tail.mkString(":") else shown.mkString(":")
        Lexicon.expected("fields", "form" -> form)
      }
  }

  /** A Lenses duration (`500ms`, `1.5m`): its microseconds, truncated; None when it is not one. */
  def duration(text: String): Option[Long] = text match {
    case Lexicon.duration(num, unit) =>
      val micros = (BigDecimal(num) * Lexicon.durationMicros(unit.toLowerCase)).setScale(0, BigDecimal.RoundingMode.DOWN)
      if (micros.isValidLong) Some(micros.toLong) else None
    case _ => None
  }

  /**
   * The number of `STEP(ts BY n)` as written: digits with an optional fraction, that Spark can hold
   * (a BIGINT, or a DECIMAL of at most 38 digits), above zero. Left: what is wrong (OJ001's detail).
   * Judged on the digits, never by converting a number that may have thousands of them.
   */
  def stepNumber(text: String): Either[String, Unit] = {
    if (!Lexicon.stepNumber.matches(text)) return Left(Lexicon.expected("stepNumber"))
    val (whole, fraction) = text.indexOf('.') match {
      case -1 => (text, "")
      case k => (text.substring(0, k), text.substring(k + 1))
    }
    val digits = whole.dropWhile(_ == '0')
    val max = Lexicon.maxStepInteger
    val tooLarge = if (fraction.isEmpty) digits.length > max.length || (digits.length == max.length && digits > max)
      else digits.length + fraction.length > Lexicon.maxStepDigits
    if (tooLarge) Left(Lexicon.expected("stepTooLarge"))
    else if (digits.isEmpty && fraction.forall(_ == '0')) Left(Lexicon.expected("stepNotPositive"))
    else Right(())
  }
}
