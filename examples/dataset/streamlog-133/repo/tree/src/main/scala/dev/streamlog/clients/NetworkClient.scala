package dev.streamlog.clients

import java.nio.ByteBuffer
import java.util.concurrent.ThreadLocalRandom
import scala.collection.mutable

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.common.Time
import dev.streamlog.network.{ApiKeys, RequestHeader}

final case class Node(id: Int, host: String, port: Int) {
  override def toString: String = s"$host:$port (id: $id)"
}

/** The sockets under the client; the broker's SocketServer is on the other side. */
trait Transport {
  def connect(node: Node): Unit
  def isConnected(node: Node): Boolean
  def send(node: Node, payload: ByteBuffer): Unit
  /** Completed receives as (node, payload), and the nodes whose connection broke. */
  def poll(timeoutMs: Long): (Seq[(Node, ByteBuffer)], Seq[Node])
  def close(node: Node): Unit
}

final case class ClientResponse(request: ClientRequest, body: Option[ByteBuffer], disconnected: Boolean, timedOut: Boolean)

final class ClientRequest(val node: Node, val header: RequestHeader, val body: ByteBuffer, val createdMs: Long,
    val expectResponse: Boolean, val callback: ClientResponse => Unit) {
  override def toString: String = s"ClientRequest(${header.apiKey}, correlationId=${header.correlationId}, node=$node)"
}

/**
 * Request/response over a Transport for producers, consumers and admin clients. Keeps at
 * most `maxInFlightPerConnection` unanswered requests per broker (responses come back in
 * order), reconnects with exponential backoff, and fails requests that wait longer than
 * `requestTimeoutMs` by closing their connection.
 */
final class NetworkClient(
    transport: Transport,
    clientId: String,
    maxInFlightPerConnection: Int,
    reconnectBackoffMs: Long,
    reconnectBackoffMaxMs: Long,
    requestTimeoutMs: Long,
    time: Time
) extends LazyLogging {
  import NetworkClient._

  private val states = mutable.Map.empty[Int, ConnectionState]
  private val inFlight = mutable.Map.empty[Int, mutable.Queue[ClientRequest]]
  private var correlation = 0

  def nextCorrelationId(): Int = { correlation += 1; correlation }

  def newHeader(apiKey: ApiKeys, version: Short): RequestHeader = RequestHeader(apiKey, version, nextCorrelationId(), clientId)

  /** Backoff after `failures` failed attempts: doubling from the base, capped, with 20% jitter. */
  private def backoffMs(failures: Int): Long = {
    val exp = math.min(reconnectBackoffMaxMs.toDouble, reconnectBackoffMs * math.pow(2, math.max(0, failures - 1)))
    val jitter = 0.8 + ThreadLocalRandom.current().nextDouble() * 0.4
    (exp * jitter).toLong
  }

  /** Whether a request can be sent to the node now; starts connecting if allowed. */
  def ready(node: Node, nowMs: Long): Boolean = states.getOrElse(node.id, Disconnected(0L, 0)) match {
    case Ready => transport.isConnected(node) && inFlight.get(node.id).forall(_.size < maxInFlightPerConnection)
    case Connecting =>
      if (transport.isConnected(node)) { states(node.id) = Ready; true } else false
    case Disconnected(since, failures) if failures == 0 || nowMs - since >= backoffMs(failures) =>
      logger.debug(s"Initiating connection to node $node")
      states(node.id) = Connecting
      transport.connect(node)
      false
    case _ => false
  }

  /** Milliseconds until a connection attempt to the node is allowed. */
  def connectionDelay(node: Node, nowMs: Long): Long = states.get(node.id) match {
    case Some(Disconnected(since, failures)) if failures > 0 => math.max(0L, since + backoffMs(failures) - nowMs)
    case Some(Connecting) => Long.MaxValue
    case _ => 0L
  }

  def send(request: ClientRequest): Unit = {
    if (!ready(request.node, time.milliseconds))
      throw new IllegalStateException(s"Attempt to send a request to node ${request.node} which is not ready.")
    val payload = ByteBuffer.allocate(request.header.sizeInBytes + request.body.remaining())
    request.header.writeTo(payload)
    payload.put(request.body.duplicate())
    payload.flip()
    transport.send(request.node, payload)
    if (request.expectResponse) inFlight.getOrElseUpdate(request.node.id, mutable.Queue.empty).enqueue(request)
    else request.callback(ClientResponse(request, None, disconnected = false, timedOut = false))
  }

  /** Does network I/O for up to `timeoutMs` and runs the callbacks of completed requests. */
  def poll(timeoutMs: Long): Unit = {
    val (receives, broken) = transport.poll(timeoutMs)
    val now = time.milliseconds
    for ((node, payload) <- receives) {
      val queue = inFlight.getOrElse(node.id, mutable.Queue.empty)
      if (queue.isEmpty) {
        logger.warn(s"Received a response from node $node with no request in flight; closing the connection")
        disconnect(node, now, failed = false)
      } else {
        val request = queue.dequeue()
        val correlationId = payload.getInt()
        if (correlationId != request.header.correlationId)
          throw new IllegalStateException(s"Correlation id for response ($correlationId) does not match request (${request.header.correlationId}), request header: ${request.header}")
        request.callback(ClientResponse(request, Some(payload.slice()), disconnected = false, timedOut = false))
      }
    }
    broken.foreach(node => disconnect(node, now, failed = true))
    for ((nodeId, queue) <- inFlight.toSeq if queue.exists(r => now - r.createdMs > requestTimeoutMs)) {
      val node = queue.head.node
      logger.info(s"Disconnecting from node $node due to request timeout.")
      disconnect(node, now, failed = true, timedOut = true)
    }
  }

  private def disconnect(node: Node, nowMs: Long, failed: Boolean, timedOut: Boolean = false): Unit = {
    transport.close(node)
    val failures = states.get(node.id) match {
      case Some(Disconnected(_, n)) => n + 1
      case Some(Connecting) => 1
      case _ => if (failed) 1 else 0
    }
    states(node.id) = Disconnected(nowMs, failures)
    for (request <- inFlight.remove(node.id).getOrElse(mutable.Queue.empty)) {
      if (!timedOut) logger.debug(s"Cancelled in-flight ${request.header.apiKey} request with correlation id ${request.header.correlationId} due to node ${node.id} being disconnected")
      request.callback(ClientResponse(request, None, disconnected = true, timedOut = timedOut))
    }
  }

  def inFlightCount: Int = inFlight.values.map(_.size).sum
}

object NetworkClient {
  private sealed trait ConnectionState
  private case object Connecting extends ConnectionState
  private case object Ready extends ConnectionState
  private final case class Disconnected(sinceMs: Long, failures: Int) extends ConnectionState
}
