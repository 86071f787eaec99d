package io.overjoin.streams

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, FileSystem, FilterFileSystem, Path}
import org.apache.spark.internal.Logging

/**
 * A durable stream's log of its files, in the order they became visible: entry `n` names the
 * `n`-th file put into the stream's folder. The server's pumps read a durable stream from its log
 * ([[org.apache.spark.sql.overjoin.StreamLogSource]]) instead of listing the folder at every
 * trigger, which costs time in proportion to every file the stream ever got (docs/operator.md,
 * "A durable stream's log").
 *
 * On disk, under the stream's folder (hidden from Spark's readers, as every `_` name is):
 * {{{
 *   _log/id                     the log's identity (a UUID): a reader's offset names it, so a
 *                               stream dropped and created again is read from its start
 *   _log/000000/000000000001    entry 1: the name of the stream's first file
 *   _log/000001/000000001000    entries in folders of 1,000
 * }}}
 *
 * Writers ([[PumpSink]] and `INSERT INTO`, [[LoggedStreamInsert]]) are in the server's JVM; one
 * writer at a time per stream ([[publish]] is synchronized), so entries are numbered without gaps.
 * A pump's file goes in as: entry written, then the file renamed into place, then the entry
 * counted as visible ([[visible]]). A crash between the entry and the rename leaves a last entry
 * whose file is not there; opening the log takes it out (no reader has read past the files in
 * place), and the pump's replayed batch writes its file and entry again. A log is made the first
 * time its stream is written or read: the files already in the folder are its first entries.
 */
final class StreamLog private (val folder: Path, fs: FileSystem) extends Logging {
  import StreamLog._

  private val dir = new Path(folder, LogDir)
  private val raw: FileSystem = fs match {
    case f: FilterFileSystem => f.getRawFileSystem // no .crc beside each entry
    case f => f
  }
  @volatile private var logId: String = _
  @volatile private var last: Long = 0L

  /** The log's identity; a new one when the stream's folder was emptied or made again. */
  def id: String = synchronized { ensureOpen(); logId }

  /** The number of the last entry whose file is in place: readers read up to it. */
  def visible: Long = synchronized { ensureOpen(); last }

  /** The log's identity and last visible entry, read together. */
  def position: (String, Long) = synchronized { ensureOpen(); (logId, last) }

  /** The names of the files of entries `from + 1` to `to`, in order. */
  def files(from: Long, to: Long): Seq[String] = {
    if (to <= from) return Nil
    (from + 1 to to).map(read)
  }

  /**
   * Puts `staged` into the stream's folder as `target` (same folder, one rename), logged: after this
   * returns, readers see it. `beforeRename` is called between the entry and the rename (fault
   * injection for the tests).
   */
  def publish(staged: Path, target: Path, beforeRename: () => Unit = () => ()): Long = synchronized {
    ensureOpen()
    val n = last + 1
    write(n, target.getName)
    beforeRename()
    if (!fs.rename(staged, target)) {
      raw.delete(entry(n), false)
      throw new IllegalStateException(s"stream folder $folder: cannot rename $staged to $target")
    }
    last = n
    n
  }

  /** Logs files already in the folder (an `INSERT`'s, in the order given); they become visible. */
  def append(names: Seq[String]): Unit = synchronized {
    ensureOpen()
    names.foreach { name =>
      write(last + 1, name)
      last += 1
    }
  }

  /** Reads the log again from its files at its next use, as after a restart. */
  def reopen(): Unit = synchronized { logId = null }

  /**
   * Makes the log again from the folder's files, as they are now (a new identity): after an
   * `INSERT OVERWRITE` replaced them all.
   */
  def rebuild(): Unit = synchronized {
    raw.delete(dir, true)
    logId = null
    ensureOpen()
  }

  /** Opens the log (made from the folder's files when it has none) unless it is open and still there. */
  private def ensureOpen(): Unit = {
    if (logId != null && raw.exists(new Path(dir, IdFile))) return
    if (!raw.exists(new Path(dir, IdFile))) create()
    logId = new String(readAll(new Path(dir, IdFile)), UTF_8).trim
    last = lastEntry()
    if (last > 0) {
      val name = scala.util.Try(read(last)).toOption.filter(_.nonEmpty)
      if (!name.exists(n => fs.exists(new Path(folder, n)))) {
        // A crash between an entry and its rename: no reader read it; the writer writes both again.
        logWarning(s"stream folder $folder: entry $last names ${name.getOrElse("nothing")}, which is not in " +
          "the folder (a crash before its rename): taken out")
        raw.delete(entry(last), false)
        last -= 1
      }
    }
    logInfo(s"stream folder $folder: log $logId open at entry $last")
  }

  /** A new log: the folder's files so far, oldest first, made aside and put in place by one rename. */
  private def create(): Unit = {
    val aside = new Path(folder, LogDir + ".new")
    raw.delete(aside, true)
    if (raw.exists(dir)) raw.delete(dir, true) // a log without its identity is no log
    raw.mkdirs(aside)
    val existing = Option(fs.listStatus(folder)).toSeq.flatten.filter(isData)
      .sortBy(s => (s.getModificationTime, s.getPath.getName))
    writeFile(new Path(aside, IdFile), UUID.randomUUID().toString)
    existing.zipWithIndex.foreach { case (s, i) => writeFile(entryIn(aside, i + 1L), s.getPath.getName) }
    if (!raw.rename(aside, dir)) throw new IllegalStateException(s"stream folder $folder: cannot make its log $dir")
    logInfo(s"stream folder $folder: made its log, ${existing.size} file(s) already there")
  }

  private def lastEntry(): Long = {
    def numbered(p: Path): Seq[Long] = Option(raw.listStatus(p)).toSeq.flatten
      .map(_.getPath.getName).filter(n => n.nonEmpty && n.forall(_.isDigit)).map(_.toLong)
    numbered(dir).sorted.reverseIterator.map(c => numbered(new Path(dir, chunkName(c)))).find(_.nonEmpty)
      .map(_.max).getOrElse(0L)
  }

  private def entry(n: Long): Path = entryIn(dir, n)
  private def read(n: Long): String = new String(readAll(entry(n)), UTF_8)
  private def write(n: Long, name: String): Unit = writeFile(entry(n), name)

  private def writeFile(p: Path, text: String): Unit = {
    val out = raw.create(p, true)
    try out.write(text.getBytes(UTF_8)) finally out.close()
  }

  private def readAll(p: Path): Array[Byte] = {
    val in = raw.open(p)
    try in.readAllBytes() finally in.close()
  }
}

object StreamLog {
  val LogDir = "_log"
  private val IdFile = "id"
  private val PerChunk = 1000L

  private val logs = new ConcurrentHashMap[String, StreamLog]()

  /** The log of the durable stream whose folder is `folder` (one per folder in this JVM). */
  def apply(folder: String, conf: Configuration): StreamLog = {
    val (fs, qualified) = locate(folder, conf)
    logs.computeIfAbsent(qualified.toString, _ => new StreamLog(qualified, fs))
  }

  /**
   * The log of `folder` is read again from its files at its next use, as after a restart: when a
   * stream's files and log were set aside (`ALTER STREAM ... RESET`), and in the tests. Every user
   * of the folder's log shares the one [[StreamLog]], so none keeps a view of the old one.
   */
  def reopenAt(folder: String, conf: Configuration): Unit =
    Option(logs.get(locate(folder, conf)._2.toString)).foreach(_.reopen())

  private def locate(folder: String, conf: Configuration): (FileSystem, Path) = {
    val p = new Path(folder)
    val fs = p.getFileSystem(conf)
    (fs, new Path(fs.makeQualified(p).toUri.normalize().toString.stripSuffix("/")))
  }

  /** A file of the stream's rows: not hidden (`_` or `.`), not a folder. */
  def isData(s: FileStatus): Boolean = {
    val n = s.getPath.getName
    s.isFile && !n.startsWith("_") && !n.startsWith(".")
  }

  private def chunkName(c: Long): String = f"$c%06d"
  private def entryIn(dir: Path, n: Long): Path = new Path(new Path(dir, chunkName(n / PerChunk)), f"$n%012d")
}
