package dev.streamlog.common

/**
 * Error codes of the wire protocol. A retriable error may succeed when the same request is
 * sent again, possibly after refreshing metadata; the others are returned to the caller.
 */
sealed abstract class ErrorCode(val code: Short, val retriable: Boolean, val message: String) {
  override def toString: String = getClass.getSimpleName.stripSuffix("$")
}

object ErrorCode {
  case object NONE extends ErrorCode(0, false, "")
  case object UNKNOWN_SERVER_ERROR extends ErrorCode(-1, false, "The server experienced an unexpected error")
  case object OFFSET_OUT_OF_RANGE extends ErrorCode(1, false, "The requested offset is not within the range of offsets maintained by the server")
  case object CORRUPT_MESSAGE extends ErrorCode(2, true, "The record batch failed its CRC check or is otherwise corrupt")
  case object UNKNOWN_TOPIC_OR_PARTITION extends ErrorCode(3, true, "This server does not host this topic-partition")
  case object LEADER_NOT_AVAILABLE extends ErrorCode(5, true, "There is no leader for this topic-partition")
  case object NOT_LEADER_OR_FOLLOWER extends ErrorCode(6, true, "This server is not the leader or a follower of that partition")
  case object REQUEST_TIMED_OUT extends ErrorCode(7, true, "The request timed out")
  case object MESSAGE_TOO_LARGE extends ErrorCode(10, false, "The request included a batch larger than the max message size")
  case object NETWORK_EXCEPTION extends ErrorCode(13, true, "The server disconnected before a response was received")
  case object COORDINATOR_NOT_AVAILABLE extends ErrorCode(15, true, "The coordinator is not available")
  case object NOT_COORDINATOR extends ErrorCode(16, true, "This is not the correct coordinator")
  case object RECORD_LIST_TOO_LARGE extends ErrorCode(18, false, "The request included a record list larger than the max size")
  case object NOT_ENOUGH_REPLICAS extends ErrorCode(19, true, "Messages are rejected since there are fewer in-sync replicas than required")
  case object NOT_ENOUGH_REPLICAS_AFTER_APPEND extends ErrorCode(20, true, "Messages are written to the log, but to fewer in-sync replicas than required")
  case object INVALID_REQUIRED_ACKS extends ErrorCode(21, false, "Produce request specified an invalid value for required acks")
  case object ILLEGAL_GENERATION extends ErrorCode(22, false, "The generation id provided in the request is not the current generation")
  case object UNKNOWN_MEMBER_ID extends ErrorCode(25, false, "The coordinator is not aware of this member")
  case object REBALANCE_IN_PROGRESS extends ErrorCode(27, false, "The group is rebalancing, so a rejoin is needed")
  case object TOPIC_AUTHORIZATION_FAILED extends ErrorCode(29, false, "Topic authorization failed")
  case object OUT_OF_ORDER_SEQUENCE_NUMBER extends ErrorCode(45, false, "The broker received an out of order sequence number")
  case object DUPLICATE_SEQUENCE_NUMBER extends ErrorCode(46, false, "The broker received a duplicate sequence number")
  case object FENCED_LEADER_EPOCH extends ErrorCode(74, true, "The leader epoch in the request is older than the epoch on the broker")

  val all: Seq[ErrorCode] = Seq(NONE, UNKNOWN_SERVER_ERROR, OFFSET_OUT_OF_RANGE, CORRUPT_MESSAGE,
    UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT, MESSAGE_TOO_LARGE,
    NETWORK_EXCEPTION, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, RECORD_LIST_TOO_LARGE, NOT_ENOUGH_REPLICAS,
    NOT_ENOUGH_REPLICAS_AFTER_APPEND, INVALID_REQUIRED_ACKS, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID,
    REBALANCE_IN_PROGRESS, TOPIC_AUTHORIZATION_FAILED, OUT_OF_ORDER_SEQUENCE_NUMBER, DUPLICATE_SEQUENCE_NUMBER,
    FENCED_LEADER_EPOCH)

  private val byCode: Map[Short, ErrorCode] = all.map(e => e.code -> e).toMap

  /** Codes from a newer peer that we do not know are treated as unknown server errors. */
  def forCode(code: Short): ErrorCode = byCode.getOrElse(code, UNKNOWN_SERVER_ERROR)
}

/** An error code carried as an exception, so it can cross a future or a callback. */
final class ApiException(val error: ErrorCode, detail: String = "")
    extends RuntimeException(if (detail.isEmpty) error.message else s"${error.message}: $detail")
