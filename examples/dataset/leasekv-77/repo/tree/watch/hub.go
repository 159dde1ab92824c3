// Package watch fans the store's change stream out to watchers of a key or a prefix.
// A watcher that does not keep up is canceled instead of slowing down everyone else;
// the client re-watches from the revision it last saw.
package watch

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.leasekv.dev/leasekv/mvcc"
	"go.uber.org/zap"
)

// ID identifies a watcher within a hub.
type ID int64

// Cancel reasons sent in the last response of a watcher.
const (
	ReasonClientCanceled = "canceled by the client"
	ReasonSlow           = "watcher too slow: events were dropped"
	ReasonShutdown       = "server shutting down"
)

// Response is a batch of events of one or more revisions, or a progress notification
// (no events) that tells the watcher the store reached Revision.
type Response struct {
	WatchID      ID
	Revision     int64
	Events       []mvcc.Event
	Canceled     bool
	CancelReason string
}

// IsProgressNotify tells a progress notification from an event batch.
func (r Response) IsProgressNotify() bool { return len(r.Events) == 0 && !r.Canceled }

// Watcher receives the changes of one key or prefix.
type Watcher struct {
	id     ID
	key    string
	prefix bool
	ch     chan Response
	// lastSent is the revision of the last response, for progress notifications.
	lastSent int64
	canceled bool
}

// ID returns the watcher's id.
func (w *Watcher) ID() ID { return w.id }

// Chan delivers the watcher's responses; it is closed after the canceling response.
func (w *Watcher) Chan() <-chan Response { return w.ch }

func (w *Watcher) matches(key string) bool {
	if w.prefix {
		return strings.HasPrefix(key, w.key)
	}
	return key == w.key
}

// Hub owns the watchers of one store.
type Hub struct {
	mu       sync.Mutex
	watchers map[ID]*Watcher
	nextID   ID
	rev      int64
	closed   bool

	events  <-chan mvcc.Event
	bufSize int
	logger  *zap.Logger

	slowCanceled int
}

// NewHub returns a hub reading events; bufSize is each watcher's channel capacity.
func NewHub(events <-chan mvcc.Event, bufSize int, logger *zap.Logger) *Hub {
	if bufSize <= 0 {
		bufSize = 128
	}
	return &Hub{watchers: make(map[ID]*Watcher), events: events, bufSize: bufSize, logger: logger}
}

// Watch registers a watcher of key, or of every key with that prefix.
func (h *Hub) Watch(key string, prefix bool) (*Watcher, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, context.Canceled
	}
	h.nextID++
	w := &Watcher{id: h.nextID, key: key, prefix: prefix, ch: make(chan Response, h.bufSize), lastSent: h.rev}
	h.watchers[w.id] = w
	return w, nil
}

// Cancel removes a watcher; its channel receives a canceling response, then closes.
func (h *Hub) Cancel(id ID) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	w, ok := h.watchers[id]
	if !ok {
		return false
	}
	h.cancelLocked(w, ReasonClientCanceled)
	return true
}

func (h *Hub) cancelLocked(w *Watcher, reason string) {
	if w.canceled {
		return
	}
	w.canceled = true
	delete(h.watchers, w.id)
	// make room for the canceling response: the watcher is gone either way
	select {
	case w.ch <- Response{WatchID: w.id, Revision: h.rev, Canceled: true, CancelReason: reason}:
	default:
		select {
		case <-w.ch:
		default:
		}
		w.ch <- Response{WatchID: w.id, Revision: h.rev, Canceled: true, CancelReason: reason}
	}
	close(w.ch)
}

// Run dispatches events until ctx is done or the event stream closes, and sends a
// progress notification every progressInterval (0 disables them).
func (h *Hub) Run(ctx context.Context, progressInterval time.Duration) {
	var tick <-chan time.Time
	if progressInterval > 0 {
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		tick = t.C
	}
	defer h.close()
	for {
		select {
		case ev, ok := <-h.events:
			if !ok {
				return
			}
			h.dispatch(h.drain(ev))
		case <-tick:
			h.progressNotify()
		case <-ctx.Done():
			return
		}
	}
}

// drain collects the events already queued behind ev, so that one write transaction's
// events reach a watcher in one response.
func (h *Hub) drain(ev mvcc.Event) []mvcc.Event {
	batch := []mvcc.Event{ev}
	for len(batch) < 1024 {
		select {
		case next, ok := <-h.events:
			if !ok {
				return batch
			}
			batch = append(batch, next)
		default:
			return batch
		}
	}
	return batch
}

func (h *Hub) dispatch(batch []mvcc.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if rev := batch[len(batch)-1].KV.ModRevision; rev > h.rev {
		h.rev = rev
	}
	for _, w := range h.watchers {
		var evs []mvcc.Event
		for _, ev := range batch {
			if w.matches(ev.KV.Key) {
				evs = append(evs, ev)
			}
		}
		if len(evs) == 0 {
			continue
		}
		select {
		case w.ch <- Response{WatchID: w.id, Revision: h.rev, Events: evs}:
			w.lastSent = h.rev
		default:
			h.slowCanceled++
			h.logger.Warn("canceling slow watcher", zap.Int64("watch", int64(w.id)), zap.String("key", w.key), zap.Bool("prefix", w.prefix))
			h.cancelLocked(w, ReasonSlow)
		}
	}
}

// progressNotify tells idle watchers the current revision, so that a client can resume
// from it without replaying changes it does not care about.
func (h *Hub) progressNotify() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, w := range h.watchers {
		if w.lastSent >= h.rev {
			continue
		}
		select {
		case w.ch <- Response{WatchID: w.id, Revision: h.rev}:
			w.lastSent = h.rev
		default:
			// a full channel will get events anyway
		}
	}
}

func (h *Hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, w := range h.watchers {
		h.cancelLocked(w, ReasonShutdown)
	}
}

// Stats reports the hub's watchers for metrics.
func (h *Hub) Stats() (watchers, slowCanceled int, rev int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.watchers), h.slowCanceled, h.rev
}
