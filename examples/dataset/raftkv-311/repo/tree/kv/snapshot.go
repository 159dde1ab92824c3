package kv

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"sort"

	"go.uber.org/zap"
)

// snapshotData is the gob form of the store in a snapshot file.
type snapshotData struct {
	Version int
	Keys    []string
	Values  []string
}

const snapshotVersion = 1

// Snapshot serializes the data as of the last applied entry and returns that index.
func (s *Store) Snapshot() ([]byte, uint64, error) {
	s.mu.RLock()
	keys := make([]string, 0, len(s.data))
	for k := range s.data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	sd := snapshotData{Version: snapshotVersion, Keys: keys, Values: make([]string, len(keys))}
	for i, k := range keys {
		sd.Values[i] = s.data[k]
	}
	index := s.lastApplied
	s.mu.RUnlock()

	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&sd); err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), index, nil
}

// Restore replaces the data with a snapshot taken at index. Waiters of ops the snapshot
// already covers are released: their effect is part of the restored data.
func (s *Store) Restore(data []byte, index uint64) error {
	var sd snapshotData
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&sd); err != nil {
		return fmt.Errorf("kv: cannot decode snapshot: %w", err)
	}
	if sd.Version != snapshotVersion {
		return fmt.Errorf("kv: snapshot version %d, want %d", sd.Version, snapshotVersion)
	}
	if len(sd.Keys) != len(sd.Values) {
		return fmt.Errorf("kv: snapshot has %d keys and %d values", len(sd.Keys), len(sd.Values))
	}
	m := make(map[string]string, len(sd.Keys))
	for i, k := range sd.Keys {
		m[k] = sd.Values[i]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if index < s.lastApplied {
		return fmt.Errorf("kv: snapshot at %d is older than the applied index %d", index, s.lastApplied)
	}
	s.data = m
	s.lastApplied = index
	for id, w := range s.waiters {
		close(w)
		delete(s.waiters, id)
	}
	s.logger.Info("restored snapshot", zap.Uint64("index", index), zap.Int("keys", len(m)))
	return nil
}

// Len returns the number of keys.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.data)
}
