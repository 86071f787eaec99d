package io.overjoin.parser

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer

import io.overjoin.errors.{OverjoinErrors, SqlPosition}
import io.overjoin.model.{JoinWindow, RangeFrame, Replacement, ScanResult, SlidingSpec, StreamBlock, StreamInput}
import io.overjoin.parser.Keywords.{AfterWindowClause, ClauseWords, SetOperators}

/**
 * overjoin's structural parser. It reads a statement's tokens, finds every query block (a
 * `SELECT`, at any depth), reads the block's `FROM` clause into join inputs and joins, and decides
 * by that grammar whether the block is in the streaming dialect (docs/syntax.md, "When a statement
 * is overjoin's"): `SELECT STREAM`, `OVER` after a `FROM` relation, `WITHIN`, `ASOF JOIN`,
 * `FOR SYSTEM_TIME AS OF PROCTIME()`, `TUMBLE`/`HOP`, `STEP(ts BY ...)`/`FLOOR(ts TO ...)`/`CEIL(ts TO ...)`,
 * Calcite's group windows (`GROUP BY TUMBLE(ts, ...)`, `TUMBLE_END(...)`, ...), or
 * `WINDOWED BY STAGGER (...)`.
 *
 * Expressions are not parsed: they are balanced token runs that Spark's parser reads later. What
 * this parser cannot follow (PIVOT, LATERAL VIEW, ...) ends its reading of that FROM clause, so the
 * rest stays Spark's business. Errors in overjoin's own syntax are raised here, pointing at the
 * user's text, in reading order: the FROM clause and its windows, then named windows, then the rest.
 *
 * {{{
 *   SELECT STREAM ROWTIME, o.id FROM Shipments AS s JOIN Orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON ...
 *          ^^^^^^                                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ blanked
 * }}}
 */
final class QueryBlockScanner private (c: TokenCursor) {
  import c.{sql, tokens}

  private val intervals = new IntervalParser(c)
  private val windows = new WindowSpecParser(c, intervals)
  private val inputs = new InputParser(c, windows, intervals)
  private val joins = new JoinParser(c, inputs, intervals)
  private val expressions = new ExpressionScanner(c)
  private val timeFloors = new TimeFloorParser(c, intervals)
  private val groupWindows = new GroupWindowParser(c, intervals)
  private val sliding = new SlidingWindowParser(c, windows)
  private val staggers = new StaggerWindowParser(c, intervals)
  private val similars = new SimilarToParser(c)

  private val blocks = ArrayBuffer.empty[StreamBlock]
  private val blockBlanks = mutable.Map.empty[Int, Seq[(Int, Int)]]
  private val blockReplacements = mutable.Map.empty[Int, Seq[Replacement]]

  def scan(): ScanResult = {
    if (!c.balanced) return ScanResult.NotOurs
    scanRange(0, c.n)
    val ours = blocks.sortBy(_.selectStart).toSeq
    // SIMILAR TO is not Spark SQL: a statement holding one is overjoin's, streaming or not.
    val similar = similars.calls()
    if (ours.isEmpty && similar.isEmpty) return ScanResult.NotOurs
    ScanResult(ours, ours.flatMap(b => blockBlanks.getOrElse(b.id, Nil)) ++ similar.flatMap(_.blanks),
      sServerSpellings() ++ ours.flatMap(b => blockReplacements.getOrElse(b.id, Nil)) ++ similar.flatMap(_.replacements),
      similar.map(_.call))
  }

  /**
   * A statement in the streaming dialect reads as s-Server and Kinesis Data Analytics write it
   * (docs/semantics.md §0): `"x"` is an identifier whatever `spark.sql.ansi.doubleQuotedIdentifiers`
   * says, and `CREATE VIEW v DESCRIPTION '...' AS` is Spark's `COMMENT`.
   */
  private def sServerSpellings(): Seq[Replacement] = {
    val quoted = tokens.filter(_.kind == TokenKind.DoubleQuoted).map { t =>
      QueryBlockScanner.backQuoted(t).getOrElse(throw OverjoinErrors.syntaxDetail(c.span(t), t.text,
        "a double-quoted name cannot contain a back quote (`)"))
    }
    val description = if (isCreateView) {
      val as = c.findAtDepth0(0, c.n)(i => tokens(i).isWord("AS"))
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

  private def scanRange(from: Int, to: Int): Unit = {
    var i = from
    while (i < to) {
      val t = tokens(i)
      if (t.isWord("SELECT")) {
        i = scanBlock(i, to)
      } else if (t.isSymbol("(")) {
        val j = c.close(i, to)
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
      if (t.isSymbol("(")) i = c.close(i, limit) + 1
      else if (t.isSymbol(";") || t.isSymbol(")") || t.isSymbol("|>") || t.isWordIn(SetOperators)) return i
      else i += 1
    }
    limit
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

    val fromIdx = c.findAtDepth0(listStart, end)(i => tokens(i).isWord("FROM"))
    if (selectStream) checkSelectList(listStart, fromIdx, end)
    val clauseEnd = if (fromIdx < end) c.findAtDepth0(fromIdx + 1, end)(i => isClauseStart(i, end)) else end
    val windowIdx = c.findAtDepth0(clauseEnd, end)(i => isWindowClause(i, end))
    val windowEnd = if (windowIdx < end) c.findAtDepth0(windowIdx + 1, end)(i =>
      tokens(i).isWordIn(AfterWindowClause) && !isWindowClause(i, end)) else end
    val definitions = if (windowIdx < end) windows.definitions(windowIdx, windowEnd) else Nil

    if (fromIdx < end) joins.from(b, fromIdx + 1, clauseEnd)
    val usedNames = resolveNamedWindows(b, definitions)
    if (b.dialect && definitions.nonEmpty) {
      val joinDefs = definitions.filter(d => usedNames.contains(d.name.toLowerCase))
      if (joinDefs.size == definitions.size) b.blanks += ((tokens(windowIdx).start, tokens(windowEnd - 1).end))
      else joinDefs.foreach(d => b.blanks += ((d.blankFrom, d.blankTo)))
    }
    applyWithin(b)
    if (b.inputs.exists(_.window.isDefined)) b.dialect = true
    val exprRanges = Seq((listStart, fromIdx min end)) ++ b.onRanges ++
      Seq((clauseEnd, windowIdx), (windowEnd, end))
    // STEP(ts BY ...), FLOOR(ts TO ...) and CEIL(ts TO ...) are not Spark SQL: a block holding one is ours.
    val floors = exprRanges.flatMap { case (f, t) => timeFloors.calls(f, t) }
    if (floors.nonEmpty) b.dialect = true
    // So are Calcite's group windows, GROUP BY TUMBLE(...) and their TUMBLE_END(...) (§11).
    val groupCalls = exprRanges.flatMap { case (f, t) => groupWindows.calls(f, t) }
    if (groupCalls.nonEmpty) b.dialect = true
    declareMonotonicRowtime(b, clauseEnd, windowIdx)
    // s-Server's t-sort, ORDER BY key WITHIN interval (§11): not Spark SQL either.
    Seq((clauseEnd, windowIdx), (windowEnd, end)).foreach { case (f, t) => sortWithin(b, f, t) }
    if (b.sortWithin.isDefined) b.dialect = true
    // WINDOWED BY STAGGER (...) after FROM/WHERE (§13): not Spark SQL either.
    val staggerIdx = c.findAtDepth0(clauseEnd, windowIdx)(i => staggers.startsAt(i, end))
    if (staggerIdx < windowIdx) b.dialect = true
    if (b.dialect) {
      if (!selectStream) checkSelectList(listStart, fromIdx, end)
      b.pending.headOption.foreach(_.apply())
      groupWindows.checkPlaces(groupCalls, listStart, fromIdx min end, groupItems(clauseEnd, windowIdx),
        sorted = Seq((clauseEnd, windowIdx), (windowEnd, end)).exists { case (f, t) =>
          c.findAtDepth0(f, t)(i => tokens(i).isWord("ORDER") && i + 1 < t && tokens(i + 1).isWord("BY")) < t
        })
      val id = blocks.size
      val blockInputs = b.inputs.map { in =>
        val pos = SqlPosition.of(sql, in.relStart, in.relEnd)
        StreamInput(in.relStart, in.relEnd, in.source, in.name, in.alias, in.window.getOrElse(JoinWindow.CurrentRow),
          in.windowStart, in.streamKeyword, pos.line, pos.column, lookup = in.lookup, asofTime = in.asofTime,
          tvf = in.tvf, cursorCall = in.cursorCall)
      }.toSeq
      val names = blockInputs.map(_.name.toLowerCase).toSet
      exprRanges.foreach { case (f, t) => expressions.checkWindowNamesAsQualifiers(f, t, b, usedNames, names) }
      // The windows of window functions (docs/semantics.md §12): the WINDOW clause's definitions no
      // join input uses, and inline specs after OVER.
      val functionDefs = definitions.filterNot(d => usedNames.contains(d.name.toLowerCase))
      val slidingBlanks = ArrayBuffer.empty[(Int, Int)]
      val namedSpecs = functionDefs.map { d =>
        val (spec, blanks) = sliding.spec(d.specFrom - 1, d.specTo, Some(d.name))
        slidingBlanks ++= blanks
        spec
      }
      val inlineSpecs = ArrayBuffer.empty[SlidingSpec]
      val calls = exprRanges.flatMap { case (f, t) =>
        sliding.calls(f, t, namedSpecs.map(s => s.name.get.toLowerCase -> s).toMap, inlineSpecs, slidingBlanks)
      }
      val refRanges = exprRanges ++ functionDefs.map(d => (d.specFrom, d.specTo))
      val refs = refRanges.flatMap { case (f, t) => expressions.rowtimeRefs(f, t, names, listStart, fromIdx) }
      val stagger = if (staggerIdx < windowIdx) Some(staggers.clause(staggerIdx, windowIdx)) else None
      // The block's own expressions, subqueries left out: UNIX_TIMESTAMP(ts) and TO_TIMESTAMP(n)
      // there have KDA's meaning (milliseconds), and so has an integer division.
      val own = exprRanges.map { case (f, t) => (ownTokens(f, t), t) }
      val kdaTimes = own.flatMap { case (idx, t) => idx.filter(i => isKdaTimeCall(i, t)).map(tokens(_).start) }
      blocks += StreamBlock(id, tokens(sel).start, selectStream, blockInputs, b.joins.toSeq, refs,
        floors.map(_.call), namedSpecs ++ inlineSpecs, calls, stagger.map(_._1), kdaTimes,
        own.flatMap { case (idx, _) => spans(idx) }, groupCalls.map(_.call), b.sortWithin)
      blockBlanks(id) = b.blanks.toSeq ++ floors.flatMap(_.blanks) ++ slidingBlanks ++ stagger.toSeq.flatMap(_._2) ++
        groupCalls.flatMap(_.blanks)
      blockReplacements(id) = floors.flatMap(_.replacements) ++ stagger.map(_._3)
    }

    // Nested blocks: subqueries anywhere inside this one.
    var i = sel + 1
    while (i < end) {
      if (tokens(i).isSymbol("(")) { val j = c.close(i, end); scanRange(i + 1, j); i = j + 1 } else i += 1
    }
    end
  }

  /**
   * `GROUP BY STEP(MONOTONIC(col) BY ...)` or `FLOOR`/`CEIL(MONOTONIC(col) TO unit)` (docs/semantics.md
   * §11): KDA's declaration that `col` only grows makes it the time of the block's tumbling windows.
   * The input that has `col` (the one it is qualified with, else the first) takes it as its rowtime,
   * as `OVER (ORDER BY col)` would say, unless its window names one already.
   */
  private def declareMonotonicRowtime(b: BlockBuilder, from: Int, to: Int): Unit = {
    val group = c.findAtDepth0(from, to)(i => tokens(i).isWord("GROUP") && i + 1 < to && tokens(i + 1).isWord("BY"))
    if (group >= to || b.inputs.isEmpty) return
    var i = group + 2
    while (i + 5 < to) {
      if (c.opensSubquery(i, to)) i = c.close(i, to)
      else if (tokens(i).isWordIn(TimeFloorParser.Functions) && tokens(i + 1).isSymbol("(") &&
        tokens(i + 2).isWord("MONOTONIC") && tokens(i + 3).isSymbol("(") && !(i > 0 && tokens(i - 1).isSymbol("."))) {
        val close = c.close(i + 3, to)
        val inner = (i + 4 until close).map(tokens)
        val parts = inner.zipWithIndex.collect { case (t, k) if k % 2 == 0 => t }
        val dotted = inner.zipWithIndex.forall { case (t, k) => if (k % 2 == 0) c.isName(t) else t.isSymbol(".") }
        if (inner.nonEmpty && inner.size % 2 == 1 && dotted && parts.size <= 2) {
          val names = parts.map(_.identifier)
          val input = if (names.size == 2) b.inputs.find(in => in.name.equalsIgnoreCase(names.head)) else b.inputs.headOption
          input.filter(in => in.window.forall(_.orderBy.isEmpty)).foreach { in =>
            in.window = Some(in.window.getOrElse(JoinWindow.CurrentRow).copy(orderBy = Some(names), monotonic = true))
          }
        }
      }
      i += 1
    }
    // A GROUP BY item that is MONOTONIC(col) itself, or a subquery's column declared with
    // MONOTONIC(...) there (`GROUP BY window_time` over `(SELECT STREAM MONOTONIC(...) AS
    // window_time ...)`): the column is the time of the block's groups (docs/semantics.md §11).
    val listEnd = c.findAtDepth0(group + 2, to)(k => tokens(k).isWordIn(QueryBlockScanner.GroupByListEnd))
    items(group + 2, listEnd).foreach { case (s, e) =>
      val declared: Option[(Option[String], String)] =
        if (tokens(s).isWord("MONOTONIC") && s + 1 < e && tokens(s + 1).isSymbol("(") && c.close(s + 1, e) == e - 1) {
          dottedName(s + 2, e - 1)
        } else dottedName(s, e).filter { case (q, name) =>
          inputFor(b, q).exists(in => monotonicColumns(in).exists(_.equalsIgnoreCase(name)))
        }
      declared.foreach { case (q, name) =>
        inputFor(b, q).filter(in => in.window.forall(_.orderBy.isEmpty)).foreach { in =>
          in.window = Some(in.window.getOrElse(JoinWindow.CurrentRow).copy(orderBy = Some(q.toSeq :+ name), monotonic = true))
        }
      }
    }
  }

  /** The items of a list in tokens [from, to): ranges between depth-0 commas. */
  private def items(from: Int, to: Int): Seq[(Int, Int)] = {
    val out = ArrayBuffer.empty[(Int, Int)]
    var s = from
    while (s < to) {
      val comma = c.findAtDepth0(s, to)(k => tokens(k).isSymbol(","))
      if (comma > s) out += ((s, comma))
      s = comma + 1
    }
    out.toSeq
  }

  /** Tokens [from, to) as `name` or `q.name`. */
  private def dottedName(from: Int, to: Int): Option[(Option[String], String)] = to - from match {
    case 1 if c.isName(tokens(from)) => Some((None, tokens(from).identifier))
    case 3 if c.isName(tokens(from)) && tokens(from + 1).isSymbol(".") && c.isName(tokens(from + 2)) =>
      Some((Some(tokens(from).identifier), tokens(from + 2).identifier))
    case _ => None
  }

  /** The input a column qualified with `q` (or not: the block's only input) belongs to. */
  private def inputFor(b: BlockBuilder, q: Option[String]): Option[InputBuilder] = q match {
    case Some(name) => b.inputs.find(_.name.equalsIgnoreCase(name))
    case None => if (b.inputs.size == 1) b.inputs.headOption else None
  }

  /** The columns a subquery input declares monotonic: its select items `MONOTONIC(...) [AS] name`. */
  private def monotonicColumns(in: InputBuilder): Seq[String] = {
    var at = tokens.indexWhere(_.start == in.relStart)
    if (at >= 0 && tokens(at).isWord("STREAM")) at += 1
    if (at < 0 || !c.opensSubquery(at, tokens.size) || !tokens(at + 1).isWord("SELECT")) return Nil
    val close = c.close(at, tokens.size)
    var start = at + 2
    while (start < close && tokens(start).isWordIn(Set("STREAM", "DISTINCT", "ALL"))) start += 1
    val from = c.findAtDepth0(start, close)(k => tokens(k).isWord("FROM"))
    items(start, from).flatMap { case (s, e) =>
      if (!tokens(s).isWord("MONOTONIC") || s + 1 >= e || !tokens(s + 1).isSymbol("(")) None
      else {
        val shut = c.close(s + 1, e)
        if (shut == e - 1) dottedName(s + 2, shut).map(_._2)
        else if (shut + 1 < e && c.isName(tokens(e - 1)) && (shut + 2 == e || (shut + 3 == e && tokens(shut + 1).isWord("AS")))) {
          Some(tokens(e - 1).identifier)
        } else None
      }
    }
  }

  /** The items of the block's `GROUP BY` among tokens [from, to), as token ranges; none without one. */
  private def groupItems(from: Int, to: Int): Seq[(Int, Int)] = {
    val group = c.findAtDepth0(from, to)(i => tokens(i).isWord("GROUP") && i + 1 < to && tokens(i + 1).isWord("BY"))
    if (group >= to) return Nil
    val end = c.findAtDepth0(group + 2, to)(i => tokens(i).isWordIn(QueryBlockScanner.GroupByEnds))
    c.splitAtCommas(group + 2, end)
  }

  /**
   * s-Server's t-sort, `ORDER BY key WITHIN interval [, more keys]` (docs/semantics.md §11): rows
   * arriving up to `interval` late are sorted into place. `WITHIN` and its interval (every form of a
   * join's `WITHIN`, with the same errors) follow the first key and are blanked. When that key is a
   * column (`"PositionTime"`, `s.ts`) other than `ROWTIME`, it is the time the rows are sorted by:
   * the input that has it (the one it is qualified with, else the first) takes it as its rowtime, as
   * `OVER (ORDER BY col)` would say, unless its window names one already.
   */
  private def sortWithin(b: BlockBuilder, from: Int, to: Int): Unit = {
    val order = c.findAtDepth0(from, to)(i => tokens(i).isWord("ORDER") && i + 1 < to && tokens(i + 1).isWord("BY"))
    if (order >= to) return
    val keyStart = order + 2
    val keyEnd = c.findAtDepth0(keyStart, to)(i => tokens(i).isSymbol(",") || tokens(i).isWord("WITHIN") ||
      (tokens(i).isWordIn(ClauseWords ++ SetOperators) && !tokens(i).isWord("ORDER")))
    if (keyEnd >= to || !tokens(keyEnd).isWord("WITHIN") || !inputs.isWithinClause(keyEnd, to)) return
    val (micros, next) = intervals.duration(keyEnd + 1, to, WindowNames.SortWithin)
    if (next < to && !tokens(next).isSymbol(",") && !tokens(next).isWordIn(ClauseWords ++ SetOperators)) {
      c.syntax(next, ", and the next sort key, or the end of ORDER BY (WITHIN follows the first key and its ASC)")
    }
    b.blanks += ((tokens(keyEnd).start, tokens(next - 1).end))
    b.sortWithin = Some(micros)
    // The key, less ASC: a column, or a qualified one, names the time the rows are sorted by.
    val key = (keyStart until keyEnd).map(tokens).filterNot(_.isWord("ASC"))
    val dotted = key.nonEmpty && key.size % 2 == 1 && key.zipWithIndex.forall { case (t, k) =>
      if (k % 2 == 0) c.isName(t) else t.isSymbol(".") }
    val names = key.zipWithIndex.collect { case (t, k) if k % 2 == 0 => t.identifier }
    if (dotted && names.size <= 2 && !names.last.equalsIgnoreCase("ROWTIME")) {
      val input = if (names.size == 2) b.inputs.find(in => in.name.equalsIgnoreCase(names.head)) else b.inputs.headOption
      input.filter(in => in.window.forall(_.orderBy.isEmpty)).foreach { in =>
        in.window = Some(in.window.getOrElse(JoinWindow.CurrentRow).copy(orderBy = Some(names)))
      }
    }
  }

  /** The indices of tokens [from, to) outside subqueries (other blocks). */
  private def ownTokens(from: Int, to: Int): Seq[Int] = {
    val out = ArrayBuffer.empty[Int]
    var i = from
    while (i < to) {
      if (c.opensSubquery(i, to)) i = c.close(i, to) + 1
      else { out += i; i += 1 }
    }
    out.toSeq
  }

  /**
   * Whether token `i` (before `to`) calls `UNIX_TIMESTAMP(...)` or `TO_TIMESTAMP(...)`: in a
   * streaming block they mean what Kinesis Data Analytics and s-Server mean (docs/syntax.md, "KDA
   * and s-Server functions").
   */
  private def isKdaTimeCall(i: Int, to: Int): Boolean =
    tokens(i).isWordIn(QueryBlockScanner.KdaTimeFunctions) && i + 1 < to && tokens(i + 1).isSymbol("(") &&
      !(i > 0 && tokens(i - 1).isSymbol("."))

  /** The character ranges of runs of consecutive token indices. */
  private def spans(indices: Seq[Int]): Seq[(Int, Int)] = {
    val out = ArrayBuffer.empty[(Int, Int)]
    var k = 0
    while (k < indices.size) {
      var last = k
      while (last + 1 < indices.size && indices(last + 1) == indices(last) + 1) last += 1
      out += ((tokens(indices(k)).start, tokens(indices(last)).end))
      k = last + 1
    }
    out.toSeq
  }

  /** `OVER name`: the block's `WINDOW name AS (...)`; returns the (lower-case) names joins use. */
  private def resolveNamedWindows(b: BlockBuilder, definitions: Seq[WindowDefinition]): Set[String] = {
    val used = mutable.Set.empty[String]
    b.inputs.foreach { in =>
      in.windowName.foreach { nameTok =>
        val name = nameTok.identifier
        definitions.find(_.name.equalsIgnoreCase(name)) match {
          case Some(d) =>
            used += d.name.toLowerCase
            in.window = Some(windows.spec(d.specFrom, d.specTo, in.displayName).copy(name = Some(name)))
          case None => throw OverjoinErrors.unknownWindow(c.span(nameTok), nameTok.text, in.displayName)
        }
      }
    }
    used.toSet
  }

  /** WITHIN gives both inputs of its join the same window; it cannot be combined with OVER. */
  private def applyWithin(b: BlockBuilder): Unit = {
    b.joins.foreach { j =>
      j.within.foreach { _ =>
        val right = b.inputs(j.rightIndex)
        Seq(b.inputs(j.rightIndex - 1), right).foreach { in =>
          if (in.window.isDefined) {
            val at = right.within.map(_._2).getOrElse(j.start)
            throw OverjoinErrors.withinWithOver(io.overjoin.errors.TextSpan(sql, at, at + 6), right.displayName)
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
  }

  /**
   * The select list of a block in the streaming dialect, where overjoin's keywords are keywords:
   * it cannot start with a join word (`SELECT STREAM ON * FROM a`), and it ends where FROM starts,
   * which cannot follow an operator (`SELECT STREAM a + FROM b`, which Spark would read as the
   * column `a + FROM` named b, leaving no FROM clause).
   */
  private def checkSelectList(listStart: Int, fromIdx: Int, end: Int): Unit = {
    var first = listStart
    if (first < end && tokens(first).isWordIn(Set("DISTINCT", "ALL"))) first += 1
    if (first < end && tokens(first).isWordIn(QueryBlockScanner.NotASelectItem) &&
      !(first + 1 < end && tokens(first + 1).isSymbol("("))) c.syntax(first, "a select list after SELECT STREAM")
    if (fromIdx < end && fromIdx > first) {
      val before = tokens(fromIdx - 1)
      val star = before.isSymbol("*") && (fromIdx - 1 == first || tokens(fromIdx - 2).isSymbol(",") ||
        tokens(fromIdx - 2).isSymbol("."))
      if (before.kind == TokenKind.Symbol && QueryBlockScanner.BinaryOperators.contains(before.text) && !star) {
        c.syntax(fromIdx, "an expression")
      }
    }
  }

  private def startsSelectList(i: Int, end: Int): Boolean = {
    if (i >= end) return false
    val t = tokens(i)
    if (t.isSymbol("*")) return i + 1 >= end || tokens(i + 1).isSymbol(",") || tokens(i + 1).isWord("FROM")
    if (t.kind == TokenKind.Symbol) return t.text == "(" || t.text == "-"
    !t.isWordIn(Set("FROM", "AS"))
  }

  private def isClauseStart(i: Int, end: Int): Boolean = {
    val t = tokens(i)
    if (t.isWord("WINDOW")) isWindowClause(i, end)
    else if (staggers.startsAt(i, end)) true
    // `LATERAL (SELECT ...)` is a relation of the FROM clause; `WHERE (a / b) > 1` is the WHERE.
    else t.isWordIn(ClauseWords) && !(t.isWord("LATERAL") && i + 1 < end && tokens(i + 1).isSymbol("("))
  }

  private def isWindowClause(i: Int, end: Int): Boolean =
    tokens(i).isWord("WINDOW") && i + 3 < end && c.isName(tokens(i + 1)) && tokens(i + 2).isWord("AS") &&
      tokens(i + 3).isSymbol("(")
}

object QueryBlockScanner {
  /** Words that end a GROUP BY list. */
  private[parser] val GroupByListEnd: Set[String] =
    Set("HAVING", "ORDER", "LIMIT", "WINDOW", "UNION", "EXCEPT", "INTERSECT", "QUALIFY", "WINDOWED", "CLUSTER", "DISTRIBUTE", "SORT")


  /** Words a select list cannot start with in the streaming dialect (the validator's `_NOT_A_SELECT_ITEM`). */
  private val NotASelectItem = Set("ON", "USING", "JOIN", "INNER", "CROSS", "NATURAL", "OUTER")

  /** Operators that need an operand after them. */
  private val BinaryOperators = Set("+", "-", "*", "/", "%", "||", "=", "==", "<", ">", "<=", ">=", "<>", "!=",
    "<=>", "&", "|", "^", "::", ",")

  /** The words that end a block's GROUP BY. */
  private val GroupByEnds = Set("HAVING", "QUALIFY", "ORDER", "SORT", "CLUSTER", "DISTRIBUTE", "LIMIT", "OFFSET", "WINDOW")

  /** Functions whose meaning in a streaming block is Kinesis Data Analytics' rather than Spark's. */
  val KdaTimeFunctions: Set[String] = Set("UNIX_TIMESTAMP", "TO_TIMESTAMP")

  /** Words one of which every statement in the streaming dialect holds (docs/syntax.md). */
  private val DialectWords = Seq("STREAM", "OVER", "WITHIN", "ASOF", "PROCTIME", "TUMBLE", "HOP", "STEP", "FLOOR", "CEIL",
    "SESSION", "STAGGER", "SIMILAR", "RANDOM_CUT_FOREST", "TOP_K_ITEMS_TUMBLING", "COUNT_DISTINCT_ITEMS_TUMBLING")

  /**
   * False when `sql` cannot be in the streaming dialect because it holds none of its words (in any
   * case, anywhere, literals included): such a statement goes to Spark's parser without being
   * tokenized here. True does not mean it is ours; [[scan]] decides that.
   */
  def mayBeOurs(sql: String): Boolean = {
    val upper = sql.toUpperCase(java.util.Locale.ROOT)
    DialectWords.exists(upper.contains)
  }

  /** Scan `sql`; an unterminated literal or comment means the text is not ours to judge. */
  def scan(sql: String): ScanResult = Lexer.tokenize(sql) match {
    case Right(tokens) => DeepStack.run(sql)(new QueryBlockScanner(new TokenCursor(sql, tokens)).scan())
    case Left(_) => ScanResult.NotOurs
  }

  /**
   * `"a""b"` as Spark's `` `a"b` ``, padded with spaces to the original length; None when the
   * back-quoted form would be longer (a name holding back quotes).
   */
  def backQuoted(t: Token): Option[Replacement] = {
    val name = t.identifier
    val quoted = "`" + name.replace("`", "``") + "`"
    if (quoted.length > t.text.length) None
    else Some(Replacement(t.start, quoted + " " * (t.text.length - quoted.length)))
  }
}
