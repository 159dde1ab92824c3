package kv

import (
	"context"
	"math/rand"
	"time"

	"github.com/raftkv/raftkv/raft"
	"go.uber.org/zap"
)

// Transport delivers raft messages to peers.
type Transport interface {
	Send(msgs []raft.Message)
}

// Server drives a raft node and the store.
type Server struct {
	node      *raft.Node
	store     *Store
	transport Transport
	logger    *zap.Logger
}

// NewServer wires a node, a store and a transport.
func NewServer(node *raft.Node, store *Store, transport Transport, logger *zap.Logger) *Server {
	return &Server{node: node, store: store, transport: transport, logger: logger}
}

// Run handles Ready batches until ctx is done.
func (s *Server) Run(ctx context.Context) {
	for {
		select {
		case rd := <-s.node.Ready():
			s.transport.Send(rd.Messages)
			if len(rd.CommittedEntries) > 0 {
				s.store.Apply(rd.CommittedEntries)
			}
			s.node.Advance()
		case <-ctx.Done():
			return
		}
	}
}

// Put proposes a put and waits until it is applied.
func (s *Server) Put(ctx context.Context, key, value string) error {
	id := rand.Uint64()
	applied := s.store.Wait(id)
	if err := s.node.Propose(ctx, Encode(Op{Kind: "put", Key: key, Value: value, ID: id})); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	select {
	case <-applied:
		return nil
	case <-ctx.Done():
		s.logger.Warn("put not applied in time", zap.String("key", key))
		return ctx.Err()
	}
}
