package server

import (
	"time"

	"go.leasekv.dev/leasekv/lease"
	"go.leasekv.dev/leasekv/mvcc"
	"go.uber.org/zap"
)

// LeaseInfo describes a lease for TimeToLive and the lease list.
type LeaseInfo struct {
	ID lease.LeaseID
	// TTL is the granted TTL; Remaining the seconds left (-1 on a non-primary, where
	// leases do not expire).
	TTL       int64
	Remaining int64
	Keys      []string
}

// Grant creates a lease of ttl seconds.
func (s *Server) Grant(id lease.LeaseID, ttl int64) (*lease.Lease, error) {
	l, err := s.Lessor.Grant(id, ttl)
	if err != nil {
		s.logger.Debug("grant failed", zap.Int64("lease", int64(id)), zap.Int64("ttl", ttl), zap.Error(err))
		return nil, err
	}
	s.logger.Debug("granted lease", zap.Int64("lease", int64(id)), zap.Int64("ttl", ttl))
	return l, nil
}

// RevokeLease is the API handler of a lease revocation by a client.
func (s *Server) RevokeLease(id lease.LeaseID) error {
	if err := s.Lessor.Revoke(id); err != nil {
		s.logger.Debug("revoke failed", zap.Int64("lease", int64(id)), zap.Error(err))
		return err
	}
	return nil
}

// TimeToLive describes one lease, with its keys when keys is set.
func (s *Server) TimeToLive(id lease.LeaseID, keys bool) (LeaseInfo, error) {
	l := s.Lessor.Lookup(id)
	if l == nil {
		return LeaseInfo{}, lease.ErrLeaseNotFound
	}
	return s.describe(l, keys), nil
}

// Leases describes every lease, without keys.
func (s *Server) Leases() []LeaseInfo {
	ls := s.Lessor.Leases()
	out := make([]LeaseInfo, len(ls))
	for i, l := range ls {
		out[i] = s.describe(l, false)
	}
	return out
}

func (s *Server) describe(l *lease.Lease, keys bool) LeaseInfo {
	info := LeaseInfo{ID: l.ID, TTL: l.TTL(), Remaining: -1}
	if s.Lessor.IsPrimary() {
		info.Remaining = int64(l.Remaining().Round(time.Second) / time.Second)
		if info.Remaining < 0 {
			info.Remaining = 0
		}
	}
	if keys {
		info.Keys = l.Keys()
	}
	return info
}

// Range returns the keys with prefix, at most limit of them (0: no limit), and whether
// more were left out.
func (s *Server) Range(prefix string, limit int) ([]mvcc.KeyValue, bool) {
	kvs := s.Store.Range(prefix)
	if limit > 0 && len(kvs) > limit {
		return kvs[:limit], true
	}
	return kvs, false
}

// Get returns one key.
func (s *Server) Get(key string) (mvcc.KeyValue, bool) {
	for _, kv := range s.Store.Range(key) {
		if kv.Key == key {
			return kv, true
		}
	}
	return mvcc.KeyValue{}, false
}

// DeleteKey is the API handler of a delete; it detaches the key from its lease first so
// that a later revocation does not count it.
func (s *Server) DeleteKey(key string) int64 {
	if id := s.Lessor.GetLease(lease.LeaseItem{Key: key}); id != lease.NoLease {
		_ = s.Lessor.Detach(id, []lease.LeaseItem{{Key: key}})
	}
	rev := s.Store.Delete(key)
	s.logger.Debug("delete", zap.String("key", key), zap.Int64("rev", rev))
	return rev
}
