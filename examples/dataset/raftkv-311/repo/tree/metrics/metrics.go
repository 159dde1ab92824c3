// Package metrics holds raftkv's counters, gauges and histograms and exports them in the
// Prometheus text format. It is deliberately small: no labels beyond a fixed set chosen
// at registration, no summaries.
package metrics

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Labels are fixed at registration: one time series per registered metric.
type Labels map[string]string

func (l Labels) String() string {
	if len(l) == 0 {
		return ""
	}
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, l[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// Counter only goes up.
type Counter struct {
	v atomic.Uint64
}

func (c *Counter) Inc()          { c.v.Add(1) }
func (c *Counter) Add(n uint64)  { c.v.Add(n) }
func (c *Counter) Value() uint64 { return c.v.Load() }

// Gauge goes up and down; it stores a float64 as bits.
type Gauge struct {
	bits atomic.Uint64
}

func (g *Gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }

func (g *Gauge) Add(d float64) {
	for {
		old := g.bits.Load()
		nv := math.Float64bits(math.Float64frombits(old) + d)
		if g.bits.CompareAndSwap(old, nv) {
			return
		}
	}
}

func (g *Gauge) Value() float64 { return math.Float64frombits(g.bits.Load()) }

// DefBuckets suit request latencies in seconds, from 0.5ms to 10s.
var DefBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// ExponentialBuckets returns count buckets, the first at start, each factor times the last.
func ExponentialBuckets(start, factor float64, count int) []float64 {
	if count < 1 || start <= 0 || factor <= 1 {
		panic("metrics: ExponentialBuckets needs count >= 1, start > 0, factor > 1")
	}
	b := make([]float64, count)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}

// Histogram counts observations into cumulative buckets.
type Histogram struct {
	upper  []float64
	counts []atomic.Uint64 // one per bucket plus +Inf
	count  atomic.Uint64
	sumMu  sync.Mutex
	sum    float64
}

func newHistogram(buckets []float64) *Histogram {
	if !sort.Float64sAreSorted(buckets) {
		panic("metrics: histogram buckets must be sorted")
	}
	return &Histogram{upper: buckets, counts: make([]atomic.Uint64, len(buckets)+1)}
}

// Observe records one value.
func (h *Histogram) Observe(v float64) {
	i := sort.SearchFloat64s(h.upper, v)
	h.counts[i].Add(1)
	h.count.Add(1)
	h.sumMu.Lock()
	h.sum += v
	h.sumMu.Unlock()
}

// ObserveSince records the seconds elapsed since start.
func (h *Histogram) ObserveSince(start time.Time) { h.Observe(time.Since(start).Seconds()) }

// Snapshot is a consistent-enough copy of a histogram for export.
type Snapshot struct {
	Upper      []float64
	Cumulative []uint64
	Count      uint64
	Sum        float64
}

func (h *Histogram) Snapshot() Snapshot {
	s := Snapshot{Upper: h.upper, Cumulative: make([]uint64, len(h.counts))}
	var acc uint64
	for i := range h.counts {
		acc += h.counts[i].Load()
		s.Cumulative[i] = acc
	}
	s.Count = acc
	h.sumMu.Lock()
	s.Sum = h.sum
	h.sumMu.Unlock()
	return s
}

// Quantile estimates the q-quantile by linear interpolation inside the bucket; good
// enough for raftkvctl's status output, not for alerting.
func (s Snapshot) Quantile(q float64) float64 {
	if s.Count == 0 {
		return math.NaN()
	}
	rank := q * float64(s.Count)
	lower := 0.0
	var prev uint64
	for i, c := range s.Cumulative {
		if float64(c) >= rank {
			if i == len(s.Upper) {
				return lower // beyond the last bucket: the best we know
			}
			width := s.Upper[i] - lower
			inBucket := float64(c - prev)
			if inBucket == 0 {
				return s.Upper[i]
			}
			return lower + width*(rank-float64(prev))/inBucket
		}
		if i < len(s.Upper) {
			lower = s.Upper[i]
		}
		prev = c
	}
	return lower
}

type kind int

const (
	kindCounter kind = iota
	kindGauge
	kindHistogram
)

type entry struct {
	name   string
	help   string
	labels Labels
	kind   kind
	metric any
}

// Registry owns named metrics. Registering the same name and labels twice returns the
// first metric, so packages can register lazily.
type Registry struct {
	mu      sync.Mutex
	entries map[string]*entry
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{entries: make(map[string]*entry)} }

// Default is the process-wide registry the server exports.
var Default = NewRegistry()

func (r *Registry) register(name, help string, labels Labels, k kind, mk func() any) any {
	key := name + labels.String()
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entries[key]; ok {
		if e.kind != k {
			panic(fmt.Sprintf("metrics: %s registered with two kinds", key))
		}
		return e.metric
	}
	e := &entry{name: name, help: help, labels: labels, kind: k, metric: mk()}
	r.entries[key] = e
	return e.metric
}

// Counter registers or returns a counter.
func (r *Registry) Counter(name, help string, labels Labels) *Counter {
	return r.register(name, help, labels, kindCounter, func() any { return new(Counter) }).(*Counter)
}

// Gauge registers or returns a gauge.
func (r *Registry) Gauge(name, help string, labels Labels) *Gauge {
	return r.register(name, help, labels, kindGauge, func() any { return new(Gauge) }).(*Gauge)
}

// Histogram registers or returns a histogram; buckets of a second registration are ignored.
func (r *Registry) Histogram(name, help string, labels Labels, buckets []float64) *Histogram {
	if buckets == nil {
		buckets = DefBuckets
	}
	return r.register(name, help, labels, kindHistogram, func() any { return newHistogram(buckets) }).(*Histogram)
}

// sorted returns the entries ordered by name, then labels, for stable output.
func (r *Registry) sorted() []*entry {
	r.mu.Lock()
	out := make([]*entry, 0, len(r.entries))
	for _, e := range r.entries {
		out = append(out, e)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].name != out[j].name {
			return out[i].name < out[j].name
		}
		return out[i].labels.String() < out[j].labels.String()
	})
	return out
}
