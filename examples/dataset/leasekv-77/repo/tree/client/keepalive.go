package client

import (
	"context"
	"errors"
	"time"
)

// KeepAliveOptions tune a keep-alive loop.
type KeepAliveOptions struct {
	// Interval between renewals; by default a third of the lease's TTL.
	Interval time.Duration
	// OnFailure is called for each failed renewal that will be retried.
	OnFailure func(err error)
}

// KeepAlive renews lease id until ctx is done, the lease is gone, or renewals keep
// failing for longer than the TTL (the lease has expired by then anyway). It returns
// nil when ctx ends and ErrLeaseNotFound when the lease is gone.
func (c *Client) KeepAlive(ctx context.Context, id, ttl int64, opts KeepAliveOptions) error {
	interval := opts.Interval
	if interval <= 0 {
		interval = time.Duration(ttl) * time.Second / 3
	}
	if interval < 100*time.Millisecond {
		interval = 100 * time.Millisecond
	}
	lastOK := time.Now()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, interval)
		newTTL, err := c.KeepAliveOnce(rctx, id)
		cancel()
		switch {
		case err == nil:
			lastOK = time.Now()
			if newTTL > 0 && newTTL != ttl {
				// the lease was granted anew with another TTL; follow it
				ttl = newTTL
				t.Reset(time.Duration(ttl) * time.Second / 3)
			}
		case errors.Is(err, ErrLeaseNotFound):
			return ErrLeaseNotFound
		case ctx.Err() != nil:
			return nil
		default:
			if opts.OnFailure != nil {
				opts.OnFailure(err)
			}
			if time.Since(lastOK) > time.Duration(ttl)*time.Second {
				return err
			}
		}
	}
}
