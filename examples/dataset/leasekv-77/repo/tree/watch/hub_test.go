package watch

import (
	"context"
	"testing"
	"time"

	"go.leasekv.dev/leasekv/lease"
	"go.leasekv.dev/leasekv/mvcc"
	"go.uber.org/zap"
)

func newStoreAndHub(t *testing.T, bufSize int) (*mvcc.Store, *Hub) {
	t.Helper()
	lessor := lease.NewLessor(zap.NewNop(), time.Hour)
	t.Cleanup(lessor.Stop)
	store := mvcc.NewStore(lessor)
	hub := NewHub(store.Watch(), bufSize, zap.NewNop())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go hub.Run(ctx, 0)
	return store, hub
}

func next(t *testing.T, w *Watcher) Response {
	t.Helper()
	select {
	case r, ok := <-w.Chan():
		if !ok {
			t.Fatal("watch channel closed")
		}
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no response")
	}
	return Response{}
}

func TestPrefixWatch(t *testing.T) {
	store, hub := newStoreAndHub(t, 16)
	w, _ := hub.Watch("/services/payments/", true)

	store.Put("/services/orders/orders-1", []byte("a"), lease.NoLease)
	store.Put("/services/payments/payments-3", []byte("b"), lease.NoLease)
	store.Delete("/services/payments/payments-3")

	var got []mvcc.Event
	for len(got) < 2 {
		got = append(got, next(t, w).Events...)
	}
	if got[0].Delete || got[0].KV.Key != "/services/payments/payments-3" || !got[1].Delete {
		t.Fatalf("events %+v", got)
	}
}

func TestSlowWatcherIsCanceled(t *testing.T) {
	store, hub := newStoreAndHub(t, 1)
	slow, _ := hub.Watch("k", false)
	// the fast watcher has room for both responses; reading it tells when each put was
	// dispatched
	fast, _ := hub.Watch("k", false)
	store.Put("k", []byte("1"), lease.NoLease)
	next(t, fast)
	store.Put("k", []byte("2"), lease.NoLease)
	next(t, fast)

	var last Response
	for r := range slow.Chan() {
		last = r
	}
	if !last.Canceled || last.CancelReason != ReasonSlow {
		t.Fatalf("last response %+v", last)
	}
	if n, slowCanceled, _ := hub.Stats(); n != 1 || slowCanceled != 1 {
		t.Fatalf("watchers %d, slow %d", n, slowCanceled)
	}
}

func TestCancel(t *testing.T) {
	_, hub := newStoreAndHub(t, 4)
	w, _ := hub.Watch("k", false)
	if !hub.Cancel(w.ID()) {
		t.Fatal("cancel of a live watcher failed")
	}
	if r := next(t, w); !r.Canceled || r.CancelReason != ReasonClientCanceled {
		t.Fatalf("got %+v", r)
	}
	if hub.Cancel(w.ID()) {
		t.Fatal("second cancel succeeded")
	}
}
