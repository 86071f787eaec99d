package io.overjoin.execution.rcf

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream}

/**
 * A random cut forest (Guha, Mishra, Roy, Schrijvers: "Robust Random Cut Forest Based Anomaly
 * Detection on Streams", ICML 2016), the model of Kinesis Data Analytics' `RANDOM_CUT_FOREST`
 * (docs/semantics.md §14).
 *
 * Each of `trees` trees holds a sample of at most `sampleSize` of the points seen so far, chosen
 * with a time decay: point number `seq` gets the weight `log(-log(u)) - seq / timeDecay` (`u`
 * uniform), and a tree keeps the points of smallest weight (a weighted reservoir in which recent
 * points weigh more). A tree is a random cut tree over its sample: each internal node cuts its
 * points' bounding box at a random place in a random dimension, the dimension chosen in
 * proportion to the box's extent in it.
 *
 * A point's score, before it is added: in each tree, from the leaf the point would reach up to the
 * root, the chance that a random cut of a node's box, once the box is stretched to hold the point,
 * would have separated the point there; a point separated near the root (far from every sampled
 * point) scores high. Per tree, starting at the leaf with `1 / (depth + 1)` (or, for a point equal
 * to the leaf's, `(1 - m / 2n) / (depth + log2(m + 1))` with `m` its copies and `n` the tree's
 * points), each node on the way up at depth `d` mixes in `1 / (d + 1)` with that chance; the
 * forest's score is the trees' mean times `log2(sampleSize + 1)`, so that a typical point scores
 * about 1 and an outlier several times more (the scale KDA's documentation and applications use).
 *
 * Everything random is drawn from a hash of (seed, tree, point number, step), never from a shared
 * generator: the forest is a function of the points in the order they came, whatever the
 * micro-batches were, and restored from its bytes it goes on exactly as if it had never stopped.
 */
final class Forest private (
    val trees: Int,
    val sampleSize: Int,
    val timeDecay: Double,
    val dimensions: Int,
    val seed: Long,
    private val samples: Array[Sample],
    private var seen: Long) {

  /** How many points the forest has taken. */
  def count: Long = seen

  /** Whether the forest has taken enough points for its scores to mean something: a quarter sample. */
  def ready: Boolean = seen >= math.max(1, sampleSize / 4)

  /** The score of `p` against the forest as it is (0 before it is [[ready]]). */
  def score(p: Array[Double]): Double = {
    require(p.length == dimensions, s"a point of ${p.length} values for a forest of $dimensions")
    if (!ready) return 0.0
    var sum = 0.0
    var counted = 0
    samples.foreach { s =>
      if (s.root != null) { sum += s.score(p); counted += 1 }
    }
    if (counted == 0) 0.0 else sum / counted * Forest.log2(sampleSize + 1.0)
  }

  /**
   * How much each dimension of `p` adds to its [[score]], split by direction
   * (`RANDOM_CUT_FOREST_WITH_EXPLANATION`, docs/semantics.md §14): element `2d` is what dimension `d`
   * adds by being lower than the points it is cut from, `2d + 1` by being higher. The elements sum
   * to the score (all 0 before the forest is [[ready]]): each tree's score is a mix, node by node
   * from the leaf up, of `1 / (depth + 1)` with the chance of a cut that separates `p` there, and
   * that chance is a sum over the dimensions and sides where the stretched box grew; each part of
   * the mix goes to the dimension and side it came from. A point equal to a sampled one, which no
   * cut separates from it, has its leaf's part spread evenly over every dimension and both sides.
   */
  def attribution(p: Array[Double]): Array[Double] = {
    require(p.length == dimensions, s"a point of ${p.length} values for a forest of $dimensions")
    val sum = new Array[Double](2 * dimensions)
    if (!ready) return sum
    var counted = 0
    samples.foreach { s =>
      if (s.root != null) {
        val a = s.attribution(p)
        var i = 0
        while (i < sum.length) { sum(i) += a(i); i += 1 }
        counted += 1
      }
    }
    if (counted > 0) {
      val scale = Forest.log2(sampleSize + 1.0) / counted
      var i = 0
      while (i < sum.length) { sum(i) *= scale; i += 1 }
    }
    sum
  }

  /**
   * The median of dimension `d` among the points the first tree keeps (a sample of the recent
   * points, by the time decay): what a value is high or low against. NaN while it keeps none.
   */
  def median(d: Int): Double = {
    val values = samples(0).values(d)
    if (values.isEmpty) Double.NaN
    else {
      java.util.Arrays.sort(values)
      val mid = values.length / 2
      if (values.length % 2 == 1) values(mid) else (values(mid - 1) + values(mid)) / 2
    }
  }

  /** Takes `p` into each tree's sample (or not, by its weight there). */
  def update(p: Array[Double]): Unit = {
    require(p.length == dimensions, s"a point of ${p.length} values for a forest of $dimensions")
    val seq = seen
    seen += 1
    var t = 0
    while (t < trees) {
      val s = samples(t)
      val u = Forest.uniform(seed, t, seq, -1)
      val weight = math.log(-math.log(u)) - seq / timeDecay
      s.offer(p.clone(), seq, weight)
      t += 1
    }
  }

  /** The whole forest: its parameters, each tree's sample and shape. */
  def toBytes: Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new DataOutputStream(bytes)
    out.writeInt(Forest.Format)
    out.writeInt(trees); out.writeInt(sampleSize); out.writeDouble(timeDecay); out.writeInt(dimensions)
    out.writeLong(seed); out.writeLong(seen)
    samples.foreach(_.write(out))
    out.flush()
    bytes.toByteArray
  }
}

object Forest {
  private val Format = 1

  def apply(trees: Int, sampleSize: Int, timeDecay: Double, dimensions: Int, seed: Long): Forest =
    new Forest(trees, sampleSize, timeDecay, dimensions, seed,
      Array.tabulate(trees)(t => new Sample(t, sampleSize, dimensions, seed)), 0L)

  def fromBytes(bytes: Array[Byte]): Forest = {
    val in = new DataInputStream(new ByteArrayInputStream(bytes))
    val format = in.readInt()
    require(format == Format, s"a random cut forest of format $format; this overjoin reads format $Format")
    val trees = in.readInt(); val sampleSize = in.readInt(); val timeDecay = in.readDouble()
    val dimensions = in.readInt(); val seed = in.readLong(); val seen = in.readLong()
    val samples = Array.tabulate(trees)(t => Sample.read(in, t, sampleSize, dimensions, seed))
    new Forest(trees, sampleSize, timeDecay, dimensions, seed, samples, seen)
  }

  private[rcf] def log2(x: Double): Double = math.log(x) / math.log(2.0)

  /** A uniform number in (0, 1) from a hash of its coordinates (SplitMix64's finalizer). */
  private[rcf] def uniform(seed: Long, tree: Int, seq: Long, step: Int): Double = {
    var z = seed * 0x9E3779B97F4A7C15L + tree * 0xBF58476D1CE4E5B9L + seq * 0x94D049BB133111EBL + step * 0x2545F4914F6CDD1DL
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL
    z = z ^ (z >>> 31)
    ((z >>> 11) + 0.5) / (1L << 53).toDouble
  }
}

/** A node of a random cut tree: a leaf holds one distinct point (`mass` copies of it). */
private[rcf] final class Node(var parent: Node) {
  var cutDim: Int = -1
  var cutValue: Double = 0.0
  var left: Node = _
  var right: Node = _
  var point: Array[Double] = _ // leaves only
  var seqs: List[Long] = Nil // leaves only: the point numbers of its copies
  var mass: Int = 0
  var lo: Array[Double] = _
  var hi: Array[Double] = _

  def isLeaf: Boolean = point != null

  def setBox(): Unit = {
    if (isLeaf) { lo = point; hi = point }
    else {
      lo = Array.tabulate(left.lo.length)(d => math.min(left.lo(d), right.lo(d)))
      hi = Array.tabulate(left.hi.length)(d => math.max(left.hi(d), right.hi(d)))
    }
  }
}

/** One tree's sample (the points it keeps, by weight) and the random cut tree over it. */
private[rcf] final class Sample(tree: Int, capacity: Int, dimensions: Int, seed: Long) {
  var root: Node = _
  /** (weight, point number, point): the kept points, the heaviest first out. */
  private val byWeight = new java.util.PriorityQueue[(Double, Long, Array[Double])](
    16, (a: (Double, Long, Array[Double]), b: (Double, Long, Array[Double])) => java.lang.Double.compare(b._1, a._1))

  /** Dimension `d` of each kept point. */
  def values(d: Int): Array[Double] = {
    val out = new Array[Double](byWeight.size)
    var i = 0
    val it = byWeight.iterator()
    while (it.hasNext) { out(i) = it.next()._3(d); i += 1 }
    out
  }

  def offer(p: Array[Double], seq: Long, weight: Double): Unit = {
    if (byWeight.size < capacity) { byWeight.add((weight, seq, p)); insert(p, seq) }
    else if (weight < byWeight.peek()._1) {
      val out = byWeight.poll()
      delete(out._3, out._2)
      byWeight.add((weight, seq, p))
      insert(p, seq)
    }
  }

  /** The leaf `p` falls in, and its depth. */
  private def leafOf(p: Array[Double]): (Node, Int) = {
    var node = root
    var depth = 0
    while (!node.isLeaf) {
      node = if (p(node.cutDim) <= node.cutValue) node.left else node.right
      depth += 1
    }
    (node, depth)
  }

  /** A leaf's part for a point equal to its own: its `m` copies at `depth` damp it. */
  private def equalLeaf(leaf: Node, depth: Int): Double = {
    val m = leaf.mass
    (1.0 - m / (2.0 * root.mass)) / (depth + Forest.log2(m + 1.0))
  }

  /** The sums of `n`'s box's extents over the dimensions, as it is and stretched to hold `p`. */
  private def extents(n: Node, p: Array[Double]): (Double, Double) = {
    var before = 0.0
    var after = 0.0
    var d = 0
    while (d < dimensions) {
      before += n.hi(d) - n.lo(d)
      after += math.max(n.hi(d), p(d)) - math.min(n.lo(d), p(d))
      d += 1
    }
    (before, after)
  }

  def score(p: Array[Double]): Double = {
    var (node, depth) = leafOf(p)
    var s = if (java.util.Arrays.equals(node.point, p)) equalLeaf(node, depth) else 1.0 / (depth + 1)
    node = node.parent
    depth -= 1
    while (node != null) {
      val (before, after) = extents(node, p)
      val cut = if (after <= 0.0) 0.0 else (after - before) / after
      s = (1.0 - cut) * s + cut / (depth + 1)
      node = node.parent
      depth -= 1
    }
    s
  }

  /** [[score]] of `p`, split over its dimensions' low (`2d`) and high (`2d + 1`) sides. */
  def attribution(p: Array[Double]): Array[Double] = {
    var (node, depth) = leafOf(p)
    val a = new Array[Double](2 * dimensions)
    // Node n at depthHere mixes 1 / (depthHere + 1) in with the chance that a cut of its box,
    // stretched to hold p, separates p (at a leaf p differs from: every cut does).
    def mix(n: Node, depthHere: Int): Unit = {
      val (before, after) = extents(n, p)
      if (after > 0.0) {
        val cut = (after - before) / after
        val keep = 1.0 - cut
        var i = 0
        while (i < a.length) { a(i) *= keep; i += 1 }
        val part = 1.0 / (depthHere + 1)
        var d = 0
        while (d < dimensions) {
          if (p(d) < n.lo(d)) a(2 * d) += part * (n.lo(d) - p(d)) / after
          if (p(d) > n.hi(d)) a(2 * d + 1) += part * (p(d) - n.hi(d)) / after
          d += 1
        }
      }
    }
    if (java.util.Arrays.equals(node.point, p)) java.util.Arrays.fill(a, equalLeaf(node, depth) / a.length)
    else mix(node, depth)
    node = node.parent
    depth -= 1
    while (node != null) {
      mix(node, depth)
      node = node.parent
      depth -= 1
    }
    a
  }

  /** Adds point `p` (number `seq`): a new leaf where a random cut of a stretched box separates it. */
  def insert(p: Array[Double], seq: Long): Unit = {
    if (root == null) { root = leaf(p, seq, null); return }
    var node = root
    var step = 0
    var done = false
    while (!done) {
      if (node.isLeaf && java.util.Arrays.equals(node.point, p)) {
        node.mass += 1
        node.seqs = seq :: node.seqs
        var up = node.parent
        while (up != null) { up.mass += 1; up = up.parent }
        done = true
      } else {
        // A cut of the box stretched to hold p, chosen in proportion to its extent.
        var total = 0.0
        var d = 0
        while (d < dimensions) { total += math.max(node.hi(d), p(d)) - math.min(node.lo(d), p(d)); d += 1 }
        val r = Forest.uniform(seed, tree, seq, step) * total
        step += 1
        var acc = 0.0
        var dim = 0
        var lo = 0.0
        var hi = 0.0
        d = 0
        var found = false
        while (d < dimensions && !found) {
          lo = math.min(node.lo(d), p(d)); hi = math.max(node.hi(d), p(d))
          if (r < acc + (hi - lo) || d == dimensions - 1) { dim = d; found = true } else { acc += hi - lo; d += 1 }
        }
        val value = math.min(lo + (r - acc), math.nextDown(hi))
        val separates = (p(dim) < node.lo(dim) && value < node.lo(dim) && p(dim) <= value) ||
          (p(dim) > node.hi(dim) && value >= node.hi(dim) && p(dim) > value)
        if (separates || node.isLeaf) {
          // A leaf p differs from: the stretched box has extent where they differ, so a cut there
          // separates them; one that does not (only in a degenerate draw) is moved between them.
          val (cd, cv) = if (separates) (dim, value) else separatingCut(node.point, p)
          val parent = node.parent
          val joint = new Node(parent)
          joint.cutDim = cd
          joint.cutValue = cv
          val fresh = leaf(p, seq, joint)
          if (p(cd) <= cv) { joint.left = fresh; joint.right = node } else { joint.left = node; joint.right = fresh }
          node.parent = joint
          joint.mass = node.mass + 1
          joint.setBox()
          if (parent == null) root = joint
          else if (parent.left eq node) parent.left = joint else parent.right = joint
          var up = parent
          while (up != null) { up.mass += 1; up.setBox(); up = up.parent }
          done = true
        } else {
          node = if (p(node.cutDim) <= node.cutValue) node.left else node.right
        }
      }
    }
  }

  private def separatingCut(q: Array[Double], p: Array[Double]): (Int, Double) = {
    val d = (0 until dimensions).find(i => q(i) != p(i)).get
    (d, math.min(q(d), p(d)))
  }

  private def leaf(p: Array[Double], seq: Long, parent: Node): Node = {
    val n = new Node(parent)
    n.point = p
    n.seqs = List(seq)
    n.mass = 1
    n.setBox()
    n
  }

  /** Removes one copy of point `p` (number `seq`). */
  def delete(p: Array[Double], seq: Long): Unit = {
    var node = root
    while (!node.isLeaf) node = if (p(node.cutDim) <= node.cutValue) node.left else node.right
    require(java.util.Arrays.equals(node.point, p), "a sampled point is missing from its tree")
    node.mass -= 1
    node.seqs = node.seqs.filterNot(_ == seq)
    if (node.mass > 0) {
      var up = node.parent
      while (up != null) { up.mass -= 1; up = up.parent }
      return
    }
    val parent = node.parent
    if (parent == null) { root = null; return }
    val sibling = if (parent.left eq node) parent.right else parent.left
    val grand = parent.parent
    sibling.parent = grand
    if (grand == null) root = sibling
    else if (grand.left eq parent) grand.left = sibling else grand.right = sibling
    var up = grand
    while (up != null) { up.mass -= 1; up.setBox(); up = up.parent }
  }

  def write(out: DataOutputStream): Unit = {
    val items = byWeight.toArray(Array.empty[(Double, Long, Array[Double])]).sortBy(_._2)
    out.writeInt(items.length)
    items.foreach { case (w, seq, p) => out.writeDouble(w); out.writeLong(seq); p.foreach(out.writeDouble) }
    // The tree in preorder: 0 for a leaf (its point as the first sampled copy's number, its copies'
    // numbers), 1 for a cut (dimension, value).
    def node(n: Node): Unit =
      if (n.isLeaf) { out.writeByte(0); out.writeInt(n.seqs.size); n.seqs.foreach(out.writeLong) }
      else { out.writeByte(1); out.writeInt(n.cutDim); out.writeDouble(n.cutValue); node(n.left); node(n.right) }
    out.writeBoolean(root != null)
    if (root != null) node(root)
  }
}

private[rcf] object Sample {
  def read(in: DataInputStream, tree: Int, capacity: Int, dimensions: Int, seed: Long): Sample = {
    val s = new Sample(tree, capacity, dimensions, seed)
    val n = in.readInt()
    val bySeq = scala.collection.mutable.HashMap.empty[Long, Array[Double]]
    (0 until n).foreach { _ =>
      val w = in.readDouble(); val seq = in.readLong()
      val p = Array.fill(dimensions)(in.readDouble())
      s.byWeight.add((w, seq, p))
      bySeq(seq) = p
    }
    def node(parent: Node): Node = in.readByte() match {
      case 0 =>
        val copies = List.fill(in.readInt())(in.readLong())
        val leaf = new Node(parent)
        leaf.point = bySeq(copies.head)
        leaf.seqs = copies
        leaf.mass = copies.size
        leaf.setBox()
        leaf
      case _ =>
        val cut = new Node(parent)
        cut.cutDim = in.readInt()
        cut.cutValue = in.readDouble()
        cut.left = node(cut)
        cut.right = node(cut)
        cut.mass = cut.left.mass + cut.right.mass
        cut.setBox()
        cut
    }
    if (in.readBoolean()) s.root = node(null)
    s
  }
}
