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

  /** True for `spark.overjoin.emit = ordered`; an unknown value is an error that names the setting. */
  def orderedEmit(conf: SQLConf = SQLConf.get): Boolean = {
    conf.getConfString(Emit, EmitDefault).trim.toLowerCase match {
      case "unordered" => false
      case "ordered" => true
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
