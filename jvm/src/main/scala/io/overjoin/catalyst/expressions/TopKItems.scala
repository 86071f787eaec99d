package io.overjoin.catalyst.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.util.{ArrayData, GenericArrayData}
import org.apache.spark.sql.types.{ArrayType, DataType, LongType, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The `k` most frequent strings of an array, each with its count, most frequent first (equal
 * counts in the strings' order): the values of one window of KDA's `TOP_K_ITEMS_TUMBLING`
 * (docs/semantics.md §14). Counted exactly, in one pass over the array.
 */
case class TopKItems(child: Expression, k: Int) extends UnaryExpression with CodegenFallback {
  override def dataType: DataType = ArrayType(TopKItems.Item, containsNull = false)
  override def nullable: Boolean = false

  override def eval(input: InternalRow): Any = {
    val items = child.eval(input).asInstanceOf[ArrayData]
    val counts = new java.util.HashMap[UTF8String, java.lang.Long]()
    if (items != null) {
      var i = 0
      while (i < items.numElements()) {
        if (!items.isNullAt(i)) {
          val s = items.getUTF8String(i).copy()
          counts.merge(s, 1L, (a: java.lang.Long, b: java.lang.Long) => a + b)
        }
        i += 1
      }
    }
    val all = new java.util.ArrayList[java.util.Map.Entry[UTF8String, java.lang.Long]](counts.entrySet())
    all.sort((a: java.util.Map.Entry[UTF8String, java.lang.Long], b: java.util.Map.Entry[UTF8String, java.lang.Long]) => {
      val byCount = java.lang.Long.compare(b.getValue, a.getValue)
      if (byCount != 0) byCount else a.getKey.compareTo(b.getKey)
    })
    val n = math.min(k, all.size())
    new GenericArrayData(Array.tabulate[Any](n) { i =>
      val e = all.get(i)
      InternalRow(e.getKey, e.getValue.longValue())
    })
  }

  override protected def withNewChildInternal(newChild: Expression): TopKItems = copy(child = newChild)
}

object TopKItems {
  val Item: StructType = StructType(Seq(StructField("ITEM", StringType, nullable = false),
    StructField("ITEM_COUNT", LongType, nullable = false)))
}
