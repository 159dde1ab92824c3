package dev.streamlog.clients.consumer

import java.nio.charset.StandardCharsets
import java.util.concurrent.atomic.AtomicBoolean

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.common.{ErrorCode, Time, TopicPartition}

final case class JoinResult(error: ErrorCode, generation: Int, memberId: String, leaderId: String, protocol: String,
    members: Map[String, Array[Byte]])

/** The group requests as the consumer sends them to its coordinator broker. */
trait GroupClient {
  def joinGroup(groupId: String, memberId: String, sessionTimeoutMs: Int, rebalanceTimeoutMs: Int,
      protocols: Seq[(String, Array[Byte])]): JoinResult
  def syncGroup(groupId: String, generation: Int, memberId: String, assignments: Map[String, Array[Byte]]): (ErrorCode, Array[Byte])
  def heartbeat(groupId: String, generation: Int, memberId: String): ErrorCode
  def leaveGroup(groupId: String, memberId: String): ErrorCode
  def commitOffsets(groupId: String, generation: Int, memberId: String, offsets: Map[TopicPartition, Long]): Map[TopicPartition, ErrorCode]
  def partitionsFor(topic: String): Int
  def markCoordinatorUnknown(reason: String): Unit
}

trait RebalanceListener {
  def onPartitionsRevoked(partitions: Seq[TopicPartition]): Unit
  def onPartitionsAssigned(partitions: Seq[TopicPartition]): Unit
}

/**
 * The consumer's side of the group protocol: joins the group, computes the assignment when
 * it is the leader, syncs, and heartbeats from a background thread. A heartbeat answered
 * with REBALANCE_IN_PROGRESS makes the next poll() rejoin; ILLEGAL_GENERATION or
 * UNKNOWN_MEMBER_ID mean the coordinator dropped us, so we rejoin as a new member.
 */
final class ConsumerCoordinator(
    groupId: String,
    client: GroupClient,
    subscriptions: SubscriptionState,
    listener: RebalanceListener,
    sessionTimeoutMs: Int,
    rebalanceTimeoutMs: Int,
    heartbeatIntervalMs: Long,
    autoCommit: Boolean,
    time: Time
) extends LazyLogging {

  @volatile private var generation = -1
  @volatile private var memberId = ""
  private val rejoinNeeded = new AtomicBoolean(true)
  @volatile private var lastHeartbeatOkMs = 0L
  @volatile private var heartbeatThread: Option[Thread] = None
  @volatile private var closed = false

  def currentGeneration: Int = generation
  def currentMemberId: String = memberId

  def requestRejoin(): Unit = rejoinNeeded.set(true)

  /** Called from poll(): rejoins the group if needed. Blocks until the rebalance completed. */
  def ensureActiveGroup(): Unit = {
    if (!rejoinNeeded.get()) return
    onJoinPrepare()
    var joined = false
    while (!joined && !closed) {
      logger.info(s"(Re-)joining group $groupId")
      val result = client.joinGroup(groupId, memberId, sessionTimeoutMs, rebalanceTimeoutMs, Seq(RangeAssignor.Name -> subscriptionMetadata))
      result.error match {
        case ErrorCode.NONE =>
          memberId = result.memberId
          generation = result.generation
          logger.info(s"Successfully joined group with generation $generation")
          joined = onJoinComplete(result)
        case ErrorCode.UNKNOWN_MEMBER_ID =>
          logger.info(s"Attempt to join group $groupId failed due to unknown member id, resetting it")
          memberId = ""
        case ErrorCode.COORDINATOR_NOT_AVAILABLE | ErrorCode.NOT_COORDINATOR =>
          client.markCoordinatorUnknown(result.error.toString)
          time.sleep(100)
        case ErrorCode.REBALANCE_IN_PROGRESS =>
          logger.debug(s"Rebalance of $groupId still in progress, joining again")
        case other =>
          throw new IllegalStateException(s"Unexpected error in join group response for $groupId: $other")
      }
    }
    lastHeartbeatOkMs = time.milliseconds
    startHeartbeatThreadIfNeeded()
  }

  private def onJoinPrepare(): Unit = {
    val owned = subscriptions.assignedPartitions
    if (autoCommit && generation >= 0 && owned.nonEmpty) commitSync(subscriptions.allConsumed)
    if (owned.nonEmpty) listener.onPartitionsRevoked(owned)
  }

  /** @return false if the sync failed and the join must be repeated */
  private def onJoinComplete(join: JoinResult): Boolean = {
    val assignments =
      if (join.leaderId == memberId) performAssignment(join.members)
      else Map.empty[String, Array[Byte]]
    val (error, own) = client.syncGroup(groupId, generation, memberId, assignments)
    error match {
      case ErrorCode.NONE =>
        val partitions = decodeAssignment(own)
        subscriptions.assignFromSubscribed(partitions)
        rejoinNeeded.set(false)
        logger.info(s"Assigned partitions: ${partitions.mkString(", ")}")
        listener.onPartitionsAssigned(partitions)
        true
      case ErrorCode.REBALANCE_IN_PROGRESS =>
        logger.info(s"SyncGroup for group $groupId failed due to coordinator rebalance, rejoining")
        false
      case ErrorCode.UNKNOWN_MEMBER_ID | ErrorCode.ILLEGAL_GENERATION =>
        logger.info(s"SyncGroup for group $groupId failed due to $error, rejoining as a new member")
        resetGeneration()
        false
      case other =>
        client.markCoordinatorUnknown(other.toString)
        false
    }
  }

  private def performAssignment(members: Map[String, Array[Byte]]): Map[String, Array[Byte]] = {
    val subscriptionsByMember = members.map { case (id, meta) => id -> decodeSubscription(meta) }
    val topics = subscriptionsByMember.values.flatten.toSet
    val partitionsPerTopic = topics.map(t => t -> client.partitionsFor(t)).filter(_._2 > 0).toMap
    val assignment = RangeAssignor.assign(partitionsPerTopic, subscriptionsByMember)
    logger.debug(s"Performing assignment for group $groupId using ${RangeAssignor.Name}: $assignment")
    assignment.map { case (member, partitions) => member -> encodeAssignment(partitions) }
  }

  private def startHeartbeatThreadIfNeeded(): Unit = synchronized {
    if (heartbeatThread.isEmpty) {
      val t = new Thread(() => heartbeatLoop(), s"streamlog-coordinator-heartbeat-thread | $groupId")
      t.setDaemon(true)
      t.start()
      heartbeatThread = Some(t)
    }
  }

  private def heartbeatLoop(): Unit = {
    while (!closed) {
      time.sleep(heartbeatIntervalMs)
      if (!rejoinNeeded.get() && generation >= 0) {
        val gen = generation
        val error = client.heartbeat(groupId, gen, memberId)
        handleHeartbeatResponse(error, gen)
      }
      if (time.milliseconds - lastHeartbeatOkMs > sessionTimeoutMs)
        client.markCoordinatorUnknown("no successful heartbeat within the session timeout")
    }
  }

  private[consumer] def handleHeartbeatResponse(error: ErrorCode, gen: Int): Unit = error match {
    case ErrorCode.NONE =>
      lastHeartbeatOkMs = time.milliseconds
      logger.debug(s"Heartbeat response: NONE (generation $gen)")
    case ErrorCode.REBALANCE_IN_PROGRESS =>
      lastHeartbeatOkMs = time.milliseconds
      logger.info(s"Heartbeat response: REBALANCE_IN_PROGRESS, rejoining group $groupId")
      requestRejoin()
    case ErrorCode.ILLEGAL_GENERATION | ErrorCode.UNKNOWN_MEMBER_ID =>
      logger.info(s"Heartbeat response: $error (generation $gen), rejoining group $groupId as a new member")
      resetGeneration()
    case ErrorCode.COORDINATOR_NOT_AVAILABLE | ErrorCode.NOT_COORDINATOR =>
      client.markCoordinatorUnknown(s"heartbeat response $error")
    case other =>
      logger.warn(s"Heartbeat response: unexpected error $other for group $groupId")
  }

  private def resetGeneration(): Unit = {
    generation = -1
    memberId = ""
    requestRejoin()
  }

  /** Commits offsets; a commit from an old generation is rejected by the coordinator. */
  def commitSync(offsets: Map[TopicPartition, Long]): Unit = {
    if (offsets.isEmpty) return
    val failed = client.commitOffsets(groupId, generation, memberId, offsets).filter(_._2 != ErrorCode.NONE)
    if (failed.values.exists(e => e == ErrorCode.ILLEGAL_GENERATION || e == ErrorCode.UNKNOWN_MEMBER_ID || e == ErrorCode.REBALANCE_IN_PROGRESS)) {
      requestRejoin()
      throw new IllegalStateException(s"Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member (${failed.mkString(", ")})")
    }
    if (failed.nonEmpty) logger.warn(s"Offset commit for group $groupId failed for ${failed.mkString(", ")}")
  }

  def close(): Unit = {
    closed = true
    if (generation >= 0) {
      if (autoCommit) commitSync(subscriptions.allConsumed)
      val error = client.leaveGroup(groupId, memberId)
      logger.info(s"Member $memberId sending LeaveGroup request to coordinator: $error")
    }
    heartbeatThread.foreach(_.interrupt())
  }

  private def subscriptionMetadata: Array[Byte] =
    subscriptions.subscription.toSeq.sorted.mkString(",").getBytes(StandardCharsets.UTF_8)

  private def decodeSubscription(bytes: Array[Byte]): Set[String] =
    new String(bytes, StandardCharsets.UTF_8).split(",").filter(_.nonEmpty).toSet

  private def encodeAssignment(partitions: Seq[TopicPartition]): Array[Byte] =
    partitions.map(tp => s"${tp.topic}:${tp.partition}").mkString(",").getBytes(StandardCharsets.UTF_8)

  private def decodeAssignment(bytes: Array[Byte]): Seq[TopicPartition] =
    new String(bytes, StandardCharsets.UTF_8).split(",").toSeq.filter(_.nonEmpty).map { entry =>
      val colon = entry.lastIndexOf(':')
      TopicPartition(entry.substring(0, colon), entry.substring(colon + 1).toInt)
    }
}
