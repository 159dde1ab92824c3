package dev.streamlog.coordinator

import java.util.concurrent.locks.ReentrantLock
import scala.collection.mutable

sealed trait GroupState
case object Empty extends GroupState
case object PreparingRebalance extends GroupState
case object CompletingRebalance extends GroupState
case object Stable extends GroupState
case object Dead extends GroupState

/**
 * The state of one consumer group. Every read and write of a group happens under its lock
 * (`inLock`); request handler threads and the heartbeat timer thread both touch groups.
 */
final class GroupMetadata(val groupId: String, initialState: GroupState = Empty) {
  private[coordinator] val lock = new ReentrantLock
  private var state: GroupState = initialState
  private val members = mutable.HashMap.empty[String, MemberMetadata]

  var generationId: Int = 0
  var protocol: Option[String] = None
  var leaderId: Option[String] = None

  def inLock[T](fun: => T): T = {
    lock.lock()
    try fun
    finally lock.unlock()
  }

  def is(groupState: GroupState): Boolean = state == groupState
  def currentState: GroupState = state
  def has(memberId: String): Boolean = members.contains(memberId)
  def get(memberId: String): MemberMetadata = members(memberId)
  def allMembers: Iterable[MemberMetadata] = members.values
  def size: Int = members.size
  def isLeader(memberId: String): Boolean = leaderId.contains(memberId)

  def add(member: MemberMetadata): Unit = {
    if (members.isEmpty) protocol = None
    if (leaderId.isEmpty) leaderId = Some(member.memberId)
    members.put(member.memberId, member)
  }

  def remove(memberId: String): Unit = {
    members.remove(memberId)
    if (isLeader(memberId)) leaderId = members.keys.headOption
  }

  /** Moves the group to a new state; callers hold the group lock and check the source state. */
  def transitionTo(target: GroupState): Unit = {
    state = target
  }

  def notYetRejoinedMembers: List[MemberMetadata] = members.values.filterNot(_.isAwaitingJoin).toList

  def selectProtocol: String = {
    val candidates = members.values.map(_.supportedProtocols.map(_._1).toSet).reduce(_ intersect _)
    members.values.head.supportedProtocols.map(_._1).find(candidates).getOrElse(
      throw new IllegalStateException(s"no common protocol in group $groupId"))
  }

  def initNextGeneration(): Unit = {
    generationId += 1
    if (members.nonEmpty) {
      protocol = Some(selectProtocol)
      transitionTo(CompletingRebalance)
    } else {
      protocol = None
      transitionTo(Empty)
    }
  }

  def allMemberMetadata: Map[String, Array[Byte]] =
    members.map { case (id, m) => id -> m.metadata(protocol.get) }.toMap

  override def toString: String = s"GroupMetadata($groupId, generation=$generationId, state=$state, members=${members.keys.mkString(",")})"
}
