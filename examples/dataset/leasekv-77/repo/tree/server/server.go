package server

import (
	"context"
	"time"

	"go.leasekv.dev/leasekv/lease"
	"go.leasekv.dev/leasekv/mvcc"
	"go.uber.org/zap"
)

// Server wires the lessor and the store and revokes expired leases.
type Server struct {
	Lessor *lease.Lessor
	Store  *mvcc.Store
	logger *zap.Logger
}

// New returns a server; it becomes primary after the grace extension.
func New(logger *zap.Logger) *Server {
	lessor := lease.NewLessor(logger, 500*time.Millisecond)
	store := mvcc.NewStore(lessor)
	return &Server{Lessor: lessor, Store: store, logger: logger}
}

// Run promotes the lessor and revokes expired leases until ctx is done.
func (s *Server) Run(ctx context.Context, electionTimeout time.Duration) {
	s.Lessor.Promote(electionTimeout)
	for {
		select {
		case leases := <-s.Lessor.ExpiredLeasesC():
			for _, l := range leases {
				go s.revoke(l)
			}
		case <-ctx.Done():
			s.Lessor.Stop()
			return
		}
	}
}

func (s *Server) revoke(l *lease.Lease) {
	s.logger.Info("lease expired", zap.Int64("lease", int64(l.ID)), zap.Int64("ttl", l.TTL()))
	if err := s.Lessor.Revoke(l.ID); err != nil && err != lease.ErrLeaseNotFound {
		s.logger.Warn("failed to revoke lease", zap.Int64("lease", int64(l.ID)), zap.Error(err))
	}
}

// PutWithLease is the API handler of a put with a lease.
func (s *Server) PutWithLease(key string, value []byte, id lease.LeaseID) (int64, error) {
	rev, err := s.Store.Put(key, value, id)
	if err != nil {
		s.logger.Debug("put rejected", zap.String("key", key), zap.Error(err))
		return 0, err
	}
	s.logger.Debug("put", zap.String("key", key), zap.Int64("lease", int64(id)), zap.Int64("rev", rev))
	return rev, nil
}

// KeepAlive is the API handler of a lease keep-alive.
func (s *Server) KeepAlive(id lease.LeaseID) (int64, error) {
	ttl, err := s.Lessor.Renew(id)
	if err != nil {
		s.logger.Debug("keepalive failed", zap.Int64("lease", int64(id)), zap.Error(err))
	}
	return ttl, err
}
