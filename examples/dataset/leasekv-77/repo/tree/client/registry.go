package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ServicePrefix is where instances register.
const ServicePrefix = "/services/"

// Registration keeps one service instance registered: the key
// /services/<service>/<instance> attached to a lease that is kept alive in the
// background. When the lease is lost (the process stalled longer than the TTL), the
// registration grants a new lease and puts the key again.
type Registration struct {
	c     *Client
	key   string
	ttl   int64
	onErr func(error)

	mu      sync.Mutex
	value   []byte
	leaseID int64

	cancel context.CancelFunc
	done   chan struct{}
}

// InstanceKey returns the key of an instance.
func InstanceKey(service, instance string) string {
	return ServicePrefix + service + "/" + instance
}

// Register grants a lease of ttl seconds, puts the instance key with it, and keeps it
// alive until Close. onErr (may be nil) hears about failures that are retried.
func (c *Client) Register(ctx context.Context, service, instance string, value []byte, ttl int64, onErr func(error)) (*Registration, error) {
	if service == "" || instance == "" {
		return nil, errors.New("client: service and instance are required")
	}
	r := &Registration{c: c, key: InstanceKey(service, instance), ttl: ttl, value: value, onErr: onErr, done: make(chan struct{})}
	if err := r.establish(ctx); err != nil {
		return nil, err
	}
	bg, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go r.run(bg)
	return r, nil
}

// establish grants a new lease and puts the key with it.
func (r *Registration) establish(ctx context.Context) error {
	g, err := r.c.Grant(ctx, 0, r.ttl)
	if err != nil {
		return fmt.Errorf("grant: %w", err)
	}
	r.mu.Lock()
	value := r.value
	r.mu.Unlock()
	if _, err := r.c.Put(ctx, r.key, value, g.ID); err != nil {
		// do not leak the lease
		r.c.Revoke(ctx, g.ID)
		return fmt.Errorf("put %s: %w", r.key, err)
	}
	r.mu.Lock()
	r.leaseID = g.ID
	r.mu.Unlock()
	return nil
}

func (r *Registration) run(ctx context.Context) {
	defer close(r.done)
	backoff := 500 * time.Millisecond
	for ctx.Err() == nil {
		err := r.c.KeepAlive(ctx, r.LeaseID(), r.ttl, KeepAliveOptions{OnFailure: r.onErr})
		if ctx.Err() != nil {
			return
		}
		if r.onErr != nil && err != nil {
			r.onErr(fmt.Errorf("lease %x lost: %w", r.LeaseID(), err))
		}
		for ctx.Err() == nil {
			if err := r.establish(ctx); err == nil {
				backoff = 500 * time.Millisecond
				break
			} else if r.onErr != nil {
				r.onErr(err)
			}
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			if backoff *= 2; backoff > 10*time.Second {
				backoff = 10 * time.Second
			}
		}
	}
}

// LeaseID returns the current lease.
func (r *Registration) LeaseID() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.leaseID
}

// Key returns the instance key.
func (r *Registration) Key() string { return r.key }

// Update puts a new value under the instance key with the current lease, e.g. after a
// configuration reload changed the advertised address.
func (r *Registration) Update(ctx context.Context, value []byte) error {
	r.mu.Lock()
	r.value = value
	id := r.leaseID
	r.mu.Unlock()
	_, err := r.c.Put(ctx, r.key, value, id)
	return err
}

// Close stops the keep-alives and revokes the lease, which deletes the key.
func (r *Registration) Close(ctx context.Context) error {
	r.cancel()
	<-r.done
	err := r.c.Revoke(ctx, r.LeaseID())
	if errors.Is(err, ErrLeaseNotFound) {
		return nil
	}
	return err
}
