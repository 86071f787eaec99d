package io.overjoin.streaming

import java.net.URI
import java.nio.file.Files
import java.nio.file.attribute.PosixFilePermission

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{ChecksumFs, DelegateToFileSystem, FileStatus, FileSystem, FsServerDefaults, LocalFileSystem, Path, PathFilter, RawLocalFileSystem}
import org.apache.hadoop.fs.local.LocalConfigKeys
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.io.nativeio.NativeIO
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager
import org.apache.spark.sql.execution.streaming.checkpointing.CheckpointFileManager.CancellableFSDataOutputStream

/**
 * A `CheckpointFileManager` (`spark.sql.streaming.checkpointFileManagerClass`) that writes a
 * checkpoint on the local file system without starting a process per file.
 *
 * Without Hadoop's native library (pyspark's wheel has none), Hadoop's local file system runs a
 * shell command for what the library would do: `chmod` for every file and directory it creates,
 * and `readlink` twice for every rename (to see whether the target is a symbolic link). A streaming
 * query commits a few files per micro-batch (offsets, commit, one state delta per stateful
 * partition, the source's log), each written to a temporary file and renamed, so a query forks
 * about fifteen processes per micro-batch; in the test suite that was 17,596 processes in two
 * minutes, and without them the same tests took 43% less time (docs/operator.md, "Checkpoints on
 * the local file system").
 *
 * For `file:` paths this manager is Spark's own `FileContext`-based manager over
 * [[NioLocalFs]], which makes the same two calls through Java's file API: the same permissions
 * (a `chmod` system call), the same answer about links, the same files and `.crc` checksums, so a
 * checkpoint written with it is read by Spark's default manager and the other way round. Any other
 * scheme (HDFS, S3, ...) gets Spark's default manager, unchanged.
 */
class LocalCheckpointFileManager(path: Path, hadoopConf: Configuration) extends CheckpointFileManager {

  private val local = LocalCheckpointFileManager.isLocalPath(path, hadoopConf)

  private val delegate: CheckpointFileManager = {
    val conf = new Configuration(hadoopConf)
    conf.unset(LocalCheckpointFileManager.ManagerKey)
    if (local) {
      conf.set("fs.AbstractFileSystem.file.impl", classOf[NioLocalFs].getName)
      conf.setClassLoader(classOf[NioLocalFs].getClassLoader)
    }
    CheckpointFileManager.create(path, conf)
  }

  override def createAtomic(p: Path, overwriteIfPossible: Boolean): CancellableFSDataOutputStream =
    delegate.createAtomic(p, overwriteIfPossible)
  override def open(p: Path): org.apache.hadoop.fs.FSDataInputStream = delegate.open(p)
  override def list(p: Path, filter: PathFilter): Array[FileStatus] = delegate.list(p, filter)
  override def list(p: Path): Array[FileStatus] = delegate.list(p)
  override def mkdirs(p: Path): Unit = delegate.mkdirs(p)
  override def exists(p: Path): Boolean = delegate.exists(p)
  override def delete(p: Path): Unit = delegate.delete(p)
  // Spark's manager answers from the class of its file system, which is ours here, not LocalFs.
  override def isLocal: Boolean = local || delegate.isLocal
  override def createCheckpointDirectory(): Path = delegate.createCheckpointDirectory()
  override def close(): Unit = delegate.close()
}

object LocalCheckpointFileManager {
  /** Spark's setting that names the manager (an internal one of Spark's SQL settings). */
  val ManagerKey = "spark.sql.streaming.checkpointFileManagerClass"

  /** Whether `path` is on the local file system (`file:`, or no scheme with a local default file system). */
  def isLocalPath(path: Path, conf: Configuration): Boolean = {
    val scheme = Option(path.toUri.getScheme).getOrElse(FileSystem.getDefaultUri(conf).getScheme)
    scheme == null || scheme == "file"
  }
}

/**
 * Hadoop's local file system with `setPermission` and `getFileLinkStatus` through `java.nio` when
 * Hadoop's native library is missing (with it, Hadoop's own code, which calls the library). Both
 * keep Hadoop's results: a permission with bits `java.nio` cannot set (sticky, setuid) and a path
 * that is a symbolic link go to Hadoop's code, shell and all.
 */
class NioRawLocalFileSystem extends RawLocalFileSystem {

  override def setPermission(p: Path, permission: FsPermission): Unit = {
    val mode = permission.toShort.toInt
    if (NativeIO.isAvailable || (mode & ~0x1ff) != 0) super.setPermission(p, permission)
    else {
      val target = pathToFile(p).toPath
      try Files.setPosixFilePermissions(target, NioRawLocalFileSystem.posix(mode))
      catch { case _: UnsupportedOperationException => super.setPermission(p, permission) }
    }
  }

  override def getFileLinkStatus(f: Path): FileStatus =
    if (NativeIO.isAvailable || Files.isSymbolicLink(pathToFile(f).toPath)) super.getFileLinkStatus(f)
    else getFileStatus(f) // what Hadoop returns for a path that is not a link (FileNotFoundException if absent)
}

object NioRawLocalFileSystem {
  private val Bits: Array[PosixFilePermission] = Array(
    PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
    PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
    PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ)

  /** The permissions of a mode's lower nine bits. */
  def posix(mode: Int): java.util.Set[PosixFilePermission] = {
    val out = java.util.EnumSet.noneOf(classOf[PosixFilePermission])
    var bit = 0
    while (bit < 9) { if ((mode & (1 << bit)) != 0) out.add(Bits(bit)); bit += 1 }
    out
  }
}

/** Hadoop's `RawLocalFs` (the `AbstractFileSystem` of `file:`) over [[NioRawLocalFileSystem]]. */
class NioRawLocalFs(uri: URI, conf: Configuration)
    extends DelegateToFileSystem(uri, new NioRawLocalFileSystem, conf, "file", false) {
  def this(conf: Configuration) = this(new URI("file:///"), conf)
  override def getUriDefaultPort: Int = -1
  override def getServerDefaults(f: Path): FsServerDefaults = LocalConfigKeys.getServerDefaults()
  @deprecated("Hadoop's own override", "") override def getServerDefaults(): FsServerDefaults =
    LocalConfigKeys.getServerDefaults()
  override def isValidName(src: String): Boolean = true
}

/** Hadoop's `LocalFs` (checksummed, `.crc` files) over [[NioRawLocalFs]]. */
class NioLocalFs(uri: URI, conf: Configuration) extends ChecksumFs(new NioRawLocalFs(uri, conf)) {
  def this(conf: Configuration) = this(new URI("file:///"), conf)
}

/**
 * Hadoop's `LocalFileSystem` (checksummed, `.crc` files) over [[NioRawLocalFileSystem]], for
 * `fs.file.impl`: the files a query writes outside its checkpoint (a Parquet sink's data files, a
 * durable stream's rows) without a `chmod` process per file and per checksum. `overjoin server`
 * sets it for a local master (docs/operator.md, "An application's pumps on one server").
 */
class NioLocalFileSystem extends LocalFileSystem(new NioRawLocalFileSystem)
