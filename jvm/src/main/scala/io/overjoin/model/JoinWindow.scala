package io.overjoin.model

/**
 * The window of one join input (docs/semantics.md §2), already checked and normalised.
 *
 * A `RANGE BETWEEN a PRECEDING AND b PRECEDING` window gives each row `x` the life interval
 * `[x.t + b, x.t + a]`; `RANGE INTERVAL 'n' u PRECEDING` is `a = n, b = 0`; `RANGE CURRENT ROW`
 * (also the default) is `a = b = 0`. Sizes are kept in microseconds, Spark's timestamp unit.
 */
sealed trait JoinFrame {
  def sql: String
}

/** `RANGE BETWEEN a PRECEDING AND b PRECEDING`, with `a >= b >= 0` in microseconds. */
final case class RangeFrame(aMicros: Long, bMicros: Long) extends JoinFrame {
  require(aMicros >= bMicros && bMicros >= 0, s"bad RANGE frame: a=$aMicros b=$bMicros")

  def sql: String =
    if (aMicros == 0 && bMicros == 0) "RANGE CURRENT ROW"
    else if (bMicros == 0) s"RANGE ${JoinWindow.intervalSql(aMicros)} PRECEDING"
    else s"RANGE BETWEEN ${JoinWindow.intervalSql(aMicros)} PRECEDING AND ${JoinWindow.intervalSql(bMicros)} PRECEDING"
}

/** `ROWS n PRECEDING` (the `n + 1` latest rows with rowtime `<= T`); `ROWS CURRENT ROW` is `n = 0`. */
final case class RowsFrame(n: Long) extends JoinFrame {
  def sql: String = if (n == 0) "ROWS CURRENT ROW" else s"ROWS $n PRECEDING"
}

/**
 * A join window: the frame, plus the optional `PARTITION BY` expressions (as SQL text, parsed by
 * Spark when used) and `ORDER BY` column (its name parts), and whether the user wrote it or it is
 * the implicit `RANGE CURRENT ROW`.
 */
final case class JoinWindow(
    frame: JoinFrame,
    partitionBy: Seq[String] = Nil,
    orderBy: Option[Seq[String]] = None,
    explicit: Boolean = true,
    name: Option[String] = None,
    monotonic: Boolean = false) {

  def sql: String = {
    val parts = Seq(
      if (partitionBy.nonEmpty) Some("PARTITION BY " + partitionBy.mkString(", ")) else None,
      orderBy.map(o => "ORDER BY " + o.mkString(".")),
      Some(frame.sql)).flatten
    val spec = parts.mkString(" ")
    name.map(n => s"$n = ($spec)").getOrElse(if (explicit) s"($spec)" else s"(default $spec)")
  }
}

object JoinWindow {
  val CurrentRow: JoinWindow = JoinWindow(RangeFrame(0, 0), explicit = false)

  private val Units = Seq(86400000000L -> "DAY", 3600000000L -> "HOUR", 60000000L -> "MINUTE",
    1000000L -> "SECOND")

  /** A readable interval literal for a number of microseconds. */
  def intervalSql(micros: Long): String = {
    Units.collectFirst { case (u, name) if micros % u == 0 => s"INTERVAL '${micros / u}' $name" }
      .getOrElse {
        val secs = BigDecimal(micros) / BigDecimal(1000000)
        s"INTERVAL '${secs.bigDecimal.stripTrailingZeros().toPlainString}' SECOND"
      }
  }
}
