package metrics

// The metrics of leasekvd's own packages. Gauges read live state and are registered by
// the daemon once the state exists (see RegisterStateGauges).
var (
	RequestsTotal = NewCounterVec("leasekv_http_requests_total",
		"HTTP API requests by handler and status code.", "handler", "code")
	RequestSeconds = NewHistogram("leasekv_http_request_duration_seconds",
		"HTTP API request latency.", []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5})
	LeaseOpsTotal = NewCounterVec("leasekv_lease_operations_total",
		"Lease grants, revocations, keep-alives and expiries.", "op")
	WatchEventsTotal = NewCounterVec("leasekv_watch_events_total",
		"Events sent to watchers.", "type")
)

// StateSource is what the state gauges read.
type StateSource struct {
	Leases       func() int
	Keys         func() int
	Watchers     func() int
	BackendBytes func() int64
	BackendInUse func() int64
	Revision     func() int64
	IsPrimary    func() bool
}

// RegisterStateGauges registers the gauges that read src.
func RegisterStateGauges(src StateSource) {
	NewGaugeFunc("leasekv_leases", "Leases held by the lessor.", func() float64 { return float64(src.Leases()) })
	NewGaugeFunc("leasekv_keys", "Keys in the store.", func() float64 { return float64(src.Keys()) })
	NewGaugeFunc("leasekv_watchers", "Active watchers.", func() float64 { return float64(src.Watchers()) })
	NewGaugeFunc("leasekv_backend_size_bytes", "Size of the backend file.", func() float64 { return float64(src.BackendBytes()) })
	NewGaugeFunc("leasekv_backend_size_in_use_bytes", "Bytes of live data in the backend.", func() float64 { return float64(src.BackendInUse()) })
	NewGaugeFunc("leasekv_revision", "Current store revision.", func() float64 { return float64(src.Revision()) })
	NewGaugeFunc("leasekv_is_primary", "1 when this member expires leases.", func() float64 {
		if src.IsPrimary() {
			return 1
		}
		return 0
	})
}
