package mvcc

import (
	"errors"
	"sort"
	"strings"
	"sync"

	"go.leasekv.dev/leasekv/lease"
)

// ErrCompacted is returned for a read below the compacted revision.
var ErrCompacted = errors.New("mvcc: required revision has been compacted")

// KeyValue is a stored key with its metadata.
type KeyValue struct {
	Key            string
	Value          []byte
	CreateRevision int64
	ModRevision    int64
	Lease          lease.LeaseID
}

// Event is a change seen by watchers.
type Event struct {
	Delete bool
	KV     KeyValue
}

// Store is a single-version store with a revision counter and watchers.
type Store struct {
	mu       sync.RWMutex
	kvs      map[string]KeyValue
	rev      int64
	lessor   *lease.Lessor
	watchers []chan Event
}

// NewStore returns a store that attaches leased keys through the lessor.
func NewStore(lessor *lease.Lessor) *Store {
	s := &Store{kvs: make(map[string]KeyValue), lessor: lessor}
	lessor.SetRangeDeleter(func() lease.TxnDelete { return s.write() })
	return s
}

// Put writes a key, optionally attached to a lease.
func (s *Store) Put(key string, value []byte, leaseID lease.LeaseID) (int64, error) {
	if leaseID != lease.NoLease && s.lessor.Lookup(leaseID) == nil {
		return 0, lease.ErrLeaseNotFound
	}
	txn := s.write()
	defer txn.End()
	rev := txn.put(key, value, leaseID)
	return rev, nil
}

// Delete deletes a key.
func (s *Store) Delete(key string) int64 {
	txn := s.write()
	defer txn.End()
	n, rev := txn.DeleteRange([]byte(key), nil)
	if n == 0 {
		return 0
	}
	return rev
}

// Range returns keys with the prefix, sorted.
func (s *Store) Range(prefix string) []KeyValue {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []KeyValue
	for k, kv := range s.kvs {
		if strings.HasPrefix(k, prefix) {
			out = append(out, kv)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Watch returns a channel of every change.
func (s *Store) Watch() <-chan Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := make(chan Event, 1024)
	s.watchers = append(s.watchers, c)
	return c
}

type writeTxn struct {
	s      *Store
	events []Event
}

func (s *Store) write() *writeTxn {
	s.mu.Lock()
	s.rev++
	return &writeTxn{s: s}
}

func (t *writeTxn) put(key string, value []byte, leaseID lease.LeaseID) int64 {
	s := t.s
	old, existed := s.kvs[key]
	kv := KeyValue{Key: key, Value: value, ModRevision: s.rev, CreateRevision: s.rev, Lease: leaseID}
	if existed {
		kv.CreateRevision = old.CreateRevision
		if old.Lease != lease.NoLease && old.Lease != leaseID {
			_ = s.lessor.Detach(old.Lease, []lease.LeaseItem{{Key: key}})
		}
	}
	if leaseID != lease.NoLease {
		if err := s.lessor.Attach(leaseID, []lease.LeaseItem{{Key: key}}); err != nil {
			panic("unexpected error from lease attach: " + err.Error())
		}
	}
	s.kvs[key] = kv
	t.events = append(t.events, Event{KV: kv})
	return s.rev
}

// DeleteRange deletes key (end is unused: single keys only).
func (t *writeTxn) DeleteRange(key, end []byte) (int64, int64) {
	s := t.s
	kv, ok := s.kvs[string(key)]
	if !ok {
		return 0, s.rev
	}
	delete(s.kvs, string(key))
	t.events = append(t.events, Event{Delete: true, KV: KeyValue{Key: kv.Key, ModRevision: s.rev}})
	return 1, s.rev
}

// End commits the transaction and notifies watchers.
func (t *writeTxn) End() {
	s := t.s
	for _, w := range s.watchers {
		for _, ev := range t.events {
			select {
			case w <- ev:
			default:
			}
		}
	}
	s.mu.Unlock()
}
