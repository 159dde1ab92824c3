package rpc

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
)

// Codec encodes request and response messages into frame payloads.
type Codec interface {
	Name() string
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
}

// GobCodec is the default codec; the raft transport uses gob too.
type GobCodec struct{}

func (GobCodec) Name() string { return "gob" }

func (GobCodec) Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (GobCodec) Unmarshal(data []byte, v any) error {
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}

// JSONCodec is handy for debugging with a packet capture; raftkvctl can select it.
type JSONCodec struct{}

func (JSONCodec) Name() string { return "json" }

func (JSONCodec) Marshal(v any) ([]byte, error) { return json.Marshal(v) }

func (JSONCodec) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// flagJSON marks a frame whose payload is JSON instead of gob, so that a server answers
// in the codec the client chose.
const flagJSON uint8 = 1 << 0

func codecForFlags(flags uint8) Codec {
	if flags&flagJSON != 0 {
		return JSONCodec{}
	}
	return GobCodec{}
}

func flagsForCodec(c Codec) uint8 {
	if c.Name() == "json" {
		return flagJSON
	}
	return 0
}
