package client

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"go.leasekv.dev/leasekv/api"
	"go.leasekv.dev/leasekv/server"
	"go.leasekv.dev/leasekv/watch"
	"go.uber.org/zap"
)

func startServer(t *testing.T) *Client {
	t.Helper()
	logger := zap.NewNop()
	srv := server.New(logger)
	ctx, cancel := context.WithCancel(context.Background())
	hub := watch.NewHub(srv.Store.Watch(), 16, logger)
	go hub.Run(ctx, 0)
	go srv.Run(ctx, 0)
	h := &api.Handler{Server: srv, Hub: hub, IDs: server.NewIDGenerator(1, time.Unix(1700000000, 0)), MaxRequestBytes: 1 << 20, Logger: logger}
	ts := httptest.NewServer(h.Routes())
	t.Cleanup(func() {
		ts.Close()
		cancel()
	})
	// Run promotes the lessor; keep-alives fail until it did
	for !srv.Lessor.IsPrimary() {
		time.Sleep(time.Millisecond)
	}
	return New(ts.URL, 5*time.Second)
}

func TestKeyValueRoundTrip(t *testing.T) {
	c := startServer(t)
	ctx := context.Background()
	for _, k := range []string{"/config/a", "/config/b", "/other"} {
		if _, err := c.Put(ctx, k, []byte("v-"+k), 0); err != nil {
			t.Fatal(err)
		}
	}
	kv, ok, err := c.Get(ctx, "/config/b")
	if err != nil || !ok || string(kv.Value) != "v-/config/b" {
		t.Fatalf("get: %+v %v %v", kv, ok, err)
	}
	r, err := c.Range(ctx, "/config/", 1)
	if err != nil || r.Count != 1 || !r.More || r.KVs[0].Key != "/config/a" {
		t.Fatalf("range: %+v %v", r, err)
	}
	if deleted, err := c.Delete(ctx, "/config/a"); err != nil || !deleted {
		t.Fatalf("delete: %v %v", deleted, err)
	}
	if _, ok, _ := c.Get(ctx, "/config/a"); ok {
		t.Fatal("deleted key still there")
	}
}

func TestLeaseLifecycle(t *testing.T) {
	c := startServer(t)
	ctx := context.Background()
	g, err := c.Grant(ctx, 0, 30)
	if err != nil || g.ID == 0 || g.TTL != 30 {
		t.Fatalf("grant: %+v %v", g, err)
	}
	if _, err := c.Put(ctx, "/services/api/api-1", []byte("10.0.0.1:80"), g.ID); err != nil {
		t.Fatal(err)
	}
	if ttl, err := c.KeepAliveOnce(ctx, g.ID); err != nil || ttl != 30 {
		t.Fatalf("keepalive: %d %v", ttl, err)
	}
	info, err := c.TimeToLive(ctx, g.ID, true)
	if err != nil || len(info.Keys) != 1 || info.GrantedTTL != 30 {
		t.Fatalf("timetolive: %+v %v", info, err)
	}
	if err := c.Revoke(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Get(ctx, "/services/api/api-1"); ok {
		t.Fatal("revocation left the key")
	}
	if _, err := c.TimeToLive(ctx, g.ID, false); !errors.Is(err, ErrLeaseNotFound) {
		t.Fatalf("got %v, want ErrLeaseNotFound", err)
	}
	if _, err := c.Put(ctx, "/services/api/api-1", nil, g.ID); !errors.Is(err, ErrLeaseNotFound) {
		t.Fatalf("put with a revoked lease: %v", err)
	}
}

func TestWatchPrefix(t *testing.T) {
	c := startServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := c.Watch(ctx, "/services/", true)
	if err != nil {
		t.Fatal(err)
	}
	c.Put(ctx, "/config/x", []byte("1"), 0)
	c.Put(ctx, "/services/db/db-0", []byte("2"), 0)
	wr := <-ch
	if len(wr.Events) != 1 || wr.Events[0].Type != "PUT" || wr.Events[0].KV.Key != "/services/db/db-0" {
		t.Fatalf("watch response %+v", wr)
	}
}

func TestRegistration(t *testing.T) {
	c := startServer(t)
	ctx := context.Background()
	reg, err := c.Register(ctx, "payments", "payments-1", []byte("10.0.0.9:443"), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Update(ctx, []byte("10.0.0.9:8443")); err != nil {
		t.Fatal(err)
	}
	kv, ok, _ := c.Get(ctx, reg.Key())
	if !ok || string(kv.Value) != "10.0.0.9:8443" || kv.Lease != reg.LeaseID() {
		t.Fatalf("registered key %+v", kv)
	}
	if err := reg.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Get(ctx, reg.Key()); ok {
		t.Fatal("closing the registration left the key")
	}
}
