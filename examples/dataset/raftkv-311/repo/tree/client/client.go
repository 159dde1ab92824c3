// Package client is the Go client of raftkv's KV API. It keeps one connection per
// endpoint, remembers which endpoint last accepted a write, and retries calls that are
// safe to retry on another endpoint.
package client

import (
	"context"
	"errors"
	"math/rand"
	"sync"
	"time"

	"github.com/raftkv/raftkv/api"
	"github.com/raftkv/raftkv/rpc"
)

// ErrNoEndpoints is returned by New without endpoints.
var ErrNoEndpoints = errors.New("client: no endpoints")

// Config configures a client.
type Config struct {
	Endpoints   []string
	DialTimeout time.Duration
	// CallTimeout bounds one attempt when the caller's context has no deadline.
	CallTimeout time.Duration
	// MaxAttempts bounds the attempts of one call, over all endpoints.
	MaxAttempts int
	// BackoffBase is the first pause between attempts; it doubles up to BackoffMax.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	Codec       rpc.Codec
}

func (c *Config) fill() {
	if c.DialTimeout <= 0 {
		c.DialTimeout = 2 * time.Second
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 6 * time.Second
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 2 * len(c.Endpoints)
		if c.MaxAttempts < 3 {
			c.MaxAttempts = 3
		}
	}
	if c.BackoffBase <= 0 {
		c.BackoffBase = 50 * time.Millisecond
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = time.Second
	}
	if c.Codec == nil {
		c.Codec = rpc.GobCodec{}
	}
}

// Client is safe for concurrent use.
type Client struct {
	cfg Config

	mu    sync.Mutex
	conns map[string]*rpc.ClientConn
	// preferred is the endpoint that last served a write; writes try it first.
	preferred int
	closed    bool
}

// New returns a client; connections are dialed on first use.
func New(cfg Config) (*Client, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, ErrNoEndpoints
	}
	cfg.fill()
	return &Client{cfg: cfg, conns: make(map[string]*rpc.ClientConn), preferred: rand.Intn(len(cfg.Endpoints))}, nil
}

// Put writes key. A put that timed out may still be applied later: the client does not
// retry it, and the caller should read back before writing again if that matters.
func (c *Client) Put(ctx context.Context, key, value string) (uint64, error) {
	var resp api.PutResponse
	err := c.call(ctx, api.MethodPut, &api.PutRequest{Key: key, Value: value}, &resp, false)
	return resp.AppliedIndex, err
}

// Get reads key from the first endpoint that answers.
func (c *Client) Get(ctx context.Context, key string) (string, bool, error) {
	var resp api.GetResponse
	err := c.call(ctx, api.MethodGet, &api.GetRequest{Key: key}, &resp, true)
	return resp.Value, resp.Found, err
}

// Delete removes key; like Put, it is not retried after a timeout.
func (c *Client) Delete(ctx context.Context, key string) error {
	var resp api.DeleteResponse
	return c.call(ctx, api.MethodDelete, &api.DeleteRequest{Key: key}, &resp, false)
}

// Status asks one endpoint about itself.
func (c *Client) Status(ctx context.Context, endpoint string) (*api.StatusResponse, error) {
	cc, err := c.conn(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	var resp api.StatusResponse
	if err := cc.Invoke(ctx, api.MethodStatus, &api.StatusRequest{IncludePeers: true}, &resp); err != nil {
		c.dropIfBroken(endpoint, cc)
		return nil, err
	}
	return &resp, nil
}

// call tries the endpoints in turn, starting with the preferred one.
func (c *Client) call(ctx context.Context, method string, req, resp any, idempotent bool) error {
	var lastErr error
	backoff := c.cfg.BackoffBase
	for attempt := 0; attempt < c.cfg.MaxAttempts; attempt++ {
		if attempt > 0 {
			if err := sleep(ctx, jitter(backoff)); err != nil {
				return lastErr
			}
			if backoff *= 2; backoff > c.cfg.BackoffMax {
				backoff = c.cfg.BackoffMax
			}
		}
		idx, endpoint := c.pick(attempt)
		err := c.attempt(ctx, endpoint, method, req, resp)
		if err == nil {
			c.prefer(idx)
			return nil
		}
		lastErr = err
		if ctx.Err() != nil || !rpc.Retryable(err, idempotent) {
			return err
		}
	}
	return lastErr
}

func (c *Client) attempt(ctx context.Context, endpoint, method string, req, resp any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.CallTimeout)
		defer cancel()
	}
	cc, err := c.conn(ctx, endpoint)
	if err != nil {
		return err
	}
	err = cc.Invoke(ctx, method, req, resp)
	if err != nil {
		c.dropIfBroken(endpoint, cc)
	}
	return err
}

func (c *Client) pick(attempt int) (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	idx := (c.preferred + attempt) % len(c.cfg.Endpoints)
	return idx, c.cfg.Endpoints[idx]
}

func (c *Client) prefer(idx int) {
	c.mu.Lock()
	c.preferred = idx
	c.mu.Unlock()
}

func (c *Client) conn(ctx context.Context, endpoint string) (*rpc.ClientConn, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, rpc.ErrConnClosing
	}
	if cc, ok := c.conns[endpoint]; ok && cc.Healthy() {
		c.mu.Unlock()
		return cc, nil
	}
	c.mu.Unlock()

	cc, err := rpc.Dial(ctx, endpoint, rpc.DialOptions{
		DialTimeout:       c.cfg.DialTimeout,
		KeepaliveInterval: 10 * time.Second,
		Codec:             c.cfg.Codec,
	})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.conns[endpoint]; ok && old.Healthy() {
		// another call dialed first; keep one connection per endpoint
		cc.Close()
		return old, nil
	}
	c.conns[endpoint] = cc
	return cc, nil
}

func (c *Client) dropIfBroken(endpoint string, cc *rpc.ClientConn) {
	if cc.Healthy() {
		return
	}
	c.mu.Lock()
	if c.conns[endpoint] == cc {
		delete(c.conns, endpoint)
	}
	c.mu.Unlock()
}

// Close closes every connection.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for ep, cc := range c.conns {
		cc.Close()
		delete(c.conns, ep)
	}
	return nil
}

func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(rand.Int63n(int64(d)/2+1))
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
