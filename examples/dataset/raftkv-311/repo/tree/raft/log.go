package raft

import "fmt"

// raftLog holds the entries after the last snapshot. entries[0] is a dummy entry at
// index offset whose term is the snapshot's term.
type raftLog struct {
	entries   []Entry
	offset    uint64
	committed uint64
	applied   uint64
}

func newLog() *raftLog {
	return &raftLog{entries: []Entry{{Index: 0, Term: 0}}}
}

func (l *raftLog) firstIndex() uint64 { return l.offset + 1 }

func (l *raftLog) lastIndex() uint64 { return l.offset + uint64(len(l.entries)) - 1 }

func (l *raftLog) lastTerm() uint64 { return l.entries[len(l.entries)-1].Term }

// term returns the term of the entry at index i, or an error if it is not in the log.
func (l *raftLog) term(i uint64) (uint64, error) {
	if i < l.offset || i > l.lastIndex() {
		return 0, fmt.Errorf("index %d out of range [%d, %d]", i, l.offset, l.lastIndex())
	}
	return l.entries[i-l.offset].Term, nil
}

func (l *raftLog) matchTerm(i, term uint64) bool {
	t, err := l.term(i)
	if err != nil {
		return false
	}
	return t == term
}

// findConflict returns the index of the first entry of ents whose term differs from the
// entry at the same index in the log, the index of the first new entry if all overlapping
// entries match and ents is longer, or 0 if every entry is already in the log.
func (l *raftLog) findConflict(ents []Entry) uint64 {
	for _, ne := range ents {
		if !l.matchTerm(ne.Index, ne.Term) {
			return ne.Index
		}
	}
	return 0
}

// truncateAfter drops every entry after index i.
func (l *raftLog) truncateAfter(i uint64) {
	if i < l.committed {
		panic(fmt.Sprintf("truncating committed entries: after %d, committed %d", i, l.committed))
	}
	l.entries = l.entries[:i-l.offset+1]
}

// append adds entries at the end of the log; the leader uses it for new proposals.
func (l *raftLog) append(ents ...Entry) uint64 {
	if len(ents) == 0 {
		return l.lastIndex()
	}
	if after := ents[0].Index - 1; after != l.lastIndex() {
		panic(fmt.Sprintf("append after %d, last index %d", after, l.lastIndex()))
	}
	l.entries = append(l.entries, ents...)
	return l.lastIndex()
}

// maybeAppend appends the entries a leader sent after (prevIndex, prevTerm) when the log
// holds that entry. It returns the index of the last entry sent and whether the log matched.
func (l *raftLog) maybeAppend(prevIndex, prevTerm uint64, ents []Entry) (uint64, bool) {
	if !l.matchTerm(prevIndex, prevTerm) {
		return 0, false
	}
	lastNewIndex := prevIndex + uint64(len(ents))
	if len(ents) > 0 {
		l.entries = l.entries[:prevIndex-l.offset+1]
		l.entries = append(l.entries, ents...)
	}
	return lastNewIndex, true
}

// commitTo moves the commit index forward; it never moves back.
func (l *raftLog) commitTo(toCommit uint64) {
	if l.committed < toCommit {
		l.committed = toCommit
	}
}

// maybeCommit commits up to maxIndex if that entry is from the leader's term.
func (l *raftLog) maybeCommit(maxIndex, term uint64) bool {
	if maxIndex > l.committed && l.matchTerm(maxIndex, term) {
		l.commitTo(maxIndex)
		return true
	}
	return false
}

// slice returns entries [lo, hi).
func (l *raftLog) slice(lo, hi uint64) []Entry {
	if lo > hi {
		panic(fmt.Sprintf("invalid slice %d > %d", lo, hi))
	}
	if lo < l.firstIndex() || hi > l.lastIndex()+1 {
		panic(fmt.Sprintf("unavailable entries [%d, %d): log holds [%d, %d]", lo, hi, l.firstIndex(), l.lastIndex()))
	}
	return l.entries[lo-l.offset : hi-l.offset]
}

// nextCommitted returns the committed entries that were not applied yet.
func (l *raftLog) nextCommitted() []Entry {
	if l.committed <= l.applied {
		return nil
	}
	return l.slice(l.applied+1, l.committed+1)
}

func (l *raftLog) appliedTo(i uint64) {
	if i > l.committed || i < l.applied {
		panic(fmt.Sprintf("applied(%d) out of range [applied(%d), committed(%d)]", i, l.applied, l.committed))
	}
	l.applied = i
}

// isUpToDate tells whether a candidate's log is at least as up to date as this one.
func (l *raftLog) isUpToDate(lastIndex, term uint64) bool {
	return term > l.lastTerm() || (term == l.lastTerm() && lastIndex >= l.lastIndex())
}
