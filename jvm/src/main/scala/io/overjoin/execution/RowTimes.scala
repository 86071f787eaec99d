package io.overjoin.execution

import java.sql.Timestamp
import java.time.{Instant, LocalDateTime, ZoneOffset}

/** Timestamps as overjoin's stateful operators see them in rows: whichever Java type Spark hands over. */
private[execution] object RowTimes {

  /** Microseconds since the epoch (TIMESTAMP_NTZ read as UTC, as Spark's watermarks do); NULL sorts first. */
  def micros(v: Any): Long = v match {
    case t: Timestamp => t.getTime / 1000 * 1000000L + t.getNanos / 1000
    case i: Instant => i.getEpochSecond * 1000000L + i.getNano / 1000
    case l: LocalDateTime => micros(l.toInstant(ZoneOffset.UTC))
    case _ => Long.MinValue
  }
}
