// Package snap stores state machine snapshots as files named <term>-<index>.snap.
package snap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.uber.org/zap"
)

const snapSuffix = ".snap"

var (
	ErrNoSnapshot = errors.New("snap: no usable snapshot")
	ErrCRC        = errors.New("snap: crc mismatch")
	ErrEmpty      = errors.New("snap: empty snapshot file")
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Metadata says which log position a snapshot covers and who the voters were.
type Metadata struct {
	Index uint64
	Term  uint64
	Peers []uint64
}

// Snapshot is the state machine's data at Metadata.Index.
type Snapshot struct {
	Metadata Metadata
	Data     []byte
}

// Snapshotter saves and loads snapshots in one directory.
type Snapshotter struct {
	dir    string
	logger *zap.Logger
}

// New returns a snapshotter for dir, creating it if needed.
func New(dir string, logger *zap.Logger) (*Snapshotter, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	return &Snapshotter{dir: dir, logger: logger}, nil
}

func fileName(m Metadata) string {
	return fmt.Sprintf("%016x-%016x%s", m.Term, m.Index, snapSuffix)
}

// File layout: uint32 CRC-32C of the rest, uint64 index, uint64 term, uint32 peer count,
// peers, then the data.
func encode(s Snapshot) []byte {
	n := 8 + 8 + 4 + 8*len(s.Metadata.Peers) + len(s.Data)
	b := make([]byte, 4+n)
	body := b[4:]
	binary.BigEndian.PutUint64(body[0:8], s.Metadata.Index)
	binary.BigEndian.PutUint64(body[8:16], s.Metadata.Term)
	binary.BigEndian.PutUint32(body[16:20], uint32(len(s.Metadata.Peers)))
	off := 20
	for _, p := range s.Metadata.Peers {
		binary.BigEndian.PutUint64(body[off:off+8], p)
		off += 8
	}
	copy(body[off:], s.Data)
	binary.BigEndian.PutUint32(b[0:4], crc32.Checksum(body, crcTable))
	return b
}

func decode(b []byte) (Snapshot, error) {
	if len(b) == 0 {
		return Snapshot{}, ErrEmpty
	}
	if len(b) < 4+20 {
		return Snapshot{}, fmt.Errorf("snap: file of %d bytes is too short", len(b))
	}
	body := b[4:]
	if crc32.Checksum(body, crcTable) != binary.BigEndian.Uint32(b[0:4]) {
		return Snapshot{}, ErrCRC
	}
	var s Snapshot
	s.Metadata.Index = binary.BigEndian.Uint64(body[0:8])
	s.Metadata.Term = binary.BigEndian.Uint64(body[8:16])
	count := int(binary.BigEndian.Uint32(body[16:20]))
	off := 20
	if len(body) < off+8*count {
		return Snapshot{}, fmt.Errorf("snap: %d peers do not fit in %d bytes", count, len(body))
	}
	for i := 0; i < count; i++ {
		s.Metadata.Peers = append(s.Metadata.Peers, binary.BigEndian.Uint64(body[off:off+8]))
		off += 8
	}
	s.Data = body[off:]
	return s, nil
}

// Save writes s atomically: a temporary file, fsync, rename, fsync of the directory.
func (sn *Snapshotter) Save(s Snapshot) error {
	if s.Metadata.Index == 0 {
		return errors.New("snap: refusing to save a snapshot at index 0")
	}
	path := filepath.Join(sn.dir, fileName(s.Metadata))
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	if _, err := f.Write(encode(s)); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(sn.dir)
	if err != nil {
		return err
	}
	defer d.Close()
	sn.logger.Info("saved snapshot", zap.Uint64("index", s.Metadata.Index), zap.Uint64("term", s.Metadata.Term), zap.Int("bytes", len(s.Data)))
	return d.Sync()
}

// names returns the snapshot files, newest first (names sort by term, then index).
func (sn *Snapshotter) names() ([]string, error) {
	des, err := os.ReadDir(sn.dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, de := range des {
		if strings.HasSuffix(de.Name(), snapSuffix) {
			names = append(names, de.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	return names, nil
}

// Load returns the newest snapshot that decodes. Corrupt files are renamed to
// <name>.broken so the next start does not trip over them again.
func (sn *Snapshotter) Load() (Snapshot, error) {
	return sn.LoadMatching(func(Metadata) bool { return true })
}

// LoadMatching returns the newest decodable snapshot accepted by ok; the server uses it
// to skip snapshots newer than the WAL can vouch for.
func (sn *Snapshotter) LoadMatching(ok func(Metadata) bool) (Snapshot, error) {
	names, err := sn.names()
	if err != nil {
		return Snapshot{}, err
	}
	for _, name := range names {
		path := filepath.Join(sn.dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return Snapshot{}, err
		}
		s, err := decode(b)
		if err != nil {
			sn.logger.Warn("broken snapshot file", zap.String("file", name), zap.Error(err))
			if rerr := os.Rename(path, path+".broken"); rerr != nil {
				sn.logger.Warn("cannot rename broken snapshot", zap.Error(rerr))
			}
			continue
		}
		if ok(s.Metadata) {
			return s, nil
		}
	}
	return Snapshot{}, ErrNoSnapshot
}

// Purge removes all but the newest keep snapshot files.
func (sn *Snapshotter) Purge(keep int) (int, error) {
	names, err := sn.names()
	if err != nil {
		return 0, err
	}
	if len(names) <= keep {
		return 0, nil
	}
	removed := 0
	for _, name := range names[keep:] {
		if err := os.Remove(filepath.Join(sn.dir, name)); err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// Inspect decodes one snapshot file for raftkvctl without a Snapshotter.
func Inspect(path string) (Snapshot, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Snapshot{}, err
	}
	return decode(b)
}
