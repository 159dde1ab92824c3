package dev.streamlog.common

/** The clock of a component; tests pass a MockTime and advance it by hand. */
trait Time {
  def milliseconds: Long
  def nanoseconds: Long
  def sleep(ms: Long): Unit
}

object SystemTime extends Time {
  override def milliseconds: Long = System.currentTimeMillis()
  override def nanoseconds: Long = System.nanoTime()
  override def sleep(ms: Long): Unit = Thread.sleep(ms)
}

final class MockTime(private var nowMs: Long = 1700000000000L) extends Time {
  override def milliseconds: Long = synchronized(nowMs)
  override def nanoseconds: Long = synchronized(nowMs * 1000000L)
  override def sleep(ms: Long): Unit = advance(ms)
  def advance(ms: Long): Unit = synchronized(nowMs += ms)
}
