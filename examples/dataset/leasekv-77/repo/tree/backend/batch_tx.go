package backend

import (
	"sync"

	"go.uber.org/zap"
)

type op struct {
	bucket Bucket
	key    string
	value  []byte
	del    bool
}

// BatchTx is the backend's one write transaction. Writes apply to memory at once and
// reach the file at the next commit: every BatchInterval, when BatchLimit operations
// are pending, or on Commit. Callers hold Lock around the Unsafe methods.
type BatchTx struct {
	mu      sync.Mutex
	b       *Backend
	pending []op
}

// Lock locks the transaction for a group of writes.
func (t *BatchTx) Lock() { t.mu.Lock() }

// Unlock unlocks it, committing first when the batch is full.
func (t *BatchTx) Unlock() {
	if len(t.pending) >= t.b.cfg.BatchLimit {
		if err := t.commitLocked(); err != nil {
			t.b.cfg.Logger.Error("backend: commit of a full batch failed", zap.Error(err))
		}
	}
	t.mu.Unlock()
}

// UnsafePut writes key in bucket; the caller holds the lock.
func (t *BatchTx) UnsafePut(bucket Bucket, key string, value []byte) {
	o := op{bucket: bucket, key: key, value: append([]byte(nil), value...)}
	t.apply(o)
}

// UnsafeDelete deletes key from bucket; the caller holds the lock.
func (t *BatchTx) UnsafeDelete(bucket Bucket, key string) {
	t.apply(op{bucket: bucket, key: key, del: true})
}

func (t *BatchTx) apply(o op) {
	t.b.mu.Lock()
	t.b.applyLocked(o)
	t.b.mu.Unlock()
	t.pending = append(t.pending, o)
}

// Commit writes the pending operations to the file and syncs it.
func (t *BatchTx) Commit() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.commitLocked()
}

func (t *BatchTx) commitLocked() error {
	if len(t.pending) == 0 {
		return nil
	}
	if err := t.b.appendBatch(encodeBatch(t.pending)); err != nil {
		return err
	}
	t.pending = t.pending[:0]
	return nil
}

// Pending returns the number of operations not yet committed.
func (t *BatchTx) Pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pending)
}
