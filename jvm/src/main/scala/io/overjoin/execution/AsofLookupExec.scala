package io.overjoin.execution

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Cast, Expression, GenericInternalRow, JoinedRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.plans.physical.{BroadcastDistribution, Distribution, IdentityBroadcastMode, UnspecifiedDistribution}
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * Physical [[io.overjoin.catalyst.plans.logical.AsofLookup]]: the table is broadcast once per
 * micro-batch; each task indexes it by key (rows sorted by time, then by their place in the table)
 * and answers each stream row with a binary search.
 */
case class AsofLookupExec(
    xKeys: Seq[Expression],
    yKeys: Seq[Expression],
    xTime: Expression,
    yTime: Expression,
    op: String,
    leftOuter: Boolean,
    left: SparkPlan,
    right: SparkPlan) extends BinaryExecNode {

  override def output: Seq[Attribute] =
    left.output ++ (if (leftOuter) right.output.map(_.withNullability(true)) else right.output)

  override def requiredChildDistribution: Seq[Distribution] =
    UnspecifiedDistribution :: BroadcastDistribution(IdentityBroadcastMode) :: Nil

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numMatchedRows" -> SQLMetrics.createMetric(sparkContext, "number of stream rows with a table row"))

  override protected def doExecute(): RDD[InternalRow] = {
    val table = right.executeBroadcast[Array[InternalRow]]()
    // Keys compare as the stream's types (an int key against a bigint column finds it).
    val yKeysAsX = xKeys.zip(yKeys).map { case (x, y) => if (x.dataType == y.dataType) y else Cast(y, x.dataType) }
    val (lOut, rOut) = (left.output, right.output)
    val types = output.map(_.dataType)
    val (dir, strict) = (op == "<=" || op == "<", op == "<" || op == ">")
    val (leftOuterJoin, numOut, numMatched) = (leftOuter, longMetric("numOutputRows"), longMetric("numMatchedRows"))
    left.execute().mapPartitions { rows =>
      val index = AsofIndex.build(table.value, UnsafeProjection.create(yKeysAsX, rOut),
        UnsafeProjection.create(Seq(yTime), rOut))
      val xKey = UnsafeProjection.create(xKeys, lOut)
      val xT = UnsafeProjection.create(Seq(xTime), lOut)
      val project = UnsafeProjection.create(types.toArray)
      val joined = new JoinedRow
      val nulls = new GenericInternalRow(rOut.size)
      rows.flatMap { x =>
        val t = xT(x)
        val k = xKey(x)
        val y = if (t.isNullAt(0) || (0 until k.numFields).exists(k.isNullAt)) null
          else index.closest(k, t.getLong(0), lookBack = dir, strict = strict)
        if (y != null) { numMatched += 1; numOut += 1; Iterator.single(project(joined(x, y)).copy()) }
        else if (leftOuterJoin) { numOut += 1; Iterator.single(project(joined(x, nulls)).copy()) }
        else Iterator.empty
      }
    }
  }

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan): AsofLookupExec =
    copy(left = newLeft, right = newRight)
}

/** A table's rows by key, each key's rows in (time, place in the table) order. */
private[execution] final class AsofIndex(byKey: java.util.HashMap[UnsafeRow, (Array[Long], Array[InternalRow])]) {

  /**
   * The row of key `k` closest to `t`: looking back, the latest with time `<= t` (`< t` if
   * `strict`); forward, the earliest with time `>= t` (`> t`). Ties: the later row of the table.
   */
  def closest(k: UnsafeRow, t: Long, lookBack: Boolean, strict: Boolean): InternalRow = {
    val entry = byKey.get(k)
    if (entry == null) return null
    val (times, rows) = entry
    if (lookBack) {
      // The last position whose time is <= t (< t).
      var lo = 0
      var hi = times.length
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        if (if (strict) times(mid) < t else times(mid) <= t) lo = mid + 1 else hi = mid
      }
      if (lo == 0) null else rows(lo - 1)
    } else {
      // The first time >= t (> t); of the rows with that time, the last.
      var lo = 0
      var hi = times.length
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        if (if (strict) times(mid) <= t else times(mid) < t) lo = mid + 1 else hi = mid
      }
      if (lo == times.length) null
      else {
        var i = lo
        while (i + 1 < times.length && times(i + 1) == times(lo)) i += 1
        rows(i)
      }
    }
  }
}

private[execution] object AsofIndex {
  def build(table: Array[InternalRow], keyOf: UnsafeProjection, timeOf: UnsafeProjection): AsofIndex = {
    val groups = new java.util.HashMap[UnsafeRow, ArrayBuffer[(Long, Int, InternalRow)]]()
    var i = 0
    while (i < table.length) {
      val y = table(i)
      val k = keyOf(y)
      val t = timeOf(y)
      if (!t.isNullAt(0) && !(0 until k.numFields).exists(k.isNullAt)) {
        var g = groups.get(k)
        if (g == null) { g = new ArrayBuffer(); groups.put(k.copy(), g) }
        g += ((t.getLong(0), i, y))
      }
      i += 1
    }
    val byKey = new java.util.HashMap[UnsafeRow, (Array[Long], Array[InternalRow])]()
    groups.forEach { (k, g) =>
      val sorted = g.sortBy(e => (e._1, e._2))
      byKey.put(k, (sorted.map(_._1).toArray, sorted.map(_._3).toArray))
    }
    new AsofIndex(byKey)
  }
}
