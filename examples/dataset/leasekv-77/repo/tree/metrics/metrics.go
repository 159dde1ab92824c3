// Package metrics exposes leasekvd's metrics in the Prometheus text format. Metrics
// with labels are vectors: the label values are given at each use, not at registration.
package metrics

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

type collector interface {
	name() string
	write(w io.Writer)
}

var (
	mu         sync.Mutex
	collectors = map[string]collector{}
)

func register(c collector) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := collectors[c.name()]; dup {
		panic("metrics: duplicate metric " + c.name())
	}
	collectors[c.name()] = c
}

// CounterVec is a family of counters keyed by label values.
type CounterVec struct {
	fqName, help string
	labels       []string
	mu           sync.Mutex
	series       map[string]*atomic.Uint64
}

// NewCounterVec registers a counter family.
func NewCounterVec(name, help string, labels ...string) *CounterVec {
	c := &CounterVec{fqName: name, help: help, labels: labels, series: map[string]*atomic.Uint64{}}
	register(c)
	return c
}

// With returns the counter of the label values, in the order of the label names.
func (c *CounterVec) With(values ...string) *atomic.Uint64 {
	if len(values) != len(c.labels) {
		panic(fmt.Sprintf("metrics: %s wants %d label values, got %d", c.fqName, len(c.labels), len(values)))
	}
	key := strings.Join(values, "\xff")
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.series[key]
	if !ok {
		v = new(atomic.Uint64)
		c.series[key] = v
	}
	return v
}

func (c *CounterVec) name() string { return c.fqName }

func (c *CounterVec) write(w io.Writer) {
	header(w, c.fqName, c.help, "counter")
	c.mu.Lock()
	keys := make([]string, 0, len(c.series))
	for k := range c.series {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "%s%s %d\n", c.fqName, labelString(c.labels, strings.Split(k, "\xff")), c.series[k].Load())
	}
	c.mu.Unlock()
}

// GaugeFunc reads its value when scraped, e.g. the number of leases.
type GaugeFunc struct {
	fqName, help string
	fn           func() float64
}

// NewGaugeFunc registers a gauge computed by fn.
func NewGaugeFunc(name, help string, fn func() float64) *GaugeFunc {
	g := &GaugeFunc{fqName: name, help: help, fn: fn}
	register(g)
	return g
}

func (g *GaugeFunc) name() string { return g.fqName }

func (g *GaugeFunc) write(w io.Writer) {
	header(w, g.fqName, g.help, "gauge")
	fmt.Fprintf(w, "%s %s\n", g.fqName, formatValue(g.fn()))
}

// Histogram counts observations into fixed buckets.
type Histogram struct {
	fqName, help string
	bounds       []float64
	mu           sync.Mutex
	buckets      []uint64
	count        uint64
	sum          float64
}

// NewHistogram registers a histogram with upper bounds in increasing order.
func NewHistogram(name, help string, bounds []float64) *Histogram {
	h := &Histogram{fqName: name, help: help, bounds: bounds, buckets: make([]uint64, len(bounds))}
	register(h)
	return h
}

// Observe records v.
func (h *Histogram) Observe(v float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, b := range h.bounds {
		if v <= b {
			h.buckets[i]++
			break
		}
	}
	h.count++
	h.sum += v
}

func (h *Histogram) name() string { return h.fqName }

func (h *Histogram) write(w io.Writer) {
	header(w, h.fqName, h.help, "histogram")
	h.mu.Lock()
	defer h.mu.Unlock()
	var cum uint64
	for i, b := range h.bounds {
		cum += h.buckets[i]
		fmt.Fprintf(w, "%s_bucket{le=\"%s\"} %d\n", h.fqName, formatValue(b), cum)
	}
	fmt.Fprintf(w, "%s_bucket{le=\"+Inf\"} %d\n", h.fqName, h.count)
	fmt.Fprintf(w, "%s_sum %s\n%s_count %d\n", h.fqName, formatValue(h.sum), h.fqName, h.count)
}

func header(w io.Writer, name, help, typ string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func labelString(names, values []string) string {
	if len(names) == 0 {
		return ""
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%q", n, values[i])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func formatValue(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return fmt.Sprintf("%g", v)
}

// WriteAll writes every registered metric, ordered by name.
func WriteAll(w io.Writer) {
	mu.Lock()
	cs := make([]collector, 0, len(collectors))
	for _, c := range collectors {
		cs = append(cs, c)
	}
	mu.Unlock()
	sort.Slice(cs, func(i, j int) bool { return cs[i].name() < cs[j].name() })
	for _, c := range cs {
		c.write(w)
	}
}

// Handler serves WriteAll.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		WriteAll(w)
	})
}
