package io.overjoin.parser

/**
 * How the interval and frame errors (OJ101-OJ106, OJ115) name the window they are about: a phrase
 * read in the middle of a sentence ("The interval 'x' of the join window of o is not ..."). A
 * sliding window (docs/semantics.md §12), a stagger window (§13), a `STEP` or a watermark delay is
 * not a join window, and its errors say what it is. The Python validator names them the same way
 * (`overjoin/validator/window_checks.py`).
 */
private[parser] object WindowNames {
  /** The window of a join input, `OVER (...)` after it or `WITHIN` before it. */
  def join(input: String): String = s"the join window of $input"

  /** A window function's window: its name in `WINDOW w AS (...)`, or the spec written inline. */
  def function(nameOrSpec: String): String = s"the window $nameOrSpec"

  val Stagger: String = "the window of WINDOWED BY STAGGER"

  /** s-Server's t-sort: `ORDER BY key WITHIN interval`. */
  val SortWithin: String = "the WITHIN of ORDER BY"

  /** A windowing table function's size or slide: `TUMBLE`, `HOP`. */
  def tableFunction(fn: String): String = s"the $fn window"

  /** `WATERMARK column DELAY OF interval` after an input. */
  def watermarkDelay(input: String): String = s"the watermark delay of $input"
}
