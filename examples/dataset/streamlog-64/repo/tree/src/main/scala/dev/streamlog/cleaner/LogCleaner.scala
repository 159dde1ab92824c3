package dev.streamlog.cleaner

import java.util.concurrent.atomic.AtomicBoolean

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.log.Log

/** The background cleaner thread: repeatedly cleans the dirtiest compacted log. */
final class LogCleaner(
    manager: LogCleanerManager,
    logs: () => Seq[Log],
    offsetMapCapacity: Int,
    deleteRetentionMs: Long,
    backoffMs: Long = 15000L
) extends Thread("log-cleaner-0")
    with LazyLogging {

  private val running = new AtomicBoolean(true)
  private val cleaner = new Cleaner(0, offsetMapCapacity, deleteRetentionMs, () => System.currentTimeMillis())

  override def run(): Unit = {
    while (running.get()) {
      manager.grabFilthiestLog(logs()) match {
        case Some(log) =>
          try {
            val stats = cleaner.clean(log, manager.firstDirtyOffset(log))
            manager.doneCleaning(log, stats)
          } catch {
            case e: Exception =>
              logger.error(s"Cleaning ${log.topicPartition} failed", e)
              Thread.sleep(backoffMs)
          }
        case None =>
          Thread.sleep(backoffMs)
      }
    }
  }

  def shutdown(): Unit = {
    running.set(false)
    interrupt()
  }
}
