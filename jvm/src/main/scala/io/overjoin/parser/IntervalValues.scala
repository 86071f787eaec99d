package io.overjoin.parser

/**
 * The values of SQL interval literals with fixed-length units, in microseconds.
 *
 * `qualified` reads the SQL-standard forms, where the unit comes after the quoted value
 * (`'1:30' MINUTE TO SECOND`); `multiUnit` reads Spark's single-string form (`'1 hour 30 minutes'`).
 * The leading field may be any size; trailing fields must be in range (hours 0-23, minutes and
 * seconds 0-59); only a seconds field may have a fraction. A sign inside the string is kept, so the
 * caller can reject negative windows with its own message.
 */
object IntervalValues {
  private val Micros: Map[String, Long] = Map("MICROSECOND" -> 1L, "MILLISECOND" -> 1000L,
    "SECOND" -> 1000000L, "MINUTE" -> 60000000L, "HOUR" -> 3600000000L, "DAY" -> 86400000000L,
    "WEEK" -> 604800000000L)

  private val Order = Seq("DAY", "HOUR", "MINUTE", "SECOND")

  private val Int = "(\\d+)"
  private val Sec = "(\\d+(?:\\.\\d{1,9})?)"

  /** The fields each `x TO y` form has, in order, with the regular expression of its body. */
  private def pattern(from: String, to: String): Option[(scala.util.matching.Regex, Seq[String])] = {
    val fields = Order.slice(Order.indexOf(from), Order.indexOf(to) + 1)
    if (fields.size < 2) return None
    // DAY is separated from the time by a space; the time fields by colons.
    val parts = fields.map(f => if (f == "SECOND") Sec else Int)
    val body = if (fields.head == "DAY") parts.head + "\\s+" + parts.tail.mkString(":") else parts.mkString(":")
    Some(((s"^([+-])?$body$$").r, fields))
  }

  def qualified(body: String, unit: String, to: Option[String]): Option[Long] = to match {
    case None =>
      val single = if (unit == "SECOND") s"^([+-])?$Sec$$".r else s"^([+-])?$Int$$".r
      body match {
        case single(sign, v) =>
          val micros = (BigDecimal(v) * Micros(unit)).toLong
          Some(if (sign == "-") -micros else micros)
        case _ => None
      }
    case Some(u2) =>
      if (!Order.contains(unit) || !Order.contains(u2) || Order.indexOf(unit) >= Order.indexOf(u2)) return None
      pattern(unit, u2).flatMap { case (re, fields) =>
        re.unapplySeq(body).flatMap { groups =>
          val sign = Option(groups.head)
          val values = groups.tail.map(BigDecimal(_))
          val inRange = fields.zip(values).drop(1).forall {
            case ("HOUR", v) => v < 24
            case (_, v) => v < 60
          }
          if (!inRange) None
          else {
            val micros = fields.zip(values).map { case (f, v) => (v * Micros(f)).toLong }.sum
            Some(if (sign.contains("-")) -micros else micros)
          }
        }
      }
  }

  private val Pair = "([+-]?\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]+)".r

  /** `'5 seconds'`, `'1 hour 30 minutes'`; None when any part is not a fixed-length unit. */
  def multiUnit(body: String): Option[Long] = {
    val b = body.trim
    if (b.isEmpty) return None
    val matches = Pair.findAllMatchIn(b).toList
    val covered = matches.map(_.matched).mkString
    if (matches.isEmpty || covered.replaceAll("\\s", "") != b.replaceAll("\\s", "")) return None
    val parts = matches.map { m =>
      val unit = m.group(2).toUpperCase.stripSuffix("S") match { case "" => "S"; case u => u }
      Micros.get(unit).map(f => (BigDecimal(m.group(1)) * f).toLong)
    }
    if (parts.forall(_.isDefined)) Some(parts.flatten.sum) else None
  }

  def expectedForm(unit: String, to: Option[String]): String = to match {
    case None if unit == "SECOND" => "expected a number of seconds such as '5' or '0.5'"
    case None => s"expected a whole number of ${unit.toLowerCase}s such as '5'"
    case Some(u2) => pattern(unit, u2) match {
      case Some((_, fields)) =>
        val example = fields.map { case "DAY" => "d"; case "HOUR" => "hh"; case "MINUTE" => "mm"; case _ => "ss" }
        val shown = if (fields.head == "DAY") example.head + " " + example.tail.mkString(":") else example.mkString(":")
        s"expected '$shown' with hours below 24 and minutes and seconds below 60 after the first field"
      case None => s"$unit TO $u2 is not an interval form: write the larger unit first"
    }
  }
}
