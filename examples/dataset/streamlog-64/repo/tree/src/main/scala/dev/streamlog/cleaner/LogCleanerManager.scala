package dev.streamlog.cleaner

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path, StandardCopyOption}
import scala.collection.mutable
import scala.jdk.CollectionConverters._

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.log.Log

/**
 * Tracks, per compacted log, the first dirty offset (the cleaner checkpoint), picks the
 * dirtiest log for the next pass and persists checkpoints to `cleaner-offset-checkpoint`.
 */
final class LogCleanerManager(logDir: Path, minCleanableRatio: Double) extends LazyLogging {

  private val checkpointFile = logDir.resolve("cleaner-offset-checkpoint")
  private val checkpoints = mutable.Map.empty[String, Long]
  private val inProgress = mutable.Set.empty[String]

  loadCheckpoints()

  private def loadCheckpoints(): Unit = synchronized {
    if (Files.exists(checkpointFile)) {
      for (line <- Files.readAllLines(checkpointFile, StandardCharsets.UTF_8).asScala if line.nonEmpty) {
        val Array(tp, offset) = line.split(' ')
        checkpoints(tp) = offset.toLong
      }
    }
  }

  def firstDirtyOffset(log: Log): Long = synchronized {
    math.max(checkpoints.getOrElse(log.topicPartition, log.logStartOffset), log.logStartOffset)
  }

  /** The ratio of dirty records to all records before the active segment. */
  def dirtyRatio(log: Log): Double = {
    val firstDirty = firstDirtyOffset(log)
    val activeBase = log.activeSegment.baseOffset
    val total = activeBase - log.logStartOffset
    if (total <= 0) 0.0 else (activeBase - firstDirty).toDouble / total
  }

  /** Picks the dirtiest log that is above the minimum cleanable ratio and not being cleaned. */
  def grabFilthiestLog(logs: Seq[Log]): Option[Log] = synchronized {
    val candidates = logs.filterNot(l => inProgress(l.topicPartition)).map(l => l -> dirtyRatio(l))
    val picked = candidates.filter(_._2 >= minCleanableRatio).sortBy(-_._2).headOption.map(_._1)
    picked.foreach(l => inProgress += l.topicPartition)
    picked
  }

  def doneCleaning(log: Log, stats: CleanerStats): Unit = synchronized {
    inProgress -= log.topicPartition
    checkpoints(log.topicPartition) = stats.nextDirtyOffset
    writeCheckpoints()
    logger.info(
      s"Cleaned ${log.topicPartition}: read ${stats.recordsRead}, retained ${stats.recordsRetained}, " +
        s"removed ${stats.tombstonesRemoved} tombstones; checkpoint ${stats.dirtyStart} -> ${stats.nextDirtyOffset}"
    )
  }

  private def writeCheckpoints(): Unit = {
    val tmp = checkpointFile.resolveSibling("cleaner-offset-checkpoint.tmp")
    val text = checkpoints.toSeq.sortBy(_._1).map { case (tp, o) => s"$tp $o" }.mkString("", "\n", "\n")
    Files.write(tmp, text.getBytes(StandardCharsets.UTF_8))
    Files.move(tmp, checkpointFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
  }
}
