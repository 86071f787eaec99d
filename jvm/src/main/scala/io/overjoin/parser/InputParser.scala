package io.overjoin.parser

import io.overjoin.errors.OverjoinErrors
import io.overjoin.model.WindowTvf
import io.overjoin.parser.Keywords.NotAnAlias

/**
 * The production `join_input` of docs/syntax.md: one relation of a `FROM` clause with its
 * decorations in any order (`STREAM`, `OVER`, `WATERMARK`, alias, `WITHIN`,
 * `FOR SYSTEM_TIME AS OF PROCTIME()`), and the `TUMBLE`/`HOP` window functions.
 */
private[parser] final class InputParser(c: TokenCursor, windows: WindowSpecParser, intervals: IntervalParser) {
  import c.{sql, tokens}

  private val cursorFunctions = new CursorFunctionParser(c)

  /**
   * Reads one join input from `start`; returns the index after it, or -1 when the input is not
   * something this parser follows (the rest of the FROM clause is then left to Spark).
   */
  def input(b: BlockBuilder, start: Int, to: Int, asofRight: Boolean = false): Int = {
    var i = start
    if (i >= to) return -1
    var streamKw = false
    // `STREAM t` is Spark's own syntax (a streaming read of table t): it stays in the text, and the
    // plan node for it starts at the word STREAM.
    val inputStart = i
    if (tokens(i).isWord("STREAM") && i + 1 < to && (c.isName(tokens(i + 1)) || tokens(i + 1).isSymbol("(")) &&
      !tokens(i + 1).isWordIn(NotAnAlias)) {
      streamKw = true
      i += 1
    }
    val relStart = i
    var tvf: Option[(WindowTvf, (Int, Int), Seq[(Int, Int)])] = None
    val t = tokens(i)
    val cursorCall = if (cursorFunctions.startsAt(i, to)) Some(cursorFunctions.call(b, i, to)) else None
    if (cursorCall.isDefined) {
      i = cursorCall.get._3
    } else if (t.isSymbol("(")) {
      i = c.close(i, to) + 1
    } else if (c.isName(t)) {
      if (t.isWordIn(NotAnAlias) && !t.isWord("STREAM")) return -1
      i += 1
      while (i + 1 < to && tokens(i).isSymbol(".") && c.isName(tokens(i + 1))) i += 2
      if (i < to && tokens(i).isSymbol("(")) {
        val fn = tokens(i - 1)
        val close = c.close(i, to)
        if (fn.isWordIn(Set("TUMBLE", "HOP")) && i - 1 == relStart) {
          b.dialect = true
          tvf = Some(windowFunction(fn, i, close))
        }
        i = close + 1
      }
    } else return -1
    val relEnd = tokens(math.min(i, to) - 1).end
    // TUMBLE(s, ts, size): only `s` is left for Spark's parser; its relation node starts there.
    // TABLE(RANDOM_CUT_FOREST(CURSOR(q), ...)): Spark's parser reads the subquery (q) alone.
    val nodeStart = cursorCall.map(_._2).orElse(tvf.map(_._2._1)).getOrElse(tokens(inputStart).start)
    val source = cursorCall.map(_._1.text).orElse(tvf.map { case (_, (f, e), _) => sql.substring(f, e) }).getOrElse {
      // STREAM(t) reads t, and is named t.
      if (streamKw && tokens(relStart).isSymbol("(") && c.matching(relStart) > relStart + 1) {
        c.text(relStart + 1, c.matching(relStart))
      } else sql.substring(tokens(relStart).start, relEnd)
    }
    val in = new InputBuilder(nodeStart, relEnd, source)
    in.tvf = tvf.map(_._1)
    in.cursorCall = cursorCall.map(_._1)
    tvf.foreach { case (_, _, blanks) => b.blanks ++= blanks }
    in.streamKeyword = streamKw
    in.asofRight = asofRight
    in.windowFunction = tokens(relStart).isWordIn(Set("TUMBLE", "HOP")) && relStart + 1 < to && tokens(relStart + 1).isSymbol("(")
    b.inputs += in
    i = decorations(b, in, i, to)
    if (i < 0) return -1
    // The window is checked once the input's alias is known, so that errors name the input as
    // the rest of the query does.
    in.overAt.foreach { at =>
      val u = tokens(at)
      if (in.lookup) notAJoinInput(u, in, "a FOR SYSTEM_TIME AS OF PROCTIME() lookup input takes no window")
      if (in.windowFunction) notAJoinInput(u, in, "a TUMBLE/HOP input is windowed by its function already")
      if (in.asofRight) notAJoinInput(u, in, "an ASOF join takes no window")
      in.specRange.foreach { case (f, t) => in.window = Some(windows.spec(f, t, in.displayName)) }
    }
    i
  }

  /** The input's clauses after the relation, in any order; -1 when one comes twice. */
  private def decorations(b: BlockBuilder, in: InputBuilder, from: Int, to: Int): Int = {
    var i = from
    var progress = true
    while (i < to && progress) {
      val u = tokens(i)
      if (u.isWord("OVER")) {
        if (in.overAt.isDefined) return -1
        in.overAt = Some(i)
        i = over(b, in, i, to)
      } else if (u.isWord("FOR") && i + 4 < to && tokens(i + 1).isWord("SYSTEM_TIME") && tokens(i + 2).isWord("AS") &&
        tokens(i + 3).isWord("OF") && tokens(i + 4).isWord("PROCTIME")) {
        var j = i + 5
        if (j + 1 < to && tokens(j).isSymbol("(") && tokens(j + 1).isSymbol(")")) j += 2
        b.dialect = true
        in.lookup = true
        b.blanks += ((u.start, tokens(j - 1).end))
        // A lookup join is a join with a table: the input keeps no window (docs/semantics.md §5).
        i = j
      } else if (u.isWord("WATERMARK") && i + 3 < to && c.isName(tokens(i + 1)) && tokens(i + 2).isWord("DELAY") &&
        tokens(i + 3).isWord("OF")) {
        // Spark's own clause: skip it, Spark parses it.
        i = if (i + 4 < to) intervals.interval(i + 4, to, WindowNames.watermarkDelay(in.displayName), allowNegative = true)._2 else to
      } else if (u.isWord("AS") && i + 1 < to && c.isName(tokens(i + 1))) {
        in.alias = Some(tokens(i + 1).identifier)
        i += 2
        if (i < to && tokens(i).isSymbol("(")) i = c.close(i, to) + 1
      } else if (in.alias.isEmpty && c.isName(u) && !u.isWordIn(NotAnAlias) && !isWithinClause(i, to) &&
        !(u.kind == TokenKind.Word && i + 1 < to && tokens(i + 1).isSymbol("("))) {
        in.alias = Some(u.identifier)
        i += 1
        if (i < to && tokens(i).isSymbol("(")) i = c.close(i, to) + 1
      } else if (isWithinClause(i, to)) {
        // Lenses also writes WITHIN right after the right input, before ON.
        if (in.asofRight) notAJoinInput(u, in, "an ASOF join takes no window")
        val (micros, next) = intervals.duration(i + 1, to, WindowNames.join(in.displayName))
        b.blanks += ((u.start, tokens(next - 1).end))
        in.within = Some((micros, u.start))
        i = next
      } else progress = false
    }
    i
  }

  /** `OVER (spec)` or `OVER name` at `overIdx`: blanked; the spec is read once the alias is known. */
  private def over(b: BlockBuilder, in: InputBuilder, overIdx: Int, to: Int): Int = {
    var i = overIdx + 1
    if (i < to && tokens(i).isWord("WINDOW") && i + 1 < to && c.isName(tokens(i + 1))) i += 1
    if (i >= to) c.syntax(overIdx, "a window after OVER")
    val t = tokens(i)
    val next = if (t.isSymbol("(")) {
      val close = c.close(i, to)
      if (close >= to) c.syntax(i, "a closing parenthesis")
      in.specRange = Some((i + 1, close))
      close + 1
    } else if (c.isName(t) && !t.isWordIn(NotAnAlias)) {
      in.windowName = Some(t)
      i + 1
    } else c.syntax(i, "a window specification in parentheses or a window name after OVER")
    in.windowStart = Some(tokens(overIdx).start)
    b.blanks += ((tokens(overIdx).start, tokens(next - 1).end))
    next
  }

  def notAJoinInput(t: Token, in: InputBuilder, detail: String): Nothing =
    throw OverjoinErrors.notAJoinInput(c.span(t), in.displayName, detail)

  /**
   * `WITHIN` starts Lenses' clause when a duration can follow it; followed by ON, a join word, a
   * comma or a clause keyword (or nothing) it is an alias, as Spark reads it.
   */
  def isWithinClause(i: Int, to: Int): Boolean = {
    if (!tokens(i).isWord("WITHIN") || i + 1 >= to) return false
    val t = tokens(i + 1)
    t.kind match {
      case TokenKind.Number | TokenKind.Str => true
      case TokenKind.Symbol => t.text == "-"
      case TokenKind.Word => !t.isWordIn(Keywords.JoinWords ++ Keywords.ClauseWords ++ Keywords.SetOperators ++
        Set("ON", "USING", "AS", "OVER"))
      case _ => false
    }
  }

  /**
   * `TUMBLE(s, ts, size)` / `HOP(s, ts, slide, size)` (RisingWave): the window, the offsets of the
   * relation `s`, and what to blank so that Spark's parser sees the relation alone.
   */
  private def windowFunction(fn: Token, open: Int, close: Int): (WindowTvf, (Int, Int), Seq[(Int, Int)]) = {
    val args = c.splitAtCommas(open + 1, close)
    val expected = if (fn.isWord("TUMBLE")) 3 else 4
    if (args.size != expected) {
      c.syntax(if (args.size < expected) close else args(expected)._1,
        s"${fn.upper}(relation, time column, ${if (expected == 3) "size" else "slide, size"})")
    }
    val (relFrom, relTo) = args.head
    if (!(relTo - relFrom == 1 || (relTo - relFrom) % 2 == 1) || !c.isName(tokens(relFrom))) {
      c.syntax(relFrom, s"a table or stream name as the first argument of ${fn.upper}")
    }
    val (colFrom, colTo) = args(1)
    if (colTo - colFrom != 1 || !c.isName(tokens(colFrom))) c.syntax(colFrom, "a time column name")
    def micros(arg: (Int, Int)): Long = {
      val (v, next) = intervals.duration(arg._1, arg._2, WindowNames.tableFunction(fn.upper))
      if (next != arg._2) c.syntax(next, "a comma or ')' after the duration")
      if (v <= 0) throw OverjoinErrors.negativeSize(c.span(tokens(arg._1), tokens(arg._2 - 1)), WindowNames.tableFunction(fn.upper),
        c.text(arg._1, arg._2))
      v
    }
    val (slide, size) = if (expected == 3) { val v = micros(args(2)); (v, v) } else (micros(args(2)), micros(args(3)))
    val tvf = WindowTvf(fn.upper, tokens(colFrom).identifier, size, slide)
    val blanks = Seq((fn.start, tokens(relFrom).start), (tokens(relTo - 1).end, tokens(close).end))
    (tvf, (tokens(relFrom).start, tokens(relTo - 1).end), blanks)
  }
}
