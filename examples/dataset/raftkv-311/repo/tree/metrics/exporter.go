package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// WriteText writes every metric of the registry in the Prometheus text format (0.0.4).
func (r *Registry) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var lastName string
	for _, e := range r.sorted() {
		if e.name != lastName {
			fmt.Fprintf(bw, "# HELP %s %s\n", e.name, escapeHelp(e.help))
			fmt.Fprintf(bw, "# TYPE %s %s\n", e.name, typeName(e.kind))
			lastName = e.name
		}
		switch m := e.metric.(type) {
		case *Counter:
			fmt.Fprintf(bw, "%s%s %d\n", e.name, e.labels, m.Value())
		case *Gauge:
			fmt.Fprintf(bw, "%s%s %s\n", e.name, e.labels, formatFloat(m.Value()))
		case *Histogram:
			writeHistogram(bw, e, m.Snapshot())
		}
	}
	return bw.Flush()
}

func writeHistogram(w io.Writer, e *entry, s Snapshot) {
	for i, c := range s.Cumulative {
		le := "+Inf"
		if i < len(s.Upper) {
			le = formatFloat(s.Upper[i])
		}
		fmt.Fprintf(w, "%s_bucket%s %d\n", e.name, withLabel(e.labels, "le", le), c)
	}
	fmt.Fprintf(w, "%s_sum%s %s\n", e.name, e.labels, formatFloat(s.Sum))
	fmt.Fprintf(w, "%s_count%s %d\n", e.name, e.labels, s.Count)
}

func withLabel(l Labels, k, v string) Labels {
	out := make(Labels, len(l)+1)
	for lk, lv := range l {
		out[lk] = lv
	}
	out[k] = v
	return out
}

func typeName(k kind) string {
	switch k {
	case kindCounter:
		return "counter"
	case kindGauge:
		return "gauge"
	default:
		return "histogram"
	}
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

// Handler serves the registry at /metrics.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if err := r.WriteText(w); err != nil {
			// the client went away; nothing useful to send
			return
		}
	})
}
