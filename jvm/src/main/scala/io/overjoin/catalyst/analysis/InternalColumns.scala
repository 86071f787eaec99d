package io.overjoin.catalyst.analysis

/**
 * The columns overjoin adds to a plan for its own use. None of them is ever in a query's output:
 * [[RewriteWindowedJoins]] projects them away.
 */
object InternalColumns {
  /** The one event-time column of a side made by a join (its rows' life interval start). */
  val EventTime = "__overjoin_event_time"
  /** A constant key that lets Spark stream a CROSS or comma join. */
  val CrossKey = "__overjoin_cross_key"
  /** The end of a ROWS-window row's life interval (replay). */
  val RowsEnd = "__overjoin_rows_end"
  /** Arrival order of a table's rows (replay of ROWS windows). */
  val Arrival = "__overjoin_arrival"
  /** Row identity and arrival order of an ASOF join's inputs, and its ranking (replay). */
  val AsofRow = "__overjoin_asof_x"
  val AsofArrival = "__overjoin_asof_arrival"
  val AsofRank = "__overjoin_asof_rank"

  /** What overjoin's own join operator adds to each output row: ROWTIME and its life interval. */
  val JoinRowtime = "__overjoin_rowtime"
  val JoinStart = "__overjoin_start"
  val JoinEnd = "__overjoin_end"
  val JoinEndInclusive = "__overjoin_end_inclusive"

  val Hidden: Set[String] = Set(EventTime, CrossKey, RowsEnd, JoinRowtime, JoinStart, JoinEnd, JoinEndInclusive)
}
