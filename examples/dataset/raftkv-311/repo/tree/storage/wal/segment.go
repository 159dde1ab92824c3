package wal

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A segment file is named <seq>-<index>.wal, both 16 hex digits: seq counts segments,
// index is the raft index of the first entry the segment may hold.
func segmentName(seq, index uint64) string {
	return fmt.Sprintf("%016x-%016x.wal", seq, index)
}

func parseSegmentName(name string) (seq, index uint64, err error) {
	if !strings.HasSuffix(name, ".wal") {
		return 0, 0, fmt.Errorf("wal: %q is not a segment", name)
	}
	_, err = fmt.Sscanf(name, "%016x-%016x.wal", &seq, &index)
	return seq, index, err
}

// segmentNames returns the segment files of dir in order, skipping anything else (the
// lock file, temporary files of an interrupted cut).
func segmentNames(dir string) ([]string, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, de := range des {
		if de.IsDir() {
			continue
		}
		if _, _, err := parseSegmentName(de.Name()); err == nil {
			names = append(names, de.Name())
		}
	}
	sort.Strings(names)
	if err := checkSequence(names); err != nil {
		return nil, err
	}
	return names, nil
}

// checkSequence verifies that segment numbers increase by one: a gap means a segment
// was deleted by hand and replay would silently skip entries.
func checkSequence(names []string) error {
	var last uint64
	for i, n := range names {
		seq, _, _ := parseSegmentName(n)
		if i > 0 && seq != last+1 {
			return fmt.Errorf("wal: segment %s follows sequence %d", n, last)
		}
		last = seq
	}
	return nil
}

// searchIndex returns the position of the last segment whose first index is at most
// index: replay for a snapshot at index starts there.
func searchIndex(names []string, index uint64) (int, bool) {
	for i := len(names) - 1; i >= 0; i-- {
		_, first, _ := parseSegmentName(names[i])
		if first <= index {
			return i, true
		}
	}
	return -1, false
}

// Exist tells whether dir holds at least one segment.
func Exist(dir string) bool {
	names, err := segmentNames(dir)
	return err == nil && len(names) > 0
}

// segmentsBefore returns the segments that hold only entries below index and can be
// removed once a snapshot covers index. The segment holding index itself stays.
func segmentsBefore(names []string, index uint64) []string {
	pos, ok := searchIndex(names, index)
	if !ok || pos == 0 {
		return nil
	}
	return names[:pos]
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func segmentPath(dir, name string) string { return filepath.Join(dir, name) }
