package dev.streamlog.coordinator

import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

import com.typesafe.scalalogging.LazyLogging

/**
 * The group coordinator: runs the join/sync protocol of consumer groups.
 *
 * JoinGroup requests gather the members of a new generation; the leader computes the
 * partition assignment on the client and sends it with its SyncGroup; every member gets its
 * share in its SyncGroup response. Members that stop heartbeating are removed by the
 * heartbeat timer thread, which triggers a new rebalance.
 */
final class GroupCoordinator(heartbeats: HeartbeatTimer, time: () => Long) extends LazyLogging {

  private val groups = new ConcurrentHashMap[String, GroupMetadata]()

  def group(groupId: String): Option[GroupMetadata] = Option(groups.get(groupId))

  def handleJoinGroup(
      groupId: String,
      memberId: String,
      clientId: String,
      clientHost: String,
      sessionTimeoutMs: Int,
      rebalanceTimeoutMs: Int,
      protocols: List[(String, Array[Byte])],
      responseCallback: JoinGroupResult => Unit
  ): Unit = {
    val group = groups.computeIfAbsent(groupId, id => new GroupMetadata(id))
    group.inLock {
      if (memberId.nonEmpty && !group.has(memberId)) {
        responseCallback(JoinGroupResult(Map.empty, memberId, -1, "", "", Errors.UNKNOWN_MEMBER_ID))
      } else {
        val member =
          if (memberId.isEmpty) {
            val newMemberId = s"$clientId-${UUID.randomUUID()}"
            val m = new MemberMetadata(newMemberId, clientId, clientHost, sessionTimeoutMs, rebalanceTimeoutMs, protocols)
            group.add(m)
            logger.info(s"Added member $newMemberId to group $groupId with ${group.size} members")
            m
          } else {
            val m = group.get(memberId)
            m.supportedProtocols = protocols
            m
          }
        member.awaitingJoinCallback = responseCallback
        completeHeartbeat(group, member)
        if (!group.is(PreparingRebalance)) prepareRebalance(group, s"member ${member.memberId} joined")
        maybeCompleteJoin(group)
      }
    }
  }

  def handleSyncGroup(
      groupId: String,
      generation: Int,
      memberId: String,
      groupAssignment: Map[String, Array[Byte]],
      responseCallback: SyncGroupResult => Unit
  ): Unit = {
    group(groupId) match {
      case None =>
        responseCallback(SyncGroupResult(Array.emptyByteArray, Errors.UNKNOWN_MEMBER_ID))
      case Some(group) =>
        if (!group.has(memberId))
          responseCallback(SyncGroupResult(Array.emptyByteArray, Errors.UNKNOWN_MEMBER_ID))
        else if (generation != group.generationId)
          responseCallback(SyncGroupResult(Array.emptyByteArray, Errors.ILLEGAL_GENERATION))
        else
          group.inLock(doSyncGroup(group, memberId, groupAssignment, responseCallback))
    }
  }

  private def doSyncGroup(
      group: GroupMetadata,
      memberId: String,
      groupAssignment: Map[String, Array[Byte]],
      responseCallback: SyncGroupResult => Unit
  ): Unit = {
    group.currentState match {
      case Empty | Dead =>
        responseCallback(SyncGroupResult(Array.emptyByteArray, Errors.UNKNOWN_MEMBER_ID))
      case PreparingRebalance =>
        responseCallback(SyncGroupResult(Array.emptyByteArray, Errors.REBALANCE_IN_PROGRESS))
      case CompletingRebalance =>
        group.get(memberId).awaitingSyncCallback = responseCallback
        if (group.isLeader(memberId)) {
          logger.info(s"Assignment received from leader $memberId for group ${group.groupId} for generation ${group.generationId}")
          for (member <- group.allMembers) {
            member.assignment = groupAssignment.getOrElse(member.memberId, Array.emptyByteArray)
            if (member.isAwaitingSync) {
              member.awaitingSyncCallback(SyncGroupResult(member.assignment, Errors.NONE))
              member.awaitingSyncCallback = null
            }
            completeHeartbeat(group, member)
          }
          group.transitionTo(Stable)
          logger.info(s"Stabilized group ${group.groupId} generation ${group.generationId} with ${group.size} members")
        }
      case Stable =>
        val member = group.get(memberId)
        responseCallback(SyncGroupResult(member.assignment, Errors.NONE))
        completeHeartbeat(group, member)
    }
  }

  def handleHeartbeat(groupId: String, memberId: String, generation: Int): Errors = {
    group(groupId) match {
      case None => Errors.UNKNOWN_MEMBER_ID
      case Some(group) =>
        group.inLock {
          if (!group.has(memberId)) Errors.UNKNOWN_MEMBER_ID
          else if (generation != group.generationId) Errors.ILLEGAL_GENERATION
          else {
            completeHeartbeat(group, group.get(memberId))
            if (group.is(PreparingRebalance)) Errors.REBALANCE_IN_PROGRESS else Errors.NONE
          }
        }
    }
  }

  def handleLeaveGroup(groupId: String, memberId: String): Errors = {
    group(groupId) match {
      case None => Errors.UNKNOWN_MEMBER_ID
      case Some(group) =>
        group.inLock {
          if (!group.has(memberId)) Errors.UNKNOWN_MEMBER_ID
          else {
            val member = group.get(memberId)
            member.isLeaving = true
            heartbeats.cancel(group.groupId, memberId)
            removeMemberAndUpdateGroup(group, member, "left the group")
            Errors.NONE
          }
        }
    }
  }

  /** Called by the heartbeat timer thread when a member's session timed out. */
  def onExpireHeartbeat(group: GroupMetadata, memberId: String, heartbeatDeadline: Long): Unit = {
    if (group.has(memberId)) {
      val member = group.get(memberId)
      if (member.latestHeartbeat + member.sessionTimeoutMs <= heartbeatDeadline) {
        logger.info(s"Member $memberId in group ${group.groupId} has failed, removing it from the group")
        removeMemberAndUpdateGroup(group, member, "session timed out")
      }
    }
  }

  private def removeMemberAndUpdateGroup(group: GroupMetadata, member: MemberMetadata, reason: String): Unit = {
    group.remove(member.memberId)
    group.currentState match {
      case Dead | Empty =>
      case Stable | CompletingRebalance => prepareRebalance(group, s"removing member ${member.memberId} ($reason)")
      case PreparingRebalance => maybeCompleteJoin(group)
    }
  }

  private def prepareRebalance(group: GroupMetadata, reason: String): Unit = {
    // Members waiting for their assignment must rejoin.
    for (member <- group.allMembers if member.isAwaitingSync) {
      member.awaitingSyncCallback(SyncGroupResult(Array.emptyByteArray, Errors.REBALANCE_IN_PROGRESS))
      member.awaitingSyncCallback = null
    }
    group.transitionTo(PreparingRebalance)
    logger.info(s"Preparing to rebalance group ${group.groupId} in state ${group.currentState} with old generation ${group.generationId} (reason: $reason)")
  }

  private def maybeCompleteJoin(group: GroupMetadata): Unit = {
    if (group.is(PreparingRebalance) && group.notYetRejoinedMembers.isEmpty) {
      group.initNextGeneration()
      if (group.is(Empty)) {
        logger.info(s"Group ${group.groupId} with generation ${group.generationId} is now empty")
      } else {
        logger.info(s"Stabilizing group ${group.groupId} generation ${group.generationId} (${group.size} members)")
        val allMetadata = group.allMemberMetadata
        for (member <- group.allMembers) {
          val members = if (group.isLeader(member.memberId)) allMetadata else Map.empty[String, Array[Byte]]
          member.awaitingJoinCallback(JoinGroupResult(members, member.memberId, group.generationId,
            group.protocol.get, group.leaderId.get, Errors.NONE))
          member.awaitingJoinCallback = null
          completeHeartbeat(group, member)
        }
      }
    }
  }

  private def completeHeartbeat(group: GroupMetadata, member: MemberMetadata): Unit = {
    member.latestHeartbeat = time()
    heartbeats.schedule(group, member.memberId, member.latestHeartbeat + member.sessionTimeoutMs)
  }
}
