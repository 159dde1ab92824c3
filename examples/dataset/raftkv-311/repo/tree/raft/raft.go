package raft

import (
	"math/rand"

	"go.uber.org/zap"
)

// Config configures one raft node.
type Config struct {
	ID            uint64
	Peers         []uint64
	ElectionTick  int
	HeartbeatTick int
	// MaxInflight caps the number of append messages in flight per follower.
	MaxInflight int
	Logger      *zap.Logger
}

type progress struct {
	match, next uint64
	inflight    int
}

type raft struct {
	id    uint64
	term  uint64
	vote  uint64
	state StateType
	lead  uint64
	log   *raftLog
	peers map[uint64]*progress
	votes map[uint64]bool
	msgs  []Message

	electionElapsed           int
	heartbeatElapsed          int
	electionTimeout           int
	heartbeatTimeout          int
	randomizedElectionTimeout int
	maxInflight               int

	logger *zap.Logger
}

func newRaft(c *Config) *raft {
	r := &raft{
		id:               c.ID,
		log:              newLog(),
		peers:            make(map[uint64]*progress),
		electionTimeout:  c.ElectionTick,
		heartbeatTimeout: c.HeartbeatTick,
		maxInflight:      c.MaxInflight,
		logger:           c.Logger,
	}
	for _, p := range c.Peers {
		r.peers[p] = &progress{next: 1}
	}
	r.becomeFollower(0, 0)
	return r
}

func (r *raft) send(m Message) {
	m.From = r.id
	if m.Type != MsgVote && m.Type != MsgVoteResp {
		m.Term = r.term
	}
	r.msgs = append(r.msgs, m)
}

func (r *raft) reset(term uint64) {
	if r.term != term {
		r.term = term
		r.vote = 0
	}
	r.lead = 0
	r.electionElapsed = 0
	r.heartbeatElapsed = 0
	r.randomizedElectionTimeout = r.electionTimeout + rand.Intn(r.electionTimeout)
	r.votes = make(map[uint64]bool)
	for id, pr := range r.peers {
		*pr = progress{next: r.log.lastIndex() + 1}
		if id == r.id {
			pr.match = r.log.lastIndex()
		}
	}
}

func (r *raft) becomeFollower(term, lead uint64) {
	r.reset(term)
	r.lead = lead
	r.state = StateFollower
	r.logger.Info("became follower", zap.Uint64("id", r.id), zap.Uint64("term", term), zap.Uint64("leader", lead))
}

func (r *raft) becomeCandidate() {
	r.reset(r.term + 1)
	r.vote = r.id
	r.state = StateCandidate
	r.logger.Info("became candidate", zap.Uint64("id", r.id), zap.Uint64("term", r.term))
}

func (r *raft) becomeLeader() {
	r.reset(r.term)
	r.lead = r.id
	r.state = StateLeader
	// An empty entry of the new term lets the leader commit entries of earlier terms.
	r.appendEntry(Entry{Data: nil})
	r.logger.Info("became leader", zap.Uint64("id", r.id), zap.Uint64("term", r.term))
}

func (r *raft) appendEntry(es ...Entry) {
	li := r.log.lastIndex()
	for i := range es {
		es[i].Term = r.term
		es[i].Index = li + 1 + uint64(i)
	}
	r.log.append(es...)
	r.peers[r.id].match = r.log.lastIndex()
	r.maybeCommit()
}

// tick advances the logical clock by one tick.
func (r *raft) tick() {
	if r.state == StateLeader {
		r.heartbeatElapsed++
		if r.heartbeatElapsed >= r.heartbeatTimeout {
			r.heartbeatElapsed = 0
			r.broadcastHeartbeat()
		}
		return
	}
	r.electionElapsed++
	if r.electionElapsed >= r.randomizedElectionTimeout {
		r.campaign()
	}
}

func (r *raft) campaign() {
	r.becomeCandidate()
	r.votes[r.id] = true
	if r.quorum() == 1 {
		r.becomeLeader()
		return
	}
	for id := range r.peers {
		if id == r.id {
			continue
		}
		r.send(Message{Type: MsgVote, To: id, Term: r.term, Index: r.log.lastIndex(), LogTerm: r.log.lastTerm()})
	}
}

func (r *raft) quorum() int { return len(r.peers)/2 + 1 }

// Step handles one message from a peer.
func (r *raft) Step(m Message) {
	switch {
	case m.Term > r.term:
		if m.Type == MsgApp || m.Type == MsgHeartbeat {
			r.becomeFollower(m.Term, m.From)
		} else {
			r.becomeFollower(m.Term, 0)
		}
	case m.Term < r.term:
		// Stale message from an old term: ignore, but tell an old leader about the new term.
		if m.Type == MsgApp || m.Type == MsgHeartbeat {
			r.send(Message{Type: MsgAppResp, To: m.From})
		}
		return
	}

	switch m.Type {
	case MsgVote:
		canVote := r.vote == m.From || (r.vote == 0 && r.lead == 0)
		if canVote && r.log.isUpToDate(m.Index, m.LogTerm) {
			r.electionElapsed = 0
			r.vote = m.From
			r.send(Message{Type: MsgVoteResp, To: m.From, Term: m.Term})
		} else {
			r.send(Message{Type: MsgVoteResp, To: m.From, Term: r.term, Reject: true})
		}
	case MsgVoteResp:
		if r.state != StateCandidate {
			return
		}
		r.votes[m.From] = !m.Reject
		granted := 0
		for _, v := range r.votes {
			if v {
				granted++
			}
		}
		if granted >= r.quorum() {
			r.becomeLeader()
			r.broadcastAppend()
		}
	case MsgApp:
		r.electionElapsed = 0
		r.lead = m.From
		r.handleAppendEntries(m)
	case MsgHeartbeat:
		r.electionElapsed = 0
		r.lead = m.From
		r.handleHeartbeat(m)
	case MsgAppResp:
		if r.state == StateLeader {
			r.handleAppendResponse(m)
		}
	case MsgHeartbeatResp:
		if r.state == StateLeader {
			if pr := r.peers[m.From]; pr.match < r.log.lastIndex() {
				r.sendAppend(m.From)
			}
		}
	}
}

// maybeCommit commits the highest index that a quorum has replicated.
func (r *raft) maybeCommit() bool {
	matches := make([]uint64, 0, len(r.peers))
	for _, pr := range r.peers {
		matches = append(matches, pr.match)
	}
	// insertion sort, descending; clusters are small
	for i := 1; i < len(matches); i++ {
		for j := i; j > 0 && matches[j] > matches[j-1]; j-- {
			matches[j], matches[j-1] = matches[j-1], matches[j]
		}
	}
	return r.log.maybeCommit(matches[r.quorum()-1], r.term)
}
