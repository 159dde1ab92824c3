package kv

import (
	"context"
	"math/rand"
	"time"

	"go.uber.org/zap"
)

// applyTimeout bounds how long a proposal waits to be applied when the caller's context
// has no earlier deadline; Put uses the same bound.
const applyTimeout = 5 * time.Second

// Delete proposes a delete and waits until it is applied.
func (s *Server) Delete(ctx context.Context, key string) error {
	id := rand.Uint64()
	applied := s.store.Wait(id)
	if err := s.node.Propose(ctx, Encode(Op{Kind: "delete", Key: key, ID: id})); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, applyTimeout)
	defer cancel()
	select {
	case <-applied:
		return nil
	case <-ctx.Done():
		s.logger.Warn("delete not applied in time", zap.String("key", key))
		return ctx.Err()
	}
}

// Get reads a key from the local replica. It may return a stale value on a follower or
// on a leader that was just deposed; the API documents reads as serializable only.
func (s *Server) Get(key string) (string, bool) {
	return s.store.Get(key)
}

// Status is what a node reports about itself.
type Status struct {
	LastApplied uint64
	Keys        int
}

// Status returns the local replica's status.
func (s *Server) Status() Status {
	return Status{LastApplied: s.store.LastApplied(), Keys: s.store.Len()}
}
