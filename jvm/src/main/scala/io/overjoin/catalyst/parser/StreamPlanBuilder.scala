package io.overjoin.catalyst.parser

import scala.collection.mutable

import org.apache.spark.sql.catalyst.analysis.{UnresolvedAlias, UnresolvedAttribute, UnresolvedEventTimeWatermark, UnresolvedFunction, UnresolvedIdentifier, UnresolvedRelation, UnresolvedStar}
import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Divide, Expression, RLike, SortOrder, SubqueryExpression, WindowSpecDefinition}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Distinct, Join, LogicalPlan, Project, Sort, SubqueryAlias, WithWindowDefinition}
import org.apache.spark.sql.catalyst.trees.{CurrentOrigin, TreeNode}
import org.apache.spark.sql.overjoin.{KdaDivide, KdaTimeCall, SimilarTo}

import io.overjoin.catalyst.expressions.{GroupWindow, RowtimeReference, SlidingLag, TimeFloor}
import io.overjoin.catalyst.analysis.{ImplicitRowtime, SlidingFrames}
import io.overjoin.catalyst.plans.logical.{CursorFunctionInput, OverjoinNode, StaggerInput, StreamDistinct, StreamJoinRoot, WindowedInput}
import io.overjoin.errors.{OverjoinErrors, TextSpan}
import io.overjoin.parser.QueryBlockScanner
import io.overjoin.streams.SchemaNames
import io.overjoin.model.{GroupWindowCall, RowtimeRef, ScanResult, SimilarToCall, SlidingCall, SlidingSpec, StreamBlock, StreamInput, TimeFloorCall}

/**
 * Puts overjoin's nodes into the plan Spark's parser made of the blanked text. Because blanking
 * keeps every character's offset, a plan node is matched to what the parser ([[io.overjoin.parser.QueryBlockScanner]]) found by
 * the offset of its origin:
 *
 *  - the relation node of each join input (the top-most node starting at the input's offset:
 *    `SubqueryAlias` over `UnresolvedRelation`, or a subquery) is wrapped in a [[WindowedInput]];
 *  - the join tree of each block's inputs gets a [[StreamJoinRoot]] on top;
 *  - each `ROWTIME` reference becomes a [[RowtimeReference]] (with an alias when it is a whole
 *    select item, so the column is still called ROWTIME). The parser does not read expressions:
 *    it records every `ROWTIME` word where a column could be written, and Spark's parse decides.
 *    A word with no column reference of Spark's at its offset is a name in another role (an alias
 *    written without AS, as in `SELECT STREAM ROWTIME ROWTIME` or `SELECT STREAM stream rowtime`,
 *    a lambda's variable) and is left as Spark read it;
 *  - each `STEP(ts BY ...)`/`FLOOR(ts TO ...)`/`CEIL(ts TO ...)`, which Spark read as a call of
 *    two arguments, becomes a [[TimeFloor]] of its first;
 *  - each of Calcite's group window calls (`TUMBLE(ts, ...)` in `GROUP BY`, `TUMBLE_END(ts, ...)`,
 *    ...), which Spark read as a call of its time alone, becomes a [[GroupWindow]] of it;
 *  - each `SIMILAR TO`, which Spark read as `RLIKE`, becomes a [[SimilarTo]] (in any query block,
 *    streaming or not, and in subqueries);
 *  - each `UNIX_TIMESTAMP(x)` and `TO_TIMESTAMP(x)` of a streaming block becomes a [[KdaTimeCall]],
 *    which analysis makes KDA's (milliseconds) or leaves Spark's by the type of `x`, and each
 *    division a [[KdaDivide]] (KDA divides two integers to an integer);
 *  - the window of each window function (docs/semantics.md §12), inline or in the `WINDOW`
 *    clause, gets the frame the parser read (its text was blanked) and, without `ORDER BY`, the
 *    block's `ROWTIME` as its order; a `LAG` over a window with a frame becomes a [[SlidingLag]]:
 * {{{
 *   'LAG('p) windowspecdefinition('k, unspecifiedframe$())
 *   ==>  sliding_lag('p) windowspecdefinition('k, rowtime_ref(ROWTIME) ASC, specifiedwindowframe(RangeFrame, -60000000, currentrow$()))
 * }}}
 */
object StreamPlanBuilder {

  /**
   * Which select items of a `SELECT STREAM DISTINCT` are the block's `ROWTIME` (unqualified, or
   * qualified by the block's only input), a `STEP`/`FLOOR` of it, or `MONOTONIC(...)`.
   */
  private def distinctItems(d: StreamDistinct, b: StreamBlock, proj: Project): StreamDistinct = {
    def strip(e: Expression): Expression = e match {
      case a: Alias => strip(a.child)
      case u: UnresolvedAlias => strip(u.child)
      case other => other
    }
    def isRowtime(e: Expression): Boolean = strip(e) match {
      case RowtimeReference(id, q, _) => id == b.id && (q.isEmpty || b.inputs.size == 1)
      case _ => false
    }
    val items = proj.projectList.zipWithIndex
    val rowtimes = items.collect { case (e, i) if isRowtime(e) => i }
    val floors = items.collect { case (e, i) if (strip(e) match {
      case f: TimeFloor => isRowtime(f.child)
      case _ => false
    }) => i -> strip(e).asInstanceOf[TimeFloor].call }.toMap
    val monotonic = items.collect { case (e, i) if (strip(e) match {
      case f: UnresolvedFunction => f.nameParts.last.equalsIgnoreCase("MONOTONIC")
      case _ => false
    }) => i }
    d.copy(rowtimeItems = rowtimes, floorItems = floors, monotonicItems = monotonic)
  }

  /** `sqlText` is the user's statement, which `scan` was made of. */
  def attach(scan: ScanResult, plan: LogicalPlan, sqlText: String, toOriginal: Int => Int = identity,
      texts: Option[(String, String)] = None, viewBody: Boolean = false): LogicalPlan = {
    OverjoinNode.markCreated()
    def startOf(t: TreeNode[_]): Option[Int] = t.origin.startIndex.map(toOriginal)
    val inputsAt: Map[Int, (StreamBlock, StreamInput)] =
      scan.blocks.flatMap(b => b.inputs.map(i => i.start -> (b, i))).toMap
    val refsAt: Map[Int, (StreamBlock, RowtimeRef)] =
      scan.blocks.flatMap(b => b.rowtimeRefs.map(r => r.start -> (b, r))).toMap
    val floorsAt: Map[Int, (StreamBlock, TimeFloorCall)] =
      scan.blocks.flatMap(b => b.timeFloors.map(f => f.start -> (b, f))).toMap
    val groupWindowsAt: Map[Int, (StreamBlock, GroupWindowCall)] =
      scan.blocks.flatMap(b => b.groupWindows.map(g => g.start -> (b, g))).toMap
    val blocks = scan.blocks.map(b => b.id -> b).toMap
    val specsAt: Map[Int, (StreamBlock, SlidingSpec)] =
      scan.blocks.flatMap(b => b.slidingSpecs.map(s => s.open -> (b, s))).toMap
    // LAG over a window with a frame has KDA's meaning (the k-th row before within the window).
    val lagsAt: Map[Int, SlidingCall] = scan.blocks.flatMap(b => b.slidingCalls.filter { c =>
      c.function == "LAG" && b.slidingSpecs.exists(s => s.open == c.spec && s.frame.isDefined)
    }.map(c => c.start -> c)).toMap

    // UNIX_TIMESTAMP(ts) and TO_TIMESTAMP(n) in a streaming block: KDA's, once the argument's type is known.
    val kdaTimesAt: Set[Int] = scan.blocks.flatMap(_.kdaTimeCalls).toSet
    // A division in a streaming block's own expressions (Spark's Divide starts at its left operand).
    val ownSpans: Seq[(Int, Int)] = scan.blocks.flatMap(_.ownSpans)
    def inOwnSpan(at: Int): Boolean = ownSpans.exists { case (s, e) => at >= s && at < e }

    // WINDOWED BY STAGGER, which Spark read as GROUP BY keys: found by its first key's offset.
    val staggersAt: Map[Int, StreamBlock] =
      scan.blocks.flatMap(b => b.stagger.map(s => s.keyStarts.head -> b)).toMap
    val staggersMarked = mutable.Set.empty[Int]

    // Plans held outside `children` (EXPLAIN's query, for one) are visited too.
    val nodes = mutable.ArrayBuffer.empty[LogicalPlan]
    val parents = new java.util.IdentityHashMap[LogicalPlan, LogicalPlan]()
    def visit(p: LogicalPlan): Unit = {
      nodes += p
      p.children.foreach { c => parents.put(c, p); visit(c) }
      nestedPlans(p).foreach(visit)
    }
    visit(plan)

    // The top-most node at each input offset, found before anything changes (pre-order), then
    // widened to the input's own decorations above it: its alias (`STREAM t AS a` puts the alias
    // above the streaming relation, with an origin that starts before it) and its `WATERMARK`
    // clause, which declares the input's rowtime (docs/semantics.md §1).
    val targets = mutable.Map.empty[Int, LogicalPlan]
    nodes.foreach { p =>
      startOf(p).foreach { s => if (inputsAt.contains(s) && !targets.contains(s) && !p.isInstanceOf[Join]) targets(s) = p }
    }
    targets.keys.toSeq.foreach { s =>
      var top = targets(s)
      var above = parents.get(top)
      while (above != null && isInputDecoration(above)) { top = above; above = parents.get(top) }
      targets(s) = top
    }
    val missing = inputsAt.keySet -- targets.keySet
    if (missing.nonEmpty) {
      // Spark's parser read the FROM clause differently from overjoin's: a word before it that
      // overjoin takes for a keyword (FROM, ON, ...) is a column name to Spark (`SELECT STREAM
      // a + FROM b` is `(a + FROM) AS b` to Spark). The statement is not what it looks like.
      val (_, in) = inputsAt(missing.min)
      throw OverjoinErrors.syntaxDetail(TextSpan(sqlText, in.start, in.end), s"'${in.source}'",
        "Spark's parser does not read this as a relation of the FROM clause, because a keyword before " +
          "it (FROM, ON, ...) ends up read as a column name; write names that are keywords in back quotes")
    }
    def startsSelect(at: Int): Boolean = sqlText.regionMatches(true, at, "SELECT", 0, 6)
    val selectStreamsAt: Map[Int, StreamBlock] =
      scan.blocks.filter(b => b.selectStream && b.inputs.nonEmpty && b.stagger.isEmpty).map(b => b.selectStart -> b).toMap
    val implicitDone = mutable.Set.empty[Int]
    val inputOf = new java.util.IdentityHashMap[LogicalPlan, Int]()
    targets.foreach { case (s, p) => inputOf.put(p, s) }
    val wrapped = mutable.Set.empty[Int]
    val floorsReplaced = mutable.Set.empty[Int]
    val groupWindowsReplaced = mutable.Set.empty[Int]

    // KDA: every stream has a ROWTIME, a SELECT STREAM subquery's too, whether or not its select
    // list names it (docs/semantics.md §10). Read by a streaming block, such a subquery gets its
    // block's ROWTIME as a last column, so that it is a stream input with a rowtime.
    def implicitRowtime(q: LogicalPlan, plainToo: Boolean): LogicalPlan = q match {
      case a: SubqueryAlias => a.copy(child = implicitRowtime(a.child, plainToo))
      // `AS l(r)`, KDA's way to name a subquery's one column (W3C_LOG_PARSE's row): the ROWTIME
      // gets its own name in the list. Only where it is sure to be there (a SELECT STREAM block's):
      // a plain SELECT's may resolve to nothing, and the list must match the columns.
      case u: org.apache.spark.sql.catalyst.analysis.UnresolvedSubqueryColumnAliases
          if !u.outputColumnNames.exists(_.equalsIgnoreCase("ROWTIME")) =>
        val inner = implicitRowtime(u.child, plainToo = false)
        if (inner eq u.child) u else u.copy(outputColumnNames = u.outputColumnNames :+ "ROWTIME", child = inner)
      case f: CursorFunctionInput => f.copy(child = implicitRowtime(f.child, plainToo))
      case d: StreamDistinct => d.copy(child = implicitRowtime(d.child, plainToo))
      // A WINDOW clause (a sliding window's named window) sits above the select list.
      case w: WithWindowDefinition => w.copy(child = implicitRowtime(w.child, plainToo))
      // A streaming ORDER BY, above the select list.
      case o: Sort => o.copy(child = implicitRowtime(o.child, plainToo))
      // An aggregation: its ROWTIME is the window's end (a tumbling, Calcite group or stagger
      // window, §11, §13).
      case agg: Aggregate if ownBlock(agg).exists(b => selectStreamsAt.get(b.selectStart).contains(b)) &&
          !agg.aggregateExpressions.exists(namesRowtime) && agg.groupingExpressions.exists(g => startOf(g).exists(windowAt)) =>
        val b = ownBlock(agg).get
        agg.copy(aggregateExpressions = agg.aggregateExpressions :+ Alias(RowtimeReference(b.id, None, "ROWTIME"), "ROWTIME")())
      case proj: Project if startOf(proj).exists(selectStreamsAt.contains) && !proj.projectList.exists(namesRowtime) =>
        val b = selectStreamsAt(startOf(proj).get)
        proj.copy(projectList = proj.projectList :+ Alias(RowtimeReference(b.id, None, "ROWTIME"), "ROWTIME")())
      // A plain SELECT subquery read by a SELECT STREAM block: its FROM's ROWTIME column, where it has one.
      case proj: Project if plainToo && startOf(proj).exists(startsSelect) && !proj.projectList.exists(namesRowtime) =>
        proj.copy(projectList = proj.projectList :+ Alias(ImplicitRowtime(), "ROWTIME")())
      case other => other
    }
    // A STEP/FLOOR/CEIL call or a GROUP BY TUMBLE/HOP/SESSION(...) starts at `at`.
    def windowAt(at: Int): Boolean = floorsAt.contains(at) || groupWindowsAt.get(at).exists(_._2.isGroup)
    // The block whose FROM an aggregation reads: that of the first join input below it.
    def ownBlock(agg: Aggregate): Option[StreamBlock] = agg.child.collectFirst { case w: WindowedInput => blocks(w.block) }
    // `top`: the statement itself, not a plan it holds (a CTE's, an EXPLAIN's).
    def rewrite(p: LogicalPlan, top: Boolean = false): LogicalPlan = {
      val withInputs = p.transformDown {
        case n if inputOf.containsKey(n) && !wrapped.contains(inputOf.get(n)) =>
          val s: Int = inputOf.get(n)
          wrapped += s
          val (b, in) = inputsAt(s)
          WindowedInput(b.id, in, in.cursorCall.map(CursorFunctionInput(_, n)).getOrElse(n))
      }.transformDown {
        // SELECT STREAM DISTINCT: KDA's (docs/semantics.md §15), ROWTIME left out of the comparison.
        case Distinct(proj: Project) if startOf(proj).exists(selectStreamsAt.contains) =>
          StreamDistinct(selectStreamsAt(startOf(proj).get).id, proj)
      }
      val withImplicit = if (selectStreamsAt.isEmpty) withInputs else withInputs.transformDown {
        case w: WindowedInput if !implicitDone.contains(w.input.start) =>
          implicitDone += w.input.start
          w.copy(child = implicitRowtime(w.child, plainToo = blocks(w.block).selectStream))
      }
      // A view of a SELECT STREAM query is a stream, and every s-Server and KDA stream has a
      // ROWTIME whether or not the view's select list names it (docs/semantics.md §10). When Spark
      // parses a view's stored text to read it (`viewBody`), its top block gets its ROWTIME as a
      // last column, as a subquery read by a streaming block does; the view's stored columns leave
      // it out, and a block that needs the view's rowtime takes it from there (InputRowtimes).
      val withViews = if (top && viewBody) implicitRowtime(withImplicit, plainToo = false) else withImplicit
      val withRoots = withViews.transformDown {
        case n if !n.isInstanceOf[Join] && !n.isInstanceOf[StreamJoinRoot] &&
          n.children.exists(c => fromTreeBlock(c).isDefined) =>
          n.withNewChildren(n.children.map { c =>
            fromTreeBlock(c).map(id => StreamJoinRoot(blocks(id), c)).getOrElse(c)
          })
      }
      val withStaggers = if (staggersAt.isEmpty) withRoots else withRoots.transformDown {
        case a: Aggregate if !a.child.isInstanceOf[StaggerInput] &&
          a.groupingExpressions.headOption.flatMap(startOf(_)).exists(staggersAt.contains) =>
          val b = staggersAt(startOf(a.groupingExpressions.head).get)
          staggersMarked += b.id
          a.copy(child = StaggerInput(b.id, b.stagger.get, a.child))
      }
      val ours: PartialFunction[Expression, Expression] = {
        case f: UnresolvedFunction if startOf(f).exists(lagsAt.contains) && f.nameParts.last.equalsIgnoreCase("LAG") =>
          SlidingLag(f.arguments, f.ignoreNulls.contains(true))
        case w: WindowSpecDefinition if startOf(w).exists(specsAt.contains) =>
          val (b, spec) = specsAt(startOf(w).get)
          val order = if (spec.orderBy) w.orderSpec else Seq(SortOrder(RowtimeReference(b.id, None, "ROWTIME"), Ascending))
          w.copy(orderSpec = order, frameSpecification = spec.frame.map(SlidingFrames.toSpark).getOrElse(w.frameSpecification))
        case f: UnresolvedFunction if f.arguments.size == 1 && startOf(f).exists(kdaTimesAt.contains) &&
          QueryBlockScanner.KdaTimeFunctions.contains(f.nameParts.last.toUpperCase(java.util.Locale.ROOT)) =>
          KdaTimeCall(f.nameParts.last.toUpperCase(java.util.Locale.ROOT), f.arguments.head, f)
        case f: UnresolvedFunction if startOf(f).exists(floorsAt.contains) && f.arguments.size == 2 =>
          val (b, call) = floorsAt(startOf(f).get)
          floorsReplaced += call.start
          CurrentOrigin.withOrigin(f.origin)(TimeFloor(b.id, call, f.arguments.head))
        case f: UnresolvedFunction if startOf(f).exists(groupWindowsAt.contains) && f.arguments.size == 1 =>
          val (b, call) = groupWindowsAt(startOf(f).get)
          groupWindowsReplaced += call.start
          CurrentOrigin.withOrigin(f.origin)(GroupWindow(b.id, call, f.arguments.head))
        case d: Divide if startOf(d).exists(inOwnSpan) =>
          CurrentOrigin.withOrigin(d.origin)(KdaDivide(d.left, d.right))
        case a: UnresolvedAttribute if startOf(a).exists(refsAt.contains) && isRowtimeName(a, refsAt(startOf(a).get)._2) =>
          val (b, ref) = refsAt(startOf(a).get)
          val placeholder = CurrentOrigin.withOrigin(a.origin)(RowtimeReference(b.id, ref.qualifier, ref.spelling))
          if (ref.selectItem) Alias(placeholder, ref.spelling)() else placeholder
      }
      val nothingOfOurs = refsAt.isEmpty && floorsAt.isEmpty && specsAt.isEmpty && kdaTimesAt.isEmpty && ownSpans.isEmpty &&
        groupWindowsAt.isEmpty
      val withExprs = if (nothingOfOurs) withStaggers else withStaggers.transformAllExpressionsWithPruning(_ => true)(ours)
      // The WINDOW clause's definitions are a map, which expression transforms do not enter.
      val withRefs = if (specsAt.isEmpty && refsAt.isEmpty) withExprs else withExprs.transformDown {
        case w: WithWindowDefinition =>
          w.copy(windowDefinitions = w.windowDefinitions.map { case (name, spec) =>
            name -> spec.transformDown(ours).asInstanceOf[WindowSpecDefinition]
          })
      }
      val withDistinct = withRefs.transformDown {
        case d @ StreamDistinct(id, proj: Project, Nil, _, _) => distinctItems(d, blocks(id), proj)
      }
      withDistinct.transformDown {
        case n if nestedPlans(n).nonEmpty => mapNestedPlans(n, rewrite(_))
      }
    }
    val top = rewrite(plan, top = true)
    val rewritten = texts.map { case (blanked, original) => restoreText(top, blanked, original) }.getOrElse(top)

    // SIMILAR TO, which Spark read as RLIKE: anywhere in the statement, subqueries included.
    val similarsAt: Map[Int, SimilarToCall] = scan.similars.map(c => c.start -> c).toMap
    val similarsReplaced = mutable.Set.empty[Int]
    def swapSimilars(p: LogicalPlan): LogicalPlan = {
      lazy val swap: PartialFunction[Expression, Expression] = {
        case r: RLike if startOf(r).exists(similarsAt.contains) =>
          val call = similarsAt(startOf(r).get)
          similarsReplaced += call.start
          CurrentOrigin.withOrigin(r.origin)(SimilarTo(r.left, r.right, call.escape))
        case q: SubqueryExpression => q.withNewPlan(swapSimilars(q.plan))
      }
      p.transformDown { case n => n.transformExpressionsDown(swap) }.transformDown {
        case n if nestedPlans(n).nonEmpty => mapNestedPlans(n, swapSimilars)
      }
    }
    val result = if (similarsAt.isEmpty) rewritten else swapSimilars(rewritten)
    val lostSimilars = similarsAt.keySet -- similarsReplaced
    if (lostSimilars.nonEmpty) {
      throw OverjoinErrors.syntaxDetail(TextSpan(sqlText, lostSimilars.min, lostSimilars.min), "'SIMILAR'",
        "Spark's parser does not read this as a predicate (write it as value SIMILAR TO 'pattern')")
    }
    staggersAt.values.find(b => !staggersMarked.contains(b.id)).foreach { b =>
      val call = b.stagger.get
      throw OverjoinErrors.syntaxDetail(TextSpan(sqlText, call.position.start, call.position.stop), "'WINDOWED'",
        "Spark's parser does not read the PARTITION BY keys of this stagger window as the block's groups")
    }
    val lostFloors = floorsAt.keySet -- floorsReplaced
    if (lostFloors.nonEmpty) {
      throw OverjoinErrors.internal(s"no expression for the call ${floorsAt(lostFloors.min)._2.text}")
    }
    val lostGroupWindows = groupWindowsAt.keySet -- groupWindowsReplaced
    if (lostGroupWindows.nonEmpty) {
      val call = groupWindowsAt(lostGroupWindows.min)._2
      throw OverjoinErrors.syntaxDetail(TextSpan(sqlText, call.start, call.start + call.function.length),
        s"'${call.text}'", "Spark's parser does not read this as a call of a function")
    }
    schemaNames(result)
  }

  /**
   * s-Server's schema names in the statement's names (`FROM "fpp-test-score-0.1"."events"`, a view's
   * or an insert's target, and the columns qualified with them) as their Spark databases
   * ([[io.overjoin.streams.SchemaNames]]). A name Spark's catalog takes is its own database and
   * stays as written.
   */
  private def schemaNames(plan: LogicalPlan): LogicalPlan = {
    val written = mutable.Set.empty[String]
    def parts(names: Seq[String]): Seq[String] = names match {
      case Seq(db, t) if !SchemaNames.isPlain(db) => written += db.toLowerCase; Seq(SchemaNames.database(db), t)
      case Seq(catalog, db, t) if !SchemaNames.isPlain(db) => written += db.toLowerCase; Seq(catalog, SchemaNames.database(db), t)
      case other => other
    }
    def relations(p: LogicalPlan): LogicalPlan = p.transformDown {
      case r: UnresolvedRelation if r.multipartIdentifier.size > 1 => r.copy(multipartIdentifier = parts(r.multipartIdentifier))
      case i: UnresolvedIdentifier if i.nameParts.size > 1 => i.copy(nameParts = parts(i.nameParts))
      case n if nestedPlans(n).nonEmpty => mapNestedPlans(n, relations)
    }.transformAllExpressionsWithPruning(_ => true) {
      case q: SubqueryExpression => q.withNewPlan(relations(q.plan))
    }
    val mapped = relations(plan)
    if (written.isEmpty) return mapped
    // Columns qualified with such a schema: "s"."t".col, "s"."t".*
    def qualifier(names: Seq[String]): Seq[String] =
      if (names.size >= 3 && written.contains(names.head.toLowerCase)) SchemaNames.database(names.head) +: names.tail else names
    def columns(p: LogicalPlan): LogicalPlan = p.transformAllExpressionsWithPruning(_ => true) {
      case a: UnresolvedAttribute if a.nameParts.size >= 3 && written.contains(a.nameParts.head.toLowerCase) =>
        CurrentOrigin.withOrigin(a.origin)(UnresolvedAttribute(qualifier(a.nameParts)))
      case u @ UnresolvedStar(Some(target)) if target.size >= 2 && written.contains(target.head.toLowerCase) =>
        CurrentOrigin.withOrigin(u.origin)(UnresolvedStar(Some(SchemaNames.database(target.head) +: target.tail)))
      case q: SubqueryExpression => q.withNewPlan(columns(q.plan))
    }.transformDown { case n if nestedPlans(n).nonEmpty => mapNestedPlans(n, columns) }
    columns(mapped)
  }

  /**
   * Spark keeps some statement text in the plan, a view's query text above all, and it took that
   * text from what it parsed: the blanked statement. A view stored with `OVER (...)` blanked out
   * would later be read as plain SQL. Blanking keeps offsets, so the user's text for any such
   * string is at the same place in the original statement.
   */
  private def restoreText(plan: LogicalPlan, blanked: String, original: String): LogicalPlan = {
    def restore(x: Any): Any = x match {
      case str: String if str.length > 6 =>
        val at = blanked.indexOf(str)
        if (at >= 0 && original.regionMatches(at, str, 0, str.length)) str
        else if (at >= 0) original.substring(at, at + str.length)
        else str
      case some @ Some(v) => val r = restore(v); if (r.asInstanceOf[AnyRef] eq v.asInstanceOf[AnyRef]) some else Some(r)
      case other => other
    }
    def visit(p: LogicalPlan): LogicalPlan = {
      val children = p.children.map(visit)
      val args = p.productIterator.map {
        case lp: LogicalPlan if p.children.exists(_ eq lp) => children(p.children.indexWhere(_ eq lp))
        case lp: LogicalPlan => visit(lp)
        case other => restore(other)
      }.map(_.asInstanceOf[AnyRef]).toArray
      val changed = args.zip(p.productIterator.toSeq).exists { case (a, b) => !(a.asInstanceOf[AnyRef] eq b.asInstanceOf[AnyRef]) }
      if (changed) { val c = p.makeCopy(args); c.copyTagsFrom(p); c } else p
    }
    visit(plan)
  }

  /** `n` with `f` applied to the plans it holds as fields but not as children ([[nestedPlans]]). */
  private def mapNestedPlans(n: LogicalPlan, f: LogicalPlan => LogicalPlan): LogicalPlan = {
    def mapNested(x: Any): AnyRef = x match {
      case lp: LogicalPlan if !n.children.exists(_ eq lp) => f(lp)
      case seq: Seq[_] => seq.map(mapNested)
      case (a, b) => (mapNested(a), mapNested(b))
      case (a, b, c) => (mapNested(a), mapNested(b), mapNested(c))
      case Some(v) => Some(mapNested(v))
      case other => other.asInstanceOf[AnyRef]
    }
    n.makeCopy(n.productIterator.map(mapNested).toArray)
  }

  /** Whether a select item is, or is named, ROWTIME, or is a `*` (which gives the ROWTIME). */
  private def namesRowtime(item: Expression): Boolean = item match {
    case a: UnresolvedAttribute => a.nameParts.last.equalsIgnoreCase("ROWTIME")
    case a: Alias => a.name.equalsIgnoreCase("ROWTIME")
    case u: UnresolvedAlias => namesRowtime(u.child)
    case _: UnresolvedStar => true
    case _ => false
  }

  /** Nodes Spark's parser puts above a relation for the relation's own clauses. */
  private def isInputDecoration(p: LogicalPlan): Boolean = p match {
    case _: SubqueryAlias | _: UnresolvedEventTimeWatermark => true
    case _ => false
  }

  /** Plans a node holds as a field but not as a child (EXPLAIN's query, a cached query, ...). */
  private def nestedPlans(p: LogicalPlan): Seq[LogicalPlan] = {
    // CTE definitions, for one, are held as (name, plan, ...) tuples in a Seq.
    def plans(x: Any): Seq[LogicalPlan] = x match {
      case lp: LogicalPlan if !p.children.exists(_ eq lp) => Seq(lp)
      case seq: Seq[_] => seq.flatMap(plans)
      case (a, b) => plans(a) ++ plans(b)
      case (a, b, c) => plans(a) ++ plans(b) ++ plans(c)
      case Some(v) => plans(v)
      case _ => Nil
    }
    p.productIterator.flatMap(plans).toSeq
  }

  private def isRowtimeName(a: UnresolvedAttribute, ref: RowtimeRef): Boolean = {
    val parts = a.nameParts
    parts.last.equalsIgnoreCase("ROWTIME") && parts.size == (if (ref.qualifier.isDefined) 2 else 1)
  }

  /** The block whose FROM tree `p` is: one of its inputs, or joins of only its inputs. */
  private def fromTreeBlock(p: LogicalPlan): Option[Int] = p match {
    case w: WindowedInput => Some(w.block)
    case j: Join =>
      (fromTreeBlock(j.left), fromTreeBlock(j.right)) match {
        case (Some(a), Some(b)) if a == b => Some(a)
        case _ => None
      }
    case _ => None
  }
}
