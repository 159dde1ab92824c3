package dev.streamlog.network

/** The request types of the protocol with the versions this broker understands. */
sealed abstract class ApiKeys(val id: Short, val name: String, val minVersion: Short, val maxVersion: Short) {
  def isVersionSupported(version: Short): Boolean = version >= minVersion && version <= maxVersion
  override def toString: String = name
}

object ApiKeys {
  case object Produce extends ApiKeys(0, "Produce", 3, 9)
  case object Fetch extends ApiKeys(1, "Fetch", 4, 12)
  case object ListOffsets extends ApiKeys(2, "ListOffsets", 1, 6)
  case object Metadata extends ApiKeys(3, "Metadata", 1, 11)
  case object OffsetCommit extends ApiKeys(8, "OffsetCommit", 2, 8)
  case object OffsetFetch extends ApiKeys(9, "OffsetFetch", 1, 7)
  case object FindCoordinator extends ApiKeys(10, "FindCoordinator", 0, 3)
  case object JoinGroup extends ApiKeys(11, "JoinGroup", 0, 7)
  case object Heartbeat extends ApiKeys(12, "Heartbeat", 0, 4)
  case object LeaveGroup extends ApiKeys(13, "LeaveGroup", 0, 4)
  case object SyncGroup extends ApiKeys(14, "SyncGroup", 0, 5)
  case object DescribeGroups extends ApiKeys(15, "DescribeGroups", 0, 5)
  case object ApiVersions extends ApiKeys(18, "ApiVersions", 0, 3)
  case object CreateTopics extends ApiKeys(19, "CreateTopics", 0, 7)
  case object DeleteTopics extends ApiKeys(20, "DeleteTopics", 0, 6)

  val all: Seq[ApiKeys] = Seq(Produce, Fetch, ListOffsets, Metadata, OffsetCommit, OffsetFetch, FindCoordinator,
    JoinGroup, Heartbeat, LeaveGroup, SyncGroup, DescribeGroups, ApiVersions, CreateTopics, DeleteTopics)

  private val byId = all.map(k => k.id -> k).toMap

  def forId(id: Short): Option[ApiKeys] = byId.get(id)

  /** Requests answered by the group coordinator; routed to the coordinator's handler pool. */
  val groupApis: Set[ApiKeys] = Set(JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, DescribeGroups)
}
