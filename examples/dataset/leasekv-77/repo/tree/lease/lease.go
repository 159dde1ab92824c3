package lease

import (
	"math"
	"sort"
	"sync"
	"time"
)

// LeaseID identifies a lease.
type LeaseID int64

// NoLease means a key is not attached to any lease.
const NoLease = LeaseID(0)

// LeaseItem is what a lease holds: a key.
type LeaseItem struct {
	Key string
}

// Lease is a time-to-live on a set of keys.
type Lease struct {
	ID  LeaseID
	ttl int64 // seconds

	expiryMu sync.RWMutex
	expiry   time.Time

	mu      sync.RWMutex
	itemSet map[LeaseItem]struct{}
	revokec chan struct{}
}

func newLease(id LeaseID, ttl int64) *Lease {
	return &Lease{ID: id, ttl: ttl, itemSet: make(map[LeaseItem]struct{}), revokec: make(chan struct{})}
}

// TTL returns the lease's time to live in seconds.
func (l *Lease) TTL() int64 { return l.ttl }

func (l *Lease) refresh(extend time.Duration) {
	l.expiryMu.Lock()
	defer l.expiryMu.Unlock()
	l.expiry = time.Now().Add(extend + time.Duration(l.ttl)*time.Second)
}

func (l *Lease) forever() {
	l.expiryMu.Lock()
	defer l.expiryMu.Unlock()
	l.expiry = time.Time{}
}

func (l *Lease) expired() bool {
	l.expiryMu.RLock()
	defer l.expiryMu.RUnlock()
	return !l.expiry.IsZero() && time.Now().After(l.expiry)
}

// Remaining returns the time until expiry, or the max duration for a lease without expiry.
func (l *Lease) Remaining() time.Duration {
	l.expiryMu.RLock()
	defer l.expiryMu.RUnlock()
	if l.expiry.IsZero() {
		return time.Duration(math.MaxInt64)
	}
	return time.Until(l.expiry)
}

// Keys returns the keys attached to the lease, sorted.
func (l *Lease) Keys() []string {
	l.mu.RLock()
	keys := make([]string, 0, len(l.itemSet))
	for k := range l.itemSet {
		keys = append(keys, k.Key)
	}
	l.mu.RUnlock()
	sort.Strings(keys)
	return keys
}
