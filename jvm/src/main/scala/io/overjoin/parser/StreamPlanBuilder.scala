package io.overjoin.parser

import scala.collection.mutable

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{Alias, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{Join, LogicalPlan}
import org.apache.spark.sql.catalyst.trees.TreeNode

import io.overjoin.catalyst.{RowtimeReference, StreamJoinRoot, WindowedInput}

/**
 * Puts overjoin's nodes into the plan Spark's parser made of the blanked text. Because blanking
 * keeps every character's offset, a plan node is matched to what [[StreamSqlScanner]] found by
 * the offset of its origin:
 *
 *  - the relation node of each join input (the top-most node starting at the input's offset:
 *    `SubqueryAlias` over `UnresolvedRelation`, or a subquery) is wrapped in a [[WindowedInput]];
 *  - the join tree of each block's inputs gets a [[StreamJoinRoot]] on top;
 *  - each `ROWTIME` reference becomes a [[RowtimeReference]] (with an alias when it is a whole
 *    select item, so the column is still called ROWTIME).
 */
object StreamPlanBuilder {

  def attach(scan: ScanResult, plan: LogicalPlan): LogicalPlan = {
    val inputsAt: Map[Int, (StreamBlock, StreamInput)] =
      scan.blocks.flatMap(b => b.inputs.map(i => i.start -> (b, i))).toMap
    val refsAt: Map[Int, (StreamBlock, RowtimeRef)] =
      scan.blocks.flatMap(b => b.rowtimeRefs.map(r => r.start -> (b, r))).toMap
    val blocks = scan.blocks.map(b => b.id -> b).toMap

    // The top-most node at each input offset, found before anything changes (pre-order).
    val targets = mutable.Map.empty[Int, LogicalPlan]
    plan.foreach { p =>
      startOf(p).foreach { s => if (inputsAt.contains(s) && !targets.contains(s) && !p.isInstanceOf[Join]) targets(s) = p }
    }
    val wrapped = mutable.Set.empty[Int]
    val withInputs = plan.transformDown {
      case p if startOf(p).exists(s => targets.get(s).exists(_ eq p) && !wrapped.contains(s)) =>
        val s = startOf(p).get
        wrapped += s
        val (b, in) = inputsAt(s)
        WindowedInput(b.id, in, p)
    }

    val withRoots = withInputs.transformDown {
      case p if !p.isInstanceOf[Join] && !p.isInstanceOf[StreamJoinRoot] &&
        p.children.exists(c => fromTreeBlock(c).isDefined) =>
        p.withNewChildren(p.children.map { c =>
          fromTreeBlock(c).map(id => StreamJoinRoot(blocks(id), prepared = false, c)).getOrElse(c)
        })
    }

    if (refsAt.isEmpty) withRoots
    else withRoots.transformAllExpressionsWithPruning(_ => true) {
      case a: UnresolvedAttribute if startOf(a).exists(refsAt.contains) && isRowtimeName(a, refsAt(startOf(a).get)._2) =>
        val (b, ref) = refsAt(startOf(a).get)
        val placeholder = RowtimeReference(b.id, ref.qualifier, ref.spelling)
        if (ref.selectItem) Alias(placeholder, ref.spelling)() else placeholder
    }
  }

  private def isRowtimeName(a: UnresolvedAttribute, ref: RowtimeRef): Boolean = {
    val parts = a.nameParts
    parts.last.equalsIgnoreCase("ROWTIME") && parts.size == (if (ref.qualifier.isDefined) 2 else 1)
  }

  private def startOf(t: TreeNode[_]): Option[Int] = t.origin.startIndex

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
