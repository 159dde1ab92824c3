from taskq.ratelimit import TokenBucket


def test_bucket_refills_at_its_rate():
    now = [0.0]
    bucket = TokenBucket(rate=2.0, burst=2.0, clock=lambda: now[0])
    assert bucket.try_acquire() and bucket.try_acquire()
    assert not bucket.try_acquire()
    assert bucket.delay_until_available() == 0.5
    now[0] += 0.5
    assert bucket.try_acquire()
    now[0] += 100
    assert [bucket.try_acquire() for _ in range(3)] == [True, True, False]


def test_zero_rate_is_unlimited():
    bucket = TokenBucket(rate=0.0)
    assert all(bucket.try_acquire() for _ in range(1000))
