package client

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raftkv/raftkv/api"
	"github.com/raftkv/raftkv/rpc"
)

// fakeNode answers puts with the given error (nil: success) and counts them.
type fakeNode struct {
	addr string
	puts atomic.Int32
}

func startFake(t *testing.T, putErr error) *fakeNode {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := &fakeNode{addr: ln.Addr().String()}
	s := rpc.NewServer(rpc.ServerOptions{})
	s.Register(api.MethodPut, func(ctx context.Context, decode func(any) error) (any, error) {
		var req api.PutRequest
		if err := decode(&req); err != nil {
			return nil, err
		}
		n.puts.Add(1)
		if putErr != nil {
			return nil, putErr
		}
		return &api.PutResponse{AppliedIndex: 42}, nil
	})
	s.Register(api.MethodGet, func(ctx context.Context, decode func(any) error) (any, error) {
		var req api.GetRequest
		decode(&req)
		return &api.GetResponse{Value: "v:" + req.Key, Found: true}, nil
	})
	go s.Serve(ln)
	t.Cleanup(func() { s.Stop(time.Second) })
	return n
}

func newClient(t *testing.T, endpoints ...string) *Client {
	t.Helper()
	c, err := New(Config{Endpoints: endpoints, BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestPutMovesToTheNodeThatAccepts(t *testing.T) {
	follower := startFake(t, rpc.Errorf(rpc.NotLeader, ""))
	leader := startFake(t, nil)
	c := newClient(t, follower.addr, leader.addr)
	c.preferred = 0

	for i := 0; i < 3; i++ {
		idx, err := c.Put(context.Background(), "k", "v")
		if err != nil || idx != 42 {
			t.Fatalf("put %d: %d, %v", i, idx, err)
		}
	}
	if follower.puts.Load() != 1 || leader.puts.Load() != 3 {
		t.Fatalf("follower saw %d puts, leader %d; want 1 and 3", follower.puts.Load(), leader.puts.Load())
	}
}

func TestTimedOutPutIsNotRetried(t *testing.T) {
	slow := startFake(t, rpc.Errorf(rpc.DeadlineExceeded, "not applied in time"))
	other := startFake(t, nil)
	c := newClient(t, slow.addr, other.addr)
	c.preferred = 0

	if _, err := c.Put(context.Background(), "k", "v"); rpc.CodeOf(err) != rpc.DeadlineExceeded {
		t.Fatalf("got %v, want DeadlineExceeded", err)
	}
	if other.puts.Load() != 0 {
		t.Fatal("a put that may have been applied was sent to a second node")
	}
}

func TestGetSkipsUnreachableEndpoint(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	live := startFake(t, nil)
	c := newClient(t, dead, live.addr)
	c.preferred = 0

	v, ok, err := c.Get(context.Background(), "a")
	if err != nil || !ok || v != "v:a" {
		t.Fatalf("got %q %v %v", v, ok, err)
	}
}

func TestNewWithoutEndpoints(t *testing.T) {
	if _, err := New(Config{}); err != ErrNoEndpoints {
		t.Fatalf("got %v", err)
	}
}
