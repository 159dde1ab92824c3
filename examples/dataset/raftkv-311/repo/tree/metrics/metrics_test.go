package metrics

import (
	"math"
	"strings"
	"testing"
)

func TestRegistryReturnsTheSameMetric(t *testing.T) {
	r := NewRegistry()
	a := r.Counter("raftkv_puts_total", "puts", Labels{"node": "1"})
	b := r.Counter("raftkv_puts_total", "puts", Labels{"node": "1"})
	c := r.Counter("raftkv_puts_total", "puts", Labels{"node": "2"})
	if a != b {
		t.Fatal("same name and labels must return the same counter")
	}
	if a == c {
		t.Fatal("different labels must return different counters")
	}
}

func TestGaugeAdd(t *testing.T) {
	var g Gauge
	g.Set(1.5)
	g.Add(-0.25)
	if g.Value() != 1.25 {
		t.Fatalf("got %v", g.Value())
	}
}

func TestHistogramQuantile(t *testing.T) {
	h := newHistogram([]float64{1, 2, 4})
	for _, v := range []float64{0.5, 1.5, 1.5, 3} {
		h.Observe(v)
	}
	s := h.Snapshot()
	if s.Count != 4 || s.Sum != 6.5 {
		t.Fatalf("count %d sum %v", s.Count, s.Sum)
	}
	if got := s.Cumulative; got[0] != 1 || got[1] != 3 || got[2] != 4 || got[3] != 4 {
		t.Fatalf("cumulative %v", got)
	}
	// the median falls in the (1, 2] bucket, halfway through its two observations
	if q := s.Quantile(0.5); math.Abs(q-1.5) > 1e-9 {
		t.Fatalf("median %v", q)
	}
}

func TestWriteText(t *testing.T) {
	r := NewRegistry()
	r.Counter("raftkv_applied_entries_total", "Entries applied.", nil).Add(3)
	r.Histogram("raftkv_wal_fsync_seconds", "WAL fsync latency.", Labels{"dir": "wal"}, []float64{0.01}).Observe(0.02)
	var sb strings.Builder
	if err := r.WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{
		"# TYPE raftkv_applied_entries_total counter\nraftkv_applied_entries_total 3\n",
		`raftkv_wal_fsync_seconds_bucket{dir="wal",le="0.01"} 0`,
		`raftkv_wal_fsync_seconds_bucket{dir="wal",le="+Inf"} 1`,
		`raftkv_wal_fsync_seconds_count{dir="wal"} 1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
