package io.overjoin.streams

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.expressions.{Alias, Coalesce, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.streaming.runtime.StreamingRelation
import org.apache.spark.sql.types.MetadataBuilder

/**
 * KDA's implicit columns of a source stream (docs/semantics.md §10), as a projection over the
 * stream's relation (read as a table or as a stream):
 * {{{
 *   Project [c1, ..., cN,                                        the declared columns
 *            coalesce(ROWTIME, _metadata.file_modification_time) AS ROWTIME,
 *            _metadata.file_modification_time AS APPROXIMATE_ARRIVAL_TIME]
 *   +- Relation src [c1, ..., cN, ROWTIME]                        ROWTIME: the records' own field
 * }}}
 * A file's arrival in the folder is its modification time (Spark's hidden `_metadata` column of
 * file sources, in batch and streaming reads alike). APPROXIMATE_ARRIVAL_TIME is added only when
 * the statement names it, so that `SELECT *` returns what it returns in KDA: the declared columns
 * (and ROWTIME).
 */
object SourceColumns {
  private val MarkerKey = "overjoin.sourceColumns"
  private val marker = new MetadataBuilder().putBoolean(MarkerKey, true).build()

  /** The table of a relation that reads a source stream with implicit columns. */
  def tableOf(p: LogicalPlan): Option[CatalogTable] = (p match {
    // A streaming LogicalRelation is one micro-batch's files, under the projection made over the
    // stream's StreamingRelation when the query was analyzed: not projected again.
    case r: LogicalRelation if !r.isStreaming => r.catalogTable
    case r: StreamingRelation => r.dataSource.catalogTable
    case _ => None
  }).filter(t => t.properties.contains(Streams.ImplicitRowtimeProperty) || t.properties.contains(Streams.ArrivalProperty))

  /**
   * The projection above `relation` (whose table is `t`); `arrival`: add APPROXIMATE_ARRIVAL_TIME.
   * `relation` itself when there is nothing to add (a declared ROWTIME, no arrival asked for).
   */
  def project(relation: LogicalPlan, t: CatalogTable, arrival: Boolean): LogicalPlan = {
    val modified = UnresolvedAttribute(Seq("_metadata", "file_modification_time"))
    val raw = t.properties.get(Streams.ImplicitRowtimeProperty)
    val columns: Seq[NamedExpression] = relation.output.map { a =>
      if (raw.exists(_.equalsIgnoreCase(a.name)) && a.name.equalsIgnoreCase(Streams.Rowtime)) {
        Alias(Coalesce(Seq(a, modified)), Streams.Rowtime)(explicitMetadata = Some(marker))
      } else a
    }
    val rowtime =
      if (raw.exists(!_.equalsIgnoreCase(Streams.Rowtime))) {
        val field = relation.output.find(_.name.equalsIgnoreCase(raw.get)).get
        Seq(Alias(Coalesce(Seq(field, modified)), Streams.Rowtime)(explicitMetadata = Some(marker)))
      } else Nil
    val arrivalColumn =
      if (arrival && t.properties.contains(Streams.ArrivalProperty)) {
        Seq(Alias(modified, Streams.ArrivalTime)(explicitMetadata = Some(marker)))
      } else Nil
    val list = columns ++ rowtime ++ arrivalColumn
    if (list.exists(isMarked)) Project(list, relation) else relation
  }

  private def isMarked(e: NamedExpression): Boolean = e match {
    case a: Alias => a.explicitMetadata.exists(_.contains(MarkerKey))
    case _ => false
  }

  /** The projection this object made, and the relation under it. */
  def unapply(p: LogicalPlan): Option[(Seq[NamedExpression], LogicalPlan)] = p match {
    case Project(list, child) if list.exists(isMarked) && tableOf(child).isDefined => Some((list, child))
    case _ => None
  }
}
