package io.overjoin.model

/**
 * One of Calcite's group window functions in a streaming-dialect query block (docs/semantics.md
 * §11, "Calcite's group windows"), as the parser found it: `TUMBLE(ts, size [, TIME 'align'])`,
 * `HOP(ts, slide, size [, TIME 'align'])` or `SESSION(ts, gap)` in `GROUP BY` (`role` empty), or
 * one of their auxiliary functions, `TUMBLE_START`/`TUMBLE_END`, `HOP_START`/`HOP_END`,
 * `SESSION_START`/`SESSION_END` (`role` `START` or `END`), which name the group's window.
 *
 * `start` is the offset of the function's name (Spark's function call node for the same text
 * starts there: Spark's parser reads the call with only its time argument), `time` that argument
 * as written. `sizeMicros` is the
 * window's length (a session's gap), `slideMicros` how far apart windows start (a tumbling
 * window's is its size; a session's 0), `offsetMicros` where windows are aligned: they start at
 * `offset + k * slide` microseconds after 1970-01-01 00:00:00 UTC. `argumentStarts` are the
 * offsets of the arguments after the time, for errors.
 */
final case class GroupWindowCall(
    start: Int,
    kind: String,
    role: String,
    text: String,
    time: String,
    sizeMicros: Long,
    slideMicros: Long,
    offsetMicros: Long,
    argumentStarts: Seq[Int] = Nil) {

  def isGroup: Boolean = role.isEmpty

  /** The function as written in its canonical spelling: `TUMBLE`, `HOP_END`, ... */
  def function: String = if (isGroup) kind else s"${kind}_$role"

  /** The same window as `other` names: the same function and intervals (the time is compared after analysis). */
  def sameWindow(other: GroupWindowCall): Boolean =
    kind == other.kind && sizeMicros == other.sizeMicros && slideMicros == other.slideMicros &&
      offsetMicros == other.offsetMicros
}

object GroupWindowCall {
  /** The group functions and, for each, its auxiliary functions. */
  val Kinds: Seq[String] = Seq("TUMBLE", "HOP", "SESSION")
  val Roles: Seq[String] = Seq("START", "END")

  /** Every function name, group and auxiliary. */
  val Functions: Set[String] = Kinds.flatMap(k => k +: Roles.map(r => s"${k}_$r")).toSet
}
