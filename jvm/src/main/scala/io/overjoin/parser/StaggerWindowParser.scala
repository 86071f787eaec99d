package io.overjoin.parser

import io.overjoin.errors.{OverjoinErrors, SqlPosition}
import io.overjoin.model.{Replacement, StaggerWindowCall}

/**
 * KDA's stagger window (docs/semantics.md §13, docs/syntax.md `stagger_clause`), after a block's
 * FROM and WHERE clauses:
 * {{{
 *   WINDOWED BY STAGGER (PARTITION BY FLOOR(EVENT_TIME TO MINUTE), TICKER_SYMBOL RANGE INTERVAL '1' MINUTE)
 *   GROUP BY                          FLOOR(EVENT_TIME TO MINUTE), TICKER_SYMBOL                          (what Spark reads)
 * }}}
 * `WINDOWED` (eight letters) is replaced by `GROUP BY` (eight characters), the other words, the
 * parentheses and the `RANGE` are blanked, so Spark's parser makes an aggregation grouped by the
 * keys, each at its own offset; [[io.overjoin.catalyst.parser.StreamPlanBuilder]] marks it. The
 * interval takes every form a join window's does, with the same errors (OJ1xx); anything else is
 * OJ001 at the offending token. The block may not also have a `GROUP BY` (the keys are its groups).
 */
private[parser] final class StaggerWindowParser(c: TokenCursor, intervals: IntervalParser) {
  import c.{sql, tokens}


  /** `WINDOWED BY STAGGER` starts at token `i`. */
  def startsAt(i: Int, end: Int): Boolean =
    tokens(i).isWord("WINDOWED") && i + 2 < end && tokens(i + 1).isWord("BY") && tokens(i + 2).isWord("STAGGER")

  /** The clause at `at` (its `WINDOWED`) in a block ending at `end`: what it says, what to blank and replace. */
  def clause(at: Int, end: Int): (StaggerWindowCall, Seq[(Int, Int)], Replacement) = {
    val open = at + 3
    if (open >= end || !tokens(open).isSymbol("(")) c.syntax(open, "( after WINDOWED BY STAGGER", atEnd = open >= end)
    val close = c.close(open, end)
    if (close >= end) c.syntax(close, ") closing WINDOWED BY STAGGER (", atEnd = true)
    val p = open + 1
    if (!(p < close && tokens(p).isWord("PARTITION"))) c.syntax(p, "PARTITION BY in WINDOWED BY STAGGER (...)")
    if (!(p + 1 < close && tokens(p + 1).isWord("BY"))) c.syntax(p + 1, "BY after PARTITION")
    val range = c.findAtDepth0(p + 2, close)(k => tokens(k).isWord("RANGE"))
    val keys = c.splitAtCommas(p + 2, range)
    if (keys.isEmpty) c.syntax(p + 2, "an expression after PARTITION BY")
    if (range >= close) c.syntax(close, "RANGE INTERVAL ... after the PARTITION BY keys")
    val (micros, next) = intervals.duration(range + 1, close, WindowNames.Stagger)
    if (next != close) c.syntax(next, ") closing WINDOWED BY STAGGER (")
    if (micros <= 0) {
      throw OverjoinErrors.syntaxDetail(c.span(tokens(range + 1), tokens(close - 1)), c.text(range + 1, close),
        "a stagger window's RANGE must be longer than zero")
    }
    if (close + 1 < end && tokens(close + 1).isWord("GROUP")) {
      val last = if (close + 2 < end && tokens(close + 2).isWord("BY")) close + 2 else close + 1
      throw OverjoinErrors.syntaxDetail(c.span(tokens(close + 1), tokens(last)), s"'${c.text(close + 1, last + 1)}'",
        "a block with WINDOWED BY STAGGER is grouped by its PARTITION BY keys; it cannot also have GROUP BY " +
          "(add the grouping expressions to PARTITION BY)")
    }
    val call = StaggerWindowCall(tokens(at).start, keys.map { case (s, _) => tokens(s).start }, keys.map {
      case (s, e) => c.text(s, e)
    }, micros, c.text(at, close + 1), SqlPosition.of(sql, tokens(at).start, tokens(close).end))
    val blanks = Seq(at + 1, at + 2, open, p, p + 1).map(k => (tokens(k).start, tokens(k).end)) :+
      ((tokens(range).start, tokens(close).end))
    (call, blanks, Replacement(tokens(at).start, "GROUP BY"))
  }
}
