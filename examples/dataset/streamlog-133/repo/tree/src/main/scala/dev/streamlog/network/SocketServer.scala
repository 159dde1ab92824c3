package dev.streamlog.network

import java.io.IOException
import java.net.{InetAddress, InetSocketAddress}
import java.nio.channels.{SelectionKey, Selector, ServerSocketChannel, SocketChannel}
import java.util.concurrent.{ConcurrentLinkedQueue, CountDownLatch}
import java.util.concurrent.atomic.AtomicBoolean
import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.typesafe.scalalogging.LazyLogging
import dev.streamlog.common.Time
import dev.streamlog.metrics.Metrics

final class TooManyConnectionsException(val ip: InetAddress, val count: Int)
    extends IOException(s"Too many connections from $ip (maximum = $count)")

/** Counts open connections per client address and refuses new ones above the limit. */
final class ConnectionQuotas(defaultMax: Int, overrides: Map[String, Int]) {
  private val counts = mutable.Map.empty[InetAddress, Int]

  private def maxFor(ip: InetAddress): Int =
    overrides.get(ip.getHostAddress).orElse(overrides.get(ip.getHostName)).getOrElse(defaultMax)

  def inc(ip: InetAddress): Unit = counts.synchronized {
    val count = counts.getOrElse(ip, 0) + 1
    val max = maxFor(ip)
    if (count > max) throw new TooManyConnectionsException(ip, max)
    counts(ip) = count
  }

  def dec(ip: InetAddress): Unit = counts.synchronized {
    counts.get(ip) match {
      case Some(1) => counts.remove(ip)
      case Some(n) => counts(ip) = n - 1
      case None => throw new IllegalArgumentException(s"Attempted to decrease connection count for address with no connections, address: $ip")
    }
  }

  def get(ip: InetAddress): Int = counts.synchronized(counts.getOrElse(ip, 0))
}

/**
 * The broker's network layer: one acceptor and `num.network.threads` processors per
 * listener. A processor owns its connections: it reads one request at a time per
 * connection (the connection is muted until the response is sent, which keeps responses in
 * request order) and writes responses from its response queue.
 */
final class SocketServer(
    endpoint: InetSocketAddress,
    numProcessors: Int,
    maxRequestSize: Int,
    connectionsMaxIdleMs: Long,
    quotas: ConnectionQuotas,
    val requestChannel: RequestChannel,
    metrics: Metrics,
    time: Time
) extends LazyLogging {

  private val processors = (0 until numProcessors).map(id => new Processor(id))
  private val acceptor = new Acceptor
  private val running = new AtomicBoolean(false)

  def startup(): Unit = {
    running.set(true)
    processors.foreach(p => new Thread(p, s"network-thread-${p.id}").start())
    new Thread(acceptor, s"acceptor-${endpoint.getPort}").start()
    logger.info(s"Started socket server on $endpoint with $numProcessors processors")
  }

  def shutdown(): Unit = {
    running.set(false)
    acceptor.awaitShutdown()
    processors.foreach(_.awaitShutdown())
    requestChannel.clear()
    logger.info("Shut down socket server")
  }

  def boundPort: Int = acceptor.serverChannel.socket().getLocalPort

  private final class Acceptor extends Runnable {
    val serverChannel: ServerSocketChannel = {
      val channel = ServerSocketChannel.open()
      channel.configureBlocking(false)
      channel.socket().bind(endpoint)
      channel
    }
    private val selector = Selector.open()
    private val shutdownLatch = new CountDownLatch(1)
    private var nextProcessor = 0

    override def run(): Unit = {
      serverChannel.register(selector, SelectionKey.OP_ACCEPT)
      try {
        while (running.get()) {
          if (selector.select(500) > 0) {
            val keys = selector.selectedKeys().iterator()
            while (keys.hasNext) {
              keys.next()
              keys.remove()
              accept()
            }
          }
        }
      } finally {
        serverChannel.close()
        selector.close()
        shutdownLatch.countDown()
      }
    }

    private def accept(): Unit = {
      val channel = serverChannel.accept()
      if (channel == null) return
      val ip = channel.socket().getInetAddress
      try {
        quotas.inc(ip)
        channel.configureBlocking(false)
        channel.socket().setTcpNoDelay(true)
        channel.socket().setKeepAlive(true)
        processors(nextProcessor).accept(channel)
        nextProcessor = (nextProcessor + 1) % processors.size
      } catch {
        case e: TooManyConnectionsException =>
          logger.info(s"Rejected connection from ${e.ip}, address already has the configured maximum of ${e.count} connections.")
          metrics.sensor("connections-rejected").record(1.0)
          channel.close()
      }
    }

    def awaitShutdown(): Unit = {
      selector.wakeup()
      shutdownLatch.await()
    }
  }

  private final class Connection(val id: String, val channel: SocketChannel, val key: SelectionKey) {
    var receive: NetworkReceive = new NetworkReceive(id, maxRequestSize)
    var send: NetworkSend = _
    var muted = false
    var lastActivityMs: Long = time.milliseconds
  }

  private[network] final class Processor(val id: Int) extends Runnable {
    private val selector = Selector.open()
    private val newConnections = new ConcurrentLinkedQueue[SocketChannel]()
    private val responseQueue = requestChannel.registerProcessor(id)
    private val connections = mutable.Map.empty[String, Connection]
    private val shutdownLatch = new CountDownLatch(1)

    def accept(channel: SocketChannel): Unit = {
      newConnections.add(channel)
      selector.wakeup()
    }

    override def run(): Unit = {
      try {
        while (running.get()) {
          try {
            configureNewConnections()
            processResponses()
            poll()
            closeIdleConnections()
          } catch {
            case NonFatal(e) => logger.error(s"Processor $id got an uncaught exception", e)
          }
        }
      } finally {
        connections.values.toList.foreach(close)
        selector.close()
        shutdownLatch.countDown()
      }
    }

    private def configureNewConnections(): Unit = {
      var channel = newConnections.poll()
      while (channel != null) {
        val socket = channel.socket()
        val connectionId = s"${socket.getLocalAddress.getHostAddress}:${socket.getLocalPort}-" +
          s"${socket.getInetAddress.getHostAddress}:${socket.getPort}"
        val key = channel.register(selector, SelectionKey.OP_READ)
        connections(connectionId) = new Connection(connectionId, channel, key)
        channel = newConnections.poll()
      }
    }

    private def processResponses(): Unit = {
      var response = responseQueue.poll()
      while (response != null) {
        connections.get(response.request.connectionId) match {
          case None =>
            logger.debug(s"Connection ${response.request.connectionId} is gone, dropping response to ${response.request}")
          case Some(conn) =>
            response match {
              case RequestChannel.SendResponse(_, payload) =>
                conn.send = new NetworkSend(conn.id, payload)
                conn.key.interestOps(SelectionKey.OP_WRITE)
              case RequestChannel.NoOpResponse(_) =>
                unmute(conn)
              case RequestChannel.CloseConnectionResponse(request) =>
                logger.debug(s"Closing connection for client ${request.header.clientId} as requested by the handler")
                close(conn)
            }
        }
        response = responseQueue.poll()
      }
    }

    private def poll(): Unit = {
      if (selector.select(300) == 0) return
      val keys = selector.selectedKeys().asScala.toList
      selector.selectedKeys().clear()
      for (key <- keys; conn <- connections.values.find(_.key == key)) {
        try {
          if (key.isReadable && !conn.muted) read(conn)
          if (key.isValid && key.isWritable && conn.send != null) write(conn)
        } catch {
          case e: IOException =>
            logger.debug(s"Connection ${conn.id} failed: ${e.getMessage}")
            close(conn)
        }
      }
    }

    private def read(conn: Connection): Unit = {
      conn.receive.readFrom(conn.channel)
      conn.lastActivityMs = time.milliseconds
      if (conn.receive.complete) {
        val buffer = conn.receive.payloadBuffer
        conn.receive = new NetworkReceive(conn.id, maxRequestSize)
        val header =
          try RequestHeader.parse(buffer)
          catch {
            case e: InvalidRequestException =>
              logger.warn(s"Closing connection ${conn.id}: ${e.getMessage}")
              close(conn)
              return
          }
        // one request in flight per connection: mute until its response has been sent
        conn.muted = true
        conn.key.interestOps(0)
        requestChannel.sendRequest(new RequestChannel.Request(id, conn.id, conn.channel.socket().getInetAddress,
          header, buffer.slice(), time.nanoseconds))
      }
    }

    private def write(conn: Connection): Unit = {
      conn.send.writeTo(conn.channel)
      conn.lastActivityMs = time.milliseconds
      if (conn.send.completed) {
        conn.send = null
        unmute(conn)
      }
    }

    private def unmute(conn: Connection): Unit = {
      conn.muted = false
      if (conn.key.isValid) conn.key.interestOps(SelectionKey.OP_READ)
    }

    private def closeIdleConnections(): Unit = {
      val deadline = time.milliseconds - connectionsMaxIdleMs
      for (conn <- connections.values.toList if !conn.muted && conn.send == null && conn.lastActivityMs < deadline) {
        logger.debug(s"Closing idle connection ${conn.id} after ${connectionsMaxIdleMs} ms")
        close(conn)
      }
    }

    private def close(conn: Connection): Unit = {
      if (connections.remove(conn.id).isDefined) {
        quotas.dec(conn.channel.socket().getInetAddress)
        conn.key.cancel()
        conn.channel.close()
      }
    }

    def awaitShutdown(): Unit = {
      selector.wakeup()
      shutdownLatch.await()
    }
  }
}
