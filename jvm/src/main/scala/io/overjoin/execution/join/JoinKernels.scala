package io.overjoin.execution.join

import java.util.concurrent.{ConcurrentHashMap, ConcurrentLinkedQueue}

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types.DataType

/**
 * The generated code one partition task of a windowed join runs: key, times and partition
 * projections, the join condition and the output joiners. Generating it costs milliseconds per
 * task, every micro-batch, so a task hands its kernels back when it ends ([[JoinKernels.release]])
 * and the next task of the same join in this JVM takes them ([[JoinKernels.acquire]]). Kernels are
 * made from the join's expressions bound to column positions ([[JoinKernels.Shape]]), not from the
 * [[JoinSpec]] itself: a micro-batch's plan gives the same columns new expression ids. A set of
 * kernels serves one task at a time: none of it is thread-safe.
 */
final class JoinKernels private (val shape: JoinKernels.Shape) {
  import shape._
  val leftKey: UnsafeProjection = UnsafeProjection.create(leftKeys)
  val rightKey: UnsafeProjection = UnsafeProjection.create(rightKeys)
  val leftTimes: UnsafeProjection = UnsafeProjection.create(leftTimeExprs)
  val rightTimes: UnsafeProjection = UnsafeProjection.create(rightTimeExprs)
  val leftToUnsafe: UnsafeProjection = UnsafeProjection.create(leftTypes.toArray)
  val rightToUnsafe: UnsafeProjection = UnsafeProjection.create(rightTypes.toArray)
  val condition: Option[BasePredicate] = shape.condition.map(c => Predicate.create(c))
  val leftPartition: Option[UnsafeProjection] = leftPartitionExprs.map(UnsafeProjection.create(_))
  val rightPartition: Option[UnsafeProjection] = rightPartitionExprs.map(UnsafeProjection.create(_))
  val outputs = new JoinOutputs(outputTypes, leftTypes.size)
}

object JoinKernels {
  /** What a join's kernels are made of: its expressions bound to column positions, its types. */
  final case class Shape(
      leftKeys: Seq[Expression],
      rightKeys: Seq[Expression],
      leftTimeExprs: Seq[Expression],
      rightTimeExprs: Seq[Expression],
      condition: Option[Expression],
      leftPartitionExprs: Option[Seq[Expression]],
      rightPartitionExprs: Option[Seq[Expression]],
      leftTypes: Seq[DataType],
      rightTypes: Seq[DataType],
      outputTypes: Seq[DataType]) {

    /**
     * Whether kernels of this shape may serve a later task. Not when an expression holds a
     * subquery: its result, read once per micro-batch, is written into the generated code, and
     * the next batch's plan can compare equal with a different result.
     */
    lazy val reusable: Boolean =
      (leftKeys ++ rightKeys ++ leftTimeExprs ++ rightTimeExprs ++ condition ++
        leftPartitionExprs.getOrElse(Nil) ++ rightPartitionExprs.getOrElse(Nil))
        .forall(!_.exists(_.isInstanceOf[PlanExpression[_]]))
  }

  def shapeOf(spec: JoinSpec): Shape = {
    val (l, r) = (spec.leftOutput, spec.rightOutput)
    def bind(exprs: Seq[Expression], input: Seq[Attribute]): Seq[Expression] =
      exprs.map(e => BindReferences.bindReference(e, AttributeSeq.fromNormalOutput(input)))
    Shape(
      bind(spec.leftKeys, l), bind(spec.rightKeys, r),
      bind(spec.leftTimes, l), bind(spec.rightTimes, r),
      spec.condition.map(c => bind(Seq(c), l ++ r).head),
      spec.leftRows.map(_ => bind(spec.leftPartition, l)),
      spec.rightRows.map(_ => bind(spec.rightPartition, r)),
      l.map(_.dataType), r.map(_.dataType), spec.outputTypes)
  }

  // Kernels waiting for their next task, per shape. Shapes of finished queries are dropped
  // wholesale once there are this many (a long-running server sees many queries).
  private val MaxShapes = 64
  private val idle = new ConcurrentHashMap[Shape, ConcurrentLinkedQueue[JoinKernels]]()

  /** Kernels for `spec`: an idle set of the same shape, or new ones. */
  def acquire(spec: JoinSpec): JoinKernels = {
    val shape = shapeOf(spec)
    val queue = idle.get(shape)
    val reused = if (queue == null) null else queue.poll()
    val kernels = if (reused != null) reused else new JoinKernels(shape)
    // As a new predicate is: nondeterministic parts of the condition start afresh in each task.
    kernels.condition.foreach(_.initialize(0))
    kernels
  }

  /** Hands `kernels` back once their task has read all its output. */
  def release(kernels: JoinKernels): Unit = {
    kernels.outputs.clear()
    if (!kernels.shape.reusable) return
    if (idle.size >= MaxShapes && !idle.containsKey(kernels.shape)) idle.clear()
    idle.computeIfAbsent(kernels.shape, _ => new ConcurrentLinkedQueue[JoinKernels]())
      .offer(kernels)
  }

  /** How many sets of kernels are waiting (for tests). */
  def idleCount: Int = { var n = 0; idle.values().forEach(q => n += q.size); n }
}
