package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.SqlPosition
import io.overjoin.model.{SlidingCall, SlidingSpec}

/**
 * The windows of window functions in a streaming-dialect block (docs/semantics.md §12): KDA's
 * sliding windows, `MIN(p) OVER W1 ... WINDOW W1 AS (PARTITION BY k RANGE INTERVAL '1' MINUTE PRECEDING)`.
 *
 * A frame is read with the join windows' grammar (docs/syntax.md `frame`), so it takes every
 * interval form they take, and blanked: Spark's parser reads `OVER (PARTITION BY k            )`
 * and [[io.overjoin.catalyst.parser.StreamPlanBuilder]] puts the frame (and, without `ORDER BY`, the
 * block's rowtime as the order) into Spark's window spec. A frame with `UNBOUNDED` or `FOLLOWING`
 * stays Spark's: allowed over tables, refused on a stream (OJ120, OJ121) where the words are.
 */
private[parser] final class SlidingWindowParser(c: TokenCursor, windows: WindowSpecParser) {
  import c.{sql, tokens}

  private def position(t: Token): SqlPosition = SqlPosition.of(sql, t.start, t.end)

  /** The spec inside the parentheses at token indexes `open`, `close`; the ranges to blank. */
  def spec(open: Int, close: Int, name: Option[String]): (SlidingSpec, Seq[(Int, Int)]) = {
    val frameIdx = c.findAtDepth0(open + 1, close)(k => tokens(k).isWordIn(Set("RANGE", "ROWS")))
    val orderBy = c.findAtDepth0(open + 1, frameIdx)(k => tokens(k).isWord("ORDER")) < frameIdx
    val base = SlidingSpec(tokens(open).start, SqlPosition.of(sql, tokens(open).start, tokens(close).end), name,
      None, orderBy)
    if (frameIdx >= close) return (base, Nil)
    val words = frameIdx until close
    val unbounded = words.find(k => tokens(k).isWord("UNBOUNDED") && k + 1 < close && tokens(k + 1).isWord("PRECEDING"))
    val following = words.find(k => tokens(k).isWord("FOLLOWING"))
    if (unbounded.isDefined || following.isDefined) {
      return (base.copy(unbounded = unbounded.map(k => position(tokens(k))),
        following = following.map(k => position(tokens(k)))), Nil)
    }
    val frame = windows.frame(frameIdx, close, WindowNames.function(name.getOrElse(c.text(open, close + 1))))
    (base.copy(frame = Some(frame)), Seq((tokens(frameIdx).start, tokens(close - 1).end)))
  }

  /**
   * Every `f(...) [IGNORE | RESPECT NULLS] [FILTER (...)] OVER window` in tokens [from, to),
   * subqueries (other blocks) skipped. `named` holds the block's `WINDOW` definitions by lower-case
   * name; an inline spec is read here and added to `inline`, its blanks to `blanks`.
   */
  def calls(from: Int, to: Int, named: Map[String, SlidingSpec], inline: ArrayBuffer[SlidingSpec],
      blanks: ArrayBuffer[(Int, Int)]): Seq[SlidingCall] = {
    val out = ArrayBuffer.empty[SlidingCall]
    var i = from
    while (i < to) {
      val t = tokens(i)
      if (c.opensSubquery(i, to)) {
        i = c.close(i, to) + 1
      } else {
        if (t.isWord("OVER") && i + 1 < to) functionStart(i).foreach { fn =>
          val next = tokens(i + 1)
          val found: Option[(SlidingSpec, Int)] =
            if (next.isSymbol("(")) {
              val close = c.close(i + 1, to)
              if (close < to) {
                val (s, b) = spec(i + 1, close, None)
                inline += s
                blanks ++= b
                Some((s, close))
              } else None
            } else if (c.isName(next)) named.get(next.identifier.toLowerCase).map(s => (s, i + 1))
            else None
          found.foreach { case (s, end) =>
            val start = tokens(fn)
            val nameTok = tokens(nameIndex(fn))
            out += SlidingCall(start.start, nameTok.identifier.toUpperCase, c.text(fn, end + 1), position(nameTok), s.open)
          }
        }
        i += 1
      }
    }
    out.toSeq
  }

  /** The first token of the function call that `OVER` at `over` follows, if it follows one. */
  private def functionStart(over: Int): Option[Int] = {
    var p = over - 1
    if (p >= 2 && tokens(p).isWord("NULLS") && tokens(p - 1).isWordIn(Set("IGNORE", "RESPECT"))) p -= 2
    if (p < 1 || !tokens(p).isSymbol(")")) return None
    var open = c.opening(p)
    if (open >= 2 && tokens(open - 1).isWord("FILTER") && tokens(open - 2).isSymbol(")")) open = c.opening(open - 2)
    if (open < 1 || !c.isName(tokens(open - 1))) return None
    var start = open - 1
    while (start >= 2 && tokens(start - 1).isSymbol(".") && c.isName(tokens(start - 2))) start -= 2
    Some(start)
  }

  /** The function's own name in a call starting at `start` (the last part of a qualified name). */
  private def nameIndex(start: Int): Int = {
    var k = start
    while (k + 2 < c.n && tokens(k + 1).isSymbol(".") && c.isName(tokens(k + 2))) k += 2
    k
  }
}
