package server

import (
	"sync/atomic"
	"time"

	"go.leasekv.dev/leasekv/lease"
)

// IDGenerator makes lease ids that stay unique across members and restarts: the top 16
// bits are the member id, the next 40 a millisecond timestamp taken at start, the low 8
// a counter that carries into the timestamp. The sign bit is always clear.
type IDGenerator struct {
	prefix uint64
	suffix atomic.Uint64
}

const (
	tsBits     = 40
	countBits  = 8
	suffixBits = tsBits + countBits
)

// NewIDGenerator returns a generator for member; now seeds the timestamp.
func NewIDGenerator(member uint16, now time.Time) *IDGenerator {
	g := &IDGenerator{prefix: uint64(member) << suffixBits}
	ms := uint64(now.UnixMilli()) & (1<<tsBits - 1)
	g.suffix.Store(ms << countBits)
	return g
}

// Next returns a new id; it is never NoLease.
func (g *IDGenerator) Next() lease.LeaseID {
	for {
		s := g.suffix.Add(1) & (1<<suffixBits - 1)
		id := lease.LeaseID((g.prefix | s) &^ (1 << 63))
		if id != lease.NoLease {
			return id
		}
	}
}
