package io.overjoin

import org.apache.spark.sql.SparkSessionExtensions

import io.overjoin.catalyst.{RemoveStreamJoinMarkers, RewriteWindowedJoins}
import io.overjoin.parser.OverjoinSqlParser

/**
 * overjoin's entry point, named in `spark.sql.extensions`:
 * {{{
 *   spark.sql.extensions=io.overjoin.OverjoinExtensions
 * }}}
 */
class OverjoinExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    // Parser: wraps whatever parser comes before us, so Delta/Iceberg syntax keeps working.
    extensions.injectParser { (_, delegate) => new OverjoinSqlParser(delegate) }

    // Resolution: rewrites windowed joins once Spark has resolved their inputs, and must interleave
    // with Spark's resolution of join conditions and USING columns, so it runs inside that batch.
    extensions.injectResolutionRule { _ => RewriteWindowedJoins }

    // Post-hoc: after the resolution batch has reached its fixed point, drop overjoin's markers
    // (no physical planner knows them) and report anything overjoin could not rewrite.
    extensions.injectPostHocResolutionRule { _ => RemoveStreamJoinMarkers }
  }
}
