package dev.streamlog.replication

import java.util.concurrent.locks.ReentrantReadWriteLock

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.common.{ApiException, ErrorCode, Time, TopicPartition}

/** What the leader knows about one follower. */
final class FollowerState(val brokerId: Int) {
  @volatile var logEndOffset: Long = -1L
  @volatile var lastFetchTimeMs: Long = 0L
  /** When the follower last fetched up to the leader's end offset at the time of its fetch. */
  @volatile var lastCaughtUpTimeMs: Long = 0L

  override def toString: String = s"Follower($brokerId, leo=$logEndOffset, caughtUp=$lastCaughtUpTimeMs)"
}

/**
 * The leader side of a partition: the in-sync replica set and the high watermark.
 *
 * The high watermark is the smallest log end offset among the ISR; consumers read up to
 * it. A follower that has not caught up for `replica.lag.time.max.ms` is removed from the
 * ISR; one that reaches the high watermark again is added back. Produce with acks=all
 * needs at least `min.insync.replicas` in the ISR.
 */
final class Partition(
    val topicPartition: TopicPartition,
    val localBrokerId: Int,
    replicas: Seq[Int],
    minInsyncReplicas: Int,
    replicaLagTimeMaxMs: Long,
    time: Time,
    isrChanged: (TopicPartition, Set[Int]) => Unit
) extends LazyLogging {

  private val lock = new ReentrantReadWriteLock()
  private val followers: Map[Int, FollowerState] = replicas.filter(_ != localBrokerId).map(id => id -> new FollowerState(id)).toMap
  @volatile private var isr: Set[Int] = replicas.toSet
  @volatile private var highWatermark: Long = 0L
  @volatile private var leaderEpoch: Int = 0
  @volatile var leaderLogEndOffset: Long = 0L

  private def inReadLock[T](f: => T): T = { lock.readLock().lock(); try f finally lock.readLock().unlock() }
  private def inWriteLock[T](f: => T): T = { lock.writeLock().lock(); try f finally lock.writeLock().unlock() }

  def inSyncReplicas: Set[Int] = isr
  def currentHighWatermark: Long = highWatermark
  def currentLeaderEpoch: Int = leaderEpoch

  /** This broker became leader: every follower starts as caught up, so none is dropped at once. */
  def makeLeader(epoch: Int, initialIsr: Set[Int], logEndOffset: Long, hw: Long): Unit = inWriteLock {
    leaderEpoch = epoch
    isr = initialIsr
    leaderLogEndOffset = logEndOffset
    highWatermark = hw
    val now = time.milliseconds
    followers.values.foreach { f =>
      f.logEndOffset = -1L
      f.lastCaughtUpTimeMs = now
    }
    logger.info(s"$topicPartition starts at leader epoch $epoch from offset $logEndOffset with high watermark $hw. ISR ${isr.mkString("[", ",", "]")}")
  }

  /** Checked before an acks=all append is written. */
  def checkEnoughReplicasForAppend(requiredAcks: Int): Unit = inReadLock {
    if (requiredAcks == -1 && isr.size < minInsyncReplicas)
      throw new ApiException(ErrorCode.NOT_ENOUGH_REPLICAS,
        s"The size of the current ISR ${isr.mkString("[", ",", "]")} is insufficient to satisfy the min.isr requirement of $minInsyncReplicas for partition $topicPartition")
  }

  /**
   * Records a follower's fetch: the fetch offset is the follower's log end offset. May add
   * the follower to the ISR and advance the high watermark.
   */
  def updateFollowerFetchState(followerId: Int, fetchOffset: Long, fetchEpoch: Int): Unit = {
    if (fetchEpoch < leaderEpoch)
      throw new ApiException(ErrorCode.FENCED_LEADER_EPOCH, s"fetch of $followerId at epoch $fetchEpoch, current $leaderEpoch")
    val follower = followers.getOrElse(followerId,
      throw new ApiException(ErrorCode.NOT_LEADER_OR_FOLLOWER, s"broker $followerId is not a replica of $topicPartition"))
    val now = time.milliseconds
    follower.logEndOffset = fetchOffset
    follower.lastFetchTimeMs = now
    if (fetchOffset >= leaderLogEndOffset) follower.lastCaughtUpTimeMs = now
    maybeExpandIsr(follower)
    maybeIncrementHighWatermark()
  }

  private def maybeExpandIsr(follower: FollowerState): Unit = {
    val needsExpansion = inReadLock(!isr.contains(follower.brokerId) && follower.logEndOffset >= highWatermark)
    if (needsExpansion) inWriteLock {
      if (!isr.contains(follower.brokerId) && follower.logEndOffset >= highWatermark) {
        val newIsr = isr + follower.brokerId
        logger.info(s"Expanding ISR of $topicPartition from ${isr.mkString(",")} to ${newIsr.mkString(",")}")
        isr = newIsr
        isrChanged(topicPartition, newIsr)
      }
    }
  }

  /** The high watermark only moves forward; returns true if it moved. */
  def maybeIncrementHighWatermark(): Boolean = inWriteLock {
    val offsets = isr.toSeq.map { id =>
      if (id == localBrokerId) leaderLogEndOffset else followers.get(id).map(_.logEndOffset).getOrElse(-1L)
    }
    val candidate = offsets.min
    if (candidate > highWatermark) {
      highWatermark = candidate
      logger.debug(s"High watermark of $topicPartition updated to $candidate")
      true
    } else false
  }

  /** Removes followers that have not caught up within `replica.lag.time.max.ms`. Run periodically. */
  def maybeShrinkIsr(): Unit = {
    val now = time.milliseconds
    val lagging = inReadLock {
      isr.filter(_ != localBrokerId).flatMap(followers.get).filter(f => now - f.lastCaughtUpTimeMs > replicaLagTimeMaxMs)
    }
    if (lagging.nonEmpty) inWriteLock {
      val stillLagging = lagging.filter(f => isr.contains(f.brokerId) && now - f.lastCaughtUpTimeMs > replicaLagTimeMaxMs)
      if (stillLagging.nonEmpty) {
        val newIsr = isr -- stillLagging.map(_.brokerId)
        logger.info(s"Shrinking ISR of $topicPartition from ${isr.mkString(",")} to ${newIsr.mkString(",")}. " +
          s"Leader: (highWatermark: $highWatermark, endOffset: $leaderLogEndOffset). Out of sync replicas: ${stillLagging.mkString(", ")}")
        isr = newIsr
        isrChanged(topicPartition, newIsr)
        // with fewer replicas in the ISR the high watermark may be able to move (the write lock is reentrant)
        maybeIncrementHighWatermark()
      }
    }
  }

  /** Whether an acks=all produce that ended at `requiredOffset` is fully replicated. */
  def checkEnoughReplicasReachOffset(requiredOffset: Long): (Boolean, ErrorCode) = inReadLock {
    if (highWatermark >= requiredOffset) {
      if (isr.size >= minInsyncReplicas) (true, ErrorCode.NONE)
      else (true, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND)
    } else (false, ErrorCode.NONE)
  }
}
