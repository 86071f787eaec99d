package io.overjoin.execution.state

/**
 * The variable-length numbers of overjoin's state blobs (the join's format 3, the sliding and
 * stagger windows' format 2): a `varlong` is a signed number zigzag-encoded (small magnitudes,
 * either sign, become small unsigned numbers), then written 7 bits per byte, low bits first, the
 * high bit of each byte saying another follows (LEB128): 1 byte up to +-63, 4 bytes up to
 * +-134,217,727 (134 s in microseconds), 10 at most. The blobs read and write the bytes through
 * their own buffers; these are the number rules they share.
 */
object Varints {
  /** The most bytes a varlong takes. */
  val MaxBytes = 10

  def zigzag(v: Long): Long = (v << 1) ^ (v >> 63)

  def unzigzag(u: Long): Long = (u >>> 1) ^ -(u & 1)

  /** How many bytes the unsigned `value` takes. */
  def size(value: Long): Int = {
    var v = value
    var n = 1
    while ((v & ~0x7fL) != 0) { n += 1; v >>>= 7 }
    n
  }
}
