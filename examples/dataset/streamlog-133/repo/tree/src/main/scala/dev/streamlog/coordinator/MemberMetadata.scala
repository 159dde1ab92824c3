package dev.streamlog.coordinator

/** A member of a consumer group as the coordinator sees it. */
final class MemberMetadata(
    val memberId: String,
    val clientId: String,
    val clientHost: String,
    val sessionTimeoutMs: Int,
    val rebalanceTimeoutMs: Int,
    var supportedProtocols: List[(String, Array[Byte])]
) {
  /** Set while the member waits for the JoinGroup response of the current rebalance. */
  var awaitingJoinCallback: JoinGroupResult => Unit = _
  /** Set while the member waits for its SyncGroup response. */
  var awaitingSyncCallback: SyncGroupResult => Unit = _
  var assignment: Array[Byte] = Array.emptyByteArray
  var latestHeartbeat: Long = -1L
  var isLeaving: Boolean = false

  def isAwaitingJoin: Boolean = awaitingJoinCallback != null
  def isAwaitingSync: Boolean = awaitingSyncCallback != null

  def metadata(protocol: String): Array[Byte] =
    supportedProtocols.find(_._1 == protocol).map(_._2).getOrElse(
      throw new IllegalArgumentException(s"member $memberId does not support protocol $protocol"))

  override def toString: String = s"MemberMetadata($memberId, $clientId@$clientHost)"
}

final case class JoinGroupResult(
    members: Map[String, Array[Byte]],
    memberId: String,
    generationId: Int,
    protocol: String,
    leaderId: String,
    error: Errors
)

final case class SyncGroupResult(assignment: Array[Byte], error: Errors)

sealed trait Errors
object Errors {
  case object NONE extends Errors
  case object UNKNOWN_MEMBER_ID extends Errors
  case object ILLEGAL_GENERATION extends Errors
  case object REBALANCE_IN_PROGRESS extends Errors
  case object COORDINATOR_NOT_AVAILABLE extends Errors
  case object INCONSISTENT_GROUP_PROTOCOL extends Errors
}
