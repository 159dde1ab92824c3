package dev.streamlog.metrics

/**
 * A statistic over a sliding window made of `samples` sub-windows of `windowMs` each. When
 * the current sub-window is older than `windowMs` the oldest one is reset and reused, so
 * the value covers between (samples - 1) and samples windows of history.
 */
abstract class SampledStat(samples: Int, windowMs: Long) {
  require(samples >= 2, "a sampled stat needs at least two samples")

  protected final class Sample(var startMs: Long, var value: Double, var count: Long) {
    def reset(now: Long): Unit = { startMs = now; value = initialValue; count = 0 }
  }

  protected def initialValue: Double
  protected def update(sample: Sample, value: Double): Unit
  protected def combine(samples: Seq[Sample], now: Long): Double

  private val windows = Array.fill(samples)(new Sample(0L, initialValue, 0L))
  private var current = 0

  def record(value: Double, now: Long): Unit = synchronized {
    var sample = windows(current)
    if (now - sample.startMs >= windowMs) {
      current = (current + 1) % samples
      sample = windows(current)
      sample.reset(now)
    }
    update(sample, value)
    sample.count += 1
  }

  def measure(now: Long): Double = synchronized {
    // windows that ended more than `samples` windows ago no longer count
    windows.foreach(s => if (now - s.startMs >= samples * windowMs) s.reset(now))
    combine(windows.toSeq, now)
  }

  protected def oldestStart(now: Long): Long = synchronized(windows.map(_.startMs).filter(_ > 0).minOption.getOrElse(now))
}

final class Avg(samples: Int, windowMs: Long) extends SampledStat(samples, windowMs) {
  protected def initialValue: Double = 0.0
  protected def update(sample: Sample, value: Double): Unit = sample.value += value
  protected def combine(samples: Seq[Sample], now: Long): Double = {
    val count = samples.map(_.count).sum
    if (count == 0) Double.NaN else samples.map(_.value).sum / count
  }
}

final class Max(samples: Int, windowMs: Long) extends SampledStat(samples, windowMs) {
  protected def initialValue: Double = Double.NegativeInfinity
  protected def update(sample: Sample, value: Double): Unit = sample.value = math.max(sample.value, value)
  protected def combine(samples: Seq[Sample], now: Long): Double = {
    val max = samples.filter(_.count > 0).map(_.value).maxOption
    max.getOrElse(Double.NaN)
  }
}

/** Events per second over the window; the elapsed time is at least one full sub-window. */
final class Rate(samples: Int, windowMs: Long) extends SampledStat(samples, windowMs) {
  protected def initialValue: Double = 0.0
  protected def update(sample: Sample, value: Double): Unit = sample.value += value
  protected def combine(samples: Seq[Sample], now: Long): Double = {
    val elapsedMs = math.max(now - oldestStart(now), windowMs)
    samples.map(_.value).sum / (elapsedMs / 1000.0)
  }
}
