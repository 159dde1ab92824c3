package dev.streamlog.replication

import java.io.IOException
import java.nio.ByteBuffer
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.locks.ReentrantLock
import scala.collection.mutable

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.common.{ErrorCode, Time, TopicPartition}

sealed trait ReplicaState
case object Truncating extends ReplicaState
case object Fetching extends ReplicaState

/** Where a follower fetches a partition from, and whether it is backing off. */
final case class PartitionFetchState(fetchOffset: Long, leaderEpoch: Int, state: ReplicaState, delayUntilMs: Long = 0L) {
  def isReadyForFetch(nowMs: Long): Boolean = state == Fetching && nowMs >= delayUntilMs
  def isTruncating(nowMs: Long): Boolean = state == Truncating && nowMs >= delayUntilMs
}

final case class FetchPartitionData(error: ErrorCode, highWatermark: Long, logStartOffset: Long, records: ByteBuffer)

/** The leader as the follower reaches it; implemented over the network client. */
trait LeaderEndpoint {
  def fetch(partitions: Map[TopicPartition, PartitionFetchState], maxBytes: Int): Map[TopicPartition, FetchPartitionData]
  def earliestOffset(tp: TopicPartition, leaderEpoch: Int): Long
  def latestOffset(tp: TopicPartition, leaderEpoch: Int): Long
  /** The leader's end offset for `epoch`: the start offset of the first later epoch. */
  def endOffsetForEpoch(tp: TopicPartition, epoch: Int): (Int, Long)
}

/** The follower's local logs. */
trait ReplicaLog {
  def logEndOffset(tp: TopicPartition): Long
  def latestEpoch(tp: TopicPartition): Option[Int]
  /** Appends fetched batches as they are (offsets assigned by the leader); returns the new end offset. */
  def appendAsFollower(tp: TopicPartition, records: ByteBuffer): Long
  def truncateTo(tp: TopicPartition, offset: Long): Unit
  def truncateFullyAndStartAt(tp: TopicPartition, offset: Long): Unit
  def updateHighWatermark(tp: TopicPartition, hw: Long): Unit
  def updateLogStartOffset(tp: TopicPartition, offset: Long): Unit
}

/**
 * Replicates the partitions this broker follows from one leader broker. Each partition is
 * first truncated to the point where its log agrees with the leader's (by leader epoch),
 * then fetched continuously. Errors for one partition delay only that partition.
 */
final class ReplicaFetcherThread(
    name: String,
    val sourceBrokerId: Int,
    leader: LeaderEndpoint,
    log: ReplicaLog,
    fetchMaxBytes: Int,
    fetchBackoffMs: Long,
    time: Time
) extends Thread(name) with LazyLogging {

  private val partitionStates = mutable.LinkedHashMap.empty[TopicPartition, PartitionFetchState]
  private val lock = new ReentrantLock()
  private val running = new AtomicBoolean(true)

  private def inLock[T](f: => T): T = { lock.lock(); try f finally lock.unlock() }

  def addPartitions(initial: Map[TopicPartition, (Long, Int)]): Unit = inLock {
    for ((tp, (offset, epoch)) <- initial) {
      // a partition added again (new leader epoch) starts over with truncation
      partitionStates(tp) = PartitionFetchState(offset, epoch, Truncating)
    }
    logger.info(s"[$name] Added fetcher for partitions ${initial.keys.mkString(", ")}")
  }

  def removePartitions(tps: Set[TopicPartition]): Unit = inLock {
    tps.foreach(partitionStates.remove)
  }

  def partitionCount: Int = inLock(partitionStates.size)

  override def run(): Unit = {
    logger.info(s"[$name] Starting")
    while (running.get()) {
      try doWork()
      catch {
        case _: InterruptedException if !running.get() =>
        case e: Throwable => logger.error(s"[$name] Error in fetcher loop", e); time.sleep(fetchBackoffMs)
      }
    }
    logger.info(s"[$name] Stopped")
  }

  def shutdown(): Unit = {
    running.set(false)
    interrupt()
    join()
  }

  private[replication] def doWork(): Unit = {
    maybeTruncate()
    val now = time.milliseconds
    val ready = inLock(partitionStates.filter { case (_, s) => s.isReadyForFetch(now) }.toMap)
    if (ready.isEmpty) {
      time.sleep(fetchBackoffMs)
      return
    }
    val responses =
      try leader.fetch(ready, fetchMaxBytes)
      catch {
        case e: IOException =>
          logger.warn(s"[$name] Error in response for fetch request to broker $sourceBrokerId: ${e.getMessage}")
          delayPartitions(ready.keySet)
          return
      }
    for ((tp, data) <- responses) processPartitionData(tp, ready(tp), data)
  }

  private def processPartitionData(tp: TopicPartition, requested: PartitionFetchState, data: FetchPartitionData): Unit = {
    // the partition may have been removed or re-added while the fetch was in flight
    val current = inLock(partitionStates.get(tp))
    if (!current.contains(requested)) return
    data.error match {
      case ErrorCode.NONE =>
        val newEnd = if (data.records.hasRemaining) log.appendAsFollower(tp, data.records) else requested.fetchOffset
        log.updateHighWatermark(tp, math.min(data.highWatermark, newEnd))
        log.updateLogStartOffset(tp, data.logStartOffset)
        updateState(tp, requested, requested.copy(fetchOffset = newEnd))
      case ErrorCode.OFFSET_OUT_OF_RANGE =>
        val newOffset = handleOffsetOutOfRange(tp, requested)
        updateState(tp, requested, requested.copy(fetchOffset = newOffset))
      case ErrorCode.NOT_LEADER_OR_FOLLOWER | ErrorCode.FENCED_LEADER_EPOCH | ErrorCode.UNKNOWN_TOPIC_OR_PARTITION =>
        logger.info(s"[$name] Remote broker is not the leader for partition $tp (${data.error}), which could indicate that the partition is being moved")
        delayPartitions(Set(tp))
      case other =>
        logger.error(s"[$name] Error for partition $tp at offset ${requested.fetchOffset}: $other")
        delayPartitions(Set(tp))
    }
  }

  /**
   * The fetch offset is outside the leader's log. If the leader's log ends before ours (an
   * unclean leader election), truncate to its end; otherwise our log is behind the leader's
   * start (retention deleted what we still need), so start over at the leader's start.
   */
  private def handleOffsetOutOfRange(tp: TopicPartition, state: PartitionFetchState): Long = {
    val localEnd = log.logEndOffset(tp)
    val leaderEnd = leader.latestOffset(tp, state.leaderEpoch)
    if (leaderEnd < localEnd) {
      logger.warn(s"[$name] Reset fetch offset for partition $tp from $localEnd to current leader $sourceBrokerId's latest offset $leaderEnd")
      log.truncateTo(tp, leaderEnd)
      leaderEnd
    } else {
      val leaderStart = leader.earliestOffset(tp, state.leaderEpoch)
      logger.warn(s"[$name] Reset fetch offset for partition $tp from $localEnd to current leader $sourceBrokerId's start offset $leaderStart")
      if (leaderStart > localEnd) log.truncateFullyAndStartAt(tp, leaderStart)
      math.max(leaderStart, localEnd)
    }
  }

  /** Truncates every partition in Truncating to where it diverges from the leader, then fetches. */
  private def maybeTruncate(): Unit = {
    val now = time.milliseconds
    val truncating = inLock(partitionStates.filter { case (_, s) => s.isTruncating(now) }.toMap)
    for ((tp, state) <- truncating) {
      try {
        val localEnd = log.logEndOffset(tp)
        val target = log.latestEpoch(tp) match {
          case None => localEnd
          case Some(epoch) =>
            val (leaderEpoch, leaderEndOffset) = leader.endOffsetForEpoch(tp, epoch)
            if (leaderEpoch < 0) localEnd else math.min(leaderEndOffset, localEnd)
        }
        if (target < localEnd) {
          logger.info(s"[$name] Truncating partition $tp to offset $target (local end offset $localEnd)")
          log.truncateTo(tp, target)
        }
        updateState(tp, state, PartitionFetchState(target, state.leaderEpoch, Fetching))
      } catch {
        case e: IOException =>
          logger.warn(s"[$name] Could not get the end offset for the epoch of $tp from broker $sourceBrokerId: ${e.getMessage}")
          delayPartitions(Set(tp))
      }
    }
  }

  private def updateState(tp: TopicPartition, expected: PartitionFetchState, next: PartitionFetchState): Unit = inLock {
    if (partitionStates.get(tp).contains(expected)) partitionStates(tp) = next
  }

  private def delayPartitions(tps: Set[TopicPartition]): Unit = inLock {
    val until = time.milliseconds + fetchBackoffMs
    for (tp <- tps; state <- partitionStates.get(tp)) partitionStates(tp) = state.copy(delayUntilMs = until)
  }
}
