// Package wal is raftkv's write-ahead log: the hard state and the entries of the raft
// log, appended to segment files and replayed on restart.
package wal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/raftkv/raftkv/metrics"
	"github.com/raftkv/raftkv/raft"
	"go.uber.org/zap"
)

// DefaultSegmentSize is the size after which the WAL starts a new segment.
const DefaultSegmentSize = 64 << 20

var (
	ErrMetadataConflict = errors.New("wal: conflicting metadata found")
	ErrSnapshotNotFound = errors.New("wal: snapshot mark not found")
	ErrExist            = errors.New("wal: directory already holds segments")
)

var (
	fsyncSeconds = metrics.Default.Histogram("raftkv_wal_fsync_seconds",
		"Latency of WAL fsyncs.", nil, metrics.ExponentialBuckets(0.0005, 2, 14))
	savedBytes = metrics.Default.Counter("raftkv_wal_written_bytes_total",
		"Bytes appended to the WAL.", nil)
)

// Options tune a WAL.
type Options struct {
	SegmentSize int64
	// NoSync skips fsync; only tests and benchmarks set it.
	NoSync bool
	Logger *zap.Logger
}

// WAL appends records to the tail segment. It is opened either for appending (Create)
// or for reading then appending (Open, then ReadAll).
type WAL struct {
	dir      string
	opts     Options
	metadata []byte
	start    SnapshotMark
	state    HardState

	tail    *os.File
	enc     *encoder
	seq     uint64
	size    int64
	lastIdx uint64

	// set by Open, consumed by ReadAll
	readNames []string
	readPos   int
}

func (o *Options) fill() {
	if o.SegmentSize <= 0 {
		o.SegmentSize = DefaultSegmentSize
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
}

// Create makes a new WAL in dir with metadata (the node and cluster ids).
func Create(dir string, metadata []byte, opts Options) (*WAL, error) {
	opts.fill()
	if Exist(dir) {
		return nil, ErrExist
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	w := &WAL{dir: dir, opts: opts, metadata: metadata}
	if err := w.openSegment(0, 0); err != nil {
		return nil, err
	}
	if err := w.append(&record{typ: metadataRecord, data: metadata}); err != nil {
		return nil, err
	}
	if err := w.SaveSnapshot(SnapshotMark{}); err != nil {
		return nil, err
	}
	return w, nil
}

// Open opens the WAL in dir to replay from the snapshot mark at; call ReadAll before
// appending.
func Open(dir string, at SnapshotMark, opts Options) (*WAL, error) {
	opts.fill()
	names, err := segmentNames(dir)
	if err != nil {
		return nil, err
	}
	pos, ok := searchIndex(names, at.Index)
	if !ok {
		return nil, ErrSnapshotNotFound
	}
	return &WAL{dir: dir, opts: opts, start: at, readNames: names[pos:]}, nil
}

// ReadAll replays the segments: the metadata, the last hard state, and the entries after
// the snapshot mark. A later entry with the same index replaces the earlier one and
// everything after it (a new leader overwrote an uncommitted tail). A torn last record
// is reported as io.ErrUnexpectedEOF so the caller can Repair and retry.
func (w *WAL) ReadAll() (metadata []byte, state HardState, ents []raft.Entry, err error) {
	if w.readNames == nil {
		return nil, HardState{}, nil, errors.New("wal: ReadAll on a WAL that was not opened for reading")
	}
	matched := w.start.Index == 0
	for i, name := range w.readNames {
		f, err := os.Open(segmentPath(w.dir, name))
		if err != nil {
			return nil, HardState{}, nil, err
		}
		dec := newDecoder(f)
		last := i == len(w.readNames)-1
		for {
			rec, derr := dec.decode()
			if derr == io.EOF || (derr == errZeroRecord && last) {
				break
			}
			if derr != nil {
				f.Close()
				return nil, HardState{}, nil, fmt.Errorf("%s at offset %d: %w", name, dec.offset, derr)
			}
			switch rec.typ {
			case metadataRecord:
				if metadata != nil && string(metadata) != string(rec.data) {
					f.Close()
					return nil, HardState{}, nil, ErrMetadataConflict
				}
				metadata = rec.data
			case entryRecord:
				e, err := decodeEntry(rec.data)
				if err != nil {
					f.Close()
					return nil, HardState{}, nil, err
				}
				if e.Index <= w.start.Index {
					continue
				}
				pos := e.Index - w.start.Index - 1
				if pos > uint64(len(ents)) {
					f.Close()
					return nil, HardState{}, nil, fmt.Errorf("wal: entry %d follows %d entries after snapshot %d", e.Index, len(ents), w.start.Index)
				}
				ents = append(ents[:pos], e)
				w.lastIdx = e.Index
			case stateRecord:
				if state, err = decodeState(rec.data); err != nil {
					f.Close()
					return nil, HardState{}, nil, err
				}
			case snapshotRecord:
				m, err := decodeSnapshotMark(rec.data)
				if err != nil {
					f.Close()
					return nil, HardState{}, nil, err
				}
				if m.Index == w.start.Index {
					if m.Term != w.start.Term {
						f.Close()
						return nil, HardState{}, nil, fmt.Errorf("wal: snapshot %d has term %d, want %d", m.Index, m.Term, w.start.Term)
					}
					matched = true
				}
			default:
				f.Close()
				return nil, HardState{}, nil, fmt.Errorf("wal: unknown %s in %s", rec.typ, name)
			}
		}
		if !last {
			f.Close()
			continue
		}
		// the last segment becomes the tail: continue appending after the last good record
		seq, _, _ := parseSegmentName(name)
		f.Close()
		if err := w.reopenTail(name, seq, dec.offset); err != nil {
			return nil, HardState{}, nil, err
		}
	}
	if !matched {
		return nil, HardState{}, nil, ErrSnapshotNotFound
	}
	if w.lastIdx < w.start.Index {
		w.lastIdx = w.start.Index
	}
	w.metadata, w.state, w.readNames = metadata, state, nil
	return metadata, state, ents, nil
}

func (w *WAL) reopenTail(name string, seq uint64, offset int64) error {
	f, err := os.OpenFile(segmentPath(w.dir, name), os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	// drop the zeroed or torn space after the last good record
	if err := f.Truncate(offset); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	w.tail, w.enc, w.seq, w.size = f, newEncoder(f), seq, offset
	return nil
}

func (w *WAL) openSegment(seq, firstIndex uint64) error {
	path := segmentPath(w.dir, segmentName(seq, firstIndex))
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		f.Close()
		return err
	}
	if err := syncDir(w.dir); err != nil {
		f.Close()
		return err
	}
	w.tail, w.enc, w.seq, w.size = f, newEncoder(f), seq, 0
	return nil
}

func (w *WAL) append(r *record) error {
	n, err := w.enc.encode(r)
	w.size += int64(n)
	savedBytes.Add(uint64(n))
	return err
}

// Save appends entries and, when it changed, the hard state, then syncs. Raft may send
// messages that depend on them only after Save returns.
func (w *WAL) Save(st HardState, ents []raft.Entry) error {
	if w.tail == nil {
		return errors.New("wal: Save before ReadAll")
	}
	if st.IsEmpty() && len(ents) == 0 {
		return nil
	}
	for i := range ents {
		if err := w.append(&record{typ: entryRecord, data: encodeEntry(ents[i])}); err != nil {
			return err
		}
		w.lastIdx = ents[i].Index
	}
	if !st.IsEmpty() && st != w.state {
		if err := w.append(&record{typ: stateRecord, data: encodeState(st)}); err != nil {
			return err
		}
		w.state = st
	}
	if err := w.sync(); err != nil {
		return err
	}
	if w.size >= w.opts.SegmentSize {
		return w.cut()
	}
	return nil
}

// SaveSnapshot records that a snapshot at m was persisted.
func (w *WAL) SaveSnapshot(m SnapshotMark) error {
	if err := w.append(&record{typ: snapshotRecord, data: encodeSnapshotMark(m)}); err != nil {
		return err
	}
	if m.Index > w.lastIdx {
		w.lastIdx = m.Index
	}
	return w.sync()
}

// cut closes the tail and starts a new segment that repeats the metadata and state, so
// that each segment can be replayed on its own once older ones are purged.
func (w *WAL) cut() error {
	if err := w.tail.Close(); err != nil {
		return err
	}
	if err := w.openSegment(w.seq+1, w.lastIdx+1); err != nil {
		return err
	}
	if err := w.append(&record{typ: metadataRecord, data: w.metadata}); err != nil {
		return err
	}
	if err := w.append(&record{typ: stateRecord, data: encodeState(w.state)}); err != nil {
		return err
	}
	w.opts.Logger.Info("wal: started a new segment", zap.Uint64("seq", w.seq), zap.Uint64("first-index", w.lastIdx+1))
	return w.sync()
}

func (w *WAL) sync() error {
	if err := w.enc.flush(); err != nil {
		return err
	}
	if w.opts.NoSync {
		return nil
	}
	start := time.Now()
	err := w.tail.Sync()
	took := time.Since(start)
	fsyncSeconds.Observe(took.Seconds())
	if took > time.Second {
		w.opts.Logger.Warn("wal: slow fsync", zap.Duration("took", took))
	}
	return err
}

// PurgeBefore removes the segments that hold only entries below index; call it after a
// snapshot at index was saved.
func (w *WAL) PurgeBefore(index uint64) (int, error) {
	names, err := segmentNames(w.dir)
	if err != nil {
		return 0, err
	}
	old := segmentsBefore(names, index)
	for _, n := range old {
		if err := os.Remove(filepath.Join(w.dir, n)); err != nil {
			return 0, err
		}
	}
	return len(old), syncDir(w.dir)
}

// Close flushes and closes the tail segment.
func (w *WAL) Close() error {
	if w.tail == nil {
		return nil
	}
	if err := w.sync(); err != nil {
		w.tail.Close()
		return err
	}
	return w.tail.Close()
}
