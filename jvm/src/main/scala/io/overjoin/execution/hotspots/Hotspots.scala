package io.overjoin.execution.hotspots

import scala.collection.mutable

/**
 * The hotspots of a set of points (Kinesis Data Analytics' `HOTSPOTS`, docs/semantics.md §14):
 * density-based clusters in the sense of DBSCAN (Ester, Kriegel, Sander, Xu, KDD 1996), which KDA's
 * reference names as the model of its scan radius. A point is a core point when at least
 * `minPoints` points (itself among them) lie within `radius` of it (Euclidean distance); core
 * points within `radius` of each other are in one hotspot, and so is every point within `radius`
 * of one of its core points (a point near two hotspots goes to the first, in the points' order).
 * Points in no hotspot are noise.
 *
 * A hotspot's `density` is its number of points divided by its size, the volume of its bounding
 * box with each side grown by the radius (so that a hotspot of points on a line, or of equal
 * points, has a size). Hotspots come densest first.
 */
object Hotspots {

  final case class Hotspot(density: Double, minValues: Array[Double], maxValues: Array[Double])

  def find(points: IndexedSeq[Array[Double]], radius: Double, minPoints: Int): Seq[Hotspot] = {
    val n = points.size
    if (n == 0) return Nil
    val dims = points.head.length
    val r2 = radius * radius
    // Candidates through a grid of cells `radius` wide over the first two dimensions; each pair
    // found is checked at its full distance.
    val gridDims = math.min(2, dims)
    def cell(p: Array[Double]): Seq[Long] = (0 until gridDims).map(d => math.floor(p(d) / radius).toLong)
    val grid = mutable.HashMap.empty[Seq[Long], mutable.ArrayBuffer[Int]]
    var i = 0
    while (i < n) { grid.getOrElseUpdate(cell(points(i)), mutable.ArrayBuffer.empty[Int]) += i; i += 1 }
    val offsets: Seq[Seq[Long]] = (0 until gridDims).foldLeft(Seq(Seq.empty[Long])) { (acc, _) =>
      for (o <- acc; step <- Seq(-1L, 0L, 1L)) yield o :+ step
    }
    def within(a: Array[Double], b: Array[Double]): Boolean = {
      var s = 0.0
      var d = 0
      while (d < dims && s <= r2) { val x = a(d) - b(d); s += x * x; d += 1 }
      s <= r2
    }
    def neighbours(k: Int): mutable.ArrayBuffer[Int] = {
      val p = points(k)
      val home = cell(p)
      val out = mutable.ArrayBuffer.empty[Int]
      offsets.foreach { o =>
        grid.get(home.zip(o).map { case (c, s) => c + s }).foreach(_.foreach(j => if (within(p, points(j))) out += j))
      }
      out
    }
    val near = Array.tabulate(n)(neighbours)
    val core = near.map(_.size >= minPoints)
    val label = Array.fill(n)(-1)
    var clusters = 0
    i = 0
    while (i < n) {
      if (core(i) && label(i) < 0) {
        val id = clusters
        clusters += 1
        label(i) = id
        val queue = mutable.Queue(i)
        while (queue.nonEmpty) {
          val k = queue.dequeue()
          near(k).foreach { j =>
            if (label(j) < 0) {
              label(j) = id
              if (core(j)) queue.enqueue(j)
            }
          }
        }
      }
      i += 1
    }
    (0 until clusters).map { id =>
      val members = (0 until n).filter(label(_) == id).map(points)
      val lo = Array.tabulate(dims)(d => members.map(_(d)).min)
      val hi = Array.tabulate(dims)(d => members.map(_(d)).max)
      val size = (0 until dims).map(d => hi(d) - lo(d) + radius).product
      Hotspot(members.size / size, lo, hi)
    }.sortBy(h => (-h.density, h.minValues.toSeq.mkString(",")))
  }

  /**
   * `HOTSPOTS_RESULT`: `{"hotspots":[{"density":d,"minValues":[...],"maxValues":[...]},...]}`,
   * values in the order of the query's numeric columns, numbers as JSON numbers.
   */
  def json(hotspots: Seq[Hotspot]): String = {
    def number(x: Double): String = java.lang.Double.toString(x)
    hotspots.map { h =>
      s"""{"density":${number(h.density)},"minValues":[${h.minValues.map(number).mkString(",")}],""" +
        s""""maxValues":[${h.maxValues.map(number).mkString(",")}]}"""
    }.mkString("""{"hotspots":[""", ",", "]}")
  }
}
