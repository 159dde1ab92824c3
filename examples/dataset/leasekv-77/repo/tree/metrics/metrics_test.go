package metrics

import (
	"strings"
	"testing"
)

func TestExposition(t *testing.T) {
	RequestsTotal.With("kv_put", "200").Add(2)
	RequestsTotal.With("lease_keepalive", "404").Add(1)
	h := NewHistogram("leasekv_test_seconds", "test", []float64{0.1, 1})
	h.Observe(0.05)
	h.Observe(0.5)
	h.Observe(3)

	var sb strings.Builder
	WriteAll(&sb)
	out := sb.String()
	for _, want := range []string{
		`leasekv_http_requests_total{handler="kv_put",code="200"} 2`,
		`leasekv_http_requests_total{handler="lease_keepalive",code="404"} 1`,
		`leasekv_test_seconds_bucket{le="0.1"} 1`,
		`leasekv_test_seconds_bucket{le="1"} 2`,
		`leasekv_test_seconds_bucket{le="+Inf"} 3`,
		"leasekv_test_seconds_sum 3.55",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestWrongLabelCountPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("expected a panic")
		}
	}()
	LeaseOpsTotal.With("grant", "extra")
}
