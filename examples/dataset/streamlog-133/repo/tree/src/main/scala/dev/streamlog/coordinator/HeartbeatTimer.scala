package dev.streamlog.coordinator

import java.util.concurrent.{ConcurrentHashMap, Executors, ScheduledExecutorService, ScheduledFuture, TimeUnit}

import com.typesafe.scalalogging.LazyLogging

/**
 * Session expiry: one timer per member, rescheduled on every heartbeat. Expirations run on
 * the timer thread, not on a request handler thread.
 */
class HeartbeatTimer(time: () => Long) extends LazyLogging {
  private val executor: ScheduledExecutorService = Executors.newSingleThreadScheduledExecutor { r =>
    val t = new Thread(r, "group-heartbeat-timer")
    t.setDaemon(true)
    t
  }
  private val timers = new ConcurrentHashMap[(String, String), ScheduledFuture[_]]()
  @volatile private var coordinator: GroupCoordinator = _

  def start(coordinator: GroupCoordinator): Unit = this.coordinator = coordinator

  def schedule(group: GroupMetadata, memberId: String, deadline: Long): Unit = {
    val key = (group.groupId, memberId)
    val delay = math.max(0L, deadline - time())
    val task: Runnable = () => {
      timers.remove(key)
      try coordinator.onExpireHeartbeat(group, memberId, deadline)
      catch { case e: Exception => logger.error(s"Heartbeat expiration of $memberId failed", e) }
    }
    Option(timers.put(key, executor.schedule(task, delay, TimeUnit.MILLISECONDS))).foreach(_.cancel(false))
  }

  def cancel(groupId: String, memberId: String): Unit =
    Option(timers.remove((groupId, memberId))).foreach(_.cancel(false))

  def shutdown(): Unit = executor.shutdownNow()
}
