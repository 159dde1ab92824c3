package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "leasekvd.json")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefaultsAreValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestLoadFileAndEnvironment(t *testing.T) {
	path := write(t, `{"name": "registry-0", "member-id": 7, "promote-extend": "2s", "lease-checkpoint-interval": 60}`)
	t.Setenv("LEASEKV_LOG_LEVEL", "debug")
	t.Setenv("LEASEKV_PROMOTE_EXTEND", "1500ms")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "registry-0" || c.MemberID != 7 || c.LogLevel != "debug" {
		t.Fatalf("config %+v", c)
	}
	if c.PromoteExtend.Std() != 1500*time.Millisecond || c.CheckpointInterval.Std() != time.Minute {
		t.Fatalf("durations %v %v", c.PromoteExtend.Std(), c.CheckpointInterval.Std())
	}
}

func TestUnknownFieldIsAnError(t *testing.T) {
	_, err := Load(write(t, `{"promote-extent": "2s"}`))
	if err == nil || !strings.Contains(err.Error(), "promote-extent") {
		t.Fatalf("got %v", err)
	}
}

func TestValidate(t *testing.T) {
	for name, mutate := range map[string]func(*Config){
		"member-id":           func(c *Config) { c.MemberID = 0 },
		"is too short":        func(c *Config) { c.CheckpointInterval = Duration(time.Millisecond) },
		"both 127.0.0.1:2479": func(c *Config) { c.MetricsURL = c.ClientURL },
		"watch-buffer-size":   func(c *Config) { c.WatchBufferSize = 0 },
		`log-level "verbose"`: func(c *Config) { c.LogLevel = "verbose" },
	} {
		c := Default()
		mutate(c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: got %v", name, err)
		}
	}
}
