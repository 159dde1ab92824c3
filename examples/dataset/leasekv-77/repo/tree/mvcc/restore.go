package mvcc

import (
	"fmt"

	"go.leasekv.dev/leasekv/lease"
)

// Restore replaces the store's contents with kvs at revision rev, as read from the
// backend at startup. Leased keys are attached to their leases, which must have been
// granted already; a key whose lease is gone is dropped and returned, since nothing
// would ever delete it.
func (s *Store) Restore(kvs []KeyValue, rev int64) ([]KeyValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rev != 0 || len(s.kvs) != 0 {
		return nil, fmt.Errorf("mvcc: restore into a store at revision %d with %d keys", s.rev, len(s.kvs))
	}
	var dropped []KeyValue
	for _, kv := range kvs {
		if kv.ModRevision > rev {
			return nil, fmt.Errorf("mvcc: key %q at revision %d is newer than the store revision %d", kv.Key, kv.ModRevision, rev)
		}
		if kv.Lease != lease.NoLease {
			if err := s.lessor.Attach(kv.Lease, []lease.LeaseItem{{Key: kv.Key}}); err != nil {
				dropped = append(dropped, kv)
				continue
			}
		}
		s.kvs[kv.Key] = kv
	}
	s.rev = rev
	return dropped, nil
}

// Rev returns the current revision.
func (s *Store) Rev() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rev
}
