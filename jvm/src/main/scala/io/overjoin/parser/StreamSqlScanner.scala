package io.overjoin.parser

import scala.collection.mutable.ArrayBuffer

import io.overjoin.catalyst.{JoinWindow, RangeFrame}
import io.overjoin.errors.{OverjoinErrors, SqlPosition}
import io.overjoin.model.Lexicon

/**
 * overjoin's structural parser. It reads a statement's tokens, finds every query block (a
 * `SELECT`, at any depth), parses the block's `FROM` clause into join inputs and join operators,
 * and decides by that grammar whether the block is in the streaming dialect: `SELECT STREAM`, an
 * `OVER` window directly after a `FROM` relation, `WITHIN`, `ASOF JOIN`, `FOR SYSTEM_TIME AS OF
 * PROCTIME()`, `TUMBLE`/`HOP` or `STREAM t` in `FROM`.
 *
 * Expressions are not parsed: they are balanced token runs that Spark's parser reads later. What
 * this parser cannot follow (PIVOT, LATERAL VIEW, ...) ends its reading of that FROM clause, so the
 * rest stays Spark's business. Errors in overjoin's own syntax are raised here, pointing at the
 * user's text.
 *
 * {{{
 *   SELECT STREAM ROWTIME, o.id FROM Shipments AS s JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON ...
 *          ^^^^^^                                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ blanked
 * }}}
 */
final class StreamSqlScanner(sql: String, tokens: IndexedSeq[Token]) {
  import StreamSqlScanner._

  private val n = tokens.length
  private val closeOf: Array[Int] = {
    val a = Array.fill(n)(-1)
    val stack = scala.collection.mutable.Stack.empty[Int]
    tokens.indices.foreach { i =>
      if (tokens(i).isSymbol("(")) stack.push(i)
      else if (tokens(i).isSymbol(")") && stack.nonEmpty) a(stack.pop()) = i
    }
    a
  }
  private val blocks = ArrayBuffer.empty[StreamBlock]

  /** Every parenthesis has its match: otherwise the text is not SQL, and Spark's parser says so. */
  private def balanced: Boolean = {
    var depth = 0
    tokens.forall { t =>
      if (t.isSymbol("(")) depth += 1 else if (t.isSymbol(")")) depth -= 1
      depth >= 0
    } && depth == 0
  }

  def scan(): ScanResult = {
    if (!balanced) return ScanResult(Nil, Nil)
    scanRange(0, n)
    val ours = blocks.sortBy(_.selectStart).toSeq
    if (ours.isEmpty) return ScanResult(Nil, Nil)
    ScanResult(ours, ours.flatMap(b => blockBlanks.getOrElse(b.id, Nil)), sServerSpellings())
  }

  /**
   * A statement in the streaming dialect reads as s-Server and Kinesis Data Analytics write it
   * (docs/semantics.md §0): `"x"` is an identifier whatever `spark.sql.ansi.doubleQuotedIdentifiers`
   * says, and `CREATE VIEW v DESCRIPTION '...' AS` is Spark's `COMMENT`.
   */
  private def sServerSpellings(): Seq[Replacement] = {
    val quoted = tokens.filter(_.kind == TokenKind.DoubleQuoted).map { t =>
      Replacement.backQuoted(t).getOrElse(throw OverjoinErrors.parse("OVERJOIN_SYNTAX_ERROR", sql, t.start, t.end,
        "token" -> t.text, "detail" -> "a double-quoted name cannot contain a back quote (`)"))
    }
    val description = if (isCreateView) {
      val as = findAtDepth0(0, n)(i => tokens(i).isWord("AS"))
      (0 until as).collectFirst {
        case i if tokens(i).isWord("DESCRIPTION") && i + 1 < as && tokens(i + 1).kind == TokenKind.Str =>
          Replacement(tokens(i).start, "COMMENT    ")
      }.toSeq
    } else Nil
    quoted ++ description
  }

  private def isCreateView: Boolean = {
    val words = tokens.take(6).takeWhile(_.kind == TokenKind.Word).map(_.upper)
    words.headOption.contains("CREATE") && words.contains("VIEW")
  }

  private val blockBlanks = scala.collection.mutable.Map.empty[Int, Seq[(Int, Int)]]

  // ---------------------------------------------------------------------------------------------
  // Statement level: find the blocks.

  private def close(i: Int, limit: Int): Int = {
    val c = closeOf(i)
    if (c < 0 || c >= limit) limit else c
  }

  private def scanRange(from: Int, to: Int): Unit = {
    var i = from
    while (i < to) {
      val t = tokens(i)
      if (t.isWord("SELECT")) {
        i = scanBlock(i, to)
      } else if (t.isSymbol("(")) {
        val j = close(i, to)
        scanRange(i + 1, j)
        i = j + 1
      } else i += 1
    }
  }

  /** Where the block that starts at `sel` ends (exclusive token index). */
  private def blockEnd(sel: Int, limit: Int): Int = {
    var i = sel + 1
    while (i < limit) {
      val t = tokens(i)
      if (t.isSymbol("(")) i = close(i, limit) + 1
      else if (t.isSymbol(";") || t.isSymbol(")") || t.isSymbol("|>") || t.isWordIn(SetOperators)) return i
      else i += 1
    }
    limit
  }

  /** Index of the first depth-0 token in [from, to) satisfying `p`, or `to`. */
  private def findAtDepth0(from: Int, to: Int)(p: Int => Boolean): Int = {
    var i = from
    while (i < to) {
      if (p(i)) return i
      if (tokens(i).isSymbol("(")) i = close(i, to) + 1 else i += 1
    }
    to
  }

  // ---------------------------------------------------------------------------------------------
  // Block level.

  private final class BlockBuilder(val sel: Int, val end: Int) {
    val inputs = ArrayBuffer.empty[InputBuilder]
    val joins = ArrayBuffer.empty[JoinInfo]
    val blanks = ArrayBuffer.empty[(Int, Int)]
    val onRanges = ArrayBuffer.empty[(Int, Int)]
    var dialect = false
    /** Errors that only count when the block turns out to be overjoin's (CROSS JOIN ... ON is Spark's own otherwise). */
    val pending = ArrayBuffer.empty[() => Nothing]
  }

  private final class InputBuilder(val relStart: Int, val relEnd: Int, val source: String) {
    var alias: Option[String] = None
    var window: Option[JoinWindow] = None
    var windowName: Option[Token] = None
    var windowStart: Option[Int] = None
    var overAt: Option[Int] = None
    var specRange: Option[(Int, Int)] = None
    var streamKeyword = false
    var within: Option[(Long, Int)] = None
    var lookup = false
    var windowFunction = false
    var asofRight = false
    var asofTime: Option[String] = None
    var tvf: Option[WindowTvf] = None
    def name: String = alias.getOrElse(StreamInput(relStart, relEnd, source, None, JoinWindow.CurrentRow, None, false).name)
  }

  private def scanBlock(sel: Int, limit: Int): Int = {
    val end = blockEnd(sel, limit)
    val b = new BlockBuilder(sel, end)

    // SELECT STREAM: the word STREAM, when what follows it starts a select list rather than
    // continuing an expression about a column named `stream`.
    var listStart = sel + 1
    val selectStream = listStart < end && tokens(listStart).isWord("STREAM") && startsSelectList(listStart + 1, end)
    if (selectStream) {
      b.dialect = true
      b.blanks += ((tokens(listStart).start, tokens(listStart).end))
      listStart += 1
    }

    val fromIdx = findAtDepth0(listStart, end)(i => tokens(i).isWord("FROM"))
    val clauseEnd = if (fromIdx < end) findAtDepth0(fromIdx + 1, end)(i => isClauseStart(i, end)) else end
    val windowIdx = findAtDepth0(clauseEnd, end)(i => isWindowClause(i, end))
    val windowEnd = if (windowIdx < end) findAtDepth0(windowIdx + 1, end)(i =>
      tokens(i).isWordIn(AfterWindowClause) && !isWindowClause(i, end)) else end
    val definitions = if (windowIdx < end) parseWindowDefinitions(windowIdx, windowEnd) else Nil

    if (fromIdx < end) parseFrom(b, fromIdx + 1, clauseEnd)

    // Named windows: resolve OVER name against this block's WINDOW clause.
    val usedNames = scala.collection.mutable.Set.empty[String]
    b.inputs.foreach { in =>
      in.windowName.foreach { nameTok =>
        val name = nameTok.identifier
        definitions.find(_.name.equalsIgnoreCase(name)) match {
          case Some(d) =>
            usedNames += d.name.toLowerCase
            in.window = Some(parseWindowSpec(d.specFrom, d.specTo, in.displayName).copy(name = Some(name)))
          case None =>
            throw OverjoinErrors.parse("OVERJOIN_WINDOW_UNKNOWN_NAME", sql, nameTok.start, nameTok.end,
              "name" -> nameTok.text, "input" -> in.displayName)
        }
      }
    }
    if (b.dialect && definitions.nonEmpty) {
      val joinDefs = definitions.filter(d => usedNames.contains(d.name.toLowerCase))
      if (joinDefs.size == definitions.size) b.blanks += ((tokens(windowIdx).start, tokens(windowEnd - 1).end))
      else joinDefs.foreach(d => b.blanks += ((d.blankFrom, d.blankTo)))
    }

    // WITHIN gives both inputs of its join the same window; it cannot be combined with OVER.
    b.joins.foreach { j =>
      j.within.foreach { micros =>
        val right = b.inputs(j.rightIndex)
        val left = b.inputs(j.rightIndex - 1)
        Seq(left, right).foreach { in =>
          if (in.window.isDefined) {
            val at = right.within.map(_._2).getOrElse(j.start)
            throw OverjoinErrors.parse("OVERJOIN_WITHIN_WITH_OVER", sql, at, at + 6, "input" -> right.displayName)
          }
        }
      }
    }
    b.joins.foreach { j =>
      j.within.foreach { micros =>
        Seq(b.inputs(j.rightIndex - 1), b.inputs(j.rightIndex)).foreach(in =>
          if (in.window.isEmpty) in.window = Some(JoinWindow(RangeFrame(micros, 0))))
      }
    }
    if (b.inputs.exists(_.window.isDefined)) b.dialect = true
    if (b.dialect) {
      b.pending.headOption.foreach(_.apply())
    }

    if (b.dialect) {
      val id = blocks.size
      val inputs = b.inputs.map { in =>
        val pos = SqlPosition.of(sql, in.relStart, in.relEnd)
        StreamInput(in.relStart, in.relEnd, in.source, in.alias, in.window.getOrElse(JoinWindow.CurrentRow),
          in.windowStart, in.streamKeyword, pos.line, pos.column, lookup = in.lookup, asofTime = in.asofTime, tvf = in.tvf)
      }.toSeq
      val names = inputs.map(_.name.toLowerCase).toSet
      val exprRanges = Seq((listStart, fromIdx min end)) ++ b.onRanges ++
        Seq((clauseEnd, windowIdx), (windowEnd, end))
      exprRanges.foreach { case (f, t) => checkWindowNamesAsQualifiers(f, t, b, usedNames.toSet, names) }
      val refs = exprRanges.flatMap { case (f, t) => rowtimeRefs(f, t, names, listStart, fromIdx) }
      blocks += StreamBlock(id, tokens(sel).start, selectStream, inputs, b.joins.toSeq, refs)
      blockBlanks(id) = b.blanks.toSeq
    }

    // Nested blocks: subqueries anywhere inside this one.
    var i = sel + 1
    while (i < end) {
      if (tokens(i).isSymbol("(")) { val j = close(i, end); scanRange(i + 1, j); i = j + 1 } else i += 1
    }
    end
  }

  /**
   * `JOIN TradeStream OVER t ... WHERE t.amount > 0`: `t` names a window, not an input, though the
   * Kinesis Data Analytics guide prints a query written so. Said before Spark's "cannot resolve".
   */
  private def checkWindowNamesAsQualifiers(from: Int, to: Int, b: BlockBuilder, windowNames: Set[String],
      inputNames: Set[String]): Unit = {
    if (windowNames.isEmpty) return
    var i = from
    while (i + 2 < to) {
      val t = tokens(i)
      if (t.isSymbol("(") && tokens(i + 1).isWordIn(Set("SELECT", "WITH", "VALUES", "FROM", "TABLE"))) {
        i = close(i, to) + 1
      } else {
        val name = t.identifier.toLowerCase
        if (isName(t) && tokens(i + 1).isSymbol(".") && isName(tokens(i + 2)) &&
          !(i > from && tokens(i - 1).isSymbol(".")) && windowNames.contains(name) && !inputNames.contains(name)) {
          val user = b.inputs.find(_.windowName.exists(_.identifier.equalsIgnoreCase(name))).get
          throw OverjoinErrors.parse("OVERJOIN_WINDOW_NAME_AS_INPUT", sql, t.start, tokens(i + 2).end,
            "name" -> t.text, "reference" -> sql.substring(t.start, tokens(i + 2).end),
            "input" -> user.source, "column" -> tokens(i + 2).text)
        }
        i += 1
      }
    }
  }

  private def startsSelectList(i: Int, end: Int): Boolean = {
    if (i >= end) return false
    val t = tokens(i)
    if (t.isSymbol("*")) return i + 1 >= end || tokens(i + 1).isSymbol(",") || tokens(i + 1).isWord("FROM")
    if (t.kind == TokenKind.Symbol) return t.text == "(" || t.text == "-"
    !(t.isWordIn(Set("FROM", "AS")) )
  }

  private def isClauseStart(i: Int, end: Int): Boolean = {
    val t = tokens(i)
    if (t.isWord("WINDOW")) isWindowClause(i, end)
    else t.isWordIn(ClauseWords) && !(i + 1 < end && tokens(i + 1).isSymbol("("))
  }

  private def isWindowClause(i: Int, end: Int): Boolean =
    tokens(i).isWord("WINDOW") && i + 3 < end && isName(tokens(i + 1)) && tokens(i + 2).isWord("AS") &&
      tokens(i + 3).isSymbol("(")

  private def isName(t: Token): Boolean =
    t.kind == TokenKind.Word || t.kind == TokenKind.BackQuoted || t.kind == TokenKind.DoubleQuoted

  // ---------------------------------------------------------------------------------------------
  // FROM clause.

  private def parseFrom(b: BlockBuilder, from: Int, to: Int): Unit = {
    var i = parseInput(b, from, to)
    while (i > 0 && i < to) {
      val t = tokens(i)
      if (t.isSymbol(",")) {
        b.joins += JoinInfo(t.start, "COMMA", b.inputs.size, None, asof = false)
        i = parseInput(b, i + 1, to)
      } else {
        val opStart = i
        val words = ArrayBuffer.empty[Token]
        while (i < to && tokens(i).isWordIn(JoinWords) && !tokens(i).isWord("JOIN") &&
          !(i + 1 < to && tokens(i + 1).isSymbol("("))) { words += tokens(i); i += 1 }
        if (i >= to || !tokens(i).isWord("JOIN")) return // not a join we follow: Spark's business
        val kind = (words.map(_.upper) :+ "JOIN").mkString(" ")
        val asof = words.exists(_.isWord("ASOF"))
        if (asof) {
          b.dialect = true
          val w = words.find(_.isWord("ASOF")).get
          b.blanks += ((w.start, w.end))
        }
        val rightIndex = b.inputs.size
        if (asof) b.inputs.lastOption.flatMap(l => l.windowStart.map(ws => (l, ws))).foreach { case (l, ws) =>
          notAJoinInput(tokenAt(ws), l.displayName, "an ASOF join takes no window")
        }
        i = parseInput(b, i + 1, to, asofRight = asof)
        if (i < 0) return
        var within: Option[Long] = b.inputs(rightIndex).within.map(_._1)
        if (i < to && tokens(i).isWord("ON")) {
          val condEnd = findAtDepth0(i + 1, to)(k => endsCondition(k, to))
          b.onRanges += ((i + 1, condEnd))
          if (kind.startsWith("CROSS")) { val t = tokens(i); b.pending += (() => crossCondition(t)) }
          if (asof) {
            // The inequality's columns are the inputs' rowtimes when they declare none.
            checkAsofCondition(i, condEnd, b.inputs(rightIndex).displayName).foreach { case (q, c) =>
              Seq(b.inputs(rightIndex - 1), b.inputs(rightIndex)).find(_.name.equalsIgnoreCase(q))
                .foreach(in => if (in.asofTime.isEmpty) in.asofTime = Some(c))
            }
          }
          i = condEnd
        } else if (i + 1 < to && tokens(i).isWord("USING") && tokens(i + 1).isSymbol("(")) {
          if (kind.startsWith("CROSS")) { val t = tokens(i); b.pending += (() => crossCondition(t)) }
          if (asof) checkAsofCondition(i, i, b.inputs(rightIndex).displayName)
          i = close(i + 1, to) + 1
        }
        if (i < to && isWithinClause(i, to)) {
          if (within.isDefined) syntax(i, "one WITHIN per join (this join has one already)")
          if (asof) notAJoinInput(tokens(i), b.inputs(rightIndex).displayName, "an ASOF join takes no window")
          val (micros, next) = parseDuration(i + 1, to, b.inputs(rightIndex).displayName)
          b.blanks += ((tokens(i).start, tokens(next - 1).end))
          b.inputs(rightIndex).within = Some((micros, tokens(i).start))
          within = Some(micros)
          i = next
        }
        if (within.isDefined) b.dialect = true
        b.joins += JoinInfo(tokens(opStart).start, kind, rightIndex, within, asof)
      }
    }
  }

  private def crossCondition(t: Token): Nothing =
    throw OverjoinErrors.parse("OVERJOIN_CROSS_JOIN_CONDITION", sql, t.start, t.end,
      "clause" -> (if (t.isWord("ON")) "an ON condition" else "a USING clause"))

  private def endsCondition(k: Int, to: Int): Boolean = {
    val t = tokens(k)
    t.isSymbol(",") || isWithinClause(k, to) ||
      (t.isWordIn(JoinWords) && !(k + 1 < to && tokens(k + 1).isSymbol("(")))
  }

  /**
   * Reads one join input from `i`; returns the index after it, or -1 when the input is not
   * something this parser follows (the rest of the FROM clause is then left to Spark).
   */
  private def parseInput(b: BlockBuilder, start: Int, to: Int, asofRight: Boolean = false): Int = {
    var i = start
    if (i >= to) return -1
    var streamKw = false
    // `STREAM t` is Spark's own syntax (a streaming read of table t): it stays in the text, and the
    // plan node for it starts at the word STREAM.
    val inputStart = i
    if (tokens(i).isWord("STREAM") && i + 1 < to && (isName(tokens(i + 1)) || tokens(i + 1).isSymbol("(")) &&
      !tokens(i + 1).isWordIn(NotAnAlias)) {
      streamKw = true
      i += 1
    }
    val relStart = i
    var tvf: Option[(WindowTvf, (Int, Int), Seq[(Int, Int)])] = None
    val t = tokens(i)
    if (t.isSymbol("(")) {
      i = close(i, to) + 1
    } else if (t.kind == TokenKind.Word || t.kind == TokenKind.BackQuoted || t.kind == TokenKind.DoubleQuoted) {
      if (t.isWordIn(NotAnAlias) && !t.isWord("STREAM")) return -1
      i += 1
      while (i + 1 < to && tokens(i).isSymbol(".") && isName(tokens(i + 1))) i += 2
      if (i < to && tokens(i).isSymbol("(")) {
        val fn = tokens(i - 1)
        val c = close(i, to)
        if (fn.isWordIn(Set("TUMBLE", "HOP")) && i - 1 == relStart) {
          b.dialect = true
          tvf = Some(windowFunction(fn, i, c))
        }
        i = c + 1
      }
    } else return -1
    val relEnd = tokens(math.min(i, to) - 1).end
    // TUMBLE(s, ts, size): only `s` is left for Spark's parser; its relation node starts there.
    val nodeStart = tvf.map(_._2._1).getOrElse(tokens(inputStart).start)
    val source = tvf.map { case (_, (f, e), _) => sql.substring(f, e) }.getOrElse {
      // STREAM(t) reads t, and is named t.
      if (streamKw && tokens(relStart).isSymbol("(") && closeOf(relStart) > relStart + 1) {
        sql.substring(tokens(relStart + 1).start, tokens(closeOf(relStart) - 1).end)
      } else sql.substring(tokens(relStart).start, relEnd)
    }
    val in = new InputBuilder(nodeStart, relEnd, source)
    in.tvf = tvf.map(_._1)
    tvf.foreach { case (_, _, blanks) => b.blanks ++= blanks }
    in.streamKeyword = streamKw
    in.asofRight = asofRight
    in.windowFunction = tokens(relStart).isWordIn(Set("TUMBLE", "HOP")) && relStart + 1 < to && tokens(relStart + 1).isSymbol("(")
    b.inputs += in

    var progress = true
    while (i < to && progress) {
      val u = tokens(i)
      if (u.isWord("OVER")) {
        if (in.overAt.isDefined) return -1
        in.overAt = Some(i)
        i = parseOver(b, in, i, to)
      } else if (u.isWord("FOR") && i + 4 < to && tokens(i + 1).isWord("SYSTEM_TIME") && tokens(i + 2).isWord("AS") &&
        tokens(i + 3).isWord("OF") && tokens(i + 4).isWord("PROCTIME")) {
        var j = i + 5
        if (j + 1 < to && tokens(j).isSymbol("(") && tokens(j + 1).isSymbol(")")) j += 2
        b.dialect = true
        in.lookup = true
        b.blanks += ((u.start, tokens(j - 1).end))
        // A lookup join is a join with a table: the input keeps no window (SEMANTICS.md section 5).
        i = j
      } else if (u.isWord("WATERMARK") && i + 3 < to && isName(tokens(i + 1)) && tokens(i + 2).isWord("DELAY") &&
        tokens(i + 3).isWord("OF")) {
        // Spark's own clause: skip it, Spark parses it.
        i = if (i + 4 < to) parseInterval(i + 4, to, in.displayName, allowNegative = true)._2 else to
      } else if (u.isWord("AS") && i + 1 < to && isName(tokens(i + 1))) {
        in.alias = Some(tokens(i + 1).identifier)
        i += 2
        if (i < to && tokens(i).isSymbol("(")) i = close(i, to) + 1
      } else if (in.alias.isEmpty && isName(u) && !u.isWordIn(NotAnAlias) && !isWithinClause(i, to) &&
        !(u.kind == TokenKind.Word && i + 1 < to && tokens(i + 1).isSymbol("("))) {
        in.alias = Some(u.identifier)
        i += 1
        if (i < to && tokens(i).isSymbol("(")) i = close(i, to) + 1
      } else if (isWithinClause(i, to)) {
        // Lenses also writes WITHIN right after the right input, before ON.
        if (in.asofRight) notAJoinInput(u, in.displayName, "an ASOF join takes no window")
        val (micros, next) = parseDuration(i + 1, to, in.displayName)
        b.blanks += ((u.start, tokens(next - 1).end))
        in.within = Some((micros, u.start))
        i = next
      } else progress = false
    }
    // The window is checked once the input's alias is known, so that errors name the input as
    // the rest of the query does.
    in.overAt.foreach { at =>
      val u = tokens(at)
      if (in.lookup) notAJoinInput(u, in.displayName, "a FOR SYSTEM_TIME AS OF PROCTIME() lookup input takes no window")
      if (in.windowFunction) notAJoinInput(u, in.displayName, "a TUMBLE/HOP input is windowed by its function already")
      if (in.asofRight) notAJoinInput(u, in.displayName, "an ASOF join takes no window")
      in.specRange.foreach { case (f, t) => in.window = Some(parseWindowSpec(f, t, in.displayName)) }
    }
    i
  }

  private def parseOver(b: BlockBuilder, in: InputBuilder, overIdx: Int, to: Int): Int = {
    var i = overIdx + 1
    if (i < to && tokens(i).isWord("WINDOW") && i + 1 < to && isName(tokens(i + 1))) i += 1
    if (i >= to) syntax(overIdx, "a window after OVER")
    val t = tokens(i)
    val next = if (t.isSymbol("(")) {
      val c = close(i, to)
      if (c >= to) syntax(i, "a closing parenthesis")
      in.specRange = Some((i + 1, c))
      c + 1
    } else if (isName(t) && !t.isWordIn(NotAnAlias)) {
      in.windowName = Some(t)
      i + 1
    } else syntax(i, "a window specification in parentheses or a window name after OVER")
    in.windowStart = Some(tokens(overIdx).start)
    b.blanks += ((tokens(overIdx).start, tokens(next - 1).end))
    next
  }

  private implicit class InputName(in: InputBuilder) {
    /** How errors name an input: `alias (source)`, or its source when it has no other name. */
    def displayName: String = StreamInput.display(in.alias, in.source)
  }

  // ---------------------------------------------------------------------------------------------
  // WINDOW clause and window specifications.

  private final case class WindowDefinition(name: String, nameTok: Token, specFrom: Int, specTo: Int,
      blankFrom: Int, blankTo: Int)

  private def parseWindowDefinitions(windowIdx: Int, to: Int): Seq[WindowDefinition] = {
    val defs = ArrayBuffer.empty[WindowDefinition]
    var i = windowIdx + 1
    var prevComma: Option[Token] = None
    while (i + 3 <= to && isName(tokens(i)) && tokens(i + 1).isWord("AS") && tokens(i + 2).isSymbol("(")) {
      val nameTok = tokens(i)
      val c = close(i + 2, to)
      if (defs.exists(_.name.equalsIgnoreCase(nameTok.identifier))) {
        throw OverjoinErrors.parse("OVERJOIN_DUPLICATE_WINDOW_NAME", sql, nameTok.start, nameTok.end,
          "name" -> nameTok.text)
      }
      val hasNextComma = c + 1 < to && tokens(c + 1).isSymbol(",")
      // Blank a definition with one of its commas so that the rest stays a valid list.
      val (bf, bt) = prevComma match {
        case Some(comma) => (comma.start, tokens(c).end)
        case None => (nameTok.start, if (hasNextComma) tokens(c + 1).end else tokens(c).end)
      }
      defs += WindowDefinition(nameTok.identifier, nameTok, i + 3, c, bf, bt)
      if (hasNextComma) { prevComma = if (defs.size == 1) None else Some(tokens(c + 1)); i = c + 2 }
      else i = to
    }
    defs.toSeq
  }

  /** Parses the inside of `OVER ( ... )` or `WINDOW w AS ( ... )`, tokens [from, to). */
  private def parseWindowSpec(from: Int, to: Int, input: String): JoinWindow = {
    var i = from
    var partitionBy = Seq.empty[String]
    var orderBy: Option[Seq[String]] = None
    val partitionTok = if (i < to && tokens(i).isWord("PARTITION")) Some(tokens(i)) else None
    if (partitionTok.isDefined) {
      if (!(i + 1 < to && tokens(i + 1).isWord("BY"))) syntax(i + 1, "BY after PARTITION")
      val stop = findAtDepth0(i + 2, to)(k => tokens(k).isWordIn(Set("ORDER", "RANGE", "ROWS")))
      partitionBy = splitAtCommas(i + 2, stop).map { case (s, e) => sql.substring(tokens(s).start, tokens(e - 1).end) }
      if (partitionBy.isEmpty) syntax(i + 2, "an expression after PARTITION BY")
      i = stop
    }
    if (i < to && tokens(i).isWord("ORDER")) {
      if (!(i + 1 < to && tokens(i + 1).isWord("BY"))) syntax(i + 1, "BY after ORDER")
      val stop = findAtDepth0(i + 2, to)(k => tokens(k).isWordIn(Set("RANGE", "ROWS")))
      var j = i + 2
      val parts = ArrayBuffer.empty[String]
      if (j < stop && isName(tokens(j))) {
        parts += tokens(j).identifier; j += 1
        while (j + 1 < stop && tokens(j).isSymbol(".") && isName(tokens(j + 1))) { parts += tokens(j + 1).identifier; j += 2 }
        if (j < stop && tokens(j).isWordIn(Set("ASC"))) j += 1
      }
      if (parts.isEmpty || j != stop) {
        val at = if (i + 2 < to) i + 2 else i + 1
        throw OverjoinErrors.parse("OVERJOIN_WINDOW_ORDER_BY", sql, tokens(at).start,
          tokens(math.max(at, stop - 1)).end, "input" -> input,
          "expression" -> (if (i + 2 < stop) sql.substring(tokens(i + 2).start, tokens(stop - 1).end) else "nothing"))
      }
      orderBy = Some(parts.toSeq)
      i = stop
    }
    if (i >= to) {
      partitionTok.foreach { p =>
        throw OverjoinErrors.parse("OVERJOIN_WINDOW_PARTITION_BY", sql, p.start, p.end, "input" -> input,
          "detail" -> "it is not followed by a RANGE or ROWS frame")
      }
      syntax(math.min(i, n - 1), "RANGE or ROWS in the join window", atEnd = i >= n || i == to)
    }
    val frame = tokens(i) match {
      case t if t.isWord("RANGE") => parseRange(i + 1, to, input)
      case t if t.isWord("ROWS") => parseRows(i + 1, to, input)
      case _ => syntax(i, "RANGE or ROWS in the join window")
    }
    JoinWindow(frame._1, partitionBy, orderBy, explicit = true) match {
      case w if frame._2 != to => syntax(frame._2, "the end of the window specification")
      case w => w
    }
  }

  private def splitAtCommas(from: Int, to: Int): Seq[(Int, Int)] = {
    val out = ArrayBuffer.empty[(Int, Int)]
    var s = from
    var i = from
    while (i < to) {
      if (tokens(i).isSymbol(",")) { if (i > s) out += ((s, i)); s = i + 1; i += 1 }
      else if (tokens(i).isSymbol("(")) i = close(i, to) + 1
      else i += 1
    }
    if (to > s) out += ((s, to))
    out.toSeq
  }

  /** A bound: `CURRENT ROW`, `x PRECEDING`; Left(micros or rows), with the index after it. */
  private sealed trait Bound
  private case object Current extends Bound
  private final case class Preceding(amount: Long, at: Int) extends Bound

  private def parseRange(from: Int, to: Int, input: String): (io.overjoin.catalyst.JoinFrame, Int) = {
    if (from < to && tokens(from).isWord("BETWEEN")) {
      val (a, i1) = rangeBound(from + 1, to, input)
      if (!(i1 < to && tokens(i1).isWord("AND"))) syntax(i1, "AND in RANGE BETWEEN ... AND ...", atEnd = i1 >= to)
      val (b, i2) = rangeBound(i1 + 1, to, input)
      val am = a match { case Current => 0L; case Preceding(m, _) => m }
      val bm = b match { case Current => 0L; case Preceding(m, _) => m }
      if (am < bm) boundsOrder(from, i1, i2, input)
      (RangeFrame(am, bm), i2)
    } else {
      val (a, i1) = rangeBound(from, to, input)
      (RangeFrame(a match { case Current => 0L; case Preceding(m, _) => m }, 0L), i1)
    }
  }

  /** `CURRENT ROW`, or the error for `UNBOUNDED`, as RANGE and ROWS frames share them; None otherwise. */
  private def currentRowOrUnbounded(i: Int, to: Int, expected: String, input: String): Option[(Bound, Int)] = {
    if (i >= to) syntax(i, expected, atEnd = true)
    val t = tokens(i)
    if (t.isWord("CURRENT")) {
      if (!(i + 1 < to && tokens(i + 1).isWord("ROW"))) syntax(i + 1, "ROW after CURRENT", atEnd = i + 1 >= to)
      Some((Current, i + 2))
    } else if (t.isWord("UNBOUNDED")) {
      throw OverjoinErrors.parse("OVERJOIN_WINDOW_UNBOUNDED", sql, t.start, t.end, "input" -> input)
    } else None
  }

  private def rangeBound(i: Int, to: Int, input: String): (Bound, Int) =
    currentRowOrUnbounded(i, to, "INTERVAL ... PRECEDING or CURRENT ROW", input).getOrElse {
      val (micros, next) = parseDuration(i, to, input)
      directionOf(next, to, input)
      (Preceding(micros, i), next + 1)
    }

  private def directionOf(i: Int, to: Int, input: String): Unit = {
    if (i < to && tokens(i).isWord("FOLLOWING")) {
      throw OverjoinErrors.parse("OVERJOIN_WINDOW_FOLLOWING", sql, tokens(i).start, tokens(i).end, "input" -> input)
    }
    if (!(i < to && tokens(i).isWord("PRECEDING"))) syntax(i, "PRECEDING", atEnd = i >= to)
  }

  private def parseRows(from: Int, to: Int, input: String): (io.overjoin.catalyst.JoinFrame, Int) = {
    def bound(i: Int): (Bound, Int) = currentRowOrUnbounded(i, to, "a row count PRECEDING or CURRENT ROW", input).getOrElse {
      val t = tokens(i)
      if (t.isSymbol("-") && i + 1 < to && tokens(i + 1).kind == TokenKind.Number) {
        throw OverjoinErrors.parse("OVERJOIN_WINDOW_NEGATIVE_SIZE", sql, t.start, tokens(i + 1).end,
          "input" -> input, "size" -> ("-" + tokens(i + 1).text))
      } else if (t.kind == TokenKind.Number && t.text.forall(_.isDigit)) {
        directionOf(i + 1, to, input)
        (Preceding(t.text.toLong, i), i + 2)
      } else syntax(i, "a row count PRECEDING or CURRENT ROW")
    }
    val rowsOf: Bound => Long = { case Current => 0L; case Preceding(k, _) => k }
    if (from < to && tokens(from).isWord("BETWEEN")) {
      val (a, i1) = bound(from + 1)
      if (!(i1 < to && tokens(i1).isWord("AND"))) syntax(i1, "AND in ROWS BETWEEN ... AND ...", atEnd = i1 >= to)
      val (b, i2) = bound(i1 + 1)
      if (rowsOf(a) < rowsOf(b)) boundsOrder(from, i1, i2, input)
      if (rowsOf(b) != 0) {
        throw OverjoinErrors.parse("OVERJOIN_UNSUPPORTED_SYNTAX", sql, tokens(i1 + 1).start, tokens(i2 - 1).end,
          "feature" -> "A ROWS window that ends before the current row",
          "alternative" -> "write ROWS BETWEEN n PRECEDING AND CURRENT ROW.")
      }
      (io.overjoin.catalyst.RowsFrame(rowsOf(a)), i2)
    } else {
      val (a, i1) = bound(from)
      (io.overjoin.catalyst.RowsFrame(rowsOf(a)), i1)
    }
  }

  /** `BETWEEN a AND b` with `a` nearer than `b`: the bounds as the user wrote them. */
  private def boundsOrder(between: Int, and: Int, end: Int, input: String): Nothing =
    throw OverjoinErrors.parse("OVERJOIN_WINDOW_BOUNDS_ORDER", sql, tokens(between).start, tokens(between).end,
      "input" -> input, "start" -> sql.substring(tokens(between + 1).start, tokens(and - 1).end),
      "end" -> sql.substring(tokens(and + 1).start, tokens(end - 1).end))

  private def tokenAt(offset: Int): Token = tokens.find(_.start == offset).get

  /**
   * `TUMBLE(s, ts, size)` / `HOP(s, ts, slide, size)` (RisingWave): the window, the offset of the
   * relation `s`, and what to blank so that Spark's parser sees the relation alone.
   */
  private def windowFunction(fn: Token, open: Int, close: Int): (WindowTvf, (Int, Int), Seq[(Int, Int)]) = {
    val args = splitAtCommas(open + 1, close)
    val expected = if (fn.isWord("TUMBLE")) 3 else 4
    if (args.size != expected) {
      syntax(if (args.size < expected) close else args(expected)._1,
        s"${fn.upper}(relation, time column, ${if (expected == 3) "size" else "slide, size"})")
    }
    val (relFrom, relTo) = args.head
    if (!(relTo - relFrom == 1 || (relTo - relFrom) % 2 == 1) || !isName(tokens(relFrom))) {
      syntax(relFrom, s"a table or stream name as the first argument of ${fn.upper}")
    }
    val (colFrom, colTo) = args(1)
    if (colTo - colFrom != 1 || !isName(tokens(colFrom))) syntax(colFrom, "a time column name")
    def micros(arg: (Int, Int)): Long = {
      val (v, next) = parseDuration(arg._1, arg._2, fn.upper)
      if (next != arg._2) syntax(next, "a comma or ')' after the duration")
      if (v <= 0) throw OverjoinErrors.parse("OVERJOIN_WINDOW_NEGATIVE_SIZE", sql, tokens(arg._1).start,
        tokens(arg._2 - 1).end, "input" -> fn.upper, "size" -> sql.substring(tokens(arg._1).start, tokens(arg._2 - 1).end))
      v
    }
    val (slide, size) = if (expected == 3) { val v = micros(args(2)); (v, v) } else (micros(args(2)), micros(args(3)))
    val tvf = WindowTvf(fn.upper, tokens(colFrom).identifier, size, slide)
    val blanks = Seq((fn.start, tokens(relFrom).start), (tokens(relTo - 1).end, tokens(close).end))
    (tvf, (tokens(relFrom).start, tokens(relTo - 1).end), blanks)
  }

  private def notAJoinInput(t: Token, input: String, detail: String): Nothing =
    throw OverjoinErrors.parse("OVERJOIN_WINDOW_NOT_A_JOIN_INPUT", sql, t.start, t.end, "input" -> input, "detail" -> detail)

  /**
   * `WITHIN` starts Lenses' clause when a duration can follow it; followed by ON, a join word, a
   * comma or a clause keyword (or nothing) it is an alias, as Spark reads it.
   */
  private def isWithinClause(i: Int, to: Int): Boolean = {
    if (!tokens(i).isWord("WITHIN") || i + 1 >= to) return false
    val t = tokens(i + 1)
    t.kind match {
      case TokenKind.Number | TokenKind.Str => true
      case TokenKind.Symbol => t.text == "-"
      case TokenKind.Word => !t.isWordIn(JoinWords ++ ClauseWords ++ SetOperators ++ Set("ON", "USING", "AS", "OVER"))
      case _ => false
    }
  }

  /** ASOF: at least one `=` and exactly one of `<`, `<=`, `>`, `>=` among the AND-ed terms of ON. */
  private def checkAsofCondition(onIdx: Int, end: Int, input: String): Seq[(String, String)] = {
    val terms = ArrayBuffer.empty[(Int, Int)]
    var s = onIdx + 1
    var i = s
    while (i < end) {
      if (tokens(i).isWord("AND")) { terms += ((s, i)); s = i + 1; i += 1 }
      else if (tokens(i).isSymbol("(")) i = close(i, end) + 1
      else i += 1
    }
    terms += ((s, end))
    def opsIn(f: Int, t: Int): Seq[String] = {
      val ops = ArrayBuffer.empty[String]
      var k = f
      while (k < t) {
        if (tokens(k).isSymbol("(")) k = close(k, t) + 1
        else { if (tokens(k).kind == TokenKind.Symbol) ops += tokens(k).text; k += 1 }
      }
      ops.toSeq
    }
    val kinds = terms.toSeq.map { case (f, t) => opsIn(f, t) }
    val equalities = kinds.count(ops => ops.exists(o => o == "=" || o == "=="))
    val inequalities = kinds.count(ops => ops.exists(o => Set("<", "<=", ">", ">=").contains(o)))
    if (equalities < 1 || inequalities != 1) {
      val on = tokens(onIdx)
      throw OverjoinErrors.parse("OVERJOIN_ASOF_CONDITION", sql, on.start, on.end,
        "input" -> input, "equalities" -> equalities.toString, "inequalities" -> inequalities.toString)
    }
    // `q.c` operands of the inequality, as (qualifier, column).
    terms.toSeq.zip(kinds).collect {
      case ((f, t), ops) if ops.exists(o => Set("<", "<=", ">", ">=").contains(o)) =>
        (f until t - 2).collect {
          case k if isName(tokens(k)) && tokens(k + 1).isSymbol(".") && isName(tokens(k + 2)) &&
            !(k > f && tokens(k - 1).isSymbol(".")) && !(k + 3 < t && tokens(k + 3).isSymbol(".")) =>
            (tokens(k).identifier, tokens(k + 2).identifier)
        }
    }.flatten
  }

  // ---------------------------------------------------------------------------------------------
  // Durations and intervals.

  /** A Lenses duration (`5s`, `500ms`) or an INTERVAL literal; returns microseconds and the next index. */
  private def parseDuration(i: Int, to: Int, input: String): (Long, Int) = {
    if (i >= to) syntax(i, "a duration such as 5s or INTERVAL '5' SECOND", atEnd = true)
    val t = tokens(i)
    if (t.isWord("INTERVAL")) parseInterval(i, to, input, allowNegative = false)
    else if (t.kind == TokenKind.Number) (lensesDuration(t), i + 1)
    else if (t.isSymbol("-") && i + 1 < to && tokens(i + 1).kind == TokenKind.Number) {
      throw OverjoinErrors.parse("OVERJOIN_WINDOW_NEGATIVE_SIZE", sql, t.start, tokens(i + 1).end,
        "input" -> input, "size" -> sql.substring(t.start, tokens(i + 1).end))
    } else if (t.kind == TokenKind.Str && i + 1 < to && tokens(i + 1).isWordIn(Lexicon.unitWords)) {
      syntax(i, "INTERVAL before the interval value")
    } else if (t.kind == TokenKind.Word) {
      throw OverjoinErrors.parse("OVERJOIN_BAD_DURATION", sql, t.start, t.end, "literal" -> t.text)
    } else syntax(i, "a duration such as 5s or INTERVAL '5' SECOND")
  }

  private def lensesDuration(t: Token): Long = IntervalValues.duration(t.text).getOrElse(
    throw OverjoinErrors.parse("OVERJOIN_BAD_DURATION", sql, t.start, t.end, "literal" -> t.text))

  /**
   * `INTERVAL [-] 'v' unit [(p)] [TO unit [(p)]]`, `INTERVAL [-] 'n unit ...'`, `INTERVAL [-] n unit [n unit ...]`
   * (docs/syntax.md, "Interval values"). Returns microseconds and the index after the literal. A
   * minus sign, before the value or in it, is refused unless `allowNegative` (a watermark delay
   * is Spark's to judge).
   */
  private def parseInterval(at: Int, to: Int, input: String, allowNegative: Boolean): (Long, Int) = {
    val intervalTok = tokens(at)
    var i = at + 1
    val minus = i < to && tokens(i).isSymbol("-")
    if (minus) i += 1
    if (i >= to) syntax(i, "an interval value in quotes, such as INTERVAL '5' SECOND", atEnd = true)
    val v = tokens(i)
    def negative(end: Int): Nothing = throw OverjoinErrors.parse("OVERJOIN_WINDOW_NEGATIVE_SIZE", sql,
      intervalTok.start, tokens(math.min(i, to - 1)).end, "input" -> input,
      "size" -> sql.substring(intervalTok.start, tokens(end - 1).end))
    def refused(p: IntervalValues.Problem, valueTok: Token, unit: String): Nothing = p match {
      case IntervalValues.VariableUnit(u) => throw OverjoinErrors.parse("OVERJOIN_WINDOW_VARIABLE_UNIT", sql,
        valueTok.start, valueTok.end, "input" -> input, "unit" -> u)
      case IntervalValues.BadValue(detail) => throw OverjoinErrors.parse("OVERJOIN_WINDOW_BAD_INTERVAL", sql,
        valueTok.start, valueTok.end, "literal" -> valueTok.text, "input" -> input, "unit" -> unit, "detail" -> detail)
    }
    if (v.kind == TokenKind.Str) {
      val body = unquote(v.text).trim
      if (i + 1 < to && tokens(i + 1).isWordIn(Lexicon.unitWords)) {
        val (unit1, j1) = unitAt(i + 1, to, input)
        var j = j1
        var unit2: Option[String] = None
        if (j < to && tokens(j).isWord("TO")) {
          val (u2, j2) = unitAt(j + 1, to, input)
          unit2 = Some(u2); j = j2
        }
        val isNegative = minus || body.startsWith("-")
        if (isNegative && !allowNegative) negative(j)
        val unsigned = if (body.startsWith("-") || body.startsWith("+")) body.substring(1) else body
        val value = unit2.map(u2 => IntervalValues.fields(unsigned, unit1, u2))
          .getOrElse(IntervalValues.single(unsigned, unit1))
          .fold(p => refused(p, v, unit1 + unit2.map(" TO " + _).getOrElse("")), identity)
        (if (isNegative) -value else value, j)
      } else if (i + 1 < to && tokens(i + 1).kind == TokenKind.Word &&
        !tokens(i + 1).isWordIn(Set("PRECEDING", "FOLLOWING", "AND", "ON", "AS", "JOIN", "WHERE"))) {
        syntax(i + 1, "SECOND, MINUTE, HOUR or DAY")
      } else {
        val pairs = IntervalValues.splitPairs(body).getOrElse(
          refused(IntervalValues.BadValue(Lexicon.expected("multiUnit")), v, "interval"))
        val isNegative = minus || pairs.exists(_._1.startsWith("-"))
        if (isNegative && !allowNegative) negative(i + 1)
        val value = IntervalValues.pairs(pairs).fold(p => refused(p, v, "interval"), identity)
        (if (isNegative) -value else value, i + 1)
      }
    } else if (v.kind == TokenKind.Number) {
      // Spark's unquoted form: INTERVAL 5 SECONDS [3 MILLISECONDS ...].
      var j = i
      val pairs = ArrayBuffer.empty[(Token, String)]
      while (j + 1 < to && tokens(j).kind == TokenKind.Number && tokens(j + 1).isWordIn(Lexicon.unitWords)) {
        val (unit, next) = unitAt(j + 1, to, input)
        pairs += ((tokens(j), unit))
        j = next
      }
      if (pairs.isEmpty) syntax(i + 1, "a unit such as SECOND, MINUTE, HOUR or DAY", atEnd = i + 1 >= to)
      if (minus && !allowNegative) negative(j)
      var total = 0L
      pairs.foreach { case (num, unit) =>
        IntervalValues.single(num.text, unit) match {
          case Right(micros) if total <= Long.MaxValue - micros => total += micros
          case Right(_) => refused(IntervalValues.BadValue(Lexicon.expected("tooLarge")), num, unit)
          case Left(p) => refused(p, num, unit)
        }
      }
      (if (minus) -total else total, j)
    } else syntax(i, "an interval value in quotes, such as INTERVAL '5' SECOND")
  }

  /** A unit word with its optional precision, as its singular name; MONTH, YEAR, QUARTER are refused here. */
  private def unitAt(i: Int, to: Int, input: String): (String, Int) = {
    val t = tokens(i)
    val unit = Lexicon.baseUnit(t.text)
    if (Lexicon.variableUnits.contains(unit)) {
      throw OverjoinErrors.parse("OVERJOIN_WINDOW_VARIABLE_UNIT", sql, t.start, t.end, "input" -> input, "unit" -> unit)
    }
    if (!Lexicon.unitMicros.contains(unit)) syntax(i, "SECOND, MINUTE, HOUR or DAY")
    var j = i + 1
    if (j < to && tokens(j).isSymbol("(")) {
      val p = tokens.lift(j + 1)
      if (!p.exists(p => p.kind == TokenKind.Number && p.text.forall(_.isDigit)) || !(j + 2 < to && tokens(j + 2).isSymbol(")"))) {
        syntax(j + 1, "a precision such as (3)", atEnd = j + 1 >= to)
      }
      if (BigInt(p.get.text) > Lexicon.maxPrecision) {
        throw OverjoinErrors.parse("OVERJOIN_WINDOW_BAD_PRECISION", sql, p.get.start, p.get.end, "precision" -> p.get.text,
          "unit" -> unit, "input" -> input)
      }
      j += 3
    }
    (unit, j)
  }

  private def unquote(s: String): String = {
    val q = s.indexWhere(c => c == '\'' || c == '"')
    s.substring(q + 1, s.length - 1)
  }

  // ---------------------------------------------------------------------------------------------
  // ROWTIME references.

  private def rowtimeRefs(from: Int, to: Int, inputNames: Set[String], listStart: Int, fromIdx: Int): Seq[RowtimeRef] = {
    val out = ArrayBuffer.empty[RowtimeRef]
    var i = from
    while (i < to) {
      val t = tokens(i)
      if (t.isSymbol("(") && i + 1 < to && tokens(i + 1).isWordIn(Set("SELECT", "WITH", "VALUES", "FROM", "TABLE"))) {
        i = close(i, to) + 1
      } else {
        if (isName(t) && t.identifier.equalsIgnoreCase("ROWTIME") && t.kind != TokenKind.DoubleQuoted &&
          !(i > 0 && tokens(i - 1).isWord("AS")) &&
          !(i + 1 < to && (tokens(i + 1).isSymbol(".") || tokens(i + 1).isSymbol("(")))) {
          val qualified = i >= 2 && tokens(i - 1).isSymbol(".") && isName(tokens(i - 2)) &&
            !(i >= 3 && tokens(i - 3).isSymbol("."))
          val startIdx = if (qualified) i - 2 else i
          val unqualifiedOk = !(i > 0 && tokens(i - 1).isSymbol("."))
          val selectItem = startIdx > 0 && startIdx >= listStart && startIdx < fromIdx &&
            (startIdx == listStart || tokens(startIdx - 1).isSymbol(",") ||
              tokens(startIdx - 1).isWordIn(Set("DISTINCT", "ALL"))) &&
            (i + 1 >= to || i + 1 == fromIdx || tokens(i + 1).isSymbol(","))
          if (qualified && inputNames.contains(tokens(i - 2).identifier.toLowerCase)) {
            out += RowtimeRef(tokens(startIdx).start, Some(tokens(i - 2).identifier), t.identifier, selectItem)
          } else if (!qualified && unqualifiedOk) {
            out += RowtimeRef(t.start, None, t.identifier, selectItem)
          }
        }
        i += 1
      }
    }
    out.toSeq
  }

  private def syntax(i: Int, expected: String, atEnd: Boolean = false): Nothing = {
    if (i >= n || atEnd && i >= n) {
      throw OverjoinErrors.parse("OVERJOIN_SYNTAX_ERROR", sql, sql.length, sql.length,
        "token" -> "end of input", "detail" -> s"expected $expected")
    }
    val k = math.min(i, n - 1)
    throw OverjoinErrors.parse("OVERJOIN_SYNTAX_ERROR", sql, tokens(k).start, tokens(k).end,
      "token" -> s"'${tokens(k).text}'", "detail" -> s"expected $expected")
  }
}

object StreamSqlScanner {

  /** Scan `sql`; an unterminated literal or comment means the text is not ours to judge. */
  def scan(sql: String): ScanResult = Lexer.tokenize(sql) match {
    case Right(tokens) => DeepStack.run(sql)(new StreamSqlScanner(sql, tokens).scan())
    case Left(_) => ScanResult(Nil, Nil)
  }

  private val SetOperators = Set("UNION", "INTERSECT", "EXCEPT", "MINUS")
  private val ClauseWords = Set("WHERE", "GROUP", "HAVING", "QUALIFY", "ORDER", "SORT", "CLUSTER",
    "DISTRIBUTE", "LIMIT", "OFFSET", "LATERAL", "WINDOW")
  private val AfterWindowClause = Set("ORDER", "SORT", "CLUSTER", "DISTRIBUTE", "LIMIT", "OFFSET", "QUALIFY")
  private val JoinWords = Set("JOIN", "INNER", "CROSS", "LEFT", "RIGHT", "FULL", "OUTER", "SEMI", "ANTI",
    "NATURAL", "ASOF")
  /** Words that end a relation rather than alias it. */
  private val NotAnAlias: Set[String] = JoinWords ++ ClauseWords ++ SetOperators ++ Set("ON", "USING",
    "OVER", "AS", "FOR", "WATERMARK", "TABLESAMPLE", "PIVOT", "UNPIVOT", "SELECT", "FROM",
    "WITH", "VALUES", "STREAM", "JOIN")
}
