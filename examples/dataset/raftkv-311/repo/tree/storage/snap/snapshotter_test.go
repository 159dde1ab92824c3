package snap

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestSaveLoadNewest(t *testing.T) {
	sn, err := New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Metadata{{Index: 100, Term: 2, Peers: []uint64{1, 2, 3}}, {Index: 250, Term: 3, Peers: []uint64{1, 2, 3}}} {
		if err := sn.Save(Snapshot{Metadata: m, Data: []byte("state")}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := sn.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.Metadata.Index != 250 || len(s.Metadata.Peers) != 3 || string(s.Data) != "state" {
		t.Fatalf("loaded %+v", s)
	}
}

func TestLoadSkipsBrokenFiles(t *testing.T) {
	dir := t.TempDir()
	sn, _ := New(dir, nil)
	sn.Save(Snapshot{Metadata: Metadata{Index: 10, Term: 1}, Data: []byte("old")})
	sn.Save(Snapshot{Metadata: Metadata{Index: 20, Term: 1}, Data: []byte("new")})
	newest := filepath.Join(dir, fileName(Metadata{Index: 20, Term: 1}))
	b, _ := os.ReadFile(newest)
	b[len(b)-1] ^= 0xff
	os.WriteFile(newest, b, 0o640)

	s, err := sn.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.Metadata.Index != 10 {
		t.Fatalf("loaded index %d, want the older good snapshot", s.Metadata.Index)
	}
	if _, err := os.Stat(newest + ".broken"); err != nil {
		t.Fatal("the broken snapshot was not set aside")
	}
}

func TestLoadMatchingAndPurge(t *testing.T) {
	sn, _ := New(t.TempDir(), nil)
	for i := uint64(1); i <= 4; i++ {
		sn.Save(Snapshot{Metadata: Metadata{Index: i * 10, Term: 1}})
	}
	s, err := sn.LoadMatching(func(m Metadata) bool { return m.Index <= 25 })
	if err != nil || s.Metadata.Index != 20 {
		t.Fatalf("got %+v, %v", s.Metadata, err)
	}
	n, err := sn.Purge(2)
	if err != nil || n != 2 {
		t.Fatalf("purged %d: %v", n, err)
	}
	if _, err := sn.LoadMatching(func(m Metadata) bool { return m.Index <= 25 }); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("got %v, want ErrNoSnapshot", err)
	}
}
