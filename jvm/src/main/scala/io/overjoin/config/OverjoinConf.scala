package io.overjoin.config

import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String}

import io.overjoin.errors.OverjoinErrors

/**
 * Every `spark.overjoin.*` setting, in one place. Read per query from the session's SQL
 * configuration, so `SET spark.overjoin.lateness = 5 seconds` works between queries.
 */
object OverjoinConf {

  /**
   * How far behind the latest rowtime seen a row may arrive and still be joined, for stream
   * inputs that declare no watermark of their own. A row is late when its rowtime is strictly
   * older than the watermark (`min over inputs of latest rowtime - lateness`). Default 0 seconds.
   */
  val Lateness = "spark.overjoin.lateness"
  val LatenessDefault = "0 seconds"

  /**
   * `unordered` (default): rows are emitted as soon as they are known. `ordered`: rows are released
   * in non-descending ROWTIME order once the watermark passes them.
   */
  val Emit = "spark.overjoin.emit"
  val EmitDefault = "unordered"

  /**
   * The emit mode. `ordered` is part of the contract but not implemented yet: it is refused rather
   * than silently ignored, so no query believes its output is ordered when it is not.
   */
  def checkEmitMode(conf: SQLConf = SQLConf.get): Unit = {
    conf.getConfString(Emit, EmitDefault).trim.toLowerCase match {
      case "unordered" =>
      case "ordered" => throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX",
        "feature" -> s"$Emit = ordered (rows released in ROWTIME order)",
        "alternative" -> s"unset $Emit (rows are then emitted as soon as they are known) and sort downstream.")
      case other => throw OverjoinErrors.analysis("OVERJOIN_UNSUPPORTED_SYNTAX",
        "feature" -> s"$Emit = '$other'", "alternative" -> s"$Emit takes 'unordered' (the default) or 'ordered'.")
    }
  }

  /** The lateness as microseconds. */
  def latenessMicros(conf: SQLConf = SQLConf.get): Long = {
    val text = conf.getConfString(Lateness, LatenessDefault)
    val interval: CalendarInterval = try {
      IntervalUtils.stringToInterval(UTF8String.fromString(text))
    } catch {
      case _: Exception => null
    }
    if (interval == null || interval.months != 0 || interval.days < 0 || interval.microseconds < 0) {
      throw OverjoinErrors.analysis("OVERJOIN_BAD_DURATION", "literal" -> s"$Lateness = '$text'")
    }
    interval.days * 86400000000L + interval.microseconds
  }
}
