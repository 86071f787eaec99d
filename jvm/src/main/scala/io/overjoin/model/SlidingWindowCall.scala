package io.overjoin.model

import io.overjoin.errors.SqlPosition

/**
 * The window of a window function in a streaming-dialect query block (docs/semantics.md §12), as
 * the parser found it: inline (`AVG(p) OVER (PARTITION BY k RANGE ...)`) or a definition of the
 * block's `WINDOW` clause that no join input uses (`WINDOW w AS (...)`).
 *
 * `open` is the offset of the spec's `(`: Spark's `WindowSpecDefinition` for it starts there.
 * `frame` is the frame when overjoin read it (every form a join window takes: intervals in any
 * unit, Lenses durations, ...); its text is blanked and the plan gets the frame from here. A frame
 * with `UNBOUNDED` or `FOLLOWING` is left to Spark (tables accept it) and `unbounded`/`following`
 * say where the word is, for the error a stream gets. `orderBy`: the spec names its order; without
 * one the order is the block's rowtime. `name`: the `WINDOW` clause's name of the definition.
 */
final case class SlidingSpec(
    open: Int,
    position: SqlPosition,
    name: Option[String],
    frame: Option[JoinFrame],
    orderBy: Boolean,
    unbounded: Option[SqlPosition] = None,
    following: Option[SqlPosition] = None) {
  /** How errors name the window: its name, else the spec as written. */
  def display(text: String): String = name.getOrElse(text)
}

/**
 * A window function call `f(...) [IGNORE NULLS] OVER window` in a streaming-dialect block.
 * `start` is the offset of the function's name (Spark's window expression starts there);
 * `function` its name in upper case; `text` the call as written (`MIN(Price) OVER W1`); `spec`
 * the `open` offset of its [[SlidingSpec]].
 */
final case class SlidingCall(start: Int, function: String, text: String, position: SqlPosition, spec: Int)
