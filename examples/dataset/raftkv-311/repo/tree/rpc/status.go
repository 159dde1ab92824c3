package rpc

import (
	"context"
	"errors"
	"fmt"
)

// Code is the outcome of a call, carried in every response frame.
type Code uint16

const (
	OK Code = iota
	Canceled
	Unknown
	InvalidArgument
	DeadlineExceeded
	NotFound
	// Unavailable means the call did not reach a handler or the server is shutting down;
	// it is always safe to retry on another connection.
	Unavailable
	// NotLeader means the node cannot serve the call because it is not the raft leader;
	// the status message holds the leader's client address when the node knows it.
	NotLeader
	Unimplemented
	ResourceExhausted
	Internal
)

var codeNames = map[Code]string{
	OK:                "ok",
	Canceled:          "canceled",
	Unknown:           "unknown",
	InvalidArgument:   "invalid argument",
	DeadlineExceeded:  "deadline exceeded",
	NotFound:          "not found",
	Unavailable:       "unavailable",
	NotLeader:         "not leader",
	Unimplemented:     "unimplemented",
	ResourceExhausted: "resource exhausted",
	Internal:          "internal",
}

func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return fmt.Sprintf("code(%d)", uint16(c))
}

// Status is an error with a code; handlers return one to choose the response code.
type Status struct {
	Code    Code
	Message string
}

func (s *Status) Error() string {
	if s.Message == "" {
		return "rpc: " + s.Code.String()
	}
	return fmt.Sprintf("rpc: %s: %s", s.Code, s.Message)
}

// Errorf returns a status error with a formatted message.
func Errorf(code Code, format string, args ...any) error {
	return &Status{Code: code, Message: fmt.Sprintf(format, args...)}
}

// StatusOf converts any error into a status: context errors get their own codes,
// anything else that is not already a status becomes Unknown.
func StatusOf(err error) *Status {
	if err == nil {
		return &Status{Code: OK}
	}
	var st *Status
	if errors.As(err, &st) {
		return st
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Status{Code: DeadlineExceeded, Message: err.Error()}
	case errors.Is(err, context.Canceled):
		return &Status{Code: Canceled, Message: err.Error()}
	}
	return &Status{Code: Unknown, Message: err.Error()}
}

// CodeOf returns the code of err (OK for nil).
func CodeOf(err error) Code { return StatusOf(err).Code }

// Retryable tells whether a call that failed with err may be sent again, possibly to
// another node, without risk of applying it twice. Writes are only retried when they
// did not reach a handler.
func Retryable(err error, idempotent bool) bool {
	switch CodeOf(err) {
	case Unavailable, NotLeader:
		return true
	case DeadlineExceeded, ResourceExhausted:
		return idempotent
	default:
		return false
	}
}
