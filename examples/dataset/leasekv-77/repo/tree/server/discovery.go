package server

import (
	"strings"
	"time"

	"go.leasekv.dev/leasekv/mvcc"
	"go.uber.org/zap"
)

// Auditor periodically checks that every registered instance still has a live lease:
// an instance key whose lease is gone should not exist.
type Auditor struct {
	Store    *Server
	Prefix   string
	Interval time.Duration
	logger   *zap.Logger
}

// NewAuditor returns an auditor of the keys under prefix.
func NewAuditor(s *Server, prefix string, logger *zap.Logger) *Auditor {
	return &Auditor{Store: s, Prefix: prefix, Interval: 30 * time.Second, logger: logger}
}

// Check reports registered instances whose lease no longer exists.
func (a *Auditor) Check() []mvcc.KeyValue {
	var orphans []mvcc.KeyValue
	for _, kv := range a.Store.Store.Range(a.Prefix) {
		if kv.Lease == 0 {
			continue
		}
		if a.Store.Lessor.Lookup(kv.Lease) == nil {
			orphans = append(orphans, kv)
			a.logger.Warn("instance key outlived its lease",
				zap.String("key", kv.Key),
				zap.Int64("lease", int64(kv.Lease)),
				zap.Int64("mod_revision", kv.ModRevision),
				zap.String("service", strings.Split(strings.TrimPrefix(kv.Key, a.Prefix), "/")[0]))
		}
	}
	return orphans
}
