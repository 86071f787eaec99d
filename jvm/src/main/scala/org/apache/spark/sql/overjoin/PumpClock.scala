package org.apache.spark.sql.overjoin

import org.apache.spark.util.Clock

/**
 * The clock a pump's trigger waits on: the system's, except that [[wake]] ends the wait for the
 * next trigger at once. A pump that writes a batch into a stream wakes the running pumps that read
 * it, so a chain of pumps passes a row on when it is written instead of at each hop's next trigger
 * (docs/operator.md, "An application's pumps on one server"). A wake while the pump's batch runs
 * is kept for the wait after it: none is lost. Without wakes it waits exactly as Spark's
 * `SystemClock` does, so a pump still triggers every interval. Spark's `Clock` is its own
 * package's, hence this one.
 */
final class PumpClock extends Clock {
  private val lock = new Object
  private var woken = false

  override def getTimeMillis(): Long = System.currentTimeMillis()

  override def nanoTime(): Long = System.nanoTime()

  /** Waits until `targetTime` (ms since the epoch) or a wake, whichever comes first; the time then. */
  override def waitTillTime(targetTime: Long): Long = lock.synchronized {
    var now = getTimeMillis()
    while (now < targetTime && !woken) {
      lock.wait(targetTime - now)
      now = getTimeMillis()
    }
    woken = false
    now
  }

  /** The pump triggers now if it waits, or right after the batch it runs. */
  def wake(): Unit = lock.synchronized {
    woken = true
    lock.notifyAll()
  }
}
