package lease

import "sort"

// Leases returns every lease, ordered by id; the API lists them and the checkpointer
// records their remaining TTLs.
func (le *Lessor) Leases() []*Lease {
	le.mu.RLock()
	ls := make([]*Lease, 0, len(le.leaseMap))
	for _, l := range le.leaseMap {
		ls = append(ls, l)
	}
	le.mu.RUnlock()
	sort.Slice(ls, func(i, j int) bool { return ls[i].ID < ls[j].ID })
	return ls
}

// IsPrimary tells whether this lessor expires leases.
func (le *Lessor) IsPrimary() bool {
	le.mu.RLock()
	defer le.mu.RUnlock()
	return le.primary
}
