// Package backend persists leasekv's state in one append-only file of committed
// batches. Opening replays the file into memory; Defrag rewrites it with only the live
// values once most of it is garbage.
package backend

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Bucket groups keys of one kind.
type Bucket string

const (
	BucketKey   Bucket = "key"
	BucketLease Bucket = "lease"
	BucketMeta  Bucket = "meta"
)

var (
	ErrClosed     = errors.New("backend: closed")
	ErrCorrupt    = errors.New("backend: corrupt batch")
	errTornBatch  = errors.New("backend: torn batch at the end of the file")
	maxBatchBytes = uint32(256 << 20)
)

// Config configures a backend.
type Config struct {
	Path string
	// BatchInterval is the longest time a write waits in memory before it is committed.
	BatchInterval time.Duration
	// BatchLimit commits as soon as this many operations are pending.
	BatchLimit int
	NoSync     bool
	Logger     *zap.Logger
}

// Backend holds the data in memory and appends every committed batch to its file.
type Backend struct {
	cfg Config

	mu   sync.RWMutex
	data map[Bucket]map[string][]byte
	f    *os.File
	// size is the file's length; inUse the bytes its live values would need.
	size  int64
	inUse int64

	tx *BatchTx

	commits   uint64
	lastFsync time.Duration

	stopc chan struct{}
	donec chan struct{}
}

// Open opens or creates the backend file and replays it. A torn batch at the end (a
// crash during a commit) is cut off; corruption elsewhere is an error.
func Open(cfg Config) (*Backend, error) {
	if cfg.BatchInterval <= 0 {
		cfg.BatchInterval = 100 * time.Millisecond
	}
	if cfg.BatchLimit <= 0 {
		cfg.BatchLimit = 10000
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	f, err := os.OpenFile(cfg.Path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	b := &Backend{
		cfg:   cfg,
		data:  map[Bucket]map[string][]byte{BucketKey: {}, BucketLease: {}, BucketMeta: {}},
		f:     f,
		stopc: make(chan struct{}),
		donec: make(chan struct{}),
	}
	if err := b.replay(); err != nil {
		f.Close()
		return nil, err
	}
	b.tx = &BatchTx{b: b}
	go b.run()
	return b, nil
}

func (b *Backend) replay() error {
	st, err := b.f.Stat()
	if err != nil {
		return err
	}
	r := bufio.NewReader(b.f)
	var off int64
	for {
		ops, n, err := readBatch(r)
		if err == io.EOF {
			break
		}
		// a bad last batch is a commit the crash interrupted: drop it
		torn := err == errTornBatch || (errors.Is(err, ErrCorrupt) && off+n == st.Size())
		if torn {
			b.cfg.Logger.Warn("backend: dropping a torn batch", zap.String("path", b.cfg.Path), zap.Int64("offset", off))
			if err := b.f.Truncate(off); err != nil {
				return err
			}
			break
		}
		if err != nil {
			return fmt.Errorf("%s at offset %d: %w", b.cfg.Path, off, err)
		}
		for _, o := range ops {
			b.applyLocked(o)
		}
		off += n
	}
	b.size = off
	_, err = b.f.Seek(off, io.SeekStart)
	return err
}

// applyLocked applies one operation to the in-memory data.
func (b *Backend) applyLocked(o op) {
	m := b.data[o.bucket]
	if m == nil {
		m = map[string][]byte{}
		b.data[o.bucket] = m
	}
	if old, ok := m[o.key]; ok {
		b.inUse -= int64(len(o.key) + len(old))
	}
	if o.del {
		delete(m, o.key)
		return
	}
	m[o.key] = o.value
	b.inUse += int64(len(o.key) + len(o.value))
}

// BatchTx returns the backend's single write transaction.
func (b *Backend) BatchTx() *BatchTx { return b.tx }

// Get reads a value; it sees writes of the batch transaction before they are committed.
func (b *Backend) Get(bucket Bucket, key string) ([]byte, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	v, ok := b.data[bucket][key]
	return v, ok
}

// ForEach calls fn for every key of bucket in key order.
func (b *Backend) ForEach(bucket Bucket, fn func(key string, value []byte) error) error {
	b.mu.RLock()
	m := b.data[bucket]
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	values := make([][]byte, len(keys))
	sort.Strings(keys)
	for i, k := range keys {
		values[i] = m[k]
	}
	b.mu.RUnlock()
	for i, k := range keys {
		if err := fn(k, values[i]); err != nil {
			return err
		}
	}
	return nil
}

func (b *Backend) run() {
	defer close(b.donec)
	t := time.NewTicker(b.cfg.BatchInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := b.tx.Commit(); err != nil {
				b.cfg.Logger.Error("backend: periodic commit failed", zap.Error(err))
			}
		case <-b.stopc:
			return
		}
	}
}

// appendBatch writes one encoded batch and syncs; the caller holds the tx lock.
func (b *Backend) appendBatch(buf []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.f == nil {
		return ErrClosed
	}
	if _, err := b.f.Write(buf); err != nil {
		return err
	}
	b.size += int64(len(buf))
	b.commits++
	if b.cfg.NoSync {
		return nil
	}
	start := time.Now()
	err := b.f.Sync()
	b.lastFsync = time.Since(start)
	return err
}

// Stats describes the backend for metrics and the status endpoint.
type Stats struct {
	Size      int64
	SizeInUse int64
	Commits   uint64
	LastFsync time.Duration
	Keys      int
	Leases    int
}

func (b *Backend) Stats() Stats {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return Stats{Size: b.size, SizeInUse: b.inUse, Commits: b.commits, LastFsync: b.lastFsync,
		Keys: len(b.data[BucketKey]), Leases: len(b.data[BucketLease])}
}

// Defrag rewrites the file with only the live values, as one batch.
func (b *Backend) Defrag() error {
	b.tx.Lock()
	defer b.tx.Unlock()
	if err := b.tx.commitLocked(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var ops []op
	for bucket, m := range b.data {
		for k, v := range m {
			ops = append(ops, op{bucket: bucket, key: k, value: v})
		}
	}
	tmp := b.cfg.Path + ".defrag"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	buf := encodeBatch(ops)
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := os.Rename(tmp, b.cfg.Path); err != nil {
		f.Close()
		return err
	}
	before := b.size
	b.f.Close()
	b.f, b.size = f, int64(len(buf))
	b.cfg.Logger.Info("backend: defragmented", zap.Int64("before", before), zap.Int64("after", b.size))
	return nil
}

// Close commits what is pending and closes the file.
func (b *Backend) Close() error {
	close(b.stopc)
	<-b.donec
	if err := b.tx.Commit(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.f.Close()
	b.f = nil
	return err
}

// A batch on disk: uint32 length of the body, uint32 CRC-32 (IEEE) of the body, then
// the operations: uint8 kind (0 put, 1 delete), uint8 bucket length, bucket, uint32 key
// length, key, and for puts uint32 value length, value.
func encodeBatch(ops []op) []byte {
	n := 0
	for _, o := range ops {
		n += 1 + 1 + len(o.bucket) + 4 + len(o.key)
		if !o.del {
			n += 4 + len(o.value)
		}
	}
	buf := make([]byte, 8, 8+n)
	for _, o := range ops {
		kind := byte(0)
		if o.del {
			kind = 1
		}
		buf = append(buf, kind, byte(len(o.bucket)))
		buf = append(buf, o.bucket...)
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(o.key)))
		buf = append(buf, o.key...)
		if !o.del {
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(o.value)))
			buf = append(buf, o.value...)
		}
	}
	binary.BigEndian.PutUint32(buf[0:4], uint32(n))
	binary.BigEndian.PutUint32(buf[4:8], crc32.ChecksumIEEE(buf[8:]))
	return buf
}

// readBatch reads one batch and returns its size on disk. A batch that is cut short is
// errTornBatch; a checksum mismatch is ErrCorrupt, and the caller decides whether it is
// a torn last batch by where it ends.
func readBatch(r io.Reader) ([]op, int64, error) {
	var hdr [8]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, 0, errTornBatch
		}
		return nil, 0, err
	}
	n := binary.BigEndian.Uint32(hdr[0:4])
	if n > maxBatchBytes {
		return nil, 8, ErrCorrupt
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, 0, errTornBatch
	}
	size := int64(8 + n)
	if crc32.ChecksumIEEE(body) != binary.BigEndian.Uint32(hdr[4:8]) {
		return nil, size, ErrCorrupt
	}
	ops, err := decodeOps(body)
	return ops, size, err
}

func decodeOps(b []byte) ([]op, error) {
	var ops []op
	for len(b) > 0 {
		if len(b) < 2 {
			return nil, ErrCorrupt
		}
		o := op{del: b[0] == 1}
		bl := int(b[1])
		b = b[2:]
		if len(b) < bl+4 {
			return nil, ErrCorrupt
		}
		o.bucket = Bucket(b[:bl])
		b = b[bl:]
		var err error
		if o.key, b, err = readField(b); err != nil {
			return nil, err
		}
		if !o.del {
			var v string
			if v, b, err = readField(b); err != nil {
				return nil, err
			}
			o.value = []byte(v)
		}
		ops = append(ops, o)
	}
	return ops, nil
}

func readField(b []byte) (string, []byte, error) {
	if len(b) < 4 {
		return "", nil, ErrCorrupt
	}
	n := int(binary.BigEndian.Uint32(b[:4]))
	if len(b) < 4+n {
		return "", nil, ErrCorrupt
	}
	return string(b[4 : 4+n]), b[4+n:], nil
}
