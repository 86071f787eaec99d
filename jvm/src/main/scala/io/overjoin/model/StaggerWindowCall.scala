package io.overjoin.model

import io.overjoin.errors.SqlPosition

/**
 * A block's `WINDOWED BY STAGGER (PARTITION BY keys RANGE INTERVAL 'n' unit)` clause (KDA's stagger
 * window, docs/semantics.md §13), as the parser found it. Spark's parser reads the clause as
 * `GROUP BY keys` (the word `WINDOWED` becomes `GROUP BY`, the rest is blanked), so `keyStarts` (the
 * offsets of the keys, where Spark's grouping expressions start) find the aggregation it made.
 * `sizeMicros` is the window's length; `text` the clause as written; `position` where it is.
 */
final case class StaggerWindowCall(
    start: Int,
    keyStarts: Seq[Int],
    keys: Seq[String],
    sizeMicros: Long,
    text: String,
    position: SqlPosition)
