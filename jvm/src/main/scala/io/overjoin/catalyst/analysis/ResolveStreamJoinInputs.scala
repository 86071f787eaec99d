package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.analysis.{NamedStreamingRelation, UnresolvedRelation}
import org.apache.spark.sql.catalyst.catalog.{CatalogTable, HiveTableRelation}
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.{NaturalJoin, UsingJoin}
import org.apache.spark.sql.catalyst.plans.logical.{Join, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.streaming.Unassigned
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import io.overjoin.catalyst.expressions.RowtimeReference
import io.overjoin.catalyst.plans.logical.{OverjoinNode, PreparedStreamJoin, RowtimeInput, StreamJoinRoot, TableInput, WindowedInput}
import io.overjoin.config.OverjoinConf
import io.overjoin.errors.OverjoinErrors
import io.overjoin.streams.{ExternalStreams, SourceColumns, Streams}

/**
 * The first step of a streaming join's rewrite, once Spark has resolved every input of a
 * [[StreamJoinRoot]]: choose each input's rowtime and give a stream its watermark
 * ([[InputRowtimes]]), turn NATURAL joins into USING joins that leave rowtime columns out, refuse
 * USING on a rowtime (docs/semantics.md §4), and bind `o.ROWTIME` inside join conditions.
 * {{{
 *   StreamJoinRoot block=0                     PreparedStreamJoin block=0
 *   +- 'Join NaturalJoin(Inner)          ==>   +- 'Join UsingJoin(Inner, [k])
 *      :- WindowedInput s ...                     :- RowtimeInput s rowtime=t
 *      +- WindowedInput o ...                     +- RowtimeInput o rowtime=t
 * }}}
 * Over tables only (replay), every input is treated as a stream and runs as a batch join.
 */
object ResolveStreamJoinInputs extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (!OverjoinNode.mayExist) return plan
    if (!plan.exists(_.isInstanceOf[StreamJoinRoot])) return plan
    plan.transformUp {
      case root: StreamJoinRoot if root.block.selectStream && readsAStreamAsTable(root.child) =>
        root.copy(child = readStreamsAsStreams(root.child))
      case root: StreamJoinRoot if inputsResolved(root.child) => prepare(root)
    }
  }

  /**
   * A stream of `CREATE STREAM` (docs/semantics.md §10) read by `SELECT STREAM` is a stream with or
   * without the `STREAM` keyword, as in Kinesis Data Analytics (`SELECT STREAM ... FROM "SOURCE"`),
   * also inside the FROM clause's subqueries; a plain `SELECT` reads it as the table of every row
   * so far (replay). Spark resolved it as a table: it is sent back to be resolved as a stream.
   */
  private def streamTable(p: LogicalPlan): Option[CatalogTable] = p match {
    // A source stream's implicit columns go with it: they are projected again over the stream.
    case SourceColumns(_, r: LogicalRelation) => streamTable(r)
    // Files read with an input schema (a KDA source over a folder, an s-Server foreign stream over
    // FILE_SERVER): AddSourceStreamColumns has decoded the table read already.
    case p if !p.isStreaming && ExternalStreams.readBy(p).isDefined => ExternalStreams.readBy(p).filter(Streams.isStream)
    case r: LogicalRelation => r.catalogTable.filter(Streams.isStream)
    case r: HiveTableRelation => Some(r.tableMeta).filter(Streams.isStream)
    case _ => None
  }

  private def readsAStreamAsTable(plan: LogicalPlan): Boolean = plan.exists(p => streamTable(p).isDefined)

  private def readStreamsAsStreams(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case p if streamTable(p).isDefined =>
      val id = streamTable(p).get.identifier
      // As Spark's parser writes `STREAM t`: the relation, marked streaming, in a named source.
      NamedStreamingRelation(
        UnresolvedRelation(id.database.toSeq :+ id.table, CaseInsensitiveStringMap.empty(), isStreaming = true),
        Unassigned)
  }

  private def inputsResolved(plan: LogicalPlan): Boolean =
    plan.collect { case w: WindowedInput => w.child.resolved }.forall(identity)

  private def prepare(root: StreamJoinRoot): LogicalPlan = {
    val block = root.block
    val windowed = root.child.collect { case w: WindowedInput => w }
    val anyStream = windowed.exists(w => w.child.isStreaming && !w.input.lookup)
    val lateness = OverjoinConf.latenessMicros()
    val withInputs = root.child.transformUp {
      case w: WindowedInput if w.input.lookup => InputRowtimes.tableInput(w)
      case w: WindowedInput if w.child.isStreaming || !anyStream =>
        InputRowtimes.rowtimeInput(w, isStream = true, lateness, block.sortWithin)
      case w: WindowedInput => InputRowtimes.tableInput(w)
    }
    val inputs = withInputs.collect { case r: RowtimeInput => r }
    val rowtimeNames = inputs.map(_.rowtime.name.toLowerCase).toSet

    val joined = withInputs.transformUp {
      case Join(l, r, NaturalJoin(tpe), cond, hint) if l.resolved && r.resolved =>
        val common = l.output.map(_.name).filter(n => r.output.exists(_.name.equalsIgnoreCase(n)))
          .filterNot(n => rowtimeNames.contains(n.toLowerCase)).distinct
        if (common.isEmpty) throw OverjoinErrors.naturalNoCommonColumn(describe(l), describe(r))
        Join(l, r, UsingJoin(tpe, common), cond, hint)
      case j @ Join(_, _, UsingJoin(_, cols), _, _) =>
        cols.find(c => rowtimeNames.contains(c.toLowerCase)).foreach { c =>
          val owner = inputs.find(_.rowtime.name.equalsIgnoreCase(c)).map(_.input.name).getOrElse("?")
          throw OverjoinErrors.usingRowtime(c, owner)
        }
        j
    }
    val byName = RewriteWindowedJoins.inputRowtimes(withInputs)
    val bound = joined.transformUp {
      case j: Join => j.transformExpressions {
        case RowtimeReference(b, Some(q), _) if b == block.id && byName.contains(q.toLowerCase) => byName(q.toLowerCase)
        case RowtimeReference(b, None, spelling) if b == block.id => throw OverjoinErrors.rowtimeInJoinCondition(spelling)
      }
    }
    PreparedStreamJoin(block, bound)
  }

  private def describe(p: LogicalPlan): String =
    p.collect { case r: RowtimeInput => r.input.name; case t: TableInput => t.input.name }.mkString(" JOIN ")
}
