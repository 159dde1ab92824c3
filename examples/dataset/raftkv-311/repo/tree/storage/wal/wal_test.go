package wal

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/raftkv/raftkv/raft"
)

func entries(term uint64, from, to uint64) []raft.Entry {
	var ents []raft.Entry
	for i := from; i <= to; i++ {
		ents = append(ents, raft.Entry{Term: term, Index: i, Data: []byte{byte(i)}})
	}
	return ents
}

func reopen(t *testing.T, dir string, at SnapshotMark) ([]byte, HardState, []raft.Entry, *WAL) {
	t.Helper()
	w, err := Open(dir, at, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	md, st, ents, err := w.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return md, st, ents, w
}

func TestSaveAndReplay(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, []byte("node-1"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Save(HardState{Term: 1, Vote: 1, Commit: 2}, entries(1, 1, 3)); err != nil {
		t.Fatal(err)
	}
	w.Close()

	md, st, ents, w2 := reopen(t, dir, SnapshotMark{})
	defer w2.Close()
	if string(md) != "node-1" {
		t.Fatalf("metadata %q", md)
	}
	if st != (HardState{Term: 1, Vote: 1, Commit: 2}) {
		t.Fatalf("state %+v", st)
	}
	if len(ents) != 3 || ents[2].Index != 3 {
		t.Fatalf("entries %+v", ents)
	}
}

func TestReplayReplacesOverwrittenTail(t *testing.T) {
	dir := t.TempDir()
	w, _ := Create(dir, nil, Options{NoSync: true})
	w.Save(HardState{Term: 1}, entries(1, 1, 5))
	// a leader of term 2 replaced entries from index 4 on
	w.Save(HardState{Term: 2}, entries(2, 4, 4))
	w.Close()

	_, _, ents, w2 := reopen(t, dir, SnapshotMark{})
	defer w2.Close()
	if len(ents) != 4 {
		t.Fatalf("got %d entries, want 4", len(ents))
	}
	if ents[3].Term != 2 || ents[2].Term != 1 {
		t.Fatalf("entries %+v", ents)
	}
}

func TestReplayFromSnapshotAcrossSegments(t *testing.T) {
	dir := t.TempDir()
	w, _ := Create(dir, []byte("m"), Options{NoSync: true, SegmentSize: 256})
	for i := uint64(1); i <= 40; i += 4 {
		if err := w.Save(HardState{Term: 3, Commit: i}, entries(3, i, i+3)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.SaveSnapshot(SnapshotMark{Index: 20, Term: 3}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	names, _ := segmentNames(dir)
	if len(names) < 3 {
		t.Fatalf("expected several segments, got %v", names)
	}

	_, _, ents, w2 := reopen(t, dir, SnapshotMark{Index: 20, Term: 3})
	if len(ents) != 20 || ents[0].Index != 21 {
		t.Fatalf("got %d entries starting at %d", len(ents), ents[0].Index)
	}
	n, err := w2.PurgeBefore(20)
	if err != nil || n == 0 {
		t.Fatalf("purged %d segments: %v", n, err)
	}
	w2.Close()
	// replay still works after the purge
	_, _, ents, w3 := reopen(t, dir, SnapshotMark{Index: 20, Term: 3})
	defer w3.Close()
	if len(ents) != 20 {
		t.Fatalf("after purge: %d entries", len(ents))
	}
}

func TestRepairTornTail(t *testing.T) {
	dir := t.TempDir()
	w, _ := Create(dir, nil, Options{NoSync: true})
	w.Save(HardState{Term: 1}, entries(1, 1, 3))
	w.Close()

	names, _ := segmentNames(dir)
	path := segmentPath(dir, names[len(names)-1])
	st, _ := os.Stat(path)
	// cut the last record in half, as a crash during write would
	if err := os.Truncate(path, st.Size()-5); err != nil {
		t.Fatal(err)
	}
	w2, _ := Open(dir, SnapshotMark{}, Options{NoSync: true})
	if _, _, _, err := w2.ReadAll(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want a torn record", err)
	}
	ok, err := Repair(dir, nil)
	if !ok || err != nil {
		t.Fatalf("repair: %v %v", ok, err)
	}
	// the torn record was the hard state written after the entries
	_, hs, ents, w3 := reopen(t, dir, SnapshotMark{})
	defer w3.Close()
	if len(ents) != 3 || !hs.IsEmpty() {
		t.Fatalf("got %d entries and state %+v after repair, want 3 and none", len(ents), hs)
	}
	if _, err := os.Stat(path + ".broken"); err != nil {
		t.Fatalf("no copy of the broken segment: %v", err)
	}
}

func TestSegmentGapIsAnError(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{segmentName(0, 0), segmentName(2, 10)} {
		os.WriteFile(segmentPath(dir, n), nil, 0o640)
	}
	if _, err := segmentNames(dir); err == nil {
		t.Fatal("expected an error for a missing segment")
	}
}
