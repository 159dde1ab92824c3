package kv

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"sync"

	"github.com/raftkv/raftkv/raft"
	"go.uber.org/zap"
)

// Op is a command of the key-value state machine.
type Op struct {
	Kind  string // "put" or "delete"
	Key   string
	Value string
	// ID lets the client match its proposal to the applied entry.
	ID uint64
}

// Store is the replicated map. Committed entries are applied in log order.
type Store struct {
	mu          sync.RWMutex
	data        map[string]string
	lastApplied uint64
	waiters     map[uint64]chan struct{}
	logger      *zap.Logger
}

// NewStore returns an empty store.
func NewStore(logger *zap.Logger) *Store {
	return &Store{data: make(map[string]string), waiters: make(map[uint64]chan struct{}), logger: logger}
}

// Encode serializes an op for a proposal.
func Encode(op Op) []byte {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(op); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Apply applies committed entries; it is called by the Ready loop only.
func (s *Store) Apply(ents []raft.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range ents {
		if e.Index != s.lastApplied+1 {
			panic(fmt.Sprintf("apply gap: last applied %d, next entry %d", s.lastApplied, e.Index))
		}
		s.lastApplied = e.Index
		if e.Type != raft.EntryNormal || len(e.Data) == 0 {
			continue
		}
		var op Op
		if err := gob.NewDecoder(bytes.NewReader(e.Data)).Decode(&op); err != nil {
			s.logger.Error("undecodable entry", zap.Uint64("index", e.Index), zap.Error(err))
			continue
		}
		switch op.Kind {
		case "put":
			s.data[op.Key] = op.Value
		case "delete":
			delete(s.data, op.Key)
		}
		if w, ok := s.waiters[op.ID]; ok {
			close(w)
			delete(s.waiters, op.ID)
		}
	}
}

// Get reads a key from the local replica.
func (s *Store) Get(key string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.data[key]
	return v, ok
}

// Wait returns a channel closed when the op with this id is applied.
func (s *Store) Wait(id uint64) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := make(chan struct{})
	s.waiters[id] = w
	return w
}

// LastApplied returns the index of the last applied entry.
func (s *Store) LastApplied() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.lastApplied
}
