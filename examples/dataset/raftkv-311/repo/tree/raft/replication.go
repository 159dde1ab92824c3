package raft

import "go.uber.org/zap"

// Leader side --------------------------------------------------------------

// sendAppend sends the entries a follower lacks, starting at its next index. Several
// appends can be in flight to the same follower; the network may reorder them.
func (r *raft) sendAppend(to uint64) {
	pr := r.peers[to]
	if pr.inflight >= r.maxInflight {
		return
	}
	prevIndex := pr.next - 1
	prevTerm, err := r.log.term(prevIndex)
	if err != nil {
		r.logger.Warn("cannot send append, entry compacted", zap.Uint64("to", to), zap.Uint64("index", prevIndex))
		return
	}
	var ents []Entry
	if pr.next <= r.log.lastIndex() {
		ents = append(ents, r.log.slice(pr.next, r.log.lastIndex()+1)...)
	}
	r.send(Message{Type: MsgApp, To: to, Index: prevIndex, LogTerm: prevTerm, Entries: ents, Commit: r.log.committed})
	if n := len(ents); n > 0 {
		// optimistic: the next append starts after these entries
		pr.next = ents[n-1].Index + 1
		pr.inflight++
	}
}

func (r *raft) broadcastAppend() {
	for id := range r.peers {
		if id != r.id {
			r.sendAppend(id)
		}
	}
}

func (r *raft) broadcastHeartbeat() {
	for id, pr := range r.peers {
		if id == r.id {
			continue
		}
		commit := r.log.committed
		if pr.match < commit {
			commit = pr.match
		}
		r.send(Message{Type: MsgHeartbeat, To: id, Commit: commit})
	}
}

func (r *raft) handleAppendResponse(m Message) {
	pr := r.peers[m.From]
	if pr.inflight > 0 {
		pr.inflight--
	}
	if m.Reject {
		// probe backwards from the follower's hint
		next := m.RejectHint + 1
		if next < pr.next {
			pr.next = next
		}
		if pr.next < 1 {
			pr.next = 1
		}
		r.logger.Debug("append rejected", zap.Uint64("from", m.From), zap.Uint64("hint", m.RejectHint))
		r.sendAppend(m.From)
		return
	}
	if m.Index > pr.match {
		pr.match = m.Index
		if pr.next <= m.Index {
			pr.next = m.Index + 1
		}
		if r.maybeCommit() {
			r.broadcastAppend()
		}
	}
}

// Follower side ------------------------------------------------------------

// handleAppendEntries applies a leader's append to the local log and answers it.
func (r *raft) handleAppendEntries(m Message) {
	if m.Index < r.log.committed {
		r.send(Message{Type: MsgAppResp, To: m.From, Index: r.log.committed})
		return
	}

	lastNewIndex, ok := r.log.maybeAppend(m.Index, m.LogTerm, m.Entries)
	if !ok {
		r.logger.Debug("rejected append",
			zap.Uint64("id", r.id),
			zap.Uint64("index", m.Index),
			zap.Uint64("logterm", m.LogTerm),
			zap.Uint64("last", r.log.lastIndex()))
		r.send(Message{Type: MsgAppResp, To: m.From, Index: m.Index, Reject: true, RejectHint: r.log.lastIndex()})
		return
	}

	commit := m.Commit
	if last := r.log.lastIndex(); commit > last {
		commit = last
	}
	r.log.commitTo(commit)
	r.send(Message{Type: MsgAppResp, To: m.From, Index: lastNewIndex})
}

// handleHeartbeat moves the commit index; a heartbeat's commit never exceeds the
// follower's match index on the leader, so it is always in the log.
func (r *raft) handleHeartbeat(m Message) {
	r.log.commitTo(m.Commit)
	r.send(Message{Type: MsgHeartbeatResp, To: m.From})
}
