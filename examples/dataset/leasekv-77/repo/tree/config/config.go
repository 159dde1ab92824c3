// Package config loads leasekvd's configuration: defaults, then a JSON file, then
// LEASEKV_* environment variables, then validation.
package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration that reads "10s" or a number of seconds from JSON.
type Duration time.Duration

func (d Duration) Std() time.Duration { return time.Duration(d) }

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		*d = Duration(v)
		return err
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration: want \"10s\" or seconds, got %s", b)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// Config is leasekvd's configuration.
type Config struct {
	Name     string `json:"name"`
	MemberID uint16 `json:"member-id"`
	DataDir  string `json:"data-dir"`

	ClientURL  string `json:"listen-client"`
	MetricsURL string `json:"listen-metrics"`
	// MaxRequestBytes bounds a request body.
	MaxRequestBytes int64 `json:"max-request-bytes"`

	BackendBatchInterval Duration `json:"backend-batch-interval"`
	BackendBatchLimit    int      `json:"backend-batch-limit"`

	// PromoteExtend is added to every lease's TTL when this member becomes primary,
	// so that clients have time to find the new primary and send keep-alives.
	PromoteExtend      Duration `json:"promote-extend"`
	CheckpointInterval Duration `json:"lease-checkpoint-interval"`

	WatchBufferSize        int      `json:"watch-buffer-size"`
	ProgressNotifyInterval Duration `json:"watch-progress-notify-interval"`

	AuditPrefix   string   `json:"audit-prefix"`
	AuditInterval Duration `json:"audit-interval"`

	LogLevel string `json:"log-level"`
}

// Default returns the defaults.
func Default() *Config {
	return &Config{
		Name:                   "default",
		MemberID:               1,
		DataDir:                "leasekv.data",
		ClientURL:              "127.0.0.1:2479",
		MetricsURL:             "127.0.0.1:2481",
		MaxRequestBytes:        1536 << 10,
		BackendBatchInterval:   Duration(100 * time.Millisecond),
		BackendBatchLimit:      10000,
		PromoteExtend:          Duration(time.Second),
		CheckpointInterval:     Duration(5 * time.Minute),
		WatchBufferSize:        128,
		ProgressNotifyInterval: Duration(10 * time.Minute),
		AuditPrefix:            "/services/",
		AuditInterval:          Duration(30 * time.Second),
		LogLevel:               "info",
	}
}

// Load reads path (if not empty) over the defaults, applies the environment, and
// validates the result.
func Load(path string) (*Config, error) {
	c := Default()
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(c); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
	}
	if err := c.applyEnv(os.LookupEnv); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// applyEnv applies LEASEKV_<KEY> for the keys operators override most: the JSON key in
// upper case with dashes as underscores.
func (c *Config) applyEnv(lookup func(string) (string, bool)) error {
	strs := map[string]*string{"name": &c.Name, "data-dir": &c.DataDir, "listen-client": &c.ClientURL,
		"listen-metrics": &c.MetricsURL, "log-level": &c.LogLevel, "audit-prefix": &c.AuditPrefix}
	for key, p := range strs {
		if v, ok := lookup(envName(key)); ok {
			*p = v
		}
	}
	if v, ok := lookup(envName("member-id")); ok {
		n, err := strconv.ParseUint(v, 10, 16)
		if err != nil {
			return fmt.Errorf("%s: %v", envName("member-id"), err)
		}
		c.MemberID = uint16(n)
	}
	durs := map[string]*Duration{"promote-extend": &c.PromoteExtend, "lease-checkpoint-interval": &c.CheckpointInterval}
	for key, p := range durs {
		if v, ok := lookup(envName(key)); ok {
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("%s: %v", envName(key), err)
			}
			*p = Duration(d)
		}
	}
	return nil
}

func envName(key string) string {
	return "LEASEKV_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}

// Validate checks the configuration and names the first problem.
func (c *Config) Validate() error {
	switch {
	case c.Name == "":
		return fmt.Errorf("name is required")
	case c.MemberID == 0:
		return fmt.Errorf("member-id must be positive (it prefixes lease ids)")
	case c.ClientURL == "":
		return fmt.Errorf("listen-client is required")
	case c.ClientURL == c.MetricsURL:
		return fmt.Errorf("listen-client and listen-metrics are both %s", c.ClientURL)
	case c.MaxRequestBytes < 1024:
		return fmt.Errorf("max-request-bytes %d is below 1024", c.MaxRequestBytes)
	case c.BackendBatchInterval <= 0 || c.BackendBatchLimit <= 0:
		return fmt.Errorf("backend-batch-interval and backend-batch-limit must be positive")
	case c.PromoteExtend < 0:
		return fmt.Errorf("promote-extend must not be negative")
	case c.CheckpointInterval.Std() < time.Second:
		return fmt.Errorf("lease-checkpoint-interval %v is too short", c.CheckpointInterval.Std())
	case c.WatchBufferSize < 1:
		return fmt.Errorf("watch-buffer-size must be at least 1")
	case c.AuditInterval < 0:
		return fmt.Errorf("audit-interval must not be negative (0 disables the auditor)")
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("log-level %q is not one of debug, info, warn, error", c.LogLevel)
	}
	return nil
}

// BackendPath is the backend file inside the data directory.
func (c *Config) BackendPath() string { return filepath.Join(c.DataDir, "member", "db") }
