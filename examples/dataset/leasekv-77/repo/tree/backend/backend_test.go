package backend

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func open(t *testing.T, path string) *Backend {
	t.Helper()
	b, err := Open(Config{Path: path, BatchInterval: time.Hour, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCommitAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	b := open(t, path)
	tx := b.BatchTx()
	tx.Lock()
	tx.UnsafePutKey("/services/orders/orders-2", KeyRecord{Value: []byte("10.1.0.7:8080"), CreateRevision: 5, ModRevision: 9, Lease: 42})
	tx.UnsafePutLease(LeaseRecord{ID: 42, TTL: 10, Remaining: 7})
	tx.Unlock()
	if tx.Pending() == 0 {
		t.Fatal("writes should wait for the commit")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	b = open(t, path)
	defer b.Close()
	recs, order, err := b.Keys()
	if err != nil || len(order) != 1 {
		t.Fatalf("keys %v: %v", order, err)
	}
	if r := recs["/services/orders/orders-2"]; string(r.Value) != "10.1.0.7:8080" || r.Lease != 42 || r.ModRevision != 9 {
		t.Fatalf("record %+v", r)
	}
	leases, _ := b.Leases()
	if len(leases) != 1 || leases[0] != (LeaseRecord{ID: 42, TTL: 10, Remaining: 7}) {
		t.Fatalf("leases %+v", leases)
	}
	if b.ConsistentRev() != 9 {
		t.Fatalf("consistent rev %d", b.ConsistentRev())
	}
}

func TestTornBatchIsDropped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	b := open(t, path)
	tx := b.BatchTx()
	for _, k := range []string{"a", "b"} {
		tx.Lock()
		tx.UnsafePut(BucketKey, k, []byte("v"))
		tx.Unlock()
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	st, _ := os.Stat(path)
	os.Truncate(path, st.Size()-3)

	b = open(t, path)
	defer b.Close()
	if _, ok := b.Get(BucketKey, "a"); !ok {
		t.Fatal("the first batch was lost")
	}
	if _, ok := b.Get(BucketKey, "b"); ok {
		t.Fatal("the torn batch was applied")
	}
}

func TestDefragKeepsLiveData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	b := open(t, path)
	tx := b.BatchTx()
	for i := 0; i < 50; i++ {
		tx.Lock()
		tx.UnsafePut(BucketKey, "hot", make([]byte, 100))
		tx.Unlock()
		tx.Commit()
	}
	before := b.Stats().Size
	if err := b.Defrag(); err != nil {
		t.Fatal(err)
	}
	after := b.Stats()
	if after.Size >= before/10 || after.Keys != 1 {
		t.Fatalf("size %d -> %d, keys %d", before, after.Size, after.Keys)
	}
	b.Close()
	b = open(t, path)
	defer b.Close()
	if v, ok := b.Get(BucketKey, "hot"); !ok || len(v) != 100 {
		t.Fatal("value lost by defrag")
	}
}
