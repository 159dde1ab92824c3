module github.com/raftkv/raftkv

go 1.22

require go.uber.org/zap v1.27.0

require go.uber.org/multierr v1.11.0 // indirect
