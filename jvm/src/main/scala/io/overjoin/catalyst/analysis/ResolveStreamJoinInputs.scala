package io.overjoin.catalyst.analysis

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.{NaturalJoin, UsingJoin}
import org.apache.spark.sql.catalyst.plans.logical.{Join, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule

import io.overjoin.catalyst.expressions.RowtimeReference
import io.overjoin.catalyst.plans.logical.{OverjoinNode, PreparedStreamJoin, RowtimeInput, StreamJoinRoot, TableInput, WindowedInput}
import io.overjoin.config.OverjoinConf
import io.overjoin.errors.OverjoinErrors

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
    if (!plan.exists(_.isInstanceOf[StreamJoinRoot])) return plan
    plan.transformUp {
      case root: StreamJoinRoot if inputsResolved(root.child) => prepare(root)
    }
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
      case w: WindowedInput if w.child.isStreaming || !anyStream => InputRowtimes.rowtimeInput(w, isStream = true, lateness)
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
