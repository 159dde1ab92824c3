package dev.streamlog.network

import java.net.InetAddress
import java.nio.ByteBuffer
import java.util.concurrent.{ArrayBlockingQueue, ConcurrentHashMap, LinkedBlockingDeque, TimeUnit}

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.metrics.Metrics

object RequestChannel {

  /** A request read by a processor, waiting for a handler thread. */
  final class Request(
      val processor: Int,
      val connectionId: String,
      val clientAddress: InetAddress,
      val header: RequestHeader,
      val body: ByteBuffer,
      val startTimeNanos: Long
  ) {
    @volatile var dequeueTimeNanos: Long = -1L

    override def toString: String =
      s"Request(processor=$processor, connectionId=$connectionId, api=${header.apiKey}, " +
        s"correlationId=${header.correlationId}, clientId=${header.clientId})"
  }

  sealed trait Response { def request: Request }

  /** Send this payload back on the request's connection, then unmute it. */
  final case class SendResponse(request: Request, payload: ByteBuffer) extends Response

  /** Nothing to send (acks=0 produce); the connection is unmuted. */
  final case class NoOpResponse(request: Request) extends Response

  /** Close the connection, e.g. after a request that could not be parsed. */
  final case class CloseConnectionResponse(request: Request) extends Response
}

/**
 * Hands requests from the network processors to the handler pool and responses back.
 * The request queue is bounded (`queued.max.requests`): when it is full, processors block,
 * which stops reading from sockets and pushes back on clients.
 */
final class RequestChannel(queueSize: Int, metrics: Metrics) extends LazyLogging {
  import RequestChannel._

  private val requestQueue = new ArrayBlockingQueue[Request](queueSize)
  private val responseQueues = new ConcurrentHashMap[Int, LinkedBlockingDeque[Response]]()
  private val queueTime = metrics.sensor("request-queue-time-ms")
  private val totalTime = metrics.sensor("request-total-time-ms")

  metrics.gauge("request-queue-size", () => requestQueue.size.toDouble)

  def registerProcessor(id: Int): LinkedBlockingDeque[Response] =
    responseQueues.computeIfAbsent(id, _ => new LinkedBlockingDeque[Response]())

  def sendRequest(request: Request): Unit = requestQueue.put(request)

  /** Takes the next request for a handler thread, or None after the timeout. */
  def receiveRequest(timeoutMs: Long): Option[Request] = {
    val request = requestQueue.poll(timeoutMs, TimeUnit.MILLISECONDS)
    if (request != null) {
      request.dequeueTimeNanos = System.nanoTime()
      queueTime.record((request.dequeueTimeNanos - request.startTimeNanos) / 1e6)
    }
    Option(request)
  }

  def sendResponse(response: Response): Unit = {
    val queue = responseQueues.get(response.request.processor)
    if (queue == null) {
      // the processor shut down; the connection is gone with it
      logger.debug(s"Dropping response to ${response.request}: processor ${response.request.processor} is gone")
    } else {
      totalTime.record((System.nanoTime() - response.request.startTimeNanos) / 1e6)
      queue.put(response)
    }
  }

  def clear(): Unit = requestQueue.clear()
}
