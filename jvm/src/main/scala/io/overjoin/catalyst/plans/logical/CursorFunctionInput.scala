package io.overjoin.catalyst.plans.logical

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import io.overjoin.model.CursorCall

/**
 * `TABLE(f(CURSOR(query), ...))` as the parser found it (KDA's `RANDOM_CUT_FOREST` and
 * `TOP_K_ITEMS_TUMBLING`; docs/semantics.md §14): the cursor's query is `child`.
 * [[io.overjoin.catalyst.analysis.RewriteCursorFunctions]] replaces it with the function's rows
 * once the query is resolved; until then it is unresolved, and so is what reads it.
 */
case class CursorFunctionInput(call: CursorCall, child: LogicalPlan) extends OverjoinNode {
  override lazy val resolved: Boolean = false
  override def simpleString(maxFields: Int): String = s"CursorFunctionInput ${call.text}"
  override protected def withNewChildInternal(newChild: LogicalPlan): CursorFunctionInput = copy(child = newChild)
}
