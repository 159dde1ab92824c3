// Package client is the Go client of leasekvd's HTTP API, with a keep-alive loop for
// leases and a helper that registers service instances.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"go.leasekv.dev/leasekv/api"
)

// ErrLeaseNotFound is returned when the server does not know the lease: it expired or
// was revoked.
var ErrLeaseNotFound = errors.New("lease not found")

// Error is a failed call.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("leasekv: %s (HTTP %d)", e.Message, e.Code) }

// Client calls one leasekvd endpoint.
type Client struct {
	base string
	hc   *http.Client
}

// New returns a client of endpoint (host:port or a URL).
func New(endpoint string, timeout time.Duration) *Client {
	if !strings.Contains(endpoint, "://") {
		endpoint = "http://" + endpoint
	}
	return &Client{base: strings.TrimRight(endpoint, "/"), hc: &http.Client{Timeout: timeout}}
}

// NewWithHTTPClient returns a client that uses hc, e.g. one with TLS settings.
func NewWithHTTPClient(endpoint string, hc *http.Client) *Client {
	c := New(endpoint, 0)
	c.hc = hc
	return c
}

func (c *Client) do(ctx context.Context, path string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	res, err := c.hc.Do(hr)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var er api.ErrorResponse
		if json.NewDecoder(io.LimitReader(res.Body, 64<<10)).Decode(&er) != nil || er.Error == "" {
			er.Error = res.Status
		}
		if res.StatusCode == http.StatusNotFound && er.Error == ErrLeaseNotFound.Error() {
			return ErrLeaseNotFound
		}
		return &Error{Code: res.StatusCode, Message: er.Error}
	}
	return json.NewDecoder(res.Body).Decode(resp)
}

// Put writes key; lease 0 means no lease.
func (c *Client) Put(ctx context.Context, key string, value []byte, lease int64) (int64, error) {
	var resp api.PutResponse
	err := c.do(ctx, "/v1/kv/put", &api.PutRequest{Key: key, Value: value, Lease: lease}, &resp)
	return resp.Revision, err
}

// Get reads one key; ok is false when it does not exist.
func (c *Client) Get(ctx context.Context, key string) (kv api.KeyValue, ok bool, err error) {
	var resp api.RangeResponse
	if err := c.do(ctx, "/v1/kv/range", &api.RangeRequest{Key: key}, &resp); err != nil {
		return api.KeyValue{}, false, err
	}
	if len(resp.KVs) == 0 {
		return api.KeyValue{}, false, nil
	}
	return resp.KVs[0], true, nil
}

// Range reads the keys with prefix, at most limit (0: all).
func (c *Client) Range(ctx context.Context, prefix string, limit int) (*api.RangeResponse, error) {
	var resp api.RangeResponse
	err := c.do(ctx, "/v1/kv/range", &api.RangeRequest{Key: prefix, Prefix: true, Limit: limit}, &resp)
	return &resp, err
}

// Delete removes key and tells whether it existed.
func (c *Client) Delete(ctx context.Context, key string) (bool, error) {
	var resp api.DeleteResponse
	err := c.do(ctx, "/v1/kv/deleterange", &api.DeleteRequest{Key: key}, &resp)
	return resp.Deleted > 0, err
}

// Grant creates a lease; id 0 lets the server choose.
func (c *Client) Grant(ctx context.Context, id, ttl int64) (*api.LeaseGrantResponse, error) {
	var resp api.LeaseGrantResponse
	err := c.do(ctx, "/v1/lease/grant", &api.LeaseGrantRequest{ID: id, TTL: ttl}, &resp)
	return &resp, err
}

// Revoke deletes a lease and its keys.
func (c *Client) Revoke(ctx context.Context, id int64) error {
	var resp api.LeaseIDRequest
	return c.do(ctx, "/v1/lease/revoke", &api.LeaseIDRequest{ID: id}, &resp)
}

// KeepAliveOnce renews a lease once and returns its TTL.
func (c *Client) KeepAliveOnce(ctx context.Context, id int64) (int64, error) {
	var resp api.LeaseKeepAliveResponse
	err := c.do(ctx, "/v1/lease/keepalive", &api.LeaseIDRequest{ID: id}, &resp)
	return resp.TTL, err
}

// TimeToLive describes a lease, with its keys when keys is set.
func (c *Client) TimeToLive(ctx context.Context, id int64, keys bool) (*api.LeaseTimeToLiveResponse, error) {
	var resp api.LeaseTimeToLiveResponse
	err := c.do(ctx, "/v1/lease/timetolive", &api.LeaseTimeToLiveRequest{ID: id, Keys: keys}, &resp)
	return &resp, err
}

// Leases lists every lease.
func (c *Client) Leases(ctx context.Context) ([]api.LeaseTimeToLiveResponse, error) {
	var resp api.LeaseListResponse
	err := c.do(ctx, "/v1/lease/leases", struct{}{}, &resp)
	return resp.Leases, err
}

// Watch streams the changes of key (or of every key with that prefix) until ctx is
// done or the server cancels the watch; the channel closes then.
func (c *Client) Watch(ctx context.Context, key string, prefix bool) (<-chan api.WatchResponse, error) {
	body, _ := json.Marshal(&api.WatchRequest{Key: key, Prefix: prefix})
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v1/watch", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	// a watch outlives any request timeout of the shared client
	hc := *c.hc
	hc.Timeout = 0
	res, err := hc.Do(hr)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, &Error{Code: res.StatusCode, Message: res.Status}
	}
	dec := json.NewDecoder(res.Body)
	var first api.WatchResponse
	if err := dec.Decode(&first); err != nil {
		res.Body.Close()
		return nil, err
	}
	ch := make(chan api.WatchResponse)
	go func() {
		defer close(ch)
		defer res.Body.Close()
		for {
			var wr api.WatchResponse
			if err := dec.Decode(&wr); err != nil {
				return
			}
			select {
			case ch <- wr:
			case <-ctx.Done():
				return
			}
			if wr.Canceled {
				return
			}
		}
	}()
	return ch, nil
}
